/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h — `memsz report`: memsz.data + images -> rows.
 *
 * Reads memsz.data twice: first for the images, comms, lost counts, notes
 * and a summary of every snapshot (to choose one per pid), then for the
 * chosen snapshots' mappings, which go through the attribution engine
 * (attrib.h) straight into a row tree, with no copy of the page runs.
 */
#ifndef MEMSZ_REPORT_REPORT_H
#define MEMSZ_REPORT_REPORT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "maps/labels.h"
#include "rows/output.h"
#include "rows/rows.h"
#include "report/filter.h"
#include "report/keys.h"
#include "util/strlist.h"

enum report_pick {
	PICK_LAST,
	PICK_FIRST,
	PICK_PEAK,  /* highest total RSS */
	PICK_INDEX, /* the Nth complete snapshot of each pid, from 0 */
	PICK_ALL,   /* every complete snapshot, summed at each point in
		       time into a timeline tree; the fault keys then use
		       each pid's samples up to its last one */
};

/* The words --snapshot takes besides a number: one row each, ended by a
 * NULL name (the parser and the shell completion read them). */
struct report_pick_word {
	const char *name;
	enum report_pick pick;
};
extern const struct report_pick_word report_pick_words[];

/* Parse a word of report_pick_words or a number. Returns 0 or -1. */
int report_pick_parse(const char *s, enum report_pick *pick, uint64_t *index);

struct report_opts {
	const char *input; /* memsz.data path */
	enum key_id keys[KEYS_MAX];
	size_t nkeys;
	const uint32_t *pids; /* only these pids (borrowed); none: all */
	size_t npids;
	enum report_pick pick;
	uint64_t index;		/* PICK_INDEX */
	struct filter *filter;	/* paths to keep; NULL or empty: all */
	const char *debug_root; /* NULL: /usr/lib/debug */
	unsigned disasm;	/* elf_map_opts.disasm: ELF_DISASM_* */
	unsigned demangle;	/* elf_map_opts.demangle */
	/* frames faultsite looks past (regex); NULL: FAULTS_SKIP_DEFAULT,
	 * "": none */
	const char *skip_frames;
};

struct report_result {
	struct rowtree *t;	  /* unfinished: caller sorts/limits.
				     With PICK_ALL a timeline tree
				     (ROWS_TIMELINE), a value set per
				     point in time: what every process
				     held then, its latest complete
				     snapshot at or before it (none
				     before its first snapshot, none
				     once it has exited). A point is a
				     round of snapshots: it ends where a
				     process of it gets another or
				     exits, and its time is that of its
				     last snapshot. */
	bool have_pss;		  /* every chosen snapshot had PFNs */
	bool cgroup_charge;	  /* a -G recording with its charges:
				     CHARGE is a default column */
	unsigned unknown_cols;	  /* bit per col_id: columns a chosen
				     snapshot cannot give (PSS and LOCKED
				     without PFNs, THP and LOCKED where it
				     did not record them) */
	size_t nsnapshots;	  /* snapshots reported */
	size_t nprocs;		  /* processes reported */
	struct strlist notes;	  /* footer notes, without those about
				     images no kept row shows */
	struct out_image *images; /* every image recorded: path and
				     build-id (hex), malloc'd */
	size_t nimages;
	struct out_snap *snaps; /* every complete snapshot, in file
				   order, with its total RSS */
	size_t nsnaps;
	uint64_t start_ns; /* when the recording began (CLOCK_MONOTONIC,
			      as out_snap.time_ns): times are told from it */
};

/* Build the rows for o into res (zeroed by the caller) over label table
 * lb. Returns 0, or a negative code with *msg (malloc'd, caller frees)
 * saying what went wrong; res must be freed either way. */
int report_build(const struct report_opts *o, struct labels *lb,
		 struct report_result *res, char **msg);
/* Free what report_build put in res. */
void report_result_free(struct report_result *res);

#endif
