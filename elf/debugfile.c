// SPDX-License-Identifier: GPL-2.0-or-later
/* debugfile.c — find the separate debug file of an image (by build-id,
 * then by .gnu_debuglink) and check that it belongs to the image. */
#include "config.h"

#include "elf/elfpriv.h"
#include "util/dynlib.h"
#include "util/util.h"

#include <elfutils/debuginfod.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* elf_file_crc32() reads the file in chunks of this size. */
#define CRC_CHUNK (64u << 10)
/* A debuglink candidate is read whole for its CRC, and whoever owns the
 * image may have put it there: one larger than CRC_MAX_BYTES, or past
 * CRC_SPARSE_MIN bytes with less than one byte in CRC_SPARSE_RATIO on
 * disk (a sparse file of 16 TiB reads as zeros for hours), is refused
 * unread. The largest debug files known are a few GiB; one on a
 * compressing file system keeps more than a sixteenth of its size on
 * disk; and below CRC_SPARSE_MIN a file system that counts no blocks
 * (some FUSE ones) costs a second at most. */
#define CRC_MAX_BYTES (64ull << 30)
#define CRC_SPARSE_MIN (1ull << 30)
#define CRC_SPARSE_RATIO 16

int elf_file_crc32(int fd, uint64_t max, uint32_t *out)
{
	unsigned char *buf = xmalloc(CRC_CHUNK);
	uint32_t crc = 0;
	uint64_t off = 0;
	ssize_t n = 0;

	while (off < max &&
	       (n = pread(fd, buf, (size_t)MIN((uint64_t)CRC_CHUNK, max - off),
			  (off_t)off)) > 0) {
		crc = crc32_z(crc, buf, (size_t)n);
		off += (uint64_t)n;
	}
	free(buf);
	if (n < 0)
		return -errno;
	*out = crc;
	return 0;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

static void reject(struct elfimg *img, const char *path, int err)
{
	if (img->debug_rejected)
		return;
	img->debug_rejected = xstrdup(path);
	img->debug_rejected_err = err;
}

/* Why the debuglink CRC of candidate dbg is not to be read, or NULL (see
 * CRC_MAX_BYTES). Its size is the one it had when opened (file_size): the
 * CRC is of those bytes alone, as its owner may grow it while it is read
 * (a file that grew is not the one the debuglink names anyway). */
static const char *crc_refused(const struct elfimg *dbg)
{
	int fd = ((const struct elfimg_priv *)dbg->priv)->fd;
	struct stat st;

	if (dbg->file_size > CRC_MAX_BYTES)
		return "larger than 64 GiB: its CRC was not read";
	if (dbg->file_size > CRC_SPARSE_MIN && fstat(fd, &st) == 0 &&
	    (uint64_t)st.st_blocks * 512 < dbg->file_size / CRC_SPARSE_RATIO)
		return "mostly holes (a sparse file): its CRC was not read";
	return NULL;
}

/* Open candidate path and keep it as img->debug if it matches. */
static int try_candidate(struct elfimg *img, const char *path)
{
	struct elfimg *dbg;
	bool ok;
	int ret;

	if (same_file(path, img->path))
		return 0;
	ret = elfimg_open_mode(path, true, &dbg);
	if (ret) {
		/* missing: not this one; there but unusable: say so */
		if (ret != -ENOENT && ret != -ENOTDIR)
			reject(img, path, ret);
		return 0;
	}
	if (img->build_id_len) {
		ok = dbg->build_id_len == img->build_id_len &&
		     !memcmp(dbg->build_id, img->build_id, img->build_id_len);
	} else {
		int fd = ((struct elfimg_priv *)dbg->priv)->fd;
		const char *why = img->debuglink ? crc_refused(dbg) : NULL;
		uint32_t crc;

		if (why) {
			reject(img, path, 0);
			if (!strcmp(img->debug_rejected, path))
				img->debug_rejected_why = why;
			elfimg_close(dbg);
			return 0;
		}
		ok = img->debuglink &&
		     !elf_file_crc32(fd, dbg->file_size, &crc) &&
		     crc == img->debuglink_crc;
	}
	if (!ok) {
		reject(img, path, 0);
		elfimg_close(dbg);
		return 0;
	}
	img->debug = dbg;
	return 1;
}

/* libdebuginfod is opened on first use, as libdw does: it pulls in
 * libcurl and its TLS, Kerberos and LDAP libraries, which every other
 * command would load for nothing. The header still gives the types. */
static __typeof__(&debuginfod_begin) dif_begin;
static __typeof__(&debuginfod_find_debuginfo) dif_find_debuginfo;
static __typeof__(&debuginfod_end) dif_end;
static __typeof__(&debuginfod_set_progressfn) dif_set_progressfn;
static __typeof__(&debuginfod_get_url) dif_get_url;

static const struct dynlib_sym dif_syms[] = {
    {"debuginfod_begin", (void **)&dif_begin},
    {"debuginfod_find_debuginfo", (void **)&dif_find_debuginfo},
    {"debuginfod_end", (void **)&dif_end},
    {"debuginfod_set_progressfn", (void **)&dif_set_progressfn},
    {"debuginfod_get_url", (void **)&dif_get_url},
};

static struct dynlib dif_lib = {
    .soname = DEBUGINFOD_SONAME,
    .syms = dif_syms,
    .nsyms = ARRAY_SIZE(dif_syms),
};

/* How the only server of $DEBUGINFOD_URLS failed, once it failed in a way
 * no other build-id can fare better (dif_down): it is not asked again in
 * this process. A server that accepts the connection and never answers
 * costs $DEBUGINFOD_TIMEOUT (90 s) per try and retry, for every image a
 * report opens. Per-file errors (too big, not found, a write to the
 * cache failed) and errors of one server among several never latch: the
 * next image may be on another server, or small enough. */
static int dif_error;

/* What libdebuginfod returns when the server cannot answer at all
 * (debuginfod_find_debuginfo(3), ERRORS; its client maps curl's
 * couldn't connect / resolve, send / receive errors and timeouts to
 * these, and a failed curl handle to -ENETUNREACH). */
static const int dif_down[] = {
    ETIME, ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ECONNRESET,
};

/* Whether a server began to send the file during the current look-up:
 * libdebuginfod names the URL it downloads from once one answers (the
 * progress callback's count is of polls until then). */
static bool dif_got_bytes;

static int dif_progress(debuginfod_client *c, long got, long total)
{
	(void)got;
	(void)total;
	if (dif_get_url(c))
		dif_got_bytes = true;
	return 0; /* go on */
}

/* -ETIME is also a file too slow for $DEBUGINFOD_TIMEOUT (curl's low
 * speed limit) or over $DEBUGINFOD_MAXTIME: a server that sent bytes, or
 * a time limit per file, says nothing of the next file. */
static bool dif_latches(int err)
{
	const char *maxtime = getenv("DEBUGINFOD_MAXTIME");

	if (err == -ETIME &&
	    (dif_got_bytes || (maxtime && strtol(maxtime, NULL, 10) > 0)))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(dif_down); i++)
		if (-err == dif_down[i])
			return true;
	return false;
}

