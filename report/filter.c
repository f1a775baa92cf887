// SPDX-License-Identifier: GPL-2.0-or-later
/* filter.c — see filter.h */
#include "config.h"

#include "report/filter.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* The key named by arg's "KEY=" prefix: a key id, -1 if arg has no such
 * prefix (a bare regex), or -2 if the prefix names no key cmd offers. */
static int rule_key(const char *arg, unsigned cmd, const char **regex)
{
	size_t n = strspn(arg, "abcdefghijklmnopqrstuvwxyz");

	*regex = arg;
	if (!n || arg[n] != '=')
		return -1;
	*regex = arg + n + 1;
	for (int k = 0; k < KEY__COUNT; k++)
		if ((keydefs[k].cmds & cmd) && strlen(keydefs[k].name) == n &&
		    !strncmp(keydefs[k].name, arg, n))
			return k;
	return -2;
}

/* The end of the bracket expression that starts at p ('['): its closing
 * ']' or the string's NUL. A ']' first in the list (after an optional
 * '^') and the ']' of "[:class:]", "[.x.]" and "[=x=]" do not close it. */
static const char *bracket_end(const char *p)
{
	const char *q = p + 1;

	q += *q == '^';
	q += *q == ']';
	while (*q && *q != ']') {
		if (*q == '[' && q[1] && strchr(":.=", q[1])) {
			const char *close = strchr(q + 2, q[1]);

			while (close && close[1] != ']')
				close = strchr(close + 1, q[1]);
			if (!close)
				return q + strlen(q);
			q = close + 2;
			continue;
		}
		q++;
	}
	return q;
}

/* The first back-reference ("\1" to "\9") of the extended regex re,
 * outside bracket expressions, or NULL. POSIX extended regexes have none;
 * glibc takes them, and matching one can take time exponential in the
 * label's length ('(.*)(.*)(.*)(.*)(.*)\5\4\3\2\1Z' ran for minutes on
 * a small report). */
static const char *backref(const char *re)
{
	for (const char *p = re; *p; p++) {
		if (*p == '\\' && p[1] >= '1' && p[1] <= '9')
			return p;
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '[' && !*(p = bracket_end(p)))
			break;
	}
	return NULL;
}

int filter_add(struct filter *f, const char *arg, bool exclude, unsigned cmd,
	       char **err)
{
	const char *opt = exclude ? "--exclude" : "--filter";
	struct filter_rule *r;
	const char *regex;
	char ebuf[128];
	int key = rule_key(arg, cmd, &regex), e;

	if (key == -2) {
		*err = xasprintf("unknown key '%.*s' in %s '%s' (keys: %s)",
				 (int)strcspn(arg, "="), arg, opt, arg,
				 keys_list(cmd));
		return -1;
	}
	if (backref(regex)) {
		*err =
		    xasprintf("bad %s '%s': back-reference '%.2s' (not POSIX "
			      "extended: matching it can take exponential "
			      "time)",
			      opt, arg, backref(regex));
		return -1;
	}
	xgrow(&f->rules, &f->cap, f->n + 1, sizeof(*f->rules));
	r = &f->rules[f->n];
	memset(r, 0, sizeof(*r));
	r->key = key;
	r->level = -1;
	r->exclude = exclude;
	e = regcomp(&r->re, regex, REG_EXTENDED | REG_NOSUB);
	if (e) {
		regerror(e, &r->re, ebuf, sizeof(ebuf));
		*err = xasprintf("bad %s '%s': %s", opt, arg, ebuf);
		return -1;
	}
	f->n++;
	return 0;
}

int filter_bind(struct filter *f, const enum key_id *keys, size_t nkeys,
		char **err)
{
	for (size_t i = 0; i < f->n; i++) {
		struct filter_rule *r = &f->rules[i];

		if (r->key < 0)
			continue;
		r->level = -1;
		for (size_t k = 0; k < nkeys; k++)
			if ((int)keys[k] == r->key)
				r->level = (int)k;
		if (r->level < 0) {
			*err = xasprintf("%s key '%s' is not in --by",
					 r->exclude ? "--exclude" : "--filter",
					 keydefs[r->key].name);
			return -1;
		}
	}
	return 0;
}

bool filter_empty(const struct filter *f)
{
	return !f || !f->n;
}

static bool rule_matches(struct filter_rule *r, const struct labels *lb,
			 uint32_t id)
{
	if (id == LABEL_NONE)
		return false;
	if (id >= r->cachecap) {
		size_t old = r->cachecap;

		xgrow(&r->cache, &r->cachecap, (size_t)id + 1, 1);
		memset(r->cache + old, 0, r->cachecap - old);
	}
	if (!r->cache[id])
		r->cache[id] =
		    regexec(&r->re, labels_str(lb, id), 0, NULL, 0) == 0 ? 1
									 : 2;
	return r->cache[id] == 1;
}

/* True if rule r matches the path: its key's label, or any label. */
static bool rule_on_path(struct filter_rule *r, const struct labels *lb,
			 const uint32_t *path, size_t nkeys)
{
	if (r->key >= 0)
		return r->level >= 0 && (size_t)r->level < nkeys &&
		       rule_matches(r, lb, path[r->level]);
	for (size_t i = 0; i < nkeys; i++)
		if (rule_matches(r, lb, path[i]))
			return true;
	return false;
}

bool filter_keep(struct filter *f, const struct labels *lb,
		 const uint32_t *path, size_t nkeys)
{
	if (filter_empty(f))
		return true;
	for (size_t i = 0; i < f->n; i++)
		if (rule_on_path(&f->rules[i], lb, path, nkeys) ==
		    f->rules[i].exclude)
			return false;
	return true;
}

/* What rule r says of a path whose labels are known only where known[i]
 * is: 1 it matches, 0 it does not, -1 the unknown levels decide. */
static int rule_on_known(struct filter_rule *r, const struct labels *lb,
			 const uint32_t *path, const bool *known, size_t nkeys)
{
	bool unknown = false;

	if (r->key >= 0) {
		if (r->level < 0 || (size_t)r->level >= nkeys)
			return 0;
		if (!known[r->level])
			return -1;
		return rule_matches(r, lb, path[r->level]);
	}
	for (size_t i = 0; i < nkeys; i++) {
		if (!known[i])
			unknown = true;
		else if (rule_matches(r, lb, path[i]))
			return 1;
	}
	return unknown ? -1 : 0;
}

bool filter_may_keep(struct filter *f, const struct labels *lb,
		     const uint32_t *path, const bool *known, size_t nkeys)
{
	if (filter_empty(f))
		return true;
	for (size_t i = 0; i < f->n; i++)
		if (rule_on_known(&f->rules[i], lb, path, known, nkeys) ==
		    (int)f->rules[i].exclude)
			return false;
	return true;
}

void filter_free(struct filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		regfree(&f->rules[i].re);
		free(f->rules[i].cache);
	}
	free(f->rules);
	memset(f, 0, sizeof(*f));
}
