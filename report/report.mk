# report/report.mk — `memsz report`: the attribution engine, the row
# building and the command (included by Makefile.am).
libmemsz_a_SOURCES += report/attrib.c report/attrib.h \
	report/report.c report/report.h
memsz_SOURCES += report/cmd_report.c

check_PROGRAMS += tests/test_attrib
TESTS += tests/test_attrib
tests_test_attrib_SOURCES = tests/test_attrib.c tests/testutil.c tests/testutil.h
tests_test_attrib_CFLAGS = $(TEST_CFLAGS)
tests_test_attrib_LDADD = $(TEST_LIBS)

# End-to-end: I2 against smaps, the known-layout workload, errors.
TESTS += tests/t3000-report-i2.py tests/t3001-report-layout.py \
	tests/t3002-report-errors.sh
EXTRA_DIST += tests/t3000-report-i2.py tests/t3001-report-layout.py \
	tests/t3002-report-errors.sh tests/workloads/rep_layout.c

dist_man_MANS += man/memsz-report.1

# `make bench`: report beside `memsz size` on libLLVM and node.
EXTRA_DIST += bench/bench_report.py
bench_scripts += bench/bench_report.py

# Dirty-by-relocation: the relocs key and the RELOCS column.
libmemsz_a_SOURCES += report/relocmap.c report/relocmap.h
TESTS += tests/t3010-report-relocs.py
EXTRA_DIST += tests/t3010-report-relocs.py tests/workloads/rep_relocs.cc
# Fault samples: remote unwinding of recorded user stacks (libunwind).
libmemsz_a_SOURCES += report/unwind.c report/unwind.h \
	report/faults.c report/faults.h
check_PROGRAMS += tests/test_unwind
TESTS += tests/test_unwind
tests_test_unwind_SOURCES = tests/test_unwind.c tests/testutil.c tests/testutil.h
tests_test_unwind_CFLAGS = $(TEST_CFLAGS)
tests_test_unwind_LDADD = $(TEST_LIBS)
# End-to-end: stacks of fault samples charged to the pages they made resident.
TESTS += tests/t3100-report-callers.py
EXTRA_DIST += tests/t3100-report-callers.py tests/workloads/rep_fault_paths.c
