/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session.h — one `memsz record` run: the targets, the perf capture, the
 * snapshots and the event loop that drives them into memsz.data.
 *
 * The loop waits (poll) on a signalfd (SIGINT/SIGTERM/SIGHUP/SIGXCPU end
 * the recording, SIGCHLD wakes it), an optional interval timerfd, a pidfd per
 * attached target and the perf rings. Launched commands and attached
 * processes (with the children they fork) are run under one ptrace tracer:
 * each process gets a last snapshot at its exit, and can be held: for
 * --freeze and growth snapshots, and for backpressure when sampling (a
 * sample ring filling faster than memsz drains it holds every traced
 * thread until it is drained). Attached ones also get a final snapshot
 * when the recording stops. A ptrace stop ends when memsz does, so memsz
 * never leaves a target stopped; a process stopped by a signal stays
 * stopped after the detach. Without perf permission
 * mappings are followed by polling /proc/PID/maps.
 *
 * The session never prints: messages for the user go to opts.say, errors
 * come back as codes with a one-line explanation from session_why().
 */
#ifndef MEMSZ_RECORD_SESSION_H
#define MEMSZ_RECORD_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_event_attr;
struct session;
struct target_scan;

struct session_opts {
	const char *path;    /* memsz.data to write (borrowed) */
	const char *name;    /* path as messages name it, quoted or
				standard output (borrowed); NULL: 'path' */
	bool output_special; /* path may be a pipe or device */
	bool launch;	     /* a command is launched (record -- CMD) */
	bool freeze;	     /* stop the targets while snapshotting */
	/* Sampling: let the kernel drop samples when memsz falls behind
	 * rather than hold the targets (backpressure) until it catches up. */
	bool lossy;
	bool inherit;	      /* follow forked children */
	bool children;	      /* attach: also every descendant the
				 targets have at attach (--children) */
	uint64_t interval_ms; /* 0: no periodic snapshots */
	uint64_t duration_ns; /* 0: until the targets end or a signal */
	bool one_shot;	      /* attach: one snapshot each, no events */
	bool no_growth;	      /* no snapshots on resident growth */
	bool frame_walk;      /* -a: also walk every page frame
				 (--frame-walk), beside /proc/meminfo */
	/* -G: directories whose files' page cache is named (borrowed) */
	const char *const *cache_paths;
	size_t ncache_paths;
	/* Sampling events (--faults, -e), copied; names is the -e list as
	 * the user gave it, for the "event N: NAME" notes (NULL: none). */
	const struct perf_event_attr *samples;
	size_t nsamples;
	const char *names;
	unsigned ring_pages; /* sample ring pages per cpu; 0: default */
	/* Told what the user should know (a fallback, lost records, missing
	 * PSS); warning selects the "warning: " form. May be NULL. */
	void (*say)(void *arg, bool warning, const char *msg);
	void *arg;
	/* record -v: also say (not as a warning) each NOTE written that is
	 * not said otherwise, and what each snapshot decided by cost
	 * (snapper_set_tell); the recording is the same either way */
	bool verbose;
};

/* What a finished session wrote, for the summary line. */
struct session_stats {
	uint64_t nevents, lost, nsnaps;
	uint64_t lost_sideband;	  /* mapping-history records lost (not in
				   * lost, which counts samples) */
	uint64_t nsamples;	  /* SAMPLE records the file holds */
	uint64_t unwritten;	  /* samples a write error kept out of it */
	uint64_t held_ns, nholds; /* backpressure: targets held, how long */
	uint64_t snap_held_ns, nsnap_held; /* ... and by snapshots */
	uint64_t bytes;			   /* memsz.data size so far */
	int werr;			   /* first write error, 0 if none */
	bool committed;			   /* the recording replaced path */
	/* werr came when the complete recording was to replace path (the
	 * move of path to path.old, the rename over path): nothing was
	 * cut short */
	bool complete;
	/* after werr, memsz ended the launched command (SIGTERM, SIGKILL);
	 * false when it had ended by itself */
	bool cmd_stopped;
	/* processes the scan or attach found, those that could not be read
	 * (EPERM) included (0: -G found none) */
	size_t ntargets;
	bool direct; /* written straight into path (no temporary file) */
	/* The file werr is about: path, or path.old when the recording at
	 * path could not be moved there (md_writer_err_path); valid until
	 * session_free(). */
	const char *werr_path;
	/* After a write error with a snapshot written: where what was
	 * written is kept (path.partial, malloc'd, freed by session_free),
	 * or NULL. */
	char *partial;
	/* ... or why it could not be kept and was thrown away (-EEXIST:
	 * path.partial to path.partial.(partial_max - 1) all exist); 0 */
	int partial_err;
	unsigned partial_max;
	/* A one-shot that took SIGINT, SIGTERM or SIGHUP (that signal;
	 * 0: none): cut processes were left without a snapshot (0: it
	 * came during the last), held have one. */
	int cut_sig;
	size_t cut, held;
};

