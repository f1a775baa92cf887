/* cmd_dump.c — `memsz dump`: every record of a memsz.data file, one line
 * each, like `perf script -D`. A damaged file prints every complete record
 * before the damage, then one error line. */
#include "config.h"

#include "builtin/builtin.h"
#include "builtin/options.h"
#include "data/datafile.h"
#include "util/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static const struct opt dump_opts[] = {
	{ 'i', "input", OPT_ARG, "FILE", 'i',
	  "file to read (default memsz.data)", NULL },
	{ 'v', "verbose", OPT_NOARG, NULL, 'v',
	  "also print every page run of a snapshot and\n"
	  "every JIT symbol", NULL },
	OPT_END,
};

const struct opts_cmd dump_cmd = {
	.name = "dump",
	.synopsis = "usage: memsz dump [-v] [-i FILE]\n",
	.about = "Print every record of a memsz.data file, one per line.\n",
	.opts = dump_opts,
	.col = 23,
};

void usage_dump(FILE *out)
{
	opts_usage(&dump_cmd, out);
}

/* The options: -i and -v. */
struct dump_args {
	const char *input;
	bool verbose;
};

static int dump_option(int id, const char *arg, void *ctx)
{
	struct dump_args *a = ctx;

	if (id == 'i')
		a->input = arg;
	else
		a->verbose = true;
	return -1;
}

static const char *const rec_names[] = {
	[MD_REC_IMAGE] = "IMAGE",
	[MD_REC_MMAP2] = "MMAP2",
	[MD_REC_COMM] = "COMM",
	[MD_REC_FORK] = "FORK",
	[MD_REC_EXIT] = "EXIT",
	[MD_REC_LOST] = "LOST",
	[MD_REC_SNAP_BEGIN] = "SNAP_BEGIN",
	[MD_REC_SNAP_MAPPING] = "SNAP_MAPPING",
	[MD_REC_SNAP_END] = "SNAP_END",
	[MD_REC_NOTE] = "NOTE",
	[MD_REC_MUNMAP] = "MUNMAP",
	[MD_REC_SAMPLE] = "SAMPLE",
	[MD_REC_JITMAP] = "JITMAP",
	[MD_REC_END] = "END",
	[MD_REC_CMDLINE] = "CMDLINE",
};

static const struct {
	uint32_t bit;
	const char *name;
} page_flags[] = {
	{ MD_PG_PRESENT, "present" },	  { MD_PG_SWAPPED, "swapped" },
	{ MD_PG_FILE, "file" },		  { MD_PG_EXCLUSIVE, "excl" },
	{ MD_PG_SOFTDIRTY, "softdirty" }, { MD_PG_DIRTY, "dirty" },
	{ MD_PG_ANON, "anon" },		  { MD_PG_SWAPBACKED, "swapbacked" },
	{ MD_PG_KSM, "ksm" },		  { MD_PG_THP, "thp" },
	{ MD_PG_HUGE, "huge" },		  { MD_PG_ZERO, "zero" },
	{ MD_PG_IDLE, "idle" },		  { MD_PG_PRIVATE_DIRTY, "pdirty" },
	{ MD_PG_SHARED_DIRTY, "sdirty" }, { MD_PG_PMD, "pmd" },
}, snap_flags[] = {
	{ MD_SNAP_F_PFN, "pfn" },
	{ MD_SNAP_F_KPAGEFLAGS, "kpageflags" },
	{ MD_SNAP_F_FROZEN, "frozen" },
	{ MD_SNAP_F_AT_EXIT, "at-exit" },
	{ MD_SNAP_F_PAGEMAP_SCAN, "pagemap-scan" },
	{ MD_SNAP_F_OBSERVER_FREE, "observer-free" },
	{ MD_SNAP_F_GROWTH, "growth" },
	{ MD_SNAP_F_PMD, "pmd" },
	{ MD_SNAP_F_LOCKED, "locked" },
};

#define PRINT_FLAGS(out, table, v)                                      \
	do {                                                            \
		const char *sep_ = "";                                  \
		for (size_t i_ = 0; i_ < ARRAY_SIZE(table); i_++)       \
			if ((v) & table[i_].bit) {                      \
				fprintf(out, "%s%s", sep_, table[i_].name); \
				sep_ = ",";                             \
			}                                               \
		if (!*sep_)                                             \
			fputc('-', out);                                \
	} while (0)

static void print_time(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%09" PRIu64 " ", ns / NSEC_PER_SEC,
		ns % NSEC_PER_SEC);
}

static void print_build_id(FILE *out, const uint8_t *id, uint32_t len)
{
	if (!len) {
		fputc('-', out);
		return;
	}
	for (uint32_t i = 0; i < len; i++)
		fprintf(out, "%02x", id[i]);
}

static void print_perms(FILE *out, uint32_t prot, uint32_t flags)
{
	fprintf(out, "%c%c%c%c", prot & PROT_READ ? 'r' : '-',
		prot & PROT_WRITE ? 'w' : '-', prot & PROT_EXEC ? 'x' : '-',
		flags & MAP_SHARED ? 's' : 'p');
}

