/* jitmap.c — perf-PID.map reader (see jitmap.h). */
#include "config.h"

#include "record/jitmap.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Longest line taken: longer ones (a name of kilobytes) are cut. */
#define LINE_MAX_BYTES 4096

/* "START SIZE NAME": hex numbers with or without 0x. Returns 0 or -1. */
static int parse_line(char *line, struct md_jit_sym *s)
{
	char *p = line, *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || errno)
		return -1;
	s->start = v;
	p = end + 1;
	v = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || errno || !v)
		return -1;
	s->size = v;
	if (s->start + s->size < s->start)
		return -1;
	p = end + 1;
	if (!*p)
		return -1;
	s->name = p;
	return 0;
}

int jitmap_parse(FILE *f, struct jitmap *jm, uint64_t *consumed)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int added = 0;

	*consumed = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		struct md_jit_sym s;

		if (line[len - 1] != '\n')
			break; /* still being written: next time */
		*consumed += (uint64_t)len;
		line[len - 1] = 0;
		if (len > LINE_MAX_BYTES)
			line[LINE_MAX_BYTES] = 0;
		if (parse_line(line, &s) < 0) {
			jm->bad++;
			continue;
		}
		s.name = xstrdup(s.name);
		xgrow(&jm->syms, &jm->cap, jm->n + 1, sizeof(*jm->syms));
		jm->syms[jm->n++] = s;
		added++;
	}
	free(line);
	return ferror(f) ? -EIO : added;
}

int jitmap_read_pid(int pid, uint64_t *off, struct jitmap *jm)
{
	char path[96];
	uint64_t used = 0;
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", pid,
		 pid);
	f = fopen(path, "re");
	if (!f) {
		/* the process is gone: its /tmp was most likely ours */
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
		f = fopen(path, "re");
	}
	if (!f)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	if (fseeko(f, (off_t)*off, SEEK_SET) < 0) {
		ret = -errno;
		fclose(f);
		return ret;
	}
	ret = jitmap_parse(f, jm, &used);
	*off += used;
	fclose(f);
	return ret;
}

void jitmap_clear(struct jitmap *jm)
{
	for (size_t i = 0; i < jm->n; i++)
		free((char *)jm->syms[i].name);
	jm->n = 0;
}

void jitmap_free(struct jitmap *jm)
{
	jitmap_clear(jm);
	free(jm->syms);
	jm->syms = NULL;
	jm->cap = 0;
}
