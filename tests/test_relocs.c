// SPDX-License-Identifier: GPL-2.0-or-later
/* test_relocs.c — elf/relocs.c (REL, RELA, RELR) and the relocation and
 * symbol-table charges of the symbols source.
 *
 * Fixtures compiled at test time: a PIE with an array of 1000 pointers in
 * .data.rel.ro, with and without -Wl,-z,pack-relative-relocs, 64- and
 * 32-bit, and a shared library (for .dynsym/.dynstr/.gnu.version). Ground
 * truth is `readelf -rW` (every entry; RELR decoded by binutils) and
 * `readelf -sW` (symbol values, sizes, names), never memsz's own code.
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
#include <sys/wait.h>
#include <unistd.h>

#include "elf/elfimg.h"
#include "elf/elfpriv.h"
#include "elf/relocs.h"
#include "tests/testutil.h"
#include "util/util.h"

static char tmpdir[] = "/tmp/memsz-test-relocs.XXXXXX";
static bool have_m32;

static const char ptrs_src[] =
    "#include <stdio.h>\n"
    "static int vals[1000];\n"
    "#define P4(i) &vals[i], &vals[i+1], &vals[i+2], &vals[i+3]\n"
    "#define P20(i) P4(i),P4(i+4),P4(i+8),P4(i+12),P4(i+16)\n"
    "#define P100(i) P20(i),P20(i+20),P20(i+40),P20(i+60),P20(i+80)\n"
    "int *const ptr_array[1000] = { P100(0), P100(100), P100(200),\n"
    "  P100(300), P100(400), P100(500), P100(600), P100(700), P100(800),\n"
    "  P100(900) };\n"
    "int *sparse_ptrs[200] = { &vals[1], 0, &vals[2], 0, 0, 0, &vals[3],\n"
    "  [100] = &vals[4], [199] = &vals[5] };\n"
    "int main(int c, char **v) { (void)v;\n"
    "  printf(\"%p %p\\n\", (void *)ptr_array[c], (void *)sparse_ptrs[c]);\n"
    "  return 0; }\n";

static const char lib_src[] =
    "int memsz_lib_counter;\n"
    "const char *memsz_lib_names[3] = { \"a\", \"b\", \"c\" };\n"
    "int memsz_lib_alpha(int x) { return x + memsz_lib_counter; }\n"
    "int memsz_lib_beta_function(int x) { return memsz_lib_alpha(x) *"
    " 2; }\n"
    "static int memsz_lib_hidden(int x) { return x - 1; }\n"
    "int (*memsz_lib_fp)(int) = memsz_lib_hidden;\n"
    "int memsz_lib_folded(int) __attribute__((alias(\"memsz_lib_alpha\")));"
    "\n";

static int setup(void **state)
{
	FILE *f;

	(void)state;
	if (tmpdir_make(tmpdir))
		return -1;
	f = fopen(fx("ptrs.c"), "w");
	if (!f)
		return -1;
	fputs(ptrs_src, f);
	fclose(f);
	f = fopen(fx("lib.c"), "w");
	if (!f)
		return -1;
	fputs(lib_src, f);
	fclose(f);
	if (sh("cd '%s' && gcc -O1 -fPIE -pie -o rela ptrs.c && "
	       "gcc -O1 -fPIE -pie -Wl,-z,pack-relative-relocs -o relr "
	       "ptrs.c && gcc -O1 -fPIC -shared -o lib.so lib.c",
	       tmpdir))
		return -1;
	have_m32 = sh("cd '%s' && gcc -m32 -O1 -fPIE -pie -o rel32 ptrs.c "
		      "2>/dev/null && gcc -m32 -O1 -fPIE -pie "
		      "-Wl,-z,pack-relative-relocs -o relr32 ptrs.c "
		      "2>/dev/null",
		      tmpdir) == 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tmpdir_remove();
	return 0;
}

/* ---------- ground truth ---------- */

struct trel {
	char sec[64];
	uint64_t off, info;
	char type[64];
	bool relr;
};

struct tsec {
	char name[64];
	uint64_t entries; /* "contains N entries" (RELR: words) */
};

/* Every relocation readelf -rW lists for path, in order; the sections
 * with their entry counts into *secs. */
static struct trel *readelf_relocs(const char *path, size_t *n,
				   struct tsec **secs, size_t *nsecs)
{
	struct trel *v = NULL;
	struct tsec *s = NULL;
	size_t nl, cap = 0, scap = 0;
	char **l = lines_of(&nl, "readelf -rW '%s'", path);
	char cur[64] = "";
	bool relr = false;

