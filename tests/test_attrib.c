// SPDX-License-Identifier: GPL-2.0-or-later
/* test_attrib.c — the attribution engine and report building, on
 * memsz.data files written here around a fixture ELF compiled at test time.
 *
 * The fixture is "loaded" the way ld.so maps a PIE (one file mapping per
 * PT_LOAD at its page-aligned offset, the .bss tail anonymous), so the
 * expected numbers come from `nm -S` of the fixture and the page runs the
 * test itself writes.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "data/datafile.h"
#include "elf/elfimg.h"
#include "report/attrib.h"
#include "report/imgcheck.h"
#include "report/report.h"
#include "rows/rows.h"
#include "tests/testutil.h"
#include "util/util.h"

#define PAGE 4096ull
#define BASE 0x7f0000000000ull

static char tmpdir[] = "/tmp/memsz-test-attrib-XXXXXX";
static char exe[256], data[256];
static uint32_t snap_flags = MD_SNAP_F_PFN; /* of the snapshots written */
/* write_data: the image written twice (ids 7 and 8, with its dev and
 * inode, as a recorder that forgot it did), the mappings of the second
 * PT_LOAD on referring to 8 */
static bool dup_image;

static const char fixture_src[] =
    "__attribute__((aligned(4096), noinline)) int fn_one(int x)\n"
    "{ return x * 3 + 1; }\n"
    "__attribute__((aligned(4096), noinline)) int fn_two(int x)\n"
    "{ return x * 5 + 2; }\n"
    "__attribute__((aligned(4096))) int obj_data[2048] = { 1 };\n"
    "__attribute__((aligned(4096))) char zbuf[3 * 4096];\n"
    "int main(void) { return fn_one(1) + fn_two(2) + obj_data[0] +"
    " zbuf[0]; }\n";

struct sym {
	uint64_t addr, size;
};

static struct sym nm_sym(const char *name)
{
	char cmd[512], line[512];
	struct sym s = {0, 0};
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", exe);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, z;
		char t, n[256];

		if (sscanf(line, "%llx %llx %c %255s", &a, &z, &t, n) == 4 &&
		    !strcmp(n, name)) {
			s.addr = a;
			s.size = z;
		}
	}
	pclose(f);
	assert_true(s.size > 0);
	return s;
}

static int setup(void **state)
{
	(void)state;
	if (tmpdir_make(tmpdir))
		return -1;
	snprintf(exe, sizeof(exe), "%s/fixture", tmpdir);
	snprintf(data, sizeof(data), "%s/memsz.data", tmpdir);
	write_text(fx("fixture.c"), fixture_src);
	return sh("gcc -O1 -fPIE -pie -Wl,--build-id "
		  /* no .eh_frame: symbols keep exactly their st_size of VM */
		  "-fno-asynchronous-unwind-tables -fno-unwind-tables "
		  "-o '%s' '%s/fixture.c'",
		  exe, tmpdir) == 0
		   ? 0
		   : -1;
}

static int teardown(void **state)
{
	(void)state;
	return tmpdir_remove() == 0 ? 0 : -1;
}

/* What a synthetic snapshot marks present. */
struct present {
	uint64_t vaddr; /* image VM address of a page */
	uint32_t flags, mapcount;
};

/* Write a memsz.data with one snapshot of pid 42 mapping the fixture at
 * BASE like ld.so. build_id: the IMAGE's build-id (NULL: the file's).
 * path: the IMAGE path (NULL: exe). nsnaps snapshots; the last one with
 * no SNAP_END if incomplete is CUT_NO_END, or announcing one mapping more
 * than it holds (a process that exited mid-snapshot) if CUT_SHORT. */
