/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_int.h — what the parts of a `memsz record` session share (not
 * for use outside record/session*.c).
 *
 * session.c        the public calls: open, launch, attach, finish, free
 * session_loop.c   the event loop (poll on signals, timer, pidfds, rings)
 * session_targets.c the targets: finding, following, their COMM,
 *                  CMDLINE, JIT and mapping records, the -a/-G scan
 * session_capture.c the perf records, backpressure (holds) and leashes,
 *                  the tracer's callbacks
 * session_trigger.c the snapshot triggers, one row each, and the snapshot
 */
#ifndef MEMSZ_RECORD_SESSION_INT_H
#define MEMSZ_RECORD_SESSION_INT_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/datafile.h"
#include "record/procmaps.h"
#include "record/session.h"
#include "util/hashmap.h"

struct memcg_mounts;
struct perf_capture;
struct snapper;
struct tracer;
struct tracer_ops;

/* Longest wait of the loop: how often the perf rings are drained (records
 * older than the time-ordering window are handed out) and, without perf,
 * how often /proc/PID/maps is polled for changes. */
#define POLL_MS 100
/* After SIGTERM at the end of --duration, a launched command gets this
 * long to exit before it is sent SIGKILL. */
#define KILL_GRACE_NS (2000ull * 1000 * 1000)
/* Fixed entries at the head of the loop's pollfd array: the signalfd, then
 * the interval timerfd (fd -1, ignored by poll, when there is none). */
#define PFD_SIGNAL 0
#define PFD_TIMER 1
#define PFD_FIXED 2
/* Backpressure: when a sample ring, or with sampling events a side-band
 * ring, is this full (per mille) as memsz gets to drain it, memsz has
 * fallen behind: the targets are held until it has drained the rings
 * down to RELEASE_FILL_PERMILLE (then they run while it drains the
 * rest). Rings wake memsz at 1/16 full, so a memsz that keeps up never
 * holds; what stays free (7/8 of a ring) absorbs the faults made
 * while the hold takes effect. */
#define HOLD_FILL_PERMILLE 125
#define RELEASE_FILL_PERMILLE 31
/* Leashes: each traced thread stops itself (a signal it gets from its own
 * counter, perf_capture_leash) once it took its share of LEASH_ROOM_PERMILLE
 * of a ring, and memsz lets it go only while no ring is HOLD_FILL_PERMILLE
 * full: the rings cannot overflow even while memsz gets no cpu, is busy
 * in a long snapshot, or is stopped. The rest of a ring is slack. */
#define LEASH_ROOM_PERMILLE 800
_Static_assert(HOLD_FILL_PERMILLE + LEASH_ROOM_PERMILLE < 1000,
	       "the leashed threads' room and the hold threshold fit a ring");
/* While draining, the fill of the rings is looked at again after this many
 * samples: a long drain of one ring must not let another one overflow. */
#define HOLD_CHECK_SAMPLES 64
/* The start and the end of an attached recording hold every traced
 * thread: how long it waits for them to stop (ms). A thread that cannot
 * stop (in vfork() while its child runs) makes no thread meanwhile (one
 * asked to stop runs no user code before it does); the others are held
 * while memsz waits. */
#define END_HOLD_WAIT_MS 100
/* A write to a direct output (-o PIPE --output-special) that has sent
 * nothing for this long is stalled: a stop signal then ends the
 * recording (rec_output_wait) and, where memsz holds traced targets,
 * the user is told once that they wait. A slow reader that still reads
 * is no stall: the signal is then taken as usual once the write is
 * done. */
#define STALL_NS (1000ull * 1000 * 1000)

struct rec_target {
	int pid;
	bool alive;
	bool traced;	      /* under ptrace: snapshot at its exit stop */
	bool exit_snap;	      /* that snapshot was taken */
	bool unreadable;      /* its pages cannot be read: left out */
	bool told;	      /* why it is missing was said and noted */
	int pidfd;	      /* attach mode: readable at exit; -1 */
	uint64_t start_ticks; /* found by a scan: target_start_time, to
			       * tell its pid handed to another; 0 */
	uint32_t nsnaps;      /* snapshots taken of it */
	bool maps_owed;	      /* attached with perf events and no record
			       * of its mappings yet: its next snapshot
			       * written stands for them, start or exit
			       * (whose stop may be handled first, in a
			       * drain or hold of another's snapshot) */
	uint64_t last_rss;    /* RSS of its last snapshot, bytes */
	bool grew;	      /* the growth trigger fired since last looked */
	uint64_t held_ns;     /* --freeze: how long the last snapshot held it */
	uint64_t thawed;      /* ... and when it let it go (monotonic ns) */
	char comm[16];	      /* command name when it was added */
	bool has_owner;	      /* a COMM record gave its owner ... */
	uint32_t owner;	      /* ... this uid (rec_write_owner) */
	char *cmdline;	      /* the last CMDLINE written for it */
	struct procmaps last; /* polling fallback: the maps seen last */
	uint64_t jit_off;     /* bytes of /tmp/perf-PID.map read so far */
	unsigned jit_told;    /* JIT_TOLD_*: what of its map was noted */
	uint64_t dead_ns;     /* when rec_reap_dead() first saw it dead */
	uint64_t snap_ns;     /* when its last snapshot ended */
};

