// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_record.c — `memsz record`: parse the options, run a recording
 * session (record/session.c) and print its summary. */
#include "config.h"

#include "builtin/builtin.h"
#include "builtin/options.h"
#include "record/events.h"
#include "record/session.h"
#include "record/target.h"
#include "record/targets_scan.h"
#include "util/escape.h"
#include "util/util.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The options of one `memsz record`, parsed. */
struct record_args {
	struct session_opts so;
	char *pidlist;	    /* every -p, comma-joined */
	bool all;	    /* -a */
	int walk_given;	    /* the last of --frame-walk ('K') and
			       --no-frame-walk ('X'), 0: neither */
	const char *cgroup; /* -G */
	char *events;	    /* --faults and -e, comma-joined */
	struct events_opts fo;
	struct perf_event_attr *sattr; /* parsed from events */
	size_t nsattr;
	char **cmd;		  /* launched command, or NULL */
	bool out_dash;		  /* -o -: standard output */
	char *out_name;		  /* as messages name it: 'FILE', or
				     standard output for -o - (not
				     /dev/stdout: not what was typed) */
	const char **cache_paths; /* --cache-paths, in order */
	size_t ncache_paths, cache_cap;
};

/* The options of record; a long-only option's id is a letter no short
 * option has. */
static const struct opt record_opts[] = {
    {'o', "output", OPT_ARG, "FILE", 'o',
     "write to FILE (default memsz.data), replaced only\n"
     "by a complete recording; the previous one is kept\n"
     "as FILE.old; - is standard output (as\n"
     "--output-special /dev/stdout; not a terminal)",
     NULL},
    {0, "output-special", OPT_NOARG, NULL, 'O',
     "FILE may be a pipe, device or socket (or a symlink\n"
     "to one), or lead to a descriptor memsz was given\n"
     "(/dev/stdout, not also stderr nor CMD's output):\n"
     "written directly; refused without this option, and\n"
     "never through a symlink another user owns in a\n"
     "sticky directory such as /tmp; a reader that stops\n"
     "reading holds the traced targets until it reads or\n"
     "SIGINT ends the recording",
     NULL},
    {'p', "pid", OPT_ARG, "PID,...", 'p',
     "attach to running processes (all their threads)\n"
     "and follow the children they fork (a thread's id\n"
     "names its process, with a warning); -p A -p B is\n"
     "-p A,B",
     NULL},
    {0, "children", OPT_NOARG, NULL, 'C',
     "with -p: also attach to every descendant the\n"
     "processes have now (a service's whole tree: a\n"
     "postmaster's checkpointer, walwriter, ...)",
     NULL},
    {'a', "all", OPT_NOARG, NULL, 'a',
     "every process memsz may read (kernel threads\n"
     "skipped); new ones are found at every --interval",
     NULL},
    {'G', "cgroup", OPT_ARG, "CGROUP", 'G',
     "every process of a cgroup and its descendants,\n"
     "and those that join (a path under the cgroup2\n"
     "mount, e.g. system.slice/ssh.service, or under\n"
     "the v1 memory hierarchy, the latter first where\n"
     "cgroup2 has no memory controller); its memory\n"
     "counters are recorded at every snapshot",
     NULL},
    {0, "frame-walk", OPT_NOARG, NULL, 'K',
     "with -a: also walk every page frame\n"
     "(/proc/kpageflags, root) after each round, to\n"
     "cross-check meminfo's counters; costs what reading\n"
     "kpageflags whole costs (0.6 s of CPU per 24 GiB)",
     NULL},
    {0, "no-frame-walk", OPT_NOARG, NULL, 'X',
     "with -a: no page frame walk (the default): the\n"
     "rows come from /proc/meminfo and /proc/slabinfo\n"
     "either way; about as cheap as smem -t",
     NULL},
    {0, "cache-paths", OPT_ARG, "DIR", 'P',
     "with -G: name the page cache of the files under\n"
     "DIR (or of the file DIR; repeatable) besides those\n"
     "the processes hold open or map; found without\n"
     "reading them; one that does not exist is an error",
     NULL},
    {0, "interval", OPT_ARG, "MS", 'I',
     "also take a snapshot every MS milliseconds\n"
     "(at most 292 years)",
     NULL},
    {0, "duration", OPT_ARG, "S", 'd',
     "stop after S seconds, at most 292 years (0 with\n"
     "-p, -a or -G: one snapshot of each process, then\n"
     "exit; Ctrl-C stops it after the snapshot being\n"
     "taken, writes those taken and dies by SIGINT)",
     NULL},
    {0, "freeze", OPT_NOARG, NULL, 'F',
     "stop the targets while a snapshot is taken (ptrace\n"
     "stops: they end if memsz dies; held at most\n"
     "half of the time)",
     NULL},
    {0, "no-inherit", OPT_NOARG, NULL, 'N', "do not follow forked children",
     NULL},
    {0, "no-growth", OPT_NOARG, NULL, 'W',
     "no snapshot when a target's resident memory grows\n"
     "(by default: growth by 1/16, 1 to 32 MiB, checked\n"
     "when the kernel counts 64 more page faults)",
     NULL},
    {0, "faults", OPT_NOARG, NULL, 'f',
     "sample every page fault with its address and user\n"
     "stack (same as -e page-faults)",
     NULL},
    {'e', "event", OPT_ARG, "EVENT,...", 'e',
     "sample these events (libpfm4 names: page-faults,\n"
     "minor-faults, major-faults, perf::PAGE-FAULTS:u ...);\n"
     "one given twice is opened once",
     NULL},
    {'c', "count", OPT_ARG, "N", 'c',
     "sample every N-th event (default 1, at most\n"
     "2^63-1, as the kernel takes); a report by\n"
     "callers or faultsite puts the pages of the\n"
     "faults not sampled under [no fault seen]",
     NULL},
    {0, "call-graph", OPT_ARG, "MODE", 'g',
     "dwarf: copy registers and user stack for unwinding\n"
     "at report time (default); fp: the kernel's\n"
     "frame-pointer callchain, and bp, sp, ip and the\n"
     "stack top to find a frameless leaf's caller",
     NULL},
    {0, "stack-size", OPT_ARG, "BYTES", 'S',
     "user stack bytes copied per sample (default 8192,\n"
     "fp: 256; at most 65528): data-file space where\n"
     "stacks vary (fp: python3 +31% over 8 bytes)",
     NULL},
    {'m', "mmap-pages", OPT_ARG, "PAGES", 'm',
     "ring buffer pages per cpu for samples (a power\n"
     "of 2; default 64 MiB per cpu, less with > 8 cpus;\n"
     "at least two whole samples; the ring of mapping\n"
     "records grows with it: 512 KiB to 16 MiB per\n"
     "cpu, 128 MiB in all (but at least 512 KiB per\n"
     "cpu); both made smaller to fit\n"
     "perf_event_mlock_kb, ulimit -l (the mapping\n"
     "records' ring down to 64 KiB, the sample ring\n"
     "to two samples))",
     NULL},
    {0, "lossy", OPT_NOARG, NULL, 'L',
     "when memsz falls behind, let the kernel drop\n"
     "samples (as perf does) instead of holding the\n"
     "targets until memsz has caught up (and put\n"
     "no leash on their threads)",
     NULL},
    {'v', "verbose", OPT_NOARG, NULL, 'v',
     "say on stderr, a line each, the notes the\n"
     "recording holds that are not said otherwise and\n"
     "what each snapshot decides by cost: whether it\n"
     "reads smaps for its huge pages' sharing or its\n"
     "locked memory (the recording is the same)",
     NULL},
    OPT_END,
};