enum { CUT_NONE, CUT_NO_END, CUT_SHORT };
static void write_data(const uint8_t *build_id, const char *path,
		       const struct present *pr, size_t npr, int nsnaps,
		       int incomplete)
{
	struct md_writer *w;
	struct elfimg *img;
	struct md_image im = {0};
	struct stat st;

	assert_int_equal(elfimg_open(exe, &img), 0);
	assert_int_equal(stat(exe, &st), 0);
	assert_int_equal(md_writer_open(data, &w), 0);
	im.id = 7;
	im.ino = 0; /* build-id decides */
	im.size = st.st_size;
	im.build_id_len = img->build_id_len > 20 ? 20 : img->build_id_len;
	memcpy(im.build_id, build_id ? build_id : img->build_id,
	       im.build_id_len);
	im.path = path ? path : exe;
	im.open_path = "";
	if (dup_image) {
		im.ino = st.st_ino;
		im.dev_major = major(st.st_dev);
		im.dev_minor = minor(st.st_dev);
		im.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
			      st.st_mtim.tv_nsec;
	}
	assert_int_equal(md_write_image(w, &im), 0);
	if (dup_image) {
		im.id = 8;
		assert_int_equal(md_write_image(w, &im), 0);
	}
	for (int s = 0; s < nsnaps; s++) {
		struct md_snap_begin b = {
		    .pid = 42, .seq = s, .flags = snap_flags};
		struct md_snap_end e = {.pid = 42, .seq = s};
		uint64_t last_end = 0;

		/* one mapping per PT_LOAD, one more for a .bss tail past the
		 * file pages (as the loop below writes them) */
		for (size_t i = 0; i < img->nsegs; i++) {
			const struct elf_segment *sg = &img->segs[i];

			if (sg->type != PT_LOAD)
				continue;
			b.nmappings++;
			if (sg->memsz > sg->filesz &&
			    ((sg->vaddr + sg->memsz + PAGE - 1) & ~(PAGE - 1)) >
				((sg->vaddr + sg->filesz + PAGE - 1) &
				 ~(PAGE - 1)))
				b.nmappings++;
		}
		if (incomplete == CUT_SHORT && s == nsnaps - 1)
			b.nmappings++;
		assert_int_equal(md_write_snap_begin(w, &b), 0);
		for (size_t i = 0; i < img->nsegs; i++) {
			const struct elf_segment *sg = &img->segs[i];
			struct md_snap_mapping m = {0};
			struct md_run runs[16];
			size_t n = 0;

			if (sg->type != PT_LOAD)
				continue;
			m.start = BASE + (sg->vaddr & ~(PAGE - 1));
			m.end = BASE + ((sg->vaddr + sg->filesz + PAGE - 1) &
					~(PAGE - 1));
			if (m.start < last_end)
				m.start = last_end; /* shared file page */
			m.pgoff = (sg->offset & ~(PAGE - 1)) +
				  (m.start - BASE - (sg->vaddr & ~(PAGE - 1)));
			m.prot = PROT_READ |
				 (sg->flags & PF_W ? PROT_WRITE : 0) |
				 (sg->flags & PF_X ? PROT_EXEC : 0);
			m.flags = MAP_PRIVATE;
			m.image_id = dup_image && last_end ? 8 : 7;
			m.name = im.path;
			for (size_t k = 0; k < npr; k++)
				if (BASE + pr[k].vaddr >= m.start &&
				    BASE + pr[k].vaddr < m.end && n < 16 &&
				    (s == nsnaps - 1 || k == 0))
					runs[n++] = (struct md_run){
					    .vaddr = BASE + pr[k].vaddr,
					    .npages = 1,
					    .flags = pr[k].flags,
					    .mapcount = pr[k].mapcount};
			m.runs = runs;
			m.nruns = n;
			assert_int_equal(md_write_mapping(w, &m), 0);
			last_end = m.end;
			if (sg->memsz > sg->filesz) {
				struct md_snap_mapping t = m;
				uint64_t end =
				    BASE + ((sg->vaddr + sg->memsz + PAGE - 1) &
					    ~(PAGE - 1));

				if (end <= m.end)
					continue;
				t.start = m.end;
				t.end = end;
				t.pgoff = 0;
				t.image_id = UINT32_MAX;
				t.name = "";
				n = 0;
				for (size_t k = 0; k < npr; k++)
					if (BASE + pr[k].vaddr >= t.start &&
					    BASE + pr[k].vaddr < t.end &&
					    n < 16)
						runs[n++] = (struct md_run){
						    .vaddr = BASE + pr[k].vaddr,
						    .npages = 1,
						    .flags = pr[k].flags,
						    .mapcount = pr[k].mapcount};
				t.nruns = n;
				assert_int_equal(md_write_mapping(w, &t), 0);
				last_end = t.end;
			}
		}
		if (!(incomplete == CUT_NO_END && s == nsnaps - 1))
			assert_int_equal(md_write_snap_end(w, &e), 0);
	}
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
	elfimg_close(img);
}

