// SPDX-License-Identifier: GPL-2.0-or-later
/* complete.c — see complete.h. The command line is walked by the rows of
 * the command's table of options, as opts_parse() reads it; the value an
 * option takes is completed by the name its row gives the argument
 * ("FILE", "KEY[,KEY...]": the table value_kinds below). */
#include "config.h"

#include "builtin/complete.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "builtin/options.h"
#include "builtin/view.h"
#include "report/keys.h"
#include "report/report.h"
#include "rows/output.h"
#include "rows/rows.h"
#include "util/util.h"

/* What a command's operands are. */
enum operands {
	OPERANDS_NONE,	   /* none: its options are offered */
	OPERANDS_FILES,	   /* files (size, diff) */
	OPERANDS_COMMAND,  /* a command line to launch (record) */
	OPERANDS_COMMANDS, /* a memsz command (help) */
};

/* What a command's operands and shared view options take, beside its
 * table of options. columns and kind are those the command's struct view
 * starts with (cmd_*.c); tests/t1003-completion.sh checks that memsz
 * accepts every column and format offered. */
struct complete_cmd {
	const char *name;
	enum operands operands;
	unsigned columns;    /* of --fields and --sort: bit per col_id */
	enum rows_kind kind; /* --format: the formats that write it */
	unsigned keys_in;    /* KEY_IN_* of its view: --sort's orders */
};

#define COLS_ALL ((1u << COL__COUNT) - 1)

static const struct complete_cmd complete_cmds[] = {
    {"size", OPERANDS_FILES, 1u << COL_FILE | 1u << COL_VM, ROWS_SINGLE,
     KEY_IN_SIZE},
    {"record", OPERANDS_COMMAND, 0, ROWS_SINGLE, 0},
    {"report", OPERANDS_NONE, COLS_ALL, ROWS_SINGLE, KEY_IN_REPORT},
    {"diff", OPERANDS_FILES, COLS_ALL & ~(1u << COL_RES_PCT | 1u << COL_PROCS),
     ROWS_DIFF, KEY_IN_SIZE | KEY_IN_REPORT},
    {"dump", OPERANDS_NONE, 0, ROWS_SINGLE, 0},
    {"help", OPERANDS_COMMANDS, 0, ROWS_SINGLE, 0},
};

/* The word being completed, as the values offered see it. */
struct at {
	const struct memsz_cmd *cmd;
	const struct complete_cmd *cc;
	const char *keep; /* printed before each word: "--by=", "-p", the
			     elements of a list before the last one */
	const char *cur;  /* what each word must start with */
	const char *list; /* a list's elements before the last, or "" */
	const char *by;	  /* the --by list on the line, or NULL */
};

/* Print word (after at's keep) if it starts with at->cur, with the first
 * line of desc (may be NULL) after a tab. */
static void offer(const struct at *at, const char *word, const char *desc)
{
	if (strncmp(word, at->cur, strlen(at->cur)))
		return;
	printf("%s%s", at->keep, word);
	if (desc && *desc)
		printf("\t%.*s", (int)strcspn(desc, "\n"), desc);
	putchar('\n');
}

/* True if name is an element of the comma-separated list. */
static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, name, len))
			return true;
		p += n + (p[n] != 0);
	}
	return false;
}

/* Offer each element of a comma-separated list only once: at->keep
 * grows by the elements already typed, at->cur is the last one. */
static char *split_list(struct at *at, const char *val)
{
	const char *comma = strrchr(val, ',');
	char *keep;

	if (!comma) {
		at->cur = val;
		at->list = "";
		return NULL;
	}
	keep = xasprintf("%s%.*s", at->keep, (int)(comma + 1 - val), val);
	at->list = xstrndup(val, comma - val);
	at->keep = keep;
	at->cur = comma + 1;
	return keep;
}

static void value_files(struct at *at)
{
	(void)at;
	printf("files\n");
}

static void value_dirs(struct at *at)
{
	(void)at;
	printf("dirs\n");
}

