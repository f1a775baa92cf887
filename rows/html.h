/* SPDX-License-Identifier: GPL-2.0-or-later */
/* html.h — the row tree as one self-contained web page (`--format html`).
 *
 * The page needs no network and no other file: the viewer's stylesheet
 * and scripts (rows/html/viewer.css, viewer.js, timeline.js, hand-written,
 * compiled into memsz) are inlined, and a Content-Security-Policy forbids
 * every fetch. The data is the json writer's tree (output.h), embedded as
 * a JSON script block, with every row (the format's row has
 * OUTF_ALL_ROWS) except, per level, those under a ten-thousandth of the
 * total in every column, folded into one "[N others]" row (a "callers"
 * level keeps every row: the flame graph sums frames over stacks); and a
 * second block with the column names, the sort column, the title, the
 * recording's snapshots and its processes (name, command line, exit
 * time). The viewer draws a zoomable treemap of the key path, switches
 * columns, searches labels, draws a flame graph when a level is
 * "callers", and plots what the processes held over time when there are
 * several snapshots; boxes and frames too small to draw are merged there.
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