static const struct row *child(const struct rowtree *t, const struct row *r,
			       const char *label)
{
	for (size_t i = 0; i < r->nchildren; i++)
		if (r->children[i].label != LABEL_NONE &&
		    !strcmp(labels_str(t->lb, r->children[i].label), label))
			return &r->children[i];
	return NULL;
}

static uint64_t col(const struct rowtree *t, const char *label, enum col_id c)
{
	const struct row *r = child(t, &t->total, label);

	return r ? r->vals[c] : 0;
}

static void build(struct report_opts *o, const char *keys, struct labels **lb,
		  struct report_result *res)
{
	char *bad = NULL, *msg = NULL;
	int n = keys_parse(keys, KEY_IN_REPORT, o->keys, &bad);

	assert_true(n > 0);
	o->nkeys = n;
	o->input = data;
	*lb = labels_new();
	memset(res, 0, sizeof(*res));
	if (report_build(o, *lb, res, &msg) < 0)
		fail_msg("report_build: %s", msg);
	free(msg);
}

static bool has_note(const struct report_result *res, const char *needle)
{
	for (size_t i = 0; i < res->notes.n; i++)
		if (strstr(res->notes.lines[i], needle))
			return true;
	return false;
}

static void test_symbols_exact(void **state)
{
	struct sym one = nm_sym("fn_one"), two = nm_sym("fn_two");
	struct sym obj = nm_sym("obj_data");
	struct present pr[] = {
	    {two.addr, MD_PG_PRESENT | MD_PG_FILE, 2},
	    {obj.addr, MD_PG_PRESENT | MD_PG_EXCLUSIVE | MD_PG_PRIVATE_DIRTY,
	     1},
	};
	struct report_opts o = {.pick = PICK_LAST};
	struct report_result res;
	struct labels *lb;

	(void)state;
	write_data(NULL, NULL, pr, 2, 1, CUT_NONE);
	build(&o, "symbols", &lb, &res);
	assert_int_equal(col(res.t, "fn_two", COL_RSS), two.size);
	assert_int_equal(col(res.t, "fn_two", COL_PSS),
			 (two.size << COL_PSS_SHIFT) / 2);
	assert_int_equal(col(res.t, "fn_two", COL_USS), 0);
	assert_int_equal(col(res.t, "fn_one", COL_RSS), 0);
	assert_int_equal(col(res.t, "fn_one", COL_VM), one.size);
	/* obj_data is 8 KiB; one of its pages present, dirty, private */
	assert_int_equal(col(res.t, "obj_data", COL_RSS), PAGE);
	assert_int_equal(col(res.t, "obj_data", COL_DIRTY), PAGE);
	assert_int_equal(col(res.t, "obj_data", COL_USS), PAGE);
	/* every byte of the two present pages, and nothing else */
	assert_int_equal(res.t->total.vals[COL_RSS], 2 * PAGE);
	assert_int_equal(res.t->total.vals[COL_DIRTY], PAGE);
	assert_true(res.have_pss);
	report_result_free(&res);
	labels_free(lb);
}

static void test_bss_tail(void **state)
{
	struct sym z = nm_sym("zbuf");
	struct present pr[] = {
	    {z.addr + 2 * PAGE,
	     MD_PG_PRESENT | MD_PG_EXCLUSIVE | MD_PG_PRIVATE_DIRTY, 1},
	};
	struct report_opts o = {.pick = PICK_LAST};
	struct report_result res;
	struct labels *lb;
	const struct row *f;

	(void)state;
	write_data(NULL, NULL, pr, 1, 1, CUT_NONE);
	build(&o, "files,sections", &lb, &res);
	f = child(res.t, &res.t->total, exe);
	assert_non_null(f);
	assert_non_null(child(res.t, f, ".bss"));
	assert_int_equal(child(res.t, f, ".bss")->vals[COL_RSS], PAGE);
	assert_null(child(res.t, &res.t->total, "[anon]"));
	/* FILE SIZE of the image counted once: the file's size */
	{
		struct stat st;

		assert_int_equal(stat(exe, &st), 0);
		assert_int_equal(f->vals[COL_FILE], (uint64_t)st.st_size);
	}
	report_result_free(&res);
	labels_free(lb);
}

