// SPDX-License-Identifier: GPL-2.0-or-later
/* test_ehframe.c — elf/ehframe.c and the unwind-table charges of the
 * symbols source.
 *
 * Fixtures (C, C++ with exceptions for "zPLR" CIEs, -m32, -ffunction-
 * sections) are compiled at test time; ground truth is `readelf -wf`
 * (binutils) for every CIE and FDE, `eu-readelf --debug-dump=frames` for
 * the .eh_frame_hdr search table and `readelf -sW` for the symbols. Hand-
 * made and mutated buffers check that nothing trusts a length. Also the
 * "[padding]" the symbols source puts between aligned symbols.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elf/ehframe.h"
#include "elf/elfimg.h"
#include "elf/elfpriv.h"
#include "tests/testutil.h"
#include "util/util.h"

static char tmpdir[] = "/tmp/memsz-test-ehframe.XXXXXX";
static bool have_m32, have_cxx;

static const char c_src[] =
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }\n"
    "__attribute__((noinline)) int with_frame(int n) {\n"
    "  volatile char buf[256]; for (int i = 0; i < n; i++) buf[i] = i;\n"
    "  return buf[n / 2] + leaf(n); }\n"
    "__attribute__((noinline)) static int rec(int x) {\n"
    "  return x < 2 ? x : rec(x - 1) + rec(x - 2); }\n"
    "__attribute__((noinline)) long uses_alloca(int n) {\n"
    "  char *p = __builtin_alloca(n); p[0] = 1; p[n - 1] = 2;\n"
    "  return p[0] + p[n - 1] + rec(n); }\n"
    "int main(int c, char **v) { (void)v;\n"
    "  printf(\"%d %ld\\n\", with_frame(c + 10), uses_alloca(c + 9));\n"
    "  return 0; }\n";

static const char cxx_src[] =
    "#include <stdexcept>\n"
    "#include <cstdio>\n"
    "struct guard { ~guard() { std::puts(\"bye\"); } };\n"
    "__attribute__((noinline)) int thrower(int x) {\n"
    "  guard g; if (x > 3) throw std::runtime_error(\"big\");\n"
    "  return x; }\n"
    "__attribute__((noinline)) int catcher(int x) {\n"
    "  try { return thrower(x); } catch (const std::exception &e) {\n"
    "    return -1; } }\n"
    "int main(int c, char **) { return catcher(c) < 0; }\n";

static const char pad_src[] =
    "#define FN(n, k) __attribute__((noinline)) int pad_fn_##n(int x)"
    " { int s = 0; for (int i = 0; i < x * k; i++) s += i ^ k;"
    " return s; }\n"
    "FN(a, 1) FN(b, 2) FN(c, 3) FN(d, 4) FN(e, 5)\n"
    "#define OBJ(n, len) __attribute__((aligned(32))) char "
    "pad_obj_##n[len] = { 1 };\n"
    "OBJ(a, 5) OBJ(b, 33) OBJ(c, 17) OBJ(d, 2)\n"
    "#define BSS(n, len) __attribute__((aligned(16))) char "
    "pad_bss_##n[len];\n"
    "BSS(a, 3) BSS(b, 20) BSS(c, 9)\n"
    "int main(int c, char **v) { (void)v; return pad_fn_a(c) +"
    " pad_fn_b(c) + pad_fn_c(c) + pad_fn_d(c) + pad_fn_e(c) +"
    " pad_obj_a[c] + pad_obj_b[c] + pad_obj_c[c] + pad_obj_d[c] +"
    " pad_bss_a[c] + pad_bss_b[c] + pad_bss_c[c]; }\n";

static int setup(void **state)
{
	FILE *f;

	(void)state;
	if (tmpdir_make(tmpdir))
		return -1;
	f = fopen(fx("a.c"), "w");
	if (!f)
		return -1;
	fputs(c_src, f);
	fclose(f);
	f = fopen(fx("pad.c"), "w");
	if (!f)
		return -1;
	fputs(pad_src, f);
	fclose(f);
	if (sh("cd '%s' && gcc -O1 -falign-functions=64 -o pad pad.c", tmpdir))
		return -1;
	f = fopen(fx("b.cc"), "w");
	if (!f)
		return -1;
	fputs(cxx_src, f);
	fclose(f);
	if (sh("cd '%s' && gcc -O1 -fPIE -pie -o c64 a.c && "
	       "gcc -O2 -ffunction-sections -Wl,--gc-sections -o cfs a.c",
	       tmpdir))
		return -1;
	have_m32 =
	    sh("cd '%s' && gcc -m32 -O1 -o c32 a.c 2>/dev/null", tmpdir) == 0;
	have_cxx =
	    sh("cd '%s' && g++ -O1 -o cxx b.cc 2>/dev/null", tmpdir) == 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tmpdir_remove();
	return 0;
}

/* ---------- ground truth ---------- */

