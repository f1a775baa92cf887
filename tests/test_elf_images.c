// SPDX-License-Identifier: GPL-2.0-or-later
/* test_elf_images.c — elf/ on well-formed images: opening, the base map
 * and every data source against readelf, big-endian and 32-bit images,
 * relocatable objects, aliases, system files, the key table's fallbacks.
 * (Demangling: test_elf_demangle.c; separate debug files:
 * test_elf_debug.c; hostile input: test_elf_hostile.c.)
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
	    cmocka_unit_test(test_relocs_get_once),
	    cmocka_unit_test(test_relocatable),
	    cmocka_unit_test(test_system_files),
	    cmocka_unit_test(test_keys_fallback),
	};

	return test_run_group(tests, elf_fixture_setup, elf_fixture_teardown);
}