/* Two IMAGE records of one file (same dev, inode, size, mtime, build-id
 * and path; older recorders wrote one each time a forgotten file was
 * mapped again), its mappings referring to both: one image, its FILE
 * SIZE the file's size once and its VM SIZE its PT_LOAD pages once (I1),
 * each RSS page counted. */
static void test_same_image_twice(void **state)
{
	struct sym two = nm_sym("fn_two"), obj = nm_sym("obj_data");
	struct present pr[] = {
	    {two.addr, MD_PG_PRESENT | MD_PG_FILE, 1},
	    {obj.addr, MD_PG_PRESENT | MD_PG_EXCLUSIVE | MD_PG_PRIVATE_DIRTY,
	     1},
	};
	struct report_opts o = {.pick = PICK_LAST};
	struct report_result res;
	struct labels *lb;
	const struct row *f;
	struct elfimg *img;
	uint64_t vm = 0;
	struct stat st;

	(void)state;
	assert_int_equal(stat(exe, &st), 0);
	assert_int_equal(elfimg_open(exe, &img), 0);
	for (size_t i = 0; i < img->nsegs; i++) {
		const struct elf_segment *sg = &img->segs[i];

		if (sg->type == PT_LOAD)
			vm +=
			    ((sg->vaddr + sg->memsz + PAGE - 1) & ~(PAGE - 1)) -
			    (sg->vaddr & ~(PAGE - 1));
	}
	elfimg_close(img);
	dup_image = true;
	write_data(NULL, NULL, pr, 2, 1, CUT_NONE);
	dup_image = false;
	build(&o, "files", &lb, &res);
	assert_int_equal(res.t->total.nchildren, 1);
	f = child(res.t, &res.t->total, exe);
	assert_non_null(f);
	assert_int_equal(f->vals[COL_FILE], (uint64_t)st.st_size);
	assert_int_equal(f->vals[COL_VM], vm);
	assert_int_equal(f->vals[COL_RSS], 2 * PAGE);
	report_result_free(&res);
	labels_free(lb);
}

static void test_replaced_image(void **state)
{
	struct sym two = nm_sym("fn_two");
	struct present pr[] = {{two.addr, MD_PG_PRESENT, 1}};
	uint8_t wrong[20];
	struct report_opts o = {.pick = PICK_LAST};
	struct report_result res;
	struct labels *lb;

	(void)state;
	memset(wrong, 0xab, sizeof(wrong));
	write_data(wrong, NULL, pr, 1, 1, CUT_NONE);
	build(&o, "symbols", &lb, &res);
	assert_int_equal(col(res.t, "fn_two", COL_RSS), 0);
	/* a file that is not the one mapped: all of it one label */
	{
		char *label = xasprintf("[changed since recording] %s", exe);

		assert_int_equal(col(res.t, label, COL_RSS), PAGE);
		assert_true(has_note(&res, label));
		free(label);
	}
	assert_int_equal(col(res.t, "[LOAD #?]", COL_RSS), 0);
	assert_true(has_note(&res, "build-id"));
	report_result_free(&res);
	labels_free(lb);
}

static void test_missing_image(void **state)
{
	struct sym two = nm_sym("fn_two");
	struct present pr[] = {{two.addr, MD_PG_PRESENT, 1}};
	struct report_opts o = {.pick = PICK_LAST};
	struct report_result res;
	struct labels *lb;

	(void)state;
	write_data(NULL, "/nonexistent/lib.so", pr, 1, 1, CUT_NONE);
	build(&o, "files,segments", &lb, &res);
	assert_int_equal(res.t->total.vals[COL_RSS], PAGE);
	/* no longer on disk: "[deleted] PATH" under every key */
	assert_int_equal(col(res.t, "[deleted] /nonexistent/lib.so", COL_RSS),
			 PAGE);
	assert_int_equal(col(res.t, "/nonexistent/lib.so", COL_RSS), 0);
	assert_int_equal(col(res.t, "[LOAD #?]", COL_RSS), 0);
	assert_true(has_note(&res, "deleted since it was mapped"));
	report_result_free(&res);
	labels_free(lb);
}

