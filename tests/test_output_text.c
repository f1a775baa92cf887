// SPDX-License-Identifier: GPL-2.0-or-later
/* test_output_text.c — table, csv, tsv and json writers against literal
 * text; json output is also parsed by python3's json module. (pprof and
 * html: test_output_pprof_html.c.) */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "maps/labels.h"
#include "rows/json_writer.h"
#include "rows/output.h"
#include "rows/rows.h"
#include "tests/output_fixture.h"
#include "tests/testutil.h"
#include "util/util.h"

/* .debug_info 8192/0 with one child; .text 2048/2048 = main 1536 + foo 512 */
static struct rowtree *small_tree(struct labels *lb)
{
	struct rowtree *t = rowtree_new(lb, 2);

	add(t, ".text", "foo", 512, 512);
	add(t, ".text", "main", 1024, 1024);
	add(t, ".debug_info", "[section .debug_info]", 8192, 0);
	add(t, ".text", "main", 512, 512);
	rowtree_finish(t, COL_FILE, 0);
	return t;
}

/* Feed text to python3's json module running script (which reads the
 * parsed document as d); returns python's exit status. */
static int python_json_q(const char *text, const char *script, bool quiet)
{
	char *cmd;
	FILE *p;
	int st;

	assert_true(asprintf(&cmd,
			     "python3 -c 'import json,sys\n"
			     "d = json.load(sys.stdin)\n%s'%s",
			     script, quiet ? " 2>/dev/null" : "") > 0);
	p = popen(cmd, "w");
	assert_non_null(p);
	fputs(text, p);
	st = pclose(p);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int python_json(const char *text, const char *script)
{
	return python_json_q(text, script, false);
}

static void test_format_parse(void **state)
{
	enum out_format f = OUT_JSON;

	(void)state;
	assert_int_equal(out_format_parse("table", &f), 0);
	assert_int_equal(f, OUT_TABLE);
	assert_int_equal(out_format_parse("csv", &f), 0);
	assert_int_equal(f, OUT_CSV);
	assert_int_equal(out_format_parse("tsv", &f), 0);
	assert_int_equal(f, OUT_TSV);
	assert_int_equal(out_format_parse("json", &f), 0);
	assert_int_equal(f, OUT_JSON);
	assert_int_equal(out_format_parse("JSON", &f), -1);
	assert_int_equal(out_format_parse("", &f), -1);
	assert_int_equal(out_format_parse(NULL, &f), -1);
}

static void test_fmt_value(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(out_fmt_value(b, sizeof(b), 0, 0), "0");
	assert_string_equal(out_fmt_value(b, sizeof(b), UINT64_MAX, 0),
			    "18446744073709551615");
	assert_string_equal(out_fmt_value(b, sizeof(b), 0, 12), "0.00");
	assert_string_equal(out_fmt_value(b, sizeof(b), 4096, 12), "1.00");
	assert_string_equal(out_fmt_value(b, sizeof(b), 2048, 12), "0.50");
	/* 4096 bytes shared by 3: 1365.333.. */
	assert_string_equal(out_fmt_value(b, sizeof(b), 16777216 / 3, 12),
			    "1365.33");
	/* 2/3 byte rounds up to 0.67 */
	assert_string_equal(out_fmt_value(b, sizeof(b), 8192 / 3, 12), "0.67");
	/* 0.999.. rounds to the next integer */
	assert_string_equal(out_fmt_value(b, sizeof(b), 4095, 12), "1.00");
	assert_string_equal(out_fmt_value(b, sizeof(b), 1, 12), "0.00");
}

static void test_table(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = small_tree(lb);
	static const char *const notes[] = {
	    "note: 2 images could not be opened",
	};
	struct out_opts o = {.fmt = OUT_TABLE,
			     .keys = keys2,
			     .cols = cols_fv,
			     .ncols = 2,
			     .notes = notes,
			     .nnotes = 1};
	char *s;

	(void)state;
	s = render(t, &o);
	assert_string_equal(
	    s, "    FILE SIZE        VM SIZE\n"
	       " --------------  --------------\n"
	       "  80.0%  8.00Ki   0.0%       0    .debug_info\n"
	       " 100.0%  8.00Ki   0.0%       0        [section .debug_info]\n"
	       "  20.0%  2.00Ki 100.0%  2.00Ki    .text\n"
	       "  75.0%  1.50Ki  75.0%  1.50Ki        main\n"
	       "  25.0%     512  25.0%     512        foo\n"
	       " 100.0%  10.0Ki 100.0%  2.00Ki    TOTAL\n"
	       "note: 2 images could not be opened\n");
	free(s);
	rowtree_free(t);
	labels_free(lb);
}

static void test_table_columns(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 1);
	static const enum col_id cols[] = {COL_RSS, COL_PSS, COL_DIRTY};
	struct out_opts o = {.fmt = OUT_TABLE, .cols = cols, .ncols = 3};
	uint64_t vals[COL__COUNT] = {0};
	uint32_t path[1];
	char *s;

	(void)state;
	/* a label with ESC, a C1 CSI, an invalid byte and a tab */
	path[0] = labels_intern(lb, "bad\x1b[31m\xc2\x9b\xff\tname");
	vals[COL_RSS] = 3 << 20;
	vals[COL_PSS] = (uint64_t)(3 << 20) << COL_PSS_SHIFT;
	vals[COL_DIRTY] = 100;
	rowtree_add(t, path, vals);
	path[0] = labels_intern(lb, "libc.so.6");
	vals[COL_RSS] = 1 << 20;
	vals[COL_PSS] = ((uint64_t)(1 << 20) << COL_PSS_SHIFT) / 4;
	vals[COL_DIRTY] = 0;
	rowtree_add(t, path, vals);
	rowtree_finish(t, COL_PSS, 0);
	s = render(t, &o);
	/* RSS 4 MiB total: 3 MiB is 75.0%; PSS 3.25 MiB: 3/3.25 = 92.3% */
	assert_string_equal(
	    s, "       RSS             PSS            DIRTY\n"
	       " --------------  --------------  --------------\n"
	       "  75.0%  3.00Mi  92.3%  3.00Mi 100.0%     100    "
	       "bad\\x1b[31m\\u009b\\xff\\x09name\n"
	       "  25.0%  1.00Mi   7.7%   256Ki   0.0%       0    libc.so.6\n"
	       " 100.0%  4.00Mi 100.0%  3.25Mi 100.0%     100    TOTAL\n");
	free(s);
	rowtree_free(t);
	labels_free(lb);
}

