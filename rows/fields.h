/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fields.h — private to rows/: the writers of the format table, and the
 * pieces every writer prints the same way: a csv or tsv field, a label on
 * a terminal, the name of a key level, a value, a change, a time.
 */
#ifndef MEMSZ_ROWS_FIELDS_H
#define MEMSZ_ROWS_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rows/output.h"

/* Write s as one field, its control characters escaped (util/escape.h:
 * tabs and line breaks too, so a field is never split). A field that
 * starts with =, +, - or @ (which a spreadsheet would run as a formula)
 * gets a leading ' and, in csv, quotes. csv quotes (RFC 4180) a field
 * that holds a comma or a quote. */
void out_csv_field(FILE *f, const char *s, bool tsv);

/* Write label s for a terminal: control characters (C0, DEL, C1) and
 * bytes that are not valid UTF-8 as \xHH / \uHHHH escapes, in at most
 * max terminal columns (0: no limit; a wide character takes two, a
 * combining mark none); when it is longer, its middle (a path,
 * a symbol: both ends say the most) or with cut_end its end (a process:
 * "PID command" reads from the start) is cut out for an ellipsis. */
void out_put_label(FILE *f, const char *s, size_t max, bool cut_end);

struct strbuf;
/* out_put_label() added to sb: a table builds its lines in a buffer. */
void out_label_add(struct strbuf *sb, const char *s, size_t max, bool cut_end);

/* The name of key level `level` of o (o->keys[level]), or "keyN" (from 1)
 * in buf when o names none. Returns the name (o's string or buf). */
const char *out_level_key(const struct out_opts *o, size_t level, char *buf,
			  size_t len);

/* The end of every writer: err, or if f could not be flushed or had a
 * write error, that error (-errno, -EIO when errno says nothing). Set
 * errno = 0 before writing. */
int out_finish(FILE *f, int err);

struct jw;
/* The head every json writer starts its object with: "keys", the names of
 * the depth key levels of o, and "columns", the json names of cols. */
void out_json_head(struct jw *w, const struct out_opts *o, size_t depth,
		   const enum col_id *cols, size_t ncols);

/* The notes of o as the json "notes" array (name included). */
void out_json_notes(struct jw *w, const struct out_opts *o);

/* RES% of r as every writer prints it: RSS over the VM SIZE of every
 * mapping summed, one decimal, "" if that is 0. Returns buf. */
const char *out_res_pct(char *buf, size_t len, const struct row *r);

/* The text of column col of r (set 0) in csv and json: exact bytes, PSS
 * with two decimals, RES% with one ("" where VM SIZE is 0). */
const char *out_col_text(char *buf, size_t len, const struct row *r,
			 enum col_id col);

/* NEW - OLD (sets 1 and 0) of column c of r as csv/json print it:
 * "-12.50", "4096", "0"; with a fraction, of the two values as printed
 * (in hundredths), so that it is their difference. Returns buf. */
char *out_fmt_delta(char *buf, size_t len, const struct row *r, enum col_id c);

/* "new", "gone", "changed" or "same": what r of a diff tree t is. */
const char *out_change_name(const struct rowtree *t, const struct row *r);

/* ns as seconds with 6 decimals. Returns buf. */
char *out_fmt_secs(char *buf, size_t len, uint64_t ns);

/* Write the n bytes of line without their trailing spaces, and a
 * newline. */
void out_put_rstrip(FILE *f, const char *line, size_t n);

/* The writers of the format table (output.c): each renders the kinds its
 * row names, returns 0 or -errno (the caller checks the stream). */
int out_table_write(FILE *f, const struct rowtree *t, const struct out_opts *o);
int out_csv_write(FILE *f, const struct rowtree *t, const struct out_opts *o);
int out_tsv_write(FILE *f, const struct rowtree *t, const struct out_opts *o);
int out_json_write(FILE *f, const struct rowtree *t, const struct out_opts *o);

#endif
