/* demangle.c — symbol names as people read them: C++ (Itanium ABI) through
 * the GNU demangler c++filt uses, Rust (legacy and v0) through
 * elf/rustdemangle.c.
 *
 * C++: libiberty's cplus_demangle_v3_callback with c++filt's options
 * (DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE), so every name reads exactly as
 * `c++filt` prints it, "_GLOBAL__sub_I_x" and "[clone .cold]" suffixes
 * included. Its output is unbounded (every back-reference prints a
 * component again; nesting them doubles the output each time, so a
 * 400-byte name can ask for gigabytes), so the output is streamed through
 * a callback that gives up once it passes DM_MAX_OUT bytes: the callback
 * longjmp()s out of the demangler, which is safe because the callback
 * interface allocates nothing on the heap (its tables are on the stack).
 * Names longer than DM_MAX_IN are not tried: the parser keeps two
 * components per input byte on the stack. The bound is far above real
 * names (the longest demangled names of node, libLLVM and libjvm are under
 * 7 KiB).
 */
#include "config.h"

#include "elf/demangle.h"
#include "elf/elfimg.h"
#include "util/util.h"

#include <libiberty/demangle.h>
#include <ctype.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#define DM_MAX_IN (16 * 1024)
#define DM_MAX_OUT (256 * 1024)

struct dm_out {
	char *buf;
	size_t len, cap;
	jmp_buf fail;
};

static void dm_append(const char *s, size_t n, void *opaque)
{
	struct dm_out *o = opaque;

	if (o->len + n > DM_MAX_OUT)
		longjmp(o->fail, 1);
	xgrow(&o->buf, &o->cap, o->len + n + 1, 1);
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = 0;
}

static char *demangle_cxx(const char *name)
{
	/* volatile: read after longjmp */
	struct dm_out o = { 0 };
	struct dm_out *volatile op = &o;
	int ok;

	if (setjmp(o.fail)) {
		free(op->buf);
		return NULL;
	}
	ok = cplus_demangle_v3_callback(name,
					DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE,
					dm_append, &o);
	if (!ok || !o.buf) {
		free(o.buf);
		return NULL;
	}
	return o.buf;
}

/* Length of the leading run of characters c++filt takes as one name
 * (letters, digits, '_', '$', '.'): a versioned name "_ZSt4cout@@GLIBCXX_3.4"
 * is demangled up to the '@' and the rest is kept as it is. */
static size_t word_len(const char *s)
{
	size_t n = 0;

	while (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '$' ||
	       s[n] == '.')
		n++;
	return n;
}

static char *demangle_word(const char *name)
{
	char *out = elf_demangle_rust(name, DM_MAX_OUT);

	if (out || name[1] == 'R')
		return out;
	return demangle_cxx(name);
}

char *elf_demangle(const char *name)
{
	char *word, *dm, *out;
	size_t n;

	if (!name || (strncmp(name, "_Z", 2) && strncmp(name, "_R", 2) &&
		      strncmp(name, "_GLOBAL_", 8)))
		return NULL;
	n = word_len(name);
	if (n > DM_MAX_IN)
		return NULL;
	if (!name[n])
		return demangle_word(name);
	word = xstrndup(name, n);
	dm = demangle_word(word);
	free(word);
	if (!dm)
		return NULL;
	out = xasprintf("%s%s", dm, name + n);
	free(dm);
	return out;
}