/* RES% = RSS / VM SIZE per row, in every format; empty where VM is 0. */
static void test_res_pct(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 1);
	static const enum col_id cols[] = {COL_VM, COL_RSS};
	struct out_opts o = {
	    .fmt = OUT_TABLE, .cols = cols, .ncols = 2, .res_pct = true};
	static const char *const keys1[] = {"files"};
	uint64_t vals[COL__COUNT] = {0};
	uint32_t path[1];
	char *s;

	(void)state;
	path[0] = labels_intern(lb, "libc.so.6");
	vals[COL_VM] = 8192;
	vals[COL_RSS] = 2048;
	rowtree_add(t, path, vals);
	path[0] = labels_intern(lb, "[nothing]");
	vals[COL_VM] = 0;
	vals[COL_RSS] = 0;
	rowtree_add(t, path, vals);
	rowtree_finish(t, COL_RSS, 0);
	o.keys = keys1;
	s = render(t, &o);
	/* 2048 of 8192 is 25.0% */
	assert_string_equal(
	    s, "     VM SIZE           RSS        RES%\n"
	       " --------------  --------------  ------\n"
	       " 100.0%  8.00Ki 100.0%  2.00Ki   25.0%    libc.so.6\n"
	       "   0.0%       0   0.0%       0      -     [nothing]\n"
	       " 100.0%  8.00Ki 100.0%  2.00Ki   25.0%    TOTAL\n");
	free(s);
	o.fmt = OUT_CSV;
	s = render(t, &o);
	assert_string_equal(s, "files,vm_size,rss,res_pct\n"
			       "libc.so.6,8192,2048,25.0\n"
			       "[nothing],0,0,\n");
	free(s);
	o.fmt = OUT_JSON;
	s = render(t, &o);
	assert_int_equal(
	    python_json(
		s,
		"assert d[\"columns\"] == [\"vm_size\", \"rss\", \"res_pct\"]\n"
		"assert d[\"total\"][\"res_pct\"] == 25.0\n"
		"assert d[\"rows\"][1][\"res_pct\"] is None\n"),
	    0);
	free(s);
	rowtree_free(t);
	labels_free(lb);
}

