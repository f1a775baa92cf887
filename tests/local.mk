# tests/: end-to-end tests of whole commands (module unit tests are listed
# in their module's fragment). Numbered by family: t1xxx size, t2xxx record,
# t3xxx report.
TESTS += tests/t1000-size-i1.py tests/t1001-size-cli.sh
EXTRA_DIST += tests/lib.sh tests/t1000-size-i1.py tests/t1001-size-cli.sh
EXTRA_DIST += tests/memsz_testlib.py
