// SPDX-License-Identifier: GPL-2.0-or-later
/* xrefstr.c — text or string literal at an immediate's target (see
 * xrefstr.h). */
#include "config.h"

#include "elf/xrefstr.h"
#include "util/util.h"

#include <string.h>

/* An immediate's target is read as text over this many bytes at most
 * (str_probe()): a run of text bytes this long is text, whatever
 * follows */
#define XREF_TEXT 4096
/* A string an immediate names starts with this many text bytes or more
 * (str_probe()): binary data may start with one and a zero (Python's
 * marshalled code, "c\0\0\0", a UTF-16 or UTF-32 string) */
#define XREF_STR_MIN 2
/* the window str_probe() reads data through, and how far ahead it reads
 * on a miss */
#define XREF_PROBE_WINDOW (64 * 1024)
#define XREF_PROBE_AHEAD 4096

/* Is c a byte of text: printable ASCII, tab, newline, carriage
 * return? */
static bool text_byte(uint8_t c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n' || c == '\r';
}

/* The bytes of section d (PROGBITS) from VM address at on, at least one
 * and *avail of them, read through p's window; NULL if the file ends
 * first. */
static const uint8_t *probe_bytes(struct strprobe *p,
				  const struct elf_section *d, uint64_t at,
				  size_t *avail)
{
	uint64_t left = d->addr + d->size - at,
		 off = d->offset + (at - d->addr);
	size_t len = (size_t)MIN(left, (uint64_t)64);
	const uint8_t *b =
	    elf_window_get_ahead(&p->w, off, len, XREF_PROBE_AHEAD);

	if (b)
		*avail = (size_t)MIN(left, p->w.off + p->w.len - off);
	return b;
}

/* a string literal is packed against the next (GCC's .rodata.str1.1)
 * or padded with NULs to this many bytes (.rodata.str1.8): str_literal() */
#define XREF_STR_ALIGN 8
/* GCC aligns a string literal of this many text bytes or more (and its
 * NUL) to XREF_STR_ALIGN: str_literal() */
#define XREF_STR_LONG 31
/* binary data that holds an int, and a struct or array that does,
 * starts at a multiple of this many bytes (the int's alignment); a
 * string literal packed in .rodata.str1.1 starts anywhere:
 * str_literal() */
#define XREF_INT_ALIGN 4

/* Does the text from VM address t to the NUL at nul (section d) make a
 * string literal, and where do the NULs that pad it end (into *end: the
 * next multiple of XREF_STR_ALIGN at most)? It does if t is no multiple
 * of XREF_INT_ALIGN (no data with an int starts there), if the text is
 * XREF_STR_LONG bytes long or more (what follows its padding is another
 * object, which may start with zeros: V8's vtables, built without
 * RTTI), or if the bytes after the NUL are NULs up to nothing or up to
 * the next multiple of XREF_STR_ALIGN exactly, and then come text (the
 * next string, which may be one no code names) or d's end. Else the
 * zeros are binary data: a short char[] that starts a struct ({"ab", 1,
 * 2}: 13 more NULs, then an int) or an int whose low bytes are printable
 * (0x4241: one more NUL, then the next int), and the target stands as an
 * address (its range runs to the next target or label as for any data).
 * A target or label right after the padding need not be asked for: it
 * ends the range there either way. A file that ends first reads as no
 * string. */
static bool str_literal(struct strprobe *p, const struct elf_section *d,
			uint64_t t, uint64_t nul, uint64_t *end)
{
	uint64_t at = nul + 1, dend = d->addr + d->size;
	size_t pad = (size_t)((XREF_STR_ALIGN - at % XREF_STR_ALIGN) %
			      XREF_STR_ALIGN),
	       avail, i = 0;
	const uint8_t *b;

	if (at >= dend) {
		*end = dend;
		return true;
	}
	b = probe_bytes(p, d, at, &avail);
	if (!b)
		return false;
	while (i < pad && i < avail && !b[i])
		i++;
	*end = at + i;
	if (t % XREF_INT_ALIGN || nul - t >= XREF_STR_LONG || *end >= dend)
		return true;
	/* NULs that stop short of the boundary, or run on past it */
	if ((i && i < pad) || i >= avail)
		return false;
	return text_byte(b[i]);
}

enum strpos str_probe(struct strprobe *p, const struct elf_section *d,
		      uint64_t t, uint64_t *end)
{
	const uint8_t *b;
	size_t avail, i, lim;

	if (d->type != SHT_PROGBITS)
		return STR_NONE;
	/* a new run unless the byte before t is in the last one */
	if (p->d != d || p->a >= t || t > p->z) {
		p->d = d;
		p->a = p->z = t;
		p->nul = p->done = false;
		if (t > d->addr) {
			b = probe_bytes(p, d, t - 1, &avail);
			if (!b) {
				p->done = true;
				return STR_NONE;
			}
			if (text_byte(b[0]))
				p->a = t - 1;
		}
	}
	while (!p->nul && !p->done && p->z - t < XREF_TEXT) {
		if (p->z >= d->addr + d->size) {
			p->done = true;
			break;
		}
		b = probe_bytes(p, d, p->z, &avail);
		if (!b) {
			p->done = true;
			break;
		}
		lim = (size_t)MIN((uint64_t)avail, t + XREF_TEXT - p->z);
		for (i = 0; i < lim && text_byte(b[i]); i++)
			;
		p->z += i;
		if (i < lim) {
			p->nul = b[i] == 0;
			p->done = !p->nul;
		}
	}
	if (p->a < t) /* the byte before t is text */
		return p->nul || (!p->done && p->z - t >= XREF_TEXT)
			   ? STR_INSIDE
			   : STR_NONE;
	if (p->nul && p->z - t >= XREF_STR_MIN &&
	    str_literal(p, d, t, p->z, end))
		return STR_START;
	return STR_NONE;
}

void strprobe_init(struct strprobe *p, struct elfimg *img)
{
	memset(p, 0, sizeof(*p));
	elf_window_init(&p->w, img, XREF_PROBE_WINDOW);
}

void strprobe_free(struct strprobe *p)
{
	elf_window_free(&p->w);
}
