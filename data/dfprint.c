// SPDX-License-Identifier: GPL-2.0-or-later
/* dfprint.c — what the record types' printers (the print column of the
 * record table, dfrecords.c) share: times, build-ids, permissions and
 * flag names as `memsz dump` shows them. */
#include "config.h"

#include "data/dfcodec.h"
#include "util/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <sys/mman.h>

static const struct flag_name {
	uint32_t bit;
	const char *name;
} page_flags[] =
    {
	{MD_PG_PRESENT, "present"},
	{MD_PG_SWAPPED, "swapped"},
	{MD_PG_FILE, "file"},
	{MD_PG_EXCLUSIVE, "excl"},
	{MD_PG_SOFTDIRTY, "softdirty"},
	{MD_PG_DIRTY, "dirty"},
	{MD_PG_ANON, "anon"},
	{MD_PG_SWAPBACKED, "swapbacked"},
	{MD_PG_KSM, "ksm"},
	{MD_PG_THP, "thp"},
	{MD_PG_HUGE, "huge"},
	{MD_PG_ZERO, "zero"},
	{MD_PG_IDLE, "idle"},
	{MD_PG_PRIVATE_DIRTY, "pdirty"},
	{MD_PG_SHARED_DIRTY, "sdirty"},
	{MD_PG_PMD, "pmd"},
	{MD_PG_OBJ_SWAPPED, "objswapped"},
},
  snap_flags[] = {
      {MD_SNAP_F_PFN, "pfn"},
      {MD_SNAP_F_KPAGEFLAGS, "kpageflags"},
      {MD_SNAP_F_FROZEN, "frozen"},
      {MD_SNAP_F_AT_EXIT, "at-exit"},
      {MD_SNAP_F_PAGEMAP_SCAN, "pagemap-scan"},
      {MD_SNAP_F_OBSERVER_FREE, "observer-free"},
      {MD_SNAP_F_GROWTH, "growth"},
      {MD_SNAP_F_PMD, "pmd"},
      {MD_SNAP_F_LOCKED, "locked"},
      {MD_SNAP_F_MAPS, "maps"},
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

void md_print_time(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%09" PRIu64 " ", ns / NSEC_PER_SEC,
		ns % NSEC_PER_SEC);
}

void md_print_build_id(FILE *out, const uint8_t *id, uint32_t len)
{
	if (!len) {
		fputc('-', out);
		return;
	}
	for (uint32_t i = 0; i < len; i++)
		fprintf(out, "%02x", id[i]);
}

void md_print_perms(FILE *out, uint32_t prot, uint32_t flags)
{
	fprintf(out, "%c%c%c%c", prot & PROT_READ ? 'r' : '-',
		prot & PROT_WRITE ? 'w' : '-', prot & PROT_EXEC ? 'x' : '-',
		flags & MAP_SHARED ? 's' : 'p');
}

void md_print_page_flags(FILE *out, uint32_t flags)
{
	print_flags(out, page_flags, ARRAY_SIZE(page_flags), flags);
}

void md_print_snap_flags(FILE *out, uint32_t flags)
{
	print_flags(out, snap_flags, ARRAY_SIZE(snap_flags), flags);
}