	*n = 0;
	*nsecs = 0;
	for (size_t i = 0; i < nl; i++) {
		unsigned long long off, info, cnt;
		char name[64], type[64];

		if (sscanf(l[i],
			   "Relocation section '%63[^']' at offset "
			   "%llx contains %llu",
			   name, &off, &cnt) == 3) {
			snprintf(cur, sizeof(cur), "%s", name);
			relr = strstr(cur, ".relr") != NULL;
			xgrow(&s, &scap, *nsecs + 1, sizeof(*s));
			snprintf(s[*nsecs].name, sizeof(s[*nsecs].name), "%s",
				 name);
			s[(*nsecs)++].entries = cnt;
			continue;
		}
		if (!cur[0])
			continue;
		if (relr) {
			char extra[8];

			if (sscanf(l[i], "%llx %7s", &off, extra) != 1)
				continue;
			info = 0;
			type[0] = 0;
		} else if (sscanf(l[i], "%llx %llx %63s", &off, &info, type) !=
			   3) {
			continue;
		}
		xgrow(&v, &cap, *n + 1, sizeof(*v));
		snprintf(v[*n].sec, sizeof(v[*n].sec), "%s", cur);
		v[*n].off = off;
		v[*n].info = info;
		snprintf(v[*n].type, sizeof(v[*n].type), "%s", type);
		v[*n].relr = relr;
		(*n)++;
	}
	free_lines(l, nl);
	*secs = s;
	return v;
}

struct tsym {
	char name[256];
	char type[16];
	uint64_t value, size;
	unsigned idx;
};

/* Defined FUNC/OBJECT symbols with a size of table tab (".symtab" or
 * ".dynsym") per readelf -sW (versions stripped from names). */
static struct tsym *readelf_syms(const char *path, const char *tab, size_t *n)
{
	struct tsym *v = NULL;
	size_t nl, cap = 0;
	char **l = lines_of(&nl, "readelf -sW '%s'", path);
	char want[80];
	bool in = false;

	snprintf(want, sizeof(want), "'%s'", tab);
	*n = 0;
	for (size_t i = 0; i < nl; i++) {
		unsigned long long value, size;
		char type[16], bind[32], vis[32], ndx[32], name[256];
		unsigned idx;

		if (!strncmp(l[i], "Symbol table '", 14)) {
			in = strstr(l[i], want) != NULL;
			continue;
		}
		if (!in ||
		    sscanf(l[i], " %u: %llx %llu %15s %31s %31s %31s %255s",
			   &idx, &value, &size, type, bind, vis, ndx,
			   name) != 8)
			continue;
		if ((strcmp(type, "FUNC") && strcmp(type, "OBJECT")) || !size ||
		    !strcmp(ndx, "UND") || !strcmp(ndx, "ABS"))
			continue;
		if (strchr(name, '@'))
			*strchr(name, '@') = 0;
		xgrow(&v, &cap, *n + 1, sizeof(*v));
		snprintf(v[*n].name, sizeof(v[*n].name), "%s", name);
		snprintf(v[*n].type, sizeof(v[*n].type), "%s", type);
		v[*n].value = value;
		v[*n].size = size;
		v[*n].idx = idx;
		(*n)++;
	}
	free_lines(l, nl);
	return v;
}

/* Bytes of label name in section sname, file and VM (VM must agree for an
 * ALLOC section, be 0 otherwise). */
static uint64_t sec_bytes(struct elfimg *img, struct dualmap *src,
			  struct labels *lb, const char *name,
			  const char *sname)
{
	const struct elf_section *s = sec_by_name(img, sname);
	uint32_t id = labels_find(lb, name);
	uint64_t f, v;

	if (!s)
		return 0;
	f = bytes_in(src->file, id, s->offset, s->offset + s->size);
	v = bytes_in(src->vm, id, s->addr, s->addr + s->size);
	if (s->flags & SHF_ALLOC)
		assert_int_equal(f, v);
	return f;
}

struct mapped {
	struct elfimg *img;
	struct labels *lb;
	struct dualmap base, src;
};

static void map_symbols(const char *path, struct mapped *m)
{
	assert_int_equal(elfimg_open(path, &m->img), 0);
	m->lb = labels_new();
	dualmap_init(&m->base);
	dualmap_init(&m->src);
	elfimg_base_map(m->img, m->lb, &m->base);
	assert_int_equal(elfimg_source_map(m->img, ELFSRC_SYMBOLS, NULL, m->lb,
					   &m->base, &m->src, NULL),
			 0);
	/* I1 on the file side */
	assert_true(rmap_covers(m->src.file, 0, m->img->file_size));
}

static void unmap(struct mapped *m)
{
	dualmap_free(&m->src);
	dualmap_free(&m->base);
	labels_free(m->lb);
	elfimg_close(m->img);
}

/* ---------- reading ---------- */

