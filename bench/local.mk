# bench/: benchmarks print figures measured side by side in one run; they
# assert nothing. `make bench` runs them all.
EXTRA_DIST += bench/bench_size.py
BENCH_SCRIPTS = bench/bench_size.py
BENCH_PROGRAMS = bench/bench_rangemap

bench: all $(noinst_PROGRAMS)
	@for b in $(BENCH_SCRIPTS); do \
		echo "== $$b"; MEMSZ=$(abs_top_builddir)/memsz python3 $(srcdir)/$$b || exit 1; \
	done
	@for p in $(BENCH_PROGRAMS); do echo "== $$p"; ./$$p || exit 1; done
.PHONY: bench
