/* SPDX-License-Identifier: GPL-2.0-or-later */
/* datafile.h — the memsz.data format: definitions, writer and reader.
 *
 * Layout (all integers little-endian, fixed width; see man/memsz-data.5):
 *   file header (struct md_file_header, 64 bytes)
 *   records, appended as they happen, each:
 *     struct md_rec_header { u32 type; u32 flags; u64 size; }  size counts the
 *     header and is a multiple of 8; the payload follows.
 * A file cut short (crash, full disk) reads up to its last complete record;
 * the reader reports the cut. Unknown record types of the same major version
 * are skipped by size (forward compatible).
 *
 * The writer sets MD_F_CRC (a CRC-32C of the header and of every record)
 * and MD_F_END (the file ends with an END record, written when the writer
 * closes without a write error). The reader checks the checksums and every
 * invariant the writer guarantees (mappings inside the address space and
 * ordered, runs inside their mapping, snapshot begin/end pairing, image ids
 * that exist, exact record sizes); a record that breaks one stops the read
 * with -MEMSZ_EBADDATA at its offset and md_reader_why() says which.
 *
 * record/ only writes, report/ only reads; both go through this codec.
 */
#ifndef MEMSZ_DATA_DATAFILE_H
#define MEMSZ_DATA_DATAFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data/crc32c.h"
#include "data/notekind.h"

#define MD_MAGIC "MEMSZDAT"
/* Version 2 stores a snapshot mapping's pages compactly (runs where long,
 * bitmaps where short); version 3 lets a packed SAMPLE leave out the top
 * of its stack (md_sample.stack_reused); version 4 gives a NOTE its kind
 * and subject; version 5 adds CODED page-state blocks (entropy-coded
 * pages: forked memory's many mapcounts); version 6 codes a
 * SNAP_MAPPING's fields against the snapshot's previous mapping (a few
 * bytes a mapping); version 7 lets a snapshot stand for the MMAP2 records
 * of the mappings its process had (MD_SNAP_F_MAPS), which the recorder
 * then leaves out; version 8 adds the page flag OBJ_SWAPPED (an older
 * reader refuses the file as newer instead of calling its runs damaged).
 * The reader still reads versions 1 to 7. */
#define MD_VERSION 8

/* File header flags (md_file_header.flags). */
enum md_file_flags {
	MD_F_CRC = 1u << 0, /* header_crc and each record's crc are valid */
	MD_F_END = 1u << 1, /* a complete file ends with an END record */
};

struct md_file_header {
	char magic[8];		    /* MD_MAGIC, no NUL */
	uint32_t version;	    /* MD_VERSION */
	uint32_t header_size;	    /* 64 */
	uint64_t flags;		    /* MD_F_* */
	uint64_t start_realtime_ns; /* wall clock when recording began */
	uint64_t start_mono_ns;	    /* CLOCK_MONOTONIC at that moment */
	uint32_t page_size;
	uint32_t header_crc; /* MD_F_CRC: CRC-32C of the header with this
				field zero; else 0 */
	uint64_t reserved[2];
};

enum md_rec_type {
	MD_REC_IMAGE = 1, /* metadata of one mapped file */
	MD_REC_MMAP2,	  /* a mapping appeared (perf mmap2 or synthesized) */
	MD_REC_COMM,
	MD_REC_FORK,
	MD_REC_EXIT,
	MD_REC_LOST,	     /* perf records lost */
	MD_REC_SNAP_BEGIN,   /* a residency snapshot of one pid begins */
	MD_REC_SNAP_MAPPING, /* one VMA of the snapshot and its page runs */
	MD_REC_SNAP_END,     /* the snapshot is complete */
	MD_REC_NOTE,	     /* a free-text message for the report footer */
	MD_REC_MUNMAP,	     /* a mapping went away (polling fallback) */
	MD_REC_SAMPLE,	     /* a page-fault sample with its user stack */
	MD_REC_JITMAP,	     /* JIT code symbols of a pid (perf-PID.map) */
	MD_REC_PACKED,	     /* SAMPLE records compressed together (zstd);
				the reader hands out the records inside */
	MD_REC_END = 15,     /* the writer closed the file (MD_F_END) */
	MD_REC_CMDLINE = 16, /* a process's command line (task payload) */
	MD_REC_CGROUP = 17,  /* a memory cgroup's own counters at a moment */
	MD_REC_SNAP_CHARGE = 18, /* pages of the snapshot charged to another
				    memory cgroup than the process's */
	MD_REC_FILE_CACHE = 19,	 /* a file's pages in the page cache and the
				    memory cgroups that pay for them */
	MD_REC_MACHINE = 20,	 /* the machine's memory at a moment: meminfo,
				    slabinfo and (record -a --frame-walk) a
				    walk of every page frame */
	MD_REC_IMAGE_KIND = 21,	 /* whether the file of an IMAGE record was
				    ELF when recorded */
	MD_REC_NOTE_VALUES = 22, /* the numbers of the NOTE before it */
	MD_REC__COUNT
};

