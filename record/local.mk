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

# End-to-end record tests (need the memsz binary with `memsz dump`).
TESTS += tests/t2050-record-mmaps.sh tests/t2060-record-fork.sh \
	tests/t2070-record-attach.sh tests/t2080-record-sigint.sh \
	tests/t2090-record-nonroot.sh tests/t2095-record-errors.sh
EXTRA_DIST += tests/t2050-record-mmaps.sh tests/t2060-record-fork.sh \
	tests/t2070-record-attach.sh tests/t2080-record-sigint.sh \
	tests/t2090-record-nonroot.sh tests/t2095-record-errors.sh \
	tests/workloads/rec_lib.c tests/workloads/rec_dlopen.c \
	tests/workloads/rec_fork.c tests/workloads/rec_sleep.c

# frec: page-fault sampling (memsz record --faults / -e)
libmemsz_a_SOURCES += record/faults.c record/faults.h
check_PROGRAMS += tests/test_faults
TESTS += tests/test_faults
tests_test_faults_SOURCES = tests/test_faults.c
tests_test_faults_CFLAGS = $(TEST_CFLAGS)
tests_test_faults_LDADD = $(TEST_LIBS)
TESTS += tests/t2100-record-faults.sh
EXTRA_DIST += tests/t2100-record-faults.sh tests/workloads/fault_paths.c
