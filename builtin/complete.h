/* SPDX-License-Identifier: GPL-2.0-or-later */
/* complete.h — `memsz --complete WORD...`: what may come next on a memsz
 * command line, for the shell completion scripts (completion/memsz,
 * completion/_memsz).
 *
 * The answers come from the tables --help is made of: the command table
 * (memsz.c), each command's table of options (builtin/options.h), the
 * --by keys (report/keys.h), the columns (rows/rows.h), the output
 * formats (rows/output.h) and the --snapshot words (report/report.h).
 * The scripts only pass the words and act on the answer, so that what
 * they offer is always what the memsz they run accepts.
 */
#ifndef MEMSZ_BUILTIN_COMPLETE_H
#define MEMSZ_BUILTIN_COMPLETE_H

/* Complete words[n-1] (the word under the cursor, up to the cursor; ""
 * for a new word) of the command line "memsz words[0] ... words[n-1]".
 * Prints on stdout a first line saying what the shell is to do:
 *	words      offer the lines that follow
 *	nospace    the same, without a space after the one chosen (a
 *	           value goes on: "files=", a directory)
 *	files      complete a file name
 *	dirs       complete a directory name
 *	command N  complete the command line that starts at words[N] (the
 *	           command `memsz record -- CMD` launches)
 *	none       nothing to offer (a number, a regular expression)
 * then one line per word that may replace words[n-1] (words[n-1] is a
 * prefix of each, or, for a process, of its command name), a tab and a
 * description after those that have one. Returns 0. */
int cmd_complete(int n, char **words);

#endif
