/* SPDX-License-Identifier: GPL-2.0-or-later */
/* target.h — the processes `memsz record` follows: launch, attach, ptrace,
 * freeze.
 *
 * A launched command is forked and waits on a pipe until the caller has set
 * up its perf events and seized it with ptrace (PTRACE_O_TRACEEXIT and
 * TRACECLONE, TRACEFORK/VFORK when following children), so the last
 * snapshot of each process can be taken at its exit, before the kernel
 * tears the address space down. Attached processes are seized the same
 * way, every thread of them: one tracer follows their children and exits
 * and holds them (--freeze, growth snapshots, backpressure when sampling
 * without --lossy). Every stop memsz makes is a ptrace stop, which the
 * kernel ends when memsz exits or dies; at a normal end memsz detaches so
 * that a process stopped by a signal stays stopped. memsz never writes to
 * a target's memory.
 */
#ifndef MEMSZ_RECORD_TARGET_H
#define MEMSZ_RECORD_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/* Parse "PID[,PID...]" into a new array *pids (caller frees). Returns the
 * count or -MEMSZ_EUSAGE. */
int target_parse_pids(const char *s, int **pids);
/* 0 if pid is a live process whose memory maps memsz may read, -ESRCH if
 * there is none (or a zombie), -EACCES/-EPERM if not allowed. */
int target_check_pid(int pid);
/* True if pid is a kernel thread (PF_KTHREAD): it has no user memory. */
bool target_is_kthread(int pid);
/* True if pid is a zombie: exited, not reaped, no live thread left. */
bool target_is_zombie(int pid);
/* When pid started (the 22nd field of /proc/PID/stat, clock ticks after
 * boot) into *ticks: with the pid, it names one process, for a pid can be
 * handed out again once its process is reaped. Returns 0 or -errno
 * (-ESRCH: gone). */
int target_start_time(int pid, uint64_t *ticks);
/* The command name of pid (/proc/PID/comm, without the newline) into buf
 * of size bytes. Returns 0 or -errno. */
int target_comm(int pid, char *buf, size_t size);
/* The command line of pid (/proc/PID/cmdline, arguments joined by spaces,
 * at most 4096 bytes; "" for kernel threads and zombies) into a new string
 * *out (caller frees). Returns 0 or -errno. */
int target_cmdline(int pid, char **out);
/* Bytes of /proc/PID/status read in one read(2): the whole file of most
 * processes (~1.5 KiB); one whose Groups: line is long (hundreds of
 * supplementary groups, as directory-joined hosts give) is read whole. */
#define TARGET_STATUS_MAX 4096
/* /proc/PID/status, NUL-terminated: in buf (size bytes, one read(2)) when
 * it fits, else whole (up to 1 MiB) in a new buffer *big (caller frees;
 * NULL when buf holds it). The text's length, or -errno. */
ssize_t target_status_read(int pid, char *buf, size_t size, char **big);
/* /proc/PID/status opened for target_status_reread: a descriptor
 * (caller closes) or -errno. */
int target_status_open(int pid);
/* target_status_read through fd (target_status_open for pid), from the
 * file's start: the kernel writes the text anew at each read from offset
 * 0, so a process's status is read again without the open(2), path walk
 * and close(2) (~4 of ~10 us); a text longer than buf is read whole
 * through fd too. -ESRCH once the process is gone. */
ssize_t target_status_reread(int fd, char *buf, size_t size, char **big);
/* The number after "field:" on a line of the status text buf
 * (target_status_read), or -ENOENT. */
int64_t target_status_field(const char *buf, const char *field);
/* The value of a "Field:  N kB" line of /proc/PID/status (field without
 * the colon, e.g. "VmHWM"), in kB, or -errno (-ENOENT: no such line). */
int64_t target_status_kb(int pid, const char *field);
/* The process tracing pid (TracerPid of /proc/PID/status): its pid, 0 if
 * none, or -errno. */
int target_tracer(int pid);
/* The signals thread tid blocks (*blocked: SigBlk of /proc/TID/status)
 * and those its process catches (*caught: SigCgt), bit n-1 for signal n,
 * read in one pass; both 0 if it cannot be read. */
void target_signal_masks(int tid, uint64_t *blocked, uint64_t *caught);
/* The signals that end pid if delivered now: fatal by default (not
 * SIGCHLD, SIGCONT, SIGURG, SIGWINCH nor a stop signal), neither caught
 * nor ignored by it (SigCgt, SigIgn of /proc/PID/status), bit n-1 for
 * signal n; 0 if it cannot be read. */
