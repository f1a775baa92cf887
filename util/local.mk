# util/: allocation, errors, formatting helpers
libmemsz_a_SOURCES += util/util.c util/util.h
