// SPDX-License-Identifier: GPL-2.0-or-later
/* json_writer.c — see json_writer.h */
#include "config.h"

#include "rows/json_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct jw {
	FILE *f;
	bool pretty;
	bool first;	 /* current container holds no element yet */
	bool after_name; /* a member name was written, its value is next */
	bool wrote;	 /* anything written at all */
	unsigned depth;
	int err; /* first write error, as -errno */
};

static void jw_fail(struct jw *w)
{
	if (!w->err)
		w->err = errno ? -errno : -EIO;
}

static void jw_putc(struct jw *w, int c)
{
	if (fputc_unlocked(c, w->f) == EOF)
		jw_fail(w);
}

static void jw_puts(struct jw *w, const char *s)
{
	if (fputs_unlocked(s, w->f) == EOF)
		jw_fail(w);
}

struct jw *jw_new(FILE *f, bool pretty)
{
	struct jw *w = xcalloc(1, sizeof(*w));

	w->f = f;
	w->pretty = pretty;
	w->first = true;
	return w;
}

int jw_finish(struct jw *w)
{
	int err;

	if (!w)
		return 0;
	if (w->wrote)
		jw_putc(w, '\n');
	errno = 0;
	if (fflush(w->f) == EOF || ferror(w->f))
		jw_fail(w);
	err = w->err;
	free(w);
	return err;
}

static void jw_indent(struct jw *w)
{
	unsigned i;

	jw_putc(w, '\n');
	for (i = 0; i < w->depth; i++)
		jw_puts(w, "  ");
}

/* Comma, newline and indent before an element of the current container. */
static void jw_begin_elem(struct jw *w)
{
	w->wrote = true;
	if (w->after_name) {
		w->after_name = false;
		return;
	}
	if (!w->depth)
		return;
	if (!w->first)
		jw_putc(w, ',');
	if (w->pretty)
		jw_indent(w);
	w->first = false;
}

static void jw_start(struct jw *w, int c)
{
	jw_begin_elem(w);
	jw_putc(w, c);
	w->depth++;
	w->first = true;
}

static void jw_end(struct jw *w, int c)
{
	if (w->depth)
		w->depth--;
	if (w->pretty && !w->first)
		jw_indent(w);
	jw_putc(w, c);
	w->first = false;
}

void jw_start_object(struct jw *w)
{
	jw_start(w, '{');
}

void jw_end_object(struct jw *w)
{
	jw_end(w, '}');
}

void jw_start_array(struct jw *w)
{
	jw_start(w, '[');
}

void jw_end_array(struct jw *w)
{
	jw_end(w, ']');
}

static int put_run(FILE *f, const unsigned char *s, size_t n)
{
	return n && fwrite_unlocked(s, 1, n, f) != n ? -1 : 0;
}

int json_escape(FILE *f, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0, len;
	uint32_t cp;
	char esc[7];

	while (i < n) {
		unsigned char c = s[i];
		const char *e = NULL;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80) {
			len = utf8_decode(s + i, n - i, &cp);
			/* a C1 control (U+0080..U+009F) escaped too: a
			 * terminal may take U+009B as CSI */
			if (len && cp >= 0xa0) {
				i += len;
				continue;
			}
			if (len) {
				if (put_run(f, s + run, i - run) ||
				    fprintf(f, "\\u%04x", (unsigned)cp) < 0)
					return -1;
				run = i += len;
				continue;
			}
		}
		/* s[run..i) is plain; c needs an escape */
		if (put_run(f, s + run, i - run))
			return -1;
		switch (c) {
		case '"':
			e = "\\\"";
			break;
		case '\\':
			e = "\\\\";
			break;
		case '\b':
			e = "\\b";
			break;
		case '\f':
			e = "\\f";
			break;
		case '\n':
			e = "\\n";
			break;
		case '\r':
			e = "\\r";
			break;
		case '\t':
			e = "\\t";
			break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			esc[6] = 0;
			e = esc;
		}
		if (fputs_unlocked(e, f) == EOF)
			return -1;
		run = ++i;
	}
	return put_run(f, s + run, i - run);
}

void jw_string_n(struct jw *w, const char *s, size_t n)
{
	jw_begin_elem(w);
	jw_putc(w, '"');
	if (json_escape(w->f, s, n))
		jw_fail(w);
	jw_putc(w, '"');
}

void jw_string(struct jw *w, const char *s)
{
	jw_string_n(w, s, strlen(s));
}

void jw_name(struct jw *w, const char *name)
{
	jw_string(w, name);
	jw_puts(w, w->pretty ? ": " : ":");
	w->after_name = true;
}

void jw_number(struct jw *w, const char *num)
{
	jw_begin_elem(w);
	jw_puts(w, num);
}

void jw_uint(struct jw *w, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	jw_number(w, buf);
}

void jw_int(struct jw *w, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	jw_number(w, buf);
}

void jw_bool(struct jw *w, bool v)
{
	jw_number(w, v ? "true" : "false");
}

void jw_null(struct jw *w)
{
	jw_number(w, "null");
}

void jw_string_field(struct jw *w, const char *name, const char *s)
{
	jw_name(w, name);
	jw_string(w, s);
}

void jw_uint_field(struct jw *w, const char *name, uint64_t v)
{
	jw_name(w, name);
	jw_uint(w, v);
}
