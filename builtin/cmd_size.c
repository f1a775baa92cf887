// SPDX-License-Identifier: GPL-2.0-or-later
/* cmd_size.c — `memsz size`: on-disk size of ELF files and static archives,
 * Bloaty-like. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "builtin/view.h"
#include "elf/elfimg.h"
#include "rows/rows.h"
#include "report/ondisk.h"
#include "util/util.h"

/* The free space malloc keeps at the top of its heap (M_TOP_PAD): size's
 * arrays of a few hundred KiB (symbols, map entries, references, read
 * windows) are freed and asked for again phase after phase. With glibc's
 * 128 KiB, once the top was used up each was a fresh mmap (or an mremap
 * as it grew) whose pages faulted in again: with 4 MiB they come from the
 * heap and reuse its pages. `size --by symbols` of libc.so.6: 830 -> 763
 * page faults, some 0.4 ms of 8 of CPU; peak RSS 46.2 -> 46.6 MiB on
 * node, 66.0 -> 66.5 MiB on libjvm by compileunits,symbols. (A mmap
 * threshold raised to 1 MiB as well saved 60 faults more but cost node
 * and libjvm 1 and 3 MiB.) Setting M_TOP_PAD also fixes glibc's mmap
 * threshold at 128 KiB (no longer raised by frees, see mallopt(3)): a
 * request the top cannot cover is still mmapped. */
#define SIZE_TOP_PAD (4 << 20)

/* size's own option ids. */
enum { SIZE_OPT_DEBUG_FILE = VIEW_OPT__END, SIZE_OPT_DEMANGLE };

/* --debug-file values, in the order given; --demangle. */
struct size_ctx {
	const char **debug_files;
	size_t n, cap;
	unsigned demangle; /* enum elf_demangle_style */
};

/* --demangle's values, as Bloaty names them. */
static const char *const demangle_names[] = {
    [ELF_DEMANGLE_FULL] = "full",
    [ELF_DEMANGLE_SHORT] = "short",
    [ELF_DEMANGLE_NONE] = "none",
};

static const char *size_keys(void)
{
	return keys_list(KEY_IN_SIZE);
}

static const struct opt size_opts[] = {
    VIEW_ROW_BY("keys, outermost first (at most 8; default: sections):",
		size_keys),
    VIEW_ROW_LIST_KEYS,
    VIEW_ROW_FIELDS("columns and their order: file, vm\n"
		    "(default both; folded: the first)"),
    VIEW_ROW_LIMIT("rows per level, the rest folded into\n"
		   "'[N others]' (table default 20; csv,\n"
		   "tsv and json: all unless given; 0: all)"),
    VIEW_ROW_SORT("sort rows by file (default: the first\n"
		  "of --fields) or vm size, largest\n"
		  "first, by both (the larger of the\n"
		  "two, as Bloaty's -s both), or by name\n"
		  "(every row unless -n)"),
    VIEW_ROW_FILTER,
    VIEW_ROW_WIDTH,
    VIEW_ROW_VERBOSE,
    VIEW_ROW_FORMAT("table (default), csv, tsv, json,\n"
		    "folded ('a;b;c BYTES' lines of the\n"
		    "--sort column, for flame graphs,\n"
		    "all rows),\n"
		    "pprof (gzipped profile.proto, a\n"
		    "sample type per field, all rows;\n"
		    "redirect it) or html (one offline\n"
		    "page with a treemap; its title\n"
		    "escaped as the table's labels)"),
    VIEW_ROW_DEBUG_ROOT,
    {0, "debug-file", OPT_ARG, "FILE", SIZE_OPT_DEBUG_FILE,
     "a separate debug file to use, before\n"
     "the search, for the FILE whose build-id\n"
     "(or debuglink CRC) it matches;\n"
     "repeatable; one matching no FILE is\n"
     "named in a note",
     NULL},
    {0, "demangle", OPT_ARG, "HOW", SIZE_OPT_DEMANGLE,
     "symbol names: full (default, as\n"
     "c++filt), short (without parameter\n"
     "lists, as c++filt -p) or none (as\n"
     "stored)",
     NULL},
    VIEW_ROW_DISASM,
    OPT_END,
};

