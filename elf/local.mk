# elf/ build fragment (included by Makefile.am)
libmemsz_a_SOURCES += elf/elfimg.h elf/elfpriv.h elf/elfimg.c elf/elfsrc.c \
	elf/debugfile.c elf/demangle.c elf/dwarf.h elf/dwarf.c
libmemsz_a_SOURCES += elf/relocs.h elf/relocs.c elf/ehframe.h elf/ehframe.c \
	elf/elfraw.c

check_PROGRAMS += tests/test_elf
TESTS += tests/test_elf
tests_test_elf_SOURCES = tests/test_elf.c tests/testutil.c tests/testutil.h
tests_test_elf_CFLAGS = $(TEST_CFLAGS)
tests_test_elf_CPPFLAGS = $(AM_CPPFLAGS) \
	-DELF_TEST_SRCDIR='"$(abs_top_srcdir)"'
tests_test_elf_LDADD = $(TEST_LIBS)
EXTRA_DIST += tests/elf-fixtures/elf-byteswap.py

noinst_PROGRAMS += bench/bench_elf
bench_bench_elf_SOURCES = bench/bench_elf.c
bench_bench_elf_LDADD = $(MEMSZ_LIBS)

libmemsz_a_SOURCES += elf/bbaddrmap.c elf/bbaddrmap.h \
	elf/relocsrc.c elf/relocsrc.h
check_PROGRAMS += tests/test_bbaddrmap
TESTS += tests/test_bbaddrmap
tests_test_bbaddrmap_SOURCES = tests/test_bbaddrmap.c tests/testutil.c tests/testutil.h
tests_test_bbaddrmap_CFLAGS = $(TEST_CFLAGS)
tests_test_bbaddrmap_LDADD = $(TEST_LIBS)
TESTS += tests/t1100-size-compileunits.py
EXTRA_DIST += tests/t1100-size-compileunits.py

EXTRA_DIST += bench/bench_dwarf.py
bench_scripts += bench/bench_dwarf.py
check_PROGRAMS += tests/test_ehframe tests/test_relocs
TESTS += tests/test_ehframe tests/test_relocs
tests_test_ehframe_SOURCES = tests/test_ehframe.c tests/testutil.c tests/testutil.h
tests_test_ehframe_CFLAGS = $(TEST_CFLAGS)
tests_test_ehframe_LDADD = $(TEST_LIBS)
tests_test_relocs_SOURCES = tests/test_relocs.c tests/testutil.c tests/testutil.h
tests_test_relocs_CFLAGS = $(TEST_CFLAGS)
tests_test_relocs_LDADD = $(TEST_LIBS)
