/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dfcodec.h — inside data/: the byte layout of memsz.data and what the
 * writer (dfwriter.c, its file made by dfcreate.c), the reader (dfreader.c) and
 * the record types (dfrecords.c, dfmapping.c, dfsample.c; printing helpers in
 * dfprint.c) share. Nothing outside data/ includes it: the API is datafile.h.
 *
 * The layouts are those of man/memsz-data.5: byte offsets of each field,
 * so that the writer and the reader say the same thing by name.
 */
#ifndef MEMSZ_DATA_DFCODEC_H
#define MEMSZ_DATA_DFCODEC_H

#include "data/datafile.h"
#include "data/pgstate.h"
#include "data/stackref.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

/* The file header (struct md_file_header). */
#define MD_HEADER_SIZE 64
#define MD_MAGIC_LEN (sizeof(MD_MAGIC) - 1) /* no NUL in the file */
enum {
	HDR_MAGIC = 0,
	HDR_VERSION = 8,      /* u32 */
	HDR_HEADER_SIZE = 12, /* u32 */
	HDR_FLAGS = 16,	      /* u64 */
	HDR_REALTIME = 24,    /* u64 start_realtime_ns */
	HDR_MONO = 32,	      /* u64 start_mono_ns */
	HDR_PAGE_SIZE = 40,   /* u32 */
	HDR_CRC = 44,	      /* u32 header_crc (MD_F_CRC) */
	HDR_RESERVED = 48,    /* u64[2] */
};
/* Base page sizes a header may give: Linux uses 4 KiB to 256 KiB; every
 * page count is scaled by it, so anything outside these bounds (or not a
 * power of two) is taken as corruption. */
#define MD_PAGE_SIZE_MIN 4096u
#define MD_PAGE_SIZE_MAX (1u << 30)

/* Each record's header: u32 type, u32 crc (MD_F_CRC; else 0), u64 size. */
#define MD_REC_HDR 16
enum { REC_TYPE = 0, REC_CRC = 4, REC_SIZE = 8 };

/* A page run of a version 1 SNAP_MAPPING record (struct md_run). Version
 * 2 stores the pages in the encoding of pgstate.h instead, after the
 * name: u32 npalette, u32 crc, u64 nbytes, the palette (npalette
 * entries of PGSTATE_PAL_SIZE bytes), the block stream (nbytes), zero
 * padding to a multiple of 8. crc is the CRC-32 of nruns (8 bytes), the
 * palette and the stream: damage that would still decode is refused. */
#define MD_RUN_SIZE 24
enum {
	RUN_VADDR = 0,	   /* u64 */
	RUN_NPAGES = 8,	   /* u32 */
	RUN_FLAGS = 12,	   /* u32 */
	RUN_MAPCOUNT = 16, /* u32 */
	RUN_RESERVED = 20, /* u32 */
};

/* A build-id field: up to 20 bytes (a SHA-1), zero-padded to 24 to keep
 * what follows 8-byte aligned. */
#define MD_BUILD_ID_MAX 20
#define MD_BUILD_ID_FIELD 24
/* COMM: flags after the comm string, then the owner's user name */
#define MD_TASK_F_OWNER 1u

/* Samples are written in batches of 4 MiB: a batch is compressed as one
 * zstd frame, and the stack copies of consecutive faults repeat, so the
 * bigger the frame the better it packs (4 MiB: about 1/40 on node). */
#define MD_SAMPLE_BATCH (4u << 20)
/* A PACKED record: u32 codec, u32 nrecords, u64 raw_size, u64 zsize, then
 * zsize bytes of one zstd frame holding raw_size bytes of records (codec
 * zstd), or the raw_size bytes themselves (codec none: zstd did not make
 * the batch smaller; it is packed still, as its samples may leave out
 * stack bytes of the samples before them). */
#define MD_PACKED_HDR 24
enum {
	PK_CODEC = 0,	 /* u32: MD_CODEC_ZSTD */
	PK_NRECS = 4,	 /* u32 */
	PK_RAW_SIZE = 8, /* u64 */
	PK_ZSIZE = 16,	 /* u64 */
};
#define MD_CODEC_NONE 0
#define MD_CODEC_ZSTD 1
/* Level 1: compresses at ~500 MB/s, nearly as small as level 3 here. */
#define MD_ZSTD_LEVEL 1
/* Largest raw_size a reader accepts (the writer's batch plus the one
 * record that crossed it, at most 64 KiB of stack and arrays). */
