// SPDX-License-Identifier: GPL-2.0-or-later
/* test_elf.c — elf/: opening, validation, base map, data sources, debug
 * files, demangling, hostile input.
 *
 * Fixtures are compiled at test time into a temporary directory; ground
 * truth comes from readelf -W (binutils), c++filt and stat(2), never from
 * memsz's own code.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <elf.h>
#include <unistd.h>

#include "elf/elfimg.h"
#include "elf/elfpriv.h"
#include "elf/imagemaps.h"
#include "elf/relocs.h"
#include "report/keys.h"
#include "tests/testutil.h"
#include "util/strbuf.h"
#include "util/util.h"

/* after util.h: its ARRAY_SIZE is the one kept */
#include <libiberty/demangle.h>

static char tmpdir[] = "/tmp/memsz-test-elf.XXXXXX";
static bool have_m32;

/* ---------- helpers ---------- */

static int tokenize(char *line, char **tok, int max)
{
	int n = 0;

	for (char *t = strtok(line, " \t\n"); t && n < max;
	     t = strtok(NULL, " \t\n"))
		tok[n++] = t;
	return n;
}

/* ---------- readelf ground truth ---------- */

struct rsec {
	char name[128];
	char type[32];
	char flags[16];
	uint64_t addr, off, size;
};

struct rseg {
	char type[32];
	char flags[8]; /* as memsz prints them: "RX" */
	uint64_t off, vaddr, filesz, memsz;
};

struct rsym {
	char name[512];
	char type[16], bind[16], ndx[16];
	uint64_t num, value, size;
};

struct truth {
	struct rsec *secs;
	size_t nsecs;
	struct rseg *segs;
	size_t nsegs;
	struct rsym *syms; /* .symtab only */
	size_t nsyms;
	uint64_t shoff, shnum, shentsize, phoff, phnum, phentsize, ehsize;
};

static void truth_free(struct truth *t)
{
	free(t->secs);
	free(t->segs);
	free(t->syms);
}

static void truth_read(const char *path, struct truth *t)
{
	char *out =
	    sh_output("LC_ALL=C readelf -W -h -S -l -s '%s' 2>/dev/null", path);
	size_t cs = 0, cg = 0, cy = 0;
	enum { NONE, SECS, SEGS, SYMS, OTHERSYMS } mode = NONE;
	char *save, *line;

	memset(t, 0, sizeof(*t));
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char copy[1024], *tok[16];
		int n;

		if (sscanf(line, "  Start of section headers: %lu",
			   &t->shoff) == 1 ||
		    sscanf(line, "  Start of program headers: %lu",
			   &t->phoff) == 1 ||
		    sscanf(line, "  Number of section headers: %lu",
			   &t->shnum) == 1 ||
		    sscanf(line, "  Size of section headers: %lu",
			   &t->shentsize) == 1 ||
		    sscanf(line, "  Number of program headers: %lu",
			   &t->phnum) == 1 ||
		    sscanf(line, "  Size of program headers: %lu",
			   &t->phentsize) == 1 ||
		    sscanf(line, "  Size of this header: %lu", &t->ehsize) == 1)
			continue;
		if (strstr(line, "Section Headers:")) {
			mode = SECS;
			continue;
		}
		if (strstr(line, "Program Headers:")) {
			mode = SEGS;
			continue;
		}
		if (strstr(line, "Symbol table '.symtab'")) {
			mode = SYMS;
			continue;
		}
		if (strstr(line, "Symbol table '")) {
			mode = OTHERSYMS;
			continue;
		}
		snprintf(copy, sizeof(copy), "%s", line);
		if (mode == SECS && strstr(line, "  [") == line &&
		    !strstr(line, "[Nr]")) {
			char *rb = strchr(copy, ']');
			struct rsec *s;

			n = tokenize(rb + 1, tok, 16);
			if (n < 9 || strcmp(tok[0], "NULL") == 0)
				continue;
			xgrow(&t->secs, &cs, t->nsecs + 1, sizeof(*t->secs));
			s = &t->secs[t->nsecs++];
			memset(s, 0, sizeof(*s));
			snprintf(s->name, sizeof(s->name), "%s", tok[0]);
			snprintf(s->type, sizeof(s->type), "%s", tok[1]);
			s->addr = strtoull(tok[2], NULL, 16);
			s->off = strtoull(tok[3], NULL, 16);
			s->size = strtoull(tok[4], NULL, 16);
			if (n == 10)
				snprintf(s->flags, sizeof(s->flags), "%s",
					 tok[6]);
		} else if (mode == SEGS) {
			struct rseg *g;

			n = tokenize(copy, tok, 16);
			if (n < 7 || strncmp(tok[1], "0x", 2))
				continue;
			xgrow(&t->segs, &cg, t->nsegs + 1, sizeof(*t->segs));
			g = &t->segs[t->nsegs++];
			memset(g, 0, sizeof(*g));
			snprintf(g->type, sizeof(g->type), "%s", tok[0]);
			g->off = strtoull(tok[1], NULL, 16);
			g->vaddr = strtoull(tok[2], NULL, 16);
			g->filesz = strtoull(tok[4], NULL, 16);
			g->memsz = strtoull(tok[5], NULL, 16);
			for (int i = 6; i < n - 1; i++) {
				if (strchr(tok[i], 'R'))
					strcat(g->flags, "R");
				if (strchr(tok[i], 'W'))
					strcat(g->flags, "W");
				if (strchr(tok[i], 'E'))
					strcat(g->flags, "X");
			}
		} else if (mode == SYMS) {
			struct rsym *y;

			n = tokenize(copy, tok, 16);
			if (n < 7 || !strchr(tok[0], ':'))
				continue;
			xgrow(&t->syms, &cy, t->nsyms + 1, sizeof(*t->syms));
			y = &t->syms[t->nsyms++];
			memset(y, 0, sizeof(*y));
			y->value = strtoull(tok[1], NULL, 16);
			y->size = strtoull(tok[2], NULL, 0);
			snprintf(y->type, sizeof(y->type), "%s", tok[3]);
			snprintf(y->bind, sizeof(y->bind), "%s", tok[4]);
			snprintf(y->ndx, sizeof(y->ndx), "%s", tok[6]);
			y->num = strtoull(tok[0], NULL, 10);
			if (n > 7)
				snprintf(y->name, sizeof(y->name), "%s",
					 tok[7]);
		}
	}
	free(out);
}

/* ---------- map helpers ---------- */

/* Bytes of m labelled name (0 if the label does not exist). */
static uint64_t label_bytes(struct rmap *m, struct labels *lb, const char *name)
{
	uint32_t id = labels_find(lb, name);
	const struct rmap_entry *e;
	uint64_t sum = 0;
	size_t n;

	if (id == LABEL_NONE)
		return 0;
	e = rmap_entries(m, &n);
	for (size_t i = 0; i < n; i++)
		if (e[i].label == id)
			sum += e[i].end - e[i].start;
	return sum;
}

static uint64_t overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	uint64_t s = MAX(a, b), e = MIN(a + alen, b + blen);

	return e > s ? e - s : 0;
}

/* I1: file map covers exactly [0, size); VM map exactly the PT_LOADs. */
static void check_i1(struct dualmap *dm, const struct truth *t, uint64_t fsz)
{
	const struct rmap_entry *e;
	uint64_t vm = 0;
	size_t n;

	assert_int_equal(rmap_check(dm->file), 0);
	assert_int_equal(rmap_check(dm->vm), 0);
	assert_int_equal(map_total(dm->file), fsz);
	assert_true(rmap_covers(dm->file, 0, fsz));
	e = rmap_entries(dm->file, &n);
	if (n)
		assert_true(e[n - 1].end <= fsz);
	for (size_t i = 0; i < t->nsegs; i++) {
		const struct rseg *g = &t->segs[i];

		if (strcmp(g->type, "LOAD"))
			continue;
		vm += g->memsz;
		assert_true(rmap_covers(dm->vm, g->vaddr, g->vaddr + g->memsz));
	}
	if (!vm) {
		/* a relocatable file: its loaded sections, laid out (but
		 * .tbss, which has no place, as in a linked file) */
		for (size_t i = 0; i < t->nsecs; i++) {
			const struct rsec *s = &t->secs[i];

			if (strchr(s->flags, 'A') &&
			    !(strchr(s->flags, 'T') &&
			      !strcmp(s->type, "NOBITS")))
				vm += s->size;
		}
		assert_int_equal(map_total(dm->vm), vm);
		return;
	}
	assert_int_equal(map_total(dm->vm), vm);
	/* every VM entry lies inside some PT_LOAD */
	e = rmap_entries(dm->vm, &n);
	for (size_t i = 0; i < n; i++) {
		bool in = false;

		for (size_t j = 0; j < t->nsegs && !in; j++) {
			const struct rseg *g = &t->segs[j];

			in = !strcmp(g->type, "LOAD") &&
			     e[i].start >= g->vaddr &&
			     e[i].end <= g->vaddr + g->memsz;
		}
		assert_true(in);
	}
}

struct mapped {
	struct elfimg *img;
	struct labels *lb;
	struct dualmap base, src;
	struct elfsrc_stats st;
};

/* VM bytes of label name in m's source map outside the sections that hold
 * metadata the symbols source charges to symbols (unwind tables, dynamic
 * relocations and symbols, version entries): a symbol's own bytes. */
static uint64_t sym_vm_bytes(struct mapped *m, const char *name)
{
	uint32_t id = labels_find(m->lb, name);
	const struct rmap_entry *e;
	uint64_t sum = 0;
	size_t n;

	if (id == LABEL_NONE)
		return 0;
	e = rmap_entries(m->src.vm, &n);
	for (size_t i = 0; i < n; i++) {
		bool meta = false;

		if (e[i].label != id)
			continue;
		for (size_t k = 1; k < m->img->nsecs && !meta; k++) {
			const struct elf_section *s = &m->img->secs[k];

			meta = (s->flags & SHF_ALLOC) &&
			       e[i].start >= s->addr &&
			       e[i].start < s->addr + s->size &&
			       (s->type == SHT_REL || s->type == SHT_RELA ||
				s->type == SHT_RELR || s->type == SHT_DYNSYM ||
				s->type == SHT_GNU_versym ||
				!strcmp(s->name, ".dynstr") ||
				!strcmp(s->name, ".eh_frame") ||
				!strcmp(s->name, ".eh_frame_hdr"));
		}
		if (!meta)
			sum += e[i].end - e[i].start;
	}
	return sum;
}

