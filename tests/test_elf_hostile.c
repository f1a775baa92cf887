// SPDX-License-Identifier: GPL-2.0-or-later
/* test_elf_hostile.c — elf/ on hostile input: not ELF, unreadable, a
 * FIFO, an image cut at every length, corrupt headers and tables, random
 * bit flips: an error or a note, never a crash.
 *
 * Fixtures are compiled at test time into a temporary directory
 * (elf_fixture.c); ground truth comes from readelf -W (binutils), c++filt
 * and stat(2), never from memsz's own code.
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
#include "tests/elf_fixture.h"
#include "tests/testutil.h"
#include "util/strbuf.h"
#include "util/util.h"

/* after util.h: its ARRAY_SIZE is the one kept */
#include <libiberty/demangle.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fifo),
	    cmocka_unit_test(test_not_elf),
	    cmocka_unit_test(test_no_permission),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_corrupt),
	    cmocka_unit_test(test_fuzz),
	};

	return test_run_group(tests, elf_fixture_setup, elf_fixture_teardown);
}
