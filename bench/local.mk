# bench/: benchmarks print figures measured side by side in one run; they
# assert nothing. `make bench` runs them all.
EXTRA_DIST += bench/bench_size.py bench/bench_faults.py
bench_scripts += bench/bench_size.py bench/bench_faults.py
bench_programs += bench/bench_rangemap bench/bench_snapshot

bench: all $(noinst_PROGRAMS)
	@for b in $(bench_scripts); do \
		echo "== $$b"; MEMSZ=$(abs_top_builddir)/memsz python3 $(srcdir)/$$b || exit 1; \
	done
	@for p in $(bench_programs); do echo "== $$p"; ./$$p || exit 1; done
.PHONY: bench