static void check_read(const char *path)
{
	struct elf_reloc *r;
	struct trel *t;
	struct tsec *ts;
	struct elfimg *img;
	size_t n, nt, nts, relr_words = 0;
	uint64_t last_word = UINT64_MAX;

	assert_int_equal(elfimg_open(path, &img), 0);
	t = readelf_relocs(path, &nt, &ts, &nts);
	assert_true(nt > 0);
	assert_int_equal(elf_relocs_read(img, &r, &n), 0);
	assert_int_equal(n, nt);
	for (size_t i = 0; i < n; i++) {
		const struct elf_section *s = &img->secs[r[i].section];
		bool is64 = img->elfclass == ELFCLASS64;

		assert_string_equal(s->name, t[i].sec);
		assert_int_equal(r[i].target, t[i].off);
		assert_true(r[i].entry_off >= s->offset &&
			    r[i].entry_off + r[i].entry_size <=
				s->offset + s->size);
		assert_int_equal(r[i].entry_addr - s->addr,
				 r[i].entry_off - s->offset);
		if (t[i].relr) {
			assert_int_equal(r[i].kind, ELF_RELOC_RELR);
			assert_true(r[i].is_relative);
			assert_int_equal(r[i].entry_size, is64 ? 8 : 4);
			if (r[i].entry_off != last_word)
				relr_words++;
			last_word = r[i].entry_off;
			continue;
		}
		assert_int_equal(r[i].type, is64 ? ELF64_R_TYPE(t[i].info)
						 : ELF32_R_TYPE(t[i].info));
		assert_int_equal(r[i].sym, is64 ? ELF64_R_SYM(t[i].info)
						: ELF32_R_SYM(t[i].info));
		assert_int_equal(r[i].entry_size, s->entsize);
		assert_int_equal(r[i].is_relative,
				 strstr(t[i].type, "_RELATIVE") != NULL &&
				     !strstr(t[i].type, "IRELATIVE"));
		if (elf_reloc_type_name(img->machine, r[i].type))
			assert_string_equal(
			    elf_reloc_type_name(img->machine, r[i].type),
			    t[i].type);
	}
	/* every RELR word decodes to at least one address here */
	for (size_t k = 0; k < nts; k++)
		if (strstr(ts[k].name, ".relr"))
			assert_int_equal(relr_words, ts[k].entries);
	free(r);
	free(t);
	free(ts);
	elfimg_close(img);
}

static void test_read_rela(void **state)
{
	(void)state;
	check_read(fx("rela"));
	check_read(fx("lib.so"));
}

static void test_read_relr(void **state)
{
	(void)state;
	check_read(fx("relr"));
}

static void test_read_32(void **state)
{
	(void)state;
	if (!have_m32)
		test_skip("gcc -m32 cannot link (gcc-multilib)");
	check_read(fx("rel32"));
	check_read(fx("relr32"));
}

/* The estimate re-encodes the RELATIVE relocations it is given: fed the
 * addresses of a RELR build (checked against readelf above) it must find
 * the size the linker gave .relr.dyn; fed a RELA build, no more than its
 * relative entries take, and at least one word. (Two links differ in
 * layout, so a RELA build's estimate need not equal the RELR build's.) */
static void check_estimate(const char *rela, const char *relr)
{
	struct elfimg *a, *b;
	struct elf_reloc *r;
	uint64_t est, nrel = 0;
	size_t n;

	assert_int_equal(elfimg_open(rela, &a), 0);
	assert_int_equal(elfimg_open(relr, &b), 0);
	assert_int_equal(elf_relocs_read(b, &r, &n), 0);
	assert_int_equal(elf_relocs_relr_size(r, n, b->elfclass),
			 sec_by_name(b, ".relr.dyn")->size);
	free(r);
	assert_int_equal(elf_relocs_read(a, &r, &n), 0);
	for (size_t i = 0; i < n; i++)
		nrel += r[i].is_relative;
	est = elf_relocs_relr_size(r, n, a->elfclass);
	assert_true(nrel >= 1000);
	assert_true(est > 0 && est < nrel * r[0].entry_size / 10);
	free(r);
	elfimg_close(a);
	elfimg_close(b);
}

static void test_relr_estimate(void **state)
{
	(void)state;
	check_estimate(fx("rela"), fx("relr"));
	if (have_m32)
		check_estimate(fx("rel32"), fx("relr32"));
	else
		test_skip_part("gcc -m32 cannot link (gcc-multilib)");
}

/* ---------- charges ---------- */

static bool unique_name(const struct tsym *y, size_t n, size_t i)
{
	for (size_t j = 0; j < n; j++)
		if (j != i && !strcmp(y[j].name, y[i].name))
			return false;
	return true;
}