/* Block the signals the loop reads, open the output and start snapshots.
 * Returns 0 and *out, or a negative code with session_why() set (then *out
 * is still set and must be given to session_free()). */
int session_open(const struct session_opts *o, struct session **out);
/* Launch argv under ptrace with its perf events enabled at exec and take the
 * first snapshot there. Returns 0, or a negative code with session_why();
 * session_exec_failed() tells when the command itself could not be run (the
 * child is then already reaped). */
int session_launch(struct session *s, char **argv);
/* Attach to the processes pids[0..n) (with opts.children, and to every
 * descendant they have: found before the perf events are opened, and
 * again once the targets are traced, for those forked meanwhile): open
 * their perf events, describe their current mappings, take a first
 * snapshot of each and hold them under ptrace (following their children
 * unless !inherit) so that each process gets a snapshot at its exit. A
 * target gone before its first snapshot is said and noted. One-shot: the
 * snapshot only. Returns 0, or a negative code with session_why(). */
int session_attach(struct session *s, const int *pids, int n);
/* Record the processes scan finds (record -a, -G): the session takes scan
 * and frees it. Each process gets a COMM record with its owner and a first
 * snapshot; there are no perf events and no ptrace, so mappings are known
 * from the snapshots only. The loop scans again — a cgroup at every turn,
 * all processes at every --interval — and records the processes that
 * appeared. Processes that cannot be read are left out, counted in a note.
 * Returns 0, or a negative code with session_why(). */
int session_scan(struct session *s, struct target_scan *scan);
/* Run the event loop until the launched command exits, the attached
 * targets are gone, the duration ends, a signal arrives or a write fails.
 * A scan recording runs until the duration ends or a signal. Returns at
 * once for a one-shot recording. */
void session_run(struct session *s);
/* Final snapshots of the attached targets, the last perf records, a note
 * of lost records, the batched samples written; then, if no write failed
 * and a snapshot was taken, the recording is committed to its path
 * (md_writer_commit). After a write error the launched command and every
 * process forked from it are ended (SIGTERM, SIGKILL after a grace
 * period) and reaped rather than left running unwatched. Fills *st (may
 * be NULL). */
void session_finish(struct session *s, struct session_stats *st);
/* Exit status the launched command ended with (128 + signal when killed),
 * or 0 when attached or when it has not been reaped. */
int session_exit_code(const struct session *s);
/* The stop signal (SIGINT, SIGTERM or SIGHUP) that ended the recording
 * (or interrupted session_launch(), or a write its reader left stalled)
 * and that memsz dies by once all is said, as perf record does, so that
 * the shell stops the loop or script that ran it; 0 when none came, or
 * when the launched command exited (not killed by a signal) by itself or
 * on that signal, which reached it too (Ctrl-C), not on memsz's own
 * SIGTERM: then its exit status (session_exit_code) is memsz's, as a
 * shell passes on the status of a command that handled the signal and
 * exited. */
int session_stop_signal(const struct session *s);
/* The explanation of the last failed call ("" if none): the sentence
 * util.h's error convention gives beside a code, held by s (valid until
 * the next call on s or session_free()). */
const char *session_why(const struct session *s);
/* The error (a negative errno) with which the command could not exec when
 * session_launch() failed so; 0 otherwise. */
int session_exec_failed(const struct session *s);
/* Stop tracing, close everything, restore the signal mask and close the
 * output. Returns the writer's close status (0 or a negative code). NULL
 * is fine. */
int session_free(struct session *s);

#endif