static int map_image(const char *path, enum elf_source src, struct mapped *m,
		     const char *debug_root)
{
	int ret;

	memset(m, 0, sizeof(*m));
	ret = elfimg_open(path, &m->img);
	if (ret)
		return ret;
	if (debug_root)
		elfimg_find_debug(m->img, debug_root);
	m->lb = labels_new();
	dualmap_init(&m->base);
	dualmap_init(&m->src);
	assert_int_equal(elfimg_base_map(m->img, m->lb, &m->base), 0);
	return elfimg_source_map(m->img, src, NULL, m->lb, &m->base, &m->src,
				 &m->st);
}

static void unmap_image(struct mapped *m)
{
	dualmap_free(&m->base);
	dualmap_free(&m->src);
	labels_free(m->lb);
	elfimg_close(m->img);
}

/* The full battery against readelf for one image and every source. */
static void check_image(const char *path, const char *symprefix)
{
	uint64_t fsz = file_size(path);
	struct truth t;
	struct mapped m;
	const struct rseg *tls = NULL;

	truth_read(path, &t);
	assert_true(t.nsecs > 0);

	/* base map */
	assert_int_equal(map_image(path, ELFSRC_SEGMENTS, &m, NULL), 0);
	check_i1(&m.base, &t, fsz);
	assert_int_equal(m.img->nsegs, t.nsegs);
	assert_int_equal(m.img->nsecs, t.nsecs + 1);
	assert_int_equal(m.img->ehdr_size, t.ehsize);
	for (size_t i = 0; i < t.nsegs; i++)
		if (!strcmp(t.segs[i].type, "TLS"))
			tls = &t.segs[i];

	/* segments */
	check_i1(&m.src, &t, fsz);
	for (size_t i = 0; i < t.nsegs; i++) {
		const struct rseg *g = &t.segs[i];
		char label[64];
		uint64_t tf = 0, tv = 0;

		if (strcmp(g->type, "LOAD"))
			continue;
		snprintf(label, sizeof(label), "LOAD #%zu [%s]", i, g->flags);
		if (tls) {
			tf = overlap(tls->off, tls->filesz, g->off, g->filesz);
			tv = overlap(tls->vaddr, tls->filesz, g->vaddr,
				     g->memsz);
		}
		/* the header tables inside it are rows of their own */
		{
			const uint64_t ho[3] = {0, t.phoff, t.shoff};
			const uint64_t hs[3] = {t.ehsize, t.phnum * t.phentsize,
						t.shnum * t.shentsize};

			for (int k = 0; k < 3; k++)
				if (hs[k] && ho[k] >= g->off &&
				    ho[k] + hs[k] <= g->off + g->filesz) {
					tf += hs[k];
					tv += hs[k];
				}
		}
		/* the base map: the whole segment */
		assert_int_equal(label_bytes(m.base.vm, m.lb, label), g->memsz);
		assert_int_equal(label_bytes(m.src.file, m.lb, label) + tf,
				 g->filesz);
		assert_int_equal(label_bytes(m.src.vm, m.lb, label) + tv,
				 g->memsz);
	}
	if (tls) {
		assert_int_equal(label_bytes(m.src.file, m.lb, "TLS"),
				 tls->filesz);
		assert_int_equal(label_bytes(m.src.vm, m.lb, "TLS"),
				 tls->filesz);
	}
	/* the section header table lies outside every segment */
	assert_int_equal(label_bytes(m.src.file, m.lb, "[ELF Section Headers]"),
			 t.shnum * t.shentsize);
	unmap_image(&m);

	/* sections */
	assert_int_equal(map_image(path, ELFSRC_SECTIONS, &m, NULL), 0);
	check_i1(&m.src, &t, fsz);
	for (size_t i = 0; i < t.nsecs; i++) {
		const struct rsec *s = &t.secs[i];
		bool nobits = !strcmp(s->type, "NOBITS");
		bool alloc = strchr(s->flags, 'A') != NULL;
		bool tlsf = strchr(s->flags, 'T') != NULL;
		bool dup = false, ovl = false;

		if (!s->size)
			continue;
		for (size_t j = 0; j < t.nsecs; j++) {
			const struct rsec *o = &t.secs[j];

			if (j == i)
				continue;
			dup |= !strcmp(o->name, s->name);
			ovl |= !nobits && strcmp(o->type, "NOBITS") &&
			       overlap(o->off, o->size, s->off, s->size);
		}
		if (dup || ovl)
			continue;
		if (!nobits)
			assert_int_equal(label_bytes(m.src.file, m.lb, s->name),
					 s->size);
		else
			assert_int_equal(label_bytes(m.src.file, m.lb, s->name),
					 0);
		if (alloc && !(nobits && tlsf) && m.img->vm_size)
			assert_int_equal(label_bytes(m.src.vm, m.lb, s->name),
					 s->size);
		else
			assert_int_equal(label_bytes(m.src.vm, m.lb, s->name),
					 0);
	}
	unmap_image(&m);

	/* symbols */
	assert_int_equal(map_image(path, ELFSRC_SYMBOLS, &m, NULL), 0);
	check_i1(&m.src, &t, fsz);
	if (symprefix) {
		size_t checked = 0;

		for (size_t i = 0; i < t.nsyms; i++) {
			const struct rsym *y = &t.syms[i];
			bool alias = false;

			if (strncmp(y->name, symprefix, strlen(symprefix)) ||
			    !y->size || strcmp(y->ndx, "UND") == 0 ||
			    (strcmp(y->type, "FUNC") &&
			     strcmp(y->type, "OBJECT")))
				continue;
			if (labels_find(m.lb, y->name) != LABEL_NONE) {
				/* same name, other ranges: one label (as
				 * Bloaty): the sizes add up */
				uint64_t want = y->size;

				for (size_t j = 0; j < t.nsyms; j++)
					if (j != i && t.syms[j].size &&
					    t.syms[j].value != y->value &&
					    !strcmp(t.syms[j].name, y->name))
						want += t.syms[j].size;
				assert_int_equal(sym_vm_bytes(&m, y->name),
						 want);
				checked++;
				continue;
			}
			/* not a label: alias of a symbol of the same range */
			for (size_t j = 0; j < t.nsyms && !alias; j++) {
				const struct rsym *z = &t.syms[j];
				const char *const *al;
				uint32_t id;
				size_t na;

				if (j == i || z->value != y->value ||
				    z->size != y->size)
					continue;
				id = labels_find(m.lb, z->name);
				if (id == LABEL_NONE)
					continue;
				al = labels_aliases(m.lb, id, &na);
				for (size_t k = 0; k < na; k++)
					alias |= !strcmp(al[k], y->name);
			}
			assert_true(alias);
		}
		assert_true(checked > 0);
	}
	unmap_image(&m);
	truth_free(&t);
}

/* ---------- fixtures ---------- */

static const char fx_c[] =
    "#include <stdio.h>\n"
    "int fx_data[1000] = {1};\n"
    "int fx_bss[2000];\n"
    "const char fx_ro[3000] = \"fx\";\n"
    "__thread int fx_tls_init = 5;\n"
    "__thread char fx_tls_zero[256];\n"
    "static int fx_static(int x) { return x * 7 + fx_data[x & 7]; }\n"
    "__attribute__((noinline)) static int fx_dup(int x)\n"
    "{ return x * 11 + fx_data[x & 15]; }\n"
    "int fx_other(int x);\n"
    "int fx_func_a(int x) { return fx_static(x) + fx_ro[x & 3] + OTHER; }\n"
    "int fx_func_b(int x) __attribute__((alias(\"fx_func_a\")));\n"
    "__attribute__((weak)) int fx_weak(int x) { return x + 1; }\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "  fx_bss[argc] = fx_func_a(argc) + fx_func_b(argc) + fx_weak(argc) +\n"
    "    fx_dup(argc) + fx_other(argc);\n"
    "  fx_tls_zero[argc] = fx_tls_init;\n"
    "  printf(\"%d %s\\n\", fx_bss[argc], argv[0]);\n"
    "  return fx_tls_zero[1];\n"
    "}\n";

static const char fxx_cc[] =
    "#include <vector>\n"
    "#include <string>\n"
    "namespace fxns {\n"
    "template <class T> struct Box { T v[16]; T get(int i) const; };\n"
    "template <class T> T Box<T>::get(int i) const { return v[i & 15]; }\n"
    "template struct Box<int>;\n"
    "template struct Box<double>;\n"
    "int total(const std::vector<int> &v, const std::string &s)\n"
    "{ int t = 0; for (int x : v) t += x; return t + s.size(); }\n"
    "Box<long> table;\n"
    "}\n"
    "int main(int argc, char **argv)\n"
    "{ std::vector<int> v(argc, 3); fxns::Box<int> b{};\n"
    "  return fxns::total(v, argv[0]) + b.get(argc) +\n"
    "         (int)fxns::table.v[argc]; }\n";

static const char fx_other_c[] =
    "__attribute__((noinline)) static int fx_dup(int x)\n"
    "{ volatile int y = x; return y * 3 + 1000; }\n"
    "int fx_other(int x) { return fx_dup(x) * fx_dup(x + 1); }\n";

/* a freestanding program: links with -m32 without a 32-bit libc */
static const char fs_c[] =
    "int fs_data[100] = {1};\n"
    "int fs_bss[50];\n"
    "__thread int fs_tls = 3;\n"
    "int fs_func(int x) { return x * 3 + fs_data[x]; }\n"
    "void _start(void) { for (;;) fs_func(fs_bss[0] + fs_tls); }\n";

static const char *byteswap_script(void)
{
	static char path[1024];
	const char *top = getenv("top_srcdir");

	/* make check exports top_srcdir; run by hand, the configured one */
	snprintf(path, sizeof(path), "%s/tests/elf-fixtures/elf-byteswap.py",
		 top && top[0] == '/' ? top : ELF_TEST_SRCDIR);
	return path;
}