/* Page-run flags (struct md_run.flags). The first group comes from
 * /proc/PID/pagemap, the second from /proc/kpageflags (valid only when
 * MD_SNAP_F_KPAGEFLAGS is set in the snapshot). */
enum md_page_flags {
	MD_PG_PRESENT = 1u << 0,
	MD_PG_SWAPPED = 1u << 1,
	MD_PG_FILE = 1u << 2, /* pagemap bit 61: file page or shared anon */
	MD_PG_EXCLUSIVE = 1u << 3, /* pagemap bit 56 */
	MD_PG_SOFTDIRTY = 1u << 4, /* pagemap bit 55 */
	MD_PG_DIRTY = 1u << 8,	   /* kpageflags KPF_DIRTY */
	MD_PG_ANON = 1u << 9,
	MD_PG_SWAPBACKED = 1u << 10,
	MD_PG_KSM = 1u << 11,
	MD_PG_THP = 1u << 12,
	MD_PG_HUGE = 1u << 13,
	MD_PG_ZERO = 1u << 14,
	MD_PG_IDLE = 1u << 15,
	MD_PG_PRIVATE_DIRTY = 1u << 16, /* counted in smaps Private_Dirty */
	MD_PG_SHARED_DIRTY = 1u << 17,	/* counted in smaps Shared_Dirty */
	MD_PG_PMD = 1u << 18, /* present, mapped by a PMD (a huge page of
				 THP, not hugetlb): smaps AnonHugePages,
				 ShmemPmdMapped or FilePmdMapped; only in
				 snapshots with MD_SNAP_F_PMD */
	/* present, a copy-on-write copy (no FILE) in a private read-only
	 * mapping of shmem whose object's page there is swapped out:
	 * smaps counts that page in Swap too (its Rss the copy) */
	MD_PG_OBJ_SWAPPED = 1u << 19,
};

/* Snapshot mapping flags (md_snap_mapping.flags) besides MAP_SHARED or
 * MAP_PRIVATE (one of them, always). The value is fixed in the file
 * whatever the machine's MAP_LOCKED. */
#define MD_MAP_LOCKED                                                          \
	0x2000u /* VM_LOCKED (mlock, MAP_LOCKED): only in                      \
		   snapshots with MD_SNAP_F_LOCKED */

/* Snapshot flags (md_snap_begin.flags). */
enum md_snap_flags {
	MD_SNAP_F_PFN = 1u << 0, /* PFNs were readable: mapcounts valid */
	MD_SNAP_F_KPAGEFLAGS = 1u << 1, /* kpageflags were readable */
	MD_SNAP_F_FROZEN = 1u << 2,	/* target stopped during the snapshot */
	MD_SNAP_F_AT_EXIT = 1u << 3,	/* taken at exit (PTRACE_EVENT_EXIT) */
	MD_SNAP_F_PAGEMAP_SCAN = 1u << 4,  /* PAGEMAP_SCAN was used */
	MD_SNAP_F_OBSERVER_FREE = 1u << 5, /* mapcounts leave memsz out */
	MD_SNAP_F_GROWTH = 1u << 6, /* taken because resident memory grew */
	MD_SNAP_F_PMD = 1u << 7,    /* PMD-mapped pages carry MD_PG_PMD */
	MD_SNAP_F_LOCKED = 1u << 8, /* locked mappings: MD_MAP_LOCKED */
	/* Version 7: the snapshot's mappings are also its process's mapping
	 * records (MMAP2), from before the recording: the recorder wrote no
	 * MMAP2 record of them (the first snapshot of an attached process,
	 * start or exit, or of one polled without perf events). The reader
	 * clears it in files of older versions. */
	MD_SNAP_F_MAPS = 1u << 9,
};

/* One run of consecutive pages with identical flags and mapcount. */
struct md_run {
	uint64_t vaddr;
	uint32_t npages;
	uint32_t flags;	   /* MD_PG_* */
	uint32_t mapcount; /* 0 = unknown (no PFN) */
	uint32_t reserved;
};

/* What a mapped file was when it was recorded (an IMAGE_KIND record):
 * the recorder reads each file's first bytes for its build-id. */
enum md_image_kind {
	MD_IMAGE_UNKNOWN = 0, /* not read (no IMAGE_KIND record: a file memsz
				 could not open or not a regular file, or a
				 recording older than IMAGE_KIND records) */
	MD_IMAGE_ELF = 1,     /* an ELF file (its magic and class) */
	MD_IMAGE_NOT_ELF = 2, /* a regular file that is not ELF: data */
	MD_IMAGE__COUNT
};

/* Decoded records, as the reader hands them out. Strings and arrays are
 * borrowed from the reader and valid until the next md_read_next(). */
