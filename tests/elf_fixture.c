// SPDX-License-Identifier: GPL-2.0-or-later
/* elf_fixture.c — what the elf/ tests share (elf_fixture.h): the fixture
 * programs compiled at test time, readelf's view of an image, and an image
 * opened with its base and source maps.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elf/elfimg.h"
#include "maps/labels.h"
#include "maps/rangemap.h"
#include "tests/elf_fixture.h"
#include "tests/testutil.h"
#include "util/util.h"

char tmpdir[] = "/tmp/memsz-test-elf.XXXXXX";
bool have_m32;

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

void truth_free(struct truth *t)
{
	free(t->secs);
	free(t->segs);
	free(t->syms);
}

void truth_read(const char *path, struct truth *t)
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

void check_i1(struct dualmap *dm, const struct truth *t, uint64_t fsz)
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

uint64_t sym_vm_bytes(struct mapped *m, const char *name)
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

int map_image(const char *path, enum elf_source src, struct mapped *m,
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

void unmap_image(struct mapped *m)
{
	dualmap_free(&m->base);
	dualmap_free(&m->src);
	labels_free(m->lb);
	elfimg_close(m->img);
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

int elf_fixture_setup(void **state)
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

int elf_fixture_teardown(void **state)
{
	(void)state;
	tmpdir_remove();
	return 0;
}

int open_code(const char *path)
{
	struct elfimg *img = NULL;
	int ret = elfimg_open(path, &img);

	if (ret == 0)
		elfimg_close(img);
	return ret;
}
