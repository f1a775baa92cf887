/* strlist.h — a growable list of owned strings (the footer's notes).
 *
 * A zeroed struct strlist is an empty list. The list owns every line added
 * to it; strlist_free() frees them all.
 */
#ifndef MEMSZ_UTIL_STRLIST_H
#define MEMSZ_UTIL_STRLIST_H

#include <stddef.h>

struct strlist {
	char **lines;
	size_t n, cap;
};

/* Append line (malloc'd; the list takes it). */
void strlist_add(struct strlist *l, char *line);
/* Append the line printf would print for fmt and its arguments. */
void strlist_addf(struct strlist *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Free every line and the array; l is empty afterwards. l may be empty. */
void strlist_free(struct strlist *l);

#endif
