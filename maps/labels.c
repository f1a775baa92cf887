// SPDX-License-Identifier: GPL-2.0-or-later
/* labels.c — interned label strings.
 *
 * Strings live in an arena of chunks (so a pointer handed out never moves)
 * and are indexed by dense ids; util/hashmap maps a string to its id.
 *
 * Aliases of a label are kept in insertion order; once a label has more
 * than a few, a per-label hashmap of their indexes makes the duplicate
 * check O(1), so adding n aliases to one label costs O(n), not O(n^2).
 */
#include "maps/labels.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/escape.h"
#include "util/hashmap.h"
#include "util/util.h"

#define ARENA_CHUNK (64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	char data[];
};

#define ALIAS_LINEAR 8 /* up to this many aliases: no set, just compare */

struct alias_list {
	const char **v;
	size_t n, cap;
	struct hashmap set; /* of v; empty while n <= ALIAS_LINEAR */
};

struct labels {
	/* by id */
	const char **str;
	uint32_t *len; /* 4 bytes, not 8: node's 300 k labels, 1.2 MiB */
	size_t count, cap;

	struct hashmap ids; /* of str */

	/* string arena */
	struct arena_chunk *chunks;
	char *cur;
	size_t left;

	/* aliases, allocated lazily: the lists of the labels that have
	 * some (nalias of them), and by id the index + 1 of a label's list
	 * (0: none; nalias_ix entries valid). An index of 4 bytes a label,
	 * not a list of 48: a big image's symbols are 45 k labels with a
	 * few dozen aliases between them. */
	struct alias_list *alias;
	size_t nalias, aliascap;
	uint32_t *alias_ix;
	size_t nalias_ix;

	/* positions by id, allocated lazily: pos + 1, 0 = none; npos valid */
	uint64_t *pos;
	size_t npos;

	size_t len_max; /* 0: LABEL_LEN_MAX (labels_set_len_max()) */

	/* the ids of the labels memsz cut, whose text ends in the mark it
	 * wrote (cut_note()): a name that ends in one of its own is not cut
	 * (rare: a name over 1 MiB each) */
	uint32_t *cut;
	size_t ncut, cutcap;
};