/* Each symbol's share of the REL/RELA sections is entsize times the
 * relocations readelf lists inside it. */
static void check_rela_charges(const char *path, const char *sname,
			       uint64_t entsize)
{
	struct mapped m;
	struct trel *t;
	struct tsec *ts;
	struct tsym *y;
	size_t nt, nts, ny, checked = 0;

	map_symbols(path, &m);
	t = readelf_relocs(path, &nt, &ts, &nts);
	y = readelf_syms(path, ".symtab", &ny);
	for (size_t i = 0; i < ny; i++) {
		uint64_t want = 0;

		if (!unique_name(y, ny, i) ||
		    labels_find(m.lb, y[i].name) == LABEL_NONE)
			continue;
		for (size_t k = 0; k < nt; k++)
			if (!strcmp(t[k].sec, sname) &&
			    t[k].off >= y[i].value &&
			    t[k].off < y[i].value + y[i].size)
				want += entsize;
		assert_int_equal(
		    sec_bytes(m.img, &m.src, m.lb, y[i].name, sname), want);
		if (!strcmp(y[i].name, "ptr_array"))
			assert_int_equal(want, 1000 * entsize);
		if (!strcmp(y[i].name, "sparse_ptrs"))
			assert_int_equal(want, 5 * entsize);
		checked += want > 0;
	}
	assert_true(checked >= 2);
	free(y);
	free(t);
	free(ts);
	unmap(&m);
}

static void test_charge_rela(void **state)
{
	(void)state;
	check_rela_charges(fx("rela"), ".rela.dyn", 24);
	if (have_m32)
		check_rela_charges(fx("rel32"), ".rel.dyn", 8);
	else
		test_skip_part("gcc -m32 cannot link (gcc-multilib)");
}

/* RELR: readelf's address list is re-encoded here the way the linkers do
 * (an address word, then bitmap words while the next address is within
 * the window) - which must give readelf's word count - and each word goes
 * to the symbol of the first of its addresses that lies in a symbol. */
static void check_relr_charges(const char *path, uint64_t w)
{
	struct mapped m;
	struct trel *t;
	struct tsec *ts;
	struct tsym *y;
	size_t nt, nts, ny, words = 0, entries = 0;
	uint64_t *want;
	uint64_t bits = 8 * w - 1;

	map_symbols(path, &m);
	t = readelf_relocs(path, &nt, &ts, &nts);
	y = readelf_syms(path, ".symtab", &ny);
	want = xcalloc(ny + 1, sizeof(*want));
	for (size_t k = 0; k < nts; k++)
		if (!strcmp(ts[k].name, ".relr.dyn"))
			entries = ts[k].entries;
	for (size_t k = 0; k < nt;) {
		uint64_t base;
		size_t first, end;

		if (!t[k].relr) {
			k++;
			continue;
		}
		/* address word */
		first = k;
		end = k + 1;
		base = t[k].off + w;
		for (;;) {
			/* charge the word [first, end) */
			size_t owner = ny;

			for (size_t a = first; a < end && owner == ny; a++)
				for (size_t j = 0; j < ny; j++)
					if (t[a].off >= y[j].value &&
					    t[a].off < y[j].value + y[j].size) {
						owner = j;
						break;
					}
			want[owner] += w;
			words++;
			if (end >= nt || !t[end].relr ||
			    t[end].off >= base + bits * w)
				break;
			/* bitmap word */
			first = end;
			while (end < nt && t[end].relr &&
			       t[end].off < base + bits * w)
				end++;
			base += bits * w;
		}
		k = end;
	}
	assert_int_equal(words, entries);
	for (size_t j = 0; j < ny; j++) {
		if (!unique_name(y, ny, j) ||
		    labels_find(m.lb, y[j].name) == LABEL_NONE)
			continue;
		assert_int_equal(
		    sec_bytes(m.img, &m.src, m.lb, y[j].name, ".relr.dyn"),
		    want[j]);
	}
	/* ptr_array: 1000 contiguous pointers, 1 + ceil(999 / bits) words */
	for (size_t j = 0; j < ny; j++)
		if (!strcmp(y[j].name, "ptr_array"))
			assert_true(want[j] >= (1 + 999 / bits) * w);
	free(want);
	free(y);
	free(t);
	free(ts);
	unmap(&m);
}

static void test_charge_relr(void **state)
{
	(void)state;
	check_relr_charges(fx("relr"), 8);
	if (have_m32)
		check_relr_charges(fx("relr32"), 4);
	else
		test_skip_part("gcc -m32 cannot link (gcc-multilib)");
}

/* Symbol table entries and names: each labelled symbol gets one entry of
 * .symtab and strlen(name) + 1 bytes of .strtab for itself and each of its
 * aliases (symbols of the same address and size, which must be listed as
 * its aliases); exported ones the same of .dynsym/.dynstr and 2 bytes of
 * .gnu.version. */