/* The --by row's list of keys, as --help prints it ("files, segments"):
 * the keys this command offers. NULL if it has no --by. */
static const char *cmd_keys(const struct memsz_cmd *cmd)
{
	for (const struct opt *o = cmd->opts->opts; o->shrt || o->lng; o++)
		if (o->lng && !strcmp(o->lng, "by") && o->more)
			return o->more();
	return NULL;
}

/* Offer each key of the command, each followed by suffix. */
static void offer_keys(const struct at *at, const char *suffix)
{
	const char *keys = cmd_keys(at->cmd);
	char *copy, *save = NULL;

	if (!keys)
		return;
	copy = xstrdup(keys);
	for (char *k = strtok_r(copy, ", ", &save); k;
	     k = strtok_r(NULL, ", ", &save)) {
		char *word = xasprintf("%s%s", k, suffix);
		const char *desc = NULL;

		for (int i = 0; i < KEY__COUNT; i++)
			if (!strcmp(keydefs[i].name, k))
				desc = keydefs[i].help;
		if (!in_list(at->list, k))
			offer(at, word, desc);
		free(word);
	}
	free(copy);
}

static void value_keys(struct at *at)
{
	printf("words\n");
	offer_keys(at, "");
}

/* --filter [KEY=]REGEX: the "KEY=" part. */
static void value_key_rule(struct at *at)
{
	printf("nospace\n");
	if (!strchr(at->cur, '='))
		offer_keys(at, "=");
}

/* The columns of the command; those only a key gives (relocs) when that
 * key is in the --by list on the line. */
static void offer_columns(struct at *at, bool sortable)
{
	for (int i = 0; i < COL__COUNT; i++) {
		enum key_id k = keys_of_col(i);

		if (!(at->cc->columns & 1u << i) ||
		    in_list(at->list, coldefs[i].sortname))
			continue;
		if ((sortable && coldefs[i].derived) ||
		    (k != KEY__COUNT &&
		     !in_list(at->by ? at->by : "", keydefs[k].name)))
			continue;
		offer(at, coldefs[i].sortname, coldefs[i].header);
	}
}

static void value_columns(struct at *at)
{
	printf("words\n");
	offer_columns(at, false);
}

static void value_sort(struct at *at)
{
	const char *o;

	printf("words\n");
	offer_columns(at, true);
	for (size_t i = 0; (o = view_sort_order(i, at->cc->keys_in)); i++)
		offer(at, o, "an order of labels");
}

static void value_formats(struct at *at)
{
	printf("words\n");
	for (int f = 0; f < OUT__COUNT; f++) {
		const struct out_format_def *d = out_format_get(f);

		if (d->kinds & ROWS_KIND_BIT(at->cc->kind))
			offer(at, d->name, NULL);
	}
}

static void value_snapshot(struct at *at)
{
	printf("words\n");
	for (const struct report_pick_word *w = report_pick_words; w->name; w++)
		offer(at, w->name, NULL);
}

/* A process's command name into comm (empty if gone); false for a kernel
 * thread (no command line), which memsz does not record. */
static bool proc_comm(const char *pid, char *comm, size_t len)
{
	char path[300];
	FILE *f;
	int c;

	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	c = fgetc(f);
	fclose(f);
	if (c == EOF)
		return false;
	comm[0] = 0;
	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	if (fgets(comm, (int)len, f))
		comm[strcspn(comm, "\n")] = 0;
	fclose(f);
	return true;
}

/* Processes: the PIDs that start with at->cur, or whose command name
 * does (then the word offered does not start with at->cur). */