const struct opts_cmd record_cmd = {
    .name = "record",
    .synopsis =
	"usage: memsz record [-o FILE] [--output-special] "
	"[--interval MS]\n"
	"                    [--duration S] [--freeze] [--no-inherit] "
	"[--no-growth]\n"
	"                    [--faults] [-c N] [-v]\n"
	"                    [-e EVENT[,EVENT...]] "
	"[--call-graph fp|dwarf]\n"
	"                    [--stack-size BYTES] [-m PAGES] [--lossy]\n"
	"                    (-p PID[,PID...] [--children] |\n"
	"                     -a [--frame-walk | --no-frame-walk] |\n"
	"                     -G CGROUP | -- CMD [ARG...])\n",
    .about = "Record where images are loaded (perf mmap2 events) and which "
	     "pages are\nresident (snapshots at start, when resident memory "
	     "grows, every --interval,\nand at the end). Exit status: "
	     "the command's (126: it cannot be run, 127: not\nfound, as "
	     "in the shell); SIGINT (Ctrl-C), SIGTERM or SIGHUP stops "
	     "the\nrecording, writes it, and memsz dies by the signal "
	     "(unless the command\nexited by itself: its status).\n",
    .opts = record_opts,
    .col = 24,
    /* the launched command's options are its own */
    .in_order = true,
};

