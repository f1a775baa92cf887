# SPDX-License-Identifier: GPL-2.0-or-later
# bench/: benchmarks print figures measured side by side in one run; they
# assert nothing. `make bench` runs them all.
bench_scripts += bench/bench_size.py bench/bench_faults.py \
	bench/bench_faults_runtimes.py \
	bench/bench_dwarf.py bench/bench_report.py bench/bench_fallback.py \
	bench/bench_oneshot.py \
	bench/bench_syswide.py
EXTRA_DIST += $(bench_scripts) bench/benchlib.py
bench_programs += bench/bench_rangemap bench/bench_snapshot bench/bench_elf \
	bench/bench_rows bench/bench_machine bench/bench_pgbits
noinst_PROGRAMS += $(bench_programs) bench/bench_oneshot_floor
# bench_oneshot.py's floor (a program it starts, with arguments)
bench_bench_oneshot_floor_SOURCES = bench/bench_oneshot_floor.c \
	bench/benchfloor.c bench/benchfloor.h
bench_bench_oneshot_floor_LDADD = $(MEMSZ_LIBS)
bench_bench_rangemap_SOURCES = bench/bench_rangemap.c bench/benchutil.h
bench_bench_rangemap_LDADD = $(MEMSZ_LIBS)
bench_bench_snapshot_SOURCES = bench/bench_snapshot.c bench/benchutil.h \
	bench/benchfloor.c bench/benchfloor.h
bench_bench_snapshot_LDADD = $(MEMSZ_LIBS)
bench_bench_elf_SOURCES = bench/bench_elf.c
bench_bench_elf_LDADD = $(MEMSZ_LIBS)
bench_bench_rows_SOURCES = bench/bench_rows.c bench/benchutil.h
bench_bench_rows_LDADD = $(MEMSZ_LIBS)
bench_bench_machine_SOURCES = bench/bench_machine.c bench/benchutil.h
bench_bench_machine_LDADD = $(MEMSZ_LIBS)

bench: all $(noinst_PROGRAMS)
	@for b in $(bench_scripts); do \
		echo "== $$b"; MEMSZ=$(abs_top_builddir)/memsz python3 $(srcdir)/$$b || exit 1; \
	done
	@for p in $(bench_programs); do echo "== $$p"; ./$$p || exit 1; done
.PHONY: bench

# The soak of `record -p` (bench/soak.py; ten minutes, not in make bench):
# SOAK_ARGS="--minutes 3" make soak
EXTRA_DIST += bench/soak.py
soak: all
	python3 $(srcdir)/bench/soak.py --memsz $(abs_top_builddir)/memsz \
		$(SOAK_ARGS)
.PHONY: soak
bench_bench_pgbits_SOURCES = bench/bench_pgbits.c
bench_bench_pgbits_LDADD = $(MEMSZ_LIBS)