/* Copy n bytes of s plus a NUL into the arena. */
static const char *arena_dup(struct labels *lb, const char *s, size_t n)
{
	char *p;

	if (n + 1 > lb->left) {
		size_t sz = ARENA_CHUNK;
		struct arena_chunk *c;

		if (n + 1 > ARENA_CHUNK / 4) {
			/* big string: its own chunk, keep the current one */
			c = xmalloc(sizeof(*c) + n + 1);
			if (lb->chunks) {
				c->next = lb->chunks->next;
				lb->chunks->next = c;
			} else {
				c->next = NULL;
				lb->chunks = c;
			}
			p = c->data;
			goto copy;
		}
		c = xmalloc(sizeof(*c) + sz);
		/* resident at once: one call, not 16 page faults */
		prefault_write(c, sizeof(*c) + sz);
		c->next = lb->chunks;
		lb->chunks = c;
		lb->cur = c->data;
		lb->left = sz;
	}
	p = lb->cur;
	lb->cur += n + 1;
	lb->left -= n + 1;
copy:
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

struct labels *labels_new(void)
{
	return xcalloc(1, sizeof(struct labels));
}

void labels_set_len_max(struct labels *lb, size_t max)
{
	/* never above LABEL_STR_MAX: labels_hash() hashes no longer string
	 * (a string hashed whole there and cut here would be two labels) */
	lb->len_max = max < LABEL_STR_MAX ? max : LABEL_STR_MAX;
}

/* The longest string lb holds uncut. */
static size_t len_max(const struct labels *lb)
{
	return lb->len_max ? lb->len_max : LABEL_LEN_MAX;
}

/* The string of n bytes at s cut to max bytes: NULL if it is at most
 * that, else its first bytes (a UTF-8 character that the limit would
 * split left out whole) and the mark (LABEL_CUT_MARK) in a new string
 * (caller frees), its length *cutn. */
static char *label_cut(const char *s, size_t n, size_t max, size_t *cutn)
{
	char mark[LABEL_MARK_MAX];
	int m;
	char *out;

	if (n <= max)
		return NULL;
	max = utf8_cut(s, max); /* a character whole or gone, not split */
	/* crc32_z() takes a size_t: a name of 4 GiB and more in one call */
	m = snprintf(mark, sizeof(mark), LABEL_CUT_MARK, n,
		     (uint32_t)crc32_z(0, (const unsigned char *)s, n));
	out = xmalloc(max + (size_t)m + 1);
	memcpy(out, s, max);
	memcpy(out + max, mark, (size_t)m + 1);
	*cutn = max + (size_t)m;
	return out;
}

void labels_free(struct labels *lb)
{
	struct arena_chunk *c, *next;
	size_t i;

	if (!lb)
		return;
	for (c = lb->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	for (i = 0; i < lb->nalias; i++) {
		free(lb->alias[i].v);
		hashmap_free(&lb->alias[i].set);
	}
	free(lb->cut);
	free(lb->alias);
	free(lb->alias_ix);
	free(lb->pos);
	hashmap_free(&lb->ids);
	free(lb->str);
	free(lb->len);
	free(lb);
}

/* Id of the n bytes at s, whose hash is h, or LABEL_NONE with p ready
 * for a put. */
static inline uint32_t lookup(const struct labels *lb, const char *s, size_t n,
			      uint32_t h, struct hashmap_probe *p)
{
	uint32_t id;

	for (id = hashmap_first(&lb->ids, h, p); id != HASHMAP_NONE;
	     id = hashmap_next(&lb->ids, p))
		if (lb->len[id] == n && !memcmp(lb->str[id], s, n))
			return id;
	return LABEL_NONE;
}

uint32_t labels_hash(const char *s, size_t n)
{
	/* a string labels_intern_hashed() cuts is hashed there, cut: its
	 * bytes past the limit (gigabytes, maybe) are not read here */
	return n > LABEL_STR_MAX ? 0 : hashmap_hash_bytes(s, n);
}

void labels_prefetch(const struct labels *lb, uint32_t hash)
{
	hashmap_prefetch(&lb->ids, hash);
}

void labels_prefetch_id(const struct labels *lb, uint32_t id)
{
	if (id < lb->count)
		__builtin_prefetch(&lb->str[id]);
}

/* labels_intern_hashed() of the n bytes at s, cut already, whose hash is
 * hash. */
static uint32_t intern(struct labels *lb, const char *s, size_t n,
		       uint32_t hash)
{
	struct hashmap_probe p;
	uint32_t id = lookup(lb, s, n, hash, &p);

	if (id != LABEL_NONE)
		return id;
	/* Each label costs 28 bytes of index (pointer, length, two hash
	 * slots at most half full) and its string with its NUL: 2^31 of
	 * them take over 60 GiB, which no input reaches before memory runs
	 * out, not even a hostile file. */
	if (lb->count >= LABEL_ID_LIMIT)
		abort();
	if (lb->count == lb->cap) {
		size_t cap = lb->cap;

		xgrow(&lb->str, &cap, lb->count + 1, sizeof(*lb->str));
		cap = lb->cap;
		xgrow(&lb->len, &cap, lb->count + 1, sizeof(*lb->len));
		lb->cap = cap;
	}
	id = lb->count++;
	lb->str[id] = arena_dup(lb, s, n);
	lb->len[id] = n;
	hashmap_put(&lb->ids, &p, id);
	return id;
}

/* Whether label id is one memsz cut (cut_note()). */
static bool is_cut(const struct labels *lb, uint32_t id)
{
	for (size_t i = 0; i < lb->ncut; i++)
		if (lb->cut[i] == id)
			return true;
	return false;
}

/* Remember that label id ends in a mark memsz wrote, and return it. */
static uint32_t cut_note(struct labels *lb, uint32_t id)
{
	if (!is_cut(lb, id)) {
		xgrow(&lb->cut, &lb->cutcap, lb->ncut + 1, sizeof(*lb->cut));
		lb->cut[lb->ncut++] = id;
	}
	return id;
}

/* intern() of the n bytes at s, longer than a label holds: cut first
 * (label_cut()), then the cut label hashed, the only hash of it. */
static uint32_t intern_cut(struct labels *lb, const char *s, size_t n)
{
	char *cut = label_cut(s, n, len_max(lb), &n);
	uint32_t id = intern(lb, cut, n, hashmap_hash_bytes(cut, n));

	free(cut);
	return cut_note(lb, id);
}

/* Whether the n bytes at s are more than a label of lb holds. */
static bool too_long(const struct labels *lb, size_t n)
{
	return n > len_max(lb);
}

uint32_t labels_intern_n(struct labels *lb, const char *s, size_t n)
{
	if (too_long(lb, n))
		return intern_cut(lb, s, n);
	return intern(lb, s, n, hashmap_hash_bytes(s, n));
}

uint32_t labels_intern_hashed(struct labels *lb, const char *s, size_t n,
			      uint32_t hash)
{
	/* hash is of the whole string, or 0 (labels_hash()): not the
	 * cut one's */
	if (too_long(lb, n))
		return intern_cut(lb, s, n);
	return intern(lb, s, n, hash);
}

/* Where the mark of a cut label (LABEL_CUT_MARK, at its end) starts in
 * the label l of n bytes (NUL-terminated), or n when it ends in none. */
static size_t mark_at(const char *l, size_t n)
{
	static const char start[] = "... [cut: ";
	size_t from = n > LABEL_MARK_MAX ? n - LABEL_MARK_MAX : 0, len;
	uint32_t crc;
	int end = -1;

	for (size_t i = n; i-- > from;)
		if (l[i] == '.' && !strncmp(l + i, start, sizeof(start) - 1))
			return sscanf(l + i, LABEL_CUT_SCAN "%n", &len, &crc,
				      &end) == 2 &&
				       (size_t)end == n - i
				   ? i
				   : n;
	return n;
}

/* Id of the name head (hn bytes; with a mark already when marked: a
 * label memsz cut (is_cut(): not a name that only ends in text like a
 * mark), whose first bytes are cut again keeping that mark) followed
 * by suffix (a suffix over half a label cut first, as a label is, to half
 * of one). When both are longer than a label, the name is cut to what the
 * suffix leaves (with its mark: LABEL_CUT_MARK), so that the suffix stays
 * after it and the label keeps within LABEL_STR_MAX. */
static uint32_t intern_cat(struct labels *lb, const char *head, size_t hn,
			   bool marked, const char *suffix)
{
	size_t sn = strlen(suffix), max = len_max(lb), mk = hn, cn = hn;
	char *scut = sn > max / 2 ? label_cut(suffix, sn, max / 2, &sn) : NULL;
	char *hcut = NULL, *s;
	uint32_t id;

	if (hn + sn > max) {
		size_t room = max - (sn < max / 2 ? sn : max / 2);

		mk = marked ? mark_at(head, hn) : hn;
		if (mk < hn && mk > room) /* a cut label: cut shorter */
			cn = utf8_cut(head, room) + (hn - mk);
		else if (mk == hn)
			hcut = label_cut(head, hn, room, &cn);
	}
	s = xmalloc(cn + sn + 1);
	if (hcut)
		memcpy(s, hcut, cn);
	else if (cn < hn) { /* first bytes, then the mark */
		memcpy(s, head, cn - (hn - mk));
		memcpy(s + cn - (hn - mk), head + mk, hn - mk);
	} else
		memcpy(s, head, cn);
	memcpy(s + cn, scut ? scut : suffix, sn);
	s[cn + sn] = 0;
	id = intern(lb, s, cn + sn, hashmap_hash_bytes(s, cn + sn));
	if (scut) /* it ends in the suffix's mark */
		cut_note(lb, id);
	free(hcut);
	free(scut);
	free(s);
	return id;
}

uint32_t labels_intern_suffix(struct labels *lb, const char *s, size_t n,
			      const char *suffix)
{
	return intern_cat(lb, s, n, false, suffix);
}

uint32_t labels_intern_id_suffix(struct labels *lb, uint32_t id,
				 const char *suffix)
{
	if (id >= lb->count)
		return labels_intern(lb, suffix);
	return intern_cat(lb, lb->str[id], lb->len[id], is_cut(lb, id), suffix);
}

void labels_reserve(struct labels *lb, size_t n)
{
	size_t cap;

	if (n > LABEL_ID_LIMIT - lb->count)
		return;
	cap = lb->cap;
	xgrow(&lb->str, &cap, lb->count + n, sizeof(*lb->str));
	cap = lb->cap;
	xgrow(&lb->len, &cap, lb->count + n, sizeof(*lb->len));
	lb->cap = cap;
	/* the n labels to come are written there: resident in one call */
	prefault_write(lb->str + lb->count, n * sizeof(*lb->str));
	prefault_write(lb->len + lb->count, n * sizeof(*lb->len));
	hashmap_reserve(&lb->ids, lb->count + n);
}

uint32_t labels_intern(struct labels *lb, const char *s)
{
	return labels_intern_n(lb, s, strlen(s));
}

uint32_t labels_find(const struct labels *lb, const char *s)
{
	struct hashmap_probe p;
	size_t n = strlen(s);
	char *cut = label_cut(s, n, len_max(lb), &n);
	uint32_t id;

	if (cut)
		s = cut;
	id = lookup(lb, s, n, hashmap_hash_bytes(s, n), &p);
	free(cut);
	return id;
}

const char *labels_str(const struct labels *lb, uint32_t id)
{
	return id < lb->count ? lb->str[id] : NULL;
}

size_t labels_count(const struct labels *lb)
{
	return lb->count;
}

/* Whether al holds alias (of hash h); if not, p is ready for a put in
 * al's set (once it has one). */
static bool alias_has(const struct alias_list *al, const char *alias,
		      uint32_t h, struct hashmap_probe *p)
{
	uint32_t i;

	if (al->n <= ALIAS_LINEAR) {
		for (i = 0; i < al->n; i++)
			if (!strcmp(al->v[i], alias))
				return true;
		return false;
	}
	for (i = hashmap_first(&al->set, h, p); i != HASHMAP_NONE;
	     i = hashmap_next(&al->set, p))
		if (!strcmp(al->v[i], alias))
			return true;
	return false;
}

/* labels_add_alias() of alias, n bytes, cut already. */
static void alias_add(struct labels *lb, uint32_t id, const char *alias,
		      size_t n)
{
	struct alias_list *al;
	struct hashmap_probe p;
	size_t cap;
	uint32_t h;

	if (lb->len[id] == n && !memcmp(lb->str[id], alias, n))
		return;
	if (id >= lb->nalias_ix) {
		cap = lb->nalias_ix;
		xgrow(&lb->alias_ix, &cap, lb->count, sizeof(*lb->alias_ix));
		memset(lb->alias_ix + lb->nalias_ix, 0,
		       (cap - lb->nalias_ix) * sizeof(*lb->alias_ix));
		lb->nalias_ix = cap;
	}
	if (!lb->alias_ix[id]) { /* its first alias: a list of its own */
		xgrow(&lb->alias, &lb->aliascap, lb->nalias + 1,
		      sizeof(*lb->alias));
		memset(&lb->alias[lb->nalias], 0, sizeof(*lb->alias));
		lb->alias_ix[id] = (uint32_t)++lb->nalias;
	}
	al = &lb->alias[lb->alias_ix[id] - 1];
	h = al->n > ALIAS_LINEAR ? hashmap_hash_bytes(alias, n) : 0;
	if (alias_has(al, alias, h, &p))
		return;
	xgrow(&al->v, &al->cap, al->n + 1, sizeof(*al->v));
	al->v[al->n] = arena_dup(lb, alias, n);
	al->n++;
	if (al->n == ALIAS_LINEAR + 1) /* the set starts: index them all */
		for (size_t k = 0; k < al->n; k++)
			hashmap_add(
			    &al->set,
			    hashmap_hash_bytes(al->v[k], strlen(al->v[k])),
			    (uint32_t)k);
	else if (al->n > ALIAS_LINEAR + 1)
		hashmap_put(&al->set, &p, (uint32_t)(al->n - 1));
}

void labels_add_alias(struct labels *lb, uint32_t id, const char *alias)
{
	size_t n = strlen(alias);
	char *cut = label_cut(alias, n, len_max(lb), &n);

	if (id < lb->count)
		alias_add(lb, id, cut ? cut : alias, n);
	free(cut);
}

const char *const *labels_aliases(const struct labels *lb, uint32_t id,
				  size_t *n)
{
	const struct alias_list *al = NULL;

	if (id < lb->nalias_ix && lb->alias_ix[id])
		al = &lb->alias[lb->alias_ix[id] - 1];
	*n = al ? al->n : 0;
	return *n ? al->v : NULL;
}

void labels_set_pos(struct labels *lb, uint32_t id, uint64_t pos)
{
	size_t cap;

	if (id >= lb->count || pos == UINT64_MAX)
		return;
	if (id >= lb->npos) {
		cap = lb->npos;
		xgrow(&lb->pos, &cap, lb->count, sizeof(*lb->pos));
		memset(lb->pos + lb->npos, 0,
		       (cap - lb->npos) * sizeof(*lb->pos));
		lb->npos = cap;
	}
	lb->pos[id] = pos + 1;
}

bool labels_pos(const struct labels *lb, uint32_t id, uint64_t *pos)
{
	if (id >= lb->npos || !lb->pos[id])
		return false;
	*pos = lb->pos[id] - 1;
	return true;
}
