/* demangle.c — C++ names through the C++ runtime's own demangler. */
#include "config.h"

#include "elf/elfimg.h"

#include <stdlib.h>
#include <string.h>

/* From the Itanium C++ ABI (libstdc++, linked as $(DEMANGLE_LIBS)). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *elf_demangle(const char *name)
{
	int status = 0;
	char *out;

	if (!name || strncmp(name, "_Z", 2))
		return NULL;
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}