static void check_symtab_charges(const char *path)
{
	struct mapped m;
	struct tsym *y, *dy;
	size_t ny, ndy, checked = 0, aliases = 0;
	uint64_t entsize;

	map_symbols(path, &m);
	entsize = m.img->elfclass == ELFCLASS64 ? 24 : 16;
	y = readelf_syms(path, ".symtab", &ny);
	dy = readelf_syms(path, ".dynsym", &ndy);
	for (size_t i = 0; i < ny; i++) {
		uint64_t st = 0, str = 0, dst = 0, dstr = 0, ver = 0;
		uint32_t id;

		if (strncmp(y[i].name, "memsz_lib_", 10) &&
		    strcmp(y[i].name, "ptr_array") &&
		    strcmp(y[i].name, "sparse_ptrs") &&
		    strcmp(y[i].name, "main"))
			continue;
		assert_true(unique_name(y, ny, i));
		id = labels_find(m.lb, y[i].name);
		if (id == LABEL_NONE) {
			/* an alias of the label of its address and size */
			bool listed = false;

			for (size_t j = 0; j < ny && !listed; j++) {
				uint32_t lid = labels_find(m.lb, y[j].name);
				const char *const *al;
				size_t na;

				if (y[j].value != y[i].value ||
				    y[j].size != y[i].size || lid == LABEL_NONE)
					continue;
				al = labels_aliases(m.lb, lid, &na);
				for (size_t k = 0; k < na; k++)
					listed |= !strcmp(al[k], y[i].name);
			}
			assert_true(listed);
			aliases++;
			continue;
		}
		for (size_t j = 0; j < ny; j++) {
			if (y[j].value != y[i].value || y[j].size != y[i].size)
				continue;
			st += entsize;
			str += strlen(y[j].name) + 1;
		}
		for (size_t j = 0; j < ndy; j++) {
			if (dy[j].value != y[i].value ||
			    dy[j].size != y[i].size)
				continue;
			dst += entsize;
			dstr += strlen(dy[j].name) + 1;
			ver += 2;
		}
		assert_int_equal(
		    sec_bytes(m.img, &m.src, m.lb, y[i].name, ".symtab"), st);
		assert_int_equal(
		    sec_bytes(m.img, &m.src, m.lb, y[i].name, ".strtab"), str);
		assert_int_equal(
		    sec_bytes(m.img, &m.src, m.lb, y[i].name, ".dynsym"), dst);
		assert_int_equal(
		    sec_bytes(m.img, &m.src, m.lb, y[i].name, ".dynstr"), dstr);
		if (sec_by_name(m.img, ".gnu.version"))
			assert_int_equal(sec_bytes(m.img, &m.src, m.lb,
						   y[i].name, ".gnu.version"),
					 ver);
		checked++;
	}
	assert_true(checked >= 3);
	if (strstr(path, "lib.so"))
		assert_int_equal(aliases, 1);
	free(y);
	free(dy);
	unmap(&m);
}

static void test_charge_symtab(void **state)
{
	(void)state;
	check_symtab_charges(fx("rela"));
	check_symtab_charges(fx("lib.so"));
}

/* The shared library's exported functions and objects really are in
 * .dynsym (the fixture is what the test above needs). */
static void test_lib_exports(void **state)
{
	struct tsym *dy;
	size_t ndy, found = 0;

	(void)state;
	dy = readelf_syms(fx("lib.so"), ".dynsym", &ndy);
	for (size_t j = 0; j < ndy; j++)
		found += !strncmp(dy[j].name, "memsz_lib_", 10);
	assert_true(found >= 4);
	free(dy);
}

/* ---------- hostile RELR ---------- */

static void write_at(const char *path, uint64_t off, const void *b, size_t n)
{
	FILE *f = fopen(path, "r+b");

	assert_non_null(f);
	assert_int_equal(fseek(f, off, SEEK_SET), 0);
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
}

