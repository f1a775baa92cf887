// SPDX-License-Identifier: GPL-2.0-or-later
/* dfrecords.c — the record types of memsz.data, one row each: name,
 * encoder, decoder (with the checks against the records before) and
 * printer (what `memsz dump` shows). Adding a record type is its type
 * value and struct in datafile.h, its functions here, and a row. The
 * page-carrying SNAP_MAPPING and the batched SAMPLE have theirs in
 * dfmapping.c and dfsample.c, the memory cgroup records (CGROUP,
 * SNAP_CHARGE, FILE_CACHE) in dfcgroup.c. */
#include "config.h"

#include "data/dfcodec.h"
#include "util/escape.h"
#include "util/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* --- IMAGE --- */

static void encode_image(struct md_buf *b, const struct md_record *rec)
{
	const struct md_image *r = &rec->u.image;

	md_buf_u32(b, r->id);
	md_buf_u32(b, r->dev_major);
	md_buf_u32(b, r->dev_minor);
	md_buf_u32(b, MIN(r->build_id_len, MD_BUILD_ID_MAX));
	md_buf_u64(b, r->ino);
	md_buf_u64(b, r->size);
	md_buf_u64(b, (uint64_t)r->mtime_ns);
	md_buf_build_id(b, r->build_id, r->build_id_len);
	md_buf_str(b, r->path);
	md_buf_str(b, r->open_path);
}

/* An image id is given once: later mappings refer to it. */
static int decode_image(struct md_reader *r, struct md_cur *c,
			struct md_record *rec)
{
	struct md_image *im = &rec->u.image;
	size_t at;

	im->id = md_cur_u32(c);
	im->dev_major = md_cur_u32(c);
	im->dev_minor = md_cur_u32(c);
	im->build_id_len = md_cur_u32(c);
	im->ino = md_cur_u64(c);
	im->size = md_cur_u64(c);
	im->mtime_ns = (int64_t)md_cur_u64(c);
	md_cur_build_id(c, im->build_id, im->build_id_len);
	im->path = md_cur_str(c);
	im->open_path = md_cur_str(c);
	if (c->err)
		return c->err;
	if (md_reader_img_known(r, im->id, &at)) {
		md_cur_fail(c, "a second IMAGE record with the same id");
		return c->err;
	}
	xgrow(&r->img_ids, &r->img_cap, r->nimg + 1, sizeof(*r->img_ids));
	xgrow(&r->img_kinds, &r->img_kinds_cap, r->nimg + 1,
	      sizeof(*r->img_kinds));
	memmove(r->img_ids + at + 1, r->img_ids + at,
		(r->nimg - at) * sizeof(*r->img_ids));
	memmove(r->img_kinds + at + 1, r->img_kinds + at,
		(r->nimg - at) * sizeof(*r->img_kinds));
	r->img_ids[at] = im->id;
	r->img_kinds[at] = MD_IMAGE_UNKNOWN;
	r->nimg++;
	return 0;
}

/* --- IMAGE_KIND --- */

static void encode_image_kind(struct md_buf *b, const struct md_record *rec)
{
	md_buf_u32(b, rec->u.image_kind.id);
	md_buf_u32(b, rec->u.image_kind.kind);
}

/* The kind of an image read before: one record per image, of a kind
 * memsz knows. The kind is advisory (an older reader skips the record
 * by its size, and reads its images as of unknown kind): one that breaks
 * these rules is handed out ignored, with why, not taken for damage that
 * would end the read. */
static int decode_image_kind(struct md_reader *r, struct md_cur *c,
			     struct md_record *rec)
{
	struct md_image_kind_rec *k = &rec->u.image_kind;
	size_t at;