struct tfde {
	uint64_t off, len, cie, lo, hi;
};

/* FDEs and the CIE count of path's .eh_frame per `readelf -wf`; offsets
 * relative to the section. */
static struct tfde *readelf_fdes(const char *path, size_t *n, size_t *ncie)
{
	struct tfde *v = NULL;
	size_t nl, cap = 0;
	char **l = lines_of(&nl, "readelf -wf '%s'", path);
	bool in_eh = false;

	*n = 0;
	*ncie = 0;
	for (size_t i = 0; i < nl; i++) {
		unsigned long long off, len, id, cie, lo, hi;
		char kind[8];

		if (!strncmp(l[i], "Contents of the ", 16)) {
			in_eh = strstr(l[i], ".eh_frame section") != NULL;
			continue;
		}
		if (!in_eh)
			continue;
		if (sscanf(l[i], "%llx %llx %llx %7s cie=%llx pc=%llx..%llx",
			   &off, &len, &id, kind, &cie, &lo, &hi) == 7 &&
		    !strcmp(kind, "FDE")) {
			xgrow(&v, &cap, *n + 1, sizeof(*v));
			v[(*n)++] = (struct tfde){off, len, cie, lo, hi};
		} else if (sscanf(l[i], "%llx %llx %llx %7s", &off, &len, &id,
				  kind) == 4 &&
			   !strcmp(kind, "CIE")) {
			(*ncie)++;
		}
	}
	free_lines(l, nl);
	return v;
}

struct thdr {
	uint64_t loc, fde_off; /* function address, FDE offset in .eh_frame */
};

/* The .eh_frame_hdr table per eu-readelf; *count from its header. */
static struct thdr *eu_hdr(const char *path, size_t *n, uint64_t *count)
{
	struct thdr *v = NULL;
	size_t nl, cap = 0;
	char **l = lines_of(&nl, "eu-readelf --debug-dump=frames '%s'", path);
	bool table = false;

	*n = 0;
	*count = UINT64_MAX;
	for (size_t i = 0; i < nl; i++) {
		unsigned long long a, b, c, d;

		if (sscanf(l[i], " fde_count: %llu", &a) == 1)
			*count = a;
		if (strstr(l[i], "Table:")) {
			table = true;
			continue;
		}
		if (!table)
			continue;
		if (sscanf(l[i], " %llx (offset: %llx) -> %llx fde=[ %llx]", &a,
			   &b, &c, &d) != 4) {
			table = false;
			continue;
		}
		xgrow(&v, &cap, *n + 1, sizeof(*v));
		v[(*n)++] = (struct thdr){b, d};
	}
	free_lines(l, nl);
	return v;
}

struct tsym {
	char name[256];
	uint64_t value, size;
};

/* Defined FUNC symbols of .symtab with a size, per readelf -sW. */
static struct tsym *readelf_funcs(const char *path, size_t *n)
{
	struct tsym *v = NULL;
	size_t nl, cap = 0;
	char **l = lines_of(&nl, "readelf -sW '%s'", path);
	bool symtab = false;

	*n = 0;
	for (size_t i = 0; i < nl; i++) {
		unsigned long long value, size;
		char type[32], bind[32], vis[32], ndx[32], name[256];
		unsigned idx;

		if (!strncmp(l[i], "Symbol table '", 14)) {
			symtab = strstr(l[i], "'.symtab'") != NULL;
			continue;
		}
		if (!symtab ||
		    sscanf(l[i], " %u: %llx %llu %31s %31s %31s %31s %255s",
			   &idx, &value, &size, type, bind, vis, ndx,
			   name) != 8)
			continue;
		if (strcmp(type, "FUNC") || !size || !strcmp(ndx, "UND"))
			continue;
		xgrow(&v, &cap, *n + 1, sizeof(*v));
		snprintf(v[*n].name, sizeof(v[*n].name), "%s", name);
		v[*n].value = value;
		v[*n].size = size;
		(*n)++;
	}
	free_lines(l, nl);
	return v;
}