static void test_relr_hostile(void **state)
{
	const struct elf_section *s;
	struct elf_reloc *r;
	struct elfimg *img;
	struct mapped m;
	uint64_t off, size, words[64];
	size_t n;
	int dropped;

	(void)state;
	assert_int_equal(sh("cp '%s' '%s'", fx("relr"), fx("bad")), 0);
	assert_int_equal(elfimg_open(fx("bad"), &img), 0);
	s = sec_by_name(img, ".relr.dyn");
	off = s->offset;
	size = s->size;
	elfimg_close(img);
	assert_true(size >= 3 * 8);

	/* a bitmap before any address, then all-ones bitmaps from an
	 * address near the top of the address space, then one far away */
	size_t nw = MIN(size / 8, ARRAY_SIZE(words));
	for (size_t i = 0; i < nw; i++)
		words[i] = UINT64_MAX;
	words[1] = UINT64_MAX - 4095; /* even: an address */
	if (nw > 6)
		words[5] = 0x10000000000ull;
	write_at(fx("bad"), off, words, nw * 8);

	assert_int_equal(elfimg_open(fx("bad"), &img), 0);
	dropped = elf_relocs_read(img, &r, &n);
	assert_true(dropped > 0);
	for (size_t i = 0; i < n; i++) {
		bool in = false;

		for (size_t k = 0; k < img->nsegs; k++)
			in |= img->segs[k].type == PT_LOAD &&
			      r[i].target >= img->segs[k].vaddr &&
			      r[i].target <
				  img->segs[k].vaddr + img->segs[k].memsz;
		assert_true(in);
	}
	free(r);
	elfimg_close(img);

	/* the whole section falls back when no word decodes into a
	 * symbol; I1 holds (map_symbols checks the file side) */
	map_symbols(fx("bad"), &m);
	assert_int_equal(
	    sec_bytes(m.img, &m.src, m.lb, "[section .relr.dyn]", ".relr.dyn"),
	    size - (nw < size / 8 ? size - nw * 8 : 0) -
		sec_bytes(m.img, &m.src, m.lb, "ptr_array", ".relr.dyn") -
		sec_bytes(m.img, &m.src, m.lb, "sparse_ptrs", ".relr.dyn"));
	unmap(&m);
}

/* ---------- a .o's relocations applied to its DWARF (elf/dwreloc.c) ----------
 */

/* RISC-V label differences (.Lb - .La: a call relaxed by the linker, so
 * the assembler leaves R_RISCV_ADDn/SUBn pairs) into a DWARF section:
 * bytes 0, 1, 3, 7 of 1, 2, 4 and 8 bytes; 15 and 18 one byte each (their
 * pairs made SET6/SUB6 and SET_ULEB128/SUB_ULEB128 below, the latter at
 * the 2-byte ULEB128 at 16) */
static const char riscv_pairs_s[] =
    "\t.text\n\t.globl f\n\t.type f,@function\nf:\n"
    ".La:\tcall g\n\tnop\n.Lb:\tret\n\t.size f, .-f\n"
    "\t.section .debug_aranges,\"\",@progbits\n"
    "\t.byte .Lb - .La\n\t.2byte .Lb - .La\n\t.4byte .Lb - .La\n"
    "\t.8byte .Lb - .La\n\t.byte .Lb - .La\n\t.byte 0x80, 0\n"
    "\t.byte .Lb - .La\n";

/* The n bytes of section name of path as readelf -R dumps them, its
 * relocations applied by binutils; false if it printed fewer. */
static bool readelf_relocated(const char *path, const char *name, uint8_t *out,
			      size_t n)
{
	size_t nl, got = 0;
	char **l =
	    lines_of(&nl, "readelf -R '%s' '%s' 2>/dev/null", name, path);

	for (size_t i = 0; i < nl; i++) {
		char *p = strstr(l[i], "0x");
		unsigned int b;

		if (!p || p != l[i] + strspn(l[i], " "))
			continue;
		p += strcspn(p, " ");
		/* up to 4 groups of 8 hex digits, then the characters */
		for (int g = 0; g < 4 && *p == ' ' && p[1] != ' '; g++) {
			p++;
			while (got < n && sscanf(p, "%2x", &b) == 1 &&
			       strchr("0123456789abcdef", *p)) {
				out[got++] = (uint8_t)b;
				p += 2;
			}
			p += strspn(p, "0123456789abcdef");
		}
	}
	free_lines(l, nl);
	return got == n;
}

/* Sets type (and, if off is not -1, r_offset) of the k-th Elf64_Rela
 * (little-endian) of section rname of path. */
static void set_rela(const char *path, const char *rname, size_t k,
		     uint32_t type, int64_t off)
{
	struct elfimg *img;
	uint64_t at;

	assert_int_equal(elfimg_open(path, &img), 0);
	at = sec_by_name(img, rname)->offset + 24 * k;
	elfimg_close(img);
	if (off >= 0)
		write_at(path, at, &off, 8);
	write_at(path, at + 8, &type, 4);
}

/* Sets the r_addend of the k-th Elf64_Rela of .rela.debug_aranges of
 * path. */
static void set_addend(const char *path, size_t k, int64_t a)
{
	struct elfimg *img;
	uint64_t at;

	assert_int_equal(elfimg_open(path, &img), 0);
	at = sec_by_name(img, ".rela.debug_aranges")->offset + 24 * k;
	elfimg_close(img);
	write_at(path, at + 16, &a, 8);
}