struct md_image {
	uint32_t id; /* referenced by mappings */
	uint32_t dev_major, dev_minor;
	uint64_t ino, size;
	int64_t mtime_ns;
	uint8_t build_id[20];
	uint32_t build_id_len; /* 0: unknown */
	const char *path;      /* path as the process sees it */
	const char *open_path; /* where memsz could open it at record
				  time ("/proc/PID/root/..."), or "" */
	uint32_t kind;	       /* enum md_image_kind: not a field of the IMAGE
				  record (the reader leaves it 0) but of the
				  IMAGE_KIND record after it, which readers join to
				  their image; md_write_image() writes that record
				  too when kind is known */
};

/* An IMAGE_KIND record: the kind of the image of IMAGE record id. */
struct md_image_kind_rec {
	uint32_t id;
	uint32_t kind; /* enum md_image_kind, never MD_IMAGE_UNKNOWN */
	/* NULL, or why the reader ignored the record (static storage): a
	 * kind it does not know, an image not recorded, a second kind for
	 * an image. The kind is advisory: such a record leaves its image
	 * of unknown kind (the first kind of an image stays), and reading
	 * goes on. */
	const char *ignored;
};

struct md_mmap2 {
	uint64_t time; /* CLOCK_MONOTONIC ns */
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t dev_major, dev_minor;
	uint64_t ino, ino_generation;
	uint32_t prot, flags; /* PROT_*, MAP_* */
	uint8_t build_id[20];
	uint32_t build_id_len;
	bool synthesized; /* from /proc/PID/maps, not a perf event */
	const char *filename;
};

struct md_task { /* COMM, FORK, EXIT, CMDLINE */
	uint64_t time;
	uint32_t pid, tid, ppid, ptid;
	const char *comm; /* COMM: the command name; CMDLINE: the
			     arguments joined by spaces */
	/* COMM only: the process's owner (the uid owning /proc/PID) and its
	 * user name at record time, in COMM records memsz writes itself;
	 * has_owner is false in those that come from perf. */
	bool has_owner;
	uint32_t uid;
	const char *user; /* "" if the uid has no name */
};

struct md_lost {
	uint64_t time;
	uint64_t count;
};

struct md_snap_begin {
	uint64_t time;
	uint32_t pid;
	uint32_t seq;	/* 0, 1, 2 ... per file */
	uint32_t flags; /* MD_SNAP_F_* */
	uint32_t nmappings;
};

struct md_snap_mapping {
	uint64_t start, end, pgoff;
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	uint32_t prot;	   /* PROT_* */
	uint32_t flags;	   /* MAP_SHARED or MAP_PRIVATE, with
			      MD_MAP_LOCKED */
	uint32_t image_id; /* UINT32_MAX: anonymous / no image */
	const char *name;  /* path or [heap]/[stack]/[anon:x]/"" */
	const struct md_run *runs;
	size_t nruns;
};

struct md_snap_end {
	uint64_t time;
	uint32_t pid, seq;
	uint64_t unreadable_pages; /* pages pagemap could not report */
	uint64_t vm_hwm;	   /* peak RSS of the process so far
				      (VmHWM, bytes); 0: unknown (files
				      written before it was recorded) */
};

/* A message of memsz record for the report footer. */
struct md_note {
	uint32_t kind;	     /* enum md_note_kind; a value this
				memsz does not know reads as it
				is (take it as MD_NOTE_OTHER) */
	const char *subject; /* what it is about (the mapping's
				name for MD_NOTE_UNREADABLE_PAGES),
				or "" */
	const char *text;
	bool kind_inferred; /* a file of version 3 or older: kind
			       and subject were read from the text
			       (md_note_kind_from_text) */
};

/* A NOTE_VALUES record: the numbers of the NOTE before it, what its kind
 * says they are, for a report to add up (it never reads numbers from a
 * note's text). A record of more than MD_NOTE_MAX_VALS is read, its
 * first MD_NOTE_MAX_VALS kept. */
#define MD_NOTE_MAX_VALS 8
struct md_note_values {
	uint32_t kind;	   /* the note's, enum md_note_kind */
	uint32_t nvals;	   /* kept in vals */
	uint64_t nwritten; /* in the record */
	uint64_t vals[MD_NOTE_MAX_VALS];
};

/* Bounds of a sample's arrays: md_write_sample() refuses more and the
 * reader takes more as corruption. 64 registers: one per bit of
 * regs_mask (a u64). 4096 frames: the recorder cuts deeper chains, so a
 * corrupt count cannot make the reader take megabytes for one sample. */
#define MD_SAMPLE_MAX_REGS 64
#define MD_SAMPLE_MAX_CHAIN 4096

/* A page-fault (or other event) sample: where the fault was, which code
 * made it, and what is needed to unwind the user stack at report time.
 * Either callchain (kernel frame-pointer chain, --call-graph fp) or
 * regs + stack (PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER, for
 * unwinding with libunwind from .eh_frame/.debug_frame), or neither. */
