// SPDX-License-Identifier: GPL-2.0-or-later
/* testutil.c — helpers shared by the cmocka tests (see testutil.h). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/testutil.h"
#include "util/util.h"

static const char *fixture_dir = "";

/* Why parts of tests were not checked, each reason once. */
static char **skip_reasons;
static size_t nskip_reasons, skip_reasons_cap;

void test_skip_part(const char *fmt, ...)
{
	char *why;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		abort();
	va_end(ap);
	print_message("skipped: %s\n", why);
	for (size_t i = 0; i < nskip_reasons; i++) {
		if (!strcmp(skip_reasons[i], why)) {
			free(why);
			return;
		}
	}
	xgrow(&skip_reasons, &skip_reasons_cap, nskip_reasons + 1,
	      sizeof(*skip_reasons));
	skip_reasons[nskip_reasons++] = why;
}

int test_run_tests(const char *name, const struct CMUnitTest *tests, size_t n,
		   CMFixtureFunction setup, CMFixtureFunction teardown)
{
	int failed = _cmocka_run_group_tests(name, tests, n, setup, teardown);
	int ret = failed ? 1 : nskip_reasons ? 77 : 0;

	for (size_t i = 0; i < nskip_reasons; i++) {
		if (!failed)
			printf("SKIP: %s\n", skip_reasons[i]);
		free(skip_reasons[i]);
	}
	free(skip_reasons);
	skip_reasons = NULL;
	nskip_reasons = skip_reasons_cap = 0;
	fflush(stdout);
	return ret;
}

int tmpdir_make(char *templ)
{
	if (!mkdtemp(templ))
		return -1;
	fixture_dir = templ;
	return 0;
}

int tmpdir_remove(void)
{
	return fixture_dir[0] ? sh("rm -rf '%s'", fixture_dir) : 0;
}

char *fx(const char *name)
{
	static char bufs[8][512];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, 512, "%s/%s", fixture_dir, name);
	return b;
}

/* The formatted command; caller frees. */
static char *vcmd(const char *fmt, va_list ap)
{
	char *cmd;

	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	return cmd;
}

int sh(const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	int st;

	va_start(ap, fmt);
	cmd = vcmd(fmt, ap);
	va_end(ap);
	st = system(cmd);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* popen(cmd, "r") of the formatted command; never NULL. */
static FILE *vpipe(const char *fmt, va_list ap)
{
	char *cmd = vcmd(fmt, ap);
	FILE *p = popen(cmd, "r");

	free(cmd);
	assert_non_null(p);
	return p;
}

FILE *pipe_of(const char *fmt, ...)
{
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	p = vpipe(fmt, ap);
	va_end(ap);
	return p;
}

char *sh_output(const char *fmt, ...)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	va_list ap;
	FILE *p;
	int c;

	va_start(ap, fmt);
	p = vpipe(fmt, ap);
	va_end(ap);
	while ((c = fgetc(p)) != EOF) {
		xgrow(&buf, &cap, len + 2, 1);
		buf[len++] = c;
	}
	xgrow(&buf, &cap, len + 1, 1);
	buf[len] = 0;
	pclose(p);
	return buf;
}

char **lines_of(size_t *n, const char *fmt, ...)
{
	char *line = NULL, **v = NULL;
	size_t cap = 0, lcap = 0;
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	p = vpipe(fmt, ap);
	va_end(ap);
	*n = 0;
	while (getline(&line, &lcap, p) >= 0) {
		xgrow(&v, &cap, *n + 1, sizeof(*v));
		v[(*n)++] = xstrdup(line);
	}
	free(line);
	pclose(p);
	return v;
}

void free_lines(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

uint64_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	void *p;

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	p = xmalloc(st.st_size + 1);
	assert_int_equal(fread(p, 1, st.st_size, f), (size_t)st.st_size);
	fclose(f);
	*len = st.st_size;
	return p;
}

void write_file(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

void write_text(const char *path, const char *text)
{
	write_file(path, text, strlen(text));
}

uint64_t map_total(struct rmap *m)
{
	const struct rmap_entry *e;
	uint64_t sum = 0;
	size_t n;

	e = rmap_entries(m, &n);
	for (size_t i = 0; i < n; i++)
		sum += e[i].end - e[i].start;
	return sum;
}

uint64_t bytes_in(struct rmap *m, uint32_t id, uint64_t lo, uint64_t hi)
{
	const struct rmap_entry *e;
	uint64_t sum = 0;
	size_t n;

	e = rmap_entries(m, &n);
	for (size_t i = 0; i < n; i++) {
		uint64_t s = MAX(e[i].start, lo), t = MIN(e[i].end, hi);

		if (e[i].label == id && t > s)
			sum += t - s;
	}
	return sum;
}

const struct elf_section *sec_by_name(const struct elfimg *img,
				      const char *name)
{
	for (size_t i = 1; i < img->nsecs; i++)
		if (!strcmp(img->secs[i].name, name))
			return &img->secs[i];
	return NULL;
}