static void test_dwarf_pairs(void **state)
{
	const char *o = fx("pairs.o");
	const struct elf_section *s;
	struct elfimg *img;
	uint8_t want[20], *b;
	uint64_t addr;
	uint8_t d;

	(void)state;
	write_text(fx("pairs.s"), riscv_pairs_s);
	if (sh("clang --target=riscv64-linux-gnu -c -o '%s' '%s' 2>/dev/null",
	       o, fx("pairs.s")))
		test_skip("clang cannot assemble for riscv64 (clang)");
	/* the ADD8/SUB8 pairs 4 and 5 (entries 8-11) made SET6/SUB6 and
	 * SET_ULEB128/SUB_ULEB128 (readelf 2.40 applies neither: their
	 * truth is the difference the ADD8/SUB8 pair at 0 gives) */
	set_rela(o, ".rela.debug_aranges", 8, R_RISCV_SET6, -1);
	set_rela(o, ".rela.debug_aranges", 9, R_RISCV_SUB6, -1);
	set_rela(o, ".rela.debug_aranges", 10, 60, 16); /* SET_ULEB128 */
	set_rela(o, ".rela.debug_aranges", 11, 61, 16); /* SUB_ULEB128 */
	assert_int_equal(elfimg_open(o, &img), 0);
	s = sec_by_name(img, ".debug_aranges");
	assert_int_equal(s->size, 19);
	write_at(o, s->offset + 15, "\x40", 1); /* SET6 keeps bits 6, 7 */
	elfimg_close(img);
	if (!readelf_relocated(o, ".debug_aranges", want, 15))
		test_skip("readelf -R does not dump .debug_aranges (binutils)");
	d = want[0];
	assert_true(d > 0 && d < 64);
	assert_int_equal(elfimg_open(o, &img), 0);
	s = sec_by_name(img, ".debug_aranges");
	b = elfimg_section_read(img, s->index);
	assert_non_null(b);
	assert_true(elf_reloc_section(img, s->index, b));
	/* ADD/SUB 8, 16, 32, 64 as binutils applies them */
	assert_memory_equal(b, want, 15);
	assert_int_equal(b[15], 0x40 | d);
	assert_int_equal(b[16], 0x80 | d);
	assert_int_equal(b[17], 0);
	free(b);
	elfimg_close(img);

	/* a ULEB128 that runs past the section's end: refused */
	set_rela(o, ".rela.debug_aranges", 10, 60, 17);
	set_rela(o, ".rela.debug_aranges", 11, 61, 17);
	assert_int_equal(elfimg_open(o, &img), 0);
	s = sec_by_name(img, ".debug_aranges");
	write_at(o, s->offset + 16, "\x00\x80\x80", 3); /* runs off the end */
	b = elfimg_section_read(img, s->index);
	assert_non_null(b);
	assert_false(elf_reloc_section(img, s->index, b));
	free(b);
	elfimg_close(img);

	/* a SUB_ULEB128 alone (its SET_ULEB128 made R_RISCV_NONE): refused,
	 * not subtracted from the bytes in place (5 there, .La + 2 - its
	 * address 2 by the addend: 3 would fit the 2 bytes; only the
	 * pairing rule refuses it) */
	set_rela(o, ".rela.debug_aranges", 10, R_RISCV_NONE, 16);
	set_rela(o, ".rela.debug_aranges", 11, 61, 16);
	assert_int_equal(elfimg_open(o, &img), 0);
	s = sec_by_name(img, ".debug_aranges");
	set_addend(o, 11, 2 - (int64_t)sec_by_name(img, ".text")->addr);
	write_at(o, s->offset + 16, "\x85\x00\x0a", 3);
	b = elfimg_section_read(img, s->index);
	assert_non_null(b);
	assert_false(elf_reloc_section(img, s->index, b));
	free(b);
	elfimg_close(img);

	/* a SET_ULEB128 alone into a 10-byte ULEB128 at 7 (the pairs there
	 * and at 15 made R_RISCV_NONE): .Lb's address (past 7 bits) written
	 * whole, not its low 7 bits alone */
	for (size_t k = 6; k < 12; k++)
		set_rela(o, ".rela.debug_aranges", k, R_RISCV_NONE, -1);
	set_rela(o, ".rela.debug_aranges", 10, 60, 7); /* SET_ULEB128 */
	assert_int_equal(elfimg_open(o, &img), 0);
	s = sec_by_name(img, ".debug_aranges");
	write_at(o, s->offset + 7, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00",
		 10);
	b = elfimg_section_read(img, s->index);
	assert_non_null(b);
	assert_true(elf_reloc_section(img, s->index, b));
	addr = sec_by_name(img, ".text")->addr + 10; /* .Lb */
	assert_true(addr > 0x7f);
	for (size_t i = 0; i < 10; i++) {
		assert_int_equal(b[7 + i] & 0x7f, (addr >> (7 * i)) & 0x7f);
		assert_int_equal(b[7 + i] >> 7, i < 9);
	}
	free(b);
	elfimg_close(img);
}