static void test_truncated_and_incomplete(void **state)
{
	struct sym two = nm_sym("fn_two"), obj = nm_sym("obj_data");
	struct present pr[] = {
	    {two.addr, MD_PG_PRESENT, 1},
	    {obj.addr, MD_PG_PRESENT, 1},
	};
	struct report_opts o = {.pick = PICK_LAST};
	struct report_result res;
	struct labels *lb;
	struct stat st;

	(void)state;
	/* 3 snapshots, the last without its end: the 2nd is reported */
	write_data(NULL, NULL, pr, 2, 3, CUT_NO_END);
	build(&o, "symbols", &lb, &res);
	assert_true(has_note(&res, "incomplete"));
	assert_int_equal(res.t->total.vals[COL_RSS], PAGE); /* 2nd: 1 page */
	report_result_free(&res);
	labels_free(lb);

	/* the last one ended but holds fewer mappings than it announced
	 * (the process exited during it): ignored too */
	write_data(NULL, NULL, pr, 2, 3, CUT_SHORT);
	build(&o, "symbols", &lb, &res);
	assert_true(has_note(&res, "incomplete"));
	assert_int_equal(res.t->total.vals[COL_RSS], PAGE);
	report_result_free(&res);
	labels_free(lb);

	/* peak: the snapshot with the most resident pages */
	write_data(NULL, NULL, pr, 2, 3, CUT_NONE);
	o.pick = PICK_PEAK;
	build(&o, "symbols", &lb, &res);
	assert_int_equal(res.t->total.vals[COL_RSS], 2 * PAGE);
	report_result_free(&res);
	labels_free(lb);

	/* cut inside the last mapping record (before the 40-byte END
	 * record): read up to there, said so */
	assert_int_equal(stat(data, &st), 0);
	assert_int_equal(truncate(data, st.st_size - 40 - 5), 0);
	o.pick = PICK_LAST;
	build(&o, "symbols", &lb, &res);
	assert_true(has_note(&res, "damaged"));
	assert_true(has_note(&res, "incomplete"));
	assert_int_equal(res.t->total.vals[COL_RSS], PAGE);
	report_result_free(&res);
	labels_free(lb);
}

/* Recorded without PFNs (not root): no PSS, and the footer says so. */
static void test_no_pfn(void **state)
{
	struct sym two = nm_sym("fn_two");
	struct present pr[] = {{two.addr, MD_PG_PRESENT, 0}};
	struct report_opts o = {.pick = PICK_LAST};
	struct report_result res;
	struct labels *lb;

	(void)state;
	snap_flags = 0;
	write_data(NULL, NULL, pr, 1, 1, CUT_NONE);
	snap_flags = MD_SNAP_F_PFN;
	build(&o, "files", &lb, &res);
	assert_false(res.have_pss);
	assert_true(has_note(&res, "no PSS"));
	assert_int_equal(res.t->total.vals[COL_RSS], PAGE);
	assert_int_equal(res.t->total.vals[COL_PSS], 0);
	report_result_free(&res);
	labels_free(lb);
}

/* A mapping naming an image id when no IMAGE record was registered at all
 * (the image table is empty): classified without an image, no undefined
 * behaviour (the sanitizer build checks the look-up). */
static void test_no_images(void **state)
{
	struct labels *lb = labels_new();
	struct attrib *a = attrib_new(
	    lb, &(struct elf_map_opts){.debug_root = "/nonexistent"});
	struct attrib_map m = {.start = 0x1000,
			       .end = 0x3000,
			       .prot = PROT_READ,
			       .flags = MAP_PRIVATE,
			       .image_id = 3,
			       .name = "/lib/none.so"};
	struct attrib_part parts[2];
	int n;

	(void)state;
	n = attrib_classify(a, &m, NULL, parts);
	assert_true(n >= 1);
	assert_null(parts[0].img);
	assert_int_not_equal(parts[0].cls, ACLS_IMAGE);
	assert_null(attrib_image_elf(a, 3));
	attrib_free(a);
	labels_free(lb);
}

