// SPDX-License-Identifier: GPL-2.0-or-later
/* elfraw.c — elfimg_raw(): the whole file, read once. */
#include "config.h"

#include "elf/elfimg.h"
#include "elf/elfpriv.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Read, not taken from libelf: elf_rawfile() on an image libelf reads
 * (ELF_C_READ) reads the file again and leaks the section data it had
 * read, and a mapping would fault (SIGBUS) if the file were truncated. */
const void *elfimg_raw(struct elfimg *img, size_t *len)
{
	struct elfimg_priv *priv = img->priv;
	size_t got = 0;

	if (!priv->raw && img->file_size && img->file_size <= SIZE_MAX) {
		priv->raw = xmalloc((size_t)img->file_size);
		while (got < img->file_size) {
			ssize_t n =
			    pread(priv->fd, priv->raw + got,
				  (size_t)img->file_size - got, (off_t)got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break; /* truncated meanwhile: what is there */
			got += (size_t)n;
		}
		priv->raw_len = got;
	}
	*len = priv->raw ? priv->raw_len : 0;
	return priv->raw;
}

void elf_window_init(struct elf_window *w, struct elfimg *img, size_t cap)
{
	struct elfimg_priv *priv = img->priv;

	memset(w, 0, sizeof(*w));
	w->fd = priv->fd;
	w->cap = cap;
}

const unsigned char *elf_window_get(struct elf_window *w, uint64_t off,
				    size_t len)
{
	return elf_window_get_ahead(w, off, len, w->cap);
}

const unsigned char *elf_window_held(const struct elf_window *w, uint64_t off,
				     size_t len)
{
	if (w->buf && off >= w->off && off - w->off <= w->len &&
	    len <= w->len - (off - w->off))
		return w->buf + (off - w->off);
	return NULL;
}

const unsigned char *elf_window_get_ahead(struct elf_window *w, uint64_t off,
					  size_t len, size_t want)
{
	const unsigned char *held;
	size_t got = 0;

	if (len > w->cap)
		return NULL;
	held = elf_window_held(w, off, len);
	if (held)
		return held;
	if (!w->buf)
		w->buf = xmalloc(w->cap);
	/* read ahead from off: callers go forward through the file */
	want = MIN(MAX(want, len), w->cap);
	while (got < want) {
		ssize_t n =
		    pread(w->fd, w->buf + got, want - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* end of file (or truncated meanwhile) */
		got += (size_t)n;
	}
	w->off = off;
	w->len = got;
	return len <= got ? w->buf : NULL;
}

void elf_window_free(struct elf_window *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = 0;
}