static void test_table_empty(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 2);
	struct out_opts o = {
	    .fmt = OUT_TABLE, .keys = keys2, .cols = cols_fv, .ncols = 2};
	char *s;

	(void)state;
	rowtree_finish(t, COL_FILE, 0);
	s = render(t, &o);
	assert_string_equal(s, "    FILE SIZE        VM SIZE\n"
			       " --------------  --------------\n"
			       " 100.0%       0 100.0%       0    TOTAL\n");
	free(s);
	o.fmt = OUT_CSV;
	s = render(t, &o);
	assert_string_equal(s, "sections,symbols,file_size,vm_size\n");
	free(s);
	o.fmt = OUT_JSON;
	s = render(t, &o);
	assert_string_equal(s, "{\n"
			       "  \"keys\": [\n"
			       "    \"sections\",\n"
			       "    \"symbols\"\n"
			       "  ],\n"
			       "  \"columns\": [\n"
			       "    \"file_size\",\n"
			       "    \"vm_size\"\n"
			       "  ],\n"
			       "  \"total\": {\n"
			       "    \"file_size\": 0,\n"
			       "    \"vm_size\": 0\n"
			       "  },\n"
			       "  \"rows\": [],\n"
			       "  \"notes\": []\n"
			       "}\n");
	assert_int_equal(python_json(s, "assert d[\"rows\"] == []"), 0);
	free(s);
	rowtree_free(t);
	labels_free(lb);
}

static void test_csv_tsv(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = small_tree(lb);
	struct out_opts o = {
	    .fmt = OUT_CSV, .keys = keys2, .cols = cols_fv, .ncols = 2};
	char *s;

	(void)state;
	s = render(t, &o);
	assert_string_equal(s, "sections,symbols,file_size,vm_size\n"
			       ".debug_info,[section .debug_info],8192,0\n"
			       ".text,main,1536,1536\n"
			       ".text,foo,512,512\n");
	free(s);
	o.fmt = OUT_TSV;
	s = render(t, &o);
	assert_string_equal(s, "sections\tsymbols\tfile_size\tvm_size\n"
			       ".debug_info\t[section .debug_info]\t8192\t0\n"
			       ".text\tmain\t1536\t1536\n"
			       ".text\tfoo\t512\t512\n");
	free(s);
	rowtree_free(t);
	labels_free(lb);
}

/* csv/tsv "aliases" column: the other names of the path's labels. */
static void test_csv_aliases(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 2);
	struct out_opts o = {.fmt = OUT_CSV,
			     .keys = keys2,
			     .cols = cols_fv,
			     .ncols = 2,
			     .aliases = true};
	char *s;

	(void)state;
	add(t, ".text", "memcpy", 64, 64);
	add(t, ".text", "plain", 32, 32);
	labels_add_alias(lb, labels_intern(lb, "memcpy"), "__memcpy");
	labels_add_alias(lb, labels_intern(lb, "memcpy"), "memcpy, the 2nd");
	rowtree_finish(t, COL_FILE, 0);
	s = render(t, &o);
	assert_string_equal(s,
			    "sections,symbols,file_size,vm_size,aliases\n"
			    ".text,memcpy,64,64,\"__memcpy;memcpy, the 2nd\"\n"
			    ".text,plain,32,32,\n");
	free(s);
	rowtree_free(t);
	labels_free(lb);
}

