/* demangle.h — the Rust demangler behind elf_demangle(); private to elf/. */
#ifndef MEMSZ_ELF_DEMANGLE_H
#define MEMSZ_ELF_DEMANGLE_H

#include <stddef.h>

/* Demangle a Rust symbol name: legacy ("_ZN" path "17h" 16 hex digits "E",
 * the hash dropped) or v0 ("_R...", crate disambiguators dropped), printed
 * as rustc-demangle's alternate form ("{:#}") and rustfilt print them. A
 * ".llvm.<hex>" suffix is dropped, other suffixes are kept. Returns a
 * malloc'd string, or NULL if name is not a Rust name this demangler
 * reads, or its output would pass max_out bytes. (elf/rustdemangle.c) */
char *elf_demangle_rust(const char *name, size_t max_out);

#endif
