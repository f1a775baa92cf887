# util/: allocation, error codes, formatting helpers, string lists.
libmemsz_a_SOURCES += util/util.c util/util.h util/strlist.c util/strlist.h \
	util/dynlib.c util/dynlib.h
