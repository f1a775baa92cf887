// SPDX-License-Identifier: GPL-2.0-or-later
/* strlist.c — see strlist.h */
#include "config.h"

#include "util/strlist.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/util.h"

/* How notes of one kind read as one line: "N <what>: a, b, c, … — hint"
 * (N subjects), or for a kind counted per note "N <what> — hint" (N notes
 * without a subject). what is plural; hint may be NULL. */
static const struct {
	const char *what;
	const char *hint;
	bool counted;
} note_kinds[NOTE__COUNT] = {
    [NOTE_OTHER] = {NULL, NULL, false},
    [NOTE_DYNSYM] = {"images have only .dynsym symbols",
		     "install their debug symbols (-dbgsym or -dbg "
		     "packages) or name their directory with "
		     "--debug-root",
		     false},
    [NOTE_ALIASES] = {"images have symbols that share an address and "
		      "size with another, counted as its aliases",
		      NULL, false},
    [NOTE_DEBUG_USED] = {"images take symbols or DWARF from a debug "
			 "file",
			 NULL, false},
    [NOTE_DEBUG_REJECTED] = {"images have a debug file that was "
			     "rejected",
			     "-v says why", false},
    [NOTE_DEBUG_LOOKUP] = {"images could not be searched for a debug "
			   "file",
			   "-v says why", false},
    [NOTE_RELR] = {"images would be smaller with RELR relocations",
		   "link with ld -z pack-relative-relocs; -v gives the "
		   "bytes",
		   false},
    [NOTE_RELR_STATS] = {"images have RELR relocations", "-v gives the bytes",
			 false},
    [NOTE_RELOC_ERRORS] = {"images have relocation entries or tables "
			   "that cannot be read",
			   NULL, false},
    [NOTE_CLIPPED] = {"images have symbols that run past the end of "
		      "their section, cut there",
		      NULL, false},
    [NOTE_BBS_ERROR] = {"images have a basic block address map read "
			"only up to a record it cannot use",
			NULL, false},
    [NOTE_NO_DWARF] = {"images have no DWARF that libdw can read", NULL, false},
    [NOTE_DWARF_ERRORS] = {"images have DWARF units or tables that "
			   "cannot be read",
			   NULL, false},
    [NOTE_SPLIT_MISSING] = {"images miss split DWARF units (.dwo)", NULL,
			    false},
    [NOTE_SOURCE_ERROR] = {"images cannot be read for a key: their "
			   "bytes are charged to their segments",
			   "-v says why", false},
    [NOTE_IMAGE_BROKEN] = {"images cannot be used: their bytes are "
			   "charged to [LOAD #?]",
			   "-v says why", false},
    [NOTE_NO_SEGMENT] = {"images have mapped bytes that match no "
			 "PT_LOAD segment, charged to [no segment]",
			 NULL, false},
    [NOTE_FALLBACK] = {"files have bytes under fallback labels",
		       "-v gives the bytes", false},
    [NOTE_UNREADABLE] = {"mappings have pages that cannot be read "
			 "from pagemap",
			 NULL, false},
    [NOTE_NO_PSS] = {NULL, NULL, false},
    [NOTE_SAMPLING] = {NULL, NULL, false},
    [NOTE_JIT] = {NULL, NULL, false},
    [NOTE_DISASM] = {"images have data charged to the code that "
		     "refers to it (--disasm)",
		     "-v gives the bytes", false},
    [NOTE_NO_DISASM] = {"images' code is not decoded for references "
			"to data (not x86-64, or no libZydis)",
			"-v says which", false},
    [NOTE_PEAK_RSS] = {NULL, NULL, false},
    [NOTE_PAGES_CHANGED] = {"snapshots have pages that changed between "
			    "the stop and the reading of their pagemap "
			    "entries: counted as they were at the "
			    "stop, without their page frame",
			    "-v lists each", true},
    [NOTE_MAPS_CHANGED] = {"snapshots left out mappings that overlapped "
			   "others in /proc/PID/maps (it changed while "
			   "read)",
			   "-v lists each", true},
    [NOTE_SNAP_UNREADABLE] = {"snapshots have pages that could not be "
			      "read from pagemap",
			      "-v lists each", true},
    [NOTE_COUNT_ONCE] = {NULL, NULL, false},
    [NOTE_IMAGE_DELETED] = {"files were deleted since they were "
			    "mapped, their bytes charged to "
			    "\"[deleted] PATH\"",
			    "-v lists each", false},
    [NOTE_IMAGE_CHANGED] = {"images changed on disk since the "
			    "recording, their bytes charged to "
			    "\"[changed since recording] PATH\"",
			    "-v says how", false},
    [NOTE_MOMENT] = {NULL, NULL, false},
    [NOTE_IMAGE_CHANGED_READ] = {"images changed (truncated or rewritten) "
				 "while they were read: their rows may be "
				 "incomplete",
				 NULL, false},
    [NOTE_NOT_ELF] = {"files mapped executable or readable only by "
		      "some users are not ELF: labelled by their path",
		      NULL, false},
    [NOTE_DWARF_REFUSED] = {"images have DWARF memsz does not read: "
			    "compressed past what memsz inflates, or "
			    "named files it cannot check",
			    "-v says why", false},
    [NOTE_MINIDEBUG] = {"images without .symtab have the symbols of "
			"their MiniDebugInfo (.gnu_debugdata) named, with "
			".dynsym",
			NULL, false},
    [NOTE_MINIDEBUG_DROPPED] = {"images have a MiniDebugInfo "
				"(.gnu_debugdata) or symbols of it that "
				"memsz does not read",
				"-v says what and why", false},
    [NOTE_NAMES_DROPPED] = {"images have symbol tables whose names add "
			    "up past 4 times their string table "
			    "(overlapping names): the rest of their "
			    "symbols are left out",
			    NULL, false},
    [NOTE_LSDA_SKIPPED] = {"images have exception tables (LSDAs) that "
			   "cannot be decoded, left under their section's "
			   "label",
			   NULL, false},
    [NOTE_DIRTY_BY_MAPPING] = {"snapshots counted anonymous memory clean "
			       "by the dirty totals smaps gives its "
			       "mappings, not page by page",
			       "-v lists each", true},
};

