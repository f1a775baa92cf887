/* SPDX-License-Identifier: GPL-2.0-or-later */
/* builtin.h — the command handlers memsz.c dispatches to.
 *
 * Every handler has the same signature: argv[0] is the command name, options
 * follow (one table of options per command, builtin/options.h, from which
 * getopt_long's arguments and the usage text are made). It returns the
 * process exit status: 0 success, 1 failure (one line already printed on
 * stderr), 129 usage error (one line printed), like git.
 * Each command also exports its usage text so `memsz help CMD` and
 * `memsz CMD --help` print exactly the same thing.
 */
#ifndef MEMSZ_BUILTIN_H
#define MEMSZ_BUILTIN_H

#include <stdio.h>

struct opts_cmd;

struct memsz_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	void (*usage)(FILE *out);
	const char *summary;
	const struct opts_cmd *opts; /* its table of options (shell
					completion reads it), or NULL */
};

/* The command table (memsz.c). NULL-name terminated. */
extern const struct memsz_cmd memsz_cmds[];

/* Each command's table of options (builtin/options.h), in its cmd_*.c. */
extern const struct opts_cmd size_cmd, record_cmd, report_cmd, diff_cmd,
    dump_cmd;

#define EXIT_USAGE 129

int cmd_size(int argc, char **argv);
void usage_size(FILE *out);
int cmd_record(int argc, char **argv);
void usage_record(FILE *out);
int cmd_report(int argc, char **argv);
void usage_report(FILE *out);
int cmd_diff(int argc, char **argv);
void usage_diff(FILE *out);
struct view;
struct report_opts;
/* `memsz report --timeline[=COLS]` (builtin/timeline.c): build every
 * snapshot of o as v asks and print the top rows at each; spec: the
 * columns ("rss,pss"), NULL for v's --sort column. Returns the exit
 * status. */
int report_timeline(const struct view *v, struct report_opts *o,
		    const char *spec);
int cmd_dump(int argc, char **argv);
void usage_dump(FILE *out);

#endif