struct synth_key {
	uint32_t pid;
	uint64_t start, len, pgoff, ino;
};

/* The targets: each is allocated on its own, so that a pointer to one
 * stays valid while a drain or a tracer callback (in a snapshot, say)
 * adds the children they report. Those that ended are freed by
 * rec_reap_dead() once nothing can refer to them any more, so that the
 * table holds the live processes and the few that just ended: memsz's
 * memory does not grow with the processes a long recording follows. */
struct rec_targets {
	struct rec_target **t;
	size_t n, cap;
	struct hashmap index; /* of t, by pid */
	uint64_t nreaped;     /* ended targets freed */
};

/* The perf capture and what came from it. */
struct rec_capture {
	struct perf_capture *pc;       /* NULL: polling fallback */
	struct perf_event_attr *sattr; /* --faults / -e sampling events */
	size_t nsattr;
	uint64_t nsamples, lost;
	uint64_t lost_sideband; /* of those, mapping-history records */
	/* MMAP2 records synthesized at attach, and the time up to which
	 * perf events may repeat them */
	struct synth_key *syn;
	size_t nsyn, syncap;
	uint64_t syn_time;
	/* every perf record older than this (CLOCK_MONOTONIC) was handed
	 * out by a drain */
	uint64_t drained_ns;
};

/* Backpressure and leashes: targets held while memsz drains the rings. */
struct rec_backpressure {
	bool hold;		  /* hold targets, lose no sample */
	uint64_t held_ns, nholds; /* time and times targets were held */
	uint64_t nleash, leash_k; /* leash stops seen, the longest leash
				   * (samples) then */
	bool leash_told;	  /* a thread could not be leashed */
	bool closing;		  /* session_free(): let leashes go */
	bool draining, holding;	  /* in rec_drain(); targets held in it */
	uint64_t hold_start;
	uint64_t end_start, end_held_ns; /* the end hold of an attached
					  * recording (session_finish) */
	uint64_t attach_held_ns;	 /* the hold while the events open */
};

/* Snapshots: the snapper and what the triggers took. */
struct rec_snaps {
	struct snapper *s;
	bool freeze;  /* --freeze */
	bool started; /* the launched command's first taken */
	uint32_t seq;
	uint64_t nsnaps;
	/* where the first snapshot ends in the file (md_writer_offset()
	 * after it): a batched writer (one-shots) holds it in memory until
	 * a flush, so a snapshot is in the file only once that much is */
	uint64_t first_end;
	bool pss_told;
	uint64_t snap_held_ns, nsnap_held; /* targets held by snapshots
					    * (growth, --freeze) */
	uint64_t round_ns; /* when the last round of snapshots of every
			    * target began (trigger_fire_all, final) */
};

/* The event loop's state. */
struct rec_loop {
	int sfd, tfd; /* signalfd, interval timerfd (-1) */
	sigset_t oldmask;
	/* the stop signals the session blocks and reads: SIGINT, SIGTERM,
	 * and SIGHUP, SIGXCPU unless memsz found them ignored (nohup) */
	sigset_t stopset;
	bool masked; /* oldmask must be restored */
	struct pollfd *pfd;
	size_t pfd_cap;
	bool stop, term_sent, got_exit;
	/* memsz sent the launched command SIGTERM or SIGKILL; the signal
	 * that stopped memsz (int_sig) had reached the command too when
	 * memsz decided (a Ctrl-C reaches the whole process group): see
	 * session_stop_signal() */
	bool signalled, cmd_got_stop;
	/* the first SIGINT, SIGTERM or SIGHUP taken (0: none); in a
	 * one-shot, the processes it left without a snapshot */
	int int_sig;
	bool stall_told; /* the output stalled: said (rec_output_wait) */
	size_t cut;
	uint64_t deadline, kill_at;
	int status; /* wait status of the launched command */
};

