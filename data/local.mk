# SPDX-License-Identifier: GPL-2.0-or-later
# data/: the memsz.data format: its record types (one row each), writer,
# validating reader, CRC-32C and the page-state encoding.
libmemsz_a_SOURCES += data/datafile.h data/dfcodec.h data/dfcodec.c \
	data/crc32c.c data/crc32c.h \
	data/dfrecords.c data/dfcgroup.c data/dfmapping.c data/dfsample.c data/dfprint.c \
	data/dfwriter.c data/dfcreate.c data/dfreader.c data/notekind.c data/notekind.h \
	data/pgstate.c data/pgstate.h data/pgstate_bits.c data/pgstate_dec.c \
	data/pgstate_int.h \
	data/stackref.c data/stackref.h
