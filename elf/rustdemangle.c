/* rustdemangle.c — Rust symbol names, legacy and v0, demangled the way
 * rustfilt and perf show them (hashes and crate disambiguators dropped).
 *
 * Legacy names are Itanium-shaped paths whose last component is the hash:
 *     _ZN <len><ident>... 17h<16 hex digits> E
 * with "$LT$"-style escapes and ".." for "::" inside the identifiers.
 * v0 names follow the grammar of Rust RFC 2603 ("_R" path
 * [instantiating-crate] [suffix]); this reader covers paths, generic
 * arguments, every type, lifetimes and binders, back-references, and
 * integer, bool and char constants. A name using anything else (constants
 * of str, reference, array, tuple or ADT type; an encoding version) is not
 * demangled. Punycode identifiers are shown undecoded as
 * "punycode{ascii-code}". Errors and the output bound unwind with longjmp
 * from the one reader state; nothing but the output buffer is allocated.
 */
#include "config.h"

#include "elf/demangle.h"
#include "util/util.h"

#include <ctype.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RD_MAX_DEPTH 300

struct rd {
	const char *sym; /* the v0 name after "_R" */
	size_t len, pos;
	char *out;
	size_t olen, ocap, max;
	bool skip;          /* parse without printing */
	unsigned depth;     /* recursion depth */
	uint64_t bound_lt;  /* lifetimes bound by the enclosing binders */
	jmp_buf fail;
};

static void rd_fail(struct rd *r)
{
	longjmp(r->fail, 1);
}

static void put(struct rd *r, const char *s, size_t n)
{
	if (r->skip || !n)
		return;
	if (r->olen + n > r->max)
		rd_fail(r);
	xgrow(&r->out, &r->ocap, r->olen + n + 1, 1);
	memcpy(r->out + r->olen, s, n);
	r->olen += n;
	r->out[r->olen] = 0;
}

static void puts_(struct rd *r, const char *s)
{
	put(r, s, strlen(s));
}

static void put_u64(struct rd *r, uint64_t v)
{
	char buf[24];
	size_t i = sizeof(buf);

	do {
		buf[--i] = '0' + v % 10;
		v /= 10;
	} while (v);
	put(r, buf + i, sizeof(buf) - i);
}