static void value_pids(struct at *at)
{
	struct at by_name = *at;
	DIR *d = opendir("/proc");
	struct dirent *e;
	char comm[64];

	printf("words\n");
	by_name.cur = "";
	while (d && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]) ||
		    atoi(e->d_name) == getpid() ||
		    in_list(at->list, e->d_name) ||
		    !proc_comm(e->d_name, comm, sizeof(comm)))
			continue;
		if (!strncmp(e->d_name, at->cur, strlen(at->cur)))
			offer(at, e->d_name, comm);
		else if (*at->cur && !isdigit((unsigned char)at->cur[0]) &&
			 !strncmp(comm, at->cur, strlen(at->cur)))
			offer(&by_name, e->d_name, comm);
	}
	if (d)
		closedir(d);
}

/* How the value of an option is completed, by the name its row gives the
 * argument; list: a comma-separated list, each element completed. */
static const struct value_kind {
	const char *argname;
	void (*complete)(struct at *at);
	bool list;
} value_kinds[] = {
    {"FILE", value_files, false},	{"DIR", value_dirs, false},
    {"PID", value_pids, false},		{"PID,...", value_pids, true},
    {"KEY[,KEY...]", value_keys, true}, {"[KEY=]REGEX", value_key_rule, false},
    {"COLS", value_columns, true},	{"COL", value_sort, false},
    {"FMT", value_formats, false},	{"WHICH", value_snapshot, false},
};

/* Complete val, the value of option o, printed after keep. */
static void complete_value(struct at *at, const struct opt *o, const char *keep,
			   const char *val)
{
	char *mine = NULL;

	at->keep = keep;
	at->cur = val;
	at->list = "";
	for (size_t i = 0; i < ARRAY_SIZE(value_kinds); i++) {
		const struct value_kind *k = &value_kinds[i];

		if (!o->argname || strcmp(o->argname, k->argname))
			continue;
		if (k->list)
			mine = split_list(at, val);
		k->complete(at);
		if (mine)
			free((char *)at->list);
		free(mine);
		return;
	}
	printf("none\n");
}

static const struct opt *find_long(const struct opt *o, const char *name,
				   size_t len)
{
	for (; o->shrt || o->lng; o++)
		if (o->lng && strlen(o->lng) == len &&
		    !strncmp(o->lng, name, len))
			return o;
	return NULL;
}

static const struct opt *find_short(const struct opt *o, char c)
{
	for (; o->shrt || o->lng; o++)
		if (o->shrt == c)
			return o;
	return NULL;
}

/* Where the word being completed is, after walking words[1..n-2] by the
 * rows of opts as getopt_long reads them. */
struct walk {
	const struct opt *value_of; /* words[n-1] is this option's value */
	int operand;		    /* the first operand of an in-order
				       command, or after "--"; else -1 */
	const char *by;		    /* the value of --by, or NULL */
};

/* The value of --by if words[i] (and words[i + 1]) give it. */
static const char *by_value(int n, char **words, int i)
{
	const char *s = words[i];

	if (!strncmp(s, "--by=", 5))
		return s + 5;
	if (!strcmp(s, "--by") && i + 1 < n - 1)
		return words[i + 1];
	return NULL;
}

/* Of one option word w: the option whose value is the next word, or
 * NULL. */
static const struct opt *takes_next(const struct opt *opts, const char *w)
{
	const struct opt *o;

	if (w[1] == '-') {
		o = find_long(opts, w + 2, strcspn(w + 2, "="));
		return o && o->arg == OPT_ARG && !strchr(w, '=') ? o : NULL;
	}
	for (const char *p = w + 1; *p; p++) {
		o = find_short(opts, *p);
		if (o && o->arg != OPT_NOARG)
			return p[1] ? NULL : o;
	}
	return NULL;
}

static struct walk walk_words(const struct opts_cmd *oc, int n, char **words)
{
	struct walk w = {NULL, -1, NULL};

