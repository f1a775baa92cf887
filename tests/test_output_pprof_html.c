// SPDX-License-Identifier: GPL-2.0-or-later
/* test_output_pprof_html.c — the pprof and html writers: pprof output is
 * inflated by zlib and decoded by protobuf-c; html is checked for what
 * could break out of its data blocks. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "rows/profile.pb-c.h"

#include "maps/labels.h"
#include "rows/output.h"
#include "rows/rows.h"
#include "tests/output_fixture.h"
#include "tests/testutil.h"
#include "util/util.h"

/* Inflate gzip data gz[0..n) into a malloc'd buffer; *len its size. */
static uint8_t *gunzip(const char *gz, size_t n, size_t *len)
{
	size_t cap = 1 << 20;
	uint8_t *out = malloc(cap);
	z_stream z = {0};

	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (uint8_t *)gz;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	*len = z.total_out;
	inflateEnd(&z);
	return out;
}

static const char *pstr(const Perftools__Profiles__Profile *p, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < p->n_string_table);
	return p->string_table[i];
}

/* The function names of sample s's locations, leaf first, ';'-joined. */
static void sample_stack(const Perftools__Profiles__Profile *p,
			 const Perftools__Profiles__Sample *s, char *buf,
			 size_t len)
{
	buf[0] = 0;
	for (size_t i = 0; i < s->n_location_id; i++) {
		const Perftools__Profiles__Location *l =
		    p->location[s->location_id[i] - 1];
		const Perftools__Profiles__Function *fn;

		assert_int_equal(l->id, s->location_id[i]);
		assert_int_equal(l->n_line, 1);
		fn = p->function[l->line[0]->function_id - 1];
		assert_int_equal(fn->id, l->line[0]->function_id);
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 i ? ";" : "", pstr(p, fn->name));
	}
}

static const char *label_of(const Perftools__Profiles__Profile *p,
			    const Perftools__Profiles__Sample *s,
			    const char *key)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (!strcmp(pstr(p, s->label[i]->key), key))
			return pstr(p, s->label[i]->str);
	return NULL;
}

/* The profile out_write() makes of t with o, decoded (free it with
 * profile_free()). */
static Perftools__Profiles__Profile *profile_of(const struct rowtree *t,
						const struct out_opts *o)
{
	Perftools__Profiles__Profile *p;
	char *buf = NULL;
	size_t len = 0, plen;
	uint8_t *raw;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(out_write(f, t, o), 0);
	fclose(f);
	assert_true(len > 2 && (uint8_t)buf[0] == 0x1f &&
		    (uint8_t)buf[1] == 0x8b);
	raw = gunzip(buf, len, &plen);
	p = perftools__profiles__profile__unpack(NULL, plen, raw);
	assert_non_null(p);
	free(raw);
	free(buf);
	return p;
}

static void profile_free(Perftools__Profiles__Profile *p)
{
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* pprof: decoded with protobuf-c and zlib, the profile has one sample per
 * leaf, stacks leaf first with callers split into frames, labels per
 * level (callers: the stack and its innermost frame), the main binary as
 * mapping 1 (the first image that is no library), the files level's
 * mapping with its build-id, PSS in whole bytes that add up to the
 * total's, rounded (not each leaf rounded alone: 3 x 1001 = 3003 for a
 * total of 3001.5). */