	k->id = md_cur_u32(c);
	k->kind = md_cur_u32(c);
	k->ignored = NULL;
	if (c->err)
		return c->err;
	if (k->kind == MD_IMAGE_UNKNOWN || k->kind >= MD_IMAGE__COUNT)
		k->ignored = "image kind unknown";
	else if (!md_reader_img_known(r, k->id, &at))
		k->ignored = "image kind for an image not recorded";
	else if (r->img_kinds[at] != MD_IMAGE_UNKNOWN)
		k->ignored = "a second IMAGE_KIND record for an image";
	else
		r->img_kinds[at] = (uint8_t)k->kind;
	return 0;
}

/* Whether the file was ELF, as dump prints it (by enum md_image_kind). */
static const char *const image_kind_names[MD_IMAGE__COUNT] = {
    [MD_IMAGE_UNKNOWN] = "unknown",
    [MD_IMAGE_ELF] = "yes",
    [MD_IMAGE_NOT_ELF] = "no",
};

static void print_image_kind(FILE *out, const struct md_record *rec,
			     const char *name, const struct md_print_opts *o)
{
	const struct md_image_kind_rec *k = &rec->u.image_kind;

	(void)o;
	fprintf(out, "%s #%u elf %s", name, k->id,
		image_kind_names[k->kind < MD_IMAGE__COUNT ? k->kind : 0]);
	if (k->ignored)
		fprintf(out, " (kind %u ignored: %s)", k->kind, k->ignored);
	fputc('\n', out);
}

static void print_image(FILE *out, const struct md_record *rec,
			const char *name, const struct md_print_opts *o)
{
	const struct md_image *im = &rec->u.image;

	(void)o;
	fprintf(out,
		"%s #%u %02x:%02x %" PRIu64 " size %" PRIu64 " mtime %" PRId64
		" build-id ",
		name, im->id, im->dev_major, im->dev_minor, im->ino, im->size,
		im->mtime_ns);
	md_print_build_id(out, im->build_id, im->build_id_len);
	fputs(" open '", out);
	fputs_escaped(im->open_path, out);
	fputs("' ", out);
	fputs_escaped(im->path, out);
	fputc('\n', out);
}

/* --- MMAP2 and MUNMAP --- */

static void encode_mmap2(struct md_buf *b, const struct md_record *rec)
{
	const struct md_mmap2 *r = &rec->u.mmap2;

	md_buf_u64(b, r->time);
	md_buf_u32(b, r->pid);
	md_buf_u32(b, r->tid);
	md_buf_u64(b, r->start);
	md_buf_u64(b, r->len);
	md_buf_u64(b, r->pgoff);
	md_buf_u32(b, r->dev_major);
	md_buf_u32(b, r->dev_minor);
	md_buf_u64(b, r->ino);
	md_buf_u64(b, r->ino_generation);
	md_buf_u32(b, r->prot);
	md_buf_u32(b, r->flags);
	md_buf_u32(b, MIN(r->build_id_len, MD_BUILD_ID_MAX));
	md_buf_u32(b, r->synthesized ? 1 : 0);
	md_buf_build_id(b, r->build_id, r->build_id_len);
	md_buf_str(b, r->filename);
}

static int decode_mmap2(struct md_reader *r, struct md_cur *c,
			struct md_record *rec)
{
	struct md_mmap2 *m = &rec->u.mmap2;

	(void)r;
	m->time = md_cur_u64(c);
	m->pid = md_cur_u32(c);
	m->tid = md_cur_u32(c);
	m->start = md_cur_u64(c);
	m->len = md_cur_u64(c);
	m->pgoff = md_cur_u64(c);
	m->dev_major = md_cur_u32(c);
	m->dev_minor = md_cur_u32(c);
	m->ino = md_cur_u64(c);
	m->ino_generation = md_cur_u64(c);
	m->prot = md_cur_u32(c);
	m->flags = md_cur_u32(c);
	m->build_id_len = md_cur_u32(c);
	m->synthesized = md_cur_u32(c) != 0;
	md_cur_build_id(c, m->build_id, m->build_id_len);
	m->filename = md_cur_str(c);
	if (!c->err && (!m->len || m->start + m->len < m->start))
		md_cur_fail(c, "mmap2 range empty or wrapping");
	return c->err;
}