	for (int i = 1; i < n - 1; i++) {
		const char *s = words[i];
		const struct opt *o;

		if (by_value(n, words, i))
			w.by = by_value(n, words, i);
		if (!strcmp(s, "--")) {
			w.operand = i + 1;
			break;
		}
		if (s[0] != '-' || !s[1]) {
			if (oc->in_order) {
				w.operand = i;
				break;
			}
			continue;
		}
		o = takes_next(oc->opts, s);
		if (o && i + 1 == n - 1)
			return (struct walk){o, -1, w.by};
		if (o)
			i++;
	}
	/* a word typed where options end starts the launched command */
	if (w.operand < 0 && oc->in_order && n > 1 && words[n - 1][0] &&
	    words[n - 1][0] != '-')
		w.operand = n - 1;
	return w;
}

/* The options of the command that start with at->cur: long names, and
 * short ones too once a single '-' is typed. */
static void complete_options(struct at *at)
{
	const struct opt *o;

	printf("words\n");
	for (o = at->cmd->opts->opts; o->shrt || o->lng; o++) {
		char name[64];

		if (o->lng) {
			snprintf(name, sizeof(name), "--%s", o->lng);
			offer(at, name, o->help);
		}
		if (o->shrt && !strcmp(at->cur, "-")) {
			snprintf(name, sizeof(name), "-%c", o->shrt);
			offer(at, name, o->help);
		}
	}
	offer(at, "--help", "print this command's options");
}

/* The memsz commands (and the options of memsz itself). */
static void complete_commands(struct at *at, bool with_options)
{
	printf("words\n");
	for (const struct memsz_cmd *c = memsz_cmds; c->name; c++)
		offer(at, c->name, c->summary);
	if (with_options && at->cur[0] == '-') {
		offer(at, "--version", "print the version");
		offer(at, "--help", "list the commands");
	}
}

/* words[n-1] of a command with a table of options, in at. */
static void complete_in_cmd(struct at *at, int n, char **words)
{
	const struct opts_cmd *oc = at->cmd->opts;
	struct walk w = walk_words(oc, n, words);
	const char *cur = words[n - 1];
	const struct opt *o;

	at->by = w.by;
	if (w.value_of) {
		complete_value(at, w.value_of, "", cur);
	} else if (w.operand >= 0 && at->cc->operands == OPERANDS_COMMAND) {
		printf("command %d\n", w.operand);
	} else if (w.operand < 0 && !strncmp(cur, "--", 2) &&
		   strchr(cur, '=')) {
		char *keep = xstrndup(cur, strcspn(cur, "=") + 1);

		o = find_long(oc->opts, cur + 2, strlen(keep) - 3);
		if (o && o->arg != OPT_NOARG)
			complete_value(at, o, keep, cur + strlen(keep));
		else
			printf("none\n");
		free(keep);
	} else if (w.operand < 0 && cur[0] == '-' && cur[1] != '-' && cur[1] &&
		   cur[2] && (o = find_short(oc->opts, cur[1])) &&
		   o->arg != OPT_NOARG) {
		char keep[3] = {'-', cur[1], 0};

		complete_value(at, o, keep, cur + 2);
	} else if (w.operand < 0 &&
		   (cur[0] == '-' || at->cc->operands == OPERANDS_NONE)) {
		complete_options(at);
	} else if (at->cc->operands == OPERANDS_FILES) {
		printf("files\n");
	} else {
		printf("none\n");
	}
}

int cmd_complete(int n, char **words)
{
	struct at at = {.keep = "", .cur = n ? words[n - 1] : "", .list = ""};

	if (n <= 1) {
		complete_commands(&at, true);
		return 0;
	}
	for (const struct memsz_cmd *c = memsz_cmds; c->name; c++)
		if (!strcmp(c->name, words[0]))
			at.cmd = c;
	for (size_t i = 0; at.cmd && i < ARRAY_SIZE(complete_cmds); i++)
		if (!strcmp(complete_cmds[i].name, at.cmd->name))
			at.cc = &complete_cmds[i];
	if (!at.cc)
		printf("none\n");
	else if (at.cc->operands == OPERANDS_COMMANDS && n == 2)
		complete_commands(&at, false);
	else if (at.cmd->opts)
		complete_in_cmd(&at, n, words);
	else
		printf("none\n");
	return 0;
}