#define MD_PACKED_MAX_RAW (MD_SAMPLE_BATCH + (1u << 20))
#define MD_SAMPLE_HDR 72 /* fixed part of a SAMPLE payload */
/* Its fields; the registers, the callchain and the stack follow. */
enum {
	SMP_TIME = 0,	       /* u64 */
	SMP_PID = 8,	       /* u32 */
	SMP_TID = 12,	       /* u32 */
	SMP_ADDR = 16,	       /* u64 */
	SMP_IP = 24,	       /* u64 */
	SMP_EVENT = 32,	       /* u32 */
	SMP_ABI = 36,	       /* u32 */
	SMP_REGS_MASK = 40,    /* u64 */
	SMP_NREGS = 48,	       /* u32 */
	SMP_NCHAIN = 52,       /* u32 */
	SMP_STACK_SP = 56,     /* u64 */
	SMP_STACK_SIZE = 64,   /* u32 */
	SMP_STACK_REUSED = 68, /* u32: top stack bytes not stored */
};

/* --- little-endian helpers --- */

static inline void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline void put_u64(uint8_t *p, uint64_t v)
{
	put_u32(p, (uint32_t)v);
	put_u32(p + 4, (uint32_t)(v >> 32));
}

static inline uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static inline size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* True if the n bytes at p are all zero. */
static inline bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* CRC of a record of size bytes at p (size >= MD_REC_HDR), its crc word
 * taken as zero. */
uint32_t md_record_crc(const uint8_t *p, uint64_t size);
/* CRC of a file header of hsize bytes, its header_crc taken as zero. */
uint32_t md_header_crc(const uint8_t *p, size_t hsize);

/* --- record builder: a growing buffer of encoded fields --- */

struct md_buf {
	uint8_t *p;
	size_t len, cap;
};

/* n more bytes at the end of b, zeroed; returns where they start. */
uint8_t *md_buf_grow(struct md_buf *b, size_t n);
void md_buf_u32(struct md_buf *b, uint32_t v);
void md_buf_u64(struct md_buf *b, uint64_t v);
/* The longest string a record holds: 16 MiB. memsz writes none near it
 * (paths, command names, a command line of at most 4 KiB, perf map lines
 * of at most 4 KiB, notes); a reader refuses a longer one as malformed (a
 * hostile recording's string of gigabytes would be copied into labels and
 * messages) and the writer cuts one. */
#define MD_STR_MAX (16u << 20)
/* A string: u32 length, the bytes, at least one NUL, zero padding to a
 * multiple of 8. NULL is "". Only its first MD_STR_MAX bytes (up to 3
 * fewer: a UTF-8 character there kept whole or left out). */
void md_buf_str(struct md_buf *b, const char *s);
/* A build-id field (len bytes of id, at most 20, zero-padded to 24). */
void md_buf_build_id(struct md_buf *b, const uint8_t *id, uint32_t len);
/* Zero bytes up to a multiple of 8. */
void md_buf_pad8(struct md_buf *b);
/* v as LEB128 (7 bits a byte, low first, high bit: more follow). */
void md_buf_var(struct md_buf *b, uint64_t v);

/* --- cursor: reads one record's payload; every get checks the bounds.
 * The first failure sticks (err -MEMSZ_EBADDATA, why); later gets
 * return 0 or "". --- */

struct md_cur {
	const uint8_t *p;
	size_t len, pos;
	int err;
	const char *why;
};

void md_cur_fail(struct md_cur *c, const char *why);
/* n bytes, or NULL (c fails) when fewer are left. */
const uint8_t *md_cur_take(struct md_cur *c, size_t n);
uint32_t md_cur_u32(struct md_cur *c);
uint64_t md_cur_u64(struct md_cur *c);
/* A LEB128 value of at most 10 bytes that fits 64 bits, or 0 (c fails). */
uint64_t md_cur_var(struct md_cur *c);
/* A string: its length must fit the record and be at most MD_STR_MAX,
 * the bytes after it up to the next multiple of 8 must be zero (a NUL at
 * least) and it must hold no NUL itself. Returns "" on error (c->err
 * set). */