struct md_sample {
	uint64_t time; /* CLOCK_MONOTONIC ns */
	uint32_t pid, tid;
	uint64_t addr;	      /* faulting data address */
	uint64_t ip;	      /* user instruction pointer */
	uint32_t event;	      /* index into the recording's event
				 names (NOTE "event N: name") */
	uint32_t abi;	      /* PERF_SAMPLE_REGS_ABI_*; 0: none */
	uint64_t regs_mask;   /* perf_event_attr.sample_regs_user */
	const uint64_t *regs; /* one per bit of regs_mask */
	uint32_t nregs;
	const uint64_t *callchain; /* user frames, innermost first */
	uint32_t ncallchain;
	uint64_t stack_sp;     /* user sp at the sample (regs' SP) */
	const uint8_t *stack;  /* copy of [stack_sp, +stack_size) */
	uint32_t stack_size;   /* dyn_size: bytes actually copied */
	uint32_t stack_reused; /* read: of them, the top bytes the
				  record left out (the previous
				  sample of the thread held them);
				  ignored by the writer */
};

/* The last record of a complete file: what the writer wrote before it. */
struct md_end {
	uint64_t time;
	uint64_t nrecords; /* records before this one */
	uint64_t nsamples; /* SAMPLE records among them */
};

/* One symbol of JIT-compiled code: [start, start+size) is name. */
struct md_jit_sym {
	uint64_t start, size;
	const char *name;
};

/* Bound on the symbols of one JITMAP record (the recorder writes a map
 * file in chunks of at most this many). */
#define MD_JITMAP_MAX_SYMS 65536

/* Symbols a JIT compiler of process pid wrote to its perf map
 * (/tmp/perf-PID.map) since the last JITMAP record of pid, as read at time.
 * Of two symbols over the same bytes, the later one (later record, or
 * later in the record) is the current one. */
struct md_jitmap {
	uint64_t time;
	uint32_t pid;
	uint32_t nsyms;
	const struct md_jit_sym *syms;
};

/* CGROUP flags (md_cgroup.flags). */
enum md_cgroup_flags {
	MD_CG_F_USAGE = 1u << 0,  /* usage is valid */
	MD_CG_F_KMEM = 1u << 1,	  /* kmem is valid (cgroup v1) */
	MD_CG_F_TARGET = 1u << 2, /* the cgroup the recording follows (-G) */
	MD_CG_F_PAYER = 1u << 3,  /* a cgroup pages of the processes are
				     charged to (SNAP_CHARGE), written
				     once to name it */
};

/* Bound on the counters of one CGROUP record. */
#define MD_CGROUP_MAX_STATS 1024

/* One line of memory.stat: a counter and its value (bytes for sizes,
 * a count for events, as the kernel prints it). */
struct md_cgroup_stat {
	const char *key;
	uint64_t value;
};

/* A memory cgroup's own accounting at time: what the kernel charges it
 * (v2 memory.current, v1 memory.usage_in_bytes), v1's kernel part
 * (memory.kmem.usage_in_bytes) and every line of its memory.stat. Written
 * for the -G cgroup at every snapshot round (pid 0, MD_CG_F_TARGET) and
 * for the memory cgroup of each process after its snapshot (pid). */
struct md_cgroup {
	uint64_t time;	  /* CLOCK_MONOTONIC ns */
	uint32_t pid;	  /* whose cgroup; 0: the -G cgroup */
	uint32_t version; /* 1 or 2 */
	uint32_t flags;	  /* MD_CG_F_* */
	uint32_t nstats;  /* <= MD_CGROUP_MAX_STATS */
	uint64_t ino;	  /* the cgroup directory's inode, as
			     /proc/kpagecgroup gives it */
	uint64_t usage;	  /* bytes charged (MD_CG_F_USAGE) */
	uint64_t kmem;	  /* v1 kernel memory (MD_CG_F_KMEM) */
	const char *path; /* its directory when recorded */
	const struct md_cgroup_stat *stats; /* memory.stat, in file order */
};

/* Pages whose frames /proc/kpagecgroup charges to memory cgroup cgroup
 * (its directory's inode; 0: to none). */
struct md_charge_run {
	uint64_t vaddr;
	uint64_t cgroup;
	uint32_t npages;
};

/* Bound on the runs of one SNAP_CHARGE record (the recorder writes a
 * snapshot's in records of at most this many). */
#define MD_CHARGE_MAX_RUNS 65536

/* Of the snapshot being read (the records come after its last mapping,
 * before its SNAP_END), the present pages charged to another memory
 * cgroup than own, the process's own (CGROUP record pid): the file pages
 * (page cache, shared memory) memsz looked up whose kpagecgroup differs
 * (anonymous pages are taken as the process's cgroup's). Pages not listed
 * are charged to own. Sorted by address, not overlapping, below the last
 * mapping's end, after the runs of the snapshot's SNAP_CHARGE record
 * before (a run may span two adjacent mappings). */
struct md_snap_charge {
	uint64_t own;	/* the process's memory cgroup inode */
	uint32_t nruns; /* 1 .. MD_CHARGE_MAX_RUNS */
	const struct md_charge_run *runs;
};

/* Cached pages [page, page + npages) of a file (page: an index from its
 * start), charged to memory cgroup cgroup (its inode; 0: to none). */
struct md_cache_run {
	uint64_t page;
	uint64_t cgroup;
	uint32_t npages;
};

