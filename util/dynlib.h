/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dynlib.h — shared libraries loaded on first use (dlopen), so that a
 * command that never needs one does not pay for loading it (and for the
 * libraries it pulls in) at every start.
 *
 * A module that calls into such a library keeps a static struct dynlib
 * naming the library and the functions it uses, each resolved into a
 * function pointer of the module, and calls dynlib_load() before the first
 * call through them.
 */
#ifndef MEMSZ_UTIL_DYNLIB_H
#define MEMSZ_UTIL_DYNLIB_H

#include <stddef.h>

/* One function of a library: its name and the pointer that receives its
 * address (a function pointer, passed as (void **)&fn). */
struct dynlib_sym {
	const char *name;
	void **addr;
};

/* A library loaded on first use. soname, syms and nsyms are set by the
 * module; state is 0 until dynlib_load() has run, then 1 when loaded or
 * the negative code of the failure (kept: the library is tried once). */
struct dynlib {
	const char *soname;
	const struct dynlib_sym *syms;
	size_t nsyms;
	int state;
};

/* Load lib->soname (dlopen, RTLD_NOW | RTLD_LOCAL) and resolve every one
 * of lib->syms, the first time; later calls return the first answer
 * without trying again. Safe to call from several threads. The library
 * stays loaded until exit. Returns 0, or -MEMSZ_ENOLIB if the library
 * cannot be opened or lacks one of the functions (then no call through
 * the pointers may be made). */
int dynlib_load(struct dynlib *lib);

#endif