static void print_mmap2(FILE *out, const struct md_record *rec,
			const char *name, const struct md_print_opts *o)
{
	const struct md_mmap2 *mm = &rec->u.mmap2;

	(void)o;
	md_print_time(out, mm->time);
	fprintf(out,
		"%s %u/%u: [0x%" PRIx64 "(0x%" PRIx64 ") @ 0x%" PRIx64
		" %02x:%02x %" PRIu64 " %" PRIu64 " ",
		name, mm->pid, mm->tid, mm->start, mm->len, mm->pgoff,
		mm->dev_major, mm->dev_minor, mm->ino, mm->ino_generation);
	md_print_build_id(out, mm->build_id, mm->build_id_len);
	fprintf(out, "%s]: ", mm->synthesized ? " synth" : "");
	md_print_perms(out, mm->prot, mm->flags);
	fputc(' ', out);
	fputs_escaped(mm->filename, out);
	fputc('\n', out);
}

/* --- COMM, FORK, EXIT, CMDLINE --- */

static void encode_task(struct md_buf *b, const struct md_record *rec)
{
	const struct md_task *r = &rec->u.task;
	bool named = rec->type == MD_REC_COMM || rec->type == MD_REC_CMDLINE;

	md_buf_u64(b, r->time);
	md_buf_u32(b, r->pid);
	md_buf_u32(b, r->tid);
	md_buf_u32(b, r->ppid);
	md_buf_u32(b, r->ptid);
	md_buf_str(b, named ? r->comm : "");
	if (rec->type == MD_REC_COMM && r->has_owner) {
		md_buf_u32(b, r->uid);
		md_buf_u32(b, MD_TASK_F_OWNER);
		md_buf_str(b, r->user ? r->user : "");
	}
}

static int decode_task(struct md_reader *r, struct md_cur *c,
		       struct md_record *rec)
{
	struct md_task *t = &rec->u.task;

	(void)r;
	t->time = md_cur_u64(c);
	t->pid = md_cur_u32(c);
	t->tid = md_cur_u32(c);
	t->ppid = md_cur_u32(c);
	t->ptid = md_cur_u32(c);
	t->comm = md_cur_str(c);
	t->has_owner = false;
	/* appended fields: the owner, in COMM records memsz wrote */
	if (rec->type == MD_REC_COMM && !c->err && c->len - c->pos >= 8) {
		t->uid = md_cur_u32(c);
		t->has_owner = md_cur_u32(c) & MD_TASK_F_OWNER;
		t->user = t->has_owner ? md_cur_str(c) : NULL;
	}
	return c->err;
}

/* COMM and CMDLINE */
static void print_comm(FILE *out, const struct md_record *rec, const char *name,
		       const struct md_print_opts *o)
{
	const struct md_task *t = &rec->u.task;

	(void)o;
	md_print_time(out, t->time);
	fprintf(out, "%s %u/%u: ", name, t->pid, t->tid);
	fputs_escaped(t->comm, out);
	if (t->has_owner) {
		fprintf(out, " (uid %u ", t->uid);
		fputs_escaped(t->user, out);
		fputc(')', out);
	}
	fputc('\n', out);
}

/* FORK and EXIT */
static void print_fork(FILE *out, const struct md_record *rec, const char *name,
		       const struct md_print_opts *o)
{
	const struct md_task *t = &rec->u.task;

	(void)o;
	md_print_time(out, t->time);
	/* an EXIT memsz wrote itself (record -a, -G: a process found gone)
	 * knows no parent: none is printed rather than "parent 0/0" */
	if (!t->ppid && !t->ptid) {
		fprintf(out, "%s %u/%u\n", name, t->pid, t->tid);
		return;
	}
	fprintf(out, "%s %u/%u: parent %u/%u\n", name, t->pid, t->tid, t->ppid,
		t->ptid);
}

/* --- LOST --- */

static void encode_lost(struct md_buf *b, const struct md_record *rec)
{
	md_buf_u64(b, rec->u.lost.time);
	md_buf_u64(b, rec->u.lost.count);
}

