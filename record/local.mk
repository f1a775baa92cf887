# record/: capture — perf events, /proc maps, page snapshots, targets.
# Knows no ELF internals beyond reading a build-id.
libmemsz_a_SOURCES += record/perf.c record/perf.h \
	record/target.c record/target.h \
	record/procmaps.c record/procmaps.h \
	record/snapshot.c record/snapshot.h \
	record/events.c record/events.h \
	record/session.c record/session.h \
	record/jitmap.c record/jitmap.h
