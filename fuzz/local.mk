# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz/: libFuzzer targets, one per reader, built by ./configure
# --enable-fuzzing CC=clang (AddressSanitizer and UndefinedBehaviorSanitizer,
# every check fatal). Each feeds the fuzz bytes straight to its reader (in
# memory; the ELF ones through a memfd, the reader taking a file):
#   fuzz_elfhdr    ELF headers: elfimg_open, base map, segments, sections
#   fuzz_elfsym    the symbols and bbs sources (eh_frame, relocs, demangler)
#   fuzz_dwarf     the compileunits and inlines sources (libdw)
#   fuzz_dwp       a DWARF package's unit indexes and units (elf/dwp.c)
#   fuzz_ehframe   the .eh_frame, .eh_frame_hdr and LSDA parsers over a buffer
#   fuzz_relocs    the dynamic relocation reader and the relocs source
#   fuzz_pgstate   the version 2 page-state decoder (and its round trip)
#   fuzz_datafile  the memsz.data reader and its dump printer
#   fuzz_procmaps  the /proc/PID/maps parser
#   fuzz_perf      the perf ring and record parsers
#   fuzz_archive   the static archive (ar) reader
# and two end to end, slow, for long runs only (not in fuzz-check):
#   fuzz_size      `memsz size` by every key over an ELF image
#   fuzz_report    `memsz dump -v` and `memsz report` by every key over a
#                  memsz.data file (images opened as $MEMSZ_FUZZ_IMAGE)
# `make fuzz` builds them and their seed corpora (fuzz/seeds.sh: small ELF
# files, their unwind tables, page-state streams and real recordings made
# at build time); `make fuzz-check` runs each for FUZZ_SECONDS (7) as a
# test; README.md gives the long run.
fuzz_tests = fuzz/smoke-elfhdr.sh fuzz/smoke-elfsym.sh fuzz/smoke-dwarf.sh \
	fuzz/smoke-dwp.sh \
	fuzz/smoke-ehframe.sh fuzz/smoke-relocs.sh fuzz/smoke-pgstate.sh \
	fuzz/smoke-datafile.sh fuzz/smoke-procmaps.sh fuzz/smoke-perf.sh \
	fuzz/smoke-archive.sh
EXTRA_DIST += fuzz/fuzzutil.h fuzz/fuzzutil.c \
	fuzz/fuzz_elfhdr.c fuzz/fuzz_elfsym.c fuzz/fuzz_dwarf.c fuzz/fuzz_dwp.c \
	fuzz/fuzz_ehframe.c fuzz/fuzz_relocs.c fuzz/fuzz_pgstate.c \
	fuzz/fuzz_datafile.c fuzz/fuzz_procmaps.c fuzz/fuzz_perf.c \
	fuzz/fuzz_size.c fuzz/fuzz_report.c fuzz/fuzz_archive.c \
	fuzz/elf.dict fuzz/memsz.dict fuzz/maps.dict fuzz/ar.dict \
	fuzz/seed_prog.c \
	fuzz/seeds.sh fuzz/smoke.sh $(fuzz_tests)

if FUZZING
fuzz_programs = fuzz/fuzz_elfhdr fuzz/fuzz_elfsym fuzz/fuzz_dwarf fuzz/fuzz_dwp \
	fuzz/fuzz_ehframe fuzz/fuzz_relocs fuzz/fuzz_pgstate \
	fuzz/fuzz_datafile fuzz/fuzz_procmaps fuzz/fuzz_perf \
	fuzz/fuzz_size fuzz/fuzz_report fuzz/fuzz_archive
noinst_PROGRAMS += $(fuzz_programs)
FUZZ_LINK = $(AM_LDFLAGS) -fsanitize=fuzzer
FUZZ_ELF_SOURCES = fuzz/fuzzutil.c fuzz/fuzzutil.h
fuzz_fuzz_elfhdr_SOURCES = fuzz/fuzz_elfhdr.c $(FUZZ_ELF_SOURCES)
fuzz_fuzz_elfhdr_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_elfhdr_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_elfsym_SOURCES = fuzz/fuzz_elfsym.c $(FUZZ_ELF_SOURCES)
fuzz_fuzz_elfsym_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_elfsym_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_dwarf_SOURCES = fuzz/fuzz_dwarf.c $(FUZZ_ELF_SOURCES)
fuzz_fuzz_dwarf_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_dwarf_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_dwp_SOURCES = fuzz/fuzz_dwp.c $(FUZZ_ELF_SOURCES)
fuzz_fuzz_dwp_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_dwp_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_relocs_SOURCES = fuzz/fuzz_relocs.c $(FUZZ_ELF_SOURCES)
fuzz_fuzz_relocs_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_relocs_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_ehframe_SOURCES = fuzz/fuzz_ehframe.c
fuzz_fuzz_ehframe_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_ehframe_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_pgstate_SOURCES = fuzz/fuzz_pgstate.c
fuzz_fuzz_pgstate_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_pgstate_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_datafile_SOURCES = fuzz/fuzz_datafile.c
fuzz_fuzz_datafile_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_datafile_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_procmaps_SOURCES = fuzz/fuzz_procmaps.c
fuzz_fuzz_procmaps_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_procmaps_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_perf_SOURCES = fuzz/fuzz_perf.c
fuzz_fuzz_perf_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_perf_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_archive_SOURCES = fuzz/fuzz_archive.c
fuzz_fuzz_archive_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_archive_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_size_SOURCES = fuzz/fuzz_size.c $(FUZZ_ELF_SOURCES) \
	builtin/cmd_size.c builtin/view.c builtin/view.h builtin/options.c \
	builtin/options.h
fuzz_fuzz_size_LDFLAGS = $(FUZZ_LINK)
fuzz_fuzz_size_LDADD = $(MEMSZ_LIBS)
fuzz_fuzz_report_SOURCES = fuzz/fuzz_report.c $(FUZZ_ELF_SOURCES) \
	builtin/cmd_report.c builtin/cmd_dump.c builtin/timeline.c \
	builtin/view.c builtin/view.h builtin/options.c builtin/options.h
fuzz_fuzz_report_LDFLAGS = $(FUZZ_LINK) -Wl,--wrap=imgmaps_open
fuzz_fuzz_report_LDADD = $(MEMSZ_LIBS)

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
