# SPDX-License-Identifier: GPL-2.0-or-later
# util/: allocation, error codes, formatting helpers, string lists, the one
# hash table and the one string buffer.
libmemsz_a_SOURCES += util/util.c util/util.h util/strlist.c util/strlist.h \
	util/dynlib.c util/dynlib.h util/hashmap.c util/hashmap.h \
	util/strbuf.c util/strbuf.h util/escape.c util/escape.h \
	util/zinflate.c util/zinflate.h
