/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reportctx.h — what the passes of one report_build() share (private to
 * report.c, which reads the recording and chooses the snapshots, and
 * charge.c, which charges the chosen snapshots' pages to rows).
 */
#ifndef MEMSZ_REPORT_REPORTCTX_H
#define MEMSZ_REPORT_REPORTCTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/attrib.h"
#include "report/faults.h"
#include "report/jitsyms.h"
#include "report/keys.h"
#include "report/report.h"
#include "util/hashmap.h"

/* What pass 1 learns about one snapshot. */
struct snapinfo {
	uint64_t time;
	uint32_t pid, seq, flags;
	uint64_t offset; /* file offset of its SNAP_BEGIN */
	uint64_t rss_pages;
	uint64_t unreadable;
	uint32_t nmappings, seen; /* announced by SNAP_BEGIN, and read */
	uint32_t nth;		  /* PICK_ALL: its index among its pid's */
	uint32_t pidx;		  /* its process: index in report_ctx.pids */
	/* PICK_ALL: the points in time it counts in, [first, end): from its
	 * own to the one before its process's next snapshot or exit */
	uint32_t first, end;
	bool complete; /* SNAP_END read after all its mappings */
};

/* A recorded process: what the process keys label (kp: its pid, last
 * COMM and CMDLINE records, owner from a COMM record with one) and its
 * peak. */
struct pidinfo {
	struct key_proc kp;
	uint32_t subject; /* label "pid N": the subject of notes about
			     it, shown when a kept row comes from it */
	uint64_t vm_hwm;  /* highest VmHWM its snapshots recorded */
	uint64_t exit_ns; /* its EXIT record's time, 0: none read */
	bool exit_moved;  /* a snapshot after it (its pid reused) */
	bool dirty_noted; /* a dirty-by-mapping note is about it */
};

/* The dirty-by-mapping notes of a recording (one a snapshot) added up
 * from their values, for the one footer line that stands for them. */
struct dirty_sum {
	size_t nnotes, npids;
	uint64_t cleaned, ncleaned; /* bytes and mappings counted clean */
	uint64_t off, noff;	    /* bytes and mappings differing */
	uint64_t max_off;	    /* the most bytes one snapshot differs */
	uint32_t max_pid;	    /* by, and its process */
	uint64_t nchanged;	    /* mappings changed between the reads */
};

/* FILE SIZE and the VM SIZE of file mappings and .bss tails count once
 * per row: a file mapped by several processes counts once in the TOTAL and
 * in every row above the process keys. One entry per (file or VM walk of
 * an image over a file range or, for a .bss tail, an image VM range,
 * level, labels of the keys above that level that do not come from inside
 * images) already charged. */
struct share_key {
	uint32_t image_id;
	uint32_t level;	   /* depth, | SHARE_VM for a VM walk */
	uint64_t off, end; /* file range walked (image VM range
			      with SHARE_VMADDR: a .bss tail) */
	uint32_t point;	   /* PICK_ALL: the point in time charged */
	uint32_t copy;	   /* VM walk: the how-manieth mapping of the
			      range in its snapshot (0: the first) */
	uint32_t labels[KEYS_MAX];
};
#define SHARE_VM 0x80000000u
#define SHARE_VMADDR 0x40000000u /* off, end: image VM, not file offsets */

struct share_set {
	struct share_key *keys;
	size_t n, cap;
	struct hashmap index; /* of keys */
};

/* PICK_ALL: the pieces of one snapshot, charged once and then added to
 * the tree of every point in time the snapshot counts in. A group is a run
 * of pieces under one share decision, taken per point: the VM or file walk
 * of a range that counts once per row (key: its share_key at level 0 with
 * every label; cols: the columns shared) or pieces added everywhere (cols
 * 0). */
struct capture_piece {
	uint32_t path[KEYS_MAX];
	uint64_t vals[COL__COUNT];
};

struct capture_group {
	struct share_key key;
	unsigned cols; /* shared columns; 0: a plain add */
	bool file;     /* a FILE SIZE walk: no piece at all where
			  it is news at no level */
	size_t lo, hi; /* the levels it may reach: lo..hi-1 (0, SIZE_MAX:
			  all; see charge_file()) */
	size_t start;  /* its first piece */
};

struct capture {
	bool on; /* add_piece captures, not adds */
	struct capture_piece *pieces;
	size_t n, cap;
	struct capture_group *groups;
	size_t ngroups, gcap;
	struct share_set seen; /* file walks captured in this snapshot */
};

/* The rows of the pieces of one template of an image (attrib_piece())
 * under one set of labels of the keys with a hook, found by label once and
 * then added to by position (rowtree_add_index()): every mapping of the
 * image in every process that maps it reuses them. Made on a key's second
 * walk (a key seen once would cost memory and save nothing). */
struct rowcache_key {
	const void *tmpl;
	uint32_t none[KEYS_MAX];  /* attrib_piece.none of the image keys */
	uint32_t fixed[KEYS_MAX]; /* labels of the keys with a hook */
};
enum {
	RC_KNOWN = 1u << KEYS_MAX,	/* the piece's slot is filled */
	RC_DROP = 1u << (KEYS_MAX + 1), /* the filter drops the piece */
};
/* RC_CHUNK slots of a rowcache, made when a piece of them is charged (a
 * mapping charges the pieces of its segment only). */
#define RC_CHUNK 256
struct rc_chunk {
	uint16_t flags[RC_CHUNK]; /* RC_*, and bit k: key k's label is a
				     fallback */
	uint64_t *acc; /* per slot, COL__COUNT values of page runs not
			  yet added (rowcache_flush()); NULL: none */
	uint32_t ix[]; /* per slot, the row's position at each level */
};
/* The VM walk of an image VM range over a rowcache's pieces, recorded the
 * first time as steps down its rows with their VM summed per row, added
 * as such for every process after (rowtree_add_steps()). */
struct rc_span {
	uint64_t start, end;
	struct rows_step *steps;
	size_t n, cap;
	uint64_t total; /* VM of every piece kept */
	bool done;	/* recorded to its end */
};
/* A page run's walk over a rowcache's pieces (attrib_run_key): walked the
 * first time, recorded the second (each kept piece's slot and bytes),
 * then only counted, and added as many times at the end
 * (rowcache_flush()): processes of the same images see the same runs. */
struct rc_item {
	uint64_t start, bytes; /* its values: attrib_run_vals() */
	uint32_t slot;
};
struct rc_run {
	struct attrib_run_key key;
	struct rc_item *items;
	size_t n, cap;
	uint8_t state;			      /* RC_RUN_* */
	uint64_t pending;		      /* counted walks not yet added */
	uint64_t rss, fallback_rss[KEYS_MAX]; /* count_fallback()'s */
};
enum { RC_RUN_SEEN, RC_RUN_RECORDING, RC_RUN_RECORDED };
struct rowcache {
	struct rowcache_key key;
	struct rc_span *spans;
	size_t nspans, spancap;
	struct rc_run *runs;
	size_t nruns, runcap;
	struct hashmap runix; /* of runs[].key */
	uint32_t uses;	      /* walks seen with key */
	uint32_t npieces;     /* slots: one per piece and one for "outside" */
	uint64_t serial;      /* the tree ix[] is of (rowtree.serial) */
	struct rc_chunk **chunks; /* NULL until the second walk */
};
struct rowcaches {
	struct rowcache *v;
	size_t n, cap;
	struct hashmap index;  /* of v[].key */
	struct rowcache *cur;  /* the walk's (NULL: by label) */
	bool lookup;	       /* the next piece starts a walk */
	bool marked;	       /* the walk's subjects are marked shown */
	bool defer;	       /* one tree: page runs summed per slot */
	struct rc_span *rec;   /* the span being recorded, or NULL */
	struct rc_run *runrec; /* the run being recorded, or NULL */
	const uint32_t *prev;  /* its last piece's positions (NULL: none) */
	size_t open[KEYS_MAX]; /* its latest step at each level */
};
struct report_ctx {
	const struct report_opts *o;
	struct labels *lb;
	struct attrib *a;
	struct rowtree *t;
	struct report_result *res;

	struct snapinfo *snaps;
	size_t nsnaps, snapcap;
	struct pidinfo *pids;
	size_t npids, pidcap;
	uint64_t lost;
	struct dirty_sum dirty;
	/* IMAGE_KIND records the reader ignored, and why the first was */
	uint64_t kinds_ignored;
	const char *kind_ignored_why;
	size_t truncated_at; /* 0: read to a clean end */
	char *stop;	     /* why the read stopped early, or NULL */

	/* the walk */
	enum key_id srcs[KEYS_MAX]; /* the image keys */
	size_t nsrcs;
	int src_of_key[KEYS_MAX]; /* index into srcs, or -1 */
	uint32_t fixed[KEYS_MAX]; /* labels of the keys with a hook */
	struct pidinfo *cur_pid;
	struct key_at at; /* what the label hooks see: the process,
			     mapping and part being charged */
	size_t by_range;  /* the level (d: the rows of key d-1) of the first
			     key that charges FILE SIZE by mapped range; 0:
			     none */
	struct share_set shared;
	struct share_set copies; /* VM walks of the snapshot charged (their
				    share_key, labels 0, with copy) */
	bool shared_once;	 /* a file counted once for several rows */
	size_t share_from;	 /* add_piece: rowtree_add_from() level */
	size_t share_to;	 /* and the level no piece reaches (0: none;
				    rowtree_add_upto()) */
	unsigned share_cols;	 /* and columns (0: plain rowtree_add) */
	uint32_t cur_subject[2]; /* labels of the part being charged */
	uint8_t *shown;		 /* per label: a kept row came from it */
	size_t showncap;
	/* RSS under fallback labels per key (image keys), and all RSS */
	uint64_t fallback_rss[KEYS_MAX], rss;
	bool want_faults;      /* a key needs faults (KEY_NEEDS_FAULTS) */
	struct faults *faults; /* made by pass 1 if want_faults */
	uint64_t page_size;
	struct jitsyms *jit; /* JIT code names (JITMAP records) */
	bool want_jit;	     /* a key needs JIT maps (KEY_NEEDS_JIT) */
	uint32_t jit_label;  /* symbols label of the piece charged, or
				LABEL_NONE */
	uint64_t start_ns;   /* header start_mono_ns */
	struct capture cap;  /* PICK_ALL: the snapshot being charged,
				when it counts in several points */
	uint32_t point;	     /* PICK_ALL: the point charged straight
				into c->t (share_key.point); else 0 */
	/* PICK_ALL: the points in time, the tree of each while it is being
	 * filled (NULL before its first piece and once added to the
	 * timeline), the timeline they go to, the points added so far (all
	 * before it), and per snapshot i, ready[i]: the first point a
	 * counting snapshot at or after i in file order adds to (npoints if
	 * none: every point before it is complete once i is reached) */
	struct rows_point *points;
	size_t npoints, flushed;
	struct rowtree **ptrees;
	struct rows_timeline *tlb;
	uint32_t *ready;
	/* memory cgroup charges (cgcharge.h; NULL: none recorded) */
	struct cgcharge *cg;
	uint64_t cur_snap_off; /* SNAP_BEGIN offset of the snapshot read */
	/* the mappers of hugetlb pages shared through a page table
	 * (hugeshare.h) */
	struct hugeshare *hs;
	uint32_t payer_label; /* -G: the cgroup paying for the piece
				 charged, when not the one reported;
				 else LABEL_NONE */
	/* what the kernel rows of the trees could not explain, for the
	 * notes charge_cg_finish() writes */
	bool cg_missing;
	uint64_t cg_over;
	char *cg_walk;
	struct rowcaches rc; /* charge.c: rows by position */
};

/* --- charge.c, charge_runs.c: page runs counted --- */

/* Mark the current walk's subjects (process, file) as shown. */
void charge_mark_piece(struct report_ctx *c);
/* attrib's run hook (attrib_run_hook; arg: c), where page-run sums are
 * deferred: a run walked over the same pieces a third time or more is
 * counted, not walked; its second walk is recorded (charge_run_item). */
int charge_run_hook(void *arg, const struct attrib_run_key *k, bool done);
/* Record a kept piece (slot; bits: its fallback_bits; vals: its values)
 * of the run being recorded (c->rc.runrec, not NULL). */
void charge_run_item(struct report_ctx *c, uint32_t slot, unsigned bits,
		     const uint64_t *vals);
/* Add e's counted run walks to its slots' sums. */
void charge_runs_flush(struct rowcache *e);
/* Forget e's page runs. */
void charge_runs_free(struct rowcache *e);

/* --- charge_share.c: what was charged already, PICK_ALL's capture --- */

/* Insert k into s; true if it was not there. */
bool share_insert(struct share_set *s, const struct share_key *k);
/* The share key of a VM or FILE SIZE walk of image_id over [off, end)
 * with the current process's labels (what: SHARE_VM, SHARE_VMADDR). */
void share_walk(struct report_ctx *c, uint32_t image_id, uint64_t off,
		uint64_t end, uint32_t what, struct share_key *k);
/* Number VM walk w as the how-manieth mapping of its range in the
 * snapshot charged (w->copy). */
void share_copy(struct report_ctx *c, struct share_key *w);
/* The first level at which walk w is news in the rows of point; nkeys +
 * 1 if nowhere. */
size_t share_level(struct report_ctx *c, const struct share_key *w,
		   uint32_t point);
/* PICK_ALL: start a group of captured pieces under walk w (NULL: none)
 * for columns cols (file: a FILE SIZE walk); capture a piece; empty the
 * capture for the next snapshot; add snapshot s's (index si) captured
 * pieces to the tree of every point it counts in. */
void capture_group(struct capture *cap, const struct share_key *w,
		   unsigned cols, bool file);
void capture_piece(struct capture *cap, const uint32_t *path,
		   const uint64_t *vals);
void capture_reset(struct capture *cap);
void capture_replay(struct report_ctx *c, const struct snapinfo *s, size_t si);

/* --- points.c: time over several processes --- */

/* After pass 1: no process's exit_ns at or before one of its complete
 * snapshots (a snapshot is the process alive: clocks that disagree). */
void points_set_exits(struct report_ctx *c);
/* PICK_LAST in a recording whose charge is accounted (-G, -a): the one
 * moment is the newest snapshot chosen[]; leave out of chosen[] each
 * process that exited (its EXIT record) before it, as the cgroup's or
 * machine's charge of that moment does (notes: and say so in a note).
 * Returns how many it left out. */
size_t points_drop_exited(struct report_ctx *c, bool *chosen, bool notes);
/* PICK_ALL: the points in time of the snapshots chosen[] into c->points
 * (a point ends where a process with a snapshot in it gets another or one
 * of them exits; its time is its last snapshot's), each snapshot's first
 * and end, and pass 2's timeline (c->tlb, c->ptrees, c->ready). Returns
 * 0, or -EINVAL if the keys cannot make a timeline. */
int points_plan(struct report_ctx *c, const bool *chosen);
/* points_plan's first part: the points and each chosen snapshot's first
 * and end, no timeline. */
void points_assign(struct report_ctx *c, const bool *chosen);
/* After pass 2: the footer note when the snapshots chosen[] of the
 * processes a kept row comes from are not one moment (no time at which
 * each is its process's latest and all of them live). */
void points_note(struct report_ctx *c, const bool *chosen);

/* Pass 1b, with keys that need faults: every fault sample of the chosen
 * snapshots' processes, up to each one's time, into c->faults. Returns 0,
 * or a negative code with *msg (caller frees). */
int charge_read_faults(struct report_ctx *c, const bool *chosen, char **msg);

/* attrib_charge() of part p of mapping m; under the symbols key, the
 * bytes of anonymous memory that hold JIT code of the process are charged
 * to the JIT symbols there (charge.c). */
int charge_jit(struct report_ctx *c, const struct attrib_part *p,
	       const struct attrib_map *m, bool with_pss);
/* charge_jit() of part p of mapping m, cut where the page's fault stack
 * changes (charge_faults.c). */
int charge_by_fault(struct report_ctx *c, const struct attrib_part *p,
		    const struct attrib_map *m, bool with_pss);
/* Pass 2: the mappings of the snapshots chosen[] (parallel to c->snaps)
 * charged to the rows of c->t (with PICK_ALL, to the trees of the points
 * in time each one counts in, c->res->steps). Returns 0, or a negative
 * code with *msg (caller frees). */
int charge_snapshots(struct report_ctx *c, const bool *chosen, char **msg);

/* Free what the passes of charge.c allocated in c. */
void charge_free(struct report_ctx *c);

/* charge_cg.c: the memory cgroup charges of a report. Before pass 1 (it
 * hands every record to cgcharge_add(c->cg)), and after it (CHARGE is
 * unknown without them). */
void charge_cg_begin(struct report_ctx *c);
void charge_cg_setup(struct report_ctx *c);
/* In a -G recording: the rows of the charge no process maps (kernel
 * memory, page cache, "[unexplained]") into tree t of point (PICK_ALL:
 * each point's tree as pass 2 completes it; else 0, after pass 2). */
void charge_cg_tree(struct report_ctx *c, struct rowtree *t, uint32_t point,
		    uint64_t time);
/* After pass 2: the single tree's rows (not PICK_ALL) and the notes. */
void charge_cg_finish(struct report_ctx *c, const bool *chosen);

/* report.c: the pids' info of process pid, made at the first ask. */
struct pidinfo *pid_get(struct report_ctx *c, uint32_t pid);

struct md_note;
struct md_note_values;

/* recnotes.c: a note written by `memsz record`, grouped by its recorded
 * kind (a kind this memsz does not know is shown as it is). */
void recorded_note(struct report_ctx *c, const struct md_note *n);
/* The numbers of the note before (NOTE_VALUES): those of a
 * dirty-by-mapping note are added up; other kinds have none yet. */
void recorded_values(struct report_ctx *c, const struct md_note_values *v);
/* The one footer line standing for two or more dirty-by-mapping notes
 * (NOTEF_SUMMARY: -v shows each note instead). */
void dirty_summary(struct report_ctx *c);

#endif
