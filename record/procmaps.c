// SPDX-License-Identifier: GPL-2.0-or-later
/* procmaps.c — parse /proc/PID/maps exactly as the kernel prints it
 * (fs/proc/task_mmu.c show_map_vma): "START-END PERM OFFSET MAJ:MIN INODE",
 * a space, padding to column 72, one more space, then the name. */
#include "config.h"

#include "record/procmaps.h"
#include "util/util.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

/* The kernel pads the fixed part to 25 + 6 * sizeof(void *) - 1 columns
 * (64-bit kernel) before the space that precedes the name. */
#define MAPS_NAME_COLUMN 72

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse a non-empty hex number at *p; advance *p. Returns 0 or -1. */
static int parse_hex(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d;

	if (hexval(*s) < 0)
		return -1;
	while ((d = hexval(*s)) >= 0) {
		if (v >> 60) /* a 17th significant digit: past 64 bits */
			return -1;
		v = v << 4 | (uint64_t)d;
		s++;
	}
	*p = s;
	*out = v;
	return 0;
}

static int parse_dec(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		s++;
	}
	*p = s;
	*out = v;
	return 0;
}

static int expect(const char **p, char c)
{
	if (**p != c)
		return -1;
	(*p)++;
	return 0;
}

/* Parse one line (without its newline) into m; name is allocated. */
static int parse_line(const char *line, struct procmap *m)
{
	const char *p = line, *name;
	uint64_t maj, min;
	size_t col;

	memset(m, 0, sizeof(*m));
	if (parse_hex(&p, &m->start) || expect(&p, '-') ||
	    parse_hex(&p, &m->end) || expect(&p, ' ') || m->end < m->start)
		return -1;
	if ((p[0] != 'r' && p[0] != '-') || (p[1] != 'w' && p[1] != '-') ||
	    (p[2] != 'x' && p[2] != '-') || (p[3] != 'p' && p[3] != 's'))
		return -1;
	m->prot = (p[0] == 'r' ? PROT_READ : 0) |
		  (p[1] == 'w' ? PROT_WRITE : 0) |
		  (p[2] == 'x' ? PROT_EXEC : 0);
	m->flags = p[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	p += 4;
	if (expect(&p, ' ') || parse_hex(&p, &m->pgoff) || expect(&p, ' ') ||
	    parse_hex(&p, &maj) || expect(&p, ':') || parse_hex(&p, &min) ||
	    expect(&p, ' ') || parse_dec(&p, &m->ino))
		return -1;
	if (maj > UINT32_MAX || min > UINT32_MAX)
		return -1;
	m->dev_major = (uint32_t)maj;
	m->dev_minor = (uint32_t)min;
	/* the fixed part ends with one space (the kernel always prints it;
	 * tolerate its absence at the end of a hand-written line) */
	if (*p == 0) {
		name = p;
	} else {
		if (expect(&p, ' '))
			return -1;
		col = (size_t)(p - line);
		name = p;
		if (*name) {
			/* padding up to the column, then one space */
			while (col < MAPS_NAME_COLUMN && *name == ' ') {
				name++;
				col++;
			}
			/* the space after the padding; a hand-written line
			 * with a shorter padding keeps the name as it is */
			if (*name == ' ')
				name++;
		}
	}
	m->name = xstrdup(name);
	return 0;
}

int procmaps_parse(FILE *f, struct procmaps *out)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int n = 0, ret = 0;
	struct procmap m;

	errno = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = 0;
		if (len == 0)
			continue;
		if (parse_line(line, &m) < 0) {
			ret = -MEMSZ_EBADDATA;
			break;
		}
		xgrow(&out->maps, &out->cap, out->n + 1, sizeof(*out->maps));
		out->maps[out->n++] = m;
		n++;
	}
	/* the read's own error: -ESRCH from a process that exited while
	 * its maps were read is that, not an I/O error */
	if (!ret && ferror(f))
		ret = errno ? -errno : -EIO;
	free(line);
	return ret < 0 ? ret : n;
}