static int decode_lost(struct md_reader *r, struct md_cur *c,
		       struct md_record *rec)
{
	(void)r;
	rec->u.lost.time = md_cur_u64(c);
	rec->u.lost.count = md_cur_u64(c);
	return c->err;
}

static void print_lost(FILE *out, const struct md_record *rec, const char *name,
		       const struct md_print_opts *o)
{
	(void)o;
	md_print_time(out, rec->u.lost.time);
	fprintf(out, "%s %" PRIu64 "\n", name, rec->u.lost.count);
}

/* --- SNAP_BEGIN and SNAP_END: one snapshot at a time, seq increasing,
 * the end naming its begin --- */

static void encode_snap_begin(struct md_buf *b, const struct md_record *rec)
{
	const struct md_snap_begin *r = &rec->u.snap_begin;

	md_buf_u64(b, r->time);
	md_buf_u32(b, r->pid);
	md_buf_u32(b, r->seq);
	md_buf_u32(b, r->flags);
	md_buf_u32(b, r->nmappings);
}

static int decode_snap_begin(struct md_reader *r, struct md_cur *c,
			     struct md_record *rec)
{
	struct md_snap_begin *b = &rec->u.snap_begin;

	b->time = md_cur_u64(c);
	b->pid = md_cur_u32(c);
	b->seq = md_cur_u32(c);
	b->flags = md_cur_u32(c);
	b->nmappings = md_cur_u32(c);
	if (c->err)
		return c->err;
	/* the bit meant nothing before version 7 */
	if (r->hdr.version < 7)
		b->flags &= ~(uint32_t)MD_SNAP_F_MAPS;
	if (r->in_snap)
		md_cur_fail(c, "snapshot begins inside another one");
	else if (r->have_seq && b->seq <= r->snap_seq)
		md_cur_fail(c, "snapshot sequence number not increasing");
	r->in_snap = true;
	r->have_seq = true;
	r->snap_pid = b->pid;
	r->snap_seq = b->seq;
	r->snap_flags = b->flags;
	r->snap_nmappings = b->nmappings;
	r->snap_seen = 0;
	r->snap_prev_end = 0;
	md_map_prev_reset(&r->mprev);
	r->snap_charge_end = 0;
	return c->err;
}

static void encode_snap_end(struct md_buf *b, const struct md_record *rec)
{
	const struct md_snap_end *r = &rec->u.snap_end;

	md_buf_u64(b, r->time);
	md_buf_u32(b, r->pid);
	md_buf_u32(b, r->seq);
	md_buf_u64(b, r->unreadable_pages);
	md_buf_u64(b, r->vm_hwm);
}

static int decode_snap_end(struct md_reader *r, struct md_cur *c,
			   struct md_record *rec)
{
	struct md_snap_end *e = &rec->u.snap_end;

	e->time = md_cur_u64(c);
	e->pid = md_cur_u32(c);
	e->seq = md_cur_u32(c);
	e->unreadable_pages = md_cur_u64(c);
	/* appended field: absent in older files */
	e->vm_hwm = c->len - c->pos >= 8 ? md_cur_u64(c) : 0;
	if (c->err)
		return c->err;
	if (!r->in_snap || e->pid != r->snap_pid || e->seq != r->snap_seq)
		md_cur_fail(c, "snapshot end without its begin");
	r->in_snap = false;
	return c->err;
}

static void print_snap_begin(FILE *out, const struct md_record *rec,
			     const char *name, const struct md_print_opts *o)
{
	const struct md_snap_begin *b = &rec->u.snap_begin;

	(void)o;
	md_print_time(out, b->time);
	fprintf(out, "%s pid %u seq %u mappings %u flags ", name, b->pid,
		b->seq, b->nmappings);
	md_print_snap_flags(out, b->flags);
	fputc('\n', out);
}

