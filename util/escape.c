// SPDX-License-Identifier: GPL-2.0-or-later
/* escape.c — text from elsewhere made safe to print (see escape.h). */
#include "config.h"

#include "util/escape.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c = s[0], min;
	size_t len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, c &= 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, c &= 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, c &= 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

size_t utf8_cut(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t k = n, len;

	while (n - k < 3 && k > 0 && (u[k] & 0xc0) == 0x80)
		k--;
	/* the lead byte's length: 2 from 0xc0, 3 from 0xe0, 4 from 0xf0 */
	len = u[k] >= 0xf0 ? 4 : u[k] >= 0xe0 ? 3 : u[k] >= 0xc0 ? 2 : 0;
	return k < n && k + len > n ? k : n;
}

char *str_escape(const char *str, size_t *ncp)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, len, pos = 0, cps = 0;
	char *out = xmalloc(n * 6 + 1);
	uint32_t cp;

	while (i < n) {
		if (s[i] >= 0x20 && s[i] < 0x7f) { /* printable ASCII */
			out[pos++] = (char)s[i++];
			cps++;
			continue;
		}
		len = utf8_decode(s + i, n - i, &cp);
		if (!len || cp < 0x20 || cp == 0x7f) {
			pos += (size_t)sprintf(out + pos, "\\x%02x", s[i]);
			cps += 4;
			i++;
		} else if (cp >= 0x80 && cp < 0xa0) {
			pos += (size_t)sprintf(out + pos, "\\u%04x", cp);
			cps += 6;
			i += len;
		} else {
			memcpy(out + pos, s + i, len);
			pos += len;
			cps++;
			i += len;
		}
	}
	out[pos] = 0;
	if (ncp)
		*ncp = cps;
	return out;
}

void fputs_escaped(const char *s, FILE *f)
{
	char *e;

	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			goto escape;
	fputs(s, f); /* plain ASCII: the common case, no copy */
	return;
escape:
	e = str_escape(s, NULL);
	fputs(e, f);
	free(e);
}