/* The PROCMAP_VM_* bits of a VmFlags value: two-letter words. */
static uint32_t vmflags_of(const char *p)
{
	uint32_t fl = 0;

	for (;;) {
		while (*p == ' ')
			p++;
		if (!p[0] || !p[1])
			break;
		if (p[2] == ' ' || !p[2]) {
			if (p[0] == 'l' && p[1] == 'o')
				fl |= PROCMAP_VM_LOCKED;
			else if (p[0] == 'h' && p[1] == 't')
				fl |= PROCMAP_VM_HUGETLB;
		}
		while (*p && *p != ' ')
			p++;
	}
	return fl;
}

/* The index of the mapping of m (ordered) that starts at start, or
 * m->n. */
static size_t find_start_idx(const struct procmaps *m, uint64_t start)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->maps[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->maps[lo].start == start ? lo : m->n;
}

/* Whether line of /proc/PID/smaps is a mapping's header (field lines
 * start with a capital, "Rss:", "VmFlags:", mapping lines with a hex
 * digit): 1, and *cur the index of the mapping of m (ordered) with its
 * start and end, else m->n; 0 for a field line; -MEMSZ_EBADDATA for a
 * malformed header. */
static int smaps_header(const struct procmaps *m, const char *line, size_t *cur)
{
	struct procmap hdr;

	if (hexval(line[0]) < 0 || (line[0] >= 'A' && line[0] <= 'F'))
		return 0;
	if (parse_line(line, &hdr) < 0)
		return -MEMSZ_EBADDATA;
	free(hdr.name);
	*cur = find_start_idx(m, hdr.start);
	if (*cur < m->n && m->maps[*cur].end != hdr.end)
		*cur = m->n;
	return 1;
}

/* The next line of /proc/PID/smaps text f into *line (of *cap bytes,
 * getline's; its '\n' cut): SMAPS_FIELD or SMAPS_HEADER (smaps_header:
 * *cur its mapping's index), SMAPS_END at the end of f or on a read
 * error (smaps_done tells), or -MEMSZ_EBADDATA. */
enum { SMAPS_FIELD, SMAPS_HEADER, SMAPS_END };

static int smaps_next(FILE *f, const struct procmaps *m, char **line,
		      size_t *cap, size_t *cur)
{
	ssize_t len = getline(line, cap, f);

	if (len < 0)
		return SMAPS_END;
	if (len > 0 && (*line)[len - 1] == '\n')
		(*line)[--len] = 0;
	return smaps_header(m, *line, cur);
}

/* The end of a parse of smaps text f that stopped at h (smaps_next's)
 * having set n mappings: n, or the error; frees line. */
static int smaps_done(FILE *f, char *line, int h, int n)
{
	int ret = h < 0 ? h : 0;

	/* the read's own error: -ESRCH from a process that exited while
	 * its maps were read is that, not an I/O error */
	if (!ret && ferror(f))
		ret = errno ? -errno : -EIO;
	free(line);
	return ret < 0 ? ret : n;
}

int procmaps_parse_vmflags(FILE *f, struct procmaps *m)
{
	char *line = NULL;
	size_t cap = 0, cur = m->n;
	int n = 0, h;

	errno = 0;
	while ((h = smaps_next(f, m, &line, &cap, &cur)) == SMAPS_FIELD ||
	       h == SMAPS_HEADER) {
		if (h == SMAPS_FIELD && cur < m->n &&
		    !strncmp(line, "VmFlags:", 8)) {
			m->maps[cur].vmflags = vmflags_of(line + 8);
			cur = m->n;
			n++;
		}
	}
	return smaps_done(f, line, h, n);
}

/* The kB of a smaps field line ("Shared_Clean:    4 kB") past its name
 * (len characters), or -1 if it has no number. */
