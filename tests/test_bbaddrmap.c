// SPDX-License-Identifier: GPL-2.0-or-later
/* test_bbaddrmap.c — elf/bbaddrmap: SHT_LLVM_BB_ADDR_MAP and the bbs
 * source.
 *
 * A program is compiled at test time with clang -fbasic-block-sections=
 * labels; the ground truth is LLVM's own decoder (llvm-readobj
 * --bb-addr-map) and nm. The versioned layouts (0x6fff4c0a, versions 0-2),
 * which clang-14 does not emit, are checked on byte strings written from
 * the format's description, each encoding the same blocks.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elf/bbaddrmap.h"
#include "elf/elfimg.h"
#include "tests/testutil.h"
#include "util/util.h"

static char tmpdir[] = "/tmp/memsz-test-bb.XXXXXX";
static char clang[64];	 /* "" if none */
static char readobj[64]; /* "" if none */

static const char prog_c[] = "#include <stdio.h>\n"
			     "#include <stdlib.h>\n"
			     "int g;\n"
			     "__attribute__((noinline)) int f(int x)\n"
			     "{\n"
			     "	if (x > 3) { g++; return x * 2; }\n"
			     "	for (int i = 0; i < x; i++)\n"
			     "		g += i * (i & 1 ? 3 : 5);\n"
			     "	return g;\n"
			     "}\n"
			     "__attribute__((noinline)) static int s(int x)\n"
			     "{\n"
			     "	switch (x) {\n"
			     "	case 0: return puts(\"zero\");\n"
			     "	case 1: return puts(\"one\") + g;\n"
			     "	case 7: return x * g;\n"
			     "	default: return f(x) + 1;\n"
			     "	}\n"
			     "}\n"
			     "int main(int argc, char **argv)\n"
			     "{\n"
			     "	int r = 0;\n"
			     "	for (int i = 1; i < argc; i++)\n"
			     "		r += s(atoi(argv[i]));\n"
			     "	return r & 1;\n"
			     "}\n";

static int group_setup(void **state)
{
	static const char *const clangs[] = {"clang-14", "clang"};
	static const char *const readobjs[] = {"llvm-readobj-14",
					       "llvm-readobj"};
	FILE *f;

	(void)state;
	if (tmpdir_make(tmpdir))
		return -1;
	for (size_t i = 0; i < 2 && !clang[0]; i++)
		if (sh("command -v %s >/dev/null 2>&1", clangs[i]) == 0)
			snprintf(clang, sizeof(clang), "%s", clangs[i]);
	for (size_t i = 0; i < 2 && !readobj[0]; i++)
		if (sh("command -v %s >/dev/null 2>&1", readobjs[i]) == 0)
			snprintf(readobj, sizeof(readobj), "%s", readobjs[i]);
	f = fopen(fx("prog.c"), "w");
	if (!f)
		return -1;
	fputs(prog_c, f);
	fclose(f);
	if (clang[0] &&
	    sh("cd %s && %s -O2 -fbasic-block-sections=labels prog.c -o prog "
	       "&& %s -O2 prog.c -o plain",
	       tmpdir, clang, clang) != 0)
		clang[0] = 0;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	tmpdir_remove();
	return 0;
}

/* --- ground truth: llvm-readobj --bb-addr-map --- */

struct tblock {
	uint64_t offset, size;
};

struct tfunc {
	char name[128];
	uint64_t addr;
	struct tblock b[256];
	size_t n;
};

/* Parse llvm-readobj's description of every function's blocks. */
static size_t truth_read(const char *path, struct tfunc *fs, size_t max)
{
	FILE *p = pipe_of("%s --bb-addr-map %s", readobj, path);
	char line[512];
	size_t n = 0;
	struct tfunc *cur = NULL;

	while (fgets(line, sizeof(line), p)) {
		char *t = line + strspn(line, " ");
		uint64_t v;

		if (!strncmp(t, "Function {", 10)) {
			assert_true(n < max);
			cur = &fs[n++];
			memset(cur, 0, sizeof(*cur));
		} else if (cur && sscanf(t, "At: %" SCNx64, &v) == 1) {
			cur->addr = v;
		} else if (cur && !strncmp(t, "Name: ", 6)) {
			snprintf(cur->name, sizeof(cur->name), "%.*s",
				 (int)strcspn(t + 6, "\n"), t + 6);
		} else if (cur && sscanf(t, "Offset: %" SCNx64, &v) == 1) {
			assert_true(cur->n < 256);
			cur->b[cur->n].offset = v;
		} else if (cur && sscanf(t, "Size: %" SCNx64, &v) == 1) {
			cur->b[cur->n++].size = v;
		}
	}
	pclose(p);
	return n;
}