static void print_snap_end(FILE *out, const struct md_record *rec,
			   const char *name, const struct md_print_opts *o)
{
	const struct md_snap_end *e = &rec->u.snap_end;

	(void)o;
	md_print_time(out, e->time);
	fprintf(out, "%s pid %u seq %u unreadable %" PRIu64, name, e->pid,
		e->seq, e->unreadable_pages);
	if (e->vm_hwm)
		fprintf(out, " vm_hwm %" PRIu64, e->vm_hwm);
	fputc('\n', out);
}

/* --- NOTE: u32 kind, u32 reserved, subject, text (version 4 on); text
 * alone before, its kind read from it --- */

static void encode_note(struct md_buf *b, const struct md_record *rec)
{
	const struct md_note *n = &rec->u.note;

	md_buf_u32(b, n->kind);
	md_buf_u32(b, 0);
	md_buf_str(b, n->subject);
	md_buf_str(b, n->text);
}

/* A note of a file without kinds: its kind and subject from its text,
 * the subject copied into r (valid until the next record). */
static void note_infer(struct md_reader *r, struct md_note *n)
{
	const char *s;
	size_t len;

	n->kind = md_note_kind_from_text(n->text, &s, &len);
	n->kind_inferred = true;
	xgrow(&r->subject, &r->subject_cap, len + 1, 1);
	if (len)
		memcpy(r->subject, s, len);
	r->subject[len] = 0;
	n->subject = r->subject;
}

static int decode_note(struct md_reader *r, struct md_cur *c,
		       struct md_record *rec)
{
	struct md_note *n = &rec->u.note;

	if (r->hdr.version < 4) {
		n->text = md_cur_str(c);
		if (!c->err)
			note_infer(r, n);
		return c->err;
	}
	n->kind = md_cur_u32(c);
	if (md_cur_u32(c))
		md_cur_fail(c, "note with a non-zero reserved field");
	n->subject = md_cur_str(c);
	n->text = md_cur_str(c);
	return c->err;
}

/* With o->verbose, the kind and subject the record stores on a line of
 * their own (none for a file of version 3 or older: it stores neither,
 * dump shows what the file holds). */
static void print_note(FILE *out, const struct md_record *rec, const char *name,
		       const struct md_print_opts *o)
{
	const struct md_note *n = &rec->u.note;

	fprintf(out, "%s ", name);
	fputs_escaped(n->text, out);
	fputc('\n', out);
	if (!o->verbose || n->kind_inferred)
		return;
	fprintf(out, "    kind %u %s", n->kind, md_note_kind_name(n->kind));
	if (n->subject[0]) {
		fputs(" subject ", out);
		fputs_escaped(n->subject, out);
	}
	fputc('\n', out);
}

/* --- NOTE_VALUES: u32 kind, u32 count, count u64 values (a new type:
 * an older reader skips it by its size) --- */

static void encode_note_values(struct md_buf *b, const struct md_record *rec)
{
	const struct md_note_values *v = &rec->u.note_values;

	md_buf_u32(b, v->kind);
	md_buf_u32(b, v->nvals);
	for (uint32_t i = 0; i < v->nvals; i++)
		md_buf_u64(b, v->vals[i]);
}

static int decode_note_values(struct md_reader *r, struct md_cur *c,
			      struct md_record *rec)
{
	struct md_note_values *v = &rec->u.note_values;
	uint32_t count;

	(void)r;
	v->kind = md_cur_u32(c);
	count = md_cur_u32(c);
	v->nvals = 0;
	v->nwritten = count;
	/* a count short of the record leaves bytes after the fields, one
	 * past it runs out of them: damage either way (md_read_next) */
	for (uint32_t i = 0; i < count && !c->err; i++) {
		uint64_t x = md_cur_u64(c);

		if (i < MD_NOTE_MAX_VALS)
			v->vals[v->nvals++] = x;
	}
	return c->err;
}