static void print_mapping(FILE *out, const struct md_snap_mapping *m,
			  bool verbose, uint32_t page_size)
{
	uint64_t present = 0, swapped = 0, zero = 0, pd = 0, sd = 0;
	size_t i;

	for (i = 0; i < m->nruns; i++) {
		const struct md_run *r = &m->runs[i];

		if (r->flags & MD_PG_PRESENT)
			present += r->npages;
		if (r->flags & MD_PG_SWAPPED)
			swapped += r->npages;
		if (r->flags & MD_PG_ZERO)
			zero += r->npages;
		if (r->flags & MD_PG_PRIVATE_DIRTY)
			pd += r->npages;
		if (r->flags & MD_PG_SHARED_DIRTY)
			sd += r->npages;
	}
	fprintf(out, "[0x%" PRIx64 "-0x%" PRIx64 ") ", m->start, m->end);
	print_perms(out, m->prot, m->flags);
	if (m->flags & MD_MAP_LOCKED)
		fputs(" locked", out);
	fprintf(out, " @ 0x%" PRIx64 " %02x:%02x %" PRIu64 " image ", m->pgoff,
		m->dev_major, m->dev_minor, m->ino);
	if (m->image_id == UINT32_MAX)
		fputc('-', out);
	else
		fprintf(out, "#%u", m->image_id);
	fprintf(out, " present %" PRIu64 " swapped %" PRIu64 " zero %" PRIu64
		     " private_dirty %" PRIu64 " shared_dirty %" PRIu64
		     " runs %zu %s\n",
		present, swapped, zero, pd, sd, m->nruns, m->name);
	if (!verbose)
		return;
	for (i = 0; i < m->nruns; i++) {
		const struct md_run *r = &m->runs[i];

		fprintf(out, "    run 0x%" PRIx64 "-0x%" PRIx64 " pages %u ",
			r->vaddr,
			r->vaddr + (uint64_t)r->npages * page_size, r->npages);
		PRINT_FLAGS(out, page_flags, r->flags);
		fprintf(out, " mapcount %u\n", r->mapcount);
	}
}

static void print_record(FILE *out, const struct md_record *rec, bool verbose,
			 uint32_t page_size)
{
	const char *name = (size_t)rec->type < ARRAY_SIZE(rec_names) &&
					   rec_names[rec->type] ?
				   rec_names[rec->type] :
				   "UNKNOWN";
	const struct md_mmap2 *mm = &rec->u.mmap2;
	const struct md_task *t = &rec->u.task;

	fprintf(out, "0x%" PRIx64 " [0x%" PRIx64 "]: ", rec->offset,
		rec->size);
	switch (rec->type) {
	case MD_REC_IMAGE:
		fprintf(out, "%s #%u %02x:%02x %" PRIu64 " size %" PRIu64
			     " mtime %" PRId64 " build-id ",
			name, rec->u.image.id, rec->u.image.dev_major,
			rec->u.image.dev_minor, rec->u.image.ino,
			rec->u.image.size, rec->u.image.mtime_ns);
		print_build_id(out, rec->u.image.build_id,
			       rec->u.image.build_id_len);
		fprintf(out, " open '%s' %s\n", rec->u.image.open_path,
			rec->u.image.path);
		break;
	case MD_REC_MMAP2:
	case MD_REC_MUNMAP:
		print_time(out, mm->time);
		fprintf(out, "%s %u/%u: [0x%" PRIx64 "(0x%" PRIx64 ") @ 0x%" PRIx64
			     " %02x:%02x %" PRIu64 " %" PRIu64 " ",
			name, mm->pid, mm->tid, mm->start, mm->len, mm->pgoff,
			mm->dev_major, mm->dev_minor, mm->ino,
			mm->ino_generation);
		print_build_id(out, mm->build_id, mm->build_id_len);
		fprintf(out, "%s]: ", mm->synthesized ? " synth" : "");
		print_perms(out, mm->prot, mm->flags);
		fprintf(out, " %s\n", mm->filename);
		break;
	case MD_REC_COMM:
	case MD_REC_CMDLINE:
		print_time(out, t->time);
		fprintf(out, "%s %u/%u: %s", name, t->pid, t->tid, t->comm);
		if (t->has_owner)
			fprintf(out, " (uid %u %s)", t->uid, t->user);
		fputc('\n', out);
		break;
	case MD_REC_FORK:
	case MD_REC_EXIT:
		print_time(out, t->time);
		fprintf(out, "%s %u/%u: parent %u/%u\n", name, t->pid, t->tid,
			t->ppid, t->ptid);
		break;
	case MD_REC_LOST:
		print_time(out, rec->u.lost.time);
		fprintf(out, "%s %" PRIu64 "\n", name, rec->u.lost.count);
		break;
	case MD_REC_SNAP_BEGIN:
		print_time(out, rec->u.snap_begin.time);
		fprintf(out, "%s pid %u seq %u mappings %u flags ", name,
			rec->u.snap_begin.pid, rec->u.snap_begin.seq,
			rec->u.snap_begin.nmappings);
		PRINT_FLAGS(out, snap_flags, rec->u.snap_begin.flags);
		fputc('\n', out);
		break;
	case MD_REC_SNAP_MAPPING:
		fprintf(out, "%s ", name);
		print_mapping(out, &rec->u.mapping, verbose, page_size);
		break;
	case MD_REC_SNAP_END:
		print_time(out, rec->u.snap_end.time);
		fprintf(out, "%s pid %u seq %u unreadable %" PRIu64, name,
			rec->u.snap_end.pid, rec->u.snap_end.seq,
			rec->u.snap_end.unreadable_pages);
		if (rec->u.snap_end.vm_hwm)
			fprintf(out, " vm_hwm %" PRIu64,
				rec->u.snap_end.vm_hwm);
		fputc('\n', out);
		break;
	case MD_REC_NOTE:
		fprintf(out, "%s %s\n", name, rec->u.note.text);
		break;
	case MD_REC_SAMPLE: {
		const struct md_sample *s = &rec->u.sample;

		print_time(out, s->time);
		fprintf(out, "%s %u/%u: addr 0x%" PRIx64 " ip 0x%" PRIx64
			     " event %u regs %u sp 0x%" PRIx64 " stack %u"
			     " (stored %u) callchain %u\n",
			name, s->pid, s->tid, s->addr, s->ip, s->event,
			s->nregs, s->stack_sp, s->stack_size,
			s->stack_size - s->stack_reused, s->ncallchain);
		break;
	}
	case MD_REC_JITMAP: {
		const struct md_jitmap *j = &rec->u.jitmap;

		print_time(out, j->time);
		fprintf(out, "%s pid %u symbols %u\n", name, j->pid, j->nsyms);
		for (uint32_t i = 0; verbose && i < j->nsyms; i++)
			fprintf(out, "    0x%" PRIx64 " 0x%" PRIx64 " %s\n",
				j->syms[i].start, j->syms[i].size,
				j->syms[i].name);
		break;
	}
	case MD_REC_END:
		print_time(out, rec->u.end.time);
		fprintf(out, "%s records %" PRIu64 " samples %" PRIu64 "\n",
			name, rec->u.end.nrecords, rec->u.end.nsamples);
		break;
	default:
		fprintf(out, "%s type %u\n", name, (unsigned)rec->type);
		break;
	}
}

