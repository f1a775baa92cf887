/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fresh_anon.h — for the page-fault workloads: a private anonymous mapping
 * of len bytes, not populated and with MADV_NOHUGEPAGE, so that each page
 * faults exactly once, on its first write (exits on failure). */
#ifndef FRESH_ANON_H
#define FRESH_ANON_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static char *fresh_anon(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

#endif
