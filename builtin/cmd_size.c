/* cmd_size.c — `memsz size`: on-disk size of ELF files, Bloaty-like. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "elf/elfimg.h"
#include "out/output.h"
#include "out/rows.h"
#include "report/ondisk.h"
#include "util/util.h"

void usage_size(FILE *out)
{
	fprintf(out,
		"usage: memsz size [--by KEY[,KEY...]] [-n N] [--sort file|vm]\n"
		"                  [--format table|csv|tsv|json|folded]\n"
		"                  [--debug-root DIR] [--disasm] FILE...\n"
		"\n"
		"Attribute every byte of each ELF FILE, on disk (FILE SIZE) and\n"
		"as mapped (VM SIZE), to the labels of the chosen keys.\n"
		"\n"
		"    --by KEY[,KEY...]  keys, outermost first (default: sections):\n"
		"                       %s\n"
		"    -n N               rows per level, the rest folded into\n"
		"                       '[N others]' (default 20; 0: all)\n"
		"    --sort COL         sort rows by file (default) or vm size\n"
		"    --format FMT       table (default), csv, tsv, json, or\n"
		"                       folded ('a;b;c BYTES' lines of the\n"
		"                       --sort column, for flame graphs)\n"
		"    --debug-root DIR   look for debug files under DIR instead\n"
		"                       of /usr/lib/debug\n"
		"    --disasm           disassemble x86-64 code: data it\n"
		"                       refers to and no symbol\n"
		"                       or unit covers goes to that code under\n"
		"                       symbols, compileunits and inlines\n"
		"                       (costs several times the rest)\n"
		"\nWith DEBUGINFOD_URLS set, debug files missing locally are\n"
		"fetched from those debuginfod servers (libdebuginfod's cache).\n",
		size_key_list());
}

static const struct option size_options[] = {
	{ "by", required_argument, NULL, 'b' },
	{ "sort", required_argument, NULL, 's' },
	{ "format", required_argument, NULL, 'f' },
	{ "debug-root", required_argument, NULL, 'd' },
	{ "disasm", no_argument, NULL, 'D' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_size(int argc, char **argv)
{
	enum size_key keys[SIZE_MAX_KEYS] = { SIZEKEY_SECTIONS };
	const char *keynames[SIZE_MAX_KEYS];
	enum col_id cols[] = { COL_FILE, COL_VM };
	enum col_id sort = COL_FILE;
	struct out_opts oo = { .fmt = OUT_TABLE };
	struct strlist notes = { 0 };
	const char *debug_root = NULL;
	struct labels *lb = NULL;
	struct rowtree *t = NULL;
	uint64_t limit = 20;
	int nkeys = 1, c, ret = 1;
	char *bad;

	optind = 1;
	while ((c = getopt_long(argc, argv, "n:", size_options, NULL)) != -1) {
		switch (c) {
		case 'b':
			nkeys = size_keys_parse(optarg, keys, &bad);
			if (nkeys < 0) {
				memsz_error("unknown or repeated key '%s' "
					    "(keys: %s)", bad,
					    size_key_list());
				free(bad);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			if (parse_u64(optarg, &limit) < 0) {
				memsz_error("-n wants a number, not '%s'",
					    optarg);
				return EXIT_USAGE;
			}
			break;
		case 's':
			if (strcmp(optarg, "file") && strcmp(optarg, "vm")) {
				memsz_error("--sort wants file or vm, not '%s'",
					    optarg);
				return EXIT_USAGE;
			}
			sort = col_from_name(optarg);
			break;
		case 'f':
			if (out_format_parse(optarg, &oo.fmt) < 0) {
				memsz_error("unknown format '%s' (formats: "
					    "table, csv, tsv, json)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'd':
			debug_root = optarg;
			break;
		case 'D':
			elfimg_set_disasm(true);
			break;
		case 'h':
			usage_size(stdout);
			return 0;
		default:
			usage_size(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage_size(stderr);
		return EXIT_USAGE;
	}

	lb = labels_new();
	t = rowtree_new(lb, nkeys);
	for (int i = optind; i < argc; i++) {
		int err = ondisk_add_file(t, lb, argv[i], keys, nkeys,
					 debug_root, &notes);

		if (err < 0) {
			char *msg = xasprintf("'%s': %s", argv[i],
					      memsz_strerror(err));
			out_error(oo.fmt, msg);
			free(msg);
			goto out;
		}
	}
	rowtree_finish(t, sort, limit);
	for (int i = 0; i < nkeys; i++)
		keynames[i] = size_key_name(keys[i]);
	oo.keys = keynames;
	oo.cols = cols;
	oo.ncols = ARRAY_SIZE(cols);
	if (oo.fmt == OUT_FOLDED) {
		cols[0] = sort; /* folded prints one value per line */
		oo.ncols = 1;
	}
	for (int i = 0; i < nkeys; i++)
		oo.aliases |= keys[i] == SIZEKEY_SYMBOLS;
	oo.notes = (const char *const *)notes.lines;
	oo.nnotes = notes.n;
	if (out_write(stdout, t, &oo) < 0 || fflush(stdout) == EOF) {
		memsz_error("cannot write the report: %s",
			    memsz_strerror(-errno));
		goto out;
	}
	if (oo.fmt == OUT_CSV || oo.fmt == OUT_TSV)
		for (size_t i = 0; i < notes.n; i++)
			fprintf(stderr, "memsz: note: %s\n", notes.lines[i]);
	ret = 0;
out:
	strlist_free(&notes);
	rowtree_free(t);
	labels_free(lb);
	return ret;
}
