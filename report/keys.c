// SPDX-License-Identifier: GPL-2.0-or-later
/* keys.c — see keys.h */
#include "config.h"

#include "report/keys.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "elf/imagemaps.h"
#include "maps/labels.h"
#include "rows/rows.h"
#include "report/attrib.h"
#include "util/strbuf.h"
#include "util/util.h"

#define BOTH (KEY_IN_SIZE | KEY_IN_REPORT)

/* pids: "PID name" at position PID (--sort addr), where name is the
 * process's last command line, whole (csv and json keep it so; the table
 * cuts its end to fit: KEYF_CUT_END), else its command name. */
static uint32_t label_pid(const struct key_at *at)
{
	struct key_proc *kp = at->proc;
	const char *name = kp->cmdline && kp->cmdline[0] ? kp->cmdline
			   : kp->comm			 ? kp->comm
							 : "";
	char *s;

	if (kp->labels[KEY_PIDS] != LABEL_NONE)
		return kp->labels[KEY_PIDS];
	if (!name[0])
		s = xasprintf("%u", kp->pid);
	else
		s = xasprintf("%u %s", kp->pid, name);
	kp->labels[KEY_PIDS] = labels_intern(at->lb, s);
	labels_set_pos(at->lb, kp->labels[KEY_PIDS], kp->pid);
	free(s);
	return kp->labels[KEY_PIDS];
}

/* comms: the command name ("[unknown]" without one). */
static uint32_t label_comm(const struct key_at *at)
{
	struct key_proc *kp = at->proc;

	if (kp->labels[KEY_COMMS] == LABEL_NONE)
		kp->labels[KEY_COMMS] = labels_intern(
		    at->lb, kp->comm && kp->comm[0] ? kp->comm : "[unknown]");
	return kp->labels[KEY_COMMS];
}

/* users: the owner ("[unknown user]" if not recorded). */
static uint32_t label_user(const struct key_at *at)
{
	struct key_proc *kp = at->proc;

	if (kp->labels[KEY_USERS] == LABEL_NONE)
		kp->labels[KEY_USERS] = labels_intern(
		    at->lb, kp->user ? kp->user : "[unknown user]");
	return kp->labels[KEY_USERS];
}

/* files: the file, or the kind of anonymous memory. */
static uint32_t label_file(const struct key_at *at)
{
	return at->file_label;
}

/* armembers: the member of an archive, "[AR Headers]" and the like
 * for the archive's own bytes; the file itself for any other file. */
static uint32_t label_member(const struct key_at *at)
{
	return at->member_label;
}

/* mappings: "start-end perms name", as /proc/PID/maps has them (the
 * kernel's %08lx: at least 8 hex digits), at position start (--sort addr:
 * in address order, as pmap lists them). */
static uint32_t label_mapping(const struct key_at *at)
{
	const struct attrib_map *m = at->map;
	char *s;
	uint32_t id;

	s = xasprintf(
	    "%08" PRIx64 "-%08" PRIx64 " %c%c%c%c %s", m->start, m->end,
	    m->prot & PROT_READ ? 'r' : '-', m->prot & PROT_WRITE ? 'w' : '-',
	    m->prot & PROT_EXEC ? 'x' : '-', m->flags & MAP_SHARED ? 's' : 'p',
	    m->name && m->name[0] ? m->name : "[anon]");
	id = labels_intern(at->lb, s);
	labels_set_pos(at->lb, id, m->start); /* --sort addr */
	free(s);
	return id;
}

/* callers: the stack of the fault that made the page resident. */
static uint32_t label_callers(const struct key_at *at)
{
	return at->callers;
}

/* faultsite: that stack's first frame that is the program's. */
static uint32_t label_site(const struct key_at *at)
{
	return at->site;
}

#define PROC KEY_NEEDS_PROCS
#define FAULTS KEY_NEEDS_FAULTS

