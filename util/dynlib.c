// SPDX-License-Identifier: GPL-2.0-or-later
/* dynlib.c — shared libraries loaded on first use (see dynlib.h). */
#include "config.h"

#include "util/dynlib.h"
#include "util/util.h"

#include <dlfcn.h>
#include <pthread.h>

static pthread_mutex_t dynlib_mu = PTHREAD_MUTEX_INITIALIZER;

/* Open lib and resolve its functions; 1 or -MEMSZ_ENOLIB. A library that
 * lacks a function is closed again: a half-resolved table is never used. */
static int dynlib_open(struct dynlib *lib)
{
	void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return -MEMSZ_ENOLIB;
	for (size_t i = 0; i < lib->nsyms; i++) {
		void *p = dlsym(h, lib->syms[i].name);

		if (!p) {
			for (size_t k = 0; k < i; k++)
				*lib->syms[k].addr = NULL;
			dlclose(h);
			return -MEMSZ_ENOLIB;
		}
		*lib->syms[i].addr = p;
	}
	return 1;
}

int dynlib_load(struct dynlib *lib)
{
	int state;

	pthread_mutex_lock(&dynlib_mu);
	if (!lib->state)
		lib->state = dynlib_open(lib);
	state = lib->state;
	pthread_mutex_unlock(&dynlib_mu);
	return state < 0 ? state : 0;
}