static int cmp_fde(const void *a, const void *b)
{
	const struct elf_fde *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* ---------- the parsers against readelf ---------- */

static void check_image(const char *path)
{
	struct elf_ehhdr_entry *ents;
	const struct elf_section *eh, *hdr;
	struct elf_fde *fdes;
	struct tfde *want;
	struct thdr *wh;
	struct elfimg *img;
	size_t n, nw, ncie, nh, nwh;
	uint64_t count;
	Elf_Data *d;
	size_t cies;

	assert_int_equal(elfimg_open(path, &img), 0);
	eh = sec_by_name(img, ".eh_frame");
	hdr = sec_by_name(img, ".eh_frame_hdr");
	assert_non_null(eh);
	assert_non_null(hdr);

	want = readelf_fdes(path, &nw, &ncie);
	assert_true(nw >= 4);
	assert_int_equal(elf_ehframe_read(img, &fdes, &n), 0);
	assert_int_equal(n, nw);
	qsort(fdes, n, sizeof(*fdes), cmp_fde);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(fdes[i].off - eh->offset, want[i].off);
		assert_int_equal(fdes[i].size, want[i].len + 4);
		assert_int_equal(fdes[i].cie_off - eh->offset, want[i].cie);
		assert_int_equal(fdes[i].pc_begin, want[i].lo);
		assert_int_equal(fdes[i].pc_begin + fdes[i].pc_range,
				 want[i].hi);
	}
	/* the CIE count, through the buffer parser */
	d = elf_rawdata(elf_getscn(elfimg_elf(img), eh->index), NULL);
	assert_non_null(d);
	free(fdes);
	assert_int_equal(elf_ehframe_parse(d->d_buf, d->d_size, eh->addr,
					   img->elfclass, img->big_endian,
					   &fdes, &n, &cies),
			 0);
	assert_int_equal(cies, ncie);
	assert_int_equal(n, nw);
	free(fdes);

	/* .eh_frame_hdr: its count is the number of FDEs */
	wh = eu_hdr(path, &nwh, &count);
	assert_int_equal(count, nw);
	assert_int_equal(nwh, nw);
	assert_int_equal(elf_ehframe_hdr_read(img, &ents, &nh), 0);
	assert_int_equal(nh, nwh);
	for (size_t i = 0; i < nh; i++) {
		assert_int_equal(ents[i].initial_loc, wh[i].loc);
		assert_int_equal(ents[i].fde_addr, eh->addr + wh[i].fde_off);
		assert_int_equal(ents[i].size, 8);
		assert_int_equal(ents[i].off, hdr->offset + 12 + 8 * i);
	}
	free(ents);
	free(wh);
	free(want);
	elfimg_close(img);
}

static void test_parse_c64(void **state)
{
	(void)state;
	check_image(fx("c64"));
}

static void test_parse_fsections(void **state)
{
	(void)state;
	check_image(fx("cfs"));
}

static void test_parse_c32(void **state)
{
	(void)state;
	if (!have_m32)
		test_skip("gcc -m32 cannot link (gcc-multilib)");
	check_image(fx("c32"));
}

static void test_parse_cxx(void **state)
{
	size_t nl;
	char **l;
	bool zplr = false;

	(void)state;
	if (!have_cxx)
		test_skip("g++ cannot build a C++ program (g++)");
	/* the fixture has the personality/LSDA CIE this test is for */
	l = lines_of(&nl, "readelf -wf '%s'", fx("cxx"));
	for (size_t i = 0; i < nl; i++)
		zplr |= strstr(l[i], "\"zPLR\"") != NULL;
	free_lines(l, nl);
	assert_true(zplr);
	check_image(fx("cxx"));
}

/* ---------- the symbols source charges ---------- */