static void print_note_values(FILE *out, const struct md_record *rec,
			      const char *name, const struct md_print_opts *o)
{
	const struct md_note_values *v = &rec->u.note_values;

	(void)o;
	fprintf(out, "%s kind %u %s", name, v->kind,
		md_note_kind_name(v->kind));
	for (uint32_t i = 0; i < v->nvals; i++)
		fprintf(out, " %" PRIu64, v->vals[i]);
	if (v->nwritten > v->nvals)
		fprintf(out, " (and %" PRIu64 " more)", v->nwritten - v->nvals);
	fputc('\n', out);
}

/* --- JITMAP --- */

static void encode_jitmap(struct md_buf *b, const struct md_record *rec)
{
	const struct md_jitmap *r = &rec->u.jitmap;

	md_buf_u64(b, r->time);
	md_buf_u32(b, r->pid);
	md_buf_u32(b, r->nsyms);
	for (uint32_t i = 0; i < r->nsyms; i++) {
		md_buf_u64(b, r->syms[i].start);
		md_buf_u64(b, r->syms[i].size);
		md_buf_str(b, r->syms[i].name);
	}
}

/* The smallest encoded JIT symbol: start, size and an empty string. */
#define MD_JIT_SYM_MIN 24

static int decode_jitmap(struct md_reader *r, struct md_cur *c,
			 struct md_record *rec)
{
	struct md_jitmap *j = &rec->u.jitmap;

	j->time = md_cur_u64(c);
	j->pid = md_cur_u32(c);
	j->nsyms = md_cur_u32(c);
	if (c->err)
		return c->err;
	if (!j->nsyms || j->nsyms > MD_JITMAP_MAX_SYMS ||
	    j->nsyms > (c->len - c->pos) / MD_JIT_SYM_MIN) {
		md_cur_fail(c, "JIT symbol count empty or past the record");
		return c->err;
	}
	xgrow(&r->jit, &r->jit_cap, j->nsyms, sizeof(*r->jit));
	for (uint32_t i = 0; i < j->nsyms; i++) {
		struct md_jit_sym *s = &r->jit[i];

		s->start = md_cur_u64(c);
		s->size = md_cur_u64(c);
		s->name = md_cur_str(c);
		if (c->err)
			return c->err;
		if (!s->size || s->start + s->size < s->start) {
			md_cur_fail(c, "JIT symbol empty or wrapping");
			return c->err;
		}
	}
	j->syms = r->jit;
	return 0;
}

/* With o->verbose, each symbol on a line. */
static void print_jitmap(FILE *out, const struct md_record *rec,
			 const char *name, const struct md_print_opts *o)
{
	const struct md_jitmap *j = &rec->u.jitmap;

	md_print_time(out, j->time);
	fprintf(out, "%s pid %u symbols %u\n", name, j->pid, j->nsyms);
	for (uint32_t i = 0; o->verbose && i < j->nsyms; i++) {
		fprintf(out, "    0x%" PRIx64 " 0x%" PRIx64 " ",
			j->syms[i].start, j->syms[i].size);
		fputs_escaped(j->syms[i].name, out);
		fputc('\n', out);
	}
}

/* --- END: what the writer wrote before it --- */

static void encode_end(struct md_buf *b, const struct md_record *rec)
{
	md_buf_u64(b, rec->u.end.time);
	md_buf_u64(b, rec->u.end.nrecords);
	md_buf_u64(b, rec->u.end.nsamples);
}

static int decode_end(struct md_reader *r, struct md_cur *c,
		      struct md_record *rec)
{
	rec->u.end.time = md_cur_u64(c);
	rec->u.end.nrecords = md_cur_u64(c);
	rec->u.end.nsamples = md_cur_u64(c);
	if (!c->err && (rec->u.end.nrecords != r->nrecords ||
			rec->u.end.nsamples != r->nsamples))
		md_cur_fail(c, "the END record counts other records than the "
			       "file holds");
	return c->err;
}

static void print_end(FILE *out, const struct md_record *rec, const char *name,
		      const struct md_print_opts *o)
{
	(void)o;
	md_print_time(out, rec->u.end.time);
	fprintf(out, "%s records %" PRIu64 " samples %" PRIu64 "\n", name,
		rec->u.end.nrecords, rec->u.end.nsamples);
}

