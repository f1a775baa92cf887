/* target.h — the processes `memsz record` follows: launch, attach, ptrace,
 * freeze.
 *
 * A launched command is forked and waits on a pipe until the caller has set
 * up its perf events and seized it with ptrace (PTRACE_O_TRACEEXIT, and
 * TRACEFORK/VFORK/CLONE when following children), so the last snapshot of
 * each process can be taken at its exit, before the kernel tears the address
 * space down. Attached processes are seized too when they may have to be
 * held (--freeze, sampling without --lossy). Every stop memsz makes is a
 * ptrace stop, which the kernel ends when memsz exits or dies: a target is
 * never left stopped. memsz never writes to a target's memory.
 */
#ifndef MEMSZ_RECORD_TARGET_H
#define MEMSZ_RECORD_TARGET_H

#include <stdbool.h>
#include <stddef.h>

/* Parse "PID[,PID...]" into a new array *pids (caller frees). Returns the
 * count or -MEMSZ_EUSAGE. */
int target_parse_pids(const char *s, int **pids);
/* 0 if pid is a live process whose memory maps memsz may read, -ESRCH if
 * there is none (or a zombie), -EACCES/-EPERM if not allowed. */
int target_check_pid(int pid);
/* Thread ids of pid from /proc/PID/task into a new array *tids (caller
 * frees). Returns the count or -errno. */
int target_threads(int pid, int **tids);
/* Thread-group id of tid (/proc/TID/status), or -errno. */
int target_tgid(int tid);
/* One-letter scheduler state of tid ('R', 'S', 'T', 't', 'Z', ...), or 0 if
 * it cannot be read. */
char target_state(int tgid, int tid);

/* Fork a child that will execvp(argv[0], argv) once target_launch_go() is
 * called; until then it waits. Returns the child's pid or -errno. */
int target_launch(char **argv);
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
};

/* PTRACE_SEIZE pid with TRACEEXIT | TRACEEXEC (and TRACEFORK | TRACEVFORK |
 * TRACECLONE when follow). Returns 0 and *out or -errno. */
int tracer_seize(int pid, bool follow, const struct tracer_ops *ops,
		 void *arg, struct tracer **out);
/* Handle every pending wait status of the traced tasks (non-blocking):
 * resume them, calling ops at exec, fork and last-thread exit. Returns the
 * number of statuses handled. */
int tracer_poll(struct tracer *t);
/* True once the seized process has been reaped; *status (may be NULL) gets
 * its wait status. */
bool tracer_done(const struct tracer *t, int *status);
/* A tracer for processes memsz did not launch (attach mode): empty, fill
 * it with tracer_attach(). follow: also trace the processes they fork.
 * Returns 0 and *out. */
int tracer_holder(bool follow, const struct tracer_ops *ops, void *arg,
		  struct tracer **out);
/* PTRACE_SEIZE every thread of the running process pid (following the
 * threads it starts, and the processes it forks if the tracer follows
 * them): it runs on, and can be held. Returns 0, -ESRCH, or -EPERM/-EACCES
 * (not allowed, or traced by another tracer). */
int tracer_attach(struct tracer *t, int pid);
/* True if t traces threads of process tgid. */
bool tracer_has(const struct tracer *t, int tgid);
/* Hold every thread of process tgid in a ptrace stop (PTRACE_INTERRUPT),
 * waiting at most 1 s. Returns 0 or -errno. */
int tracer_freeze(struct tracer *t, int tgid);
/* Resume what tracer_freeze() held. */
void tracer_thaw(struct tracer *t, int tgid);
/* Hold every traced thread of every process (PTRACE_INTERRUPT), waiting
 * at most 1 s for all to stop. Returns 0 or -ETIMEDOUT (some still run). */
int tracer_hold_all(struct tracer *t);
/* Resume what tracer_hold_all() held. */
void tracer_release_all(struct tracer *t);
/* Detach from every task (they run on) and free. NULL is fine. */
void tracer_free(struct tracer *t);

#endif
