/* fuzzutil.h — shared by the libFuzzer targets in fuzz/.
 *
 * The commands under fuzz read files by path and print: the targets put
 * the fuzz bytes in a memory file (fuzz_file) and run the command with its
 * output thrown away (fuzz_quiet_begin / fuzz_quiet_end).
 */
#ifndef MEMSZ_FUZZ_FUZZUTIL_H
#define MEMSZ_FUZZ_FUZZUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Replace the contents of this process's memory file by the n bytes at p.
 * Returns its path ("/proc/self/fd/N", static storage); aborts on error
 * (a harness fault, not a finding). */
const char *fuzz_file(const void *p, size_t n);
/* Send stdout and stderr to /dev/null until fuzz_quiet_end(). */
void fuzz_quiet_begin(void);
void fuzz_quiet_end(void);

#endif