/* nm's address of symbol name, or 0. */
static uint64_t nm_addr(const char *path, const char *name)
{
	FILE *p = pipe_of("nm %s", path);
	char line[512], sym[256], type;
	uint64_t addr, found = 0;

	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, sym) ==
			3 &&
		    !strcmp(sym, name))
			found = addr;
	pclose(p);
	return found;
}

static void test_real_map_matches_readobj(void **state)
{
	static struct tfunc fs[64];
	struct elfimg *img = NULL;
	struct bbaddrmap m = {0};
	size_t n, total = 0;

	(void)state;
	if (!clang[0] || !readobj[0])
		test_skip("needs clang and llvm-readobj (clang, llvm-14)");
	n = truth_read(fx("prog"), fs, 64);
	assert_true(n >= 3); /* f, s, main at least */
	assert_int_equal(elfimg_open(fx("prog"), &img), 0);
	assert_int_equal(bbaddrmap_read(img, &m), 1);
	assert_int_equal(m.nfuncs, n);
	for (size_t i = 0; i < n; i++) {
		const struct bb_func *f = &m.funcs[i];

		assert_int_equal(f->addr, fs[i].addr);
		assert_int_equal(f->n, fs[i].n);
		for (size_t j = 0; j < f->n; j++) {
			const struct bb_block *b = &m.blocks[f->first + j];

			assert_int_equal(b->id, j);
			assert_int_equal(b->offset, fs[i].b[j].offset);
			assert_int_equal(b->size, fs[i].b[j].size);
		}
		total += f->n;
		/* the map's function address is nm's symbol address */
		if (fs[i].name[0] && strcmp(fs[i].name, "<?>"))
			assert_int_equal(nm_addr(fx("prog"), fs[i].name),
					 f->addr);
	}
	assert_int_equal(m.nblocks, total);
	bbaddrmap_free(&m);
	elfimg_close(img);
}

static uint64_t label_bytes(struct rmap *rm, struct labels *lb,
			    const char *label)
{
	size_t n;
	const struct rmap_entry *e = rmap_entries(rm, &n);
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(labels_str(lb, e[i].label), label))
			sum += e[i].end - e[i].start;
	return sum;
}

/* The basic-block labels of the fixture prog, mapped as `size --by bbs`
 * maps them: its base map, then the bbs source over it (labels of at most
 * len_max bytes; 0: the default). */
struct bbs_run {
	struct elfimg *img;
	struct labels *lb;
	struct dualmap base, dm;
	struct elfsrc_stats st;
};

static void bbs_run_map(struct bbs_run *r, size_t len_max)
{
	r->img = NULL;
	r->lb = labels_new();
	if (len_max)
		labels_set_len_max(r->lb, len_max);
	assert_int_equal(elfimg_open(fx("prog"), &r->img), 0);
	dualmap_init(&r->base);
	dualmap_init(&r->dm);
	assert_int_equal(elfimg_base_map(r->img, r->lb, &r->base), 0);
	assert_int_equal(elfimg_source_map(r->img, ELFSRC_BBS, NULL, r->lb,
					   &r->base, &r->dm, &r->st),
			 0);
}

static void bbs_run_free(struct bbs_run *r)
{
	dualmap_free(&r->dm);
	dualmap_free(&r->base);
	elfimg_close(r->img);
	labels_free(r->lb);
}