const struct opts_cmd size_cmd = {
    .name = "size",
    .synopsis =
	"usage: memsz size [--by KEY[,KEY...]]"
	" [-F|--fields COL[,COL...]]\n"
	"                  [-n N] [--sort file|vm|both|name]"
	" [--filter [KEY=]REGEX]...\n"
	"                  [--exclude [KEY=]REGEX]... [--width N]"
	" [-v]\n"
	"                  [--format table|csv|tsv|json|folded|pprof|html]\n"
	"                  [--debug-root DIR] [--debug-file FILE]..."
	" [--no-disasm]\n"
	"                  [--demangle full|short|none] FILE...\n"
	"       memsz size --list-keys\n",
    .about = "Attribute every byte of each ELF FILE (a static archive: of\n"
	     "each member), on disk (FILE SIZE) and as mapped (VM SIZE), to\n"
	     "the labels of the chosen keys. A file given twice, or under\n"
	     "two names (a link), is read once.\n",
    .opts = size_opts,
    .col = VIEW_HELP_COL,
    .footer = VIEW_HELP_DEBUGINFOD,
};

void usage_size(FILE *out)
{
	opts_usage(&size_cmd, out);
}

/* The build-id of the ELF file at path as lowercase hex ("" if it has
 * none or cannot be read): pprof names each file's mapping by it.
 * Caller frees. */
