# SPDX-License-Identifier: GPL-2.0-or-later
# report/: attribution — resident pages of a recording (attrib, relocmap,
# fault stacks) and the bytes of ELF files on disk (ondisk) -> rows.
libmemsz_a_SOURCES += report/attrib.c report/attrib.h \
	report/attrib_class.c report/attrib_int.h \
	report/segment.c report/segment.h \
	report/imgcheck.c report/imgcheck.h \
	report/report.c report/report.h report/reportctx.h report/recnotes.c \
	report/charge.c report/charge_faults.c report/points.c \
	report/charge_runs.c report/charge_share.c \
	report/charge_cg.c report/tmpl.c report/tmpl.h \
	report/cgcharge.c report/cgcharge.h \
	report/hugeshare.c report/hugeshare.h \
	report/relocmap.c report/relocmap.h \
	report/unwind.c report/unwind.h \
	report/faults.c report/faults.h \
	report/ondisk.c report/ondisk.h \
	report/keys.c report/keys.h \
	report/jitsyms.c report/jitsyms.h \
	report/filter.c report/filter.h \
	report/diff.c report/diff.h