void usage_record(FILE *out)
{
	opts_usage(&record_cmd, out);
}

/* Append item to the comma-joined list *list. */
static void list_append(char **list, const char *item)
{
	char *n =
	    xasprintf("%s%s%s", *list ? *list : "", *list ? "," : "", item);

	free(*list);
	*list = n;
}

/* Say why event name is refused (ret: events_attr()'s error). */
static void say_bad_event(const char *name, int ret)
{
	char *hint;

	if (ret != -MEMSZ_EUSAGE) {
		memsz_error("cannot encode event '%s': %s", name,
			    memsz_strerror(ret));
		return;
	}
	hint = events_suggest(name);
	if (hint)
		memsz_error("unknown event '%s' (did you mean %s?)", name,
			    hint);
	else
		memsz_error("unknown event '%s'", name);
	free(hint);
}

/* Whether an event with attr is in a->sattr already. */
static bool event_known(const struct record_args *a,
			const struct perf_event_attr *attr)
{
	for (size_t i = 0; i < a->nsattr; i++)
		if (!memcmp(&a->sattr[i], attr, sizeof(*attr)))
			return true;
	return false;
}

/* Parse the -e list (and --faults) into a->sattr; prints the error. */
static int parse_events(struct record_args *a, const char *list,
			const struct events_opts *fo)
{
	char *copy = xstrdup(list), *save = NULL, *name, *kept = NULL;
	int ret = 0;

	for (name = strtok_r(copy, ",", &save); name && !ret;
	     name = strtok_r(NULL, ",", &save)) {
		struct perf_event_attr attr;

		ret = events_attr(name, fo, &attr);
		if (ret < 0) {
			say_bad_event(name, ret);
			break;
		}
		/* an event named twice (--faults -e page-faults, or an
		 * alias) would count each of its samples twice */
		if (event_known(a, &attr)) {
			memsz_warning("event '%s' is given more than once: "
				      "recorded once",
				      name);
			continue;
		}
		a->sattr = xrealloc(a->sattr, (a->nsattr + 1) * sizeof(attr));
		a->sattr[a->nsattr++] = attr;
		list_append(&kept, name);
	}
	if (!ret && !a->nsattr) {
		memsz_error("-e wants an event name, not '%s'", list);
		ret = -MEMSZ_EUSAGE;
	}
	free(copy);
	/* the names noted in the file, one for each event opened */
	free(a->events);
	a->events = kept;
	return ret;
}

/* The longest --duration and --interval: their nanoseconds fit in
 * INT64_MAX, so that a deadline (now + duration) or a period in ns never
 * wraps. --duration 18446744073 (2^64 ns) made the deadline wrap to the
 * past: the recording stopped at once, said as a normal one. */
#define DURATION_MAX_S 9223372036.0
#define INTERVAL_MAX_MS 9223372036854ull

/* Seconds >= 0 (0: one-shot). */
static int parse_seconds(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out >= 0) || !isfinite(*out))
		return -EINVAL;
	return 0;
}

static void record_args_free(struct record_args *a)
{
	free(a->pidlist);
	free(a->events);
	free(a->sattr);
	free(a->cache_paths);
	free(a->out_name);
}

/* Handle one sampling option c (--faults, -e, -c, --call-graph,
 * --stack-size, -m) with argument arg. Returns -1 to go on, or EXIT_USAGE
 * after printing why it is invalid. */
static int parse_sample_option(struct record_args *a, int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case 'f':
		list_append(&a->events, "page-faults");
		break;
	case 'e':
		list_append(&a->events, arg);
		break;
	case 'c':
		/* the kernel refuses a sample_period with bit 63 set
		 * (EINVAL at perf_event_open: "cannot open perf events:
		 * Invalid argument", after the command was started) */
		if (parse_u64(arg, &a->fo.period) < 0 || !a->fo.period ||
		    a->fo.period > INT64_MAX) {
			memsz_error("invalid --count '%s': expected an "
				    "integer from 1 to %" PRId64,
				    arg, INT64_MAX);
			return EXIT_USAGE;
		}
		break;
	case 'g':
		if (!strcmp(arg, "fp")) {
			a->fo.cg = EVENTS_CG_FP;
		} else if (!strcmp(arg, "dwarf")) {
			a->fo.cg = EVENTS_CG_DWARF;
		} else {
			memsz_error("invalid --call-graph '%s': expected fp "
				    "or dwarf",
				    arg);
			return EXIT_USAGE;
		}
		break;
	case 'S':
		if (parse_u64(arg, &v) < 0 || !v || v > EVENTS_MAX_STACK) {
			memsz_error("invalid --stack-size '%s': expected 1 to "
				    "%u bytes",
				    arg, EVENTS_MAX_STACK);
			return EXIT_USAGE;
		}
		a->fo.stack_size = (uint32_t)v;
		break;
	case 'm':
		if (parse_u64(arg, &v) < 0 || v < 2 || v > (1u << 20) ||
		    (v & (v - 1))) {
			memsz_error("invalid --mmap-pages '%s': expected a "
				    "power of 2 from 2 to 1048576",
				    arg);
			return EXIT_USAGE;
		}
		a->so.ring_pages = (unsigned)v;
		break;
	default:
		return EXIT_USAGE;
	}
	return -1;
}

