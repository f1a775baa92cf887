// SPDX-License-Identifier: GPL-2.0-or-later
/* recnotes.c — the notes `memsz record` wrote, as the report's footer
 * shows them: grouped by their recorded kind, and the dirty-by-mapping
 * notes of every snapshot added up into one line (see reportctx.h). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "data/datafile.h"
#include "report/reportctx.h"
#include "util/util.h"

/* How a report shows each kind of note `memsz record` writes (a row per
 * kind the footer treats apart; every other kind is shown as it is): the
 * footer's note kind, whether it matters only to fault keys, whether
 * the report says it from records of its own (the LOST records' count:
 * the note beside it said the same number twice, in other words), and
 * what the report adds to the text (NULL: nothing). */
static const struct {
	enum note_kind kind;
	bool faults_only;
	bool own_count;
	const char *more;
} recorded_kinds[MD_NOTE__COUNT] = {
    [MD_NOTE_NO_PFN] = {NOTE_NO_PSS, false, false, NULL},
    [MD_NOTE_UNREADABLE_PAGES] = {NOTE_UNREADABLE, false, false, NULL},
    [MD_NOTE_EVENT] = {NOTE_SAMPLING, true, false, NULL},
    [MD_NOTE_USER_FAULTS_ONLY] = {NOTE_SAMPLING, true, false, NULL},
    [MD_NOTE_RING_SMALL] = {NOTE_SAMPLING, true, false, NULL},
    [MD_NOTE_HELD] = {NOTE_SAMPLING, true, false, NULL},
    [MD_NOTE_PAGES_CHANGED] = {NOTE_PAGES_CHANGED, false, false, NULL},
    [MD_NOTE_MAPS_CHANGED] = {NOTE_MAPS_CHANGED, false, false, NULL},
    /* one a snapshot: with their values, one line adds them up
     * (dirty_summary) */
    [MD_NOTE_DIRTY_BY_MAPPING] = {NOTE_DIRTY_BY_MAPPING, false, false, NULL},
    [MD_NOTE_LOST] = {NOTE_OTHER, false, true, NULL},
    /* [no fault seen] is defined as pages resident before recording
     * began or not resident: say what else it holds */
    [MD_NOTE_SAMPLED] = {NOTE_SAMPLING, true, false,
			 ": the pages of the faults not sampled are under "
			 "[no fault seen]"},
};

/* Add the values of a dirty-by-mapping note (MD_DIRTY_V_*, its
 * NOTE_VALUES record) to c->dirty. */
static void dirty_add(struct report_ctx *c, const uint64_t *v)
{
	struct dirty_sum *d = &c->dirty;
	struct pidinfo *pi = pid_get(c, (uint32_t)v[MD_DIRTY_V_PID]);

	d->nnotes++;
	d->npids += !pi->dirty_noted;
	pi->dirty_noted = true;
	d->cleaned += v[MD_DIRTY_V_CLEANED];
	d->ncleaned += v[MD_DIRTY_V_NCLEANED];
	d->off += v[MD_DIRTY_V_OFF];
	d->noff += v[MD_DIRTY_V_NOFF];
	d->nchanged += v[MD_DIRTY_V_NCHANGED];
	if (v[MD_DIRTY_V_OFF] > d->max_off) {
		d->max_off = v[MD_DIRTY_V_OFF];
		d->max_pid = (uint32_t)v[MD_DIRTY_V_PID];
	}
}

/* A note written by `memsz record`, grouped by its recorded kind (a kind
 * this memsz does not know is shown as it is). */
void recorded_note(struct report_ctx *c, const struct md_note *n)
{
	uint32_t k = n->kind < MD_NOTE__COUNT ? n->kind : MD_NOTE_OTHER;
	const char *more;

	/* (the LOST records come before the note: it is written last) */
	if ((recorded_kinds[k].faults_only && !c->want_faults) ||
	    (recorded_kinds[k].own_count && c->lost))
		return;
	more = recorded_kinds[k].more;
	strlist_add_note(&c->res->notes, recorded_kinds[k].kind,
			 n->subject[0] ? n->subject : NULL,
			 xasprintf("%s%s", n->text, more ? more : ""));
}

/* The numbers of the note before (NOTE_VALUES): those of a
 * dirty-by-mapping note are added up; other kinds have none yet. */
void recorded_values(struct report_ctx *c, const struct md_note_values *v)
{
	if (v->kind == MD_NOTE_DIRTY_BY_MAPPING &&
	    v->nvals >= MD_DIRTY_V__COUNT)
		dirty_add(c, v->vals);
}

/* The line standing for two or more dirty-by-mapping notes with their
 * values (NOTEF_SUMMARY: -v shows each note instead); one is shown as it
 * is, and notes without values (an older recording's) are counted by
 * the footer's kind row. */
void dirty_summary(struct report_ctx *c)
{
	const struct dirty_sum *d = &c->dirty;
	char most[64] = "";

	if (d->nnotes < 2)
		return;
	if (d->max_off)
		snprintf(most, sizeof(most),
			 " (at most %" PRIu64 " in a snapshot, of pid %u)",
			 d->max_off, d->max_pid);
	strlist_add_about(
	    &c->res->notes, NOTE_DIRTY_BY_MAPPING, 0, NOTEF_SUMMARY,
	    xasprintf("%zu snapshots of %zu process(es) counted anonymous "
		      "memory clean by the dirty totals smaps gives its "
		      "mappings, not page by page (DIRTY and SHR DIRTY of a "
		      "mapping are smaps', their split by symbol or stack "
		      "inside it is not): %" PRIu64 " bytes in %" PRIu64
		      " mapping(s), summed over the snapshots; DIRTY and SHR "
		      "DIRTY differ from smaps by %" PRIu64 " bytes in %" PRIu64
		      " mapping(s)%s, and %" PRIu64 " mapping(s) changed "
		      "between the reads of smaps and of their pages "
		      "\u2014 -v lists each",
		      d->nnotes, d->npids, d->cleaned, d->ncleaned, d->off,
		      d->noff, most, d->nchanged));
}