/* Half a RISC-V pair (ADD8, SUB8 or SET8, entry 0 or 1 of
 * .rela.debug_aranges) made against g, an undefined symbol (its S 0):
 * refused, not applied as a wrong difference. */
static void test_dwarf_undef(void **state)
{
	const char *o = fx("undef.o");
	static const uint32_t types[] = {R_RISCV_ADD8, R_RISCV_SUB8,
					 R_RISCV_SET8};

	(void)state;
	write_text(fx("undef.s"), riscv_pairs_s);
	for (size_t t = 0; t < ARRAY_SIZE(types); t++) {
		const struct elf_section *s;
		struct elfimg *img;
		uint32_t g = 0;
		size_t nl;
		char **l;
		uint8_t *b;

		if (sh("clang --target=riscv64-linux-gnu -c -o '%s' '%s' "
		       "2>/dev/null",
		       o, fx("undef.s")))
			test_skip("clang cannot assemble for riscv64 (clang)");
		/* g's index, as readelf -s lists it undefined */
		l = lines_of(&nl, "readelf -sW '%s'", o);
		for (size_t i = 0; i < nl; i++)
			if (strstr(l[i], " UND g"))
				g = (uint32_t)strtoul(l[i], NULL, 10);
		free_lines(l, nl);
		assert_true(g > 0);
		set_rela(o, ".rela.debug_aranges", t == 1, types[t], -1);
		assert_int_equal(elfimg_open(o, &img), 0);
		write_at(o,
			 sec_by_name(img, ".rela.debug_aranges")->offset +
			     24 * (t == 1) + 12,
			 &g, 4);
		s = sec_by_name(img, ".debug_aranges");
		b = elfimg_section_read(img, s->index);
		assert_non_null(b);
		assert_false(elf_reloc_section(img, s->index, b));
		free(b);
		elfimg_close(img);
	}
}

/* i386's SHT_REL: the addend is the bytes in place (an offset into
 * .debug_str against its section's symbol, at 0; an offset from a
 * global symbol s2 of it, 4 + 6 bytes in, whose value the bytes do not
 * hold), applied as binutils applies it. */
static void test_dwarf_rel32(void **state)
{
	const char *o = fx("rel32.o");
	const struct elf_section *s;
	struct elfimg *img;
	uint8_t want[20], *b;

	(void)state;
	write_text(fx("rel32.s"),
		   "\t.section .debug_str,\"MS\",@progbits,1\n"
		   ".Ls0:\t.string \"abc\"\n.Ls1:\t.string \"defgh\"\n"
		   "\t.globl s2\ns2:\t.string \"ij\"\n"
		   "\t.section .debug_aranges,\"\",@progbits\n"
		   "\t.long .Ls1\n\t.long .Ls0\n\t.long .Ls1 + 2\n"
		   "\t.long s2\n\t.long s2 + 1\n");
	if (sh("cd '%s' && as --32 -o rel32.o rel32.s 2>/dev/null", tmpdir))
		test_skip("as --32 cannot assemble (binutils)");
	if (!readelf_relocated(o, ".debug_aranges", want, 20))
		test_skip("readelf -R does not dump .debug_aranges (binutils)");
	assert_int_equal(elfimg_open(o, &img), 0);
	assert_int_equal(img->elfclass, ELFCLASS32);
	assert_true(sec_by_name(img, ".rel.debug_aranges") != NULL);
	s = sec_by_name(img, ".debug_aranges");
	b = elfimg_section_read(img, s->index);
	assert_non_null(b);
	assert_true(elf_reloc_section(img, s->index, b));
	assert_memory_equal(b, want, 20);
	assert_int_equal(want[12], 10); /* s2, in place 0 */
	free(b);
	elfimg_close(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_read_rela),
	    cmocka_unit_test(test_read_relr),
	    cmocka_unit_test(test_read_32),
	    cmocka_unit_test(test_relr_estimate),
	    cmocka_unit_test(test_charge_rela),
	    cmocka_unit_test(test_charge_relr),
	    cmocka_unit_test(test_lib_exports),
	    cmocka_unit_test(test_charge_symtab),
	    cmocka_unit_test(test_relr_hostile),
	    cmocka_unit_test(test_dwarf_pairs),
	    cmocka_unit_test(test_dwarf_undef),
	    cmocka_unit_test(test_dwarf_rel32),
	};

	return test_run_group(tests, setup, teardown);
}
