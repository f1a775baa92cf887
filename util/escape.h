/* SPDX-License-Identifier: GPL-2.0-or-later */
/* escape.h — text that came from elsewhere (process names, command
 * lines, file names, symbols: chosen by whoever ran or built them) made
 * safe to print: no byte of it can drive a terminal or break a line.
 *
 * Escaped: C0 controls and DEL as \xHH, C1 controls (U+0080..U+009F) as
 * \uHHHH, bytes that are not valid UTF-8 as \xHH. Everything else,
 * backslashes included, is kept as it is. */
#ifndef MEMSZ_UTIL_ESCAPE_H
#define MEMSZ_UTIL_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Length (1..4) of the valid UTF-8 sequence at s[0..n-1], storing its code
 * point in *cp; 0 if s does not start with a valid, shortest-form sequence
 * of a Unicode scalar value (no surrogates, at most U+10FFFF). n >= 1. */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* Where to cut the string s before byte n without splitting a UTF-8
 * character: n, or, when s[n] continues a character that begins at most
 * 3 bytes before and reaches past n, where it begins. s[n] must be
 * readable (a NUL is fine). */
size_t utf8_cut(const char *s, size_t n);

/* s escaped (see above), malloc'd; *ncp, unless ncp is NULL, gets its
 * length in code points. */
char *str_escape(const char *s, size_t *ncp);

/* s escaped (see above) written to f. */
void fputs_escaped(const char *s, FILE *f);

#endif