static void check_charges(const char *path)
{
	const struct elf_section *eh, *hdr;
	struct tfde *want;
	struct tsym *fn;
	struct thdr *wh;
	size_t nw, ncie, nfn, nwh, checked = 0;
	struct dualmap base, src;
	struct elfimg *img;
	struct labels *lb;
	uint64_t count, fsz;

	assert_int_equal(elfimg_open(path, &img), 0);
	eh = sec_by_name(img, ".eh_frame");
	hdr = sec_by_name(img, ".eh_frame_hdr");
	lb = labels_new();
	dualmap_init(&base);
	dualmap_init(&src);
	elfimg_base_map(img, lb, &base);
	assert_int_equal(
	    elfimg_source_map(img, ELFSRC_SYMBOLS, NULL, lb, &base, &src, NULL),
	    0);
	want = readelf_fdes(path, &nw, &ncie);
	wh = eu_hdr(path, &nwh, &count);
	fn = readelf_funcs(path, &nfn);
	for (size_t i = 0; i < nfn; i++) {
		uint64_t ehb = 0, hdrb = 0, lo = fn[i].value;
		uint64_t hi = lo + fn[i].size;
		char *dm = elf_demangle(fn[i].name);
		uint32_t id = labels_find(lb, dm ? dm : fn[i].name);
		bool unique = true;

		free(dm);

		for (size_t j = 0; j < nfn; j++)
			if (j != i && (!strcmp(fn[j].name, fn[i].name) ||
				       fn[j].value == fn[i].value))
				unique = false;
		if (id == LABEL_NONE || !unique)
			continue;
		for (size_t k = 0; k < nw; k++)
			if (want[k].lo >= lo && want[k].lo < hi)
				ehb += want[k].len + 4;
		for (size_t k = 0; k < nwh; k++)
			if (wh[k].loc >= lo && wh[k].loc < hi)
				hdrb += 8;
		/* file and VM alike (both sections are loaded) */
		assert_int_equal(
		    bytes_in(src.file, id, eh->offset, eh->offset + eh->size),
		    ehb);
		assert_int_equal(
		    bytes_in(src.vm, id, eh->addr, eh->addr + eh->size), ehb);
		assert_int_equal(bytes_in(src.file, id, hdr->offset,
					  hdr->offset + hdr->size),
				 hdrb);
		assert_int_equal(
		    bytes_in(src.vm, id, hdr->addr, hdr->addr + hdr->size),
		    hdrb);
		if (ehb)
			checked++;
	}
	assert_true(checked >= 3);

	/* what no symbol takes stays with the section: CIEs, the header
	 * and FDEs of code without a symbol (PLT, crt stubs) */
	{
		uint32_t sid = labels_find(lb, "[section .eh_frame]");
		uint64_t cie_bytes = 0;

		assert_int_not_equal(sid, LABEL_NONE);
		for (size_t k = 0; k < ncie; k++)
			cie_bytes += 4; /* at least their length words */
		assert_true(bytes_in(src.file, sid, eh->offset,
				     eh->offset + eh->size) >= cie_bytes);
		sid = labels_find(lb, "[section .eh_frame_hdr]");
		assert_int_not_equal(sid, LABEL_NONE);
		assert_true(bytes_in(src.file, sid, hdr->offset,
				     hdr->offset + 12) == 12);
	}

	/* I1 */
	fsz = img->file_size;
	assert_true(rmap_covers(src.file, 0, fsz));
	{
		size_t n;
		const struct rmap_entry *e = rmap_entries(src.file, &n);

		assert_int_equal(e[n - 1].end, fsz);
	}
	free(fn);
	free(wh);
	free(want);
	dualmap_free(&src);
	dualmap_free(&base);
	labels_free(lb);
	elfimg_close(img);
}

static void test_charges_c64(void **state)
{
	(void)state;
	check_charges(fx("c64"));
}

static void test_charges_fsections(void **state)
{
	(void)state;
	check_charges(fx("cfs"));
}

static void test_charges_cxx(void **state)
{
	(void)state;
	if (!have_cxx)
		test_skip("g++ cannot build a C++ program (g++)");
	check_charges(fx("cxx"));
}

/* ---------- padding between symbols ---------- */