static void test_bbs_source(void **state)
{
	static struct tfunc fs[64];
	struct bbs_run r;
	size_t n, blocks = 0;

	(void)state;
	if (!clang[0] || !readobj[0])
		test_skip("needs clang and llvm-readobj (clang, llvm-14)");
	n = truth_read(fx("prog"), fs, 64);
	bbs_run_map(&r, 0);
	assert_int_equal(r.st.bb_error, 0);
	assert_int_equal(r.st.bb_functions, n);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < fs[i].n; j++) {
			char want[160];
			uint64_t a = fs[i].addr + fs[i].b[j].offset, off;

			if (!fs[i].b[j].size)
				continue;
			blocks++;
			snprintf(want, sizeof(want), "%.127s#%zu", fs[i].name,
				 j);
			/* every byte of the block, VM and file */
			assert_string_equal(
			    labels_str(r.lb, rmap_lookup(r.dm.vm, a, &off)),
			    want);
			assert_string_equal(
			    labels_str(r.lb,
				       rmap_lookup(r.dm.vm,
						   a + fs[i].b[j].size - 1,
						   NULL)),
			    want);
			assert_int_equal(label_bytes(r.dm.vm, r.lb, want),
					 fs[i].b[j].size);
			assert_int_equal(label_bytes(r.dm.file, r.lb, want),
					 fs[i].b[j].size);
			assert_string_equal(
			    labels_str(r.lb, rmap_lookup(r.dm.file, off, NULL)),
			    want);
		}
	}
	assert_true(blocks >= 8);
	assert_int_equal(r.st.bb_blocks >= blocks, true);
	/* I1: the whole file and the whole mapped VM */
	assert_int_equal(map_total(r.dm.file), r.img->file_size);
	assert_int_equal(map_total(r.dm.vm), r.img->vm_size);
	assert_int_equal(rmap_check(r.dm.vm), 0);
	/* a static function is named, and no block went unnamed */
	assert_true(label_bytes(r.dm.vm, r.lb, "s#0") > 0);
	bbs_run_free(&r);
}

/* Function names cut (labels_set_len_max(): labels over 5 bytes, main
 * and its "#ID" are) keep their blocks apart: "mai... [cut: N bytes, hash
 * X]#ID", the name cut to the room the suffix leaves, the "#ID" after the
 * mark (it was cut off, and every block of a function one label). A
 * suffix over half the limit is cut itself: blocks 0 to 9 only. */
static void test_bbs_cut_names(void **state)
{
	static struct tfunc fs[64];
	struct bbs_run r;
	size_t n, blocks = 0;

	(void)state;
	if (!clang[0] || !readobj[0])
		test_skip("needs clang and llvm-readobj (clang, llvm-14)");
	n = truth_read(fx("prog"), fs, 64);
	bbs_run_map(&r, 5);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < fs[i].n; j++) {
			char end[48];
			const char *got;
			size_t gl, el;

			if (!fs[i].b[j].size || strlen(fs[i].name) <= 3 ||
			    j > 9)
				continue;
			blocks++;
			got = labels_str(
			    r.lb,
			    rmap_lookup(r.dm.vm, fs[i].addr + fs[i].b[j].offset,
					NULL));
			snprintf(end, sizeof(end), " bytes, hash ");
			assert_non_null(strstr(got, end));
			assert_memory_equal(got, fs[i].name, 3);
			snprintf(end, sizeof(end), "]#%zu", j);
			gl = strlen(got), el = strlen(end);
			if (gl < el || strcmp(got + gl - el, end))
				fail_msg("block %zu of %s: %s", j, fs[i].name,
					 got);
		}
	}
	assert_true(blocks >= 2); /* main's, at least */
	bbs_run_free(&r);
}

/* Without a map: no block labels, every byte still covered. */
static void test_no_map(void **state)
{
	struct elfimg *img = NULL;
	struct labels *lb = labels_new();
	struct dualmap base, dm;
	struct elfsrc_stats st;
	struct bbaddrmap m = {0};

	(void)state;
	if (!clang[0])
		test_skip("needs clang (clang)");
	assert_int_equal(elfimg_open(fx("plain"), &img), 0);
	assert_int_equal(bbaddrmap_read(img, &m), 0);
	dualmap_init(&base);
	dualmap_init(&dm);
	assert_int_equal(elfimg_base_map(img, lb, &base), 0);
	assert_int_equal(
	    elfimg_source_map(img, ELFSRC_BBS, NULL, lb, &base, &dm, &st), 0);
	assert_int_equal(st.bb_functions, 0);
	assert_int_equal(map_total(dm.file), img->file_size);
	assert_int_equal(map_total(dm.vm), img->vm_size);
	assert_true(label_bytes(dm.vm, lb, "[section .text]") > 0);
	assert_int_equal(labels_find(lb, "f#0"), LABEL_NONE);
	dualmap_free(&dm);
	dualmap_free(&base);
	elfimg_close(img);
	labels_free(lb);
}