/* --interval ('I') or --duration ('d') into a->so. Returns -1 to go on,
 * or EXIT_USAGE after printing why not. */
static int parse_time_option(struct record_args *a, int c, const char *arg)
{
	double d;

	if (c == 'I') {
		if (parse_u64(arg, &a->so.interval_ms) < 0 ||
		    !a->so.interval_ms || a->so.interval_ms > INTERVAL_MAX_MS) {
			memsz_error("invalid --interval '%s': expected "
				    "milliseconds from 1 to %" PRIu64
				    " (292 years)",
				    arg, (uint64_t)INTERVAL_MAX_MS);
			return EXIT_USAGE;
		}
		return -1;
	}
	if (parse_seconds(arg, &d) < 0 || d > DURATION_MAX_S) {
		memsz_error("invalid --duration '%s': expected "
			    "seconds from 0 to %.0f (292 years)",
			    arg, DURATION_MAX_S);
		return EXIT_USAGE;
	}
	a->so.duration_ns = (uint64_t)(d * 1e9);
	a->so.one_shot = d == 0;
	return -1;
}

/* Handle one option c with argument arg. Returns -1 to go on, or
 * EXIT_USAGE after printing why it is invalid. */
static int parse_option(struct record_args *a, int c, const char *arg)
{
	switch (c) {
	case 'o':
		/* '' would write '.tmp.XXXXXX' and '.partial' in the current
		 * directory, then fail to rename them to '' */
		if (!*arg) {
			memsz_error("-o wants a file name, not ''");
			return EXIT_USAGE;
		}
		/* '-' is standard output, as for perf record (a file named
		 * '-' was written): what --output-special /dev/stdout does,
		 * with its refusals (closed, also stderr or the command's
		 * output) */
		a->out_dash = !strcmp(arg, "-");
		a->so.path = a->out_dash ? "/dev/stdout" : arg;
		break;
	case 'O':
		a->so.output_special = true;
		break;
	case 'p':
		/* -p A -p B is -p A,B, as -e and --cache-paths add up:
		 * keeping the last would record A silently left out */
		list_append(&a->pidlist, arg);
		break;
	case 'a':
		a->all = true;
		break;
	case 'G':
		/* '' is not the root cgroup: that is '/' */
		if (!*arg) {
			memsz_error("-G wants a cgroup ('/' for the root), "
				    "not ''");
			return EXIT_USAGE;
		}
		a->cgroup = arg;
		break;
	case 'P':
		xgrow(&a->cache_paths, &a->cache_cap, a->ncache_paths + 1,
		      sizeof(*a->cache_paths));
		a->cache_paths[a->ncache_paths++] = arg;
		break;
	case 'I':
	case 'd':
		return parse_time_option(a, c, arg);
	case 'F':
		a->so.freeze = true;
		break;
	case 'L':
		a->so.lossy = true;
		break;
	case 'N':
		a->so.inherit = false;
		break;
	case 'C':
		a->so.children = true;
		break;
	case 'W':
		a->so.no_growth = true;
		break;
	case 'v':
		a->so.verbose = true;
		break;
	case 'K':
	case 'X': /* the last of the two wins */
		a->so.frame_walk = c == 'K';
		a->walk_given = c;
		break;
	default:
		return parse_sample_option(a, c, arg);
	}
	return -1;
}

/* True if --cache-paths path is a directory or a regular file; else says
 * why not (a path misspelt would name no file, silently). */
static bool cache_path_ok(const char *path)
{
	const char *why = "not a directory nor a regular file";
	struct stat st;
	char *esc;

	if (stat(path, &st) < 0)
		why = strerror(errno);
	else if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))
		return true;
	esc = str_escape(path, NULL);
	memsz_error("--cache-paths '%s': %s", esc, why);
	free(esc);
	return false;
}

