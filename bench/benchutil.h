/* SPDX-License-Identifier: GPL-2.0-or-later */
/* benchutil.h — what the C benchmarks share: a monotonic clock and the
 * process's peak RSS. Header only (static inline): each bench program is
 * one source file. */
#ifndef MEMSZ_BENCHUTIL_H
#define MEMSZ_BENCHUTIL_H

#include <sys/resource.h>
#include <time.h>

/* Seconds on CLOCK_MONOTONIC (an arbitrary origin: use differences). */
static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The peak resident set size of this process so far, in KiB (getrusage's
 * ru_maxrss). */
static inline long bench_peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

#endif