/* Bound on the runs of one FILE_CACHE record (the recorder writes a
 * file's in records of at most this many, each with the file's fields). */
#define MD_CACHE_MAX_RUNS 65536

/* Which pages of the file dev:ino (path as memsz opened it) were in the
 * page cache at time, found without reading the file (mincore), with the
 * memory cgroup each is charged to (/proc/kpagecgroup). Pages not listed
 * were not cached. Runs sorted, not overlapping, within size. */
struct md_file_cache {
	uint64_t time; /* CLOCK_MONOTONIC ns */
	uint32_t dev_major, dev_minor;
	uint64_t ino, size;
	uint32_t nruns; /* 0 .. MD_CACHE_MAX_RUNS */
	const char *path;
	const struct md_cache_run *runs;
};

/* The machine's memory at time (a record -a round): every line of
 * /proc/meminfo (key as there, value in bytes, or a count where it has no
 * unit), the bytes of each slab cache of /proc/slabinfo as
 * MD_MACHINE_SLAB_PREFIX NAME and, recorded with `record -a --frame-walk`,
 * the bytes of page frames of each kind a walk of /proc/kpageflags found
 * ("walk_free", "walk_slab", ...; see memsz-data(5)). */
#define MD_MACHINE_SLAB_PREFIX "slabinfo:"
struct md_machine {
	uint64_t time;	 /* CLOCK_MONOTONIC ns */
	uint32_t nstats; /* <= MD_CGROUP_MAX_STATS */
	const struct md_cgroup_stat *stats;
};

struct md_record {
	enum md_rec_type type;
	uint64_t offset;    /* file offset of the record */
	uint64_t size;	    /* its size in bytes, header included */
	uint32_t crc;	    /* the record's CRC-32C (MD_F_CRC) */
	uint32_t rec_flags; /* MD_RECF_PACKED: came out of a PACKED
			       record (not a field of the file) */
	union {
		struct md_image image;
		struct md_image_kind_rec image_kind;
		struct md_mmap2 mmap2; /* MMAP2 and MUNMAP */
		struct md_task task;   /* COMM FORK EXIT CMDLINE */
		struct md_lost lost;
		struct md_snap_begin snap_begin;
		struct md_snap_mapping mapping;
		struct md_snap_end snap_end;
		struct md_note note;
		struct md_note_values note_values;
		struct md_sample sample;
		struct md_end end;
		struct md_jitmap jitmap;
		struct md_cgroup cgroup;
		struct md_snap_charge charge;
		struct md_file_cache cache;
		struct md_machine machine;
	} u;
};

#define MD_RECF_PACKED 1u

/* --- writer --- */
struct md_writer;

/* Start a recording for path. Records go to a new temporary file beside it
 * (path.tmp.XXXXXX) and path is left as it is until md_writer_commit(),
 * which renames the file over path: a symlink at path is replaced, never
 * followed. A path that is (or is a symlink to) a pipe, device or socket
 * is refused (-MEMSZ_ESPECIAL): such a path in a shared directory may be
 * another user's trap. A symlink at path that leads to a link of /proc
 * (a file descriptor's: /dev/stdout, path_link_walk()) is never replaced:
 * refused (-MEMSZ_EFDLINK; -MEMSZ_EUNSAFELINK when another user planted
 * a link of the chain). The directory of path is resolved once, here
 * (path_dir_open(): another user's link on the way is refused,
 * -MEMSZ_EUNSAFELINK), and every file is made, renamed and removed in
 * the directory it opened: a directory of path swapped for a link later
 * is not followed. Returns 0 and *out, or a negative code. */
int md_writer_open(const char *path, struct md_writer **out);

/* md_writer_open() flags. MD_WRITER_SPECIAL: a path that is a pipe,
 * device or socket, or a symlink that leads to one (each link of the
 * chain followed a hop at a time, path_link_walk(), the end opened
 * O_NOFOLLOW), is written directly, opened without blocking (a FIFO with
 * no reader: -ENXIO); a symlink that leads to memsz's own descriptor
 * (/dev/stdout) is written through a copy of that descriptor (a pipe
 * whose reader is gone: -EPIPE at the first write; a regular file only
 * when empty, else -EEXIST; the file of memsz's stderr: -MEMSZ_EMIXERR;
 * a descriptor memsz found closed: -MEMSZ_ESTDCLOSED). Never through a
 * symlink another user owns in a sticky world-writable directory (the
 * kernel's protected_symlinks rule: -MEMSZ_EUNSAFELINK), nor to another
 * link of /proc (-MEMSZ_EFDLINK). */
#define MD_WRITER_SPECIAL 1u
/* MD_WRITER_V5: write format version 5 (each SNAP_MAPPING's fields in
 * full, not coded against the previous mapping): for tests of the reader
 * of older files and for files an older memsz must read. */
#define MD_WRITER_V5 2u
/* MD_WRITER_BATCH: whole records are gathered and written in batches of
 * about MD_RECORD_BATCH bytes (and by md_writer_flush(), commit and close),
 * not one write(2) each: for a recording nobody reads while it is made
 * (record --duration 0), whose records come in one burst. A crash loses
 * the records not written yet; the file still holds whole records. */