const char *md_cur_str(struct md_cur *c);
/* A build-id field of len bytes into dst (20 bytes). */
void md_cur_build_id(struct md_cur *c, uint8_t *dst, uint32_t len);

/* --- the writer's state (dfwriter.c) --- */

/* The fields of a snapshot's last mapping, against which a SNAP_MAPPING
 * record of version 6 codes the next one (see dfmapping.c). All zero is
 * the state at a snapshot's start: no mapping yet (image id none, no
 * name, no palette). */
struct md_map_prev {
	uint64_t start, end, pgoff, ino;
	uint32_t dev_major, dev_minor, prot, flags;
	uint32_t image1; /* image_id + 1: 0 is none (UINT32_MAX) */
	char *name;	 /* NUL-terminated, name_cap bytes */
	size_t name_cap;
	uint8_t *pal; /* npal palette entries (PGSTATE_PAL_SIZE each) */
	size_t pal_cap;
	uint32_t npal;
};

/* Back to the state at a snapshot's start (buffers kept). */
void md_map_prev_reset(struct md_map_prev *p);
void md_map_prev_free(struct md_map_prev *p);

struct md_writer {
	int fd;
	char *path; /* where the recording goes once committed */
	char *tmp;  /* the file written until then; NULL: writing path */
	/* path's directory, opened once (path_dir_open()): every name is
	 * made, moved and removed in it by *at() calls, so a directory of
	 * path swapped for a link after the check changes nothing; base:
	 * where path's last component starts in path, and in tmp and every
	 * name made from path by a suffix */
	int dfd;
	size_t base;
	/* tmp is /proc/self/fd/FD of an unnamed file (MD_WRITER_UNNAMED),
	 * linked in at commit, not renamed */
	bool unnamed;
	bool left;   /* md_writer_keep() left tmp where it is: not removed */
	bool direct; /* no temporary file: writing path's file (special) */
	bool committed;
	bool ended;   /* the END record is written */
	uint64_t off; /* end of the last complete record */
	int err;      /* sticky: once a write failed, every call fails */
	struct md_buf b;
	struct md_buf sb; /* SAMPLE records not yet written (batched) */
	uint64_t nrecords, nsamples, samples_lost; /* see md_writer_stats */
	unsigned page_shift;	  /* of the page size in the header */
	uint32_t version;	  /* of the file: MD_VERSION, or 5 */
	struct pgstate_enc enc;	  /* scratch of md_write_mapping */
	struct md_map_prev mprev; /* the snapshot's last mapping (v6) */
	uint32_t nsb;		  /* records in sb */
	bool compress;		  /* write batches as PACKED records */
	ZSTD_CCtx *cctx;
	struct md_buf zb;    /* a PACKED record being built */
	struct stackref stk; /* each thread's last stack in the batch */
	struct md_buf rb;    /* whole records not written yet (BATCH) */
	uint32_t nrb;	     /* records in rb */
	bool batch;	     /* MD_WRITER_BATCH */
	bool gather;	     /* md_writer_gather(): batched until off */
	char *err_path;	     /* path.old when err is about it */
	/* md_writer_set_wait(): asked while a write to a direct output
	 * waits for its reader; the timer (SIGALRM to this thread) that
	 * interrupts such a write, SIGALRM's action before it was made */
	int (*wait)(void *arg, uint64_t stalled_ns);
	void *wait_arg;
	bool has_timer;
	timer_t timer;
	int timer_tid; /* the thread it interrupts */
	struct sigaction old_alrm;
};

/* Start a record in w->b (its header reserved): flushes the batched
 * samples first. Returns 0 or the writer's (sticky) error. */
int md_rec_begin(struct md_writer *w);
/* Write the record built in w->b as one of type (header filled in here),
 * or with MD_WRITER_BATCH (or while md_writer_gather()) add it to the batch
 * (written when it reaches MD_RECORD_BATCH bytes or on a flush). Returns 0 or
 * -errno; the writer stays failed after an error. */
