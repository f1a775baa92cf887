/* SPDX-License-Identifier: GPL-2.0-or-later */
/* filter.h — which row paths a report keeps: --filter and --exclude.
 *
 * A rule is a POSIX extended regex, either on the labels of one key
 * ("files=libjvm") or, bare, on the label of any level. A path is kept if
 * every --filter rule matches it and no --exclude rule does: so filters on
 * several keys AND together, and a bare --filter keeps a path with a
 * matching label at any level. Matches are cached per label.
 */
#ifndef MEMSZ_REPORT_FILTER_H
#define MEMSZ_REPORT_FILTER_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "maps/labels.h"
#include "report/keys.h"

struct filter_rule {
	int key;   /* enum key_id, or -1: any level */
	int level; /* index of key in the --by list (filter_bind) */
	bool exclude;
	regex_t re;
	uint8_t *cache; /* per label id: 0 unknown, 1 match, 2 no */
	size_t cachecap;
};

/* A zeroed struct filter keeps everything. */
struct filter {
	struct filter_rule *rules;
	size_t n, cap;
};

/* Add the rule "[KEY=]REGEX" (exclude: an --exclude rule) for a command
 * offering keys cmd (KEY_IN_*). KEY= is read as a key when the text before
 * the first '=' is a run of lowercase letters. Returns 0, or -1 with *err
 * (malloc'd, caller frees) saying what is wrong: an unknown key, a bad
 * regex (one with a back-reference, which POSIX extended regexes do not
 * have, included). */
int filter_add(struct filter *f, const char *arg, bool exclude, unsigned cmd,
	       char **err);

/* Bind the rules to the --by list keys[0..nkeys-1]. Returns 0, or -1 with
 * *err (malloc'd, caller frees) naming a rule's key that is not in the
 * list. */
int filter_bind(struct filter *f, const enum key_id *keys, size_t nkeys,
		char **err);

/* True if f has no rules. f may be NULL. */
bool filter_empty(const struct filter *f);

/* True if the path of labels path[0..nkeys-1] (ids in lb) is kept. f may
 * be NULL (keeps all). */
bool filter_keep(struct filter *f, const struct labels *lb,
		 const uint32_t *path, size_t nkeys);

/* False if no path whose labels at the levels where known[i] is true are
 * path[i] can be kept, whatever the labels of the other levels: a rule on
 * a known level fails, or a bare rule fails on every level and all are
 * known. True when the other levels may still decide. f may be NULL. */
bool filter_may_keep(struct filter *f, const struct labels *lb,
		     const uint32_t *path, const bool *known, size_t nkeys);

/* Free the rules; f is empty afterwards. f may be NULL. */
void filter_free(struct filter *f);

#endif