static int64_t smaps_kb(const char *line, size_t len)
{
	const char *p = line + len;
	char *end;
	unsigned long long v;

	while (*p == ' ')
		p++;
	errno = 0;
	v = strtoull(p, &end, 10);
	return end == p || errno || v > INT64_MAX ? -1 : (int64_t)v;
}

int procmaps_parse_unshared(FILE *f, const struct procmaps *m,
			    uint8_t *unshared, uint64_t *anon_huge_kb)
{
	char *line = NULL;
	size_t cap = 0, cur = m->n;
	int64_t clean = -1, dirty = -1, thp = -1;
	int n = 0, h;

	errno = 0;
	while ((h = smaps_next(f, m, &line, &cap, &cur)) == SMAPS_FIELD ||
	       h == SMAPS_HEADER) {
		if (h == SMAPS_HEADER || cur >= m->n) {
			clean = dirty = thp = -1;
		} else if (!strncmp(line, "Shared_Clean:", 13)) {
			clean = smaps_kb(line, 13);
		} else if (!strncmp(line, "Shared_Dirty:", 13)) {
			dirty = smaps_kb(line, 13);
		} else if (!strncmp(line, "AnonHugePages:", 14)) {
			thp = smaps_kb(line, 14);
		} else if (!strncmp(line, "VmFlags:", 8)) {
			/* the entry's last line */
			unshared[cur] = (clean == 0 && dirty == 0) |
					(strstr(line + 8, " sd") ? 2 : 0);
			if (anon_huge_kb)
				anon_huge_kb[cur] =
				    thp < 0 ? UINT64_MAX : (uint64_t)thp;
			n += clean == 0 && dirty == 0;
			cur = m->n;
		}
	}
	return smaps_done(f, line, h, n);
}

/* The smaps fields procmaps_parse_kb reads, by enum smaps_field. */
static const struct {
	const char *name; /* with its ':' */
	size_t len;
} smaps_fields[SMAPS_F__COUNT] = {
    [SMAPS_F_RSS] = {"Rss:", 4},
    [SMAPS_F_SHARED_CLEAN] = {"Shared_Clean:", 13},
    [SMAPS_F_SHARED_DIRTY] = {"Shared_Dirty:", 13},
    [SMAPS_F_PRIVATE_CLEAN] = {"Private_Clean:", 14},
    [SMAPS_F_PRIVATE_DIRTY] = {"Private_Dirty:", 14},
    [SMAPS_F_ANONYMOUS] = {"Anonymous:", 10},
};

int procmaps_parse_kb(FILE *f, const struct procmaps *m, struct smaps_kb *out)
{
	struct smaps_kb got;
	char *line = NULL;
	size_t cap = 0, cur = m->n;
	unsigned seen = 0;
	int n = 0, h;

	errno = 0;
	while ((h = smaps_next(f, m, &line, &cap, &cur)) == SMAPS_FIELD ||
	       h == SMAPS_HEADER) {
		if (h == SMAPS_HEADER || cur >= m->n) {
			seen = 0;
			continue;
		}
		if (!strncmp(line, "VmFlags:", 8)) {
			/* the entry's last line: kept with every field */
			if (seen == (1u << SMAPS_F__COUNT) - 1) {
				out[cur] = got;
				n++;
			}
			cur = m->n;
			continue;
		}
		for (unsigned k = 0; k < SMAPS_F__COUNT; k++) {
			int64_t kb;

			if (strncmp(line, smaps_fields[k].name,
				    smaps_fields[k].len))
				continue;
			kb = smaps_kb(line, smaps_fields[k].len);
			if (kb >= 0) {
				got.kb[k] = (uint64_t)kb;
				seen |= 1u << k;
			}
			break;
		}
	}
	return smaps_done(f, line, h, n);
}

/* /proc/PID/maps prints a '\n' of a file's name as the four characters
 * "\012" (seq_file_path(m, file, "\n") escapes only '\n'; a backslash is
 * printed as it is), so a name holding the text "\012" prints the same.
 * These find the name itself. */