/* --- the table --- */

static const struct md_rectype rectypes[MD_REC__COUNT] = {
    [MD_REC_IMAGE] = {"IMAGE", encode_image, decode_image, print_image},
    [MD_REC_MMAP2] = {"MMAP2", encode_mmap2, decode_mmap2, print_mmap2},
    [MD_REC_COMM] = {"COMM", encode_task, decode_task, print_comm},
    [MD_REC_FORK] = {"FORK", encode_task, decode_task, print_fork},
    [MD_REC_EXIT] = {"EXIT", encode_task, decode_task, print_fork},
    [MD_REC_LOST] = {"LOST", encode_lost, decode_lost, print_lost},
    [MD_REC_SNAP_BEGIN] = {"SNAP_BEGIN", encode_snap_begin, decode_snap_begin,
			   print_snap_begin},
    /* written piecewise: md_mapping_begin/add/end */
    [MD_REC_SNAP_MAPPING] = {"SNAP_MAPPING", NULL, md_mapping_decode,
			     md_print_mapping},
    [MD_REC_SNAP_END] = {"SNAP_END", encode_snap_end, decode_snap_end,
			 print_snap_end},
    [MD_REC_NOTE] = {"NOTE", encode_note, decode_note, print_note},
    [MD_REC_MUNMAP] = {"MUNMAP", encode_mmap2, decode_mmap2, print_mmap2},
    /* written in batches: md_write_sample */
    [MD_REC_SAMPLE] = {"SAMPLE", NULL, md_sample_decode, md_print_sample},
    [MD_REC_JITMAP] = {"JITMAP", encode_jitmap, decode_jitmap, print_jitmap},
    /* a container the reader opens: its records are handed out */
    [MD_REC_PACKED] = {"PACKED", NULL, NULL, NULL},
    [MD_REC_END] = {"END", encode_end, decode_end, print_end},
    [MD_REC_CMDLINE] = {"CMDLINE", encode_task, decode_task, print_comm},
    [MD_REC_CGROUP] = {"CGROUP", md_cgroup_encode, md_cgroup_decode,
		       md_cgroup_print},
    [MD_REC_SNAP_CHARGE] = {"SNAP_CHARGE", md_snap_charge_encode,
			    md_snap_charge_decode, md_snap_charge_print},
    [MD_REC_FILE_CACHE] = {"FILE_CACHE", md_file_cache_encode,
			   md_file_cache_decode, md_file_cache_print},
    [MD_REC_MACHINE] = {"MACHINE", md_machine_encode, md_machine_decode,
			md_machine_print},
    [MD_REC_NOTE_VALUES] = {"NOTE_VALUES", encode_note_values,
			    decode_note_values, print_note_values},
    [MD_REC_IMAGE_KIND] = {"IMAGE_KIND", encode_image_kind, decode_image_kind,
			   print_image_kind},
};

const struct md_rectype *md_rectype_of(uint32_t type)
{
	return type < MD_REC__COUNT && rectypes[type].name ? &rectypes[type]
							   : NULL;
}

const char *md_rec_name(uint32_t type)
{
	const struct md_rectype *t = md_rectype_of(type);

	return t ? t->name : "UNKNOWN";
}

void md_record_print(FILE *out, const struct md_record *rec, bool verbose,
		     uint32_t page_size)
{
	const struct md_rectype *t = md_rectype_of(rec->type);
	struct md_print_opts o = {verbose, page_size};

	fprintf(out, "0x%" PRIx64 " [0x%" PRIx64 "]: ", rec->offset, rec->size);
	if (t && t->print)
		t->print(out, rec, t->name, &o);
	else
		fprintf(out, "UNKNOWN type %u\n", (unsigned)rec->type);
}

/* --- the typed writers: a record of each type with a plain encoding --- */

