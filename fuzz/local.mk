# fuzz/: libFuzzer targets, built by ./configure --enable-fuzzing CC=clang
# (AddressSanitizer and UndefinedBehaviorSanitizer, every check fatal):
#   fuzz_elf       `memsz size` by every key over an ELF image
#   fuzz_datafile  `memsz dump -v` and `memsz report` by every key over a
#                  memsz.data file (image lookups kept off the machine)
#   fuzz_procmaps  the /proc/PID/maps parser
#   fuzz_perf      the perf ring and record parsers
#   fuzz_dfreader  the memsz.data reader alone (no report)
#   fuzz_pgstate   the SNAP_MAPPING page-state decoder, in memory
#   fuzz_elfhdr    elfimg_open alone (headers, tables, build-id)
#   fuzz_relocs    elfimg_open and the relocation reader
#   fuzz_ehframe   the .eh_frame / .eh_frame_hdr parsers, in memory
#   fuzz_symbols   an image's symbols source map (symbol tables)
#   fuzz_dwarf     an image's compileunits source map (DWARF)
# `make fuzz` builds them and their seed corpora (fuzz/seeds.sh: small ELF
# files and real recordings made at build time); `make fuzz-check` runs
# each for FUZZ_SECONDS (15) as a test; README.md gives the long run.
fuzz_tests = fuzz/smoke-elf.sh fuzz/smoke-datafile.sh \
	fuzz/smoke-procmaps.sh fuzz/smoke-perf.sh fuzz/smoke-dfreader.sh \
	fuzz/smoke-pgstate.sh fuzz/smoke-elfhdr.sh fuzz/smoke-relocs.sh \
	fuzz/smoke-ehframe.sh fuzz/smoke-symbols.sh fuzz/smoke-dwarf.sh
EXTRA_DIST += fuzz/fuzzutil.h fuzz/fuzzutil.c fuzz/fuzz_elf.c \
	fuzz/fuzz_datafile.c fuzz/fuzz_procmaps.c fuzz/fuzz_perf.c \
	fuzz/fuzz_dfreader.c fuzz/fuzz_pgstate.c fuzz/fuzz_elfhdr.c \
	fuzz/fuzz_ehframe.c fuzz/fuzz_elfsrc.c \
	fuzz/elf.dict fuzz/memsz.dict fuzz/maps.dict fuzz/seed_prog.c \
	fuzz/seeds.sh fuzz/smoke.sh $(fuzz_tests)

if FUZZING
fuzz_programs = fuzz/fuzz_elf fuzz/fuzz_datafile fuzz/fuzz_procmaps \
	fuzz/fuzz_perf fuzz/fuzz_dfreader fuzz/fuzz_pgstate fuzz/fuzz_elfhdr \
	fuzz/fuzz_relocs fuzz/fuzz_ehframe fuzz/fuzz_symbols fuzz/fuzz_dwarf
noinst_PROGRAMS += $(fuzz_programs)
FUZZ_LINK = $(AM_LDFLAGS) -fsanitize=fuzzer
fuzz_fuzz_elf_SOURCES = fuzz/fuzz_elf.c fuzz/fuzzutil.c fuzz/fuzzutil.h \
	builtin/cmd_size.c builtin/view.c builtin/view.h builtin/options.c \
	builtin/options.h
fuzz_fuzz_elf_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_elf_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_datafile_SOURCES = fuzz/fuzz_datafile.c fuzz/fuzzutil.c \
	fuzz/fuzzutil.h builtin/cmd_report.c builtin/cmd_dump.c \
	builtin/timeline.c builtin/view.c builtin/view.h builtin/options.c \
	builtin/options.h
fuzz_fuzz_datafile_LDFLAGS = $(FUZZ_LINK) -Wl,--wrap=imgmaps_open
fuzz_fuzz_datafile_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_procmaps_SOURCES = fuzz/fuzz_procmaps.c
fuzz_fuzz_procmaps_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_procmaps_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_perf_SOURCES = fuzz/fuzz_perf.c
fuzz_fuzz_perf_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_perf_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_dfreader_SOURCES = fuzz/fuzz_dfreader.c
fuzz_fuzz_dfreader_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_dfreader_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_pgstate_SOURCES = fuzz/fuzz_pgstate.c
fuzz_fuzz_pgstate_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_pgstate_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_elfhdr_SOURCES = fuzz/fuzz_elfhdr.c fuzz/fuzzutil.c \
	fuzz/fuzzutil.h
fuzz_fuzz_elfhdr_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_elfhdr_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_relocs_SOURCES = $(fuzz_fuzz_elfhdr_SOURCES)
fuzz_fuzz_relocs_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_RELOCS
fuzz_fuzz_relocs_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_relocs_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_ehframe_SOURCES = fuzz/fuzz_ehframe.c
fuzz_fuzz_ehframe_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_ehframe_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_symbols_SOURCES = fuzz/fuzz_elfsrc.c fuzz/fuzzutil.c \
	fuzz/fuzzutil.h
fuzz_fuzz_symbols_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_SRC=ELFSRC_SYMBOLS
fuzz_fuzz_symbols_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_symbols_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_dwarf_SOURCES = $(fuzz_fuzz_symbols_SOURCES)
fuzz_fuzz_dwarf_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_SRC=ELFSRC_COMPILEUNITS
fuzz_fuzz_dwarf_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_dwarf_LDADD = $(MEMSZ_LIBS)

fuzz/seeds/.stamp: memsz$(EXEEXT) $(srcdir)/fuzz/seeds.sh \
		$(srcdir)/fuzz/seed_prog.c
	rm -rf fuzz/seeds
	CC="$(CC)" $(SHELL) $(srcdir)/fuzz/seeds.sh fuzz/seeds \
		$(abs_top_builddir)/memsz$(EXEEXT) $(abs_top_srcdir)
	touch $@

fuzz: $(fuzz_programs) fuzz/seeds/.stamp
fuzz-check: fuzz
	$(MAKE) $(AM_MAKEFLAGS) check TESTS="$(fuzz_tests)"
else
fuzz fuzz-check:
	@echo "memsz: the fuzz targets need ./configure --enable-fuzzing CC=clang" >&2
	@exit 1
endif
.PHONY: fuzz fuzz-check

clean-local: clean-fuzz
clean-fuzz:
	rm -rf fuzz/seeds fuzz/corpus fuzz/crash-* fuzz/libfuzzer-*.out
.PHONY: clean-fuzz