static void test_keys_parse(void **state)
{
	enum key_id k[KEYS_MAX];
	char *bad;

	(void)state;
	assert_int_equal(keys_parse("files,symbols", KEY_IN_REPORT, k, &bad),
			 2);
	assert_int_equal(k[0], KEY_FILES);
	assert_int_equal(k[1], KEY_SYMBOLS);
	assert_int_equal(keys_parse("files,nope", KEY_IN_REPORT, k, &bad), -1);
	assert_string_equal(bad, "nope");
	free(bad);
	assert_int_equal(keys_parse("files,files", KEY_IN_REPORT, k, &bad), -1);
	free(bad);
	/* one key past KEYS_MAX (8) is told apart from an unknown one */
	assert_int_equal(keys_parse("pids,comms,users,files,mappings,segments,"
				    "sections,symbols,kinds",
				    KEY_IN_REPORT, k, &bad),
			 -E2BIG);
	assert_string_equal(bad, "kinds");
	free(bad);
	/* a key of the other command is refused by name */
	assert_int_equal(keys_parse("sections,pids", KEY_IN_SIZE, k, &bad), -1);
	assert_string_equal(bad, "pids");
	free(bad);
	assert_string_equal(keys_list(KEY_IN_SIZE),
			    "files, inputfiles, armembers, segments, sections, "
			    "symbols, bbs, relocs, compileunits, inlines");
}

/* Every key is one row: labelled either by its hook or by an image map,
 * its needs and columns read from the row, and the hooks' labels. */
static void test_keys_rows(void **state)
{
	struct labels *lb = labels_new();
	struct key_proc kp;
	struct attrib_map m = {.start = 0x1000,
			       .end = 0x3000,
			       .prot = PROT_READ | PROT_EXEC,
			       .name = "/bin/x"};
	struct key_at at = {.lb = lb, .proc = &kp, .map = &m};
	enum key_id files = KEY_FILES, relocs = KEY_RELOCS;
	enum key_id fk[] = {KEY_FILES, KEY_CALLERS, KEY_SYMBOLS};
	char longname[200];

	(void)state;
	for (int k = 0; k < KEY__COUNT; k++) {
		const struct keydef *kd = &keydefs[k];

		/* one way to make its labels */
		assert_true(!kd->label != (kd->map == KEYMAP_NONE));
		/* size has no processes nor fault samples to hand a hook */
		if (kd->needs & (KEY_NEEDS_PROCS | KEY_NEEDS_FAULTS))
			assert_false(kd->cmds & KEY_IN_SIZE);
	}
	assert_int_equal(keys_needs(fk, 3), KEY_NEEDS_FAULTS | KEY_NEEDS_JIT);
	assert_int_equal(keys_needs(&files, 1), 0);
	assert_true(keys_cols_missing(&files, 1) & (1u << COL_RELOCS));
	assert_int_equal(keys_cols_missing(&relocs, 1), 0);
	assert_int_equal(keys_of_col(COL_RELOCS), KEY_RELOCS);
	assert_int_equal(keys_of_col(COL_RSS), KEY__COUNT);
	assert_int_equal(keys_code_key(), KEY_SYMBOLS);

	keys_proc_init(&kp, 42);
	assert_string_equal(labels_str(lb, keydefs[KEY_PIDS].label(&at)), "42");
	assert_string_equal(labels_str(lb, keydefs[KEY_COMMS].label(&at)),
			    "[unknown]");
	assert_string_equal(labels_str(lb, keydefs[KEY_USERS].label(&at)),
			    "[unknown user]");
	assert_string_equal(labels_str(lb, keydefs[KEY_MAPPINGS].label(&at)),
			    "00001000-00003000 r-xp /bin/x");
	/* a long command line is whole (the table cuts it to its width);
	 * a label is made once per process */
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	keys_proc_init(&kp, 7);
	kp.comm = "sh";
	kp.cmdline = longname;
	kp.user = "root";
	assert_int_equal(strlen(labels_str(lb, keydefs[KEY_PIDS].label(&at))),
			 2 + sizeof(longname) - 1);
	kp.cmdline = NULL;
	assert_int_equal(strlen(labels_str(lb, keydefs[KEY_PIDS].label(&at))),
			 2 + sizeof(longname) - 1);
	assert_true(keydefs[KEY_PIDS].flags & KEYF_CUT_END);
	assert_string_equal(labels_str(lb, keydefs[KEY_COMMS].label(&at)),
			    "sh");
	assert_string_equal(labels_str(lb, keydefs[KEY_USERS].label(&at)),
			    "root");
	at.file_label = labels_intern(lb, "/lib/libc.so.6");
	at.callers = labels_intern(lb, "main;f");
	at.site = labels_intern(lb, "f");
	assert_int_equal(keydefs[KEY_FILES].label(&at), at.file_label);
	assert_int_equal(keydefs[KEY_CALLERS].label(&at), at.callers);
	assert_int_equal(keydefs[KEY_FAULTSITE].label(&at), at.site);
	labels_free(lb);
}

