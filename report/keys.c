/* keys.c — see keys.h */
#include "config.h"

#include "report/keys.h"

#include <stdlib.h>
#include <string.h>

#include "elf/imagemaps.h"
#include "util/strbuf.h"
#include "util/util.h"

#define BOTH (KEY_IN_SIZE | KEY_IN_REPORT)

const struct keydef keydefs[KEY__COUNT] = {
	[KEY_PIDS] = { "pids", KEYSP_PROCESS, KEYMAP_NONE, -1, KEY_IN_REPORT,
		       "each process, as 'PID name' (its command line, "
		       "else its command name)" },
	[KEY_COMMS] = { "comms", KEYSP_PROCESS, KEYMAP_NONE, -1,
			KEY_IN_REPORT,
			"processes grouped by command name (comm), like "
			"smem -P" },
	[KEY_USERS] = { "users", KEYSP_PROCESS, KEYMAP_NONE, -1, KEY_IN_REPORT,
			"the owner of each process (user name, or 'uid N'; "
			"'[unknown user]' if not recorded)" },
	[KEY_FILES] = { "files", KEYSP_FILE, KEYMAP_NONE, -1, BOTH,
			"each file (image) by path; anonymous memory by "
			"kind" },
	[KEY_MAPPINGS] = { "mappings", KEYSP_PROCESS, KEYMAP_NONE, -1,
			   KEY_IN_REPORT,
			   "each mapping: address range, permissions, "
			   "offset, name" },
	[KEY_SEGMENTS] = { "segments", KEYSP_IMAGE, KEYMAP_ELF,
			   ELFSRC_SEGMENTS, BOTH,
			   "PT_LOAD segments ('LOAD #n [RX]')" },
	[KEY_SECTIONS] = { "sections", KEYSP_IMAGE, KEYMAP_ELF,
			   ELFSRC_SECTIONS, BOTH, "ELF sections" },
	[KEY_SYMBOLS] = { "symbols", KEYSP_IMAGE, KEYMAP_ELF, ELFSRC_SYMBOLS,
			  BOTH,
			  "symbols (demangled), with their metadata "
			  "(unwind, symbol tables, relocations)" },
	[KEY_KINDS] = { "kinds", KEYSP_IMAGE, KEYMAP_KINDS, -1, KEY_IN_REPORT,
			"what the memory is: code, read-only data, data, "
			"bss, heap, stack, anon, shared..." },
	[KEY_BBS] = { "bbs", KEYSP_IMAGE, KEYMAP_ELF, ELFSRC_BBS, BOTH,
		      "basic blocks (SHT_LLVM_BB_ADDR_MAP, clang "
		      "-fbasic-block-sections=labels)" },
	[KEY_RELOCS] = { "relocs", KEYSP_IMAGE, KEYMAP_RELOCS, ELFSRC_RELOCS,
			 BOTH,
			 "relocation tables by type; resident, the pages "
			 "that relocations dirtied" },
	[KEY_COMPILEUNITS] = { "compileunits", KEYSP_IMAGE, KEYMAP_ELF,
			       ELFSRC_COMPILEUNITS, BOTH,
			       "DWARF compile units (source files)" },
	[KEY_INLINES] = { "inlines", KEYSP_IMAGE, KEYMAP_ELF,
			  ELFSRC_INLINES, BOTH,
			  "DWARF line table: the source line of each "
			  "byte, inlined code included" },
	[KEY_CALLERS] = { "callers", KEYSP_FAULT, KEYMAP_NONE, -1,
			  KEY_IN_REPORT,
			  "call stack of the page fault that made a page "
			  "resident (record --faults)" },
	[KEY_FAULTSITE] = { "faultsite", KEYSP_FAULT, KEYMAP_NONE, -1,
			    KEY_IN_REPORT,
			    "first frame of that fault's stack that is the "
			    "program's: past malloc, memset and the like "
			    "(--skip-frames)" },
};

static const char *key_name_at(int k)
{
	return keydefs[k].name;
}

int keys_parse(const char *spec, unsigned cmd, enum key_id *keys,
	       char **bad)
{
	int idx[KEYS_MAX];
	int n = keylist_parse(spec, key_name_at, KEY__COUNT, idx, KEYS_MAX,
			      bad);

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