uint64_t target_fatal_signals(int pid);
/* The lowest signal pending for the whole of process pid (ShdPnd) that
 * ends it when delivered (target_fatal_signals) and that some thread of
 * it does not block (SigBlk of each task), or 0; *pending gets every
 * signal pending for it (ShdPnd, bit n-1 for signal n; 0 if it cannot be
 * read), from the same read. */
int target_fatal_pending(int pid, uint64_t *pending);
/* Resident bytes of pid now (/proc/PID/statm), or -errno. */
int64_t target_rss(int pid);
struct target_sp {
	int tid;
	uint64_t sp;
};

/* The user stack pointer of each thread of pid that is not running now
 * (from /proc/PID/task/TID/syscall; needs ptrace read access) into a new
 * array *out (caller frees). Returns the count or -errno. */
int target_thread_sps(int pid, struct target_sp **out);
/* What thread tid of tgid is doing, from /proc/TGID/task/TID/syscall
 * (needs ptrace attach access): 1 if it runs; 0 if it is blocked, with
 * *nr the system call it is in and *arg0 its first argument (*nr -1 and
 * *arg0 0 outside a system call: in a fault, say); or -errno (-ESRCH,
 * -ENOENT: gone). */
int target_syscall(int tgid, int tid, long *nr, uint64_t *arg0);
/* The 8 bytes at addr in the memory of pid (process_vm_readv: ptrace
 * attach access). Returns 0 or -errno. */
int target_read_u64(int pid, uint64_t addr, uint64_t *v);
/* Thread ids of pid from /proc/PID/task into a new array *tids (caller
 * frees). Returns the count or -errno. */
int target_threads(int pid, int **tids);
/* Thread-group id of tid (/proc/TID/status), or -errno. */
int target_tgid(int tid);
/* One-letter scheduler state of tid ('R', 'S', 'T', 't', 'Z', ...), or 0 if
 * it cannot be read. */
char target_state(int tgid, int tid);

/* Ignore SIGPIPE and SIGXFSZ in memsz: a write to a pipe whose reader
 * left is then an EPIPE error, and one past the file size limit (ulimit
 * -f) an EFBIG error, each said in one line with what was recorded kept,
 * not a silent death. What each was is remembered for the command
 * target_launch() starts. */
void target_ignore_write_signals(void);
/* Fork a child that will execvp(argv[0], argv) once target_launch_go() is
 * called; until then it waits; it gets SIGPIPE and SIGXFSZ ignored if
 * memsz found them so (target_ignore_write_signals()), else by default,
 * and mask as its signal mask (the one memsz found). Returns the child's
 * pid or -errno. */
int target_launch(char **argv, const sigset_t *mask);
/* Let the child launched as pid exec. Returns 0 once it has exec'd, or the
 * negative errno of a failed exec (the child then exits with 127). */
int target_launch_go(int pid);

/* --- ptrace --- */
struct tracer;

struct tracer_ops {
	/* A traced task completed an execve (pid is its thread-group id). */
	void (*at_exec)(void *arg, int pid);
	/* A new process (not a thread) was forked by a traced process. */
	void (*at_fork)(void *arg, int pid, int ppid);
	/* The last live thread of process tgid stopped at its exit: its
	 * address space is still whole; tid is the thread to read it through
	 * (/proc/TID/...), which is tgid unless the leader exited first. */
	void (*at_exit)(void *arg, int tgid, int tid);
	/* A thread is traced from now on (add), or is gone (!add): called
	 * for each thread seized and each new thread or followed process
	 * before it runs its first instruction, and as each exits: at its
	 * exit stop (it never runs user code again) and once reaped. from is
	 * the traced thread that made a new thread (it starts with from's
	 * signal mask: its own blocks every signal until its start routine
	 * sets it, in glibc and musl), else 0. */
	void (*at_thread)(void *arg, int tid, int from, bool add);
	/* A signal-delivery-stop for a signal sig of leash_sigs (bit sig-1)
	 * with si_code POLL_IN (an O_ASYNC file's), fd its si_fd: true if
	 * memsz sent it for itself (the signal is then suppressed; the
	 * callback may hold the thread with tracer_interrupt_all(), which
	 * does not interrupt this stop again), false to deliver it. */
	uint64_t leash_sigs;
	bool (*at_leash)(void *arg, int tid, int sig, int fd);
};