#define MD_WRITER_BATCH 4u
#define MD_RECORD_BATCH (256u << 10)
/* MD_WRITER_UNNAMED: the file is written unnamed (open(2) O_TMPFILE in
 * path's directory, where its file system has it, else named as
 * md_writer_open() names it) and linked in at commit (linkat(2)), for a
 * recording made in one burst (record --duration 0): on ext4 a create
 * and a rename cost ~15-20 us more than an unnamed file and a link, ~6%
 * of a snapshot of a small process. Nothing of it is left behind by a
 * memsz killed before commit. Where path names something at commit, or for
 * md_writer_keep(), it is first named as md_writer_open() names its file
 * (a link, else a copy where no link can be made) and goes on as such a
 * file does. */
#define MD_WRITER_UNNAMED 8u
/* MD_WRITER_CMDOUT: a command is launched that inherits memsz's stdout
 * and stderr: with MD_WRITER_SPECIAL, a descriptor of memsz (-o
 * /dev/stdout) that is the same file as either is refused
 * (-MEMSZ_EMIXCMD), the recording would mix with what it writes. */
#define MD_WRITER_CMDOUT 16u

/* md_writer_open() with flags (MD_WRITER_*). */
int md_writer_open_flags(const char *path, unsigned flags,
			 struct md_writer **out);
/* md_writer_open_flags() with wait (NULL: none) set as
 * md_writer_set_wait() sets it before the header is written: a direct
 * output whose reader reads nothing stalls on the header already, and
 * the wait's error fails the open with it. */
int md_writer_open_wait(const char *path, unsigned flags,
			int (*wait)(void *arg, uint64_t stalled_ns), void *arg,
			struct md_writer **out);
/* The recording is valid: flush, append the END record, sync (only when
 * path exists and is not an empty file: no recording is replaced
 * otherwise), make path.old a hard link of an existing non-empty path
 * (replacing path.old; renaming path to it where no hard link can be
 * made) and rename the temporary file over path: path names a recording
 * at every moment. Returns 0 or a negative code (then path is as it was,
 * and path.old too unless only the last rename failed: path.old then
 * holds the previous recording as well). An unnamed file
 * (MD_WRITER_UNNAMED) is linked as path where path names nothing; else
 * it is named first (see there). */
int md_writer_commit(struct md_writer *w);
/* Each md_write_* appends one record; returns 0 or -errno (e.g. -ENOSPC).
 * After an error the file still holds every complete earlier record. Once
 * the END record is written (md_writer_commit(), md_writer_close()) none
 * is: -MEMSZ_EENDED, the file as it was. */
/* Any record of a type with a plain encoding (all but SNAP_MAPPING,
 * SAMPLE and PACKED, which have their own calls below: else -EINVAL);
 * the typed calls below are this with the type filled in. */
int md_write_record(struct md_writer *w, const struct md_record *rec);
/* An IMAGE record, and when r->kind is known (< MD_IMAGE__COUNT, else
 * -EINVAL) the IMAGE_KIND record after it. */
int md_write_image(struct md_writer *w, const struct md_image *r);
int md_write_mmap2(struct md_writer *w, const struct md_mmap2 *r);
int md_write_task(struct md_writer *w, enum md_rec_type type,
		  const struct md_task *r);
int md_write_lost(struct md_writer *w, const struct md_lost *r);
int md_write_snap_begin(struct md_writer *w, const struct md_snap_begin *r);
/* A mapping's runs are stored compactly (runs where they are long, a bitmap
 * where they are short) and read back as the same pages in maximal runs
 * (consecutive equal pages joined, at most UINT32_MAX pages a run). The
 * runs must be sorted, page-aligned, inside [start, end), not overlapping,
 * of at least one page, each present, swapped or the zero page (flags
 * MD_PG_PRESENT, MD_PG_SWAPPED or MD_PG_ZERO); start and end page-aligned.
 * Otherwise -EINVAL and nothing is written. */
int md_write_mapping(struct md_writer *w, const struct md_snap_mapping *r);
/* The same record piecewise, for a mapping whose runs come in slices:
 * md_mapping_begin() with its bounds, md_mapping_add() for each slice in
 * order (a run may continue the last one of the previous slice), then
 * md_mapping_end() with the rest of the record (r->start and r->end as
 * given to begin, r->runs and r->nruns unused; *nruns, unless NULL,
 * receives the number of runs the record reads back as). Nothing may be
 * written between begin and end but notes. Each returns 0 or a negative
 * code; an invalid slice makes md_mapping_end() fail with -EINVAL,
 * writing nothing, as do a slice or an end with no record begun (or one
 * already ended). */
int md_mapping_begin(struct md_writer *w, uint64_t start, uint64_t end);
int md_mapping_add(struct md_writer *w, const struct md_run *runs,
		   size_t nruns);
