/* SPDX-License-Identifier: GPL-2.0-or-later */
/* labels.h — interned label strings.
 *
 * Range maps store a 32-bit label id, never a string: a library's 200 000
 * symbols cost one string each however many ranges carry them. Ids are dense
 * (0, 1, 2, ... in order of first interning) so callers can index arrays by id.
 * A label may carry aliases (other names for the same bytes, e.g. symbols
 * folded by identical-code-folding) which writers list in csv/json, and a
 * position: where what it names is (a mapping's start address, a process
 * id), for outputs in that order rather than by value.
 */
#ifndef MEMSZ_MAPS_LABELS_H
#define MEMSZ_MAPS_LABELS_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LABEL_NONE UINT32_MAX
/* Ids are below this: a RangeMap marks its tables with the top bit. */
#define LABEL_ID_LIMIT 0x80000000u

struct labels;

/* A label is at most this many bytes plus a marker: a longer string (a
 * name in a hostile file: a symbol, a section, a compile unit from a
 * compressed .debug_str that inflates to gigabytes) is interned as its
 * first LABEL_LEN_MAX bytes (up to 3 fewer: no UTF-8 character split)
 * followed by "... [cut: N bytes, hash XXXXXXXX]", N its length and
 * XXXXXXXX the CRC-32 (zlib's crc32()) of all of it in hex: two names
 * that differ only past the cut are two labels, and the same name in two
 * files is the same label (diff matches them). No real name comes near
 * it (the demangler gives up at 256 KiB); ids keep 4-byte lengths and a
 * table shows where the name was cut. */
#define LABEL_LEN_MAX (1u << 20)
#define LABEL_CUT_MARK "... [cut: %zu bytes, hash %08" PRIx32 "]"
/* The same for sscanf(): where a label's mark starts is found again. */
#define LABEL_CUT_SCAN "... [cut: %zu bytes, hash %8" SCNx32 "]"
/* The longest LABEL_CUT_MARK makes (20 digits of length). */
#define LABEL_MARK_MAX 64
/* The longest label: one made with a suffix (labels_intern_suffix()) is
 * its name's first bytes and mark, then the suffix, itself cut to half a
 * label with its mark when longer. */
#define LABEL_STR_MAX (LABEL_LEN_MAX + 2 * LABEL_MARK_MAX)

/* New empty table. Free with labels_free(). */
struct labels *labels_new(void);
/* Free the table and every string in it. NULL is fine. */
void labels_free(struct labels *lb);

/* Cut labels longer than max bytes, not LABEL_LEN_MAX (max >= 1, never
 * above LABEL_STR_MAX): for tests, which cannot make a 1 MiB name of every
 * kind, and for a table of labels from another (pprof's string table:
 * LABEL_STR_MAX, none cut again). */
void labels_set_len_max(struct labels *lb, size_t max);

/* Id of s, interning a copy on first sight (a string longer than
 * LABEL_LEN_MAX cut: see there). Never returns LABEL_NONE; always below
 * LABEL_ID_LIMIT. */
uint32_t labels_intern(struct labels *lb, const char *s);
/* Id of the string of length n at s (need not be NUL-terminated). */
uint32_t labels_intern_n(struct labels *lb, const char *s, size_t n);
/* labels_intern_n() in two steps, for a caller that has other work to do
 * between them (a name to demangle): labels_hash() of the string and
 * labels_prefetch() ask for the memory the look-up reads (the index of a
 * big image's labels is larger than the caches: a miss a label), then
 * labels_intern_hashed() with that hash interns it. A string longer than
 * LABEL_STR_MAX is not hashed (0): labels_intern_hashed() hashes it once
 * cut. */
uint32_t labels_hash(const char *s, size_t n);
void labels_prefetch(const struct labels *lb, uint32_t hash);
uint32_t labels_intern_hashed(struct labels *lb, const char *s, size_t n,
			      uint32_t hash);
/* Id of the n bytes at s followed by suffix (a block's "#N", a line's
 * ":N"), as they are when both fit in a label (LABEL_LEN_MAX); else the
 * name is cut to the room the suffix leaves, with its mark (as
 * labels_intern_n() cuts, the mark of the whole name), and the suffix
 * kept after it rather than cut off: names alike in their first bytes
 * still show their suffixes. A suffix longer than half a label is cut
 * itself, to half a label and its mark. The label is at most
 * LABEL_STR_MAX bytes, suffixed again or not (the name part of a suffixed
 * label is cut again, its suffix with it). Such a label is found by
 * labels_find() only when it is no longer than LABEL_LEN_MAX. */
uint32_t labels_intern_suffix(struct labels *lb, const char *s, size_t n,
			      const char *suffix);
/* Id of the string of label id followed by suffix, as
 * labels_intern_suffix() makes it: the same label as that of the name
 * label id was made from (a cut label's first bytes cut shorter, its mark
 * kept), the suffix after it. An id not of lb: suffix alone. */
uint32_t labels_intern_id_suffix(struct labels *lb, uint32_t id,
				 const char *suffix);
/* Make room for n more labels (an estimate: more may come), so that
 * interning them grows no table. */
void labels_reserve(struct labels *lb, size_t n);
/* Id of s if already interned (s as labels_intern() would cut it), else
 * LABEL_NONE. */
uint32_t labels_find(const struct labels *lb, const char *s);
/* Ask for the memory labels_str(lb, id) reads first (where the string
 * is), for a caller that walks labels in no order of theirs: on a big
 * image each label is a cache miss, taken this way some labels ahead. */
void labels_prefetch_id(const struct labels *lb, uint32_t id);
/* String of id; borrowed, valid until labels_free(). id must be valid. */
const char *labels_str(const struct labels *lb, uint32_t id);
/* Number of distinct labels interned (ids are 0 .. count-1). */
size_t labels_count(const struct labels *lb);

/* Record that alias is another name for label id (duplicates ignored; an
 * alias longer than LABEL_LEN_MAX cut as a label is). */
void labels_add_alias(struct labels *lb, uint32_t id, const char *alias);
/* Aliases of id (not counting the label itself); *n receives the count.
 * Borrowed array, valid until the next labels_add_alias() or labels_free(). */
const char *const *labels_aliases(const struct labels *lb, uint32_t id,
				  size_t *n);

/* Record that what label id names is at position pos (an address, a pid:
 * any pos but UINT64_MAX); the last one set stands. */
void labels_set_pos(struct labels *lb, uint32_t id, uint64_t pos);
/* True and *pos if label id has a position, else false (LABEL_NONE and
 * unknown ids have none). */
bool labels_pos(const struct labels *lb, uint32_t id, uint64_t *pos);

#endif
