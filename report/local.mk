# report/ build fragment (included by Makefile.am)
libmemsz_a_SOURCES += report/rows.c report/rows.h \
	report/output.c report/output.h \
	report/json_writer.c report/json_writer.h

check_PROGRAMS += tests/test_rows tests/test_output
TESTS += tests/test_rows tests/test_output
tests_test_rows_SOURCES = tests/test_rows.c
tests_test_rows_CFLAGS = $(TEST_CFLAGS)
tests_test_rows_LDADD = $(TEST_LIBS)
tests_test_output_SOURCES = tests/test_output.c
tests_test_output_CFLAGS = $(TEST_CFLAGS)
tests_test_output_LDADD = $(TEST_LIBS)