static int group_setup(void **state)
{
	(void)state;
	if (tmpdir_make(tmpdir))
		return -1;
	chmod(tmpdir, 0755);
	write_text(fx("fx.c"), fx_c);
	write_text(fx("fxx.cc"), fxx_cc);
	write_text(fx("fs.c"), fs_c);
	write_text(fx("fx_other.c"), fx_other_c);
	if (sh("cd %s && gcc -O1 -g -DOTHER=0 -o fx fx.c fx_other.c && "
	       "gcc -O1 -g -DOTHER=1 -o fx2 fx.c fx_other.c && "
	       "gcc -O1 -Wl,--build-id=none -DOTHER=2 -o fxnb fx.c "
	       "fx_other.c && "
	       "g++ -O1 -o fxx fxx.cc && "
	       "gcc -O1 -nostdlib -static -o fs64 fs.c && "
	       "python3 %s fs64 fs64be",
	       tmpdir, byteswap_script()))
		return -1;
	have_m32 = sh("cd %s && gcc -m32 -O1 -nostdlib -static -o fs32 fs.c "
		      "2>/dev/null && python3 %s fs32 fs32be",
		      tmpdir, byteswap_script()) == 0;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	tmpdir_remove();
	return 0;
}

/* ---------- tests: well-formed images ---------- */

static void test_open_fields(void **state)
{
	struct elfimg *img;
	char hex[130], *out;

	(void)state;
	assert_int_equal(elfimg_open(fx("fx"), &img), 0);
	assert_int_equal(img->elfclass, ELFCLASS64);
	assert_false(img->big_endian);
	assert_int_equal(img->file_size, file_size(fx("fx")));
	out = sh_output("LC_ALL=C readelf -n '%s' | sed -n 's/.*Build ID: //p'",
			fx("fx"));
	out[strcspn(out, "\n")] = 0;
	assert_true(img->build_id_len > 0);
	assert_string_equal(elfimg_build_id_hex(img, hex, sizeof(hex)), out);
	free(out);
	elfimg_close(img);
	elfimg_close(NULL);
}

/* elf_build_id_read() against readelf -n: sections, PT_NOTE only (section
 * header fields zeroed), big-endian, cut to max, none, not ELF. */
static void check_build_id_fd(const char *path, size_t max)
{
	uint8_t id[64];
	char hex[130], *want;
	int fd, n;

	want = sh_output("LC_ALL=C readelf -n '%s' | "
			 "sed -n 's/.*Build ID: //p'",
			 path);
	want[strcspn(want, "\n")] = 0;
	assert_true(strlen(want) >= 2 * max);
	want[2 * max] = 0;
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = elf_build_id_read(fd, id, max);
	close(fd);
	assert_int_equal(n, max);
	for (int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * n] = 0;
	assert_string_equal(hex, want);
	free(want);
}

/* A miss is cached per debug root: the file created after the first
 * search is not seen with the same root, but is under another one. */
static void test_debug_search_cached(void **state)
{
	struct elfimg *img;
	char hex[130];

	(void)state;
	assert_int_equal(elfimg_open(fx("fx"), &img), 0);
	elfimg_build_id_hex(img, hex, sizeof(hex));
	assert_int_equal(elfimg_find_debug(img, fx("late")), 0);
	assert_false(img->debug_rejected);
	assert_int_equal(sh("cd %s && mkdir -p late/.build-id/%.2s && "
			    "objcopy --only-keep-debug fx "
			    "late/.build-id/%.2s/%s.debug && "
			    "cp -r late late2",
			    tmpdir, hex, hex, hex + 2),
			 0);
	assert_int_equal(elfimg_find_debug(img, fx("late")), 0);
	assert_null(img->debug);
	assert_int_equal(elfimg_find_debug(img, fx("late2")), 1);
	assert_non_null(img->debug);
	assert_int_equal(elfimg_find_debug(img, fx("late2")), 1);
	elfimg_close(img);
}

/* elf_relocs_get() decodes once: the same array on every call, equal to
 * elf_relocs_read()'s. */
static void test_relocs_get_once(void **state)
{
	const struct elf_reloc *a, *b;
	struct elf_reloc *r;
	struct elfimg *img;
	size_t na, nb, n;

	(void)state;
	assert_int_equal(elfimg_open(fx("fx"), &img), 0);
	assert_int_equal(elf_relocs_read(img, &r, &n), 0);
	assert_true(n > 0);
	assert_int_equal(elf_relocs_get(img, &a, &na), 0);
	assert_int_equal(elf_relocs_get(img, &b, &nb), 0);
	assert_ptr_equal(a, b);
	assert_int_equal(na, n);
	assert_int_equal(nb, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(a[i].target, r[i].target);
		assert_int_equal(a[i].entry_off, r[i].entry_off);
		assert_int_equal(a[i].type, r[i].type);
	}
	free(r);
	elfimg_close(img);
}