/* Exactly one way to choose targets, and options that fit it. Returns -1
 * to go on, or EXIT_USAGE after printing why not. */
static int check_targets(const struct record_args *a, bool cmd)
{
	int n = !!a->pidlist + a->all + !!a->cgroup + cmd;

	if (n != 1) {
		memsz_error(n ? "give one of -p PID, -a, -G CGROUP or a "
				"command"
			      : "nothing to record: give -p PID, -a, "
				"-G CGROUP or -- CMD [ARG...]");
		return EXIT_USAGE;
	}
	if (a->walk_given && !a->all) {
		memsz_error("--%sframe-walk is about the page frame walk of "
			    "-a: give -a",
			    a->walk_given == 'X' ? "no-" : "");
		return EXIT_USAGE;
	}
	if (a->so.children && !a->pidlist) {
		memsz_error("--children attaches to the descendants of -p "
			    "PID: give -p");
		return EXIT_USAGE;
	}
	if ((a->all || a->cgroup) && a->events) {
		memsz_error("sampling events (-e, --faults) cannot be "
			    "recorded with %s",
			    a->all ? "-a" : "-G");
		return EXIT_USAGE;
	}
	if (a->all && a->so.freeze) {
		memsz_error("--freeze cannot be used with -a: it would stop "
			    "every process of the machine");
		return EXIT_USAGE;
	}
	/* --freeze holds targets in ptrace stops; -G traces nothing */
	if (a->cgroup && a->so.freeze) {
		memsz_error("--freeze cannot be used with -G: the processes "
			    "of a cgroup are not traced");
		return EXIT_USAGE;
	}
	if (a->so.one_shot && cmd) {
		memsz_error("--duration 0 takes one snapshot of running "
			    "processes: give -p PID, -a or -G CGROUP");
		return EXIT_USAGE;
	}
	if (a->ncache_paths && !a->cgroup) {
		memsz_error("--cache-paths names the page cache of a cgroup: "
			    "give -G CGROUP");
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < a->ncache_paths; i++)
		if (!cache_path_ok(a->cache_paths[i]))
			return EXIT_USAGE;
	if (a->so.one_shot && a->events) {
		memsz_error("--duration 0 takes one snapshot: it samples no "
			    "events");
		return EXIT_USAGE;
	}
	return -1;
}

static int record_option_cb(int id, const char *arg, void *ctx)
{
	return parse_option(ctx, id, arg);
}

/* Parse argv into *a. Returns -1 to record, or the exit status (0 after
 * --help, EXIT_USAGE after printing a usage error). */
static int parse_args(struct record_args *a, int argc, char **argv)
{
	int ret =
	    opts_parse(&record_cmd, argc, argv, record_option_cb, NULL, a);

	if (ret >= 0)
		return ret;
	if (a->events && parse_events(a, a->events, &a->fo) < 0)
		return EXIT_USAGE;
	ret = check_targets(a, optind < argc);
	if (ret >= 0)
		return ret;
	if (optind < argc)
		a->cmd = argv + optind;
	if (a->out_dash)
		a->so.output_special = true;
	a->out_name = a->out_dash ? xstrdup("standard output")
				  : xasprintf("'%s'", a->so.path);
	a->so.name = a->out_name;
	a->so.samples = a->sattr;
	a->so.nsamples = a->nsattr;
	a->so.names = a->events;
	a->so.cache_paths = a->cache_paths;
	a->so.ncache_paths = a->ncache_paths;
	return -1;
}

/* Parse -p into *pids (caller frees) and *npids and check that each can
 * be traced. Returns -1 to go on, or the exit status after printing why
 * not (EXIT_USAGE for a malformed list, 1 for a pid that cannot be
 * recorded). */
