# out/: the row model and one writer per output format.
libmemsz_a_SOURCES += out/rows.c out/rows.h out/output.c out/output.h \
	out/json_writer.c out/json_writer.h \
	out/difftree.c out/difftree.h out/fields.c out/fields.h \
	out/timeline.c out/timeline.h \
	out/pprof.c out/pprof.h out/html.c out/html.h

# pprof: the message code is generated from out/profile.proto by protoc-c
# (Debian protobuf-c-compiler) at build time.
nodist_libmemsz_a_SOURCES = out/profile.pb-c.c out/profile.pb-c.h \
	out/html_assets.c
BUILT_SOURCES += out/profile.pb-c.c out/profile.pb-c.h out/html_assets.c
CLEANFILES += out/profile.pb-c.c out/profile.pb-c.h out/html_assets.c
EXTRA_DIST += out/profile.proto out/html/viewer.css out/html/viewer.js \
	scripts/embed-text.sh

out/profile.pb-c.h: out/profile.pb-c.c
	@test -f $@ || rm -f $<
	@test -f $@ || $(MAKE) $(AM_MAKEFLAGS) $<
out/profile.pb-c.c: $(srcdir)/out/profile.proto
	$(AM_V_GEN)$(MKDIR_P) out && \
	$(PROTOC_C) --c_out=out -I$(srcdir)/out $(srcdir)/out/profile.proto

# html: the viewer's stylesheet and script, compiled in as C strings.
out/html_assets.c: $(srcdir)/out/html/viewer.css $(srcdir)/out/html/viewer.js \
		$(srcdir)/scripts/embed-text.sh
	$(AM_V_GEN)$(MKDIR_P) out && \
	$(SHELL) $(srcdir)/scripts/embed-text.sh \
		html_viewer_css $(srcdir)/out/html/viewer.css \
		html_viewer_js $(srcdir)/out/html/viewer.js > $@.tmp && \
	mv $@.tmp $@