static void test_pprof(void **state)
{
	static const char *const keys[] = {"files", "callers"};
	static const enum col_id cols[] = {COL_RSS, COL_PSS};
	static const struct out_image images[] = {{"/lib/a.so", "ab12"},
						  {"/bin/prog", "cd34"}};
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 2);
	struct out_opts o = {.fmt = OUT_PPROF,
			     .keys = keys,
			     .cols = cols,
			     .ncols = 2,
			     .sort = COL_PSS,
			     .images = images,
			     .nimages = 2};
	static const char *const paths[][2] = {
	    {"/lib/a.so", "main;f;g"},
	    {"/lib/a.so", "main;h"},
	    {"[heap]", "main;f;g"},
	};
	Perftools__Profiles__Profile *p;
	char stack[256];
	int64_t pss = 0;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		uint32_t path[2] = {labels_intern(lb, paths[i][0]),
				    labels_intern(lb, paths[i][1])};
		uint64_t vals[COL__COUNT] = {0};

		vals[COL_RSS] = 4096 * (i + 1);
		/* 1000.5 bytes of PSS each: 3001.5 in all */
		vals[COL_PSS] = (2001ull << COL_PSS_SHIFT) / 2;
		rowtree_add(t, path, vals);
	}
	rowtree_finish(t, COL_RSS, 0);
	p = profile_of(t, &o);

	assert_string_equal(p->string_table[0], "");
	assert_int_equal(p->n_sample_type, 2);
	assert_string_equal(pstr(p, p->sample_type[0]->type), "rss");
	assert_string_equal(pstr(p, p->sample_type[0]->unit), "bytes");
	assert_string_equal(pstr(p, p->sample_type[1]->type), "pss");
	assert_string_equal(pstr(p, p->default_sample_type), "pss");
	assert_int_equal(p->n_sample, 3);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		const char *file = label_of(p, s, "files");

		assert_non_null(file);
		assert_non_null(label_of(p, s, "callers"));
		assert_non_null(label_of(p, s, "frame"));
		assert_int_equal(s->n_value, 2);
		assert_in_range(s->value[1], 1000, 1001);
		pss += s->value[1];
		sample_stack(p, s, stack, sizeof(stack));
		if (s->value[0] == 4096) {
			assert_string_equal(stack, "g;f;main;/lib/a.so");
			assert_string_equal(label_of(p, s, "callers"),
					    "main;f;g");
			assert_string_equal(label_of(p, s, "frame"), "g");
		} else if (s->value[0] == 8192) {
			assert_string_equal(stack, "h;main;/lib/a.so");
			assert_string_equal(label_of(p, s, "frame"), "h");
		} else {
			assert_int_equal(s->value[0], 12288);
			assert_string_equal(stack, "g;f;main;[heap]");
			assert_string_equal(file, "[heap]");
		}
	}
	assert_int_equal(pss, 3002);
	/* the main binary first, then one mapping per file; each with its
	 * build-id */
	assert_int_equal(p->n_mapping, 3);
	assert_string_equal(pstr(p, p->mapping[0]->filename), "/bin/prog");
	for (size_t i = 0; i < p->n_mapping; i++) {
		const char *fn = pstr(p, p->mapping[i]->filename);

		assert_int_equal(p->mapping[i]->id, i + 1);
		assert_string_equal(pstr(p, p->mapping[i]->build_id),
				    !strcmp(fn, "/lib/a.so")   ? "ab12"
				    : !strcmp(fn, "/bin/prog") ? "cd34"
							       : "");
	}
	/* g, f, main are shared by both files' stacks: one location each */
	assert_int_equal(p->n_location, 6);
	/* no file left out of a sample: no comment says so */
	assert_int_equal(p->n_comment, 0);

	profile_free(p);
	rowtree_free(t);
	labels_free(lb);
}

/* pprof: a file two processes map counts once in the TOTAL (the second
 * process's pieces added with rowtree_set_again(): rowtree_add_from()
 * keeps them out of the TOTAL); its FILE SIZE and VM SIZE are in the
 * first process's sample only, so that the samples sum to the TOTAL,
 * RSS (each process's own) in both; a comment says so. */