#define NL_ESC "\\012"
#define NL_ESC_LEN 4

/* The text maps prints for name: each '\n' as "\012"; caller frees. */
static char *maps_escape(const char *name)
{
	size_t n = 0, len = strlen(name);
	char *out, *o;

	for (const char *c = name; *c; c++)
		n += *c == '\n';
	o = out = xmalloc(len + n * (NL_ESC_LEN - 1) + 1);
	for (const char *c = name; *c; c++) {
		if (*c == '\n') {
			memcpy(o, NL_ESC, NL_ESC_LEN);
			o += NL_ESC_LEN;
		} else {
			*o++ = *c;
		}
	}
	*o = 0;
	return out;
}

/* The name of the file m maps (m->name holds "\012"), or NULL where it
 * cannot be told from the text (kept as printed): the link of its
 * /proc/PID/map_files entry (d_path's text, not escaped; where memsz may
 * read it) if maps prints it as m->name. No decoding of the text is tried
 * by stat()ing candidate paths: the target controls those paths (each
 * look-up a walk it can make slow, through its symlinks); where memsz may
 * not read map_files the name stays as maps prints it. Caller frees. */
static char *maps_real_name(int pid, const struct procmap *m)
{
	char link[64], buf[PATH_MAX + 16], *name, *esc;
	ssize_t len;

	snprintf(link, sizeof(link), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 pid, m->start, m->end);
	len = readlink(link, buf, sizeof(buf) - 1);
	if (len <= 0 || (size_t)len >= sizeof(buf) - 1)
		return NULL;
	buf[len] = 0;
	esc = maps_escape(buf);
	name = strcmp(esc, m->name) ? NULL : xstrdup(buf);
	free(esc);
	return name;
}

/* Give each file mapping of out whose name holds "\012" the name of its
 * file, where it can be told (maps_real_name). */
static void maps_unescape_names(int pid, struct procmaps *out)
{
	char *name;

	for (size_t i = 0; i < out->n; i++) {
		struct procmap *m = &out->maps[i];

		if (!m->ino || !strstr(m->name, NL_ESC))
			continue;
		name = maps_real_name(pid, m);
		if (name) {
			free(m->name);
			m->name = name;
		}
	}
}

