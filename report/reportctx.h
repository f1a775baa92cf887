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
	uint64_t offset;          /* file offset of its SNAP_BEGIN */
	uint64_t rss_pages;
	uint64_t unreadable;
	uint32_t nmappings, seen; /* announced by SNAP_BEGIN, and read */
	uint32_t nth;             /* PICK_ALL: its index among its pid's */
	bool complete;            /* SNAP_END read after all its mappings */
};

/* A recorded process: what the process keys label (kp: its pid, last
 * COMM and CMDLINE records, owner from a COMM record with one) and its
 * peak. */
struct pidinfo {
	struct key_proc kp;
	uint64_t vm_hwm;     /* highest VmHWM its snapshots recorded */
};

/* FILE SIZE and the VM SIZE of file mappings count once per row: a file
 * mapped by several processes counts once in the TOTAL and in every row
 * above the process keys. One entry per (file or VM walk of an image over
 * a file range, level, labels of the keys above that level that do not
 * come from inside images) already charged. */
struct share_key {
	uint32_t image_id;
	uint32_t level;           /* depth, | SHARE_VM for a VM walk */
	uint64_t off, end;        /* file range walked */
	uint32_t step;            /* PICK_ALL: the step charged */
	uint32_t labels[KEYS_MAX];
};
#define SHARE_VM 0x80000000u

struct share_set {
	struct share_key *keys;
	size_t n, cap;
	struct hashmap index;     /* of keys */
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
	size_t truncated_at;      /* 0: read to a clean end */
	char *stop;               /* why the read stopped early, or NULL */

	/* the walk */
	enum key_id srcs[KEYS_MAX];     /* the image keys */
	size_t nsrcs;
	int src_of_key[KEYS_MAX];   /* index into srcs, or -1 */
	uint32_t fixed[KEYS_MAX];   /* labels of the keys with a hook */
	struct pidinfo *cur_pid;
	struct key_at at;         /* what the label hooks see: the process,
				     mapping and part being charged */
	bool by_range;            /* a key charges FILE SIZE by mapped range */
	struct share_set shared;
	bool shared_once;         /* a file counted once for several rows */
	size_t share_from;        /* add_piece: rowtree_add_from() level */
	unsigned share_cols;      /* and columns (0: plain rowtree_add) */
	uint32_t cur_subject[2];  /* labels of the part being charged */
	uint8_t *shown;           /* per label: a kept row came from it */
	size_t showncap;
	/* RSS under fallback labels per key (image keys), and all RSS */
	uint64_t fallback_rss[KEYS_MAX], rss;
	bool want_faults;         /* a key needs faults (KEY_NEEDS_FAULTS) */
	struct faults *faults;    /* made by pass 1 if want_faults */
	uint64_t page_size;
	struct jitsyms *jit;      /* JIT code names (JITMAP records) */
	bool want_jit;            /* a key needs JIT maps (KEY_NEEDS_JIT) */
	uint32_t jit_label;       /* symbols label of the piece charged, or
				     LABEL_NONE */
	uint64_t start_ns;        /* header start_mono_ns */
	uint32_t step;            /* PICK_ALL: step of the snapshot read */
	/* memory cgroup charges (cgcharge.h; NULL: none recorded) */
	struct cgcharge *cg;
	uint64_t cur_snap_off;    /* SNAP_BEGIN offset of the snapshot read */
	uint32_t payer_label;     /* -G: the cgroup paying for the piece
				     charged, when not the one reported;
				     else LABEL_NONE */
};

/* Pass 1b, with keys that need faults: every fault sample of the chosen
 * snapshots' processes, up to each one's time, into c->faults. Returns 0,
 * or a negative code with *msg (caller frees). */
int charge_read_faults(struct report_ctx *c, const bool *chosen,
		       char **msg);

/* Pass 2: the mappings of the snapshots chosen[] (parallel to c->snaps)
 * charged to the rows of c->t (with PICK_ALL, to each one's step). Returns
 * 0, or a negative code with *msg (caller frees). */
int charge_snapshots(struct report_ctx *c, const bool *chosen, char **msg);

/* charge_cg.c: the memory cgroup charges of a report. Before pass 1 (it
 * hands every record to cgcharge_add(c->cg)), and after it (CHARGE is
 * unknown without them). */
void charge_cg_begin(struct report_ctx *c);
void charge_cg_setup(struct report_ctx *c);
/* After pass 2, in a -G recording: the rows of the charge no process
 * maps (kernel memory, page cache, "[unexplained]") per value set, and
 * their notes. */
void charge_cg_finish(struct report_ctx *c, const bool *chosen);

#endif