/* md_mapping_add() of the runs of the set bits of a bitmap: bit i % 64 of
 * words[i / 64], first <= i < npages, set for a page at vaddr + i pages of
 * flags fl and mapcount mc (see pgstate_add_bits). */
int md_mapping_add_bits(struct md_writer *w, uint64_t vaddr,
			const uint64_t *words, uint64_t first, uint64_t npages,
			uint32_t fl, uint32_t mc);
int md_mapping_end(struct md_writer *w, const struct md_snap_mapping *r,
		   uint64_t *nruns);
int md_write_snap_end(struct md_writer *w, const struct md_snap_end *r);
/* A NOTE of kind (< MD_NOTE__COUNT, else -EINVAL) about subject (NULL or
 * "": about the recording) saying text. */
int md_write_note_kind(struct md_writer *w, enum md_note_kind kind,
		       const char *subject, const char *text);
/* md_write_note_kind() and, with n > 0, a NOTE_VALUES record of the n
 * numbers vals after it (n at most MD_NOTE_MAX_VALS, else -EINVAL and
 * nothing written), what kind says they are. */
int md_write_note_vals(struct md_writer *w, enum md_note_kind kind,
		       const char *subject, const char *text,
		       const uint64_t *vals, uint32_t n);
/* A mapping went away (polling fallback): an MD_REC_MUNMAP record with the
 * same payload as MMAP2 (time, pid, tid, start, len, pgoff, dev, ino, prot,
 * flags, filename of r); the reader returns it in rec->u.mmap2. */
int md_write_munmap(struct md_writer *w, const struct md_mmap2 *r);
/* A sample record (MD_REC_SAMPLE); arrays copied into the record.
 * Samples are batched, and each batch is written as one PACKED record
 * (zstd) when that is smaller, else as plain SAMPLE records. */
int md_write_sample(struct md_writer *w, const struct md_sample *r);
/* Whether w writes straight into its path's file, with no temporary file
 * (MD_WRITER_SPECIAL: a pipe, device, socket or a descriptor memsz was
 * given): a write error then leaves there what it received. */
bool md_writer_direct(const struct md_writer *w);
/* The file records are being written to: the temporary file until
 * md_writer_commit() (/proc/self/fd/FD for an unnamed one), then the path
 * given to md_writer_open() (borrowed, valid until md_writer_close()). */
const char *md_writer_temp_path(const struct md_writer *w);
/* Compress sample batches (default) or write them plain. */
void md_writer_set_compress(struct md_writer *w, bool on);
/* While a write to a direct output (md_writer_direct()) cannot go on
 * (its reader reads nothing), call wait(arg, stalled_ns) every
 * MD_WAIT_TICK_MS, stalled_ns the time since the last byte went out: 0
 * waits on, a negative code fails the write with it (the writer stays
 * failed). The write is interrupted by a timer that sends SIGALRM to the
 * calling thread (caught by the writer while it is open): the session
 * blocks its stop signals to read them from a signalfd, so nothing else
 * would end a write that waits forever. */
#define MD_WAIT_TICK_MS 100
void md_writer_set_wait(struct md_writer *w,
			int (*wait)(void *arg, uint64_t stalled_ns), void *arg);
/* A JITMAP record: 1 to MD_JITMAP_MAX_SYMS symbols, each of size > 0
 * and not wrapping (else -EINVAL). */
int md_write_jitmap(struct md_writer *w, const struct md_jitmap *r);
/* A CGROUP record: version 1 or 2, at most MD_CGROUP_MAX_STATS counters
 * each with a key (else -EINVAL). */
int md_write_cgroup(struct md_writer *w, const struct md_cgroup *r);
/* A SNAP_CHARGE record, after the last SNAP_MAPPING record of its
 * snapshot: 1 to MD_CHARGE_MAX_RUNS runs of at least a page each (else
 * -EINVAL). */
int md_write_snap_charge(struct md_writer *w, const struct md_snap_charge *r);
/* A FILE_CACHE record: at most MD_CACHE_MAX_RUNS runs of a page or more
 * each (else -EINVAL). */
int md_write_file_cache(struct md_writer *w, const struct md_file_cache *r);
/* A MACHINE record: at most MD_CGROUP_MAX_STATS counters each with a key
 * (else -EINVAL). */
int md_write_machine(struct md_writer *w, const struct md_machine *r);
/* File offset where the next record will be written (the file's size when
 * every record so far was written). */
uint64_t md_writer_offset(const struct md_writer *w);
/* Write the batched SAMPLE records (and with MD_WRITER_BATCH every record
 * gathered) now. Returns 0 or the (sticky) -errno; after a partial write
 * the file keeps every whole record written. */
int md_writer_flush(struct md_writer *w);
/* on: the records written from now on are gathered, as with
 * MD_WRITER_BATCH; off: those gathered are written in one write(2)
 * (unless the writer batches anyway), for a burst of records a reader
 * wants whole: a snapshot's (a snapshot of a small process writes some 30
 * records). Returns 0 or the writer's (sticky) -errno; after a partial
 * write the file keeps every whole record written. */
