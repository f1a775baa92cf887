# SPDX-License-Identifier: GPL-2.0-or-later
# record/: capture — perf events, /proc maps, page snapshots, targets.
# Knows no ELF internals beyond reading a build-id.
libmemsz_a_SOURCES += record/perf.c record/perf.h record/perf_int.h \
	record/perf_decode.c record/perf_ring.c record/perf_leash.c \
	record/target.c record/target.h record/tracer.c \
	record/procmaps.c record/procmaps.h \
	record/snapshot.c record/snapshot.h record/snap_int.h \
	record/snap_pagemap.c record/snap_pagemap.h \
	record/snap_kpage.c record/snap_kpage.h record/snap_keys.c \
	record/snap_class.h record/snap_classify.c \
	record/snap_charge.c \
	record/snap_clean.c \
	record/snap_share.c record/snap_share.h \
	record/snap_pmd.c record/snap_pmd.h \
	record/snap_hold.c record/snap_hold.h \
	record/snap_observer.c record/snap_observer.h \
	record/snap_pool.c record/snap_pool.h \
	record/snap_images.c record/snap_images.h \
	record/snap_shmswap.c record/snap_shmswap.h \
	record/snap_dirty.c record/snap_dirty.h \
	record/events.c record/events.h \
	record/session.c record/session.h record/session_int.h \
	record/session_loop.c record/session_targets.c \
	record/session_capture.c record/session_trigger.c \
	record/session_cgroup.c record/memcg.c record/memcg.h \
	record/session_cache.c record/pagecache.c record/pagecache.h \
	record/machine.c record/machine.h \
	record/jitmap.c record/jitmap.h \
	record/targets_scan.c record/targets_scan.h