static void test_csv_quoting_and_others(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 2);
	static const enum col_id cols[] = {COL_VM, COL_PSS};
	struct out_opts o = {
	    .fmt = OUT_CSV, .keys = keys2, .cols = cols, .ncols = 2};
	uint64_t vals[COL__COUNT] = {0};
	uint32_t path[2];
	char *s;

	(void)state;
	path[0] = labels_intern(lb, "lib,\"x\".so");
	path[1] = labels_intern(lb, "operator()(int, char)");
	vals[COL_VM] = 4096;
	vals[COL_PSS] = (UINT64_C(4096) << COL_PSS_SHIFT) / 3;
	rowtree_add(t, path, vals);
	path[1] = labels_intern(lb, "line\nbreak\ttab");
	vals[COL_VM] = 100;
	vals[COL_PSS] = UINT64_C(100) << COL_PSS_SHIFT;
	rowtree_add(t, path, vals);
	path[0] = labels_intern(lb, "small1");
	path[1] = labels_intern(lb, "say \"hi\"");
	vals[COL_VM] = 3;
	vals[COL_PSS] = 2048;
	rowtree_add(t, path, vals);
	path[0] = labels_intern(lb, "small2");
	vals[COL_VM] = 2;
	vals[COL_PSS] = 1024;
	rowtree_add(t, path, vals);
	path[0] = labels_intern(lb, "small3");
	vals[COL_VM] = 1;
	rowtree_add(t, path, vals);
	rowtree_finish(t, COL_VM, 2);

	s = render(t, &o);
	assert_string_equal(
	    s, "sections,symbols,vm_size,pss\n"
	       "\"lib,\"\"x\"\".so\",\"operator()(int, char)\",4096,1365.33\n"
	       "\"lib,\"\"x\"\".so\",line\\x0abreak\\x09tab,100,100.00\n"
	       "small1,\"say \"\"hi\"\"\",3,0.50\n"
	       "[2 others],,3,0.50\n");
	free(s);
	o.fmt = OUT_TSV;
	s = render(t, &o);
	assert_string_equal(
	    s, "sections\tsymbols\tvm_size\tpss\n"
	       "lib,\"x\".so\toperator()(int, char)\t4096\t1365.33\n"
	       "lib,\"x\".so\tline\\x0abreak\\x09tab\t100\t100.00\n"
	       "small1\tsay \"hi\"\t3\t0.50\n"
	       "[2 others]\t\t3\t0.50\n");
	free(s);
	rowtree_free(t);
	labels_free(lb);
}

static void test_json(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 1);
	static const enum col_id cols[] = {COL_RSS, COL_PSS};
	static const char *const keys[] = {"symbols"};
	static const char *const notes[] = {"lost 3 \"records\""};
	struct out_opts o = {.fmt = OUT_JSON,
			     .keys = keys,
			     .cols = cols,
			     .ncols = 2,
			     .notes = notes,
			     .nnotes = 1};
	uint64_t vals[COL__COUNT] = {0};
	uint32_t path[1], id;
	char *s;

	(void)state;
	id = labels_intern(lb, "main");
	labels_add_alias(lb, id, "main_alias");
	labels_add_alias(lb, id, "entry");
	path[0] = id;
	vals[COL_RSS] = 4096;
	vals[COL_PSS] = (UINT64_C(4096) << COL_PSS_SHIFT) / 3;
	rowtree_add(t, path, vals);
	path[0] = labels_intern(lb, "q\"b\\s\n\x01\x7f\xff caf\xc3\xa9");
	vals[COL_RSS] = 8192;
	vals[COL_PSS] = UINT64_C(8192) << COL_PSS_SHIFT;
	rowtree_add(t, path, vals);
	rowtree_finish(t, COL_RSS, 0);
	s = render(t, &o);
	assert_string_equal(
	    s, "{\n"
	       "  \"keys\": [\n"
	       "    \"symbols\"\n"
	       "  ],\n"
	       "  \"columns\": [\n"
	       "    \"rss\",\n"
	       "    \"pss\"\n"
	       "  ],\n"
	       "  \"total\": {\n"
	       "    \"rss\": 12288,\n"
	       "    \"pss\": 9557.33\n"
	       "  },\n"
	       "  \"rows\": [\n"
	       "    {\n"
	       "      \"name\": \"q\\\"b\\\\s\\n\\u0001\\u007f\\u00ff "
	       "caf\xc3\xa9\",\n"
	       "      \"rss\": 8192,\n"
	       "      \"pss\": 8192.00\n"
	       "    },\n"
	       "    {\n"
	       "      \"name\": \"main\",\n"
	       "      \"aliases\": [\n"
	       "        \"main_alias\",\n"
	       "        \"entry\"\n"
	       "      ],\n"
	       "      \"rss\": 4096,\n"
	       "      \"pss\": 1365.33\n"
	       "    }\n"
	       "  ],\n"
	       "  \"notes\": [\n"
	       "    \"lost 3 \\\"records\\\"\"\n"
	       "  ]\n"
	       "}\n");
	/* python's json decodes the escapes back to the label (the invalid
	 * byte 0xff as U+00FF) */
	assert_int_equal(
	    python_json(
		s, "r = d[\"rows\"]\n"
		   "assert r[0][\"name\"] == "
		   "\"q\\\"b\\\\s\\n\\x01\\x7f\\xff caf\\xe9\"\n"
		   "assert r[1][\"aliases\"] == "
		   "[\"main_alias\", \"entry\"]\n"
		   "assert d[\"total\"][\"rss\"] == 12288\n"
		   "assert abs(d[\"total\"][\"pss\"] - 9557.33) < 1e-9\n"
		   "assert d[\"notes\"] == [\"lost 3 \\\"records\\\"\"]\n"),
	    0);
	/* and the harness can fail: a wrong claim is caught */
	assert_int_not_equal(
	    python_json_q(s, "assert d[\"total\"][\"rss\"] == 1", true), 0);
	assert_int_not_equal(python_json_q("{\"a\": 1,}", "pass", true), 0);
	free(s);
	rowtree_free(t);
	labels_free(lb);
}

