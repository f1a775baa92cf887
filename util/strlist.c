/* strlist.c — see strlist.h */
#include "config.h"

#include "util/strlist.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void strlist_add(struct strlist *l, char *line)
{
	xgrow(&l->lines, &l->cap, l->n + 1, sizeof(*l->lines));
	l->lines[l->n++] = line;
}

void strlist_addf(struct strlist *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strlist_add(l, xvasprintf(fmt, ap));
	va_end(ap);
}

void strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->lines[i]);
	free(l->lines);
	memset(l, 0, sizeof(*l));
}