static int check_pids(const char *list, int **pids, int *npids)
{
	int n = target_parse_pids(list, pids);

	if (n < 0) {
		memsz_error("invalid pid list '%s'", list);
		return EXIT_USAGE;
	}
	*npids = 0;
	for (int i = 0; i < n; i++) {
		int err = target_check_pid((*pids)[i]), tgid;
		bool again = false;

		if (target_is_kthread((*pids)[i])) {
			memsz_error("pid %d is a kernel thread: it has no "
				    "user memory to record",
				    (*pids)[i]);
			return 1;
		}
		if (err == -ESRCH && target_is_zombie((*pids)[i])) {
			memsz_error("pid %d is a zombie: it has exited and "
				    "holds no memory",
				    (*pids)[i]);
			return 1;
		}
		if (err == -ESRCH) {
			memsz_error("no process with pid %d", (*pids)[i]);
			return 1;
		}
		if (err < 0) {
			/* nothing is traced yet: what failed is the read of
			 * its maps, which pagemap needs as well */
			memsz_error("cannot read the memory of pid %d: %s",
				    (*pids)[i], memsz_strerror(err));
			return 1;
		}
		/* a thread's id names its process (as perf record -p
		 * does): memory is the process's, and recorded under the
		 * thread's id a -p PID,TID counted the process twice */
		tgid = target_tgid((*pids)[i]);
		if (tgid > 0 && tgid != (*pids)[i]) {
			memsz_warning("pid %d is a thread of process %d: "
				      "recording process %d",
				      (*pids)[i], tgid, tgid);
			(*pids)[i] = tgid;
		}
		/* a pid named twice is attached once: twice, its events
		 * were opened again for each time it was named ('-p P,P,...'
		 * ran out of descriptors) and the second attach said it had
		 * exited. Only pids that exist are compared, so the cost is
		 * bounded by the processes there are. */
		for (int j = 0; j < *npids && !again; j++)
			again = (*pids)[j] == (*pids)[i];
		if (!again)
			(*pids)[(*npids)++] = (*pids)[i];
	}
	return -1;
}

/* The scan of -a or -G into *scan. Returns -1 to go on, or 1 after
 * printing why the cgroup cannot be recorded. */
static int open_scan(const struct record_args *a, struct target_scan **scan)
{
	int err = a->all ? target_scan_all(scan)
			 : target_scan_cgroup(a->cgroup, scan);

	if (err == -ENODEV)
		memsz_error("cannot record cgroup '%s': no cgroup file system "
			    "is mounted",
			    a->cgroup);
	else if (err == -ENOTDIR)
		memsz_error("'%s' is not a cgroup directory", a->cgroup);
	else if (err == -ENOENT)
		memsz_error("no cgroup '%s'", a->cgroup);
	else if (err < 0)
		memsz_error("cannot record cgroup '%s': %s", a->cgroup,
			    memsz_strerror(err));
	return err < 0 ? 1 : -1;
}

static void say(void *arg, bool warning, const char *msg)
{
	(void)arg;
	if (warning)
		memsz_warning("%s", msg);
	else
		memsz_error("%s", msg);
}

/* The summary line; it counts what the file holds, and names the samples
 * a write error kept out of it when there are some. "(L lost)" counts
 * samples only; records of the mapping history the kernel dropped are
 * counted apart. */
static void print_summary(const struct record_args *a,
			  const struct session_stats *st)
{
	char unwritten[96] = "", snaps[80] = "";
	/* the -o path as error lines print it: no byte of it may drive
	 * the terminal or break the line */
	char *path = str_escape(a->out_name, NULL);
	size_t n = 0;

	if (st->unwritten)
		n = (size_t)snprintf(unwritten, sizeof(unwritten),
				     ", %llu not written",
				     (unsigned long long)st->unwritten);
	if (st->lost_sideband && n < sizeof(unwritten))
		snprintf(unwritten + n, sizeof(unwritten) - n,
			 "; %llu mapping records lost",
			 (unsigned long long)st->lost_sideband);
	/* what holding targets still for snapshots (growth, --freeze)
	 * cost them */
	if (st->nsnap_held)
		snprintf(snaps, sizeof(snaps), "%s%.3f s (%llu snapshots)",
			 a->nsattr ? ", " : "; targets held ",
			 st->snap_held_ns / 1e9,
			 (unsigned long long)st->nsnap_held);
	if (a->nsattr)
		fprintf(stderr,
			"[ memsz record: wrote %llu events, %llu samples "
			"(%llu lost%s), %llu snapshots, %.3f MiB to %s; "
			"targets held %.3f s (%llu times)%s ]\n",
			(unsigned long long)st->nevents,
			(unsigned long long)st->nsamples,
			(unsigned long long)st->lost, unwritten,
			(unsigned long long)st->nsnaps, st->bytes / 1048576.0,
			path, st->held_ns / 1e9, (unsigned long long)st->nholds,
			snaps);
	else
		fprintf(stderr,
			"[ memsz record: wrote %llu events, %llu snapshots, "
			"%.3f MiB to %s%s ]\n",
			(unsigned long long)st->nevents,
			(unsigned long long)st->nsnaps, st->bytes / 1048576.0,
			path, snaps);
	free(path);
}

/* What an uncommitted recording did to path, which it never replaces:
 * a file there was left as it was; where there is none, none was made.
 * Written directly (a pipe, -o -), it may have had the header. */