int procmaps_read(int pid, int tid, struct procmaps *out)
{
	char path[64], *buf;
	size_t before;
	FILE *f;
	int ret;

	if (tid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	/* one large buffer, so that a read(2) takes up to 64 KiB of the text
	 * (glibc ignores the size of a buffer it allocates itself and takes
	 * st_blksize, 1 KiB in /proc: a read per 10 mappings) */
	buf = xmalloc(1 << 16);
	setvbuf(f, buf, _IOFBF, 1 << 16);
	before = out->n;
	ret = procmaps_parse(f, out);
	fclose(f);
	free(buf);
	if (ret >= 0) {
		struct procmaps added = {out->maps + before, out->n - before,
					 0};

		maps_unescape_names(pid, &added);
	}
	return ret;
}

/* PROCMAP_QUERY (linux/fs.h, 6.11+), declared here for older headers. */
struct procmaps_query {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset;
	uint64_t inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};

#define PROCMAPS_QUERY _IOWR('f', 17, struct procmaps_query)
#define PROCMAPS_Q_READABLE 0x01u
#define PROCMAPS_Q_WRITABLE 0x02u
#define PROCMAPS_Q_EXECUTABLE 0x04u
#define PROCMAPS_Q_SHARED 0x08u
#define PROCMAPS_Q_COVERING_OR_NEXT 0x10u
#define PROCMAPS_Q_FILE_BACKED 0x20u

/* The file mappings of the maps file fd by PROCMAP_QUERY into out:
 * returns the count, -ENOTTY or -EINVAL where the kernel lacks the ioctl
 * (out then empty), or -errno. */
static int query_files(int fd, struct procmaps *out)
{
	uint64_t addr = 0;
	int n = 0;

	for (;;) {
		struct procmaps_query q = {
		    .size = sizeof(q),
		    .query_flags =
			PROCMAPS_Q_COVERING_OR_NEXT | PROCMAPS_Q_FILE_BACKED,
		    .query_addr = addr,
		};
		struct procmap *m;

		if (ioctl(fd, PROCMAPS_QUERY, &q) < 0)
			return errno == ENOENT ? n
					       : -errno; /* ENOENT: no more */
		if (q.vma_end <= addr)
			return -EIO;
		xgrow(&out->maps, &out->cap, out->n + 1, sizeof(*out->maps));
		m = &out->maps[out->n++];
		*m = (struct procmap){
		    .start = q.vma_start,
		    .end = q.vma_end,
		    .pgoff = q.vma_offset,
		    .dev_major = q.dev_major,
		    .dev_minor = q.dev_minor,
		    .ino = q.inode,
		    .prot =
			(q.vma_flags & PROCMAPS_Q_READABLE ? PROT_READ : 0) |
			(q.vma_flags & PROCMAPS_Q_WRITABLE ? PROT_WRITE : 0) |
			(q.vma_flags & PROCMAPS_Q_EXECUTABLE ? PROT_EXEC : 0),
		    .flags = q.vma_flags & PROCMAPS_Q_SHARED ? MAP_SHARED
							     : MAP_PRIVATE,
		};
		addr = q.vma_end;
		n++;
	}
}

int procmaps_query_open(int pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return fd;
}

int procmaps_query_page_size(int fd, uint64_t addr, uint64_t *page_size)
{
	struct procmaps_query q = {
	    .size = sizeof(q),
	    .query_addr = addr,
	};

	if (ioctl(fd, PROCMAPS_QUERY, &q) < 0)
		return errno == ESRCH ? -ESRCH : -errno;
	*page_size = q.vma_page_size;
	return 0;
}

_Static_assert(sizeof(struct procmaps_query) == 104,
	       "struct procmap_query of linux/fs.h (6.11)");

int procmaps_read_files(int pid, bool query, struct procmaps *out)
{
	size_t k, n0 = out->n;
	int fd, ret;

	if (query) {
		fd = procmaps_query_open(pid);
		if (fd < 0)
			return fd;
		ret = query_files(fd, out);
		close(fd);
		if (ret >= 0)
			return ret;
	}
	/* no PROCMAP_QUERY (ENOTTY, EINVAL before 6.11; any other error,
	 * e.g. a seccomp or LSM filter of ioctls, too): the text, its
	 * mappings without an inode left out */
	out->n = n0;
	ret = procmaps_read(pid, 0, out);
	if (ret < 0)
		return ret;
	k = n0;
	for (size_t i = n0; i < out->n; i++) {
		if (out->maps[i].ino)
			out->maps[k++] = out->maps[i];
		else
			free(out->maps[i].name);
	}
	out->n = k;
	return (int)(k - n0);
}

static int map_cmp(const void *a, const void *b)
{
	const struct procmap *p = a, *q = b;

	if (p->start != q->start)
		return p->start < q->start ? -1 : 1;
	return p->end < q->end ? -1 : p->end > q->end;
}

size_t procmaps_order(struct procmaps *m)
{
	size_t k = 0, dropped = 0;
	uint64_t end = 0;

	if (m->n)
		qsort(m->maps, m->n, sizeof(*m->maps), map_cmp);
	for (size_t i = 0; i < m->n; i++) {
		struct procmap *p = &m->maps[i];

		if (p->start >= p->end || p->start < end) {
			free(p->name);
			dropped++;
			continue;
		}
		end = p->end;
		m->maps[k++] = *p;
	}
	m->n = k;
	return dropped;
}

void procmaps_free(struct procmaps *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->maps[i].name);
	free(m->maps);
	m->maps = NULL;
	m->n = m->cap = 0;
}