int md_write_image(struct md_writer *w, const struct md_image *r)
{
	struct md_record rec = {.type = MD_REC_IMAGE, .u.image = *r};
	struct md_record kind = {
	    .type = MD_REC_IMAGE_KIND,
	    .u.image_kind = {.id = r->id, .kind = r->kind},
	};
	int ret;

	if (r->kind >= MD_IMAGE__COUNT)
		return -EINVAL;
	ret = md_write_record(w, &rec);
	/* an unknown kind is what no record says: left out */
	if (ret < 0 || r->kind == MD_IMAGE_UNKNOWN)
		return ret;
	return md_write_record(w, &kind);
}

int md_write_mmap2(struct md_writer *w, const struct md_mmap2 *r)
{
	struct md_record rec = {.type = MD_REC_MMAP2, .u.mmap2 = *r};

	return md_write_record(w, &rec);
}

int md_write_munmap(struct md_writer *w, const struct md_mmap2 *r)
{
	struct md_record rec = {.type = MD_REC_MUNMAP, .u.mmap2 = *r};

	return md_write_record(w, &rec);
}

int md_write_task(struct md_writer *w, enum md_rec_type type,
		  const struct md_task *r)
{
	const struct md_rectype *t = md_rectype_of(type);
	struct md_record rec = {.type = type, .u.task = *r};

	if (!t || t->encode != encode_task)
		return -EINVAL;
	return md_write_record(w, &rec);
}

int md_write_lost(struct md_writer *w, const struct md_lost *r)
{
	struct md_record rec = {.type = MD_REC_LOST, .u.lost = *r};

	return md_write_record(w, &rec);
}

int md_write_snap_begin(struct md_writer *w, const struct md_snap_begin *r)
{
	struct md_record rec = {.type = MD_REC_SNAP_BEGIN, .u.snap_begin = *r};

	if (w)
		md_map_prev_reset(&w->mprev);
	/* an older version's reader would not know that the snapshot
	 * stands for mapping records: refuse rather than lose them */
	if (w && w->version < 7 && (r->flags & MD_SNAP_F_MAPS))
		return -EINVAL;
	return md_write_record(w, &rec);
}

int md_write_snap_end(struct md_writer *w, const struct md_snap_end *r)
{
	struct md_record rec = {.type = MD_REC_SNAP_END, .u.snap_end = *r};

	return md_write_record(w, &rec);
}

int md_write_note_kind(struct md_writer *w, enum md_note_kind kind,
		       const char *subject, const char *text)
{
	return md_write_note_vals(w, kind, subject, text, NULL, 0);
}

int md_write_note_vals(struct md_writer *w, enum md_note_kind kind,
		       const char *subject, const char *text,
		       const uint64_t *vals, uint32_t n)
{
	struct md_record rec = {.type = MD_REC_NOTE};
	int ret;

	if ((unsigned)kind >= MD_NOTE__COUNT || n > MD_NOTE_MAX_VALS)
		return -EINVAL;
	rec.u.note = (struct md_note){.kind = kind,
				      .subject = subject ? subject : "",
				      .text = text ? text : ""};
	ret = md_write_record(w, &rec);
	if (ret < 0 || !n)
		return ret;
	rec = (struct md_record){.type = MD_REC_NOTE_VALUES};
	rec.u.note_values = (struct md_note_values){.kind = kind, .nvals = n};
	memcpy(rec.u.note_values.vals, vals, n * sizeof(*vals));
	return md_write_record(w, &rec);
}

int md_write_jitmap(struct md_writer *w, const struct md_jitmap *r)
{
	struct md_record rec = {.type = MD_REC_JITMAP, .u.jitmap = *r};

	if (!r->nsyms || r->nsyms > MD_JITMAP_MAX_SYMS || !r->syms)
		return -EINVAL;
	for (uint32_t i = 0; i < r->nsyms; i++)
		if (!r->syms[i].size ||
		    r->syms[i].start + r->syms[i].size < r->syms[i].start)
			return -EINVAL;
	return md_write_record(w, &rec);
}
