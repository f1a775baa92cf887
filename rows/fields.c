// SPDX-License-Identifier: GPL-2.0-or-later
/* fields.c — see fields.h */
#include "config.h"

#include "rows/fields.h"
#include "util/escape.h"
#include "util/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* Byte offset of code point number k of UTF-8 string s (valid UTF-8). */
static size_t cp_offset(const char *s, size_t k)
{
	size_t i = 0;

	while (s[i] && k) {
		i++;
		while (((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		k--;
	}
	return i;
}

/* Add the n code points (len bytes) of safe label s to sb, at most max of
 * them (0: no limit), cut as out_label_add() says. */
static void label_add_safe(struct strbuf *sb, const char *s, size_t len,
			   size_t n, size_t max, bool cut_end, bool ascii)
{
	size_t head, tail, h, t;

	if (!max || n <= max) {
		strbuf_add(sb, s, len);
		return;
	}
	head = cut_end ? max - 1 : (max - 1) / 2;
	tail = max - 1 - head;
	/* printable ASCII: a code point is a byte */
	h = ascii ? head : cp_offset(s, head);
	t = ascii ? len - tail : cp_offset(s, n - tail);
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
		label_add_safe(sb, str, n, n, max, cut_end, true);
		return;
	}
	s = str_escape(str, &n);
	label_add_safe(sb, s, strlen(s), n, max, cut_end, false);
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

/* v (fixed point, shift fraction bits) in hundredths, rounded as
 * out_fmt_value() prints it */
static uint64_t cents_of(uint64_t v, unsigned shift)
{
	uint64_t frac = v & ((UINT64_C(1) << shift) - 1);

	return (v >> shift) * 100 +
	       ((frac * 100 + (UINT64_C(1) << (shift - 1))) >> shift);
}

char *out_fmt_delta(char *buf, size_t len, const struct row *r, enum col_id c)
{
	uint64_t o = r->vals[c], n = row_set(r, 1)[c], d;
	unsigned shift = coldefs[c].shift;
	char num[24];

	/* with a fraction, the change of the two numbers as printed (each
	 * rounded to hundredths), so that delta = new - old as read */
	if (shift) {
		o = cents_of(o, shift);
		n = cents_of(n, shift);
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
