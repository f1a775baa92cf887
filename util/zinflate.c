// SPDX-License-Identifier: GPL-2.0-or-later
/* zinflate.c — inflate whole zlib streams with zlib; see zinflate.h.
 *
 * The loop is libelf's own (__libelf_decompress()): one inflate() with
 * Z_FINISH per stream, inflateReset() between streams, so that no match
 * reaches into the previous stream's output, and the output must come out
 * exactly as long as the compression header says. With all of the input
 * and an output buffer of the final size, zlib inflates straight into the
 * caller's buffer and never allocates its window. */
#include "config.h"

#include "util/zinflate.h"

#include <errno.h>
#include <limits.h>
#include <zlib.h>

int zinflate(const unsigned char *in, size_t in_len, unsigned char *out,
	     size_t out_len)
{
	z_stream z = {
	    .next_in = (Bytef *)in,
	    .avail_in = (uInt)in_len,
	    .next_out = out,
	    .avail_out = (uInt)out_len,
	};
	int rc;

	if (in_len > UINT_MAX || out_len > UINT_MAX)
		return -EINVAL;
	if (inflateInit(&z) != Z_OK)
		return -ENOMEM;
	rc = Z_OK;
	while (z.avail_in > 0 && rc == Z_OK) {
		rc = inflate(&z, Z_FINISH);
		rc = rc == Z_STREAM_END ? inflateReset(&z) : Z_DATA_ERROR;
	}
	inflateEnd(&z);
	return rc == Z_OK && z.avail_out == 0 ? 0 : -EINVAL;
}