/* A json_escape of every single byte and of malformed UTF-8. */
static void test_json_escape(void **state)
{
	/* overlong, surrogate, truncated, above U+10FFFF, then valid */
	static const char bad_utf8[] =
	    "\xc0\xaf|\xed\xa0\x80|\xe2\x82|\xf4\x90\x80\x80|"
	    "\xe2\x82\xac|\xf0\x9f\x98\x80|a\0b";
	char *buf = NULL, *p;
	size_t len = 0, i;
	FILE *f;
	struct jw *w;

	(void)state;
	f = open_memstream(&buf, &len);
	json_escape(f, bad_utf8, sizeof(bad_utf8) - 1);
	fclose(f);
	assert_string_equal(
	    buf, "\\u00c0\\u00af|\\u00ed\\u00a0\\u0080|\\u00e2\\u0082|"
		 "\\u00f4\\u0090\\u0080\\u0080|\xe2\x82\xac|\xf0\x9f\x98\x80|"
		 "a\\u0000b");
	free(buf);

	/* all 256 bytes in one string, plus nested containers: python
	 * must parse it and decode the string to 256 characters */
	buf = NULL;
	f = open_memstream(&buf, &len);
	w = jw_new(f, false);
	jw_start_array(w);
	p = malloc(256);
	for (i = 0; i < 256; i++)
		p[i] = (char)i;
	jw_string_n(w, p, 256);
	free(p);
	jw_start_object(w);
	jw_uint_field(w, "u", UINT64_MAX);
	jw_name(w, "i");
	jw_int(w, INT64_MIN);
	jw_name(w, "b");
	jw_bool(w, true);
	jw_name(w, "n");
	jw_null(w);
	jw_name(w, "e");
	jw_start_array(w);
	jw_end_array(w);
	jw_end_object(w);
	jw_end_array(w);
	assert_int_equal(jw_finish(w), 0);
	fclose(f);
	assert_int_equal(
	    python_json(buf,
			"s = d[0]\n"
			"assert len(s) == 256\n"
			"assert all(ord(c) == i for i, c in enumerate(s))\n"
			"assert d[1] == {\"u\": 2**64-1, \"i\": -2**63, "
			"\"b\": True, \"n\": None, \"e\": []}\n"),
	    0);
	free(buf);
}

/* Random labels made of random bytes in a depth 3 tree folded by -n:
 * python parses the json and checks that every parent is the sum of its
 * children and that csv has one line per leaf. */