int md_rec_commit(struct md_writer *w, enum md_rec_type type);
/* md_rec_commit of the record built in w->b followed by the n bytes of
 * tail (and the zeroes that pad the whole to 8 bytes), written from where
 * they are: a mapping's page states (its encoder's stream, up to several
 * hundred KiB) are not copied into w->b first, which would grow to their
 * size and fault its pages in for each snapshot of a one-shot. */
int md_rec_commit_tail(struct md_writer *w, enum md_rec_type type,
		       const uint8_t *tail, size_t n);
/* Write the batched SAMPLE records (see md_writer_flush). */
int md_samples_flush(struct md_writer *w);

/* dfcreate.c: the file a writer writes. md_writer_create() makes it for
 * path (its directory dfd, its last component at path + base): a
 * temporary file beside path (*tmp its name; /proc/self/fd/N of an
 * unnamed one, *unnamed set) or, with MD_WRITER_SPECIAL, the pipe,
 * device, socket or own descriptor path leads to (*tmp NULL). Returns the
 * fd or a negative code. md_temp_letters() replaces the six X that end
 * name by random letters; md_temp_create() creates such a name in dfd
 * (O_EXCL, mode 0600, retried on a name taken): the fd or -errno. */
int md_writer_create(int dfd, const char *path, size_t base, unsigned flags,
		     char **tmp, bool *unnamed);
void md_temp_letters(char *name);
int md_temp_create(int dfd, char *name, size_t base);

/* --- the reader's state (dfreader.c) --- */

/* Highest user address a mapping may end at (5-level paging: 2^57), and
 * the one page above it the kernel maps into every x86-64 process. */
#define MD_VA_LIMIT (1ull << 57)
#define MD_VSYSCALL_START 0xffffffffff600000ull
#define MD_VSYSCALL_END 0xffffffffff601000ull

/* A file is read in chunks of this many bytes (or a whole record, when
 * it is longer), into the reader's window. */
#define MD_READ_CHUNK (1u << 20)

struct md_reader {
	/* The bytes [win_off, win_off + win_len) of the file: the caller's
	 * buffer (md_reader_open_mem, the whole file) or buf, read from fd.
	 * The file is read, never mapped: one truncated meanwhile gives a
	 * short read (an error), not a SIGBUS. */
	const uint8_t *win;
	uint64_t win_off;
	size_t win_len;
	int fd; /* -1: the caller's buffer */
	uint8_t *buf;
	size_t buf_cap;
	int io_err;   /* why the window could not be filled */
	size_t size;  /* of the file when opened */
	uint64_t off; /* next record */
	struct md_file_header hdr;
	struct md_run *runs; /* decoded runs of the last mapping */
	size_t runs_cap;
	uint64_t *u64s; /* regs + callchain of the last sample */
	size_t u64s_cap;
	char *subject; /* a legacy NOTE's subject, copied out */
	size_t subject_cap;

	/* what the checks need to know of the records before */
	int err; /* sticky error of md_read_next */
	const char *why;
	bool seen_end, cut_short;
	uint64_t nrecords, nsamples;
	uint32_t *img_ids; /* ids of IMAGE records, sorted */
	size_t nimg, img_cap;
	uint8_t *img_kinds; /* their IMAGE_KIND's kind (by img_ids), 0 none */
	size_t img_kinds_cap;
	bool in_snap, have_seq;
	uint32_t snap_pid, snap_seq, snap_flags, snap_nmappings, snap_seen;
	uint64_t snap_prev_end;	  /* end of the snapshot's last mapping */
	struct md_map_prev mprev; /* its fields, the base of the next (v6) */
	struct md_jit_sym *jit;	  /* symbols of the last JITMAP */
	size_t jit_cap;
	struct md_cgroup_stat *cgs; /* counters of the last CGROUP */
	size_t cgs_cap;
	struct md_charge_run *chg; /* runs of the last SNAP_CHARGE */
	size_t chg_cap;
	struct md_cache_run *fc; /* runs of the last FILE_CACHE */
	size_t fc_cap;
	uint64_t snap_charge_end; /* where its last SNAP_CHARGE run ended */
	/* the records of the last PACKED record, handed out one by one */
	ZSTD_DCtx *dctx;
	uint8_t *z;
	size_t zcap, zlen, zpos;
	uint32_t zleft;	     /* records still to come in it */
	uint64_t zoff;	     /* its offset */
	bool in_packed;	     /* decoding a record of it */
	struct stackref stk; /* each thread's last stack in it */
};

