/* fields.h — pieces every writer of rows/ prints the same way: a csv or
 * tsv field, a label on a terminal, the name of a key level.
 */
#ifndef MEMSZ_ROWS_FIELDS_H
#define MEMSZ_ROWS_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rows/output.h"

/* Write s as one field: tsv replaces tabs and line breaks by spaces; csv
 * quotes it (RFC 4180) when it holds a comma, a quote or a line break. */
void out_csv_field(FILE *f, const char *s, bool tsv);

/* Write label s for a terminal: control characters (C0, DEL, C1) and
 * bytes that are not valid UTF-8 as \xHH / \uHHHH escapes, in at most
 * max code points (0: no limit), its middle cut out for an ellipsis when
 * it is longer. */
void out_put_label(FILE *f, const char *s, size_t max);

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

#endif