/* UTF-8 of code point c (c < 0x110000, checked by the caller). */
static void put_utf8(struct rd *r, uint32_t c)
{
	char b[4];

	if (c < 0x80) {
		b[0] = c;
		put(r, b, 1);
	} else if (c < 0x800) {
		b[0] = 0xc0 | c >> 6;
		b[1] = 0x80 | (c & 0x3f);
		put(r, b, 2);
	} else if (c < 0x10000) {
		b[0] = 0xe0 | c >> 12;
		b[1] = 0x80 | ((c >> 6) & 0x3f);
		b[2] = 0x80 | (c & 0x3f);
		put(r, b, 3);
	} else {
		b[0] = 0xf0 | c >> 18;
		b[1] = 0x80 | ((c >> 12) & 0x3f);
		b[2] = 0x80 | ((c >> 6) & 0x3f);
		b[3] = 0x80 | (c & 0x3f);
		put(r, b, 4);
	}
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* --- legacy --- */

/* One legacy identifier s[0, n) with its escapes decoded. */
static void legacy_ident(struct rd *r, const char *s, size_t n)
{
	static const struct {
		const char *esc, *out;
	} tab[] = {
		{ "SP", "@" }, { "BP", "*" }, { "RF", "&" }, { "LT", "<" },
		{ "GT", ">" }, { "LP", "(" }, { "RP", ")" }, { "C", "," },
	};
	size_t i = 0;

	if (n >= 2 && s[0] == '_' && s[1] == '$')
		i = 1;
	while (i < n) {
		if (s[i] == '.') {
			if (i + 1 < n && s[i + 1] == '.') {
				put(r, "::", 2);
				i += 2;
			} else {
				put(r, ".", 1);
				i++;
			}
		} else if (s[i] == '$') {
			const char *e = memchr(s + i + 1, '$', n - i - 1);
			size_t el, k;

			if (!e)
				rd_fail(r);
			el = e - (s + i + 1);
			for (k = 0; k < ARRAY_SIZE(tab); k++)
				if (strlen(tab[k].esc) == el &&
				    !memcmp(tab[k].esc, s + i + 1, el))
					break;
			if (k < ARRAY_SIZE(tab)) {
				puts_(r, tab[k].out);
			} else if (el >= 2 && el <= 7 && s[i + 1] == 'u') {
				uint32_t c = 0;

				for (size_t j = 2; j <= el; j++) {
					int h = hexval(s[i + j]);

					if (h < 0)
						rd_fail(r);
					c = c * 16 + h;
				}
				if (c >= 0x110000 ||
				    (c >= 0xd800 && c < 0xe000))
					rd_fail(r);
				put_utf8(r, c);
			} else {
				rd_fail(r);
			}
			i += el + 2;
		} else {
			size_t j = i;

			while (j < n && s[j] != '$' && s[j] != '.')
				j++;
			put(r, s + i, j - i);
			i = j;
		}
	}
}

static bool is_legacy_hash(const char *s, size_t n)
{
	if (n != 17 || s[0] != 'h')
		return false;
	for (size_t i = 1; i < n; i++)
		if (hexval(s[i]) < 0)
			return false;
	return true;
}

/* Print the ".suffix" after a name, dropping ".llvm.<hex or @>". */
static void put_suffix(struct rd *r, const char *s)
{
	if (!strncmp(s, ".llvm.", 6)) {
		const char *p = s + 6;

		while (*p && (isxdigit((unsigned char)*p) || *p == '@'))
			p++;
		if (!*p)
			return;
	}
	puts_(r, s);
}

static void legacy(struct rd *r, const char *name)
{
	const char *p = name + 3, *last = NULL;
	size_t lastn = 0, ncomp = 0;

	/* first pass: find the components and check the hash */
	while (*p != 'E') {
		size_t n = 0;

		if (!isdigit((unsigned char)*p) || *p == '0')
			rd_fail(r);
		while (isdigit((unsigned char)*p)) {
			n = n * 10 + (*p++ - '0');
			if (n > 4096)
				rd_fail(r);
		}
		if (strnlen(p, n) < n)
			rd_fail(r);
		last = p;
		lastn = n;
		p += n;
		ncomp++;
	}
	if (ncomp < 2 || !is_legacy_hash(last, lastn))
		rd_fail(r);
	/* second pass: print all but the hash */
	p = name + 3;
	for (size_t c = 0; c + 1 < ncomp; c++) {
		size_t n = strtoul(p, (char **)&p, 10);

		if (c)
			put(r, "::", 2);
		legacy_ident(r, p, n);
		p += n;
	}
	put_suffix(r, last + lastn + 1);
}

/* --- v0 --- */

static int peek(struct rd *r)
{
	return r->pos < r->len ? (unsigned char)r->sym[r->pos] : 0;
}

static int next(struct rd *r)
{
	if (r->pos >= r->len)
		rd_fail(r);
	return (unsigned char)r->sym[r->pos++];
}

static bool eat(struct rd *r, int c)
{
	if (peek(r) != c)
		return false;
	r->pos++;
	return true;
}

/* base-62-number: "_" is 0, "<digits>_" is value + 1 */
static uint64_t base62(struct rd *r)
{
	uint64_t x = 0;

	if (eat(r, '_'))
		return 0;
	for (;;) {
		int c = next(r), d;

		if (c == '_')
			break;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'z')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'Z')
			d = c - 'A' + 36;
		else
			rd_fail(r);
		if (x > (UINT64_MAX - d) / 62)
			rd_fail(r);
		x = x * 62 + d;
	}
	if (x == UINT64_MAX)
		rd_fail(r);
	return x + 1;
}

/* [tag base-62-number]: 0 if absent, else the number + 1 */
static uint64_t opt62(struct rd *r, int tag)
{
	uint64_t v;

	if (!eat(r, tag))
		return 0;
	v = base62(r);
	if (v == UINT64_MAX)
		rd_fail(r);
	return v + 1;
}

struct ident {
	const char *s;
	size_t n;
	bool puny;
};

static struct ident ident(struct rd *r)
{
	struct ident id = { 0 };
	size_t n = 0;