/* True if urls (libdebuginfod splits $DEBUGINFOD_URLS on spaces) names
 * one server: every URL the first, up to a trailing '/' (libdebuginfod
 * asks a URL listed twice once). */
static bool one_server(const char *urls)
{
	const char *first = NULL, *p = urls;
	size_t flen = 0;

	while (*p) {
		size_t len;

		p += strspn(p, " ");
		len = strcspn(p, " ");
		while (len > 1 && p[len - 1] == '/')
			len--;
		if (len && !first) {
			first = p;
			flen = len;
		} else if (len && (len != flen || memcmp(p, first, len)))
			return false;
		p += strcspn(p, " ");
	}
	return first != NULL;
}

/* libdebuginfod's cache directory, chosen as its client does
 * (debuginfod_find_debuginfo(3), CACHE): $DEBUGINFOD_CACHE_PATH, else the
 * deprecated $HOME/.debuginfod_client_cache if it exists, else
 * $XDG_CACHE_HOME/debuginfod_client, else
 * $HOME/.cache/debuginfod_client. Freed by the caller. */
static char *dif_cache_dir(void)
{
	const char *env = getenv("DEBUGINFOD_CACHE_PATH");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	struct stat st;
	char *old;

	if (env && env[0])
		return xstrdup(env);
	if (!home)
		home = "/";
	old = xasprintf("%s/.debuginfod_client_cache", home);
	if (!stat(old, &st))
		return old;
	free(old);
	if (xdg && xdg[0])
		return xasprintf("%s/debuginfod_client", xdg);
	return xasprintf("%s/.cache/debuginfod_client", home);
}

/* With the servers switched off: the debug file libdebuginfod fetched
 * into its cache earlier (<cache>/<build-id>/debuginfo; an empty file
 * there is its record of a miss), checked as any candidate. 1 if found. */
static int try_dif_cache(struct elfimg *img)
{
	char hex[2 * sizeof(img->build_id) + 1];
	char *dir = dif_cache_dir(), *path;
	struct stat st;
	int ret = 0;

	elfimg_build_id_hex(img, hex, sizeof(hex));
	path = xasprintf("%s/%s/debuginfo", dir, hex);
	if (!stat(path, &st) && S_ISREG(st.st_mode) && st.st_size > 0)
		ret = try_candidate(img, path);
	free(path);
	free(dir);
	return ret;
}

