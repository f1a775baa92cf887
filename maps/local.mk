# SPDX-License-Identifier: GPL-2.0-or-later
# maps/: RangeMap / DualMap and interned labels.
libmemsz_a_SOURCES += maps/labels.c maps/labels.h \
	maps/rangemap.c maps/rangemap.h maps/pendsort.c maps/dualmap.c \
	maps/rmaptable.c maps/rmappriv.h
