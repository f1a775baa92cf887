// SPDX-License-Identifier: GPL-2.0-or-later
/* test_datafile_image.c — the memsz.data codec's IMAGE_KIND record:
 * whether the file of an IMAGE record was ELF when recorded, written
 * after it when known, read back and printed; one that breaks the rules
 * handed out ignored, the read going on. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/datafile.h"
#include "data/dfcodec.h"
#include "tests/datafile_fixture.h"
#include "tests/testutil.h"
#include "util/util.h"

/* The record after the IMAGE record of the file path and skip more
 * (with the n bytes at offset at replaced by bytes; n 0: as written):
 * its type, 0 if none; *why is its dump line (static storage, see
 * print_record) or the reader's reason of an error. */
static int after_image(const char *path, size_t at, const void *bytes, size_t n,
		       int skip, const char **why)
{
	struct md_reader *r;
	struct md_record rec;
	int ret;

	if (n)
		assert_int_equal(open_patched(path, at, bytes, n, &r), 0);
	else
		assert_int_equal(md_reader_open(path, &r), 0);
	assert_int_equal(md_read_next(r, &rec), 1);
	assert_int_equal(rec.type, MD_REC_IMAGE);
	assert_int_equal(rec.u.image.kind, MD_IMAGE_UNKNOWN);
	while (skip-- > 0)
		assert_int_equal(md_read_next(r, &rec), 1);
	ret = md_read_next(r, &rec);
	*why = ret < 0 && md_reader_why(r) ? md_reader_why(r) : "";
	if (ret == 1) {
		*why = print_record(&rec, false);
		ret = rec.type == MD_REC_END ? 0 : (int)rec.type;
	}
	md_reader_close(r);
	return ret;
}

/* path with IMAGE record im, then (if second) an IMAGE_KIND record of
 * its own for id second_id. */
static void write_image(const char *path, struct md_image *im, bool second,
			uint32_t second_id)
{
	struct md_record k = {
	    .type = MD_REC_IMAGE_KIND,
	    .u.image_kind = {.id = second_id, .kind = MD_IMAGE_ELF},
	};
	struct md_writer *w;
	uint32_t kind = im->kind;

	assert_int_equal(md_writer_open(path, &w), 0);
	im->kind = MD_IMAGE__COUNT;
	assert_int_equal(md_write_image(w, im), -EINVAL);
	im->kind = kind;
	assert_int_equal(md_write_image(w, im), 0);
	if (second)
		assert_int_equal(md_write_record(w, &k), 0);
	assert_int_equal(md_writer_commit(w), 0);
	assert_int_equal(md_writer_close(w), 0);
}

/* Whether a file was ELF (its kind) is an IMAGE_KIND record right after
 * the IMAGE record, written when the kind is known and printed by dump
 * as its own record; an unknown kind writes none (the file reads as
 * before the record type). A kind out of range, the kind of an image not
 * recorded, or a second kind for an image is ignored, not damage. */
static void test_image_kind(void **state)
{
	char *path = tpath("kind.data");
	struct md_image im = {.id = 1, .path = "/var/db/x", .open_path = ""};
	static const char *const dumped[] = {
	    "", "0xa8 [0x18]: IMAGE_KIND #1 elf yes\n",
	    "0xa8 [0x18]: IMAGE_KIND #1 elf no\n"};
	/* the IMAGE_KIND's payload: after the header, the IMAGE record (64
	 * bytes of fields, "/var/db/x" 16 and "" 8) and its own header */
	const size_t kind_at = 64 + 16 + 88 + 16;
	uint8_t le[4];
	const char *s;

	(void)state;
	for (uint32_t k = 0; k < MD_IMAGE__COUNT; k++) {
		im.kind = k;
		write_image(path, &im, false, 0);
		assert_int_equal(after_image(path, 0, NULL, 0, 0, &s),
				 k ? MD_REC_IMAGE_KIND : 0);
		if (k)
			assert_string_equal(s, dumped[k]);
	}
	/* the file of the last: NOT_ELF. A kind memsz does not know, the
	 * kind of an image not recorded, a second kind: handed out ignored
	 * (the kind is advisory), and the read goes on to END */
	put_le32(le, MD_IMAGE__COUNT);
	assert_int_equal(after_image(path, kind_at + 4, le, 4, 0, &s),
			 MD_REC_IMAGE_KIND);
	assert_string_equal(s, "0xa8 [0x18]: IMAGE_KIND #1 elf unknown (kind 3 "
			       "ignored: image kind unknown)\n");
	assert_int_equal(after_image(path, kind_at + 4, le, 4, 1, &s), 0);
	put_le32(le, MD_IMAGE_UNKNOWN);
	assert_int_equal(after_image(path, kind_at + 4, le, 4, 0, &s),
			 MD_REC_IMAGE_KIND);
	assert_string_equal(s, "0xa8 [0x18]: IMAGE_KIND #1 elf unknown (kind 0 "
			       "ignored: image kind unknown)\n");
	put_le32(le, 2);
	assert_int_equal(after_image(path, kind_at, le, 4, 0, &s),
			 MD_REC_IMAGE_KIND);
	assert_string_equal(s, "0xa8 [0x18]: IMAGE_KIND #2 elf no (kind 2 "
			       "ignored: image kind for an image not "
			       "recorded)\n");
	write_image(path, &im, true, 1);
	assert_int_equal(after_image(path, 0, NULL, 0, 0, &s),
			 MD_REC_IMAGE_KIND);
	assert_string_equal(s, dumped[MD_IMAGE_NOT_ELF]);
	assert_int_equal(after_image(path, 0, NULL, 0, 1, &s),
			 MD_REC_IMAGE_KIND);
	assert_string_equal(s, "0xc0 [0x18]: IMAGE_KIND #1 elf yes (kind 1 "
			       "ignored: a second IMAGE_KIND record for an "
			       "image)\n");
	assert_int_equal(after_image(path, 0, NULL, 0, 2, &s), 0);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_image_kind),
	};

	return test_run_group(tests, datafile_setup, datafile_teardown);
}