int cmd_dump(int argc, char **argv)
{
	struct dump_args a = { .input = "memsz.data" };
	const struct md_file_header *h;
	struct md_reader *r;
	struct md_record rec;
	const char *input;
	bool verbose;
	int ret;

	ret = opts_parse(&dump_cmd, argc, argv, dump_option, NULL, &a);
	if (ret >= 0)
		return ret;
	if (optind != argc) {
		memsz_error("unexpected argument '%s'; see 'memsz help dump'",
			    argv[optind]);
		return EXIT_USAGE;
	}
	input = a.input;
	verbose = a.verbose;
	ret = md_reader_open(input, &r);
	if (ret < 0) {
		if (ret == -MEMSZ_EBADMAGIC || ret == -MEMSZ_EVERSION ||
		    ret == -MEMSZ_ETRUNC || ret == -MEMSZ_EBADDATA)
			memsz_error("'%s': %s at offset 0", input,
				    memsz_strerror(ret));
		else
			memsz_error("cannot open '%s': %s", input,
				    memsz_strerror(ret));
		return 1;
	}
	h = md_reader_header(r);
	printf("# memsz.data version %u, header %u bytes, page size %u, "
	       "started %" PRIu64 ".%09" PRIu64 " (monotonic %" PRIu64
	       ".%09" PRIu64 ")\n",
	       h->version, h->header_size, h->page_size,
	       h->start_realtime_ns / NSEC_PER_SEC,
	       h->start_realtime_ns % NSEC_PER_SEC,
	       h->start_mono_ns / NSEC_PER_SEC,
	       h->start_mono_ns % NSEC_PER_SEC);
	while ((ret = md_read_next(r, &rec)) == 1)
		print_record(stdout, &rec, verbose, h->page_size);
	fflush(stdout);
	if (ret < 0)
		memsz_error("'%s': %s at offset %" PRIu64 " (%s)", input,
			    memsz_strerror(ret), md_reader_offset(r),
			    md_reader_why(r));
	else if (md_reader_cut_short(r))
		printf("# cut short at offset %" PRIu64 ": no END record (the "
		       "recording was killed or its disk was full)\n",
		       md_reader_offset(r));
	md_reader_close(r);
	if (ferror(stdout)) {
		memsz_error("cannot write the output");
		return 1;
	}
	return ret < 0 ? 1 : 0;
}
