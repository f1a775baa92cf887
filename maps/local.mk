# maps/ build fragment (included by Makefile.am)
libmemsz_a_SOURCES += maps/labels.c maps/labels.h \
	maps/rangemap.c maps/rangemap.h

check_PROGRAMS += tests/test_rangemap tests/test_labels
TESTS += tests/test_rangemap tests/test_labels
tests_test_rangemap_SOURCES = tests/test_rangemap.c
tests_test_rangemap_CFLAGS = $(TEST_CFLAGS)
tests_test_rangemap_LDADD = $(TEST_LIBS)
tests_test_labels_SOURCES = tests/test_labels.c
tests_test_labels_CFLAGS = $(TEST_CFLAGS)
tests_test_labels_LDADD = $(TEST_LIBS)

noinst_PROGRAMS += bench/bench_rangemap
bench_bench_rangemap_SOURCES = bench/bench_rangemap.c
bench_bench_rangemap_CFLAGS = $(AM_CFLAGS)
bench_bench_rangemap_LDADD = $(MEMSZ_LIBS)