const struct keydef keydefs[KEY__COUNT] = {
    [KEY_PIDS] = {"pids", label_pid, KEYMAP_NONE, -1, PROC,
		  KEYF_PID_LABEL | KEYF_CUT_END, 0, KEY_IN_REPORT,
		  "each process, as 'PID name' (its command line, "
		  "else its command name)"},
    [KEY_COMMS] = {"comms", label_comm, KEYMAP_NONE, -1, PROC, 0, 0,
		   KEY_IN_REPORT,
		   "processes grouped by command name (comm), like "
		   "smem -P"},
    [KEY_USERS] = {"users", label_user, KEYMAP_NONE, -1, PROC, 0, 0,
		   KEY_IN_REPORT,
		   "the owner of each process (user name, or 'uid N'; "
		   "'[unknown user]' if not recorded)"},
    [KEY_FILES] = {"files", label_file, KEYMAP_NONE, -1, 0, KEYF_FILE_PATH, 0,
		   BOTH,
		   "each file (image) by path; anonymous memory by "
		   "kind"},
    [KEY_INPUTFILES] = {"inputfiles", label_file, KEYMAP_NONE, -1, 0,
			KEYF_FILE_PATH, 0, KEY_IN_SIZE,
			"each FILE given, an archive as a whole (as files; "
			"Bloaty's name)"},
    [KEY_ARMEMBERS] = {"armembers", label_member, KEYMAP_NONE, -1, 0,
		       KEYF_FILE_PATH, 0, KEY_IN_SIZE,
		       "each member of a static archive (lib.a) as 'ar t' "
		       "names it, its headers '[AR Headers]', its symbol "
		       "index '[AR Symbol Table]'; any other file whole"},
    [KEY_MAPPINGS] = {"mappings", label_mapping, KEYMAP_NONE, -1, PROC,
		      KEYF_BY_RANGE, 0, KEY_IN_REPORT,
		      "each mapping: address range (as /proc/PID/maps "
		      "prints it), permissions, name (--sort addr: by "
		      "address, as pmap -x)"},
    [KEY_SEGMENTS] = {"segments", NULL, KEYMAP_ELF, ELFSRC_SEGMENTS, 0, 0, 0,
		      BOTH, "PT_LOAD segments ('LOAD #n [RX]')"},
    [KEY_SECTIONS] = {"sections", NULL, KEYMAP_ELF, ELFSRC_SECTIONS, 0, 0, 0,
		      BOTH, "ELF sections"},
    [KEY_SYMBOLS] = {"symbols", NULL, KEYMAP_ELF, ELFSRC_SYMBOLS, KEY_NEEDS_JIT,
		     KEYF_ALIASES | KEYF_NAMES_CODE, 0, BOTH,
		     "symbols (demangled; .symtab, a debug file's, or "
		     ".dynsym and .gnu_debugdata's), with their metadata "
		     "(unwind, symbol tables, relocations)"},
    [KEY_KINDS] = {"kinds", NULL, KEYMAP_KINDS, -1, 0, 0, 0, KEY_IN_REPORT,
		   "what the memory is: code, read-only data, data, "
		   "bss, heap, stack, anon, shared..."},
    [KEY_BBS] = {"bbs", NULL, KEYMAP_ELF, ELFSRC_BBS, 0, 0, 0, BOTH,
		 "basic blocks (SHT_LLVM_BB_ADDR_MAP, clang "
		 "-fbasic-block-sections=labels)"},
    [KEY_RELOCS] = {"relocs", NULL, KEYMAP_RELOCS, ELFSRC_RELOCS, 0, 0,
		    1u << COL_RELOCS, BOTH,
		    "relocation tables by type; resident, the pages "
		    "that relocations dirtied"},
    [KEY_COMPILEUNITS] = {"compileunits", NULL, KEYMAP_ELF, ELFSRC_COMPILEUNITS,
			  0, KEYF_ALIASES, 0, BOTH,
			  "DWARF compile units (source files)"},
    [KEY_INLINES] = {"inlines", NULL, KEYMAP_ELF, ELFSRC_INLINES, 0, 0, 0, BOTH,
		     "DWARF line table: the source line of each "
		     "byte, inlined code included"},
    [KEY_CALLERS] = {"callers", label_callers, KEYMAP_NONE, -1, FAULTS, 0, 0,
		     KEY_IN_REPORT,
		     "call stack of the page fault that made a page "
		     "resident (record --faults)"},
    [KEY_FAULTSITE] = {"faultsite", label_site, KEYMAP_NONE, -1, FAULTS, 0, 0,
		       KEY_IN_REPORT,
		       "first frame of that fault's stack that is the "
		       "program's: past malloc, memset and the like "
		       "(--skip-frames)"},
};

