# SPDX-License-Identifier: GPL-2.0-or-later
# elf/: ELF image -> base DualMap and data sources; the image with its
# cached maps (imagemaps).
libmemsz_a_SOURCES += elf/elfimg.h elf/elfpriv.h elf/elfimg.c elf/elfsrc.c \
	elf/buildid.c \
	elf/elfraw.c elf/debugfile.c elf/demangle.c elf/archive.h elf/archive.c \
	elf/dwarf.h elf/dwarf.c elf/dwopen.c elf/dwarfscan.h elf/dwarfscan.c \
	elf/dwaranges.c \
	elf/dwaranges.h elf/dwinflate.c \
	elf/dwlinked.c elf/dwofind.c elf/dwomerge.c elf/dwotypes.c elf/dwotypes.h elf/dwp.c elf/dwp.h \
	elf/dwreloc.c elf/dwtype.c elf/dwtype.h \
	elf/relocs.h elf/relocs.c elf/ehcur.h elf/ehframe.h elf/ehframe.c \
	elf/lsdatab.c elf/lsdatab.h \
	elf/bbaddrmap.c elf/bbaddrmap.h elf/relocsrc.c elf/relocsrc.h \
	elf/imagemaps.c elf/imagemaps.h elf/xrefs.c elf/xrefs.h \
	elf/xrefstr.c elf/xrefstr.h elf/xsweep.c elf/xsweep.h \
	elf/xzydis.c elf/xzydis.h \
	elf/x86dec.c elf/x86dec.h elf/x86vex.c elf/x86evex.c elf/x86fast.c \
	elf/symtab.c elf/symtab.h elf/minidebug.c elf/minidebug.h \
	elf/ppcopd.c elf/ppcopd.h elf/armexidx.c elf/armexidx.h \
	elf/dwstrings.c elf/dwstrings.h \
	elf/secaddr.c elf/secaddr.h elf/secrefs.c elf/secrefs.h \
	elf/elfmeta.c elf/elfmeta.h elf/metasink.c elf/metasink.h

# x86_decode_tab()'s table (elf/x86fast.c) is computed by the decoder
# itself when memsz is built: elf/x86gen writes it to elf/x86fast.inc.
# x86gen runs on the build machine, so it is compiled by CC_FOR_BUILD
# (configure: $CC unless cross-compiling) without the target's flags;
# the decoder is plain C with no library.
X86GEN_SRC = $(srcdir)/elf/x86gen.c $(srcdir)/elf/x86dec.c \
	$(srcdir)/elf/x86vex.c $(srcdir)/elf/x86evex.c
EXTRA_DIST += elf/x86gen.c
BUILT_SOURCES += elf/x86fast.inc
CLEANFILES += elf/x86fast.inc elf/x86gen-build
elf/x86gen-build: $(X86GEN_SRC) $(srcdir)/elf/x86dec.h
	$(AM_V_CCLD)$(MKDIR_P) elf && \
	$(CC_FOR_BUILD) -O2 -I$(top_builddir) -I$(top_srcdir) -o $@ \
		$(X86GEN_SRC)
elf/x86fast.$(OBJEXT): elf/x86fast.inc
elf/x86fast.inc: elf/x86gen-build
	$(AM_V_GEN)$(MKDIR_P) elf && \
	elf/x86gen-build > $@.tmp && mv $@.tmp $@
