/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json_writer.h — a small streaming JSON writer (no document tree).
 *
 * Values are written as they come; the writer only remembers how deep it
 * is and whether the current container already holds an element, so it
 * can place commas, and in pretty mode newlines and two-space indents.
 * Strings are escaped so that the output is always valid JSON: quotes,
 * backslashes and control characters are escaped, and bytes that are not
 * valid UTF-8 are written as \u00XX (the byte read as Latin-1).
 * Write errors are sticky and reported by jw_finish().
 */
#ifndef MEMSZ_ROWS_JSON_WRITER_H
#define MEMSZ_ROWS_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/escape.h"

struct jw;

/* New writer on f (borrowed; not closed). pretty: one element a line,
 * indented by two spaces a level; else compact. Free with jw_finish(). */
struct jw *jw_new(FILE *f, bool pretty);
/* Write the final newline, flush f and free the writer. Returns 0, or
 * -errno (-EIO if unknown) if any write failed. NULL returns 0. */
int jw_finish(struct jw *w);

/* Containers. Inside an object every value must follow a jw_name(). */
void jw_start_object(struct jw *w);
void jw_end_object(struct jw *w);
void jw_start_array(struct jw *w);
void jw_end_array(struct jw *w);
/* Member name of the next value in the current object. */
void jw_name(struct jw *w, const char *name);

/* Scalars. jw_string() escapes s (NUL-terminated); jw_string_n() takes n
 * bytes (may contain NUL, written as \u0000). jw_number() writes a number
 * the caller already formatted (e.g. "12.50"), verbatim. */
void jw_string(struct jw *w, const char *s);
void jw_string_n(struct jw *w, const char *s, size_t n);
void jw_uint(struct jw *w, uint64_t v);
void jw_int(struct jw *w, int64_t v);
void jw_number(struct jw *w, const char *num);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);

/* name + value in one call. */
void jw_string_field(struct jw *w, const char *name, const char *s);
void jw_uint_field(struct jw *w, const char *name, uint64_t v);

/* Escape the n bytes at s as the body of a JSON string (no quotes) to f:
 * C0 and C1 controls and DEL as \uHHHH (or \n, \t...), a byte that is
 * not UTF-8 as the code point of its value. Returns 0 or -1 on a write
 * error. */
int json_escape(FILE *f, const char *s, size_t n);

#endif
