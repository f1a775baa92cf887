/* cmd_size.c — `memsz size`: on-disk size of ELF files, Bloaty-like. */
#include "config.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "builtin/view.h"
#include "elf/elfimg.h"
#include "out/rows.h"
#include "report/ondisk.h"
#include "util/util.h"

void usage_size(FILE *out)
{
	fprintf(out,
		"usage: memsz size [--by KEY[,KEY...]]"
		" [-F|--fields COL[,COL...]]\n"
		"                  [-n N] [--sort file|vm]"
		" [--filter [KEY=]REGEX]...\n"
		"                  [--exclude [KEY=]REGEX]... [--width N]"
		" [-v]\n"
		"                  [--format table|csv|tsv|json|folded|pprof|html]\n"
		"                  [--debug-root DIR] [--disasm] FILE...\n"
		"       memsz size --list-keys\n"
		"\n"
		"Attribute every byte of each ELF FILE, on disk (FILE SIZE) and\n"
		"as mapped (VM SIZE), to the labels of the chosen keys.\n"
		"\n"
		"    --by KEY[,KEY...]  keys, outermost first (default: sections):\n"
		"                       %s\n"
		"    --list-keys        print every key with what it labels\n"
		"    -F, --fields COLS  columns and their order: file, vm\n"
		"                       (default both; folded: the first)\n"
		"    -n N               rows per level, the rest folded into\n"
		"                       '[N others]' (default 20; 0: all)\n"
		"    --sort COL         sort rows by file (default: the first\n"
		"                       of --fields) or vm size\n"
		VIEW_HELP_FILTER
		VIEW_HELP_WIDTH_VERBOSE
		"    --format FMT       table (default), csv, tsv, json,\n"
		"                       folded ('a;b;c BYTES' lines of the\n"
		"                       --sort column, for flame graphs),\n"
		"                       pprof (gzipped profile.proto, a\n"
		"                       sample type per field, all rows;\n"
		"                       redirect it) or html (one offline\n"
		"                       page with a treemap)\n"
		"    --debug-root DIR   look for debug files under DIR instead\n"
		"                       of /usr/lib/debug\n"
		VIEW_HELP_DISASM
		"\nWith DEBUGINFOD_URLS set, debug files missing locally are\n"
		"fetched from those debuginfod servers (libdebuginfod's cache).\n",
		keys_list(KEY_IN_SIZE));
}

/* The build-id of the ELF file at path as lowercase hex ("" if it has
 * none or cannot be read): pprof names each file's mapping by it.
 * Caller frees. */
static char *build_id_hex(const char *path)
{
	uint8_t id[64];
	char *hex;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int n = fd < 0 ? 0 : elf_build_id_read(fd, id, sizeof(id));

	if (fd >= 0)
		close(fd);
	hex = xcalloc(1, 2 * (n > 0 ? n : 0) + 1);
	for (int i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	return hex;
}

static const struct option size_options[] = {
	VIEW_LONG_OPTIONS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* size has no options of its own but -h. */
static int size_option(int c, const char *arg, struct view *v, void *ctx)
{
	(void)arg;
	(void)ctx;
	if (c == 'h') {
		usage_size(stdout);
		return 0;
	}
	return view_usage_error(v, "unknown option; see 'memsz help size'");
}

/* Parse argv into v; *files is the index of the first FILE. Returns -1 to
 * go on, or the exit status. */
static int size_parse(int argc, char **argv, struct view *v, int *files)
{
	int ret = view_parse(argc, argv, v, VIEW_SHORT, size_options,
			     size_option, NULL);

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

int cmd_size(int argc, char **argv)
{
	struct view v = {
		.cmdname = "size",
		.cmd = KEY_IN_SIZE,
		.keys = { KEY_SECTIONS },
		.nkeys = 1,
		.sort = COL_FILE,
		.columns = 1u << COL_FILE | 1u << COL_VM,
		.limit = 20,
		.fmt = OUT_TABLE,
	};
	static const enum col_id table_dflt[] = { COL_FILE, COL_VM };
	enum col_id cols[COL__COUNT];
	size_t ncols;
	struct strlist notes = { 0 };
	struct labels *lb = NULL;
	struct rowtree *t = NULL;
	struct out_image *images = NULL;
	char *title = NULL;
	int first = 0, ret;

	ret = size_parse(argc, argv, &v, &first);
	if (ret >= 0)
		goto out;
	ret = 1;
	images = xcalloc(argc - first + 1, sizeof(*images));
	lb = labels_new();
	t = rowtree_new(lb, v.nkeys);
	for (int i = first; i < argc; i++) {
		struct elf_map_opts maps = { .debug_root = v.debug_root,
					     .disasm = v.disasm };
		int err = ondisk_add_file(t, lb, argv[i], v.keys, v.nkeys,
					  &maps, &v.filter, &notes);

		if (err < 0) {
			char *msg = xasprintf("'%s': %s", argv[i],
					      memsz_strerror(err));
			out_error(v.fmt, msg);
			free(msg);
			goto out;
		}
		images[v.nimages].path = argv[i];
		images[v.nimages++].build_id = build_id_hex(argv[i]);
	}
	v.images = images;
	title = xasprintf("memsz size of %s%s", argv[first],
			  argc - first > 1 ? " ..." : "");
	v.title = title;
	if (v.fmt == OUT_PPROF)
		v.limit = 0; /* every row a sample, none folded */
	rowtree_finish(t, v.sort, v.limit);
	ncols = view_columns(&v, v.columns, table_dflt,
			     ARRAY_SIZE(table_dflt), cols);
	ret = view_write(&v, t, cols, ncols, false, &notes);
out:
	for (size_t i = 0; images && i < v.nimages; i++)
		free((char *)images[i].build_id);
	free(images);
	free(title);
	strlist_free(&notes);
	rowtree_free(t);
	labels_free(lb);
	view_free(&v);
	return ret;
}