int md_writer_gather(struct md_writer *w, bool on);

/* What the file holds, for a summary that never claims more. */
struct md_writer_stats {
	uint64_t records;      /* whole records in the file */
	uint64_t samples;      /* SAMPLE records among them */
	uint64_t samples_lost; /* samples given but not in the file (a
				  write error), batched ones excluded */
	uint64_t bytes;	       /* file size: md_writer_offset() */
};
void md_writer_stats(const struct md_writer *w, struct md_writer_stats *st);
/* Keep what was written so far, uncommitted, as dest (rename of the
 * temporary file, after one more try at writing what MD_WRITER_BATCH
 * gathered, whose failure changes nothing kept): path is
 * left as it is, and dest reads as cut short unless the END record made
 * it. dest is a name in path's directory spelled as path is (path with a
 * suffix: "path.partial"); it is made in the directory the writer opened,
 * never over something there. Returns 0; -EEXIST when dest names
 * something (nothing done: try another name); 1 when it could not be
 * renamed otherwise: it is then left under
 * its temporary name (md_writer_temp_path()), which md_writer_close() no
 * longer removes; -EINVAL when there is no temporary file, the
 * recording was committed or dest is not in path's directory, or -errno
 * when an unnamed file could be given no name. */
int md_writer_keep(struct md_writer *w, const char *dest);
/* The file the writer's error is about: the path given to
 * md_writer_open(), or path.old when md_writer_commit() could not move
 * the recording at path there (a directory in its way, say). Borrowed,
 * valid until md_writer_close(). */
const char *md_writer_err_path(const struct md_writer *w);
/* Flush, append the END record unless a write failed or it was written
 * by md_writer_commit() (a file without it reads as cut short), and
 * close. A temporary file that was never committed is removed. Returns 0
 * or -errno. NULL is fine. */
int md_writer_close(struct md_writer *w);

/* --- reader --- */
struct md_reader;

/* Open path and check the header. Returns 0 and *out, or -errno
 * (-EISDIR: a directory), -MEMSZ_ENOTREG (a FIFO, device or socket: not
 * opened), -MEMSZ_EBADMAGIC, -MEMSZ_EVERSION, -MEMSZ_ETRUNC. The file is read
 * as md_read_next() goes (a chunk at a time, never mapped): one truncated
 * meanwhile makes md_read_next() fail with -MEMSZ_ETRUNC where its bytes
 * end ("the file shrank while it was read"), never raise SIGBUS. */
int md_reader_open(const char *path, struct md_reader **out);
/* md_reader_open() over the size bytes at buf (borrowed: they must stay
 * valid and unchanged until md_reader_close()): no file, no system call,
 * as the fuzz target fuzz_dfreader reads. */
int md_reader_open_mem(const void *buf, size_t size, struct md_reader **out);
const struct md_file_header *md_reader_header(const struct md_reader *r);
/* Next record into *rec. Returns 1 if a record was read, 0 at a clean
 * end of file, or a negative code (-MEMSZ_ETRUNC: the file ends inside a
 * record at md_reader_offset(); -MEMSZ_EBADDATA: the record at
 * md_reader_offset() is damaged or breaks an invariant, md_reader_why()
 * says which). After an error every call returns the same error.
 * The records inside a PACKED record are handed out one by one, each with
 * the PACKED record's offset and MD_RECF_PACKED in rec_flags; PACKED
 * itself is never handed out. */
int md_read_next(struct md_reader *r, struct md_record *rec);
uint64_t md_reader_offset(const struct md_reader *r);
/* What the last failed md_read_next() found ("checksum mismatch", "mapping
 * overlaps the previous one", ...), or "" if nothing failed. Static
 * storage. */
const char *md_reader_why(const struct md_reader *r);
/* True once md_read_next() returned 0 at the end of a file whose header
 * promises an END record (MD_F_END) that was not there: the recording was
 * cut short (killed, crashed, disk full) after md_reader_offset(). */
bool md_reader_cut_short(const struct md_reader *r);
void md_reader_close(struct md_reader *r);

/* --- record types --- */

/* The name of record type type as `memsz dump` prints it ("IMAGE",
 * "SNAP_MAPPING"), or "UNKNOWN". Static storage. */
const char *md_rec_name(uint32_t type);
/* Print rec to out as one line of `memsz dump`: "0x<offset> [0x<size>]: "
 * then its type's fields; with verbose, a mapping's page runs and a
 * JITMAP's symbols on lines after it. page_size is the file header's. */
void md_record_print(FILE *out, const struct md_record *rec, bool verbose,
		     uint32_t page_size);

/* Recompute the header and record checksums of a file image in memory
 * (len bytes), walking records while their sizes fit (and the records
 * inside PACKED records stored uncompressed). For tests and fuzzing
 * that craft damage behind the checksums. Returns the number of records
 * whose checksum was set, or -1 if buf does not start with a header that
 * has MD_F_CRC. */
long md_checksum_fix(uint8_t *buf, size_t len);

#endif
