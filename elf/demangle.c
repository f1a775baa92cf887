// SPDX-License-Identifier: GPL-2.0-or-later
/* demangle.c — symbol names as people read them: C++ (Itanium ABI) and Rust
 * (legacy and v0), both through libiberty, the GNU demangler c++filt uses.
 *
 * C++: cplus_demangle_v3_callback with c++filt's options (DMGL_PARAMS |
 * DMGL_ANSI | DMGL_VERBOSE), so every name reads exactly as `c++filt`
 * prints it, "_GLOBAL__sub_I_x" and "[clone .cold]" suffixes included.
 * Rust: rust_demangle_callback without DMGL_VERBOSE, which prints what
 * rustfilt prints: no legacy "::h<hash>", no v0 crate disambiguators, no
 * type after a constant. libiberty drops a Rust name's ".suffix"; we keep
 * it (".cold" parts stay apart from their function) unless it is LLVM's
 * ".llvm.<hex>" renaming, as rustc-demangle does. A "_ZN" name is only
 * offered to the Rust demangler when it has the legacy hash segment where
 * libiberty looks for it (rust_maybe): most C++ names skip a demangler
 * that would walk them twice to refuse them.
 *
 * Both demanglers' output is unbounded (every back-reference prints a
 * component again; nesting them doubles the output each time, so a
 * 400-byte name can ask for gigabytes), so the output is streamed through
 * a callback that gives up once it passes DM_MAX_OUT bytes: the callback
 * longjmp()s out of the demangler. The C++ callback interface allocates
 * nothing on the heap (its tables are on the stack), so it may jump at
 * once. The Rust one mallocs the decoded text of a punycode identifier and
 * prints it in one call before freeing it, so there the jump waits for the
 * next call, which is always another component (see dm_append). Names
 * longer than DM_MAX_IN are not tried: the C++ parser keeps two components
 * per input byte on the stack. The bound is far above real names (the
 * longest demangled names of node, libLLVM and libjvm are under 7 KiB).
 */
#include "config.h"

#include "elf/elfimg.h"
#include "util/strbuf.h"
#include "util/util.h"

#include <libiberty/demangle.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DM_MAX_IN (16 * 1024)
#define DM_MAX_OUT (256 * 1024)

struct dm_out {
	struct strbuf *sb;
	int over;     /* passed DM_MAX_OUT: stop at the next call */
	int jump_now; /* the demangler allocates nothing: jump at once */
	jmp_buf fail;
};

/* The demanglers' output callback: append s to the buffer, or give up
 * past DM_MAX_OUT (at once, or at the next call; see the top comment). */
static void dm_append(const char *s, size_t n, void *opaque)
{
	struct dm_out *o = opaque;

	if (o->over)
		longjmp(o->fail, 1);
	if (o->sb->len + n > DM_MAX_OUT) {
		o->over = 1;
		if (o->jump_now)
			longjmp(o->fail, 1);
		return;
	}
	strbuf_add(o->sb, s, n);
}

typedef int (*dm_fn)(const char *name, int options, demangle_callbackref cb,
		     void *opaque);

/* Run one libiberty demangler on name, its output bounded, into the empty
 * sb. Returns whether it succeeded; if not, sb is empty. */
static bool dm_run(dm_fn fn, const char *name, int options, int jump_now,
		   struct strbuf *sb)
{
	/* volatile: read after longjmp */
	struct dm_out o = {.sb = sb, .jump_now = jump_now};
	struct dm_out *volatile op = &o;

	if (setjmp(o.fail)) {
		strbuf_reset(op->sb);
		return false;
	}
	if (!fn(name, options, dm_append, &o) || o.over || !sb->len) {
		strbuf_reset(sb);
		return false;
	}
	return true;
}

/* Where the ".suffix" of a Rust name starts, as libiberty finds it: a v0
 * name at its first '.', a legacy name ("_ZN...17h<hash>E") at the last
 * "E." (its path may hold '.' in "$..$" escapes). NULL if it has none. */
static const char *rust_suffix(const char *name)
{
	const char *p;

	if (name[1] == 'R')
		return strchr(name, '.');
	for (p = name + strlen(name) - 1; p > name; p--)
		if (p[0] == '.' && p[-1] == 'E')
			return p;
	return NULL;
}

/* A Rust name demangled into sb, its suffix kept unless it is ".llvm.*".
 * false if name is not a Rust name libiberty reads. */