/* What a file not ELF now is checked by (report/imgcheck.c) follows the
 * kind its IMAGE record gives: recorded as ELF, it was rewritten; as not
 * ELF, its device and inode alone must match (a data file written since
 * keeps its path); of unknown kind (no IMAGE_KIND record), as before,
 * how it changed told for the note. Recorded as not ELF, a file that is
 * ELF now is never the one recorded. */
static void test_image_kinds(void **state)
{
	char *path = xasprintf("%s/data.bin", tmpdir);
	struct md_image r = {.path = path, .open_path = ""};
	struct stat st;
	char *why;
	FILE *f = fopen(path, "w");

	(void)state;
	assert_non_null(f);
	assert_true(fputs("data", f) >= 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(stat(path, &st), 0);
	r.dev_major = major(st.st_dev);
	r.dev_minor = minor(st.st_dev);
	r.ino = st.st_ino;
	r.size = (uint64_t)st.st_size + 1; /* written since the recording */

	r.kind = MD_IMAGE_NOT_ELF;
	assert_null(imgcheck_not_elf(&r, path));
	why = imgcheck_verify(&r, NULL, path);
	assert_string_equal(why, "an ELF file now, not an ELF file when "
				 "recorded");
	free(why);
	r.kind = MD_IMAGE_UNKNOWN;
	assert_null(imgcheck_not_elf(&r, path));
	why = imgcheck_moved(&r, path);
	assert_string_equal(why, "size 4 on disk, 5 recorded");
	free(why);
	r.kind = MD_IMAGE_ELF;
	why = imgcheck_not_elf(&r, path);
	assert_string_equal(why, "not an ELF file now, an ELF file when "
				 "recorded");
	free(why);
	r.ino++; /* another file, whatever its kind */
	for (uint32_t k = 0; k < MD_IMAGE__COUNT; k++) {
		r.kind = k;
		why = imgcheck_not_elf(&r, path);
		assert_string_equal(why, "not the same file (device or inode "
					 "differs)");
		free(why);
	}
	r.kind = MD_IMAGE_NOT_ELF;
	why = imgcheck_verify(&r, NULL, path);
	assert_string_equal(why, "not the same file (device or inode "
				 "differs)");
	free(why);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keys_parse),
	    cmocka_unit_test(test_keys_rows),
	    cmocka_unit_test(test_no_images),
	    cmocka_unit_test(test_symbols_exact),
	    cmocka_unit_test(test_bss_tail),
	    cmocka_unit_test(test_replaced_image),
	    cmocka_unit_test(test_same_image_twice),
	    cmocka_unit_test(test_missing_image),
	    cmocka_unit_test(test_truncated_and_incomplete),
	    cmocka_unit_test(test_no_pfn),
	    cmocka_unit_test(test_image_kinds),
	};

	return test_run_group(tests, setup, teardown);
}