static void test_json_random(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 3);
	static const enum col_id cols[] = {
	    COL_FILE, COL_VM, COL_RSS, COL_PSS, COL_USS, COL_DIRTY, COL_SWAP};
	static const char *const keys[] = {"files", "sections", "symbols"};
	struct out_opts o = {
	    .fmt = OUT_JSON, .keys = keys, .cols = cols, .ncols = 7};
	uint64_t vals[COL__COUNT];
	uint32_t path[3];
	unsigned seed = 7;
	char lab[8], *s;
	size_t i, d, k;
	int c;

	(void)state;
	for (i = 0; i < 2000; i++) {
		for (d = 0; d < 3; d++) {
			size_t n = 1 + rand_r(&seed) % 3;

			for (k = 0; k < n; k++)
				lab[k] =
				    (char)(1 + rand_r(&seed) % (d ? 255 : 4));
			lab[n] = 0;
			path[d] = labels_intern(lb, lab);
		}
		for (c = 0; c < COL__COUNT; c++)
			vals[c] = rand_r(&seed) % 100000;
		rowtree_add(t, path, vals);
	}
	rowtree_finish(t, COL_RSS, 5);
	s = render(t, &o);
	assert_int_equal(
	    python_json(s, "cols = d[\"columns\"]\n"
			   "assert len(cols) == 7\n"
			   "def chk(node, level):\n"
			   "    kids = node.get(\"rows\", [])\n"
			   "    assert len(kids) <= 6\n"
			   "    if not kids: return 1\n"
			   "    n = 0\n"
			   "    for c in cols:\n"
			   "        s = sum(k[c] for k in kids)\n"
			   "        assert abs(s - node[c]) <= 0.01 * "
			   "len(kids), (c, s, node[c])\n"
			   "    for k in kids: n += chk(k, level + 1)\n"
			   "    return n\n"
			   "n = chk(dict(d[\"total\"], rows=d[\"rows\"]), 0)\n"
			   "assert n > 10\n"),
	    0);
	free(s);
	rowtree_free(t);
	labels_free(lb);
}

static void test_write_error(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = small_tree(lb);
	struct out_opts o = {
	    .fmt = OUT_TABLE, .keys = keys2, .cols = cols_fv, .ncols = 2};
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f) {
		test_skip("cannot open /dev/full");
		return;
	}
	assert_int_equal(out_write(f, t, &o), -ENOSPC);
	clearerr(f);
	o.fmt = OUT_JSON;
	assert_int_equal(out_write(f, t, &o), -ENOSPC);
	clearerr(f);
	o.fmt = OUT_CSV;
	assert_int_equal(out_write(f, t, &o), -ENOSPC);
	fclose(f);
	rowtree_free(t);
	labels_free(lb);
}

/* The json error object, escaped; errors of the stream returned. */
static void test_write_error_object(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(out_write_error(f, "cannot open 'x\"y': No such file"),
			 0);
	fclose(f);
	assert_string_equal(buf, "{\"error\":\"cannot open 'x\\\"y': "
				 "No such file\"}\n");
	assert_int_equal(python_json(buf, "assert list(d) == [\"error\"]"), 0);
	free(buf);
	f = fopen("/dev/full", "w");
	if (f) {
		assert_int_equal(out_write_error(f, "x"), -ENOSPC);
		fclose(f);
	}
}

/* The format table: what each format is, read by the commands instead of
 * testing which format it is. */
static void test_format_rows(void **state)
{
	static const struct {
		enum out_format fmt;
		unsigned flags, kinds;
	} want[] = {
	    {OUT_TABLE, OUTF_WIDTH, 7},
	    {OUT_CSV, OUTF_NOTES_STDERR | OUTF_ROWS_ASKED, 7},
	    {OUT_TSV, OUTF_NOTES_STDERR | OUTF_ROWS_ASKED, 7},
	    {OUT_JSON, OUTF_JSON_ERRORS | OUTF_ROWS_ASKED, 7},
	    {OUT_FOLDED, OUTF_ALL_ROWS | OUTF_ONE_COLUMN | OUTF_NOTES_STDERR,
	     1},
	    {OUT_PPROF,
	     OUTF_BINARY | OUTF_ALL_ROWS | OUTF_SUMS | OUTF_BUILD_IDS, 1},
	    {OUT_HTML, OUTF_ALL_ROWS | OUTF_SUMS | OUTF_ALL_COLUMNS, 1},
	};
	char *s;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct out_format_def *d = out_format_get(want[i].fmt);
		enum out_format f;

		assert_int_equal(d->fmt, want[i].fmt);
		assert_int_equal(d->flags, want[i].flags);
		assert_int_equal(d->kinds, want[i].kinds);
		assert_int_equal(out_format_parse(d->name, &f), 0);
		assert_int_equal(f, want[i].fmt);
	}
	s = out_format_names(ROWS_DIFF, "and");
	assert_string_equal(s, "table, csv, tsv and json");
	free(s);
	s = out_format_names(ROWS_TIMELINE, "or");
	assert_string_equal(s, "table, csv, tsv or json");
	free(s);
	s = out_format_names(ROWS_SINGLE, "or");
	assert_string_equal(s, "table, csv, tsv, json, folded, pprof or html");
	free(s);
}