	id.puny = eat(r, 'u');
	if (!isdigit(peek(r)))
		rd_fail(r);
	if (eat(r, '0')) {
		n = 0;
	} else {
		while (isdigit(peek(r))) {
			n = n * 10 + (next(r) - '0');
			if (n > r->len)
				rd_fail(r);
		}
	}
	eat(r, '_');
	if (n > r->len - r->pos)
		rd_fail(r);
	id.s = r->sym + r->pos;
	id.n = n;
	r->pos += n;
	return id;
}

static void put_ident(struct rd *r, struct ident id)
{
	if (!id.puny) {
		put(r, id.s, id.n);
		return;
	}
	puts_(r, "punycode{");
	put(r, id.s, id.n);
	put(r, "}", 1);
}

static void path(struct rd *r, bool in_value);
static void type(struct rd *r);
static void constant(struct rd *r);

static void enter(struct rd *r)
{
	if (++r->depth > RD_MAX_DEPTH)
		rd_fail(r);
}

/* Run fn at the position a back-reference names (parsing only when
 * printing is off: what it refers to was parsed already). */
static void backref(struct rd *r, void (*fn)(struct rd *, bool), bool arg)
{
	size_t start = r->pos - 1, save;
	uint64_t i = base62(r);

	if (i >= start)
		rd_fail(r);
	if (r->skip)
		return;
	enter(r);
	save = r->pos;
	r->pos = i;
	fn(r, arg);
	r->pos = save;
	r->depth--;
}

static void type_fn(struct rd *r, bool unused)
{
	(void)unused;
	type(r);
}

static void const_fn(struct rd *r, bool unused)
{
	(void)unused;
	constant(r);
}

static void lifetime(struct rd *r, uint64_t lt)
{
	uint64_t d;

	put(r, "'", 1);
	if (lt == 0) {
		put(r, "_", 1);
		return;
	}
	if (lt > r->bound_lt)
		rd_fail(r);
	d = r->bound_lt - lt;
	if (d < 26) {
		char c = 'a' + d;

		put(r, &c, 1);
	} else {
		put(r, "_", 1);
		put_u64(r, d);
	}
}

static void generic_arg(struct rd *r)
{
	if (eat(r, 'L'))
		lifetime(r, base62(r));
	else if (eat(r, 'K'))
		constant(r);
	else
		type(r);
}

static void generic_args(struct rd *r)
{
	for (int i = 0; !eat(r, 'E'); i++) {
		if (i)
			put(r, ", ", 2);
		generic_arg(r);
	}
}

/* impl-path = [disambiguator] path, never printed */
static void skip_impl_path(struct rd *r)
{
	bool s = r->skip;

	r->skip = true;
	opt62(r, 's');
	path(r, false);
	r->skip = s;
}

static void path(struct rd *r, bool in_value)
{
	int c;

	enter(r);
	c = next(r);
	switch (c) {
	case 'C':
		opt62(r, 's');
		put_ident(r, ident(r));
		break;
	case 'M':
		skip_impl_path(r);
		put(r, "<", 1);
		type(r);
		put(r, ">", 1);
		break;
	case 'X':
		skip_impl_path(r);
		/* fall through */
	case 'Y':
		put(r, "<", 1);
		type(r);
		puts_(r, " as ");
		path(r, false);
		put(r, ">", 1);
		break;
	case 'N': {
		int ns = next(r);
		uint64_t dis;
		struct ident id;

		if (!isalpha(ns))
			rd_fail(r);
		path(r, in_value);
		dis = opt62(r, 's');
		id = ident(r);
		if (isupper(ns)) {
			put(r, "::{", 3);
			if (ns == 'C')
				puts_(r, "closure");
			else if (ns == 'S')
				puts_(r, "shim");
			else {
				char nc = ns;

				put(r, &nc, 1);
			}
			if (id.n) {
				put(r, ":", 1);
				put_ident(r, id);
			}
			put(r, "#", 1);
			put_u64(r, dis);
			put(r, "}", 1);
		} else if (id.n) {
			put(r, "::", 2);
			put_ident(r, id);
		}
		break;
	}
	case 'I':
		path(r, in_value);
		if (in_value)
			put(r, "::", 2);
		put(r, "<", 1);
		generic_args(r);
		put(r, ">", 1);
		break;
	case 'B':
		backref(r, path, in_value);
		break;
	default:
		rd_fail(r);
	}
	r->depth--;
}

