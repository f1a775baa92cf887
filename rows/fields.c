// SPDX-License-Identifier: GPL-2.0-or-later
/* fields.c — see fields.h */
#include "config.h"

#include "rows/fields.h"
#include "util/escape.h"
#include "util/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "rows/json_writer.h"
#include "util/util.h"

void out_csv_field(FILE *f, const char *str, bool tsv)
{
	char *s = str_escape(str, NULL);
	/* a spreadsheet would run a cell that starts so as a formula */
	bool formula = s[0] && strchr("=+-@", s[0]);

	if (tsv) {
		if (formula)
			fputc('\'', f);
		fputs(s, f);
	} else if (!formula && !strpbrk(s, ",\"")) {
		fputs(s, f);
	} else {
		fputs(formula ? "\"'" : "\"", f);
		for (const char *p = s; *p; p++) {
			if (*p == '"')
				fputc('"', f);
			fputc(*p, f);
		}
		fputc('"', f);
	}
	free(s);
}

/* The C.UTF-8 locale cp_cols() asks, or (locale_t)0 where it is not
 * installed: glibc's wcwidth() takes its width table from the locale's
 * LC_CTYPE file (/usr/lib/locale/C.utf8, in Debian's libc-bin), its
 * built-in C locale is ASCII only, and no library memsz links (libdw,
 * libelf, libzstd, protobuf-c, zlib, libiberty) has one of its own. */
static locale_t utf8_locale;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;