static void test_build_id_read(void **state)
{
	uint8_t id[64];
	int fd;

	(void)state;
	check_build_id_fd(fx("fx"), 20);
	check_build_id_fd(fx("fx"), 4);
	check_build_id_fd(fx("fs64be"), 20);
	/* no section headers: e_shoff, e_shnum, e_shstrndx zeroed */
	assert_int_equal(sh("cd %s && cp fx fxnoshdr && python3 -c \""
			    "import struct; f=open('fxnoshdr','r+b'); "
			    "f.seek(40); f.write(struct.pack('<Q',0)); "
			    "f.seek(60); f.write(struct.pack('<HH',0,0))\"",
			    tmpdir),
			 0);
	check_build_id_fd(fx("fxnoshdr"), 20);
	fd = open(fx("fxnb"), O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(elf_build_id_read(fd, id, sizeof(id)), 0);
	close(fd);
	fd = open(fx("fx.c"), O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(elf_build_id_read(fd, id, sizeof(id)), -MEMSZ_ENOTELF);
	close(fd);
}

static void test_fx_dynamic(void **state)
{
	(void)state;
	check_image(fx("fx"), "fx_");
}

static void test_fs_static64(void **state)
{
	(void)state;
	check_image(fx("fs64"), "fs_");
}

static void test_big_endian(void **state)
{
	struct elfimg *img;

	(void)state;
	assert_int_equal(elfimg_open(fx("fs64be"), &img), 0);
	assert_true(img->big_endian);
	assert_int_equal(img->elfclass, ELFCLASS64);
	assert_true(img->build_id_len > 0);
	elfimg_close(img);
	check_image(fx("fs64be"), "fs_");
}

static void test_elf32(void **state)
{
	struct elfimg *img;

	(void)state;
	if (!have_m32) {
		test_skip("gcc -m32 cannot link (gcc-multilib)");
	}
	assert_int_equal(elfimg_open(fx("fs32"), &img), 0);
	assert_int_equal(img->elfclass, ELFCLASS32);
	assert_false(img->big_endian);
	elfimg_close(img);
	check_image(fx("fs32"), "fs_");
	assert_int_equal(elfimg_open(fx("fs32be"), &img), 0);
	assert_int_equal(img->elfclass, ELFCLASS32);
	assert_true(img->big_endian);
	elfimg_close(img);
	check_image(fx("fs32be"), "fs_");
}

static void test_base_map_labels(void **state)
{
	struct mapped m;
	struct truth t;

	(void)state;
	truth_read(fx("fx"), &t);
	assert_int_equal(map_image(fx("fx"), ELFSRC_SECTIONS, &m, NULL), 0);
	/* header at 0, section headers at the end, in the base file map */
	assert_int_equal(rmap_lookup(m.base.file, 0, NULL),
			 labels_find(m.lb, "[ELF Header]"));
	assert_int_equal(label_bytes(m.base.file, m.lb, "[ELF Header]"),
			 t.ehsize);
	assert_int_equal(
	    label_bytes(m.base.file, m.lb, "[ELF Program Headers]"),
	    t.phnum * t.phentsize);
	assert_int_equal(
	    label_bytes(m.base.file, m.lb, "[ELF Section Headers]"),
	    t.shnum * t.shentsize);
	/* each LOAD's VM translates to its file offset */
	for (size_t i = 0; i < t.nsegs; i++) {
		const struct rseg *g = &t.segs[i];
		uint64_t off;

		if (strcmp(g->type, "LOAD") || !g->filesz)
			continue;
		assert_true(
		    rmap_translate(m.base.vm, g->vaddr + g->filesz - 1, &off));
		assert_int_equal(off, g->off + g->filesz - 1);
		if (g->memsz > g->filesz)
			assert_false(rmap_translate(
			    m.base.vm, g->vaddr + g->filesz, &off));
	}
	unmap_image(&m);
	truth_free(&t);
}

static void test_aliases(void **state)
{
	struct mapped m;
	const char *const *al;
	uint32_t id;
	size_t n;
	bool found = false;

	(void)state;
	assert_int_equal(map_image(fx("fx"), ELFSRC_SYMBOLS, &m, NULL), 0);
	/* readelf: fx_func_a and fx_func_b share value and size */
	char *out = sh_output("LC_ALL=C readelf -W -s '%s' | "
			      "awk '$8==\"fx_func_a\"||$8==\"fx_func_b\" "
			      "{print $2, $3}' | sort -u | wc -l",
			      fx("fx"));
	assert_string_equal(out, "1\n");
	free(out);
	id = labels_find(m.lb, "fx_func_a");
	assert_int_not_equal(id, LABEL_NONE);
	assert_int_equal(labels_find(m.lb, "fx_func_b"), LABEL_NONE);
	al = labels_aliases(m.lb, id, &n);
	for (size_t i = 0; i < n; i++)
		found |= !strcmp(al[i], "fx_func_b");
	assert_true(found);
	assert_true(m.st.aliases >= 1);
	/* TLS symbols hold offsets into PT_TLS: a .tdata one owns its
	 * initialiser (readelf's size), a .tbss one no VM */
	out = sh_output("LC_ALL=C readelf -W -s '%s' | "
			"awk '$8==\"fx_tls_init\" {print $3; exit}'",
			fx("fx"));
	assert_int_equal(label_bytes(m.src.vm, m.lb, "fx_tls_init"),
			 strtoull(out, NULL, 10));
	assert_true(strtoull(out, NULL, 10) > 0);
	free(out);
	assert_int_equal(label_bytes(m.src.vm, m.lb, "fx_tls_zero"), 0);
	assert_true(m.st.symbols > 5);
	assert_false(m.st.used_dynsym);
	assert_false(m.st.used_debug_file);
	unmap_image(&m);
}

static void test_cxx_demangled(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct mapped m;
	struct truth t;
	char *names, *line, *save;
	size_t checked = 0;
	FILE *f;

	(void)state;
	truth_read(fx("fxx"), &t);
	assert_int_equal(map_image(fx("fxx"), ELFSRC_SYMBOLS, &m, NULL), 0);
	check_i1(&m.src, &t, file_size(fx("fxx")));
	f = fopen(fx("mangled.txt"), "w");
	for (size_t i = 0; i < t.nsyms; i++)
		fprintf(f, "%s\n", t.syms[i].name[0] ? t.syms[i].name : "-");
	fclose(f);
	names = sh_output("c++filt < '%s'", fx("mangled.txt"));
	line = strtok_r(names, "\n", &save);
	for (size_t i = 0; i < t.nsyms && line;
	     i++, line = strtok_r(NULL, "\n", &save)) {
		const struct rsym *y = &t.syms[i];

		if (strncmp(y->name, "_Z", 2) || !strstr(y->name, "4fxns") ||
		    !y->size ||
		    (strcmp(y->type, "FUNC") && strcmp(y->type, "OBJECT")))
			continue;
		char *dm = elf_demangle(y->name);
		assert_non_null(dm);
		assert_string_equal(dm, line);
		free(dm);
		/* the same through one buffer, emptied by a name that
		 * does not demangle between two that do */
		assert_true(elf_demangle_to(y->name, ELF_DEMANGLE_FULL, &sb));
		assert_string_equal(sb.buf, line);
		assert_false(
		    elf_demangle_to("_Zgarbage!", ELF_DEMANGLE_FULL, &sb));
		assert_int_equal(sb.len, 0);
		assert_int_equal(sym_vm_bytes(&m, line), y->size);
		assert_true(strstr(line, "fxns::") != NULL);
		checked++;
	}
	assert_true(checked >= 4);
	assert_null(elf_demangle("main"));
	assert_null(elf_demangle("_Zgarbage!"));
	assert_false(elf_demangle_to("main", ELF_DEMANGLE_FULL, &sb));
	assert_int_equal(sb.len, 0);
	strbuf_free(&sb);
	free(names);
	unmap_image(&m);
	truth_free(&t);
}

/* Real Rust names (v0 from rustc's own libraries, legacy from a program
 * built with -C symbol-mangling-version=legacy): each must read as
 * c++filt prints it once c++filt's extras are taken out (crate hashes
 * "[0123abcd]", the legacy "::h<hash>", the ": usize" type of a constant),
 * which is what rustfilt shows. */
/* A v0 name "alloc::foo::<A0, A1, ...>" of k generic arguments, where A0
 * is a tuple holding a crate named in punycode and each next A is the
 * tuple (A, A) of the one before, by back-reference: its output doubles
 * with each argument. */
static char *rust_bomb_name(int k)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char buf[2048] = "INvCs1234_5alloc3foo";
	size_t len = strlen(buf), prev = 0;

	for (int i = 0; i < k; i++) {
		char ref[16];
		size_t at = len, r = sizeof(ref) - 1, n = prev - 1;

		if (i == 0) {
			len += snprintf(buf + len, sizeof(buf) - len,
					"TCu30_"
					"___7hkackfecea1cbdathfdh9hlq6yE");
			prev = at;
			continue;
		}
		/* base 62 of prev - 1, then '_' (prev is never 0) */
		ref[r] = 0;
		ref[--r] = '_';
		do {
			ref[--r] = digits[n % 62];
			n /= 62;
		} while (n);
		len += snprintf(buf + len, sizeof(buf) - len, "TB%sB%sE",
				ref + r, ref + r);
		prev = at;
	}
	assert_true(len + 1 < sizeof(buf));
	return xasprintf("_R%sE", buf);
}

static void test_rust_demangled(void **state)
{
	static const char *const names[] = {
	    "_RNvXs_NtCsgEmfK2I1SDS_4core3anyDNtB4_3AnyEL_NtNtB6_"
	    "3fmt5Debug3fmt",
	    "_RNvXs0_NtNtCs7OxSQD10jZQ_18tracing_subscriber3fmt4timeFG0_QL1_"
	    "INtNtB7_6format6WriterL0_EEINtNtCsgEmfK2I1SDS_4core6result6"
	    "ResultuNtNtB1u_3fmt5ErrorENtB5_10FormatTime11format_time",
	    "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecTOhFUKCBN_Eu"
	    "ENtNtCsjrHSEGnQ3l9_3std5alloc6SystemE8grow_oneB13_",
	    "_RINvNtCsgEmfK2I1SDS_4core9panicking13assert_failedONtNtB4_3ffi"
	    "6c_voidBM_ECs2N2TEQjwqGk_7stacker",
	    "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecINtNtB7_5boxed"
	    "3BoxDINtNtNtCsgEmfK2I1SDS_4core3ops8function5FnMutuEp6Output"
	    "INtNtB1c_6result6ResultuNtNtNtCsjrHSEGnQ3l9_3std2io5error5Error"
	    "ENtNtB1c_6marker4SyncNtB32_4SendEL_EE8grow_oneB2s_",
	    "_RNvXs_NtCsfqPBR87PSkx_9rustc_hir10intravisitzNtB4_9HirTyCtxt8"
	    "hir_body",
	    "_RNvXs8_NtCsfoXig8kEbyV_12simd_adler324hashAhj8_NtB7_11Adler32"
	    "Hash4hash",
	    "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h8cd93d847"
	    "1d054beE",
	    "_ZN42_$LT$$RF$T$u20$as$u20$core..fmt..Debug$GT$3fmt17h14ab7e4a3"
	    "3641fa3E",
	    "_ZN4core3ptr110drop_glue$LT$std..collections..hash..map..HashMap"
	    "$LT$alloc..string..String$C$alloc..vec..Vec$LT$u8$GT$$GT$$GT$17h"
	    "9609bf1ab3991671E",
	    "_ZN9hashbrown3raw21RawTable$LT$T$C$A$GT$14reserve_rehash17hb5b610"
	    "3bfce6abbfE.llvm.1234567890",
	};
	char *dm;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *want = sh_output(
		    "echo '%s' | c++filt | sed -E "
		    "-e 's/\\[[0-9a-f]+\\]//g' -e 's/::h[0-9a-f]{16}//' "
		    "-e 's/\\.llvm\\.[0-9]+$//' "
		    "-e 's/([0-9]): (u|i)(8|16|32|64|128|size)/\\1/g'",
		    names[i]);

		want[strcspn(want, "\n")] = 0;
		dm = elf_demangle(names[i]);
		assert_non_null(dm);
		assert_string_equal(dm, want);
		free(dm);
		free(want);
	}
	/* spelled out from the v0 grammar and the legacy escapes */
	dm = elf_demangle(names[0]);
	assert_string_equal(dm,
			    "<dyn core::any::Any as core::fmt::Debug>::fmt");
	free(dm);
	dm = elf_demangle(names[1]);
	assert_string_equal(dm,
			    "<for<'a, 'b> fn(&'a mut tracing_subscriber::"
			    "fmt::format::Writer<'b>) -> core::result::"
			    "Result<(), core::fmt::Error> as tracing_"
			    "subscriber::fmt::time::FormatTime>::format_time");
	free(dm);
	dm = elf_demangle(names[8]);
	assert_string_equal(dm, "<&T as core::fmt::Debug>::fmt");
	free(dm);
	/* not Rust: a C++ name whose last component is not a hash, and a
	 * v0 name cut short */
	dm = elf_demangle("_ZN3foo3barE");
	assert_string_equal(dm, "foo::bar");
	free(dm);
	assert_null(elf_demangle("_RNvCs1234_5alloc"));
	/* a ".cold" part keeps its suffix (c++filt drops it); a punycode
	 * identifier reads as Unicode */
	dm = elf_demangle("_ZN3std2rt10lang_start17h8cd93d8471d054beE.cold");
	assert_string_equal(dm, "std::rt::lang_start.cold");
	free(dm);
	dm = elf_demangle("_RNvCs1234_5alloc3foo.cold");
	assert_string_equal(dm, "alloc::foo.cold");
	free(dm);
	dm = elf_demangle("_RNqCs4fqI2P2rA04_11utf8_identsu30____"
			  "7hkackfecea1cbdathfdh9hlq6y");
	assert_string_equal(dm, "utf8_idents::"
				"\u10e1\u10d0\u10ed\u10db\u10d4\u10da\u10d0"
				"\u10d3_\u10d2\u10d4\u10db\u10e0\u10d8\u10d4"
				"\u10da\u10d8_\u10e1\u10d0\u10d3\u10d8\u10da"
				"\u10d8");
	free(dm);
	/* a v0 name whose back-references double its output 40 times,
	 * punycode in the doubled part: past the bound, left alone */
	dm = rust_bomb_name(40);
	assert_null(elf_demangle(dm));
	{
		/* a buffer that went past the bound is empty, and of use
		 * again */
		struct strbuf sb = STRBUF_INIT;

		assert_false(elf_demangle_to(dm, ELF_DEMANGLE_FULL, &sb));
		assert_int_equal(sb.len, 0);
		assert_true(
		    elf_demangle_to("_ZN3foo3barE", ELF_DEMANGLE_FULL, &sb));
		assert_string_equal(sb.buf, "foo::bar");
		strbuf_free(&sb);
	}
	free(dm);
	dm = rust_bomb_name(3);
	{
		char *small = elf_demangle(dm);

		assert_non_null(small);
		assert_non_null(strstr(small, "((("));
		free(small);
	}
	free(dm);
	/* a versioned C++ name demangles up to the '@', as c++filt does */
	dm = elf_demangle("_ZSt4cout@@GLIBCXX_3.4");
	assert_string_equal(dm, "std::cout@@GLIBCXX_3.4");
	free(dm);
}

