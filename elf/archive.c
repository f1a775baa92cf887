// SPDX-License-Identifier: GPL-2.0-or-later
/* archive.c — see archive.h */
#include "config.h"

#include "elf/archive.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elfimg.h"
#include "util/util.h"

/* A member header: fixed-width ASCII fields, numbers in decimal padded
 * with spaces, ending in "`\n". */
struct ar_hdr {
	char name[16];
	char date[12];
	char uid[6], gid[6];
	char mode[8];
	char size[10];
	char fmag[2];
};

bool ar_is_archive(const void *buf, size_t len, bool *thin)
{
	bool t = len >= AR_MAGIC_LEN && !memcmp(buf, AR_THIN_MAGIC, 8);

	if (thin)
		*thin = t;
	return t || (len >= AR_MAGIC_LEN && !memcmp(buf, AR_MAGIC, 8));
}

/* The decimal number in the n bytes at p: digits, then only spaces (at
 * least one digit). Returns 0 or -MEMSZ_EBADAR. n <= 16: no overflow. */
static int ar_number(const char *p, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	while (i < n && p[i] >= '0' && p[i] <= '9')
		v = v * 10 + (uint64_t)(p[i++] - '0');
	if (!i)
		return -MEMSZ_EBADAR;
	for (; i < n; i++)
		if (p[i] != ' ')
			return -MEMSZ_EBADAR;
	*out = v;
	return 0;
}

/* A member's name is a file's name, or at most its path (ar -P): a longer
 * one (a hostile long-name table of gigabytes, copied into every note and
 * label that names the member) is a corrupt header. */
#define AR_NAME_MAX PATH_MAX

/* The name of a member whose header names it "/OFFSET": the entry of the
 * long-name table lt (ltlen bytes) at that offset, up to its "/\n" (or
 * "\n"), at most AR_NAME_MAX bytes. Returns 0 and a malloc'd *name, or
 * -MEMSZ_EBADAR. */
static int ar_long_name(const char *field, const unsigned char *lt,
			size_t ltlen, char **name)
{
	uint64_t off;
	const unsigned char *nl;
	size_t len;

	if (!lt || ar_number(field + 1, 15, &off) || off >= ltlen)
		return -MEMSZ_EBADAR;
	nl = memchr(lt + off, '\n', ltlen - off);
	if (!nl)
		return -MEMSZ_EBADAR;
	len = (size_t)(nl - (lt + off));
	if (len && lt[off + len - 1] == '/')
		len--;
	if (len > AR_NAME_MAX)
		return -MEMSZ_EBADAR;
	*name = xstrndup((const char *)lt + off, len);
	return 0;
}

/* Name m from the header field name (16 bytes): its kind, and for a
 * member file its name, from lt (the long-name table, or NULL) or, BSD,
 * from the data (m->off and m->size then skip it). Returns 0 or a
 * negative code. */
static int ar_name(struct ar_member *m, const char *name,
		   const unsigned char *buf, const unsigned char *lt,
		   size_t ltlen)
{
	size_t len = 16;
	uint64_t n;

	if (!memcmp(name, "/ ", 2) || !memcmp(name, "/SYM64/ ", 8)) {
		m->kind = AR_SYMTAB;
		return 0;
	}
	if (!memcmp(name, "// ", 3)) {
		m->kind = AR_LONGNAMES;
		return 0;
	}
	if (name[0] == '/')
		return ar_long_name(name, lt, ltlen, &m->name);
	if (!memcmp(name, "#1/", 3)) { /* BSD: the name leads the data */
		if (ar_number(name + 3, 13, &n) || n > m->size ||
		    n > AR_NAME_MAX)
			return -MEMSZ_EBADAR;
		m->name = xstrndup((const char *)buf + m->off, (size_t)n);
		m->off += n, m->size -= n, m->hdr_len += n;
	} else {
		const char *slash = memchr(name, '/', 16);

		if (slash)
			len = (size_t)(slash - name);
		while (!slash && len && name[len - 1] == ' ')
			len--; /* BSD short name: space-padded */
		m->name = xstrndup(name, len);
	}
	if (!strncmp(m->name, "__.SYMDEF", 9)) { /* BSD symbol index */
		free(m->name);
		m->name = NULL;
		m->kind = AR_SYMTAB;
	}
	return 0;
}

