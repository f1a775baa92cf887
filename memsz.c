// SPDX-License-Identifier: GPL-2.0-or-later
/* memsz.c — the command table and main(). Every command lives in its own
 * cmd_*.c file; this file only dispatches. */
#include "config.h"

#include "builtin/builtin.h"
#include "builtin/complete.h"
#include "builtin/version.h"
#include "builtin/view.h"
#include "rows/output.h"
#include "util/strbuf.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmd_help(int argc, char **argv);
static void usage_help(FILE *out);

const struct memsz_cmd memsz_cmds[] = {
    {"size", cmd_size, usage_size,
     "on-disk size of ELF files by segments, sections, symbols", &size_cmd},
    {"record", cmd_record, usage_record,
     "record where images are loaded and which pages are resident",
     &record_cmd},
    {"report", cmd_report, usage_report,
     "attribute recorded resident memory to files, sections, symbols",
     &report_cmd},
    {"diff", cmd_diff, usage_diff,
     "compare two recordings, two snapshots or two ELF files", &diff_cmd},
    {"dump", cmd_dump, usage_dump, "print every record of a memsz.data file",
     &dump_cmd},
    {"help", cmd_help, usage_help, "show help for memsz or a command", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static const struct memsz_cmd *find_cmd(const char *name)
{
	for (const struct memsz_cmd *c = memsz_cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* "memsz 0.1.0", and the commit it was built from when the build knew it
 * (builtin/version.h: git describe, or what the release tarball
 * recorded). */
static void print_version(void)
{
	if (MEMSZ_GIT_VERSION[0])
		printf("memsz %s (git %s)\n", PACKAGE_VERSION,
		       MEMSZ_GIT_VERSION);
	else
		printf("memsz %s\n", PACKAGE_VERSION);
}

static void usage_main(FILE *out)
{
	fprintf(out,
		"usage: memsz [--version] [--help] <command> [<args>]\n\n"
		"memsz tells what, byte by byte, occupies a process's RAM,\n"
		"set beside what the same things cost on disk.\n\n"
		"Commands:\n");
	for (const struct memsz_cmd *c = memsz_cmds; c->name; c++)
		fprintf(out, "   %-8s %s\n", c->name, c->summary);
	fprintf(out, "\n'memsz help <command>' or 'memsz <command> --help' "
		     "shows a command's options.\n");
}

static void usage_help(FILE *out)
{
	fprintf(out, "usage: memsz help [<command>]\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct memsz_cmd *c;

	if (argc < 2) {
		usage_main(stdout);
		return 0;
	}
	if (argc > 2) {
		usage_help(stderr);
		return EXIT_USAGE;
	}
	c = find_cmd(argv[1]);
	if (!c) {
		memsz_error("'%s' is not a memsz command; see 'memsz --help'",
			    argv[1]);
		return EXIT_USAGE;
	}
	c->usage(stdout);
	return 0;
}

/* ret, the exit status of a command that wrote to stdout; 1 with one line
 * on stderr if it claims success but what it wrote did not reach stdout
 * (a full disk, /dev/full): help and --version print nothing else that
 * would say so. A command that failed has said why already. */
static int stdout_flushed(int ret)
{
	int err = fflush(stdout) ? errno : 0;

	if (ret || (!err && !ferror(stdout)))
		return ret;
	if (err)
		memsz_error("cannot write to standard output: %s",
			    memsz_strerror(-err));
	else
		memsz_error("cannot write to standard output");
	return 1;
}

/* Descriptors 0, 1 and 2 open, on /dev/null where they were closed (as
 * git's sanitize_stdfds): a file memsz opens must not become its stdout
 * or stderr, or a message would be written into it ('memsz record -o F
 * ... >&- 2>&-' appended its summary line to the recording F). Which were
 * closed is remembered (std_fd_nulled()): -o /dev/stdout >&- would write
 * the recording to /dev/null, and a launched command gets them closed.
 * A closed stdout gets /dev/null open for reading only, so that writes
 * to it fail (EBADF) as they would on the closed descriptor: 'memsz
 * report >&-' printed into /dev/null and exited 0 (stdout_flushed()). */
static void std_fds_open(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int got;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* the lowest free descriptor: fd, those below are open */
		got = open("/dev/null", fd == 1 ? O_RDONLY : O_RDWR);
		if (got != fd) {
			if (got >= 0)
				close(got);
			return;
		}
		std_fd_set_nulled(fd);
	}
}

/* An unknown command: one line naming the commands, as JSON on stdout
 * when argv asks for --format json. */
static void unknown_command(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "'%s' is not a memsz command. Commands are:", argv[1]);
	for (const struct memsz_cmd *c = memsz_cmds; c->name; c++)
		strbuf_addf(&sb, " %s", c->name);
	view_error(view_argv_json(argc, argv) ? OUT_JSON : OUT_TABLE,
		   strbuf_str(&sb));
	strbuf_free(&sb);
}

int main(int argc, char **argv)
{
	const struct memsz_cmd *c;

	/* Blocks of 128 KiB and more get their own mapping, returned when
	 * freed. glibc would raise that threshold after the first such free
	 * and keep the range maps' freed arrays resident in its heap: node's
	 * size --by symbols peaked at 126 MiB instead of 99. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	/* Up to 1 MiB free at the top of the heap is kept, not given back
	 * with brk(2) at each free of a buffer on top (a 64 KiB /proc read
	 * buffer, a snapshot's scratch) and faulted in again page by page
	 * at the next: a one-shot shrank and grew its heap a few times. */
	mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
	std_fds_open();
	if (argc < 2) {
		usage_main(stderr);
		return EXIT_USAGE;
	}
	/* the shell completion scripts' entry point (builtin/complete.h),
	 * left out of --help: people do not type it */
	if (!strcmp(argv[1], "--complete"))
		return cmd_complete(argc - 2, argv + 2);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-v") ||
	    !strcmp(argv[1], "version")) {
		print_version();
		return stdout_flushed(0);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage_main(stdout);
		return stdout_flushed(0);
	}
	c = find_cmd(argv[1]);
	if (!c) {
		unknown_command(argc, argv);
		return EXIT_USAGE;
	}
	/* `memsz CMD --help` is `memsz help CMD` (only right after CMD, so
	 * that an option's value or a file may be called "-h"). */
	if (argc > 2 &&
	    (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
		c->usage(stdout);
		return stdout_flushed(0);
	}
	return memsz_exit(stdout_flushed(c->fn(argc - 1, argv + 1)));
}