int elfimg_debuginfod_error(void)
{
	return dif_error;
}

/* Ask the debuginfod servers of $DEBUGINFOD_URLS for the debug file of
 * img's build-id (libdebuginfod downloads it into its cache and answers
 * from there next time). Returns 1 if it was found and matches, 0 if not,
 * -MEMSZ_ENOLIB if libdebuginfod cannot be loaded, how the servers failed
 * (-ETIME: no answer in time; -EFBIG: over $DEBUGINFOD_MAXSIZE), or, once
 * the only server could not answer, -MEMSZ_EDIFDOWN without asking (its
 * cache is still looked in). */
static int try_debuginfod(struct elfimg *img)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	debuginfod_client *c;
	char *path = NULL;
	int fd, ret = 0;

	if (!urls || !urls[0] || !img->build_id_len)
		return 0;
	if (dif_error)
		return try_dif_cache(img) ? 1 : -MEMSZ_EDIFDOWN;
	ret = dynlib_load(&dif_lib);
	if (ret < 0)
		return ret;
	c = dif_begin();
	if (!c)
		return 0;
	dif_got_bytes = false;
	dif_set_progressfn(c, dif_progress);
	fd = dif_find_debuginfo(c, img->build_id, img->build_id_len, &path);
	if (fd >= 0) {
		close(fd);
		ret = try_candidate(img, path);
	} else if (fd != -ENOENT) {
		ret = fd;
		if (dif_latches(fd) && one_server(urls))
			dif_error = fd;
	}
	free(path);
	dif_end(c);
	return ret;
}

/* Two debug_root arguments, NULL (the default) included, are the same. */
int elfimg_use_debug_files(struct elfimg *img, const char *const *paths,
			   size_t n)
{
	bool noted = img->debug_rejected != NULL;
	int ret = 0;

	if (img->debug)
		return 0;
	for (size_t i = 0; !ret && i < n; i++)
		if (try_candidate(img, paths[i]))
			ret = (int)i + 1;
	/* one refused here may be another input's: not this image's note */
	if (!noted && img->debug_rejected) {
		free(img->debug_rejected);
		img->debug_rejected = NULL;
		img->debug_rejected_err = 0;
		img->debug_rejected_why = NULL;
	}
	return ret;
}

static bool same_root(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

int elfimg_find_debug(struct elfimg *img, const char *debug_root)
{
	struct elfimg_priv *priv = img->priv;
	char *path, *dir = NULL, *real = NULL, *slash;
	int ret = 0;

	/* try_candidate() never fails: the first answer is 1 or 0, or
	 * what try_debuginfod() said (libdebuginfod missing, how the
	 * servers failed, or that they were not asked), then 0. */
	if (img->debug_searched && same_root(priv->debug_root, debug_root))
		return img->debug ? 1 : 0;
	if (img->debug)
		return 1;
	img->debug_searched = true;
	free(priv->debug_root);
	priv->debug_root = debug_root ? xstrdup(debug_root) : NULL;
	if (!debug_root)
		debug_root = "/usr/lib/debug";

	if (img->build_id_len >= 2) {
		char hex[2 * sizeof(img->build_id) + 1];

		elfimg_build_id_hex(img, hex, sizeof(hex));
		path = xasprintf("%s/.build-id/%.2s/%s.debug", debug_root, hex,
				 hex + 2);
		ret = try_candidate(img, path);
		free(path);
		if (ret)
			return ret;
	}
	if (!img->debuglink || strchr(img->debuglink, '/'))
		return try_debuginfod(img);

	real = realpath(img->path, NULL);
	dir = xstrdup(real ? real : img->path);
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = 0;
	else
		strcpy(dir, ".");

	const char *const fmts[] = {"%s/%s", "%s/.debug/%s"};
	for (size_t i = 0; i < ARRAY_SIZE(fmts) && !ret; i++) {
		path = xasprintf(fmts[i], dir, img->debuglink);
		ret = try_candidate(img, path);
		free(path);
	}
	if (!ret && dir[0] == '/') {
		path = xasprintf("%s%s/%s", debug_root,
				 strcmp(dir, "/") ? dir : "", img->debuglink);
		ret = try_candidate(img, path);
		free(path);
	}
	free(dir);
	free(real);
	if (!ret)
		ret = try_debuginfod(img);
	if (ret > 0) {
		free(img->debug_rejected);
		img->debug_rejected = NULL;
		img->debug_rejected_why = NULL;
	}
	return ret;
}