/* Read the member whose header is at pos into m. Returns 0 or a
 * negative code. */
static int ar_member_at(const unsigned char *buf, size_t len, size_t pos,
			const unsigned char *lt, size_t ltlen,
			struct ar_member *m)
{
	const struct ar_hdr *h = (const struct ar_hdr *)(buf + pos);
	uint64_t size;

	if (len - pos < AR_HDR_LEN)
		return -MEMSZ_ETRUNC;
	if (memcmp(h->fmag, "`\n", 2) || ar_number(h->size, 10, &size))
		return -MEMSZ_EBADAR;
	memset(m, 0, sizeof(*m));
	m->hdr_off = pos;
	m->hdr_len = AR_HDR_LEN;
	m->off = pos + AR_HDR_LEN;
	if (size > len - m->off)
		return -MEMSZ_ETRUNC;
	m->size = size;
	/* the last member's pad may be missing: nothing follows it */
	m->pad = (size & 1) && m->off + size < len;
	return ar_name(m, h->name, buf, lt, ltlen);
}

int ar_members_read(const unsigned char *buf, size_t len,
		    struct ar_member **out, size_t *n)
{
	struct ar_member *list = NULL;
	size_t count = 0, cap = 0, pos = AR_MAGIC_LEN;
	const unsigned char *lt = NULL;
	size_t ltlen = 0;
	bool thin;
	int ret = 0;

	if (!ar_is_archive(buf, len, &thin))
		return -MEMSZ_ENOTELF;
	if (thin)
		return -MEMSZ_ETHINAR;
	while (pos < len) {
		struct ar_member m;

		ret = ar_member_at(buf, len, pos, lt, ltlen, &m);
		if (ret < 0)
			break;
		if (m.kind == AR_LONGNAMES)
			lt = buf + m.off, ltlen = m.size;
		xgrow(&list, &cap, count + 1, sizeof(*list));
		list[count++] = m;
		pos = m.off + m.size + m.pad;
	}
	if (ret < 0) {
		ar_members_free(list, count);
		return ret;
	}
	*out = list;
	*n = count;
	return 0;
}

void ar_members_free(struct ar_member *m, size_t n)
{
	for (size_t i = 0; m && i < n; i++)
		free(m[i].name);
	free(m);
}

int ar_file_read(const char *path, unsigned char **buf, size_t *len)
{
	struct stat st, now;
	unsigned char *b = NULL;
	size_t got = 0;
	int fd, ret = 0;

	/* a FIFO or device node named here is never opened */
	fd = elf_file_open(path, &st);
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > SIZE_MAX - 1)
		ret = -EFBIG;
	if (ret < 0)
		goto out;
	b = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		ssize_t r =
		    pread(fd, b + got, (size_t)st.st_size - got, (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			free(b);
			goto out;
		}
		if (!r)
			break; /* truncated meanwhile: what is there */
		got += (size_t)r;
	}
	*buf = b;
	*len = got;
	/* one copy, read while the file may change (ar rewriting it in
	 * place): said, as an image's change is (elfimg_changed()) */
	if (got != (size_t)st.st_size || fstat(fd, &now) < 0 ||
	    now.st_size != st.st_size ||
	    now.st_mtim.tv_sec != st.st_mtim.tv_sec ||
	    now.st_mtim.tv_nsec != st.st_mtim.tv_nsec)
		ret = 1;
out:
	close(fd);
	return ret;
}

int ar_member_memfd(const unsigned char *buf, const struct ar_member *m)
{
	size_t done = 0;
	int fd = memfd_create("memsz-armember", MFD_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (done < m->size) {
		ssize_t w = write(fd, buf + m->off + done, m->size - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int err = w < 0 ? -errno : -EIO;

			close(fd);
			return err;
		}
		done += (size_t)w;
	}
	return fd;
}