/* record -a, -G: the scan, and what it left out. */
struct rec_scan {
	struct target_scan *scan;
	int *denied; /* pids whose memory may not be read */
	size_t ndenied, deniedcap;
	int denied_err;
	uint64_t scan_gone; /* exited before their first snapshot */
	size_t kthreads;    /* kernel threads the first scan skipped */
	int scan_err;	    /* the last scan failed (told once) */
};

/* A file whose page cache was scanned, and when (session_cache.c). */
struct rec_scanned {
	uint64_t dev, ino, time;
};

/* A memory cgroup whose counters were recorded, and when. */
struct rec_cgseen {
	uint64_t ino, time;
	uint32_t version;
};

/* Memory cgroups (session_cgroup.c, session_cache.c). */
struct rec_memcg {
	struct memcg_mounts *mounts; /* read once; NULL until then */
	int mounts_err;		     /* reading them failed */
	char *dir;		     /* the snapshot process's memory cgroup
				      * (rec_prepare_cgroup), or NULL */
	uint64_t ino;		     /* its inode */
	bool has_dfd;		     /* dfd is open: */
	int dfd;		     /* dfd_dir (O_PATH), for its counters */
	char *dfd_dir;		     /* the cgroup dfd is open on */
	uint64_t dfd_ino;	     /* its inode */
	struct rec_cgseen *seen;     /* counters recorded lately */
	size_t nseen, seencap;
	bool told;	 /* the -G cgroup has no memory
			  * controller (told once) */
	uint64_t *named; /* cgroups paying for pages whose
			  * CGROUP record was written */
	size_t nnamed, namedcap;
	struct rec_scanned *scanned; /* files whose cache was scanned */
	size_t nscanned, scannedcap;
	struct hashmap scanned_ix; /* index of scanned by dev and inode */
	bool kpc_tried;		   /* kpagecgroup_fd was opened (or not) */
	int kpagecgroup_fd;	   /* -1: not readable */
	bool walk_cut;		   /* a stop signal cut a --cache-paths walk
				    * short: none is walked again */
	bool blind_told;	   /* a file mincore(2) tells nothing of was
				    * noted (once) */
};

struct session {
	struct session_opts o;
	const char *path;
	char *name;	 /* path as messages name it (session_opts.name) */
	char *partial;	 /* path.partial kept after a write error */
	int partial_err; /* ... or why it could not be (thrown away) */
	struct md_writer *w;
	int werr;	    /* first write error */
	bool commit_failed; /* ... came from md_writer_commit() */
	bool cmd_stopped;   /* ... and rec_stop_launched() ran */
	uint64_t nevents;
	struct tracer *tr; /* launched and attached targets */
	int child;	   /* launched pid or 0 */
	bool inherit;	   /* follow forked children */
	bool traced_all;   /* the targets at start are traced */
	bool ptrace_told;  /* said once that ptrace was refused */
	bool unpriv_told;  /* said once: traced without CAP_SYS_PTRACE */
	int exec_failed;   /* the command's exec failed: -errno; 0 */
	/* the recording ended (session_finish(), or session_free() without
	 * it): what the tracer tells from then on is not recorded */
	bool ended;
	char *why; /* explanation of the last failure, or NULL */
	struct rec_targets tg;
	struct rec_capture cap;
	struct rec_backpressure bp;
	struct rec_snaps sn;
	struct rec_loop loop;
	struct rec_scan sc;
	struct rec_memcg cg;
};

/* Tell the user msg (session_opts.say), as a warning or not. */
static inline void rec_say(struct session *r, bool warning, const char *msg)
{
	if (r->o.say)
		r->o.say(r->o.arg, warning, msg);
}

/* Remember the first write error (ret < 0); later writes are skipped.
 * True once a write failed. */
static inline bool rec_wfail(struct session *r, int ret)
{
	if (ret < 0 && !r->werr)
		r->werr = ret;
	return r->werr != 0;
}

/* A NOTE record of text, unless a write failed. */
static inline void rec_note(struct session *r, enum md_note_kind kind,
			    const char *text)
{
	if (!r->werr)
		rec_wfail(r, md_write_note_kind(r->w, kind, NULL, text));
}

/* --- session.c --- */

