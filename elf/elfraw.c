// SPDX-License-Identifier: GPL-2.0-or-later
/* elfraw.c — elfimg_raw(): the whole file, read once. */
#include "config.h"

#include "elf/elfimg.h"
#include "elf/elfpriv.h"
#include "util/util.h"

#include <errno.h>
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
