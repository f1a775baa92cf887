# data/ build fragment: the memsz.data format (included by Makefile.am).
# Also lists recA's record/ sources (procmaps, snapshot), memsz dump, their
# tests, man pages and the snapshot benchmark.
libmemsz_a_SOURCES += data/datafile.c data/datafile.h
libmemsz_a_SOURCES += record/procmaps.c record/procmaps.h
libmemsz_a_SOURCES += record/snapshot.c record/snapshot.h
libmemsz_a_SOURCES += report/cmd_dump.c

dist_man_MANS += man/memsz-dump.1 man/memsz-data.5

check_PROGRAMS += tests/test_datafile tests/test_procmaps tests/test_snapshot
TESTS += tests/test_datafile tests/test_procmaps tests/test_snapshot
tests_test_datafile_SOURCES = tests/test_datafile.c tests/testutil.c tests/testutil.h
tests_test_datafile_CFLAGS = $(TEST_CFLAGS)
tests_test_datafile_LDADD = $(TEST_LIBS)
tests_test_procmaps_SOURCES = tests/test_procmaps.c
tests_test_procmaps_CFLAGS = $(TEST_CFLAGS)
tests_test_procmaps_LDADD = $(TEST_LIBS)
tests_test_snapshot_SOURCES = tests/test_snapshot.c
tests_test_snapshot_CPPFLAGS = $(AM_CPPFLAGS) \
	-DWORKLOAD_DIR='"$(abs_top_srcdir)/tests/workloads"'
tests_test_snapshot_CFLAGS = $(TEST_CFLAGS)
tests_test_snapshot_LDADD = $(TEST_LIBS)
EXTRA_DIST += tests/workloads/snap_workload.c

TESTS += tests/t2001-dump.sh
EXTRA_DIST += tests/t2001-dump.sh

noinst_PROGRAMS += bench/bench_snapshot
bench_bench_snapshot_SOURCES = bench/bench_snapshot.c
bench_bench_snapshot_LDADD = $(MEMSZ_LIBS)