static const char *untouched(const char *path, const struct session_stats *s)
{
	struct stat st;

	if (s->direct)
		return "received no complete recording";
	return lstat(path, &st) ? "not written" : "left as it was";
}

/* Where partial is PATH.partial.N (the session keeps a recording cut
 * short there when earlier failed runs left PATH.partial and the numbers
 * before N): a note that they are kept; else "". Caller frees. */
static char *partial_earlier(const char *path, const char *partial)
{
	size_t n = strlen(path);
	unsigned long num;
	char *end;

	if (strncmp(partial, path, n) || strncmp(partial + n, ".partial.", 9))
		return xstrdup("");
	num = strtoul(partial + n + 9, &end, 10);
	if (*end || !num)
		return xstrdup("");
	if (num == 1)
		return xasprintf(" ('%s.partial', an earlier run's, kept)",
				 path);
	return xasprintf(" ('%s.partial' to '%s.partial.%lu', earlier "
			 "runs', kept)",
			 path, path, num - 1);
}

/* Where the recording a write error cut short could not be kept: why,
 * saying it is thrown away. Caller frees. */
static char *partial_lost(const char *path, const struct session_stats *st)
{
	if (st->partial_err == -EEXIST)
		return xasprintf("; what was recorded is thrown away: '%s."
				 "partial' to '%s.partial.%u', earlier "
				 "runs', all exist (remove them)",
				 path, path, st->partial_max - 1);
	return xasprintf("; what was recorded is thrown away: it cannot be "
			 "kept as '%s.partial': %s",
			 path, memsz_strerror(st->partial_err));
}

/* A one-shot stopped by SIGINT, SIGTERM or SIGHUP (Ctrl-C), its recording
 * committed: say how many processes it left out and how many the file
 * holds. Returns the exit status, 128 + the signal; memsz then dies by
 * the signal, as perf record does after writing its file, so that a
 * script or loop that ran it stops too. */
static int say_cut(const struct record_args *a, const struct session_stats *st)
{
	const char *sig = sigabbrev_np(st->cut_sig);

	if (st->cut)
		memsz_error("interrupted by SIG%s: %zu process%s not "
			    "recorded; %s holds %zu",
			    sig, st->cut, st->cut == 1 ? "" : "es", a->out_name,
			    st->held);
	else
		memsz_error("interrupted by SIG%s during the last snapshot: "
			    "none left out, %s holds %zu process%s",
			    sig, a->out_name, st->held,
			    st->held == 1 ? "" : "es");
	memsz_die_by_signal(st->cut_sig);
	return 128 + st->cut_sig;
}

/* A recording stopped by SIGINT, SIGTERM or SIGHUP (Ctrl-C), committed:
 * memsz dies by the signal, as perf record does after writing its file,
 * so that bash stops the script or loop that ran it (an exit status of
 * 130, or of 0 with -p, let a `for` loop go on after Ctrl-C). Returns
 * 128 + sig, the status should the signal not end memsz. */
static int die_stopped(int sig)
{
	memsz_die_by_signal(sig);
	return 128 + sig;
}

/* Say why the recording ended without one, if it did (a write error,
 * nothing recorded). Returns 1 then, else -1. */
static int say_failure(const struct record_args *a,
		       const struct session_stats *st)
{
	char *what, *earlier = NULL;
	const char *stopped;
	int ret = 1;

	/* the write failed, or the move of the previous recording to
	 * FILE.old (the writer names that file then) */
	what = !st->werr ? NULL
	       : strcmp(st->werr_path, a->so.path)
		   ? xasprintf("move %s to '%s'", a->out_name, st->werr_path)
		   : xasprintf("write %s", a->out_name);
	if (st->partial)
		earlier = partial_earlier(a->so.path, st->partial);
	else if (st->partial_err)
		earlier = partial_lost(a->so.path, st);
	/* what became of the recording and the command: complete when the
	 * error came as it was to replace FILE; the command ended by memsz
	 * only when it had not ended by itself */
	stopped = st->complete	    ? "the recording is complete"
		  : st->cmd_stopped ? "recording stopped and the command ended"
				    : "recording stopped";
	if (st->werr && st->partial && st->complete)
		memsz_error("cannot %s: %s; %s %s, the complete recording "
			    "is in '%s'%s",
			    what, memsz_strerror(st->werr), a->out_name,
			    untouched(a->so.path, st), st->partial, earlier);
	else if (st->werr && st->partial)
		memsz_error("cannot %s: %s; %s, %s %s, what was recorded "
			    "is in '%s'%s",
			    what, memsz_strerror(st->werr), stopped,
			    a->out_name, untouched(a->so.path, st), st->partial,
			    earlier);
	else if (st->werr)
		memsz_error("cannot %s: %s; %s, %s%s %s%s", what,
			    memsz_strerror(st->werr), stopped,
			    st->direct ? "what " : "", a->out_name,
			    st->direct ? "received is an incomplete recording"
				       : untouched(a->so.path, st),
			    earlier ? earlier : "");
	else if (!st->committed && a->cgroup && !st->ntargets)
		/* its counters are written after its processes' snapshots */
		memsz_error("nothing recorded: cgroup '%s' has no process; "
			    "%s %s",
			    a->cgroup, a->out_name, untouched(a->so.path, st));
	else if (!st->committed)
		memsz_error("nothing recorded: no snapshot of any target "
			    "could be taken; %s %s",
			    a->out_name, untouched(a->so.path, st));
	else
		ret = -1;
	free(what);
	free(earlier);
	return ret;
}