static bool demangle_rust(const char *name, struct strbuf *sb)
{
	const char *suffix;

	if (!dm_run(rust_demangle_callback, name, 0, 0, sb))
		return false;
	suffix = rust_suffix(name);
	if (suffix && strncmp(suffix, ".llvm.", 6))
		strbuf_adds(sb, suffix);
	return true;
}

/* Length of the leading run of characters c++filt takes as one name
 * (letters, digits, '_', '$', '.'): a versioned name "_ZSt4cout@@GLIBCXX_3.4"
 * is demangled up to the '@' and the rest is kept as it is. */
static size_t word_len(const char *s)
{
	/* isalnum() in the C locale memsz runs in, without its call per
	 * byte: every symbol name is walked through */
	static const uint8_t word[256] = {
	    ['0' ... '9'] = 1, ['A' ... 'Z'] = 1, ['a' ... 'z'] = 1,
	    ['_'] = 1,	       ['$'] = 1,	  ['.'] = 1,
	};
	size_t n = 0;

	while (word[(unsigned char)s[n]])
		n++;
	return n;
}

/* Whether s starts with 16 lower-case hex digits. */
static bool lower_hex16(const char *s)
{
	for (int i = 0; i < 16; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* Whether libiberty's Rust demangler might read the word name (n bytes
 * of [A-Za-z0-9_$.]): false only where it surely fails, so that most C++
 * names skip it (it walks each one twice before it gives up). A v0 name
 * starts "_R"; a legacy one "_ZN", and libiberty ends its path at the
 * last 'E' followed by '.' or the end, which must close the hash segment
 * "17h" + 16 lower-case hex digits (is_legacy_prefixed_hash). */
static bool rust_maybe(const char *name, size_t n)
{
	const char *path = name + 3, *e = name + n - 1, *dot;

	if (name[0] != '_' || name[1] == 'R')
		return name[0] == '_';
	if (name[1] != 'Z' || n < 3 || name[2] != 'N')
		return false;
	if (*e != 'E') {
		/* the last '.' after an 'E', as libiberty walks back */
		e = NULL;
		for (size_t len = n - 3;
		     (dot = memrchr(path, '.', len)) && dot > path;
		     len = dot - path) {
			if (dot[-1] == 'E') {
				e = dot - 1;
				break;
			}
		}
		if (!e)
			return false;
	}
	return e - path > 19 && !memcmp(e - 19, "17h", 3) &&
	       lower_hex16(e - 16);
}

/* name (n bytes) demangled into the empty sb, as Rust, else as C++
 * (without parameter lists if short_form: c++filt -p). */
static bool demangle_word(const char *name, size_t n, bool short_form,
			  struct strbuf *sb)
{
	if (rust_maybe(name, n) && demangle_rust(name, sb))
		return true;
	if (name[1] == 'R')
		return false;
	return dm_run(cplus_demangle_v3_callback, name,
		      (short_form ? 0 : DMGL_PARAMS) | DMGL_ANSI | DMGL_VERBOSE,
		      1, sb);
}

char *elf_demangle(const char *name)
{
	return elf_demangle_as(name, ELF_DEMANGLE_FULL);
}

bool elf_demangle_to(const char *name, enum elf_demangle_style style,
		     struct strbuf *sb)
{
	char *word;
	size_t n;
	bool ok;

	strbuf_reset(sb);
	/* "_Z", "_R" or "_GLOBAL_" first: the first two bytes compared
	 * inline, not by three strncmp() calls a name (C names: 1 % of
	 * the instructions of size --by symbols --no-disasm of libc.so.6) */
	if (!name || style == ELF_DEMANGLE_NONE || name[0] != '_' ||
	    (name[1] != 'Z' && name[1] != 'R' &&
	     (name[1] != 'G' || strncmp(name, "_GLOBAL_", 8))))
		return false;
	n = word_len(name);
	if (n > DM_MAX_IN)
		return false;
	if (!name[n]) {
		ok = demangle_word(name, n, style == ELF_DEMANGLE_SHORT, sb);
	} else {
		word = xstrndup(name, n);
		ok = demangle_word(word, n, style == ELF_DEMANGLE_SHORT, sb);
		free(word);
		if (ok)
			strbuf_adds(sb, name + n);
	}
	return ok;
}

char *elf_demangle_as(const char *name, enum elf_demangle_style style)
{
	struct strbuf sb = STRBUF_INIT;

	if (!elf_demangle_to(name, style, &sb)) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}