/* --- the versioned layouts, written from the format's description ---
 *
 * One function at 0x401000 with blocks (id, offset, size, metadata):
 * (0, 0x0, 0x7, 8), (1, 0x7, 0xa, 1), (2, 0x20, 0x100, 0): the third
 * starts after 0xf bytes of padding and its size needs two ULEB bytes.
 */
static void check_three(const struct bbaddrmap *m, const uint32_t *ids)
{
	static const uint64_t off[] = {0, 7, 0x20}, size[] = {7, 10, 0x100};
	static const uint32_t md[] = {8, 1, 0};

	assert_int_equal(m->nfuncs, 1);
	assert_int_equal(m->funcs[0].addr, 0x401000);
	assert_int_equal(m->funcs[0].n, 3);
	assert_int_equal(m->nblocks, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(m->blocks[i].id, ids[i]);
		assert_int_equal(m->blocks[i].offset, off[i]);
		assert_int_equal(m->blocks[i].size, size[i]);
		assert_int_equal(m->blocks[i].metadata, md[i]);
		assert_int_equal(m->blocks[i].func, 0);
	}
}

#define ADDR64_LE 0x00, 0x10, 0x40, 0, 0, 0, 0, 0

static void test_v0_unversioned(void **state)
{
	static const uint8_t buf[] = {ADDR64_LE, 3, 0x00, 0x07, 8,    0x07,
				      0x0a,	 1, 0x20, 0x80, 0x02, 0};
	static const uint32_t ids[] = {0, 1, 2};
	struct bbaddrmap m = {0};

	(void)state;
	assert_int_equal(
	    bbaddrmap_parse(&m, buf, sizeof(buf), BBADDRMAP_SHT_V0, 8, false),
	    0);
	check_three(&m, ids);
	assert_int_equal(m.funcs[0].version, 0);
	bbaddrmap_free(&m);
}

static void test_versions_0_1_2(void **state)
{
	/* version 0 under the new type: absolute offsets */
	static const uint8_t v0[] = {0,	   0,	 ADDR64_LE, 3,	  0x00,
				     0x07, 8,	 0x07,	    0x0a, 1,
				     0x20, 0x80, 0x02,	    0};
	/* version 1: offsets from the previous block's end (0, 0, 0xf) */
	static const uint8_t v1[] = {1,	   0,	 ADDR64_LE, 3,	  0x00,
				     0x07, 8,	 0x00,	    0x0a, 1,
				     0x0f, 0x80, 0x02,	    0};
	/* version 2: ids (here 0, 4, 9) before the relative offsets */
	static const uint8_t v2[] = {2,	   0,	 ADDR64_LE, 3,	  0,	0x00,
				     0x07, 8,	 4,	    0x00, 0x0a, 1,
				     9,	   0x0f, 0x80,	    0x02, 0};
	static const uint32_t seq[] = {0, 1, 2}, v2ids[] = {0, 4, 9};
	struct bbaddrmap m = {0};

	(void)state;
	assert_int_equal(
	    bbaddrmap_parse(&m, v0, sizeof(v0), BBADDRMAP_SHT, 8, false), 0);
	check_three(&m, seq);
	bbaddrmap_free(&m);
	assert_int_equal(
	    bbaddrmap_parse(&m, v1, sizeof(v1), BBADDRMAP_SHT, 8, false), 0);
	check_three(&m, seq);
	assert_int_equal(m.funcs[0].version, 1);
	bbaddrmap_free(&m);
	assert_int_equal(
	    bbaddrmap_parse(&m, v2, sizeof(v2), BBADDRMAP_SHT, 8, false), 0);
	check_three(&m, v2ids);
	assert_int_equal(m.funcs[0].version, 2);
	bbaddrmap_free(&m);
}