static void test_pprof_file_once(void **state)
{
	static const char *const keys[] = {"pids", "files"};
	static const enum col_id cols[] = {COL_FILE, COL_VM, COL_RSS};
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 2);
	struct out_opts o = {.fmt = OUT_PPROF,
			     .keys = keys,
			     .cols = cols,
			     .ncols = 3,
			     .sort = COL_RSS};
	const unsigned shared = 1u << COL_FILE | 1u << COL_VM;
	Perftools__Profiles__Profile *p;
	int64_t sum[3] = {0};
	bool comment = false;

	(void)state;
	for (uint32_t pid = 1; pid <= 2; pid++) {
		char name[16];
		uint32_t path[2];
		uint64_t vals[COL__COUNT] = {0};

		snprintf(name, sizeof(name), "%u cmd", pid);
		path[0] = labels_intern(lb, name);
		path[1] = labels_intern(lb, "/lib/a.so");
		vals[COL_FILE] = 10000;
		vals[COL_VM] = 8192;
		vals[COL_RSS] = 4096;
		rowtree_set_tag(t, pid);
		/* the second: news only from the pids key down */
		rowtree_set_again(t, pid == 2);
		rowtree_add_from(t, path, vals, shared, pid == 2);
		rowtree_set_again(t, false);
	}
	rowtree_finish(t, COL_RSS, 0);
	assert_int_equal(t->total.vals[COL_FILE], 10000);
	assert_int_equal(t->total.vals[COL_VM], 8192);
	p = profile_of(t, &o);
	assert_int_equal(p->n_sample, 2);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		bool first = !strcmp(label_of(p, s, "pids"), "1 cmd");

		assert_int_equal(s->value[0], first ? 10000 : 0);
		assert_int_equal(s->value[1], first ? 8192 : 0);
		assert_int_equal(s->value[2], 4096);
		for (size_t c = 0; c < 3; c++)
			sum[c] += s->value[c];
	}
	assert_int_equal(sum[0], t->total.vals[COL_FILE]);
	assert_int_equal(sum[1], t->total.vals[COL_VM]);
	assert_int_equal(sum[2], t->total.vals[COL_RSS]);
	for (size_t i = 0; i < p->n_comment; i++)
		comment |= strstr(pstr(p, p->comment[i]),
				  "samples carry 0 of it") != NULL;
	assert_true(comment);
	profile_free(p);
	rowtree_free(t);
	labels_free(lb);
}

/* RES%, a ratio, is no pprof sample type and no column of the html page,
 * wherever cols has it and with res_pct */
static void test_pprof_html_ratio(void **state)
{
	static const enum col_id cols[] = {COL_RES_PCT, COL_RSS};
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 2);
	struct out_opts o = {.fmt = OUT_PPROF,
			     .keys = keys2,
			     .cols = cols,
			     .ncols = 2,
			     .res_pct = true,
			     .sort = COL_RSS};
	Perftools__Profiles__Profile *p;
	char *s;

	(void)state;
	add(t, "/lib/a.so", ".text", 10, 10);
	rowtree_finish(t, COL_RSS, 0);
	p = profile_of(t, &o);
	assert_int_equal(p->n_sample_type, 1);
	assert_string_equal(pstr(p, p->sample_type[0]->type), "rss");
	profile_free(p);
	o.fmt = OUT_HTML;
	s = render(t, &o);
	assert_null(strstr(s, "res_pct"));
	assert_non_null(strstr(s, "\"key\":\"rss\""));
	free(s);
	rowtree_free(t);
	labels_free(lb);
}

/* html: a label cannot end the data's <script> block; nothing is fetched */
static void test_html_escape(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 2);
	struct out_opts o = {.fmt = OUT_HTML,
			     .keys = keys2,
			     .cols = cols_fv,
			     .ncols = 2,
			     .sort = COL_FILE,
			     .title = "a <b> & c"};
	char *s, *p;
	int n = 0;

	(void)state;
	add(t, "</script><script>alert(1)</script>", "<!--", 10, 10);
	add(t, ".text", "</SCRIPT >", 5, 5);
	rowtree_finish(t, COL_FILE, 0);
	s = render(t, &o);
	for (p = s; (p = strcasestr(p, "</script")); p++)
		n++;
	assert_int_equal(n, 3); /* the two data blocks and the viewer */
	assert_null(strstr(s, "<!--"));
	assert_non_null(strstr(s, "<title>a &lt;b&gt; &amp; c</title>"));
	assert_non_null(strstr(s, "Content-Security-Policy"));
	assert_non_null(strstr(s, "\\u003c/script>\\u003cscript>alert(1)"));
	free(s);
	rowtree_free(t);
	labels_free(lb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pprof),
	    cmocka_unit_test(test_pprof_file_once),
	    cmocka_unit_test(test_pprof_html_ratio),
	    cmocka_unit_test(test_html_escape),
	};

	return test_run_group(tests, NULL, NULL);
}
