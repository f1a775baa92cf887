# record/ build fragment (included by Makefile.am).
# recB: perf capture, targets and `memsz record`; recA's procmaps/snapshot
# sources are listed in data/local.mk.
libmemsz_a_SOURCES += record/perf.c record/perf.h
libmemsz_a_SOURCES += record/target.c record/target.h
libmemsz_a_SOURCES += record/cmd_record.c

dist_man_MANS += man/memsz-record.1

check_PROGRAMS += tests/test_perf
TESTS += tests/test_perf
tests_test_perf_SOURCES = tests/test_perf.c
tests_test_perf_CFLAGS = $(TEST_CFLAGS)
tests_test_perf_LDADD = $(TEST_LIBS)
