# data/: the memsz.data format, writer and validating reader.
libmemsz_a_SOURCES += data/datafile.c data/datafile.h data/pgstate.c \
	data/stackref.c data/stackref.h \
	data/pgstate.h