/* rec_note, and with -v (session_opts.verbose) "note: " and text said
 * too: for a note the user is not told otherwise. */
void rec_note_v(struct session *r, enum md_note_kind kind, const char *text);

/* Set the explanation of a failure (session_why) and return err. */
int rec_fail(struct session *r, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* --- session_targets.c --- */

/* The target pid, or NULL. */
struct rec_target *rec_target_find(struct session *r, int pid);
/* The target pid, added (alive, traced as said) if it is new; one known
 * already is marked alive. */
struct rec_target *rec_target_add(struct session *r, int pid, bool traced);
/* A synthesized COMM record for t: its command name and its owner. */
void rec_write_comm(struct session *r, struct rec_target *t);
/* A COMM record for t if its owner is not recorded yet or changed (a
 * launched command at its exec, a process that called setuid). */
void rec_write_owner(struct session *r, struct rec_target *t);
/* Follow pid, a process forked by a target (see session_targets.c). */
void rec_follow_child(struct session *r, int pid, bool traced);
/* A thread of pid whose maps can be read (the leader may be a zombie). */
int rec_live_tid(int pid);
/* Add the descendants roots[0..n) have now that are not targets yet
 * (record -p --children), each with its COMM record and a pidfd; one
 * whose memory may not be read is said, noted and left out. Returns how
 * many were added. */
size_t rec_add_descendants(struct session *r, const int *roots, int n);
/* An MMAP2 record for m, with an IMAGE record for its file if new. */
void rec_write_mmap2(struct session *r, struct md_mmap2 *m);
/* True if m repeats a mapping synthesized at attach (rec_synthesize). */
bool rec_synth_dup(struct session *r, const struct md_mmap2 *m);
/* Synthesize MMAP2 records for the mappings t has now (attach, for a
 * target whose start snapshot, MD_SNAP_F_MAPS, could not be taken). */
void rec_synthesize(struct session *r, struct rec_target *t);
/* Polling fallback: MMAP2 / MUNMAP records for what changed in t's maps
 * since last time (nothing when perf events follow them, or a scan). */
void rec_poll_maps(struct session *r, struct rec_target *t);
/* rec_poll_maps just before a snapshot of read_pid: the maps read are
 * handed to it (snapper_give_maps) when read_pid is t's pid. True if no
 * record of t's mappings was written before: none is written now, the
 * snapshot stands for them (give it MD_SNAP_F_MAPS). */
bool rec_poll_maps_snap(struct session *r, struct rec_target *t, int read_pid);
/* A CMDLINE record for t when its command line changed since the last. */
void rec_write_cmdline(struct session *r, struct rec_target *t);
/* JITMAP records for what t's JIT compilers added to /tmp/perf-PID.map. */
void rec_write_jit(struct session *r, struct rec_target *t);
/* Say (and note) that t is left out of the recording, and why (err). */
void rec_left_out(struct session *r, struct rec_target *t, int err);
/* Remember that pid, found by a scan, could not be read (err), once. */
void rec_scan_denied(struct session *r, int pid, int err);
/* Scan and follow what is new (record -a, -G). */
void rec_scan_targets(struct session *r);
/* NOTE (and say) what the scan left out. */
void rec_scan_note(struct session *r);
/* True while a target may still be alive. */
bool rec_any_alive(struct session *r);
/* Free the targets that ended and that no record still to come can refer
 * to (the perf records of their last moments have been drained), after
 * writing the note their end needs (rec_note_ended). Only from the top of
 * the loop: no pointer to a target may be held across it. */
void rec_reap_dead(struct session *r);
/* Free every target (session_free). */
void rec_targets_free(struct session *r);

/* --- session_capture.c --- */

/* The tracer's callbacks: snapshots at exec and exit, children, leashes. */
extern const struct tracer_ops rec_tracer_ops;
/* Hand the perf records to the file (all, or those older than the
 * time-ordering window), holding the targets while memsz is behind. */
void rec_drain(struct session *r, bool all);
/* Hold every traced thread if a sample or side-band ring is
 * HOLD_FILL_PERMILLE full (perf_capture_ring_fill). */
void rec_backpressure(struct session *r);
/* snapper_set_tick's callback: backpressure between chunks. */
void rec_snapshot_tick(void *arg);

/* --- session_trigger.c --- */

/* The snapshot triggers: each is one row of session_trigger.c's table. */
enum trigger_id {
	TRIGGER_START,	  /* a target's first snapshot */
	TRIGGER_INTERVAL, /* every --interval */
	TRIGGER_GROWTH,	  /* its resident memory grew (kernel-triggered) */
	TRIGGER_EXIT,	  /* at its exit stop, before the teardown */
	TRIGGER_FINAL,	  /* when the recording stops, for those alive */
	TRIGGER_COUNT
};

/* Set up the triggers that need it (the interval timer) as the loop
 * starts. */
void triggers_arm(struct session *r);
/* Snapshot t for trigger id if the trigger's row says it is due, read
 * through thread tid (0: a live thread of t), with flags ORed into the
 * row's. */
void trigger_fire(struct session *r, enum trigger_id id, struct rec_target *t,
		  int tid, uint32_t flags);
/* trigger_fire for every target (those added meanwhile included) until a
 * write fails. */
void trigger_fire_all(struct session *r, enum trigger_id id);
/* The growth trigger's page-fault period for the perf capture (0: no
 * growth snapshots). */
uint64_t trigger_growth_period(const struct session *r);
/* A growth sample came for t (may be NULL): looked at after the drain. */
void trigger_growth_fired(struct rec_target *t);
/* The final snapshots of the targets alive, with a note for each target
 * that ended without its last one. */
void rec_final_snapshots(struct session *r);
/* The note of t, which ended without its last snapshot (none for one
 * alive, one with its exit snapshot, one already told, or a scan's
 * process never snapshot, which rec_scan_note() counts). */
void rec_note_ended(struct session *r, struct rec_target *t);

/* --- session_cgroup.c --- */

/* Before a snapshot of t: find its memory cgroup and tell the snapper. */
void rec_prepare_cgroup(struct session *r, struct rec_target *t);
/* After a snapshot of t: CGROUP records of t's memory cgroup and, in a
 * -G recording, of the -G cgroup (the counters of the same moment). */
void rec_write_cgroups(struct session *r, struct rec_target *t);
/* -a: after a round of snapshots, a MACHINE record (meminfo, slabinfo
 * and, with --frame-walk, a walk of the page frames). Nothing in other
 * recordings. */
void rec_machine_round(struct session *r);
/* Free what the session holds of the memory cgroups. */
void rec_cgroups_free(struct session *r);

/* --- session_cache.c --- */

/* -G: FILE_CACHE records of the files pid holds open or maps and of the
 * files under --cache-paths not scanned lately. A stop signal (SIGINT,
 * SIGTERM, SIGHUP, SIGXCPU: r->loop.stopset) arriving during a walk of
 * --cache-paths ends it (and the recording, r->loop.stop) with a NOTE:
 * the signal is taken, so it cannot kill memsz when the session unblocks
 * it. */
void rec_scan_cache(struct session *r, int pid);

/* --- session_loop.c --- */

/* A signal read from the signalfd or taken pending: Ctrl-Z stops memsz,
 * SIGCHLD only wakes the loop, the others stop the recording; the soft
 * CPU time limit (SIGXCPU) is said and noted once, as it is no request of
 * the user's. */
void rec_take_signal(struct session *r, uint32_t sig);
/* Take the stop signals pending (r->loop.stopset), not waiting: those
 * the loop never read (a one-shot recording has no loop; SIGXCPU comes
 * again each CPU second past the soft limit, also during the final
 * snapshots). Left pending, the session's mask restored would let them
 * kill memsz after the recording was written, with no word said. */
void rec_take_pending_signals(struct session *r);
/* One-shot, between two targets' snapshots: whether SIGINT, SIGTERM or
 * SIGHUP came (taken pending), so that the snapshots not taken yet are
 * left out, as Ctrl-C asks (SIGXCPU is no request of the user's: its
 * one-shot takes every snapshot). */
bool rec_one_shot_cut(struct session *r);

/* The writer's wait hook (md_writer_set_wait): a write to a direct
 * output has sent nothing for stalled_ns. Once that is STALL_NS, says
 * (once) that the traced targets wait for the reader, and fails the
 * write (-MEMSZ_ESTALLED) if SIGINT, SIGTERM or SIGHUP came: taken, the
 * recording stops, its targets are let go (session_free) and the
 * launched command is ended as after any write error. The signals stay
 * blocked (the signalfd reads them): nothing else would end a write
 * that waits forever, with every traced thread held at its next ptrace
 * stop meanwhile. */
int rec_output_wait(void *arg, uint64_t stalled_ns);

/* After a write error: end the launched command and what it forked. */
void rec_stop_launched(struct session *r);

#endif
