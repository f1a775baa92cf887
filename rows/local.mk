# SPDX-License-Identifier: GPL-2.0-or-later
# rows/: the row tree (one, two or N value sets per row) and one writer
# per output format.
libmemsz_a_SOURCES += rows/rows.c rows/rows.h rows/rowsort.c \
	rows/sortpriv.h rows/merge.c \
	rows/leaves.c rows/leaves.h rows/coldefs.c \
	rows/output.c rows/output.h rows/fields.c rows/fields.h \
	rows/table.c rows/numfmt.c rows/numfmt.h rows/csv.c rows/json.c \
	rows/json_writer.c rows/json_writer.h \
	rows/pprof.c rows/pprof.h rows/html.c rows/html.h

# pprof: the message code is generated from rows/profile.proto by protoc-c
# (Debian protobuf-c-compiler) at build time.
nodist_libmemsz_a_SOURCES = rows/profile.pb-c.c rows/profile.pb-c.h \
	rows/html_assets.c
BUILT_SOURCES += rows/profile.pb-c.c rows/profile.pb-c.h rows/html_assets.c
CLEANFILES += rows/profile.pb-c.c rows/profile.pb-c.h rows/html_assets.c
EXTRA_DIST += rows/profile.proto rows/html/viewer.css rows/html/viewer.js \
	rows/html/timeline.js \
	scripts/embed-text.sh

# BUILT_SOURCES is made first only by `make all`, `check` and `install`:
# `make memsz` (any single target) in a fresh tree reaches the users of
# the generated header before the header, so each user names it.
rows/pprof.$(OBJEXT) \
	tests/test_output_pprof_html-test_output_pprof_html.$(OBJEXT): \
	rows/profile.pb-c.h

rows/profile.pb-c.h: rows/profile.pb-c.c
	@test -f $@ || rm -f $<
	@test -f $@ || $(MAKE) $(AM_MAKEFLAGS) $<
rows/profile.pb-c.c: $(srcdir)/rows/profile.proto
	$(AM_V_GEN)$(MKDIR_P) rows && \
	$(PROTOC_C) --c_out=rows -I$(srcdir)/rows $(srcdir)/rows/profile.proto

# html: the viewer's stylesheet and script, compiled in as C strings.
rows/html_assets.c: $(srcdir)/rows/html/viewer.css $(srcdir)/rows/html/viewer.js \
		$(srcdir)/rows/html/timeline.js \
		$(srcdir)/scripts/embed-text.sh
	$(AM_V_GEN)$(MKDIR_P) rows && \
	$(SHELL) $(srcdir)/scripts/embed-text.sh \
		html_viewer_css $(srcdir)/rows/html/viewer.css \
		html_viewer_js $(srcdir)/rows/html/viewer.js \
		html_timeline_js $(srcdir)/rows/html/timeline.js > $@.tmp && \
	mv $@.tmp $@