static void utf8_locale_open(void)
{
	utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/* Terminal columns of code point cp: 2 for East Asian wide characters, 0
 * for combining marks, as the C library's wcwidth() says in a UTF-8
 * locale (C.UTF-8, used for this call only: the process's locale is not
 * changed); 1 where that locale is missing (then labels are cut by code
 * points: memsz-report(1), --width). Opened once, by any thread. */
static size_t cp_cols(uint32_t cp)
{
	locale_t old;
	int w;

	if (cp < 0x300) /* ASCII, Latin: no wide or combining one */
		return 1;
	pthread_once(&utf8_once, utf8_locale_open);
	if (!utf8_locale)
		return 1;
	old = uselocale(utf8_locale);
	w = wcwidth((wchar_t)cp);
	uselocale(old);
	return w < 0 ? 1 : (size_t)w;
}

/* The code point of safe (valid UTF-8) s at byte i, and its length. */
static size_t cp_at(const char *s, size_t len, size_t i, uint32_t *cp)
{
	size_t n = utf8_decode((const unsigned char *)s + i, len - i, cp);

	if (!n) { /* not after str_escape(); one byte, one column */
		*cp = 0x3f;
		n = 1;
	}
	return n;
}

/* Add the len bytes of safe label s to sb in at most max terminal columns
 * (0: no limit), cut as out_label_add() says: whole code points, a wide
 * one as two columns, a combining mark kept with the character before
 * it (never after the ellipsis). */
static void label_add_safe(struct strbuf *sb, const char *s, size_t len,
			   size_t max, bool cut_end, bool ascii)
{
	size_t total = 0, head, tail, h = 0, t = len, c = 0, k;
	uint32_t cp;

	if (ascii) /* printable ASCII: a column is a byte */
		total = len;
	else
		for (size_t i = 0; i < len; i += k) {
			k = cp_at(s, len, i, &cp);
			total += cp_cols(cp);
		}
	if (!max || total <= max) {
		strbuf_add(sb, s, len);
		return;
	}
	head = cut_end ? max - 1 : (max - 1) / 2;
	tail = max - 1 - head;
	if (ascii) {
		h = head;
		t = len - tail;
	} else {
		/* the head: characters while they fit, and the marks that
		 * combine with the last */
		for (; h < len; h += k) {
			k = cp_at(s, len, h, &cp);
			if (c + cp_cols(cp) > head)
				break;
			c += cp_cols(cp);
		}
		/* the tail: from the end, then past marks it would start
		 * with (their character is cut) */
		for (c = 0; t > h;) {
			size_t b = t - 1;

			while (b > h && ((unsigned char)s[b] & 0xc0) == 0x80)
				b--;
			cp_at(s, len, b, &cp);
			if (c + cp_cols(cp) > tail)
				break;
			c += cp_cols(cp);
			t = b;
		}
		while (t < len && (k = cp_at(s, len, t, &cp)) && !cp_cols(cp))
			t += k;
	}
	strbuf_add(sb, s, h);
	strbuf_add(sb, "\u2026", strlen("\u2026"));
	strbuf_add(sb, s + t, len - t);
}

/* True if the n bytes at s are all printable ASCII (0x20..0x7e): eight
 * at a time, a byte at 0x80 or over, at 0x7f or over, or under 0x20
 * setting its top bit in one of three words (no carry crosses bytes
 * once none is at 0x80 or over; the third is the exact test of whether
 * some byte is under 0x20). */
static bool printable_ascii(const char *s, size_t n)
{
	const uint64_t ones = UINT64_C(0x0101010101010101), high = ones * 0x80;
	size_t i = 0;
	uint64_t x;

	for (; i + 8 <= n; i += 8) {
		memcpy(&x, s + i, sizeof(x));
		if ((x | (x + ones) | ((x - ones * 0x20) & ~x)) & high)
			return false;
	}
	for (; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

void out_label_add(struct strbuf *sb, const char *str, size_t max, bool cut_end)
{
	size_t n = strlen(str);
	char *s;

	/* printable ASCII (most labels) is safe as it is: no copy */
	if (printable_ascii(str, n)) {
		label_add_safe(sb, str, n, max, cut_end, true);
		return;
	}
	s = str_escape(str, NULL);
	label_add_safe(sb, s, strlen(s), max, cut_end, false);
	free(s);
}

void out_put_label(FILE *f, const char *str, size_t max, bool cut_end)
{
	struct strbuf sb = STRBUF_INIT;

	out_label_add(&sb, str, max, cut_end);
	fwrite(strbuf_str(&sb), 1, sb.len, f);
	strbuf_free(&sb);
}

const char *out_level_key(const struct out_opts *o, size_t level, char *buf,
			  size_t len)
{
	if (o->keys && o->keys[level])
		return o->keys[level];
	snprintf(buf, len, "key%zu", level + 1);
	return buf;
}

void out_json_head(struct jw *w, const struct out_opts *o, size_t depth,
		   const enum col_id *cols, size_t ncols)
{
	char buf[32];

	jw_name(w, "keys");
	jw_start_array(w);
	for (size_t i = 0; i < depth; i++)
		jw_string(w, out_level_key(o, i, buf, sizeof(buf)));
	jw_end_array(w);
	jw_name(w, "columns");
	jw_start_array(w);
	for (size_t i = 0; i < ncols; i++)
		jw_string(w, coldefs[cols[i]].key);
	jw_end_array(w);
}

int out_finish(FILE *f, int err)
{
	if (fflush(f) == EOF || ferror(f))
		return err ? err : (errno ? -errno : -EIO);
	return err;
}

void out_json_notes(struct jw *w, const struct out_opts *o)
{
	jw_name(w, "notes");
	jw_start_array(w);
	for (size_t i = 0; i < o->nnotes; i++)
		jw_string(w, o->notes[i]);
	jw_end_array(w);
}

const char *out_res_pct(char *buf, size_t len, const struct row *r)
{
	/* a file several processes map counts once in VM SIZE, but its
	 * RSS is theirs added: the VM SIZE of every mapping summed */
	uint64_t vm = MAX(r->vm_sum, r->vals[COL_VM]);

	if (!vm)
		buf[0] = 0;
	else
		snprintf(buf, len, "%.1f",
			 100.0 * (double)r->vals[COL_RSS] / (double)vm);
	return buf;
}

const char *out_col_text(char *buf, size_t len, const struct row *r,
			 enum col_id col)
{
	if (col == COL_RES_PCT)
		return out_res_pct(buf, len, r);
	return out_fmt_value(buf, len, r->vals[col], coldefs[col].shift);
}

char *out_fmt_delta(char *buf, size_t len, const struct row *r, enum col_id c)
{
	uint64_t o = r->vals[c], n = row_set(r, 1)[c], d;
	unsigned shift = coldefs[c].shift;
	char num[24];

	/* with a fraction, the change of the two numbers as printed (each
	 * rounded to hundredths), so that delta = new - old as read */
	if (shift) {
		o = out_cents(o, shift);
		n = out_cents(n, shift);
	}
	d = n > o ? n - o : o - n;
	if (shift)
		snprintf(num, sizeof(num), "%" PRIu64 ".%02" PRIu64, d / 100,
			 d % 100);
	else
		snprintf(num, sizeof(num), "%" PRIu64, d);
	snprintf(buf, len, "%s%s", n < o && d ? "-" : "", num);
	return buf;
}

const char *out_change_name(const struct rowtree *t, const struct row *r)
{
	if (r->state == ROW_NEW)
		return "new";
	if (r->state == ROW_GONE)
		return "gone";
	return memcmp(r->vals, row_set(r, t->nsets - 1), sizeof(r->vals))
		   ? "changed"
		   : "same";
}

char *out_fmt_secs(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, ns / 1000000000,
		 ns % 1000000000 / 1000);
	return buf;
}

void out_put_rstrip(FILE *f, const char *line, size_t n)
{
	while (n && line[n - 1] == ' ')
		n--;
	fwrite(line, 1, n, f);
	fputc('\n', f);
}
