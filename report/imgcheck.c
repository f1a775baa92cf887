// SPDX-License-Identifier: GPL-2.0-or-later
/* imgcheck.c — see imgcheck.h */
#include "config.h"

#include "report/imgcheck.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "elf/elfimg.h"
#include "util/util.h"

/* The image's own build-id against the recorded one; NULL if equal. */
static char *check_build_id(const struct md_image *r, const struct elfimg *img)
{
	size_t len = MIN(r->build_id_len, sizeof(r->build_id));
	struct elfimg rec = {.build_id_len = len};
	char want[2 * 20 + 1], got[2 * 64 + 1];

	if (img->build_id_len >= len &&
	    !memcmp(img->build_id, r->build_id, len))
		return NULL;
	/* the recorded build-id, in an elfimg to print it */
	memcpy(rec.build_id, r->build_id, len);
	elfimg_build_id_hex(&rec, want, sizeof(want));
	elfimg_build_id_hex(img, got, sizeof(got));
	return xasprintf("build-id %s on disk, %s recorded",
			 got[0] ? got : "(none)", want);
}

/* Compare path's device and inode and, if content, size and mtime with
 * those r has. */
static char *check_stat(const struct md_image *r, const char *path,
			bool content)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return xasprintf("cannot stat: %s", strerror(errno));
	if (r->ino &&
	    (st.st_ino != r->ino || major(st.st_dev) != r->dev_major ||
	     minor(st.st_dev) != r->dev_minor))
		return xstrdup("not the same file (device or inode differs)");
	if (!content)
		return NULL;
	if (r->size && (uint64_t)st.st_size != r->size)
		return xasprintf("size %llu on disk, %llu recorded",
				 (unsigned long long)st.st_size,
				 (unsigned long long)r->size);
	if (r->mtime_ns &&
	    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec !=
		r->mtime_ns)
		return xstrdup("modified since it was recorded (mtime)");
	return NULL;
}

char *imgcheck_verify(const struct md_image *r, const struct elfimg *img,
		      const char *path)
{
	char *why;

	/* a data file rewritten in place as an ELF file: its sections and
	 * symbols must not label the data the recording mapped. Another
	 * file at its path (device or inode) is said to be that first */
	if (r->kind == MD_IMAGE_NOT_ELF) {
		why = check_stat(r, path, false);
		return why ? why
			   : xstrdup("an ELF file now, not an ELF file when "
				     "recorded");
	}
	return r->build_id_len ? check_build_id(r, img)
			       : check_stat(r, path, true);
}

char *imgcheck_not_elf(const struct md_image *r, const char *path)
{
	char *why;

	if (r->build_id_len)
		return xstrdup("not an ELF file now, an ELF file with a "
			       "build-id when recorded");
	/* the same file (device and inode), whatever its size and mtime: a
	 * data file a process writes to through a shared mapping, or grows,
	 * gets a new mtime or size while it is recorded and after. Nothing
	 * inside a file that is not ELF is labelled, so its path is the
	 * one label. A recording that does not say whether the file was
	 * ELF (no IMAGE_KIND record) is read so too: imgcheck_moved() tells
	 * the note of a file that may have been ELF (one without a build-id
	 * rewritten in place) */
	why = check_stat(r, path, false);
	/* recorded as ELF (IMAGE_KIND) and the same file: one without a
	 * build-id, rewritten in place into something else */
	if (why || r->kind != MD_IMAGE_ELF)
		return why;
	return xstrdup("not an ELF file now, an ELF file when recorded");
}

char *imgcheck_moved(const struct md_image *r, const char *path)
{
	return check_stat(r, path, true);
}

char *imgcheck_label(const char *prefix, const char *path)
{
	static const char deleted[] = " (deleted)";
	size_t len = strlen(path), n = sizeof(deleted) - 1;

	if (len >= n && !strcmp(path + len - n, deleted))
		len -= n;
	return xasprintf("%s %.*s", prefix, (int)len, path);
}