/* Names near the legacy Rust shape: each one libiberty's Rust demangler
 * reads is read as Rust (elf_demangle() hands only names with the hash
 * segment where libiberty looks for it to that demangler), and each other
 * one as libiberty's C++ demangler reads it. */
static void test_rust_prefilter(void **state)
{
	static const char *const names[] = {
	    "_ZN1a17h0123456789abcdefE",
	    "_ZN1a17h0123456789abcdefE.cold",
	    "_ZN1a17h0123456789abcdefE.llvm.42",
	    "_ZN1a17h0123456789abcdefE.1.x",
	    "_ZN3foo3bar17h0123456789abcdefE",
	    "_ZN3foo3bar17h0123456789abcdefE.E.x",
	    "_ZN3foo3bar17h0123456789abcdefE.E",
	    "_ZN3foo3bar17h0123456789abcdeE",
	    "_ZN3foo3bar17h0123456789ABCDEFE",
	    "_ZN3foo3bar17g0123456789abcdefE",
	    "_ZN17h0123456789abcdefE",
	    "_ZN3foo3barE17h0123456789abcdefE",
	    "_ZN3foo3barEv",
	    "_ZN3foo3barEv.cold",
	    "_ZNK3foo3barEv.isra.0",
	};
	size_t rust_read = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *rust = rust_demangle(names[i], 0);
		char *cxx = cplus_demangle(names[i], DMGL_PARAMS | DMGL_ANSI |
							 DMGL_VERBOSE);
		char *dm = elf_demangle(names[i]);

		if (rust) {
			/* its ".suffix" kept after libiberty's text */
			assert_non_null(dm);
			assert_int_equal(strncmp(dm, rust, strlen(rust)), 0);
			rust_read++;
		} else if (cxx) {
			assert_string_equal(dm, cxx);
		} else {
			assert_null(dm);
		}
		free(rust);
		free(cxx);
		free(dm);
	}
	/* the first five: a list libiberty reads differently proves less */
	assert_int_equal(rust_read, 5);
}

/* ---------- separate debug files ---------- */

static void test_debuglink(void **state)
{
	struct mapped m;
	struct truth t;
	struct elfimg *img;

	(void)state;
	assert_int_equal(sh("cd %s && mkdir -p dl empty && "
			    "objcopy --only-keep-debug fx dl/fx.debug && "
			    "objcopy --strip-all "
			    "--add-gnu-debuglink=dl/fx.debug fx dl/fx.stripped",
			    tmpdir),
			 0);
	assert_int_equal(elfimg_open(fx("dl/fx.stripped"), &img), 0);
	assert_string_equal(img->debuglink, "fx.debug");
	assert_int_equal(elfimg_find_debug(img, fx("empty")), 1);
	assert_non_null(img->debug);
	elfimg_close(img);

	/* symbols come from the debug file, sized as readelf says in fx */
	truth_read(fx("fx"), &t);
	assert_int_equal(
	    map_image(fx("dl/fx.stripped"), ELFSRC_SYMBOLS, &m, fx("empty")),
	    0);
	assert_true(m.st.used_debug_file);
	for (size_t i = 0; i < t.nsyms; i++) {
		const struct rsym *y = &t.syms[i];

		if (!strcmp(y->name, "fx_data") || !strcmp(y->name, "fx_ro") ||
		    !strcmp(y->name, "fx_bss") || !strcmp(y->name, "fx_weak"))
			assert_int_equal(sym_vm_bytes(&m, y->name), y->size);
	}
	truth_free(&t);
	truth_read(fx("dl/fx.stripped"), &t);
	check_i1(&m.src, &t, file_size(fx("dl/fx.stripped")));
	truth_free(&t);
	unmap_image(&m);

	/* without the debug file: .dynsym */
	assert_int_equal(
	    map_image(fx("dl/fx.stripped"), ELFSRC_SYMBOLS, &m, NULL), 0);
	assert_false(m.st.used_debug_file);
	assert_true(m.st.used_dynsym);
	unmap_image(&m);

	/* a debug file of another build under the link name is refused */
	assert_int_equal(sh("cd %s && mkdir -p dlw && "
			    "objcopy --only-keep-debug fx2 dlw/fx.debug && "
			    "cp dl/fx.stripped dlw/",
			    tmpdir),
			 0);
	assert_int_equal(elfimg_open(fx("dlw/fx.stripped"), &img), 0);
	assert_int_equal(elfimg_find_debug(img, fx("empty")), 0);
	assert_null(img->debug);
	elfimg_close(img);
}

static void test_debug_build_id(void **state)
{
	struct elfimg *img;
	char hex[130];

	(void)state;
	assert_int_equal(elfimg_open(fx("fx"), &img), 0);
	elfimg_build_id_hex(img, hex, sizeof(hex));
	elfimg_close(img);
	assert_int_equal(sh("cd %s && mkdir -p root/.build-id/%.2s "
			    "bad/.build-id/%.2s nolink && "
			    "objcopy --strip-all fx nolink/fx && "
			    "objcopy --only-keep-debug fx "
			    "root/.build-id/%.2s/%s.debug && "
			    "objcopy --only-keep-debug fx2 "
			    "bad/.build-id/%.2s/%s.debug",
			    tmpdir, hex, hex, hex, hex + 2, hex, hex + 2),
			 0);
	assert_int_equal(elfimg_open(fx("nolink/fx"), &img), 0);
	assert_null(img->debuglink);
	assert_int_equal(elfimg_find_debug(img, fx("bad")), 0);
	assert_null(img->debug);
	assert_int_equal(elfimg_find_debug(img, fx("root")), 1);
	assert_non_null(img->debug);
	assert_memory_equal(img->debug->build_id, img->build_id,
			    img->build_id_len);
	elfimg_close(img);

	struct mapped m;
	struct truth t;

	truth_read(fx("fx"), &t);
	assert_int_equal(
	    map_image(fx("nolink/fx"), ELFSRC_SYMBOLS, &m, fx("root")), 0);
	assert_true(m.st.used_debug_file);
	for (size_t i = 0; i < t.nsyms; i++)
		if (!strcmp(t.syms[i].name, "fx_func_a") ||
		    !strcmp(t.syms[i].name, "fx_bss"))
			assert_int_equal(sym_vm_bytes(&m, t.syms[i].name),
					 t.syms[i].size);
	truth_free(&t);
	unmap_image(&m);
}

static int open_code(const char *path)
{
	struct elfimg *img = NULL;
	int ret = elfimg_open(path, &img);

	if (ret == 0)
		elfimg_close(img);
	return ret;
}

/* A FIFO is refused at once, never waited on: given directly, and named by
 * a .gnu_debuglink (SIGALRM fails the test if open() blocks). */
static void test_fifo(void **state)
{
	struct elfimg *img;

	(void)state;
	assert_int_equal(sh("cd %s && rm -rf fl && mkdir -p fl empty && "
			    "mkfifo fl/pipe && "
			    "objcopy --only-keep-debug fx fl/fx.debug && "
			    "objcopy --strip-all "
			    "--add-gnu-debuglink=fl/fx.debug fx fl/fx.stripped "
			    "&& rm fl/fx.debug && mkfifo fl/fx.debug",
			    tmpdir),
			 0);
	alarm(120); /* a hang guard: open() of a FIFO would block */
	assert_int_equal(open_code(fx("fl/pipe")), -MEMSZ_ENOTELF);
	assert_int_equal(elfimg_open(fx("fl/fx.stripped"), &img), 0);
	assert_string_equal(img->debuglink, "fx.debug");
	assert_int_equal(elfimg_find_debug(img, fx("empty")), 0);
	assert_null(img->debug);
	/* found under its name but refused, and why */
	assert_non_null(img->debug_rejected);
	assert_string_equal(img->debug_rejected, fx("fl/fx.debug"));
	assert_int_equal(img->debug_rejected_err, -MEMSZ_ENOTELF);
	elfimg_close(img);
	alarm(0);
}

/* `eu-strip -f` keeps the original program headers in the smaller .debug
 * file: it is still used for symbols. */
static void test_eu_strip(void **state)
{
	struct mapped m;
	struct truth t;
	struct elfimg *img;
	size_t checked = 0;

	(void)state;
	if (sh("command -v eu-strip >/dev/null")) {
		test_skip("no eu-strip (elfutils)");
	}
	assert_int_equal(sh("cd %s && rm -rf eu && mkdir -p eu empty && "
			    "eu-strip -f eu/fx.debug -o eu/fx.s fx",
			    tmpdir),
			 0);
	/* ground truth: readelf shows a LOAD running past the debug file */
	truth_read(fx("eu/fx.debug"), &t);
	for (size_t i = 0; i < t.nsegs; i++)
		if (!strcmp(t.segs[i].type, "LOAD") &&
		    t.segs[i].off + t.segs[i].filesz >
			file_size(fx("eu/fx.debug")))
			checked++;
	assert_true(checked > 0);
	truth_free(&t);
	/* as an image of its own it is truncated; as a debug file fine */
	assert_int_equal(open_code(fx("eu/fx.debug")), -MEMSZ_ETRUNC);
	assert_int_equal(elfimg_open_mode(fx("eu/fx.debug"), true, &img), 0);
	elfimg_close(img);

	truth_read(fx("fx"), &t);
	assert_int_equal(
	    map_image(fx("eu/fx.s"), ELFSRC_SYMBOLS, &m, fx("empty")), 0);
	assert_true(m.st.used_debug_file);
	assert_false(m.st.used_dynsym);
	assert_null(m.img->debug_rejected);
	checked = 0;
	for (size_t i = 0; i < t.nsyms; i++) {
		const struct rsym *y = &t.syms[i];

		if (!strcmp(y->name, "fx_data") || !strcmp(y->name, "fx_ro") ||
		    !strcmp(y->name, "fx_bss") ||
		    !strcmp(y->name, "fx_func_a")) {
			assert_int_equal(sym_vm_bytes(&m, y->name), y->size);
			checked++;
		}
	}
	assert_int_equal(checked, 4);
	truth_free(&t);
	truth_read(fx("eu/fx.s"), &t);
	check_i1(&m.src, &t, file_size(fx("eu/fx.s")));
	truth_free(&t);
	unmap_image(&m);

	/* a debug file of another build there: refused, and recorded */
	assert_int_equal(sh("cd %s && "
			    "eu-strip -f eu/other.debug -o eu/other.s fx2 && "
			    "cp eu/other.debug eu/fx.debug",
			    tmpdir),
			 0);
	assert_int_equal(elfimg_open(fx("eu/fx.s"), &img), 0);
	assert_int_equal(elfimg_find_debug(img, fx("empty")), 0);
	assert_string_equal(img->debug_rejected, fx("eu/fx.debug"));
	assert_int_equal(img->debug_rejected_err, 0);
	elfimg_close(img);
}