/* Subjects named in a grouped line. */
#define NOTE_EXAMPLES 3

/* Append line with all that a note holds. */
static void add_full(struct strlist *l, enum note_kind kind,
		     const char *subject, unsigned about, unsigned flags,
		     char *line)
{
	size_t cap = l->cap;

	xgrow(&l->lines, &l->cap, l->n + 1, sizeof(*l->lines));
	if (l->cap != cap || !l->kinds) {
		l->kinds = xrealloc(l->kinds, l->cap * sizeof(*l->kinds));
		l->subjects =
		    xrealloc(l->subjects, l->cap * sizeof(*l->subjects));
		l->about = xrealloc(l->about, l->cap * sizeof(*l->about));
		l->flags = xrealloc(l->flags, l->cap * sizeof(*l->flags));
	}
	l->lines[l->n] = line;
	l->kinds[l->n] = (unsigned char)kind;
	l->subjects[l->n] = subject ? xstrdup(subject) : NULL;
	l->about[l->n] = about;
	l->flags[l->n] = (unsigned char)flags;
	l->n++;
}

void strlist_add_note(struct strlist *l, enum note_kind kind,
		      const char *subject, char *line)
{
	add_full(l, kind, subject, 0, 0, line);
}

void strlist_add_about(struct strlist *l, enum note_kind kind, unsigned about,
		       unsigned flags, char *line)
{
	add_full(l, kind, NULL, about, flags, line);
}

bool *strlist_keep_about(const struct strlist *l, unsigned shown)
{
	bool *keep = xcalloc(l->n + 1, sizeof(*keep));

	for (size_t i = 0; i < l->n; i++)
		keep[i] = !l->about[i] || (l->about[i] & shown);
	return keep;
}

void strlist_add(struct strlist *l, char *line)
{
	strlist_add_note(l, NOTE_OTHER, NULL, line);
}

void strlist_add_copy(struct strlist *l, const struct strlist *src, size_t i)
{
	add_full(l, src->kinds[i], src->subjects[i], src->about[i],
		 src->flags[i], xstrdup(src->lines[i]));
}

void strlist_add_copy_prefixed(struct strlist *l, const struct strlist *src,
			       size_t i, const char *prefix)
{
	add_full(l, src->kinds[i], src->subjects[i], src->about[i],
		 src->flags[i], xasprintf("%s%s", prefix, src->lines[i]));
}

void strlist_addf(struct strlist *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strlist_add(l, xvasprintf(fmt, ap));
	va_end(ap);
}

void strlist_add_notef(struct strlist *l, enum note_kind kind,
		       const char *subject, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strlist_add_note(l, kind, subject, xvasprintf(fmt, ap));
	va_end(ap);
}

void strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->lines[i]);
		free(l->subjects[i]);
	}
	free(l->lines);
	free(l->kinds);
	free(l->subjects);
	free(l->about);
	free(l->flags);
	memset(l, 0, sizeof(*l));
}

static const char *last_component(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* Index of the first kept note before i with subject s and kind k, or i. */
static size_t first_same(const struct strlist *l, const bool *keep, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if ((!keep || keep[j]) && l->kinds[j] == l->kinds[i] &&
		    l->subjects[j] && !strcmp(l->subjects[j], l->subjects[i]))
			return j;
	return i;
}

/* The one line for the kept notes of kind k, or NULL if they name fewer
 * than two subjects (then they are printed as they are). */
static char *group_line(const struct strlist *l, const bool *keep,
			enum note_kind k)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;
	char *line;

	if (!note_kinds[k].what)
		return NULL;
	for (size_t i = 0; i < l->n; i++) {
		if ((keep && !keep[i]) || l->kinds[i] != k || !l->subjects[i] ||
		    first_same(l, keep, i) != i)
			continue;
		if (n < NOTE_EXAMPLES)
			strbuf_addf(&sb, "%s%s", n ? ", " : "",
				    last_component(l->subjects[i]));
		else if (n == NOTE_EXAMPLES)
			strbuf_adds(&sb, ", \u2026");
		n++;
	}
	if (n < 2) {
		strbuf_free(&sb);
		return NULL;
	}
	line = xasprintf("%zu %s: %s%s%s", n, note_kinds[k].what,
			 strbuf_str(&sb), note_kinds[k].hint ? " \u2014 " : "",
			 note_kinds[k].hint ? note_kinds[k].hint : "");
	strbuf_free(&sb);
	return line;
}

/* The one line for the kept notes of a kind counted per note (k), or
 * NULL if fewer than two of them have no subject. */
static char *count_line(const struct strlist *l, const bool *keep,
			enum note_kind k)
{
	size_t n = 0;

	if (!note_kinds[k].what || !note_kinds[k].counted)
		return NULL;
	for (size_t i = 0; i < l->n; i++)
		n += (!keep || keep[i]) && l->kinds[i] == k && !l->subjects[i];
	if (n < 2)
		return NULL;
	return xasprintf("%zu %s%s%s", n, note_kinds[k].what,
			 note_kinds[k].hint ? " \u2014 " : "",
			 note_kinds[k].hint ? note_kinds[k].hint : "");
}

/* Index of the kept NOTEF_SUMMARY note of kind k, or l->n if none. */
static size_t summary_of(const struct strlist *l, const bool *keep,
			 enum note_kind k)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if ((!keep || keep[i]) && l->kinds[i] == k &&
		    (l->flags[i] & NOTEF_SUMMARY))
			break;
	return i;
}

/* The one line that stands for every kept note of kind k whose note i
 * is (a group of subjects, a count), or NULL. */
static char *kind_line(const struct strlist *l, const bool *keep, size_t i)
{
	enum note_kind k = l->kinds[i];

	if (k == NOTE_OTHER)
		return NULL;
	if (l->subjects[i])
		return group_line(l, keep, k);
	return count_line(l, keep, k);
}

bool strlist_has(const struct strlist *l, const char *line)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->lines[i], line))
			return true;
	return false;
}

void strlist_summarize(const struct strlist *l, const bool *keep, bool verbose,
		       struct strlist *out)
{
	/* a kind shown as one line: its other notes are left out (but
	 * those without a subject of a kind grouped by subject) */
	bool done[NOTE__COUNT] = {false};

	for (size_t i = 0; i < l->n; i++) {
		enum note_kind k = l->kinds[i];
		char *g;

		if (keep && !keep[i])
			continue;
		if (verbose) {
			if (!(l->flags[i] & NOTEF_SUMMARY))
				strlist_add_copy(out, l, i);
			continue;
		}
		/* a kind with summaries: they stand for its other notes */
		if (summary_of(l, keep, k) < l->n) {
			if (l->flags[i] & NOTEF_SUMMARY)
				strlist_add_copy(out, l, i);
			continue;
		}
		if (done[k] && (l->subjects[i] || note_kinds[k].counted))
			continue;
		g = kind_line(l, keep, i);
		if (g) {
			done[k] = true;
			strlist_add_note(out, k, NULL, g);
			continue;
		}
		if (!strlist_has(out, l->lines[i]))
			strlist_add_copy(out, l, i);
	}
}