/* Is id the id of an IMAGE record read so far? *at: where it is or
 * would go in r->img_ids. */
bool md_reader_img_known(const struct md_reader *r, uint32_t id, size_t *at);

/* --- the record types: one row each (dfrecords.c) --- */

/* How `memsz dump` prints a record. */
struct md_print_opts {
	bool verbose;	    /* page runs and JIT symbols too */
	uint32_t page_size; /* from the file header */
};

struct md_rectype {
	const char *name; /* as dump prints it */
	/* Append rec's payload to b. NULL: the type is written by its own
	 * path (SNAP_MAPPING piecewise, SAMPLE batched, PACKED). */
	void (*encode)(struct md_buf *b, const struct md_record *rec);
	/* Decode the payload at c into rec and check it against the
	 * records before (r). Returns 0 or c->err. NULL: never handed out
	 * (PACKED). */
	int (*decode)(struct md_reader *r, struct md_cur *c,
		      struct md_record *rec);
	/* Print rec as one dump line (and, with o->verbose, its details on
	 * lines after it); name is the row's. */
	void (*print)(FILE *out, const struct md_record *rec, const char *name,
		      const struct md_print_opts *o);
};

/* The row of record type type, or NULL for a type this reader does not
 * know (it is skipped by its size). */
const struct md_rectype *md_rectype_of(uint32_t type);

/* Codecs that live beside the state they need. */
int md_mapping_decode(struct md_reader *r, struct md_cur *c,
		      struct md_record *rec); /* dfmapping.c */
int md_sample_decode(struct md_reader *r, struct md_cur *c,
		     struct md_record *rec); /* dfsample.c */

/* The memory cgroup records (dfcgroup.c): encoder, decoder, printer. */
void md_cgroup_encode(struct md_buf *b, const struct md_record *rec);
int md_cgroup_decode(struct md_reader *r, struct md_cur *c,
		     struct md_record *rec);
void md_cgroup_print(FILE *out, const struct md_record *rec, const char *name,
		     const struct md_print_opts *o);
void md_snap_charge_encode(struct md_buf *b, const struct md_record *rec);
int md_snap_charge_decode(struct md_reader *r, struct md_cur *c,
			  struct md_record *rec);
void md_snap_charge_print(FILE *out, const struct md_record *rec,
			  const char *name, const struct md_print_opts *o);
void md_machine_encode(struct md_buf *b, const struct md_record *rec);
int md_machine_decode(struct md_reader *r, struct md_cur *c,
		      struct md_record *rec);
void md_machine_print(FILE *out, const struct md_record *rec, const char *name,
		      const struct md_print_opts *o);
void md_file_cache_encode(struct md_buf *b, const struct md_record *rec);
int md_file_cache_decode(struct md_reader *r, struct md_cur *c,
			 struct md_record *rec);
void md_file_cache_print(FILE *out, const struct md_record *rec,
			 const char *name, const struct md_print_opts *o);

/* The printers of the rows that live beside their codecs. */
void md_print_mapping(FILE *out, const struct md_record *rec, const char *name,
		      const struct md_print_opts *o);
void md_print_sample(FILE *out, const struct md_record *rec, const char *name,
		     const struct md_print_opts *o);

/* What the printers share (dfprint.c): a CLOCK_MONOTONIC time in seconds
 * and a space; a build-id in hex or "-"; "rwxp"-style permissions; the
 * names of page flags (MD_PG_*) or snapshot flags (MD_SNAP_F_*) joined by
 * commas, or "-". */
void md_print_time(FILE *out, uint64_t ns);
void md_print_build_id(FILE *out, const uint8_t *id, uint32_t len);
void md_print_perms(FILE *out, uint32_t prot, uint32_t flags);
void md_print_page_flags(FILE *out, uint32_t flags);
void md_print_snap_flags(FILE *out, uint32_t flags);

#endif