/* The basic type of tag c, or NULL. */
static const char *basic_type(int c)
{
	static const char *const names[26] = {
		['a' - 'a'] = "i8",    ['b' - 'a'] = "bool",
		['c' - 'a'] = "char",  ['d' - 'a'] = "f64",
		['e' - 'a'] = "str",   ['f' - 'a'] = "f32",
		['h' - 'a'] = "u8",    ['i' - 'a'] = "isize",
		['j' - 'a'] = "usize", ['l' - 'a'] = "i32",
		['m' - 'a'] = "u32",   ['n' - 'a'] = "i128",
		['o' - 'a'] = "u128",  ['p' - 'a'] = "_",
		['s' - 'a'] = "i16",   ['t' - 'a'] = "u16",
		['u' - 'a'] = "()",    ['v' - 'a'] = "...",
		['x' - 'a'] = "i64",   ['y' - 'a'] = "u64",
		['z' - 'a'] = "!",
	};

	return c >= 'a' && c <= 'z' ? names[c - 'a'] : NULL;
}

/* [binder]: "for<'a, 'b> " and the lifetimes it binds, around fn */
static void binder(struct rd *r, void (*fn)(struct rd *))
{
	uint64_t n = opt62(r, 'G');

	if (n > 1000)
		rd_fail(r);
	if (n) {
		puts_(r, "for<");
		for (uint64_t i = 0; i < n; i++) {
			if (i)
				put(r, ", ", 2);
			r->bound_lt++;
			lifetime(r, 1);
		}
		puts_(r, "> ");
	}
	fn(r);
	r->bound_lt -= n;
}

static void fn_sig(struct rd *r)
{
	bool is_unsafe = eat(r, 'U');

	if (is_unsafe)
		puts_(r, "unsafe ");
	if (eat(r, 'K')) {
		puts_(r, "extern \"");
		if (eat(r, 'C')) {
			put(r, "C", 1);
		} else {
			struct ident id = ident(r);

			if (id.puny)
				rd_fail(r);
			for (size_t i = 0; i < id.n; i++)
				put(r, id.s[i] == '_' ? "-" : id.s + i, 1);
		}
		puts_(r, "\" ");
	}
	puts_(r, "fn(");
	for (int i = 0; !eat(r, 'E'); i++) {
		if (i)
			put(r, ", ", 2);
		type(r);
	}
	put(r, ")", 1);
	if (!eat(r, 'u')) {
		puts_(r, " -> ");
		type(r);
	}
}

/* A dyn trait's path, leaving its generic list open for the associated
 * type bindings; returns whether it is open. */
static bool path_open(struct rd *r)
{
	bool open = false;

	enter(r);
	if (eat(r, 'B')) {
		size_t start = r->pos - 1, save;
		uint64_t i = base62(r);

		if (i >= start)
			rd_fail(r);
		if (!r->skip) {
			save = r->pos;
			r->pos = i;
			open = path_open(r);
			r->pos = save;
		}
	} else if (eat(r, 'I')) {
		path(r, false);
		put(r, "<", 1);
		generic_args(r);
		open = true;
	} else {
		path(r, false);
	}
	r->depth--;
	return open;
}

static void dyn_bounds(struct rd *r)
{
	for (int i = 0; !eat(r, 'E'); i++) {
		bool open;

		if (i)
			puts_(r, " + ");
		open = path_open(r);
		while (eat(r, 'p')) {
			put(r, open ? ", " : "<", open ? 2 : 1);
			open = true;
			put_ident(r, ident(r));
			puts_(r, " = ");
			type(r);
		}
		if (open)
			put(r, ">", 1);
	}
}

