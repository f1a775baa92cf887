/* demangle.c — C++ names through the C++ runtime's own demangler, with a
 * bound on what a hostile name can cost.
 *
 * __cxa_demangle's output is unbounded: every back-reference (S_, S<n>_,
 * T_, T<n>_) and pack expansion (Dp) prints a component that appeared
 * before, and nesting them doubles the output each time, so a 400-byte
 * name can expand to hundreds of megabytes (time and memory). Before
 * demangling we over-estimate the output from the mangled text alone: each
 * plain character prints at most DM_CHAR_COST characters ("TS" prints
 * "typeinfo name for ", "Sa" "std::allocator") and each back-reference or
 * Dp at most everything printed before it, so
 *     E = 0; plain char: E += DM_CHAR_COST; reference: E = 2E + DM_CHAR_COST.
 * Names are left mangled when they are longer than DM_MAX_IN, when E
 * exceeds DM_MAX_EST, or when the names with E > DM_CHEAP already
 * demangled by this process add up past DM_BUDGET (so a file of many
 * near-limit names stays bounded too). A demangled name longer than
 * DM_MAX_OUT is dropped for the mangled one as well.
 */
#include "config.h"

#include "elf/elfimg.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* From the Itanium C++ ABI (libstdc++, linked as $(DEMANGLE_LIBS)). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define DM_MAX_IN 1024
#define DM_MAX_OUT 8192
#define DM_CHAR_COST 40
#define DM_CHEAP (64 * 1024)
#define DM_MAX_EST (16 * 1024 * 1024)
#define DM_BUDGET (256ULL * 1024 * 1024)

static uint64_t dm_spent; /* estimates of the expensive names demangled */

/* Upper bound of the demangled length of name (see above); stops counting
 * once past DM_MAX_EST. */
static uint64_t demangle_estimate(const char *name)
{
	uint64_t e = 0;

	for (const char *p = name; *p && e <= DM_MAX_EST;) {
		bool ref = false;

		if (*p == 'S' || *p == 'T') {
			const char *q = p + 1;

			while (isdigit((unsigned char)*q) ||
			       isupper((unsigned char)*q))
				q++;
			if (*q == '_') {
				ref = true;
				p = q + 1;
			}
		} else if (p[0] == 'D' && p[1] == 'p') {
			ref = true;
			p += 2;
		}
		if (ref) {
			e = 2 * e + DM_CHAR_COST;
		} else {
			e += DM_CHAR_COST;
			p++;
		}
	}
	return e;
}

char *elf_demangle(const char *name)
{
	int status = 0;
	uint64_t est;
	char *out;

	if (!name || strncmp(name, "_Z", 2))
		return NULL;
	if (strnlen(name, DM_MAX_IN + 1) > DM_MAX_IN)
		return NULL;
	est = demangle_estimate(name);
	if (est > DM_MAX_EST)
		return NULL;
	if (est > DM_CHEAP) {
		if (dm_spent + est > DM_BUDGET)
			return NULL;
		dm_spent += est;
	}
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0 || !out || strlen(out) > DM_MAX_OUT) {
		free(out);
		return NULL;
	}
	return out;
}
