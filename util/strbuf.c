// SPDX-License-Identifier: GPL-2.0-or-later
/* strbuf.c — see strbuf.h. */
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void strbuf_add(struct strbuf *sb, const char *s, size_t n)
{
	xgrow(&sb->buf, &sb->cap, sb->len + n + 1, 1);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_adds(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	/* first into the room there is; if it did not fit, again with
	 * room for all of it */
	xgrow(&sb->buf, &sb->cap, sb->len + 1, 1);
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort(); /* a bad format, or past INT_MAX bytes: a bug */
	if ((size_t)n >= sb->cap - sb->len) {
		xgrow(&sb->buf, &sb->cap, sb->len + (size_t)n + 1, 1);
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

char *strbuf_detach(struct strbuf *sb)
{
	char *s = sb->buf ? sb->buf : xstrdup("");

	memset(sb, 0, sizeof(*sb));
	return s;
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void strbuf_free(struct strbuf *sb)
{
	if (!sb)
		return;
	free(sb->buf);
	memset(sb, 0, sizeof(*sb));
}