/* RES% as a column of cols, in any place; labels cut in the middle to
 * fit o.width in the table only. */
static void test_fields_width(void **state)
{
	struct labels *lb = labels_new();
	struct rowtree *t = rowtree_new(lb, 1);
	static const enum col_id cols[] = {COL_RES_PCT, COL_RSS};
	static const char *const keys1[] = {"files"};
	const char *longname = "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1";
	struct out_opts o = {.fmt = OUT_TABLE,
			     .keys = keys1,
			     .cols = cols,
			     .ncols = 2,
			     .width = 40};
	uint64_t vals[COL__COUNT] = {0};
	uint32_t path[1];
	char *s;

	(void)state;
	path[0] = labels_intern(lb, longname);
	vals[COL_VM] = 8192;
	vals[COL_RSS] = 4096;
	rowtree_add(t, path, vals);
	path[0] = labels_intern(lb, "\xc3\xa9t\xc3\xa9-\xc3\xa9t\xc3\xa9-"
				    "\xc3\xa9t\xc3\xa9-\xc3\xa9t\xc3\xa9"
				    "-\xc3\xa9t\xc3\xa9");
	rowtree_add(t, path, vals);
	rowtree_finish(t, COL_RSS, 0);
	/* 1 + 8 + 15 + 3 = 27 characters before a label: 13 left, 6 of
	 * its head, the ellipsis, 6 of its tail (code points, not bytes) */
	s = render(t, &o);
	assert_string_equal(
	    s, "  RES%         RSS\n"
	       " ------  --------------\n"
	       "   50.0%  50.0%  4.00Ki    /usr/l\u20265.so.1\n"
	       "   50.0%  50.0%  4.00Ki    \xc3\xa9t\xc3\xa9-\xc3\xa9t"
	       "\u2026t\xc3\xa9-\xc3\xa9t\xc3\xa9\n"
	       "   50.0% 100.0%  8.00Ki    TOTAL\n");
	free(s);
	/* a level whose labels read from their start (a pids label) keeps
	 * 12 code points of its head, cut at its end */
	o.cut_end = 1;
	s = render(t, &o);
	assert_non_null(strstr(s, "    /usr/lib/x86\u2026\n"));
	free(s);
	o.cut_end = 0;
	o.width = 0;
	s = render(t, &o);
	assert_non_null(strstr(s, longname));
	free(s);
	o.fmt = OUT_CSV;
	o.width = 10;
	s = render(t, &o);
	assert_non_null(strstr(s, "files,res_pct,rss\n"));
	assert_non_null(strstr(s, longname));
	free(s);
	o.fmt = OUT_JSON;
	s = render(t, &o);
	assert_int_equal(
	    python_json(
		s, "assert d[\"columns\"] == [\"res_pct\", \"rss\"]\n"
		   "assert d[\"rows\"][0][\"name\"].endswith(\"15.so.1\")\n"
		   "assert list(d[\"total\"]) == [\"res_pct\", \"rss\"]\n"),
	    0);
	free(s);
	rowtree_free(t);
	labels_free(lb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format_parse),
	    cmocka_unit_test(test_fmt_value),
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_table_columns),
	    cmocka_unit_test(test_table_empty),
	    cmocka_unit_test(test_res_pct),
	    cmocka_unit_test(test_fields_width),
	    cmocka_unit_test(test_csv_tsv),
	    cmocka_unit_test(test_csv_aliases),
	    cmocka_unit_test(test_csv_quoting_and_others),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_json_escape),
	    cmocka_unit_test(test_json_random),
	    cmocka_unit_test(test_write_error),
	    cmocka_unit_test(test_write_error_object),
	    cmocka_unit_test(test_format_rows),
	};

	return test_run_group(tests, NULL, NULL);
}