void keys_proc_init(struct key_proc *kp, uint32_t pid)
{
	*kp = (struct key_proc){.pid = pid};
	for (int k = 0; k < KEY__COUNT; k++)
		kp->labels[k] = LABEL_NONE;
}

unsigned keys_needs(const enum key_id *keys, size_t n)
{
	unsigned needs = 0;

	for (size_t i = 0; i < n; i++)
		needs |= keydefs[keys[i]].needs;
	return needs;
}

unsigned keys_cols_missing(const enum key_id *keys, size_t n)
{
	unsigned cols = 0;

	for (int k = 0; k < KEY__COUNT; k++)
		cols |= keydefs[k].cols;
	for (size_t i = 0; i < n; i++)
		cols &= ~keydefs[keys[i]].cols;
	return cols;
}

enum key_id keys_of_col(unsigned col)
{
	int k = 0;

	while (k < KEY__COUNT && !(keydefs[k].cols & (1u << col)))
		k++;
	return (enum key_id)k;
}

enum key_id keys_code_key(void)
{
	int k = 0;

	while (k < KEY__COUNT - 1 && !(keydefs[k].flags & KEYF_NAMES_CODE))
		k++;
	return (enum key_id)k;
}

static const char *key_name_at(int k)
{
	return keydefs[k].name;
}

int keys_parse(const char *spec, unsigned cmd, enum key_id *keys, char **bad)
{
	int idx[KEYS_MAX];
	int n =
	    keylist_parse(spec, key_name_at, KEY__COUNT, idx, KEYS_MAX, bad);

	for (int i = 0; i < n; i++) {
		if (!(keydefs[idx[i]].cmds & cmd)) {
			*bad = xstrdup(keydefs[idx[i]].name);
			return -1;
		}
		keys[i] = (enum key_id)idx[i];
	}
	return n;
}

const char *keys_list(unsigned cmd)
{
	static char *lists[BOTH + 1];
	size_t len = 0;

	if (lists[cmd])
		return lists[cmd];
	for (int k = 0; k < KEY__COUNT; k++)
		if (keydefs[k].cmds & cmd)
			len += strlen(keydefs[k].name) + 2;
	lists[cmd] = xcalloc(1, len + 1);
	for (int k = 0; k < KEY__COUNT; k++) {
		if (!(keydefs[k].cmds & cmd))
			continue;
		if (lists[cmd][0])
			strcat(lists[cmd], ", ");
		strcat(lists[cmd], keydefs[k].name);
	}
	return lists[cmd];
}

void keys_print(FILE *out, unsigned cmd)
{
	for (int k = 0; k < KEY__COUNT; k++)
		if (keydefs[k].cmds & cmd)
			fprintf(out, "%-14s %s\n", keydefs[k].name,
				keydefs[k].help);
}

bool keys_label_is_fallback(enum key_id k, const char *label)
{
	return keydefs[k].elfsrc >= 0 &&
	       elf_label_is_fallback(keydefs[k].elfsrc, label);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

char *keys_fallback_note(const char *prefix, enum key_id k, size_t n,
			 const uint64_t *bytes, const uint64_t *total,
			 const char *const *names)
{
	struct strbuf sb = STRBUF_INIT;

	if (prefix)
		strbuf_addf(&sb, "%s: ", prefix);
	strbuf_addf(&sb, "%s:", keydefs[k].name);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s %llu%s (%.1f%%) of %s", i ? "," : "",
			    (unsigned long long)bytes[i], i ? "" : " bytes",
			    pct(bytes[i], total[i]), names[i]);
	strbuf_adds(&sb, " under fallback labels");
	return strbuf_detach(&sb);
}