/* Record with the parsed options; returns the exit status. */
static int record(struct record_args *a, const int *pids, int npids,
		  struct target_scan *scan)
{
	struct session_stats st = {0};
	struct session *s = NULL;
	int ret = 1, err, die = 0;
	bool said = true; /* a failure said already: no second line */

	a->so.say = say;
	a->so.launch = a->cmd != NULL;
	/* a recording is binary: none is sent to a terminal (as gzip
	 * refuses to), where it would garble the screen */
	if (a->out_dash && isatty(STDOUT_FILENO)) {
		memsz_error("-o -: standard output is a terminal; redirect it "
			    "to a file or a pipe");
		target_scan_free(scan);
		return 1;
	}
	/* a pipe whose reader left (-o /dev/stdout | head) and a file
	 * grown past the size limit (ulimit -f) are write errors (EPIPE,
	 * EFBIG) said in one line, what was recorded kept as FILE.partial,
	 * not a silent death that left only a temporary file; the launched
	 * command gets both signals as memsz found them (target_launch()) */
	target_ignore_write_signals();
	if (session_open(&a->so, &s) < 0) {
		memsz_error("%s", session_why(s));
		target_scan_free(scan);
		die = session_stop_signal(s); /* its header's write stalled */
		goto out;
	}
	if (a->cmd)
		err = session_launch(s, a->cmd);
	else if (scan)
		err = session_scan(s, scan);
	else
		err = session_attach(s, pids, npids);
	scan = NULL; /* the session owns it */
	if (err < 0) {
		memsz_error("%s", session_why(s));
		/* as the shell, env and timeout: 127 the command was not
		 * found, 126 it was found but could not be run (EACCES: a
		 * directory, a file without x, a noexec mount) */
		if (session_exec_failed(s))
			ret = session_exec_failed(s) == -ENOENT ? 127 : 126;
		else /* Ctrl-C at the launch */
			die = session_stop_signal(s);
		goto out;
	}
	session_run(s);
	session_finish(s, &st);
	ret = say_failure(a, &st);
	said = ret >= 0;
	if (ret < 0)
		ret = session_exit_code(s);
	if (st.committed)
		print_summary(a, &st);
	/* cut only once a snapshot was taken: committed unless werr */
	if (st.cut_sig && st.committed)
		ret = say_cut(a, &st);
	else /* whether written or not (a stalled or broken output) */
		die = session_stop_signal(s);
out:
	err = session_free(s);
	if (err < 0 && !said) {
		memsz_error("cannot write %s: %s", a->out_name,
			    memsz_strerror(err));
		ret = 1;
	}
	/* stopped by SIGINT, SIGTERM or SIGHUP: memsz dies by it once all
	 * is said, so that a shell's loop stops as it would for perf */
	if (die)
		ret = die_stopped(die);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a = {.so = {.path = "memsz.data", .inherit = true},
				.fo = {.period = 1}};
	struct target_scan *scan = NULL;
	int *pids = NULL, npids = 0, ret;

	/* each step returns -1 to go on, or the exit status */
	ret = parse_args(&a, argc, argv);
	if (ret < 0 && a.pidlist)
		ret = check_pids(a.pidlist, &pids, &npids);
	if (ret < 0 && (a.all || a.cgroup))
		ret = open_scan(&a, &scan);
	if (ret < 0)
		ret = record(&a, pids, npids, scan);
	free(pids);
	record_args_free(&a);
	return ret;
}
