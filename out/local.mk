# out/: the row model and one writer per output format.
libmemsz_a_SOURCES += out/rows.c out/rows.h out/output.c out/output.h \
	out/json_writer.c out/json_writer.h \
	out/difftree.c out/difftree.h out/fields.c out/fields.h \
	out/timeline.c out/timeline.h
