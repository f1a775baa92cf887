/* html.h — the row tree as one self-contained web page (`--format html`).
 *
 * The page needs no network and no other file: the viewer's stylesheet
 * and script (rows/html/viewer.css, viewer.js, hand-written, compiled into
 * memsz) are inlined, and a Content-Security-Policy forbids every fetch.
 * The data is the json writer's tree (output.h), embedded as a JSON script
 * block, and a second block with the column names, the sort column, the
 * title and the recording's snapshots. The viewer draws a zoomable
 * treemap of the key path, switches columns, searches labels, draws a
 * flame graph when a level is "callers", and plots each process's RSS
 * over its snapshots when there are several.
 */
#ifndef MEMSZ_ROWS_HTML_H
#define MEMSZ_ROWS_HTML_H

#include <stdio.h>

#include "rows/output.h"
#include "rows/rows.h"

/* Write finished tree t as an html page to f. Returns 0 or a negative
 * errno (-EIO on a write error). */
int html_write(FILE *f, const struct rowtree *t, const struct out_opts *o);

#endif
