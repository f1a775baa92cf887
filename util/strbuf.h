/* SPDX-License-Identifier: GPL-2.0-or-later */
/* strbuf.h — a growable string, for text built piece by piece.
 *
 * A zeroed struct strbuf (STRBUF_INIT) is the empty string. buf is NULL
 * until something is added, then always NUL-terminated, len bytes long;
 * strbuf_str() reads either. Take the string with strbuf_detach(), or
 * release it with strbuf_free().
 */
#ifndef MEMSZ_UTIL_STRBUF_H
#define MEMSZ_UTIL_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len, cap;
};

#define STRBUF_INIT                                                            \
	{                                                                      \
		NULL, 0, 0                                                     \
	}

/* Append the n bytes at s (need not be NUL-terminated). */
void strbuf_add(struct strbuf *sb, const char *s, size_t n);
/* Append the string s. */
void strbuf_adds(struct strbuf *sb, const char *s);
/* Append printf(fmt, ...). */
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The string so far: "" while empty. Borrowed: valid until the next call
 * on sb. */
const char *strbuf_str(const struct strbuf *sb);

/* The string, malloc'd (never NULL; caller frees); sb is empty again. */
char *strbuf_detach(struct strbuf *sb);
/* Empty sb, keeping its room for what comes next. */
void strbuf_reset(struct strbuf *sb);
/* Free the string; sb is empty again. NULL is fine. */
void strbuf_free(struct strbuf *sb);

#endif
