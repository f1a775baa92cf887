// SPDX-License-Identifier: GPL-2.0-or-later
/* events.c — sampling event attrs through libpfm4 (see events.h). */
#include "config.h"

#include "record/events.h"
#include "util/dynlib.h"
#include "util/strbuf.h"
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>

/* libpfm4 is opened on first use (an event name to encode): its tables
 * carry tens of thousands of relocations, which every start of memsz
 * would otherwise apply for the few records that name an event. The
 * header gives the types; its major version is the soname's. */
_Static_assert(LIBPFM_VERSION >> 16 == 4, "libpfm.so.4 is libpfm 4");

static __typeof__(&pfm_initialize) xpfm_initialize;
static __typeof__(&pfm_get_os_event_encoding) xpfm_get_os_event_encoding;
static __typeof__(&pfm_get_pmu_info) xpfm_get_pmu_info;
static __typeof__(&pfm_get_event_next) xpfm_get_event_next;
static __typeof__(&pfm_get_event_info) xpfm_get_event_info;

static const struct dynlib_sym pfm_syms[] = {
    {"pfm_initialize", (void **)&xpfm_initialize},
    {"pfm_get_os_event_encoding", (void **)&xpfm_get_os_event_encoding},
    {"pfm_get_pmu_info", (void **)&xpfm_get_pmu_info},
    {"pfm_get_event_next", (void **)&xpfm_get_event_next},
    {"pfm_get_event_info", (void **)&xpfm_get_event_info},
};

static struct dynlib pfm_lib = {
    .soname = "libpfm.so.4",
    .syms = pfm_syms,
    .nsyms = ARRAY_SIZE(pfm_syms),
};

static int pfm_state; /* 0 not yet, 1 ok, <0 failed */

int events_init(void)
{
	if (!pfm_state) {
		pfm_state = dynlib_load(&pfm_lib);
		if (!pfm_state)
			pfm_state = xpfm_initialize() == PFM_SUCCESS
					? 1
					: -MEMSZ_ENOTSUP;
	}
	return pfm_state < 0 ? pfm_state : 0;
}

uint64_t events_regs_mask(void)
{
#if defined(__x86_64__)
	return EVENTS_X86_64_REGS_MASK;
#else
	return 0;
#endif
}

uint64_t events_leaf_regs_mask(void)
{
#if defined(__x86_64__)
	return EVENTS_X86_64_LEAF_REGS_MASK;
#else
	return 0;
#endif
}

int events_attr(const char *name, const struct events_opts *o,
		struct perf_event_attr *attr)
{
	pfm_perf_encode_arg_t arg;
	struct perf_event_attr a;
	uint32_t stack;
	int ret;

	ret = events_init();
	if (ret < 0)
		return ret;
	memset(&a, 0, sizeof(a));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &a;
	arg.size = sizeof(arg);
	/* Privilege levels user and kernel unless the name says otherwise:
	 * a fault in read(2) on a fresh buffer is the caller's touch. */
	ret = xpfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
					 PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS)
		return ret == PFM_ERR_NOMEM ? -ENOMEM : -MEMSZ_EUSAGE;
	a.size = sizeof(a);
	a.sample_period = o->period ? o->period : 1;
	a.freq = 0;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_ADDR;
	a.exclude_hv = 1;
	a.exclude_callchain_kernel = 1;
	if (o->cg == EVENTS_CG_FP) {
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
		/* bp, sp, ip and the stack top: the leaf's caller */
		a.sample_regs_user = events_leaf_regs_mask();
		if (a.sample_regs_user) {
			stack = o->stack_size ? o->stack_size
					      : EVENTS_DEFAULT_LEAF_STACK;
			a.sample_type |=
			    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a.sample_stack_user =
			    (MIN(stack, EVENTS_MAX_STACK) + 7) & ~7u;
		}
	} else {
		stack = o->stack_size ? o->stack_size : EVENTS_DEFAULT_STACK;
		stack = (MIN(stack, EVENTS_MAX_STACK) + 7) & ~7u;
		a.sample_regs_user = events_regs_mask();
		if (a.sample_regs_user)
			a.sample_type |= PERF_SAMPLE_REGS_USER;
		a.sample_type |= PERF_SAMPLE_STACK_USER;
		a.sample_stack_user = stack;
	}
	*attr = a;
	return 0;
}

unsigned events_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned *row = xcalloc(lb + 1, sizeof(*row)), d;

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned cost = tolower((unsigned char)a[i - 1]) !=
					tolower((unsigned char)b[j - 1]);

			row[j] =
			    MIN(MIN(row[j] + 1, row[j - 1] + 1), diag + cost);
			diag = up;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

struct cand {
	unsigned dist;
	char name[96];
};

/* libpfm4's perf-style aliases ("PAGE-FAULTS") are printed the way perf
 * users write them ("page-faults"); PERF_COUNT_* names as they are. */
static void cand_name(char *dst, size_t n, const char *name)
{
	static const char prefix[] = "PERF_COUNT_";
	bool alias = strncmp(name, prefix, sizeof(prefix) - 1) != 0;
	size_t i;

	for (i = 0; i + 1 < n && name[i]; i++)
		dst[i] = alias ? tolower((unsigned char)name[i]) : name[i];
	dst[i] = 0;
}

char *events_suggest(const char *name)
{
	struct cand best[3];
	size_t nbest = 0, len;
	pfm_pmu_info_t pinfo;
	struct strbuf sb = STRBUF_INIT;
	char *key, *p, *out = NULL;
	unsigned limit;

	if (events_init() < 0)
		return NULL;
	/* "perf::page-fault:u" → "page-fault" */
	p = strstr(name, "::");
	key = xstrdup(p ? p + 2 : name);
	key[strcspn(key, ":")] = 0;
	len = strlen(key);
	limit = len < 4 ? 1 : len < 8 ? 2 : 3 + (unsigned)len / 8;
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	if (xpfm_get_pmu_info(PFM_PMU_PERF_EVENT, &pinfo) != PFM_SUCCESS)
		goto out;
	for (int i = pinfo.first_event; i != -1; i = xpfm_get_event_next(i)) {
		pfm_event_info_t e;
		struct cand c;
		size_t k;

		memset(&e, 0, sizeof(e));
		e.size = sizeof(e);
		if (xpfm_get_event_info(i, PFM_OS_NONE, &e) != PFM_SUCCESS ||
		    !e.name)
			continue;
		c.dist = events_edit_distance(key, e.name);
		/* "fault" is close to "page-faults" by meaning, not letters */
		if (len >= 4 && strcasestr(e.name, key) && c.dist > limit)
			c.dist = limit;
		if (c.dist > limit)
			continue;
		cand_name(c.name, sizeof(c.name), e.name);
		for (k = 0; k < nbest; k++)
			if (!strcmp(best[k].name, c.name))
				break;
		if (k < nbest)
			continue;
		for (k = nbest; k > 0 && best[k - 1].dist > c.dist; k--)
			if (k < ARRAY_SIZE(best))
				best[k] = best[k - 1];
		if (k < ARRAY_SIZE(best)) {
			best[k] = c;
			if (nbest < ARRAY_SIZE(best))
				nbest++;
		}
	}
	for (size_t k = 0; k < nbest; k++)
		strbuf_addf(&sb, "%s%s", k ? ", " : "", best[k].name);
	if (nbest)
		out = strbuf_detach(&sb);
out:
	free(key);
	return out;
}
