/* cmd_size.c — `memsz size`: on-disk size of ELF files, Bloaty-like. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "builtin/builtin.h"
#include "builtin/view.h"
#include "out/rows.h"
#include "report/ondisk.h"
#include "util/util.h"

void usage_size(FILE *out)
{
	fprintf(out,
		"usage: memsz size [--by KEY[,KEY...]] [-n N] [--sort file|vm]\n"
		"                  [--format table|csv|tsv|json|folded] FILE...\n"
		"       memsz size --list-keys\n"
		"\n"
		"Attribute every byte of each ELF FILE, on disk (FILE SIZE) and\n"
		"as mapped (VM SIZE), to the labels of the chosen keys.\n"
		"\n"
		"    --by KEY[,KEY...]  keys, outermost first (default: sections):\n"
		"                       %s\n"
		"    --list-keys        print every key with what it labels\n"
		"    -n N               rows per level, the rest folded into\n"
		"                       '[N others]' (default 20; 0: all)\n"
		"    --sort COL         sort rows by file (default) or vm size\n"
		"    --format FMT       table (default), csv, tsv, json, or\n"
		"                       folded ('a;b;c BYTES' lines of the\n"
		"                       --sort column, for flame graphs)\n"
		"    --debug-root DIR   look for debug files under DIR instead\n"
		"                       of /usr/lib/debug\n",
		keys_list(KEY_IN_SIZE));
}

static const struct option size_options[] = {
	VIEW_LONG_OPTIONS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Parse argv into v; *files is the index of the first FILE. Returns -1 to
 * go on, or the exit status. */
static int size_parse(int argc, char **argv, struct view *v, int *files)
{
	int c;

	optind = 1;
	while ((c = view_getopt(argc, argv, "n:", size_options, v)) != -1) {
		if (c == VIEW_GETOPT_USAGE)
			return EXIT_USAGE;
		if (c == 'h') {
			usage_size(stdout);
			return 0;
		}
		usage_size(stderr);
		return EXIT_USAGE;
	}
	if (v->list_keys) {
		keys_print(stdout, v->cmd);
		return 0;
	}
	if (optind >= argc) {
		usage_size(stderr);
		return EXIT_USAGE;
	}
	*files = optind;
	return -1;
}

int cmd_size(int argc, char **argv)
{
	struct view v = {
		.cmd = KEY_IN_SIZE,
		.keys = { KEY_SECTIONS },
		.nkeys = 1,
		.sort = COL_FILE,
		.sortable = 1u << COL_FILE | 1u << COL_VM,
		.limit = 20,
		.fmt = OUT_TABLE,
	};
	enum col_id cols[] = { COL_FILE, COL_VM };
	size_t ncols = ARRAY_SIZE(cols);
	struct strlist notes = { 0 };
	struct labels *lb = NULL;
	struct rowtree *t = NULL;
	int first, ret;

	ret = size_parse(argc, argv, &v, &first);
	if (ret >= 0)
		return ret;
	ret = 1;
	lb = labels_new();
	t = rowtree_new(lb, v.nkeys);
	for (int i = first; i < argc; i++) {
		int err = ondisk_add_file(t, lb, argv[i], v.keys, v.nkeys,
					  v.debug_root, &notes);

		if (err < 0) {
			char *msg = xasprintf("'%s': %s", argv[i],
					      memsz_strerror(err));
			out_error(v.fmt, msg);
			free(msg);
			goto out;
		}
	}
	rowtree_finish(t, v.sort, v.limit);
	if (v.fmt == OUT_FOLDED) {
		cols[0] = v.sort; /* folded prints one value per line */
		ncols = 1;
	}
	ret = view_write(&v, t, cols, ncols, false, &notes);
out:
	strlist_free(&notes);
	rowtree_free(t);
	labels_free(lb);
	return ret;
}
