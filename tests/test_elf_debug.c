// SPDX-License-Identifier: GPL-2.0-or-later
/* test_elf_debug.c — elf/'s separate debug files: found by
 * .gnu_debuglink (CRC checked) and by build-id, the search cached per
 * root, eu-strip's debug files, libc's debug file, MiniDebugInfo.
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
#include "elf/minidebug.h"
#include "elf/relocs.h"
#include "report/keys.h"
#include "tests/elf_fixture.h"
#include "tests/testutil.h"
#include "util/strbuf.h"
#include "util/util.h"

/* after util.h: its ARRAY_SIZE is the one kept */
#include <libiberty/demangle.h>

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

/* A debug file that changes after memsz read it (its mtime moved between
 * two keys' maps, as a rewrite moves it) is said once, naming it, as the
 * image's own change is, and about the image, whose rows hold its
 * symbols and DWARF. */
static void test_debug_changed_note(void **state)
{
	const struct timespec past[2] = {{0, UTIME_OMIT}, {946684800, 0}};
	struct elf_map_opts opts = {.debug_root = fx("chg")};
	struct imgmaps im = {0};
	struct strlist notes = {0};
	struct labels *lb = labels_new();
	struct dualmap *m;
	char hex[130], *dbg;
	size_t n = 0;

	(void)state;
	assert_int_equal(imgmaps_open(&im, fx("fx"), lb), 0);
	elfimg_build_id_hex(im.img, hex, sizeof(hex));
	dbg = xasprintf("%s/chg/.build-id/%.2s/%s.debug", tmpdir, hex, hex + 2);
	assert_int_equal(sh("cd %s && mkdir -p chg/.build-id/%.2s && "
			    "objcopy --only-keep-debug fx %s",
			    tmpdir, hex, dbg),
			 0);
	assert_int_equal(
	    imgmaps_source(&im, ELFSRC_SYMBOLS, lb, &opts, &notes, &m), 0);
	assert_non_null(im.img->debug);
	assert_string_equal(im.img->debug->path, dbg);
	for (size_t i = 0; i < notes.n; i++)
		assert_int_not_equal(notes.kinds[i], NOTE_IMAGE_CHANGED_READ);
	assert_int_equal(utimensat(AT_FDCWD, dbg, past, 0), 0);
	assert_int_equal(
	    imgmaps_source(&im, ELFSRC_COMPILEUNITS, lb, &opts, &notes, &m), 0);
	assert_int_equal(
	    imgmaps_source(&im, ELFSRC_INLINES, lb, &opts, &notes, &m), 0);
	for (size_t i = 0; i < notes.n; i++) {
		if (notes.kinds[i] != NOTE_IMAGE_CHANGED_READ)
			continue;
		n++;
		assert_non_null(strstr(notes.lines[i], dbg));
		assert_non_null(strstr(notes.lines[i], "debug file"));
		/* about the image, whose rows --filter keeps or drops */
		assert_string_equal(notes.subjects[i], im.img->path);
	}
	assert_int_equal(n, 1);
	strlist_free(&notes);
	imgmaps_close(&im);
	labels_free(lb);
	free(dbg);
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

/* How many memory files of MiniDebugInfo payloads this process holds
 * open: /proc/self/fd's links, "/memfd:memsz-minidebuginfo (deleted)". */
static int mdi_memfds(void)
{
	char *out = sh_output("ls -l /proc/%d/fd | "
			      "grep -c 'memfd:memsz-minidebuginfo' || true",
			      (int)getpid());
	int n = atoi(out);

	free(out);
	return n;
}

/* MiniDebugInfo (.gnu_debugdata) made as Fedora's find-debuginfo.sh
 * makes it: with no .symtab found, the functions it keeps are named with
 * .dynsym, each at least its readelf -s size in VM (its FDE adds to it),
 * both static fx_dup of the two source files (one name, two addresses:
 * neither is a duplicate of the other); a debug file found by build-id
 * wins over it, its .symtab being complete (the payload is not opened). */
static void test_minidebug(void **state)
{
	struct mapped m;
	struct truth t;
	uint64_t funcs = 0, dups = 0, dup_size = 0;
	char *keep;

	(void)state;
	assert_int_equal(
	    sh("cd %s && mkdir -p md empty && "
	       "objcopy --only-keep-debug fx md/fx.debug && "
	       "strip --strip-all -o md/fx fx && "
	       "nm -D md/fx --format=posix --defined-only | "
	       "awk '{ print $1 }' | sort > md/dyn && "
	       "nm md/fx.debug --format=posix --defined-only | "
	       "awk '{ if ($2 == \"T\" || $2 == \"t\") print $1 }' | "
	       "sort > md/funcs && comm -13 md/dyn md/funcs > md/keep && "
	       "objcopy -S --remove-section .gdb_index --remove-section "
	       ".comment --keep-symbols=md/keep md/fx.debug md/mini && "
	       "xz -f md/mini && "
	       "objcopy --add-section .gnu_debugdata=md/mini.xz md/fx && "
	       "id=$(readelf -n fx | sed -n 's/.*Build ID: //p') && "
	       "d=md/root/.build-id/$(echo $id | cut -c1-2) && mkdir -p $d && "
	       "cp md/fx.debug $d/$(echo $id | cut -c3-).debug",
	       tmpdir),
	    0);
	keep = sh_output("cat %s/md/keep", tmpdir);
	truth_read(fx("fx"), &t);
	assert_int_equal(
	    map_image(fx("md/fx"), ELFSRC_SYMBOLS, &m, fx("empty")), 0);
	assert_true(m.st.used_dynsym);
	assert_false(m.st.used_debug_file);
	assert_int_equal(m.st.mdi_why, ELF_MDI_READ);
	assert_true(m.st.mdi_found);
	assert_int_equal(m.st.mdi_dropped, 0);
	for (size_t i = 0; i < t.nsyms; i++) {
		const struct rsym *y = &t.syms[i];
		char line[520];

		snprintf(line, sizeof(line), "\n%s\n", y->name);
		if (strcmp(y->type, "FUNC") || !y->size ||
		    (!strstr(keep, line + 1) && !strstr(keep, line)))
			continue;
		funcs++;
		if (!strcmp(y->name, "fx_dup")) {
			dups++;
			dup_size += y->size;
		}
		/* fx_func_b is fx_func_a's alias: that row holds both */
		if (strcmp(y->name, "fx_dup") && strcmp(y->name, "fx_func_b"))
			assert_true(sym_vm_bytes(&m, y->name) >= y->size);
	}
	assert_int_equal(dups, 2);
	assert_true(sym_vm_bytes(&m, "fx_dup") >= dup_size);
	assert_true(funcs >= 5);
	assert_int_equal(m.st.mdi_symbols, funcs);
	/* the inflated payload lives until the map is built, as the DWARF
	 * buffers do: elfimg_drop_data(), called as the map is built,
	 * closes its memory file, the map keeps its rows (report keeps every
	 * image open: their payloads would otherwise add up) */
	assert_int_equal(mdi_memfds(), 0);
	/* asked for again, it is inflated again */
	assert_non_null(elf_minidebug_get(m.img)->img);
	assert_int_equal(mdi_memfds(), 1);
	elfimg_drop_data(m.img);
	assert_int_equal(mdi_memfds(), 0);
	assert_true(sym_vm_bytes(&m, "fx_dup") >= dup_size);
	unmap_image(&m);

	/* the debug file, found by build-id, wins */
	assert_int_equal(
	    map_image(fx("md/fx"), ELFSRC_SYMBOLS, &m, fx("md/root")), 0);
	assert_true(m.st.used_debug_file);
	assert_false(m.st.mdi_found);
	assert_int_equal(m.st.mdi_symbols, 0);
	unmap_image(&m);
	truth_free(&t);
	free(keep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_debuglink),
	    cmocka_unit_test(test_debug_build_id),
	    cmocka_unit_test(test_build_id_read),
	    cmocka_unit_test(test_debug_search_cached),
	    cmocka_unit_test(test_debug_changed_note),
	    cmocka_unit_test(test_debug_crc),
	    cmocka_unit_test(test_eu_strip),
	    cmocka_unit_test(test_libc_debug),
	    cmocka_unit_test(test_minidebug),
	};

	return test_run_group(tests, elf_fixture_setup, elf_fixture_teardown);
}