/* Mangled name whose demangling doubles with each of levels nestings of
 * back-references (as in the reviewer's generator). */
static char *bomb_name(int levels)
{
	static const char b36[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char *s = xstrdup("_Z1fIJ1AIiiE");

	for (int i = 0; i < levels; i++) {
		char seq[8] = "";
		char *n;

		/* S_ is candidate 0, S0_ candidate 1, ... (base 36) */
		if (i >= 36)
			snprintf(seq, sizeof(seq), "%c%c", b36[i / 36],
				 b36[i % 36]);
		else
			snprintf(seq, sizeof(seq), "%c", b36[i]);
		n = xasprintf("%sS_IS%s_S%s_E", s, seq, seq);
		free(s);
		s = n;
	}
	{
		char *n = xasprintf("%sEEvv", s);

		free(s);
		return n;
	}
}

static void test_demangle_bomb(void **state)
{
	char *name = bomb_name(48), *dm, *want;
	struct rusage ru;
	int st;
	pid_t pid;
	FILE *f;

	(void)state;
	/* c++filt agrees a small one is valid and it does double */
	dm = bomb_name(4);
	want = sh_output("c++filt '%s'", dm);
	want[strcspn(want, "\n")] = 0;
	assert_string_not_equal(want, dm);
	char *got = elf_demangle(dm);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(dm);
	/* a real name with many back-references still demangles */
	dm = elf_demangle("_ZSt17__rotate_adaptiveIPN5clang17Overload"
			  "CandidateES2_lET_S3_S3_S3_T1_S4_T0_S4_");
	want = sh_output("c++filt _ZSt17__rotate_adaptiveIPN5clang17Overload"
			 "CandidateES2_lET_S3_S3_S3_T1_S4_T0_S4_");
	want[strcspn(want, "\n")] = 0;
	assert_non_null(dm);
	assert_string_equal(dm, want);
	free(dm);
	free(want);
	/* a deeper bomb asks for more than the output bound: left alone */
	dm = bomb_name(120);
	assert_true(strlen(dm) > 1024);
	assert_null(elf_demangle(dm));
	free(dm);

	/* an ELF with the 48-level bomb: labelled by the mangled name, in a
	 * child whose peak RSS we read back */
	f = fopen(fx("bomb.s"), "w");
	assert_non_null(f);
	fprintf(f,
		".text\n.globl _start\n_start: ret\n.globl %s\n"
		".type %s,@function\n%s:\n ret\n.size %s,1\n",
		name, name, name, name);
	fclose(f);
	assert_int_equal(
	    sh("cd %s && gcc -nostdlib -static -o bomb bomb.s", tmpdir), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct mapped m;
		int ok;

		ok = map_image(fx("bomb"), ELFSRC_SYMBOLS, &m, NULL) == 0 &&
		     labels_find(m.lb, name) != LABEL_NONE && m.st.symbols == 1;
		unmap_image(&m);
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(wait4(pid, &st, 0, &ru), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	print_message("demangle bomb: child peak RSS %ld KiB\n", ru.ru_maxrss);
	assert_true(ru.ru_maxrss < 200 * 1024);
	free(name);
}

/* Relocatable objects from clang for other machines: real big-endian and
 * 32-bit ELF written by a compiler, not by our byte-swapper. */
static void test_relocatable(void **state)
{
	static const char *const targets[] = {
	    "powerpc64-linux-gnu", "powerpc-linux-gnu",
	    "s390x-linux-gnu",	   "armv7a-linux-gnueabihf -mthumb",
	    "x86_64-linux-gnu",
	};
	int done = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(targets); i++) {
		char obj[64];
		struct mapped m;

		snprintf(obj, sizeof(obj), "rel%zu.o", i);
		if (sh("cd %s && clang --target=%s -O1 -c -o %s fs.c "
		       "2>/dev/null",
		       tmpdir, targets[i], obj)) {
			test_skip_part("clang --target=%s cannot build an "
				       "object (clang)",
				       targets[i]);
			continue;
		}
		check_image(fx(obj), NULL);
		assert_int_equal(map_image(fx(obj), ELFSRC_SYMBOLS, &m, NULL),
				 0);
		/* its loaded sections laid out, as size -A counts them
		 * (t1302 checks the sum against binutils) */
		assert_int_equal(map_total(m.src.vm), m.img->vm_size);
		assert_true(m.img->vm_size > 0);
		unmap_image(&m);
		done++;
	}
	if (!done)
		test_skip("clang cannot build foreign objects (clang)");
}

static void test_debug_crc(void **state)
{
	struct elfimg *img;

	(void)state;
	/* no build-id: the debuglink CRC decides */
	assert_int_equal(sh("cd %s && mkdir -p crc crcbad && "
			    "objcopy --only-keep-debug fxnb crc/fxnb.debug && "
			    "objcopy --strip-all --add-gnu-debuglink="
			    "crc/fxnb.debug fxnb crc/fxnb && "
			    "cp crc/fxnb crcbad/ && "
			    "objcopy --only-keep-debug fx crcbad/fxnb.debug",
			    tmpdir),
			 0);
	assert_int_equal(elfimg_open(fx("crc/fxnb"), &img), 0);
	assert_int_equal(img->build_id_len, 0);
	assert_int_equal(elfimg_find_debug(img, fx("empty")), 1);
	elfimg_close(img);
	assert_int_equal(elfimg_open(fx("crcbad/fxnb"), &img), 0);
	assert_int_equal(elfimg_find_debug(img, fx("empty")), 0);
	elfimg_close(img);
}

static void test_libc_debug(void **state)
{
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	struct elfimg *img;
	char hex[130], *want;
	struct stat st;

	(void)state;
	if (elfimg_open(libc, &img))
		test_skip("cannot open '%s' (libc6)", libc);
	elfimg_build_id_hex(img, hex, sizeof(hex));
	want =
	    xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	if (stat(want, &st)) {
		char why[600];

		snprintf(why, sizeof(why), "no '%s' (libc6-dbg)", want);
		free(want);
		elfimg_close(img);
		test_skip("%s", why);
	}
	assert_int_equal(elfimg_find_debug(img, NULL), 1);
	assert_string_equal(img->debug->path, want);
	free(want);
	elfimg_close(img);
}

/* Real system files: every source maps, covers the file, no EBADSYM. */
static void test_system_files(void **state)
{
	static const char *const files[] = {
	    "/usr/lib/x86_64-linux-gnu/libc.so.6",
	    "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	    "/usr/bin/python3.11",
	    "/bin/ls",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct truth t;

		if (access(files[i], R_OK))
			continue;
		truth_read(files[i], &t);
		for (int src = 0; src < ELFSRC__COUNT; src++) {
			struct mapped m;

			assert_int_equal(map_image(files[i], src, &m,
						   src == ELFSRC_SYMBOLS
						       ? "/usr/lib/debug"
						       : NULL),
					 0);
			check_i1(&m.src, &t, file_size(files[i]));
			unmap_image(&m);
		}
		truth_free(&t);
	}
}

static void test_source_names(void **state)
{
	(void)state;
	assert_int_equal(elfsrc_from_name("segments"), ELFSRC_SEGMENTS);
	assert_int_equal(elfsrc_from_name("sections"), ELFSRC_SECTIONS);
	assert_int_equal(elfsrc_from_name("symbols"), ELFSRC_SYMBOLS);
	assert_int_equal(elfsrc_from_name("nope"), -1);
	assert_string_equal(elfsrc_name(ELFSRC_SYMBOLS), "symbols");
}

/* ---------- hostile input ---------- */

static void test_not_elf(void **state)
{
	(void)state;
	write_text(fx("text.txt"), "hello, this is not an ELF file\n");
	write_text(fx("empty.bin"), "");
	write_text(fx("short.bin"), "\177EL");
	assert_int_equal(open_code(fx("text.txt")), -MEMSZ_ENOTELF);
	assert_int_equal(open_code(fx("empty.bin")), -MEMSZ_ENOTELF);
	assert_int_equal(open_code(fx("short.bin")), -MEMSZ_ETRUNC);
	assert_int_equal(open_code(tmpdir), -EISDIR);
	assert_int_equal(open_code(fx("does-not-exist")), -ENOENT);
	assert_int_equal(open_code("/dev/null"), -MEMSZ_ENOTELF);
}

static void test_no_permission(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	assert_int_equal(sh("cp %s/fx %s/secret && chmod 000 %s/secret", tmpdir,
			    tmpdir, tmpdir),
			 0);
	if (geteuid() != 0) {
		assert_int_equal(open_code(fx("secret")), -EACCES);
		return;
	}
	/* root ignores mode 000: check as nobody */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(open_code(fx("secret")) == -EACCES ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void truncate_at(const char *src, size_t len)
{
	const char *dst = fx("trunc.bin");

	assert_int_equal(sh("head -c %zu '%s' > '%s'", len, src, dst), 0);
	assert_int_equal(file_size(dst), len);
}

/* Open, and if it opens, map every source: must never crash. */
static int open_and_map(const char *path)
{
	int ret = open_code(path);

	if (ret)
		return ret;
	for (int src = 0; src < ELFSRC__COUNT; src++) {
		struct mapped m;

		ret = map_image(path, src, &m, NULL);
		unmap_image(&m);
		if (ret)
			return ret;
	}
	return 0;
}

static void truncation_sweep(const char *path)
{
	char src[512];
	uint64_t size;
	struct truth t;
	uint64_t cuts[4096];
	size_t n = 0, len;
	unsigned char *buf;

	snprintf(src, sizeof(src), "%s", path); /* fx() buffers rotate */
	size = file_size(src);
	buf = read_file(src, &len);
	truth_read(src, &t);
	/* header boundaries from readelf */
	cuts[n++] = t.ehsize;
	for (size_t i = 0; i <= t.phnum; i++)
		cuts[n++] = t.phoff + i * t.phentsize;
	for (size_t i = 0; i <= t.shnum; i++)
		cuts[n++] = t.shoff + i * t.shentsize;
	for (size_t i = 0; i < t.nsecs && n < 4000; i++)
		if (strcmp(t.secs[i].type, "NOBITS")) {
			cuts[n++] = t.secs[i].off;
			cuts[n++] = t.secs[i].off + t.secs[i].size;
		}
	for (size_t i = 0; i < t.nsegs && n < 4000; i++)
		cuts[n++] = t.segs[i].off + t.segs[i].filesz;
	for (uint64_t off = 1; off < 80; off++)
		cuts[n++] = off;
	for (uint64_t off = 80; off < size && n < 4090; off += 97)
		cuts[n++] = off;

	for (size_t i = 0; i < n; i++) {
		if (cuts[i] >= size)
			continue;
		write_file(fx("trunc.bin"), buf, cuts[i]);
		int ret = open_and_map(fx("trunc.bin"));
		if (ret != -MEMSZ_ETRUNC && cuts[i])
			print_message("%s cut at %lu: %d\n", src,
				      (unsigned long)cuts[i], ret);
		assert_int_equal(ret, cuts[i] ? -MEMSZ_ETRUNC : -MEMSZ_ENOTELF);
	}
	write_file(fx("trunc.bin"), buf, 0);
	assert_int_equal(open_and_map(fx("trunc.bin")), -MEMSZ_ENOTELF);
	truncate_at(src, size);
	assert_int_equal(open_and_map(fx("trunc.bin")), 0);
	free(buf);
	truth_free(&t);
}

static void test_truncated(void **state)
{
	(void)state;
	truncation_sweep(fx("fx"));
	truncation_sweep(fx("fs64be"));
	if (have_m32)
		truncation_sweep(fx("fs32"));
	else
		test_skip_part("gcc -m32 cannot link (gcc-multilib)");
}

/* Little-endian 64-bit field writers for the corruption tests. */
static void put(unsigned char *buf, uint64_t off, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		buf[off + i] = v >> (8 * i);
}

static const struct rsec *sec_named(const struct truth *t, const char *name,
				    size_t *idx)
{
	for (size_t i = 0; i < t->nsecs; i++)
		if (!strcmp(t->secs[i].name, name)) {
			if (idx)
				*idx = i + 1; /* readelf skips [0] here */
			return &t->secs[i];
		}
	fail_msg("no section %s", name);
	return NULL;
}

static size_t sym_index(const struct truth *t, const char *name)
{
	for (size_t i = 0; i < t->nsyms; i++)
		if (!strcmp(t->syms[i].name, name))
			return t->syms[i].num;
	fail_msg("no symbol %s", name);
	return 0;
}

struct corrupt {
	const char *what;
	int want;	 /* expected code from open (or source map) */
	bool at_symbols; /* open succeeds; the symbols source fails */
};

static void
try_corrupt(const unsigned char *orig, size_t len, const struct corrupt *c,
	    void (*edit)(unsigned char *buf, const struct truth *t, size_t len),
	    const struct truth *t)
{
	unsigned char *buf = xmalloc(len);
	int ret;

	memcpy(buf, orig, len);
	edit(buf, t, len);
	write_file(fx("corrupt.bin"), buf, len);
	free(buf);
	if (c->at_symbols) {
		struct mapped m;

		assert_int_equal(open_code(fx("corrupt.bin")), 0);
		ret = map_image(fx("corrupt.bin"), ELFSRC_SYMBOLS, &m, NULL);
		unmap_image(&m);
	} else {
		ret = open_and_map(fx("corrupt.bin"));
	}
	if (ret != c->want)
		print_message("%s: got %d (%s)\n", c->what, ret,
			      memsz_strerror(ret));
	assert_int_equal(ret, c->want);
}

/* ELF64 header offsets */
#define E_PHOFF 32
#define E_SHOFF 40
#define E_PHENTSIZE 54
#define E_PHNUM 56
#define E_SHENTSIZE 58
#define E_SHNUM 60
#define E_SHSTRNDX 62

static void ed_shoff_eof(unsigned char *b, const struct truth *t, size_t len)
{
	(void)t;
	put(b, E_SHOFF, len + 100, 8);
}

static void ed_shoff_wrap(unsigned char *b, const struct truth *t, size_t l)
{
	(void)t;
	(void)l;
	put(b, E_SHOFF, UINT64_MAX - 100, 8);
}

static void ed_shnum(unsigned char *b, const struct truth *t, size_t l)
{
	(void)t;
	(void)l;
	put(b, E_SHNUM, 0xfff0, 2);
}

static void ed_shstrndx(unsigned char *b, const struct truth *t, size_t l)
{
	(void)l;
	put(b, E_SHSTRNDX, t->shnum + 3, 2);
}

static void ed_shstrndx_symtab(unsigned char *b, const struct truth *t,
			       size_t l)
{
	size_t idx;

	(void)l;
	sec_named(t, ".symtab", &idx);
	put(b, E_SHSTRNDX, idx, 2);
}

static void ed_shentsize(unsigned char *b, const struct truth *t, size_t l)
{
	(void)t;
	(void)l;
	put(b, E_SHENTSIZE, 40, 2);
}

static void ed_phentsize(unsigned char *b, const struct truth *t, size_t l)
{
	(void)t;
	(void)l;
	put(b, E_PHENTSIZE, 32, 2);
}

static void ed_phoff_eof(unsigned char *b, const struct truth *t, size_t len)
{
	(void)t;
	put(b, E_PHOFF, len - 8, 8);
}

static uint64_t shdr_at(const struct truth *t, const char *name)
{
	size_t idx;

	sec_named(t, name, &idx);
	return t->shoff + idx * t->shentsize;
}

static void ed_sh_name(unsigned char *b, const struct truth *t, size_t l)
{
	(void)l;
	put(b, shdr_at(t, ".text"), 0x7ffffff, 4);
}

static void ed_sh_offset(unsigned char *b, const struct truth *t, size_t len)
{
	put(b, shdr_at(t, ".text") + 24, len - 4, 8);
}

static void ed_sh_size(unsigned char *b, const struct truth *t, size_t len)
{
	put(b, shdr_at(t, ".rodata") + 32, len, 8);
}

static void ed_sh_wrap(unsigned char *b, const struct truth *t, size_t len)
{
	(void)len;
	put(b, shdr_at(t, ".text") + 24, UINT64_MAX - 8, 8);
}

static void ed_symtab_link(unsigned char *b, const struct truth *t, size_t l)
{
	(void)l;
	put(b, shdr_at(t, ".symtab") + 40, t->shnum + 9, 4);
}

static void ed_load_filesz(unsigned char *b, const struct truth *t, size_t l)
{
	(void)l;
	for (size_t i = 0; i < t->nsegs; i++)
		if (!strcmp(t->segs[i].type, "LOAD")) {
			uint64_t ph = t->phoff + i * t->phentsize;

			put(b, ph + 32, t->segs[i].memsz + 1, 8);
			put(b, ph + 40, t->segs[i].memsz, 8);
			return;
		}
}

static void ed_load_offset(unsigned char *b, const struct truth *t, size_t l)
{
	for (size_t i = 0; i < t->nsegs; i++)
		if (!strcmp(t->segs[i].type, "LOAD") && t->segs[i].filesz) {
			put(b, t->phoff + i * t->phentsize + 8, l, 8);
			return;
		}
}

/* Second PT_LOAD moved onto the first in VM. */
static void ed_load_overlap(unsigned char *b, const struct truth *t, size_t l)
{
	const struct rseg *first = NULL;

	(void)l;
	for (size_t i = 0; i < t->nsegs; i++) {
		if (strcmp(t->segs[i].type, "LOAD"))
			continue;
		if (!first) {
			first = &t->segs[i];
			continue;
		}
		put(b, t->phoff + i * t->phentsize + 16, first->vaddr + 16, 8);
		return;
	}
}

static uint64_t sym_at(const struct truth *t, const char *name)
{
	return sec_named(t, ".symtab", NULL)->off + sym_index(t, name) * 24;
}

static void ed_st_name(unsigned char *b, const struct truth *t, size_t l)
{
	(void)l;
	put(b, sym_at(t, "fx_func_a"), 0x7fffff0, 4);
}

static void ed_st_value(unsigned char *b, const struct truth *t, size_t l)
{
	(void)l;
	put(b, sym_at(t, "fx_data") + 8, 0x10, 8);
}

static void ed_st_shndx(unsigned char *b, const struct truth *t, size_t l)
{
	(void)l;
	put(b, sym_at(t, "fx_data") + 6, t->shnum + 5, 2);
}

static void ed_symtab_entsize(unsigned char *b, const struct truth *t, size_t l)
{
	(void)l;
	put(b, shdr_at(t, ".symtab") + 56, 16, 8);
}

static void ed_st_size(unsigned char *b, const struct truth *t, size_t l)
{
	(void)l;
	put(b, sym_at(t, "fx_ro") + 16, 1ull << 40, 8);
}

static void test_corrupt(void **state)
{
	static const struct {
		struct corrupt c;
		void (*edit)(unsigned char *, const struct truth *, size_t);
	} cases[] = {
	    {{"e_shoff past EOF", -MEMSZ_ETRUNC, false}, ed_shoff_eof},
	    {{"e_shoff wraps", -MEMSZ_EBADSHDR, false}, ed_shoff_wrap},
	    {{"e_shnum huge", -MEMSZ_ETRUNC, false}, ed_shnum},
	    {{"e_shstrndx >= shnum", -MEMSZ_EBADSHDR, false}, ed_shstrndx},
	    {{"e_shstrndx not a strtab", -MEMSZ_EBADSHDR, false},
	     ed_shstrndx_symtab},
	    {{"e_shentsize", -MEMSZ_EBADSHDR, false}, ed_shentsize},
	    {{"e_phentsize", -MEMSZ_EBADPHDR, false}, ed_phentsize},
	    {{"e_phoff past EOF", -MEMSZ_ETRUNC, false}, ed_phoff_eof},
	    {{"sh_name past shstrtab", -MEMSZ_EBADSTRTAB, false}, ed_sh_name},
	    {{"sh_offset past EOF", -MEMSZ_ETRUNC, false}, ed_sh_offset},
	    {{"sh_size past EOF", -MEMSZ_ETRUNC, false}, ed_sh_size},
	    {{"sh_offset wraps", -MEMSZ_EBADSHDR, false}, ed_sh_wrap},
	    {{".symtab sh_link", -MEMSZ_EBADSHDR, false}, ed_symtab_link},
	    {{"LOAD filesz > memsz", -MEMSZ_EBADPHDR, false}, ed_load_filesz},
	    {{"LOAD offset past EOF", -MEMSZ_ETRUNC, false}, ed_load_offset},
	    {{"LOADs overlap in VM", -MEMSZ_EBADPHDR, false}, ed_load_overlap},
	    {{"st_name past strtab", -MEMSZ_EBADSTRTAB, true}, ed_st_name},
	    {{"symbol outside its section", -MEMSZ_EBADSYM, true}, ed_st_value},
	    {{"st_shndx >= shnum", -MEMSZ_EBADSYM, true}, ed_st_shndx},
	    {{".symtab sh_entsize", -MEMSZ_EBADSYM, true}, ed_symtab_entsize},
	};
	unsigned char *orig;
	struct truth t;
	size_t len;

	(void)state;
	truth_read(fx("fx"), &t);
	orig = read_file(fx("fx"), &len);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		try_corrupt(orig, len, &cases[i].c, cases[i].edit, &t);

	/* a symbol running past its section end is clipped, not fatal */
	{
		unsigned char *buf = xmalloc(len);
		struct mapped m;

		memcpy(buf, orig, len);
		ed_st_size(buf, &t, len);
		write_file(fx("corrupt.bin"), buf, len);
		free(buf);
		assert_int_equal(
		    map_image(fx("corrupt.bin"), ELFSRC_SYMBOLS, &m, NULL), 0);
		assert_int_equal(m.st.clipped, 1);
		check_i1(&m.src, &t, len);
		unmap_image(&m);
	}
	free(orig);
	truth_free(&t);
}

/* The PT_LOADs of a 64-bit little-endian image decoded from its bytes
 * (extended e_phnum too) into t->segs, for check_i1. */
static void raw_loads(const unsigned char *b, size_t len, struct truth *t)
{
	uint64_t phoff = 0, phnum = 0, shoff = 0;

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 8; i++) {
		phoff |= (uint64_t)b[E_PHOFF + i] << (8 * i);
		shoff |= (uint64_t)b[E_SHOFF + i] << (8 * i);
	}
	phnum = b[E_PHNUM] | b[E_PHNUM + 1] << 8;
	if (phnum == 0xffff && shoff + 48 <= len)
		phnum = b[shoff + 44] | b[shoff + 45] << 8 |
			(uint64_t)b[shoff + 46] << 16 |
			(uint64_t)b[shoff + 47] << 24;
	t->segs = xcalloc(phnum ? phnum : 1, sizeof(*t->segs));
	for (uint64_t i = 0; i < phnum && phoff + (i + 1) * 56 <= len; i++) {
		const unsigned char *p = b + phoff + i * 56;
		struct rseg *g = &t->segs[t->nsegs++];
		uint64_t v = 0, m = 0;

		for (int k = 0; k < 8; k++) {
			v |= (uint64_t)p[16 + k] << (8 * k);
			m |= (uint64_t)p[40 + k] << (8 * k);
		}
		snprintf(g->type, sizeof(g->type), "%s",
			 p[0] == PT_LOAD && !p[1] && !p[2] && !p[3] ? "LOAD"
								    : "-");
		g->vaddr = v;
		g->memsz = m;
	}
}

/* Open, map every source (debug files looked for), and check I1 against
 * the PT_LOADs in the bytes for each map that was built. */
static int fuzz_one(const char *path, const unsigned char *buf, size_t len)
{
	struct truth t;
	int ret = open_code(path);

	if (ret)
		return ret;
	raw_loads(buf, len, &t);
	for (int src = 0; src < ELFSRC__COUNT && !ret; src++) {
		struct mapped m;

		ret = map_image(path, src, &m, fx("empty"));
		if (m.img) {
			check_i1(&m.base, &t, len);
			if (!ret)
				check_i1(&m.src, &t, len);
		}
		unmap_image(&m);
	}
	truth_free(&t);
	return ret;
}

/* Random bit flips in the headers, tables, notes, .gnu_debuglink and
 * .symtab of an image with a debug link: never crash, and whatever opens
 * keeps I1. */
static void test_fuzz(void **state)
{
	unsigned char *orig, *buf;
	unsigned int seed = 12345;
	const struct rsec *regions[3];
	struct truth t;
	size_t len;
	int ok = 0;

	(void)state;
	assert_int_equal(sh("cd %s && mkdir -p fz empty && "
			    "objcopy --only-keep-debug fs64 fz/fs64.debug && "
			    "objcopy --add-gnu-debuglink=fz/fs64.debug "
			    "fs64 fz/fs64dl",
			    tmpdir),
			 0);
	truth_read(fx("fz/fs64dl"), &t);
	regions[0] = sec_named(&t, ".symtab", NULL);
	regions[1] = sec_named(&t, ".note.gnu.build-id", NULL);
	regions[2] = sec_named(&t, ".gnu_debuglink", NULL);
	orig = read_file(fx("fz/fs64dl"), &len);
	buf = xmalloc(len);
	for (int iter = 0; iter < 1500; iter++) {
		int flips = 1 + rand_r(&seed) % 4;

		memcpy(buf, orig, len);
		for (int f = 0; f < flips; f++) {
			const struct rsec *r;
			uint64_t off;

			switch (rand_r(&seed) % 5) {
			case 0:
				off = rand_r(&seed) % 64;
				break;
			case 1:
				off = t.shoff +
				      rand_r(&seed) % (t.shnum * t.shentsize);
				break;
			case 2:
				off = t.phoff +
				      rand_r(&seed) % (t.phnum * t.phentsize);
				break;
			default:
				r = regions[rand_r(&seed) % 3];
				off = r->off + rand_r(&seed) % r->size;
			}
			if (off < len)
				buf[off] ^= 1u << (rand_r(&seed) % 8);
		}
		write_file(fx("fz/fuzz.bin"), buf, len);
		ok += fuzz_one(fx("fz/fuzz.bin"), buf, len) == 0;
	}
	print_message("fuzz: %d of 1500 variants still mapped\n", ok);
	free(buf);
	free(orig);
	truth_free(&t);
}

/* The key table's fallback test is the ELF sources' own: the header rows
 * are real labels under segments and sections and fallbacks under every
 * other ELF key; keys that are no ELF source have no fallbacks. */
static void test_keys_fallback(void **state)
{
	static const char *const hdrs[] = {
	    "[ELF Header]", "[ELF Program Headers]", "[ELF Section Headers]"};
	(void)state;
	for (int k = 0; k < KEY__COUNT; k++) {
		int src = keydefs[k].elfsrc;

		for (size_t i = 0; i < ARRAY_SIZE(hdrs); i++) {
			bool want = src >= 0 && src != ELFSRC_SEGMENTS &&
				    src != ELFSRC_SECTIONS;

			assert_int_equal(keys_label_is_fallback(k, hdrs[i]),
					 want);
			if (src >= 0)
				assert_int_equal(
				    elf_label_is_fallback(src, hdrs[i]), want);
		}
		assert_int_equal(keys_label_is_fallback(k, "[section .data]"),
				 src >= 0);
		assert_false(keys_label_is_fallback(k, "main"));
	}
	assert_true(keys_label_is_fallback(KEY_SYMBOLS, "[ELF Header]"));
	assert_false(keys_label_is_fallback(KEY_SECTIONS, "[ELF Header]"));
	assert_false(keys_label_is_fallback(KEY_FILES, "[ELF Header]"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_source_names),
	    cmocka_unit_test(test_open_fields),
	    cmocka_unit_test(test_fx_dynamic),
	    cmocka_unit_test(test_fs_static64),
	    cmocka_unit_test(test_big_endian),
	    cmocka_unit_test(test_elf32),
	    cmocka_unit_test(test_base_map_labels),
	    cmocka_unit_test(test_aliases),
	    cmocka_unit_test(test_cxx_demangled),
	    cmocka_unit_test(test_rust_demangled),
	    cmocka_unit_test(test_rust_prefilter),
	    cmocka_unit_test(test_debuglink),
	    cmocka_unit_test(test_debug_build_id),
	    cmocka_unit_test(test_build_id_read),
	    cmocka_unit_test(test_debug_search_cached),
	    cmocka_unit_test(test_relocs_get_once),
	    cmocka_unit_test(test_debug_crc),
	    cmocka_unit_test(test_fifo),
	    cmocka_unit_test(test_eu_strip),
	    cmocka_unit_test(test_demangle_bomb),
	    cmocka_unit_test(test_relocatable),
	    cmocka_unit_test(test_libc_debug),
	    cmocka_unit_test(test_system_files),
	    cmocka_unit_test(test_not_elf),
	    cmocka_unit_test(test_no_permission),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_corrupt),
	    cmocka_unit_test(test_fuzz),
	    cmocka_unit_test(test_keys_fallback),
	};

	return test_run_group(tests, group_setup, group_teardown);
}
