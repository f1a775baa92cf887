// SPDX-License-Identifier: GPL-2.0-or-later
/* notekind.c — the NOTE kinds' names, and the legacy table that maps the
 * text of a note without a kind to its kind (see notekind.h). */
#include "config.h"

#include "data/notekind.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/util.h"

static const char *const kind_names[MD_NOTE__COUNT] = {
    [MD_NOTE_OTHER] = "other",
    [MD_NOTE_NO_PFN] = "no-pfn",
    [MD_NOTE_UNREADABLE_PAGES] = "unreadable-pages",
    [MD_NOTE_EVENT] = "event",
    [MD_NOTE_USER_FAULTS_ONLY] = "user-faults-only",
    [MD_NOTE_RING_SMALL] = "ring-small",
    [MD_NOTE_HELD] = "held",
    [MD_NOTE_LEASH_FAILED] = "leash-failed",
    [MD_NOTE_LEASH_STOPS] = "leash-stops",
    [MD_NOTE_LEASH_SHORT] = "leash-short",
    [MD_NOTE_LOST] = "lost",
    [MD_NOTE_POLLING] = "polling",
    [MD_NOTE_NO_PTRACE] = "no-ptrace",
    [MD_NOTE_TARGET_UNREADABLE] = "target-unreadable",
    [MD_NOTE_TARGET_EXITED] = "target-exited",
    [MD_NOTE_SCAN_FAILED] = "scan-failed",
    [MD_NOTE_SCAN_DENIED] = "scan-denied",
    [MD_NOTE_KTHREADS] = "kthreads",
    [MD_NOTE_MAPS_CHANGED] = "maps-changed",
    [MD_NOTE_PAGES_CHANGED] = "pages-changed",
    [MD_NOTE_NO_MEMCG] = "no-memcg",
    [MD_NOTE_SHMEM_SWAP] = "shmem-swap",
    [MD_NOTE_SAMPLED] = "sampled",
    [MD_NOTE_DIRTY_BY_MAPPING] = "dirty-by-mapping",
};

const char *md_note_kind_name(uint32_t kind)
{
	return kind < MD_NOTE__COUNT ? kind_names[kind] : "other";
}

/* "%lu pages of '%s' cannot be read from pagemap": the subject is the
 * quoted mapping name (up to the last quote), which must not be empty. */
static bool match_unreadable(const char *text, const char **subject,
			     size_t *len)
{
	unsigned long n;
	const char *q;
	int end = 0;

	if (sscanf(text, "%lu pages of '%n", &n, &end) != 1 || !end)
		return false;
	q = strrchr(text, '\'');
	if (!q || q <= text + end)
		return false;
	*subject = text + end;
	*len = (size_t)(q - text - end);
	return true;
}

/* How memsz record worded each kind before notes carried one (format
 * version 3 and older), first match wins: text starts with prefix (or,
 * with counted, with a decimal count) and holds infix after it; or match
 * says so. The rows the report groups by come first, in the order it
 * used to test them. Frozen: new kinds are written with their code and
 * need no row here. */
static const struct legacy_note {
	enum md_note_kind kind;
	const char *prefix;
	const char *infix;
	bool counted;
	bool (*match)(const char *text, const char **subject, size_t *len);
} legacy[] = {
    {MD_NOTE_NO_PFN, "PSS unavailable", NULL, false, NULL},
    {MD_NOTE_EVENT, "event ", NULL, false, NULL},
    {MD_NOTE_USER_FAULTS_ONLY, "kernel-mode faults", NULL, false, NULL},
    {MD_NOTE_RING_SMALL, "sample ring buffers", NULL, false, NULL},
    {MD_NOTE_HELD, "targets held ", NULL, false, NULL},
    {MD_NOTE_UNREADABLE_PAGES, NULL, NULL, false, match_unreadable},
    {MD_NOTE_LEASH_FAILED, "cannot leash thread ", NULL, false, NULL},
    {MD_NOTE_LEASH_STOPS, "threads stopped ", " at their leash", false, NULL},
    {MD_NOTE_LEASH_SHORT, "the sample rings are too small for a leash", NULL,
     false, NULL},
    {MD_NOTE_NO_PTRACE, "cannot ptrace pid ", NULL, false, NULL},
    {MD_NOTE_SCAN_FAILED, "cannot list the processes of '", NULL, false, NULL},
    {MD_NOTE_TARGET_UNREADABLE, "pid ",
     " left out: cannot read its "
     "memory",
     false, NULL},
    {MD_NOTE_TARGET_EXITED, "pid ", " exited before the final snapshot", false,
     NULL},
    {MD_NOTE_TARGET_EXITED, "pid ", " not recorded: it exited ", false, NULL},
    {MD_NOTE_MAPS_CHANGED, "pid ", " overlapping others in /proc/", false,
     NULL},
    {MD_NOTE_PAGES_CHANGED, "pid ",
     " changed between the stop and the "
     "reading",
     false, NULL},
    {MD_NOTE_LOST, "", " perf records lost", true, NULL},
    {MD_NOTE_SCAN_DENIED, "", " could not be read (", true, NULL},
    {MD_NOTE_TARGET_EXITED, "", " exited before its first snapshot", true,
     NULL},
    {MD_NOTE_KTHREADS, "", " skipped (no user memory)", true, NULL},
    {MD_NOTE_POLLING, "", ": polling /proc/PID/maps instead", false, NULL},
};

static bool legacy_match(const struct legacy_note *l, const char *text,
			 const char **subject, size_t *len)
{
	size_t n;

	if (l->match)
		return l->match(text, subject, len);
	n = strlen(l->prefix);
	if (strncmp(text, l->prefix, n))
		return false;
	if (l->counted && !isdigit((unsigned char)text[n]))
		return false;
	return !l->infix || strstr(text + n, l->infix);
}

enum md_note_kind md_note_kind_from_text(const char *text, const char **subject,
					 size_t *subject_len)
{
	*subject = NULL;
	*subject_len = 0;
	for (size_t i = 0; text && i < ARRAY_SIZE(legacy); i++)
		if (legacy_match(&legacy[i], text, subject, subject_len))
			return legacy[i].kind;
	return MD_NOTE_OTHER;
}