static void type(struct rd *r)
{
	const char *b;
	int c;

	enter(r);
	c = next(r);
	b = basic_type(c);
	if (b) {
		puts_(r, b);
		r->depth--;
		return;
	}
	switch (c) {
	case 'R':
	case 'Q':
		put(r, "&", 1);
		if (eat(r, 'L')) {
			uint64_t lt = base62(r);

			if (lt) {
				lifetime(r, lt);
				put(r, " ", 1);
			}
		}
		if (c == 'Q')
			puts_(r, "mut ");
		type(r);
		break;
	case 'P':
		puts_(r, "*const ");
		type(r);
		break;
	case 'O':
		puts_(r, "*mut ");
		type(r);
		break;
	case 'A':
		put(r, "[", 1);
		type(r);
		put(r, "; ", 2);
		constant(r);
		put(r, "]", 1);
		break;
	case 'S':
		put(r, "[", 1);
		type(r);
		put(r, "]", 1);
		break;
	case 'T': {
		int i;

		put(r, "(", 1);
		for (i = 0; !eat(r, 'E'); i++) {
			if (i)
				put(r, ", ", 2);
			type(r);
		}
		if (i == 1)
			put(r, ",", 1);
		put(r, ")", 1);
		break;
	}
	case 'F':
		binder(r, fn_sig);
		break;
	case 'D':
		puts_(r, "dyn ");
		binder(r, dyn_bounds);
		if (!eat(r, 'L'))
			rd_fail(r);
		{
			uint64_t lt = base62(r);

			if (lt) {
				puts_(r, " + ");
				lifetime(r, lt);
			}
		}
		break;
	case 'B':
		backref(r, type_fn, false);
		break;
	default:
		r->pos--;
		path(r, false);
	}
	r->depth--;
}

/* const-data: ["n"] {hex-digit} "_", printed in decimal (hex beyond 64
 * bits); bool and char as such. */
static void constant(struct rd *r)
{
	size_t start, n;
	bool neg = false;
	int ty;

	enter(r);
	if (eat(r, 'B')) {
		backref(r, const_fn, false);
		r->depth--;
		return;
	}
	ty = next(r);
	if (ty == 'p') {
		put(r, "_", 1);
		r->depth--;
		return;
	}
	if (!strchr("hmtyojasxlnibc", ty))
		rd_fail(r);
	if (strchr("asxlni", ty))
		neg = eat(r, 'n');
	start = r->pos;
	while (hexval(peek(r)) >= 0)
		r->pos++;
	n = r->pos - start;
	if (!eat(r, '_'))
		rd_fail(r);
	if (ty == 'b') {
		if (n != 1 || (r->sym[start] != '0' && r->sym[start] != '1'))
			rd_fail(r);
		puts_(r, r->sym[start] == '1' ? "true" : "false");
	} else if (n > 16) {
		if (neg)
			put(r, "-", 1);
		put(r, "0x", 2);
		put(r, r->sym + start, n);
	} else {
		uint64_t v = 0;

		for (size_t i = 0; i < n; i++)
			v = v * 16 + hexval(r->sym[start + i]);
		if (ty == 'c') {
			if (v >= 0x110000 || (v >= 0xd800 && v < 0xe000))
				rd_fail(r);
			put(r, "'", 1);
			if (v == '\'' || v == '\\') {
				put(r, "\\", 1);
				put_utf8(r, v);
			} else if (v < 0x20 || v == 0x7f) {
				char buf[16];

				snprintf(buf, sizeof(buf), "\\u{%x}",
					 (unsigned)v);
				puts_(r, buf);
			} else {
				put_utf8(r, v);
			}
			put(r, "'", 1);
		} else {
			if (neg)
				put(r, "-", 1);
			put_u64(r, v);
		}
	}
	r->depth--;
}

static void v0(struct rd *r, const char *name)
{
	const char *suffix;

	r->sym = name + 2;
	r->len = 0;
	while (isalnum((unsigned char)r->sym[r->len]) || r->sym[r->len] == '_')
		r->len++;
	suffix = r->sym + r->len;
	if (isdigit(peek(r)))
		rd_fail(r); /* an encoding version: not v0 */
	path(r, true);
	if (r->pos < r->len && isupper(peek(r))) {
		/* instantiating crate */
		r->skip = true;
		path(r, false);
		r->skip = false;
	}
	if (r->pos != r->len)
		rd_fail(r);
	if (*suffix && *suffix != '.')
		rd_fail(r);
	put_suffix(r, suffix);
}

char *elf_demangle_rust(const char *name, size_t max_out)
{
	/* volatile: read after longjmp */
	struct rd r = { .max = max_out };
	struct rd *volatile rp = &r;
	bool is_v0;

	if (!name)
		return NULL;
	is_v0 = !strncmp(name, "_R", 2);
	if (!is_v0 && strncmp(name, "_ZN", 3))
		return NULL;
	if (setjmp(r.fail)) {
		free(rp->out);
		return NULL;
	}
	if (is_v0)
		v0(&r, name);
	else
		legacy(&r, name);
	if (!r.out)
		rd_fail(&r);
	return r.out;
}