static char *build_id_hex(const char *path)
{
	uint8_t id[64];
	struct stat st;
	char *hex;
	int fd = elf_file_open(path, &st); /* never a device swapped in */
	int n = fd < 0 ? 0 : elf_build_id_read(fd, id, sizeof(id));

	if (fd >= 0)
		close(fd);
	hex = xcalloc(1, 2 * (n > 0 ? n : 0) + 1);
	for (int i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	return hex;
}

/* size's own options: --debug-file, --demangle. */
static int size_option(int id, const char *arg, struct view *v, void *ctx)
{
	struct size_ctx *c = ctx;
	struct stat st;

	if (id == SIZE_OPT_DEMANGLE) {
		for (size_t i = 0; i < ARRAY_SIZE(demangle_names); i++)
			if (!strcmp(arg, demangle_names[i])) {
				c->demangle = i;
				return -1;
			}
		return view_usage_error(v,
					"--demangle: '%s' is not full, "
					"short or none",
					arg);
	}
	if (id != SIZE_OPT_DEBUG_FILE)
		return view_usage_error(v, "unknown option; see 'memsz help "
					   "size'");
	/* a debug file the user names and that is not there is a mistake to
	 * say, not a candidate to pass over as the search's are */
	if (stat(arg, &st) < 0) {
		char *msg = xasprintf("cannot read --debug-file '%s': %s", arg,
				      strerror(errno));

		view_error(v->fmt, msg);
		free(msg);
		return 1;
	}
	xgrow(&c->debug_files, &c->cap, c->n + 1, sizeof(*c->debug_files));
	c->debug_files[c->n++] = arg;
	return -1;
}

/* Parse argv into v; *files is the index of the first FILE. Returns -1 to
 * go on, or the exit status. */
static int size_parse(int argc, char **argv, struct view *v, int *files,
		      struct size_ctx *c)
{
	int ret = view_parse(argc, argv, v, &size_cmd, size_option, c);

	if (ret >= 0)
		return ret;
	if (optind >= argc)
		return view_usage_error(v, "no FILE given; see 'memsz help "
					   "size'");
	if (!v->sort_given && v->nfields)
		v->sort = v->fields[0];
	*files = optind;
	return view_check(v);
}

/* A note for each --debug-file no input took (used[i] false), when some
 * input looked for a debug file (the keys that use one: symbols,
 * compileunits, inlines, bbs). */
static void note_unused_debug_files(const struct size_ctx *c, const bool *used,
				    bool looked, struct strlist *notes)
{
	for (size_t i = 0; looked && i < c->n; i++)
		if (!used[i])
			strlist_addf(notes,
				     "--debug-file '%s' rejected: its "
				     "build-id (or debuglink CRC) matches "
				     "no input",
				     c->debug_files[i]);
}

/* Whether argv[i] names the same file (device and inode) as one of
 * argv[first, i): FILE SIZE is the file's size, so a file given twice, or
 * under two names (a symbolic or hard link), is read once; *dup is then
 * the earlier argument. A path that cannot be stat()ed is left to the
 * reader, which says why it cannot be read. */
static bool given_before(char **argv, int first, int i, int *dup)
{
	struct stat a, b;

	if (stat(argv[i], &a) < 0)
		return false;
	for (int j = first; j < i; j++)
		if (stat(argv[j], &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			*dup = j;
			return true;
		}
	return false;
}

int cmd_size(int argc, char **argv)
{
	struct view v = {
	    .cmdname = "size",
	    .cmd = KEY_IN_SIZE,
	    .keys = {KEY_SECTIONS},
	    .nkeys = 1,
	    .sort = COL_FILE,
	    .columns = 1u << COL_FILE | 1u << COL_VM,
	    .limit = 20,
	    .fmt = OUT_TABLE,
	};
	static const enum col_id table_dflt[] = {COL_FILE, COL_VM};
	enum col_id cols[COL__COUNT];
	size_t ncols;
	struct strlist notes = {0};
	struct labels *lb = NULL;
	struct rowtree *t = NULL;
	struct out_image *images = NULL;
	char *title = NULL;
	struct size_ctx c = {0};
	bool *debug_used = NULL, debug_looked = false;
	int first = 0, ret;

	ret = size_parse(argc, argv, &v, &first, &c);
	if (ret >= 0)
		goto out;
	ret = 1;
#ifdef M_TOP_PAD
	/* advice to glibc's malloc */
	(void)mallopt(M_TOP_PAD, SIZE_TOP_PAD);
#endif
	images = xcalloc(argc - first + 1, sizeof(*images));
	debug_used = xcalloc(c.n + 1, sizeof(*debug_used));
	lb = labels_new();
	t = rowtree_new(lb, v.nkeys);
	/* the tree is only added to, then finished: one key's rows (a
	 * file's symbols) stay bare until -n of them are kept */
	rowtree_defer_leaves(t);
	for (int i = first; i < argc; i++) {
		struct elf_map_opts maps = {.debug_root = v.debug_root,
					    .debug_files = c.debug_files,
					    .ndebug_files = c.n,
					    .debug_used = debug_used,
					    .debug_looked = &debug_looked,
					    .disasm = v.disasm,
					    .demangle = c.demangle};
		int err, dup;

		if (given_before(argv, first, i, &dup)) {
			strlist_addf(&notes,
				     "'%s' is the same file as '%s': counted "
				     "once",
				     argv[i], argv[dup]);
			continue;
		}
		err = ondisk_add_file(t, lb, argv[i], v.keys, v.nkeys, &maps,
				      &v.filter, &notes);

		if (err < 0) {
			char *msg =
			    xasprintf("'%s': %s", argv[i], memsz_strerror(err));
			view_error(v.fmt, msg);
			free(msg);
			goto out;
		}
		images[v.nimages].path = argv[i];
		/* read only for a format that names mappings by build-id */
		images[v.nimages++].build_id =
		    out_format_get(v.fmt)->flags & OUTF_BUILD_IDS
			? build_id_hex(argv[i])
			: xstrdup("");
	}
	note_unused_debug_files(&c, debug_used, debug_looked, &notes);
	v.images = images;
	title = xasprintf("memsz size of %s%s", argv[first],
			  argc - first > 1 ? " ..." : "");
	v.title = title;
	view_finish(&v, t, v.sort);
	ncols = view_columns(&v, v.columns, table_dflt, ARRAY_SIZE(table_dflt),
			     cols);
	ret = view_write(&v, t, cols, ncols, false, &notes);
out:
	for (size_t i = 0; images && i < v.nimages; i++)
		free((char *)images[i].build_id);
	free(images);
	free(c.debug_files);
	free(debug_used);
	free(title);
	strlist_free(&notes);
	rowtree_free(t);
	labels_free(lb);
	view_free(&v);
	return ret;
}