static void test_32bit_big_endian(void **state)
{
	static const uint8_t be[] = {
	    2, 0, 0x00, 0x40, 0x10, 0x00, 3, 0, 0x00, 0x07, 8, 1, 0x00, 0x0a, 1,
	    2, 0x0f, 0x80, 0x02, 0,
	    /* a second function, one block */
	    1, 0, 0x00, 0x40, 0x20, 0x00, 1, 0x00, 0x10, 1};
	static const uint32_t seq[] = {0, 1, 2};
	struct bbaddrmap m = {0};

	(void)state;
	assert_int_equal(
	    bbaddrmap_parse(&m, be, sizeof(be), BBADDRMAP_SHT, 4, true), 0);
	assert_int_equal(m.nfuncs, 2);
	m.nfuncs = 1;
	m.nblocks = 3;
	check_three(&m, seq);
	assert_int_equal(m.funcs[1].addr, 0x402000);
	assert_int_equal(m.funcs[1].first, 3);
	assert_int_equal(m.blocks[3].size, 0x10);
	assert_int_equal(m.blocks[3].func, 1);
	bbaddrmap_free(&m);
}

static void test_damaged(void **state)
{
	static const uint8_t good[] = {1, 0, ADDR64_LE, 1, 0, 4, 0};
	static const uint8_t v3[] = {1, 0, ADDR64_LE, 1, 0, 4, 0,
				     3, 0, ADDR64_LE, 1, 0, 4, 0};
	static const uint8_t feat[] = {2, 1, ADDR64_LE, 1, 0, 0, 4, 0};
	static const uint8_t uleb_long[] = {ADDR64_LE, 1,    0x80, 0x80, 0x80,
					    0x80,      0x80, 0x80, 0x80, 0x80,
					    0x80,      0x80, 0x01, 4,	 0};
	static const uint8_t count_lies[] = {ADDR64_LE, 0xff, 0x01, 0, 4, 0};
	struct bbaddrmap m = {0};

	(void)state;
	/* every truncation of a good record fails and keeps nothing */
	for (size_t len = 1; len < sizeof(good); len++) {
		assert_int_equal(
		    bbaddrmap_parse(&m, good, len, BBADDRMAP_SHT, 8, false),
		    -MEMSZ_ETRUNC);
		assert_int_equal(m.nblocks, 0);
		bbaddrmap_free(&m);
	}
	/* an unknown version stops the parse after what came before */
	assert_int_equal(
	    bbaddrmap_parse(&m, v3, sizeof(v3), BBADDRMAP_SHT, 8, false),
	    -MEMSZ_ENOTSUP);
	assert_int_equal(m.nfuncs, 1);
	assert_int_equal(m.nblocks, 1);
	bbaddrmap_free(&m);
	assert_int_equal(
	    bbaddrmap_parse(&m, feat, sizeof(feat), BBADDRMAP_SHT, 8, false),
	    -MEMSZ_ENOTSUP);
	bbaddrmap_free(&m);
	assert_int_equal(bbaddrmap_parse(&m, uleb_long, sizeof(uleb_long),
					 BBADDRMAP_SHT_V0, 8, false),
			 -MEMSZ_ETRUNC);
	bbaddrmap_free(&m);
	assert_int_equal(bbaddrmap_parse(&m, count_lies, sizeof(count_lies),
					 BBADDRMAP_SHT_V0, 8, false),
			 -MEMSZ_ETRUNC);
	bbaddrmap_free(&m);
	assert_int_equal(
	    bbaddrmap_parse(&m, good, sizeof(good), SHT_PROGBITS, 8, false),
	    -EINVAL);
	bbaddrmap_free(&m);
	/* an empty section: libelf gives no buffer (found by fuzz_elf;
	 * UBSan in the sanitizer build flags NULL + 0) */
	assert_int_equal(bbaddrmap_parse(&m, NULL, 0, BBADDRMAP_SHT, 8, false),
			 0);
	assert_int_equal(m.nfuncs, 0);
	bbaddrmap_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_real_map_matches_readobj),
	    cmocka_unit_test(test_bbs_source),
	    cmocka_unit_test(test_bbs_cut_names),
	    cmocka_unit_test(test_no_map),
	    cmocka_unit_test(test_v0_unversioned),
	    cmocka_unit_test(test_versions_0_1_2),
	    cmocka_unit_test(test_32bit_big_endian),
	    cmocka_unit_test(test_damaged),
	};

	return test_run_group(tests, group_setup, group_teardown);
}