/* PTRACE_SEIZE pid, the child memsz launched, with TRACEEXIT | TRACEEXEC |
 * TRACECLONE (every thread it starts is traced too) and TRACEFORK |
 * TRACEVFORK when follow (so are the processes it forks). Returns 0 and
 * *out or -errno. */
int tracer_seize(int pid, bool follow, const struct tracer_ops *ops, void *arg,
		 struct tracer **out);
/* Seize every thread of the running process pid (not a child of memsz)
 * with the same options, into *tr (created if NULL; freed by
 * tracer_free() even when this fails): it runs on, can be held, and its
 * exit is seen. tracer_done() never becomes true for an attached process.
 * Returns 0, -ESRCH/-ENOENT (gone) or -EPERM/-EACCES (not allowed, or
 * traced by another tracer). */
int tracer_attach(struct tracer **tr, int pid, bool follow,
		  const struct tracer_ops *ops, void *arg);
/* fn(arg, tid) for each traced thread recorded and running (not at its
 * exit, nor kept at its first stop: its maker's clone event tells
 * ops->at_thread of it). */
void tracer_each_thread(struct tracer *tr, void (*fn)(void *arg, int tid),
			void *arg);
/* Handle every pending wait status of the traced tasks (non-blocking):
 * resume them, calling ops at exec, fork and last-thread exit. Returns the
 * number of statuses handled. */
int tracer_poll(struct tracer *t);
/* True while tid is a task the tracer traces and has not reaped: its id
 * names no other task until the tracer has waited on its exit (a traced
 * task's parent cannot reap it before), so a signal sent to it reaches it
 * and nothing else. */
bool tracer_traces(struct tracer *t, int tid);
/* True once the seized process has been reaped; *status (may be NULL) gets
 * its wait status. */
bool tracer_done(const struct tracer *t, int *status);
/* A signal that ends process tgid which one of its threads was given at
 * its signal-delivery-stop (passed on, or held to be at the thaw): it is
 * ending by it. 0 if none (t may be NULL). */
int tracer_fatal(const struct tracer *t, int tgid);
/* The signals seen at a tracee's signal-delivery-stop so far (passed on,
 * held or taken by a leash), bit n-1 for signal n; 0 if t is NULL. */
uint64_t tracer_delivered(const struct tracer *t);
/* Hold every thread of process tgid (of every traced process when 0) in
 * a ptrace stop (PTRACE_INTERRUPT), waiting at most 1 s. Returns 0 or
 * -errno. */
int tracer_freeze(struct tracer *t, int tgid);
/* tracer_freeze(), waiting at most wait_ms: the threads that have not
 * stopped by then stay asked to (held at their next stop) until the
 * thaw. */
int tracer_freeze_for(struct tracer *t, int tgid, unsigned wait_ms);
/* tracer_freeze_for() of every traced process; then, each time, seize the
 * threads of those processes not traced yet and freeze them too, until
 * none is found after a freeze that every thread reached, or that only
 * threads blocked outside a clone() making a thread missed, 8 times at
 * most (a thread seized inside clone() can have made one the kernel does
 * not trace). Returns 0 or -ETIMEDOUT (the last freeze). */
int tracer_freeze_seized(struct tracer *t, unsigned wait_ms);
/* Ask every thread of process tgid to stop (PTRACE_INTERRUPT) without
 * waiting: a later tracer_freeze() waits for them, tracer_thaw() lets
 * them go. */
void tracer_interrupt(struct tracer *t, int tgid);
/* Resume what tracer_freeze() or tracer_interrupt() held (tgid 0: every
 * traced process). */
void tracer_thaw(struct tracer *t, int tgid);
/* Ask every traced thread of every process to stop (PTRACE_INTERRUPT)
 * and hold it there, without waiting: each is held from its stop (seen by
 * tracer_poll()) until tracer_release_all(); one that stops only after the
 * release runs on at once. Independent of tracer_freeze(): a thread held
 * for both runs again only once both are released. */
void tracer_interrupt_all(struct tracer *t);
/* Resume what tracer_interrupt_all() held. */
void tracer_release_all(struct tracer *t);
/* Detach from every task and free: each is left as it would be without
 * memsz (running, or stopped if it was stopped by a signal). NULL is
 * fine. */
void tracer_free(struct tracer *t);

#endif