static int cmp_tsym(const void *a, const void *b)
{
	const struct tsym *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

/* Symbols of path named prefix*, FUNC or OBJECT, sorted by address. */
static struct tsym *prefixed(const char *path, const char *prefix, size_t *n)
{
	struct tsym *v = NULL;
	size_t nl, cap = 0;
	char **l = lines_of(&nl, "readelf -sW '%s'", path);

	*n = 0;
	for (size_t i = 0; i < nl; i++) {
		unsigned long long value, size;
		char type[32], bind[32], vis[32], ndx[32], name[256];
		unsigned idx;

		if (sscanf(l[i], " %u: %llx %llu %31s %31s %31s %31s %255s",
			   &idx, &value, &size, type, bind, vis, ndx,
			   name) != 8 ||
		    strncmp(name, prefix, strlen(prefix)))
			continue;
		xgrow(&v, &cap, *n + 1, sizeof(*v));
		snprintf(v[*n].name, sizeof(v[*n].name), "%s", name);
		v[*n].value = value;
		v[*n].size = size;
		(*n)++;
	}
	free_lines(l, nl);
	/* .dynsym and .symtab may both list them: keep one of each */
	qsort(v, *n, sizeof(*v), cmp_tsym);
	size_t m = 0;
	for (size_t i = 0; i < *n; i++)
		if (!m || v[m - 1].value != v[i].value)
			v[m++] = v[i];
	*n = m;
	return v;
}

/* The gaps the compiler left between functions aligned to 64 bytes, between
 * objects aligned to 32 in .data and to 16 in .bss, are "[padding]" in the
 * symbols map; the gaps are measured from readelf's symbol table. */
static void test_padding(void **state)
{
	static const char *const prefixes[] = {"pad_fn_", "pad_obj_",
					       "pad_bss_"};
	static const uint64_t align[] = {64, 32, 16};
	struct dualmap base, src;
	struct elfimg *img;
	struct labels *lb;
	uint32_t id;

	(void)state;
	assert_int_equal(elfimg_open(fx("pad"), &img), 0);
	lb = labels_new();
	dualmap_init(&base);
	dualmap_init(&src);
	elfimg_base_map(img, lb, &base);
	assert_int_equal(
	    elfimg_source_map(img, ELFSRC_SYMBOLS, NULL, lb, &base, &src, NULL),
	    0);
	id = labels_find(lb, "[padding]");
	assert_int_not_equal(id, LABEL_NONE);
	for (size_t p = 0; p < ARRAY_SIZE(prefixes); p++) {
		struct tsym *y;
		size_t n;
		uint64_t want = 0;

		y = prefixed(fx("pad"), prefixes[p], &n);
		assert_true(n >= 3);
		for (size_t i = 0; i + 1 < n; i++) {
			uint64_t end = y[i].value + y[i].size;

			assert_int_equal(y[i + 1].value % align[p], 0);
			assert_true(y[i + 1].value >= end);
			assert_true(y[i + 1].value - end < align[p]);
			want += y[i + 1].value - end;
		}
		assert_true(want > 0);
		assert_int_equal(bytes_in(src.vm, id, y[0].value,
					  y[n - 1].value + y[n - 1].size),
				 want);
		free(y);
	}
	dualmap_free(&src);
	dualmap_free(&base);
	labels_free(lb);
	elfimg_close(img);
}

/* ---------- hand-made and hostile buffers ---------- */

struct buf {
	unsigned char b[512];
	size_t n;
};

static void put(struct buf *b, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b->b[b->n++] = v >> (8 * i);
}

/* A CIE "zR" with FDE encoding enc at the end of b; returns its offset. */
static size_t put_cie(struct buf *b, uint8_t enc)
{
	size_t start = b->n;

	put(b, 0, 4); /* length, patched */
	put(b, 0, 4); /* CIE id */
	put(b, 1, 1); /* version */
	put(b, 'z', 1);
	put(b, 'R', 1);
	put(b, 0, 1);
	put(b, 1, 1);	 /* code align */
	put(b, 0x78, 1); /* data align -8 */
	put(b, 16, 1);	 /* return address register */
	put(b, 1, 1);	 /* augmentation length */
	put(b, enc, 1);
	while ((b->n - start) % 4)
		put(b, 0, 1);
	b->b[start] = b->n - start - 4;
	return start;
}

/* An FDE for the CIE at cie: pc_begin/range as vsize-byte fields. */
static size_t put_fde(struct buf *b, size_t cie, uint64_t pc, uint64_t range,
		      size_t vsize)
{
	size_t start = b->n;

	put(b, 0, 4);
	put(b, start + 4 - cie, 4);
	put(b, pc, vsize);
	put(b, range, vsize);
	put(b, 0, 1); /* augmentation length */
	while ((b->n - start) % 4)
		put(b, 0, 1);
	b->b[start] = b->n - start - 4;
	return start;
}

static void test_encodings(void **state)
{
	struct elf_fde *f;
	struct buf b = {0};
	size_t n, cie, fde, ncies;

	(void)state;
	/* absptr on 64-bit */
	cie = put_cie(&b, 0x00);
	put_fde(&b, cie, 0x401000, 0x20, 8);
	/* udata4 absolute */
	cie = put_cie(&b, 0x03);
	put_fde(&b, cie, 0x402000, 0x30, 4);
	/* sdata4 pcrel: field at b.n + 8 */
	cie = put_cie(&b, 0x1b);
	fde = b.n;
	put_fde(&b, cie, (uint64_t)(0x403000 - (0x10000 + fde + 8)), 0x40, 4);
	/* sdata8 pcrel */
	cie = put_cie(&b, 0x1c);
	fde = b.n;
	put_fde(&b, cie, (uint64_t)(0x404000 - (0x10000 + fde + 8)), 0x50, 8);
	put(&b, 0, 4);		/* terminator */
	put(&b, 0xdeadbeef, 4); /* ignored after the terminator */

	assert_int_equal(elf_ehframe_parse(b.b, b.n, 0x10000, ELFCLASS64, false,
					   &f, &n, &ncies),
			 0);
	assert_int_equal(ncies, 4);
	assert_int_equal(n, 4);
	assert_int_equal(f[0].pc_begin, 0x401000);
	assert_int_equal(f[0].pc_range, 0x20);
	assert_int_equal(f[1].pc_begin, 0x402000);
	assert_int_equal(f[1].pc_range, 0x30);
	assert_int_equal(f[2].pc_begin, 0x403000);
	assert_int_equal(f[2].pc_range, 0x40);
	assert_int_equal(f[3].pc_begin, 0x404000);
	assert_int_equal(f[3].pc_range, 0x50);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(f[i].size % 4, 0);
	free(f);

	/* absptr on 32-bit is 4 bytes */
	b.n = 0;
	cie = put_cie(&b, 0x00);
	put_fde(&b, cie, 0x8049000, 0x10, 4);
	assert_int_equal(
	    elf_ehframe_parse(b.b, b.n, 0, ELFCLASS32, false, &f, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_int_equal(f[0].pc_begin, 0x8049000);
	free(f);
}

static void test_hostile(void **state)
{
	struct elf_fde *f;
	struct buf b = {0};
	size_t n, cie;

	(void)state;
	/* a length running past the buffer */
	cie = put_cie(&b, 0x03);
	put_fde(&b, cie, 0x1000, 0x10, 4);
	b.b[cie + 24] = 0xf0; /* the FDE's length: 0xf0 + its own */
	assert_int_equal(
	    elf_ehframe_parse(b.b, b.n, 0, ELFCLASS64, false, &f, &n, NULL), 1);
	assert_int_equal(n, 0);
	free(f);

	/* 64-bit extended length, absurd */
	b.n = 0;
	put(&b, 0xffffffff, 4);
	put(&b, UINT64_MAX - 3, 8);
	put(&b, 0, 8);
	assert_int_equal(
	    elf_ehframe_parse(b.b, b.n, 0, ELFCLASS64, false, &f, &n, NULL), 1);
	assert_int_equal(n, 0);
	free(f);

	/* a CIE pointer before the section, and one to an FDE */
	b.n = 0;
	cie = put_cie(&b, 0x03);
	size_t fde = put_fde(&b, cie, 0x1000, 0x10, 4);
	b.b[fde + 4] = 0xff;
	b.b[fde + 5] = 0xff; /* pointer 0xffff: before offset 0 */
	size_t fde2 = put_fde(&b, cie, 0x2000, 0x10, 4);
	size_t fde3 = put_fde(&b, cie, 0x3000, 0x10, 4);
	/* fde3 names fde2 as its CIE */
	b.b[fde3 + 4] = fde3 + 4 - fde2;
	assert_int_equal(
	    elf_ehframe_parse(b.b, b.n, 0, ELFCLASS64, false, &f, &n, NULL), 2);
	assert_int_equal(n, 1);
	assert_int_equal(f[0].pc_begin, 0x2000);
	free(f);

	/* encodings memsz cannot apply: datarel and indirect in .eh_frame,
	 * an undefined format nibble; an unknown augmentation */
	static const uint8_t bad_enc[] = {0x3b, 0x9b, 0x0f, 0x07, 0x50};
	for (size_t i = 0; i < ARRAY_SIZE(bad_enc); i++) {
		b.n = 0;
		cie = put_cie(&b, bad_enc[i]);
		put_fde(&b, cie, 0x1000, 0x10, 4);
		assert_int_equal(elf_ehframe_parse(b.b, b.n, 0, ELFCLASS64,
						   false, &f, &n, NULL),
				 1);
		assert_int_equal(n, 0);
		free(f);
	}
	b.n = 0;
	cie = put_cie(&b, 0x03);
	b.b[cie + 9] = 'x'; /* augmentation "xR": no length to skip by */
	put_fde(&b, cie, 0x1000, 0x10, 4);
	assert_int_equal(
	    elf_ehframe_parse(b.b, b.n, 0, ELFCLASS64, false, &f, &n, NULL), 1);
	free(f);

	/* an FDE too short for its pointers */
	b.n = 0;
	cie = put_cie(&b, 0x04); /* udata8 */
	fde = b.n;
	put(&b, 8, 4);
	put(&b, fde + 4 - cie, 4);
	put(&b, 0x1000, 4);
	assert_int_equal(
	    elf_ehframe_parse(b.b, b.n, 0, ELFCLASS64, false, &f, &n, NULL), 1);
	free(f);
	/* an empty buffer, a lone partial length */
	assert_int_equal(
	    elf_ehframe_parse(b.b, 0, 0, ELFCLASS64, false, &f, &n, NULL), 0);
	assert_int_equal(n, 0);
	free(f);
	assert_int_equal(
	    elf_ehframe_parse(b.b, 3, 0, ELFCLASS64, false, &f, &n, NULL), 1);
	free(f);
}

static void test_hdr_hostile(void **state)
{
	struct elf_ehhdr_entry *e;
	unsigned char h[64] = {1, 0x1b, 0x03, 0x3b};
	uint64_t count;
	size_t n;

	(void)state;
	/* a count of 1000 with room for 2 entries */
	h[8] = 0xe8;
	h[9] = 0x03;
	assert_int_equal(elf_ehframe_hdr_parse(h, 12 + 16, 0x1000, ELFCLASS64,
					       false, &e, &n, &count),
			 0);
	assert_int_equal(count, 1000);
	assert_int_equal(n, 2);
	free(e);
	/* bad version, uleb128 table, indirect table, truncated header */
	h[0] = 2;
	assert_int_equal(
	    elf_ehframe_hdr_parse(h, 28, 0, ELFCLASS64, false, &e, &n, NULL),
	    -EINVAL);
	h[0] = 1;
	h[3] = 0x01;
	assert_int_equal(
	    elf_ehframe_hdr_parse(h, 28, 0, ELFCLASS64, false, &e, &n, NULL),
	    -EINVAL);
	h[3] = 0xbb;
	assert_int_equal(
	    elf_ehframe_hdr_parse(h, 28, 0, ELFCLASS64, false, &e, &n, NULL),
	    -EINVAL);
	assert_int_equal(
	    elf_ehframe_hdr_parse(h, 6, 0, ELFCLASS64, false, &e, &n, NULL),
	    -EINVAL);
	/* no table */
	h[3] = 0xff;
	assert_int_equal(
	    elf_ehframe_hdr_parse(h, 28, 0, ELFCLASS64, false, &e, &n, &count),
	    0);
	assert_int_equal(n, 0);
}

/* Mutate a real .eh_frame at random (fixed seed) and truncate it at every
 * length: every FDE returned lies inside the buffer. */
static void test_mutations(void **state)
{
	const struct elf_section *eh;
	struct elfimg *img;
	unsigned char *copy;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	Elf_Data *d;

	(void)state;
	assert_int_equal(elfimg_open(fx("c64"), &img), 0);
	eh = sec_by_name(img, ".eh_frame");
	d = elf_rawdata(elf_getscn(elfimg_elf(img), eh->index), NULL);
	copy = xmalloc(d->d_size);
	for (size_t len = 0; len <= d->d_size; len++) {
		struct elf_fde *f;
		size_t n;

		memcpy(copy, d->d_buf, len);
		elf_ehframe_parse(copy, len, eh->addr, ELFCLASS64, false, &f,
				  &n, NULL);
		for (size_t i = 0; i < n; i++)
			assert_true(f[i].off + f[i].size <= len);
		free(f);
	}
	for (int round = 0; round < 3000; round++) {
		struct elf_fde *f;
		size_t n;
		int k;

		memcpy(copy, d->d_buf, d->d_size);
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k = 1 + x % 4;
		for (int j = 0; j < k; j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			copy[(x >> 8) % d->d_size] = x >> 56;
		}
		elf_ehframe_parse(copy, d->d_size, eh->addr, ELFCLASS64,
				  round & 1, &f, &n, NULL);
		for (size_t i = 0; i < n; i++) {
			assert_true(f[i].off + f[i].size <= d->d_size);
			assert_true(f[i].cie_off < f[i].off);
		}
		free(f);
	}
	free(copy);
	elfimg_close(img);
}

/* A copy of a fixture whose first FDE's length overruns the section: the
 * image still opens, the symbols source covers the file (I1), and the
 * whole .eh_frame falls back to "[section .eh_frame]". */
static void test_corrupt_image(void **state)
{
	const struct elf_section *eh;
	struct elfimg *img;
	struct dualmap base, src;
	struct labels *lb;
	size_t n;
	struct elf_fde *f;
	uint64_t first_fde;
	FILE *fp;

	(void)state;
	assert_int_equal(sh("cp '%s' '%s'", fx("c64"), fx("bad")), 0);
	assert_int_equal(elfimg_open(fx("bad"), &img), 0);
	eh = sec_by_name(img, ".eh_frame");
	assert_int_equal(elf_ehframe_read(img, &f, &n), 0);
	first_fde = f[0].off;
	for (size_t i = 1; i < n; i++)
		first_fde = MIN(first_fde, f[i].off);
	free(f);
	elfimg_close(img);

	fp = fopen(fx("bad"), "r+b");
	assert_non_null(fp);
	fseek(fp, first_fde, SEEK_SET);
	fputc(0xf0, fp);
	fputc(0xff, fp);
	fputc(0xff, fp);
	fputc(0x7f, fp);
	fclose(fp);

	assert_int_equal(elfimg_open(fx("bad"), &img), 0);
	eh = sec_by_name(img, ".eh_frame");
	assert_int_equal(elf_ehframe_read(img, &f, &n), 1);
	free(f);
	lb = labels_new();
	dualmap_init(&base);
	dualmap_init(&src);
	elfimg_base_map(img, lb, &base);
	assert_int_equal(
	    elfimg_source_map(img, ELFSRC_SYMBOLS, NULL, lb, &base, &src, NULL),
	    0);
	assert_true(rmap_covers(src.file, 0, img->file_size));
	assert_int_equal(bytes_in(src.file,
				  labels_find(lb, "[section .eh_frame]"),
				  eh->offset, eh->offset + eh->size),
			 eh->size);
	dualmap_free(&src);
	dualmap_free(&base);
	labels_free(lb);
	elfimg_close(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_c64),
	    cmocka_unit_test(test_parse_fsections),
	    cmocka_unit_test(test_parse_c32),
	    cmocka_unit_test(test_parse_cxx),
	    cmocka_unit_test(test_charges_c64),
	    cmocka_unit_test(test_charges_fsections),
	    cmocka_unit_test(test_charges_cxx),
	    cmocka_unit_test(test_padding),
	    cmocka_unit_test(test_encodings),
	    cmocka_unit_test(test_hostile),
	    cmocka_unit_test(test_hdr_hostile),
	    cmocka_unit_test(test_mutations),
	    cmocka_unit_test(test_corrupt_image),
	};

	return test_run_group(tests, setup, teardown);
}
