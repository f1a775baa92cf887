/* dfprint.c — each record type as `memsz dump` prints it, one line a
 * record (perf script -D style), the print column of the record table
 * (dfrecords.c). Every line was "0x<offset> [0x<size>]: " before it. */
#include "config.h"

#include "data/dfcodec.h"
#include "util/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <sys/mman.h>

static const struct flag_name {
	uint32_t bit;
	const char *name;
} page_flags[] = {
	{ MD_PG_PRESENT, "present" },
	{ MD_PG_SWAPPED, "swapped" },
	{ MD_PG_FILE, "file" },
	{ MD_PG_EXCLUSIVE, "excl" },
	{ MD_PG_SOFTDIRTY, "softdirty" },
	{ MD_PG_DIRTY, "dirty" },
	{ MD_PG_ANON, "anon" },
	{ MD_PG_SWAPBACKED, "swapbacked" },
	{ MD_PG_KSM, "ksm" },
	{ MD_PG_THP, "thp" },
	{ MD_PG_HUGE, "huge" },
	{ MD_PG_ZERO, "zero" },
	{ MD_PG_IDLE, "idle" },
	{ MD_PG_PRIVATE_DIRTY, "pdirty" },
	{ MD_PG_SHARED_DIRTY, "sdirty" },
	{ MD_PG_PMD, "pmd" },
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

/* The names of the bits of v in table (n rows) joined by commas, or "-". */
static void print_flags(FILE *out, const struct flag_name *table, size_t n,
			uint32_t v)
{
	const char *sep = "";

	for (size_t i = 0; i < n; i++)
		if (v & table[i].bit) {
			fprintf(out, "%s%s", sep, table[i].name);
			sep = ",";
		}
	if (!*sep)
		fputc('-', out);
}

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

void md_print_image(FILE *out, const struct md_record *rec, const char *name,
		    const struct md_print_opts *o)
{
	const struct md_image *im = &rec->u.image;

	(void)o;
	fprintf(out, "%s #%u %02x:%02x %" PRIu64 " size %" PRIu64
		     " mtime %" PRId64 " build-id ",
		name, im->id, im->dev_major, im->dev_minor, im->ino, im->size,
		im->mtime_ns);
	print_build_id(out, im->build_id, im->build_id_len);
	fprintf(out, " open '%s' %s\n", im->open_path, im->path);
}

void md_print_mmap2(FILE *out, const struct md_record *rec, const char *name,
		    const struct md_print_opts *o)
{
	const struct md_mmap2 *mm = &rec->u.mmap2;

	(void)o;
	print_time(out, mm->time);
	fprintf(out, "%s %u/%u: [0x%" PRIx64 "(0x%" PRIx64 ") @ 0x%" PRIx64
		     " %02x:%02x %" PRIu64 " %" PRIu64 " ",
		name, mm->pid, mm->tid, mm->start, mm->len, mm->pgoff,
		mm->dev_major, mm->dev_minor, mm->ino, mm->ino_generation);
	print_build_id(out, mm->build_id, mm->build_id_len);
	fprintf(out, "%s]: ", mm->synthesized ? " synth" : "");
	print_perms(out, mm->prot, mm->flags);
	fprintf(out, " %s\n", mm->filename);
}

/* COMM and CMDLINE */
void md_print_comm(FILE *out, const struct md_record *rec, const char *name,
		   const struct md_print_opts *o)
{
	const struct md_task *t = &rec->u.task;

	(void)o;
	print_time(out, t->time);
	fprintf(out, "%s %u/%u: %s", name, t->pid, t->tid, t->comm);
	if (t->has_owner)
		fprintf(out, " (uid %u %s)", t->uid, t->user);
	fputc('\n', out);
}

/* FORK and EXIT */
void md_print_fork(FILE *out, const struct md_record *rec, const char *name,
		   const struct md_print_opts *o)
{
	const struct md_task *t = &rec->u.task;

	(void)o;
	print_time(out, t->time);
	fprintf(out, "%s %u/%u: parent %u/%u\n", name, t->pid, t->tid,
		t->ppid, t->ptid);
}

void md_print_lost(FILE *out, const struct md_record *rec, const char *name,
		   const struct md_print_opts *o)
{
	(void)o;
	print_time(out, rec->u.lost.time);
	fprintf(out, "%s %" PRIu64 "\n", name, rec->u.lost.count);
}

void md_print_snap_begin(FILE *out, const struct md_record *rec,
			 const char *name, const struct md_print_opts *o)
{
	const struct md_snap_begin *b = &rec->u.snap_begin;

	(void)o;
	print_time(out, b->time);
	fprintf(out, "%s pid %u seq %u mappings %u flags ", name, b->pid,
		b->seq, b->nmappings);
	print_flags(out, snap_flags, ARRAY_SIZE(snap_flags), b->flags);
	fputc('\n', out);
}

/* A mapping's page counts; with o->verbose each page run on a line. */
void md_print_mapping(FILE *out, const struct md_record *rec, const char *name,
		      const struct md_print_opts *o)
{
	const struct md_snap_mapping *m = &rec->u.mapping;
	uint64_t present = 0, swapped = 0, zero = 0, pd = 0, sd = 0;
	size_t i;

	for (i = 0; i < m->nruns; i++) {
		const struct md_run *r = &m->runs[i];

		present += r->flags & MD_PG_PRESENT ? r->npages : 0;
		swapped += r->flags & MD_PG_SWAPPED ? r->npages : 0;
		zero += r->flags & MD_PG_ZERO ? r->npages : 0;
		pd += r->flags & MD_PG_PRIVATE_DIRTY ? r->npages : 0;
		sd += r->flags & MD_PG_SHARED_DIRTY ? r->npages : 0;
	}
	fprintf(out, "%s [0x%" PRIx64 "-0x%" PRIx64 ") ", name, m->start,
		m->end);
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
	for (i = 0; o->verbose && i < m->nruns; i++) {
		const struct md_run *r = &m->runs[i];

		fprintf(out, "    run 0x%" PRIx64 "-0x%" PRIx64 " pages %u ",
			r->vaddr,
			r->vaddr + (uint64_t)r->npages * o->page_size,
			r->npages);
		print_flags(out, page_flags, ARRAY_SIZE(page_flags), r->flags);
		fprintf(out, " mapcount %u\n", r->mapcount);
	}
}

void md_print_snap_end(FILE *out, const struct md_record *rec,
		       const char *name, const struct md_print_opts *o)
{
	const struct md_snap_end *e = &rec->u.snap_end;

	(void)o;
	print_time(out, e->time);
	fprintf(out, "%s pid %u seq %u unreadable %" PRIu64, name, e->pid,
		e->seq, e->unreadable_pages);
	if (e->vm_hwm)
		fprintf(out, " vm_hwm %" PRIu64, e->vm_hwm);
	fputc('\n', out);
}

/* With o->verbose, the kind and subject the record stores on a line of
 * their own (none for a file of version 3 or older: it stores neither,
 * dump shows what the file holds). */
void md_print_note(FILE *out, const struct md_record *rec, const char *name,
		   const struct md_print_opts *o)
{
	const struct md_note *n = &rec->u.note;

	fprintf(out, "%s %s\n", name, n->text);
	if (!o->verbose || n->kind_inferred)
		return;
	fprintf(out, "    kind %u %s", n->kind, md_note_kind_name(n->kind));
	if (n->subject[0])
		fprintf(out, " subject %s", n->subject);
	fputc('\n', out);
}

void md_print_sample(FILE *out, const struct md_record *rec, const char *name,
		     const struct md_print_opts *o)
{
	const struct md_sample *s = &rec->u.sample;

	(void)o;
	print_time(out, s->time);
	fprintf(out, "%s %u/%u: addr 0x%" PRIx64 " ip 0x%" PRIx64
		     " event %u regs %u sp 0x%" PRIx64 " stack %u"
		     " (stored %u) callchain %u\n",
		name, s->pid, s->tid, s->addr, s->ip, s->event, s->nregs,
		s->stack_sp, s->stack_size, s->stack_size - s->stack_reused,
		s->ncallchain);
}

/* With o->verbose, each symbol on a line. */
void md_print_jitmap(FILE *out, const struct md_record *rec, const char *name,
		     const struct md_print_opts *o)
{
	const struct md_jitmap *j = &rec->u.jitmap;

	print_time(out, j->time);
	fprintf(out, "%s pid %u symbols %u\n", name, j->pid, j->nsyms);
	for (uint32_t i = 0; o->verbose && i < j->nsyms; i++)
		fprintf(out, "    0x%" PRIx64 " 0x%" PRIx64 " %s\n",
			j->syms[i].start, j->syms[i].size, j->syms[i].name);
}

void md_print_end(FILE *out, const struct md_record *rec, const char *name,
		  const struct md_print_opts *o)
{
	(void)o;
	print_time(out, rec->u.end.time);
	fprintf(out, "%s records %" PRIu64 " samples %" PRIu64 "\n", name,
		rec->u.end.nrecords, rec->u.end.nsamples);
}
