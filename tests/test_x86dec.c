// SPDX-License-Identifier: GPL-2.0-or-later
/* test_x86dec.c — elf/x86dec.c, the fast length decoder in front of Zydis.
 *
 * Ground truth is Zydis itself (linked here, decoding in its minimal
 * mode as elf/xrefs.c asks it): wherever x86_decode_fast() answers, its
 * length and the fields that can name an address (ModRM mod and r/m, SIB
 * base, displacement, FS/GS, a MOV's 32/64-bit immediate) must be what
 * Zydis reports, and it must not answer where Zydis refuses the bytes;
 * x86_decode_ref() (the same answers, mostly from a table) must answer
 * where it does, with the same length and the address x86_insn_target()
 * finds in Zydis's fields (and the same kind: memory operand or MOV
 * immediate), for position-independent and -dependent code.
 * Checked over a linear sweep of the code of installed x86-64 binaries
 * (as xrefs.c sweeps), over pseudo-random bytes at every offset, over
 * every opcode and ModRM byte behind a few prefixes, over every VEX and
 * EVEX opcode and ModRM byte in many forms, and on encodings picked for
 * their traps.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <Zydis/Zydis.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/x86dec.h"

static ZydisDecoder dec;

/* Zydis's answer for p[0, n) into *z; false if it refuses the bytes. */
static bool zydis(const uint8_t *p, size_t n, struct x86_insn *z)
{
	ZydisDecodedInstruction in;
	ZydisDecoderContext ctx;
	const ZydisDecodedInstructionRaw *r = &in.raw;

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, &ctx, p, n, &in)))
		return false;
	memset(z, 0, sizeof(*z));
	z->len = in.length;
	z->modrm = r->modrm.offset != 0;
	z->mod = r->modrm.mod;
	z->rm = r->modrm.rm;
	z->sib = r->sib.offset != 0;
	z->sib_base = r->sib.base;
	z->disp_size = r->disp.size;
	z->disp = r->disp.value;
	z->imm_size = r->imm[0].size;
	z->imm = r->imm[0].value.u;
	z->mov = in.mnemonic == ZYDIS_MNEMONIC_MOV;
	z->store32 = z->mov && in.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT &&
		     in.opcode == 0xc7 && z->modrm && z->mod != 3 &&
		     in.operand_width == 32;
	for (uint8_t i = 0; i < r->prefix_count; i++)
		if (r->prefixes[i].value == 0x64 ||
		    r->prefixes[i].value == 0x65)
			z->fs_gs = true;
	return true;
}

/* Do the two answers agree on what xrefs.c reads? */
static bool same(const struct x86_insn *f, const struct x86_insn *z)
{
	if (f->len != z->len || f->modrm != z->modrm ||
	    f->disp_size != z->disp_size || f->disp != z->disp ||
	    f->fs_gs != z->fs_gs || f->mov != z->mov ||
	    f->store32 != z->store32)
		return false;
	if (f->modrm &&
	    (f->mod != z->mod || f->rm != z->rm || f->sib != z->sib ||
	     (f->sib && f->sib_base != z->sib_base)))
		return false;
	if (z->mov && z->imm_size >= 32)
		return f->imm_size == z->imm_size && f->imm == z->imm;
	return true;
}

/* The VM address the checks decode at (addresses wrap around 2^64 as
 * the sweep's arithmetic does) */
#define ADDR 0x401000u

/* Check x86_decode_ref() at p[0, n) against x86_decode_fast()'s answer
 * (length fl, fields f) and x86_insn_target() on Zydis's (z, if zok):
 * the same length, and the same address named, in position-independent
 * and position-dependent code (the table is computed when memsz is
 * built: each entry the checks reach is compared). */
static void check_ref(const uint8_t *p, size_t n, size_t off, size_t fl,
		      const struct x86_insn *f, bool zok,
		      const struct x86_insn *z)
{
	for (int k = 0; k < 2; k++) {
		bool abs = k;
		enum x86_kind ref = X86_K_NONE, fref, zref;
		uint64_t t = 0, ft = 0, zt = 0;
		size_t ll =
		    x86_decode_ref(p + off, n - off, ADDR + off, abs, &ref, &t);

		fref =
		    fl ? x86_insn_target(f, ADDR + off, abs, &ft) : X86_K_NONE;
		zref = fl && zok ? x86_insn_target(z, ADDR + off, abs, &zt)
				 : X86_K_NONE;
		if (ll != fl || ref != fref || (ref && t != ft) ||
		    ref != zref || (ref && t != zt)) {
			print_error("at +%zx (abs %d): table len %zu ref %d "
				    "%llx, fast len %zu ref %d %llx, zydis "
				    "ref %d %llx\n",
				    off, abs, ll, ref, (unsigned long long)t,
				    fl, fref, (unsigned long long)ft, zref,
				    (unsigned long long)zt);
			fail();
		}
	}
}

/* Compare at offset off of p[0, n); returns Zydis's length (0: refused)
 * and counts answers in *fast. */
static size_t check_at(const uint8_t *p, size_t n, size_t off, long *fast)
{
	struct x86_insn f, z;
	size_t fl = x86_decode_fast(p + off, n - off, &f);
	bool zok = zydis(p + off, n - off, &z);

	if (fl)
		(*fast)++;
	if (fl && (!zok || !same(&f, &z))) {
		char hex[64] = "";

		for (size_t k = 0; k < 15 && off + k < n; k++)
			snprintf(hex + 3 * k, sizeof(hex) - 3 * k, " %02x",
				 p[off + k]);
		print_error("at +%zx:%s: fast len %zu, zydis %s len %u\n", off,
			    hex, fl, zok ? "ok" : "refuses", zok ? z.len : 0);
		fail();
	}
	check_ref(p, n, off, fl, &f, zok, &z);
	return zok ? z.len : 0;
}

/* Sweep the executable sections of path as xrefs.c does; returns the
 * number of instructions (0 if path is not an x86-64 ELF file). */
static long sweep_file(const char *path, long *fast)
{
	int fd = open(path, O_RDONLY);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	long n = 0;

	if (e && gelf_getehdr(e, &eh) && eh.e_machine == EM_X86_64)
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) ||
			    !(sh.sh_flags & SHF_EXECINSTR) ||
			    sh.sh_type != SHT_PROGBITS)
				continue;
			d = elf_rawdata(scn, NULL);
			for (size_t off = 0; d && d->d_buf && off < d->d_size;
			     n++) {
				size_t len =
				    check_at(d->d_buf, d->d_size, off, fast);

				off += len ? len : 1;
			}
		}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return n;
}

static void test_installed_code(void **state)
{
	static const char *const files[] = {
	    "/proc/self/exe",
	    "/usr/lib/x86_64-linux-gnu/libc.so.6",
	    "/usr/lib/x86_64-linux-gnu/libZydis.so.4.0",
	    "/usr/lib/x86_64-linux-gnu/libelf.so.1",
	    "/usr/bin/readelf",
	};
	long total = 0, fast = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		total += sweep_file(files[i], &fast);
	if (!total)
		skip(); /* not an x86-64 machine */
	/* the fast path must carry most of compiled code, or it is not
	 * worth having */
	assert_true(fast * 10 > total * 8);
}

static void test_random_bytes(void **state)
{
	static uint8_t buf[1 << 18];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	long fast = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (uint8_t)x;
	}
	for (size_t off = 0; off < sizeof(buf); off++)
		check_at(buf, sizeof(buf), off, &fast);
	assert_true(fast > 0);
}

/* Every opcode of the one-byte and 0F maps with every ModRM byte (and,
 * where a SIB byte follows, a base 5 and another), behind each of a few
 * prefix runs and REX bytes, followed by bytes that make any
 * displacement or immediate nonzero: where the table and the decoder
 * answer, they answer as Zydis does. */
static void test_exhaustive(void **state)
{
	static const uint8_t pre[][4] = {
	    {0},
	    {1, 0x66},
	    {1, 0xf2},
	    {1, 0xf3},
	    {1, 0x64},
	    {1, 0x2e},
	    {1, 0x67},
	    {1, 0xf0},
	    {2, 0x66, 0x2e},
	    {2, 0x2e, 0xf3},
	    {2, 0xf3, 0x2e},
	    {2, 0x66, 0xf2},
	    {2, 0xf2, 0x66},
	    {2, 0xf3, 0xf2},
	    {2, 0x64, 0xf2},
	    {1, 0x65},
	    {1, 0x3e},
	    {2, 0x64, 0x66},
	    {3, 0x66, 0x67, 0x65},
	};
	static const uint8_t rex[] = {0, 0x40, 0x48, 0x41};
	uint8_t b[2 * X86_FAST_READ];
	long fast = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(0x81 + 0x1d * i);
	for (size_t pi = 0; pi < sizeof(pre) / sizeof(pre[0]); pi++)
		for (size_t ri = 0; ri < sizeof(rex); ri++)
			for (unsigned v = 0; v < 2 * 256 * 256 * 2; v++) {
				unsigned two = v >> 17, op = (v >> 9) & 255;
				unsigned m = (v >> 1) & 255, sib = v & 1;
				size_t i = 0;

				/* a second SIB only where one is read */
				if (sib && !((m & 7) == 4 && m >> 6 != 3))
					continue;
				memcpy(b, pre[pi] + 1, pre[pi][0]);
				i = pre[pi][0];
				if (rex[ri])
					b[i++] = rex[ri];
				if (two)
					b[i++] = 0x0f;
				b[i++] = (uint8_t)op;
				b[i++] = (uint8_t)m;
				b[i] = sib ? 0x25 : 0x4c;
				check_at(b, sizeof(b), 0, &fast);
			}
	assert_true(fast > 0);
}

/* VEX: every opcode of the 0F, 0F38 and 0F3A maps with every ModRM byte
 * (and two SIB bytes where one is read), for each L, W and mandatory
 * prefix (pp), with vvvv 1111 and another value, behind C4 and (map 0F,
 * W 0) C5, the other vvvv values and R/X/B bits drawn at random; and C4
 * with the maps that do not exist: where the decoders answer, they
 * answer as Zydis does. */
static void test_vex(void **state)
{
	static const uint8_t nomap[] = {0, 4, 5, 6, 7, 8, 0x1f};
	uint64_t x = 0x853c49e6748fea9bull;
	uint8_t b[2 * X86_FAST_READ];
	long fast = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(0x81 + 0x1d * i);
	for (unsigned map = 0; map < 4 + sizeof(nomap); map++)
		for (unsigned v = 0; v < 32 * 256 * 256 * 2; v++) {
			unsigned form = v >> 17, op = (v >> 9) & 255;
			unsigned m = (v >> 1) & 255, sib = v & 1;
			unsigned l = form & 1, w = (form >> 1) & 1;
			unsigned pp = (form >> 2) & 3, vused = form >> 4;
			unsigned vvvv, i = 0;

			/* the maps that do not exist: a sample of forms */
			if (map >= 4 && form % 5)
				continue;
			if ((sib && !((m & 7) == 4 && m >> 6 != 3)) ||
			    (map == 0 && w))
				continue;
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			vvvv = vused ? (unsigned)(x % 15) : 15;
			if (map == 0) {
				b[i++] = 0xc5;
				b[i++] = (uint8_t)((x >> 8 & 1) << 7 |
						   vvvv << 3 | l << 2 | pp);
			} else {
				b[i++] = 0xc4;
				b[i++] =
				    (uint8_t)((x >> 8 & 7) << 5 |
					      (map < 4 ? map : nomap[map - 4]));
				b[i++] =
				    (uint8_t)(w << 7 | vvvv << 3 | l << 2 | pp);
			}
			b[i++] = (uint8_t)op;
			b[i++] = (uint8_t)m;
			b[i] = sib ? 0x25 : 0x4c;
			check_at(b, sizeof(b), 0, &fast);
		}
	/* most of AVX and AVX2: answered by the table */
	assert_true(fast > 400000); /* 440 553 with Zydis 4.0 */
}

/* One EVEX instruction into b: map, pp, opcode, ModRM (and a SIB and
 * displacement bytes after it), in form f: W, L'L (2 bits), b, z, an
 * opmask, vvvv/V' naming a register, R' and X (bits 0-8), the opmask,
 * vvvv/V', R, B and the SIB drawn from r. */
static void evex_at(uint8_t *b, unsigned map, unsigned pp, unsigned op,
		    unsigned m, unsigned f, uint64_t r)
{
	unsigned vvvv = 15, vp = 1;

	/* a register: any vvvv/V' but 1111/1 */
	if (f >> 6 & 1)
		do {
			vvvv = r & 15;
			vp = r >> 4 & 1;
			r = r >> 5 | r << 59;
		} while (vvvv == 15 && vp);
	b[0] = 0x62;
	b[1] = (uint8_t)((r >> 8 & 1) << 7 | !(f >> 8 & 1) << 6 |
			 (r >> 9 & 1) << 5 | !(f >> 7 & 1) << 4 | map);
	b[2] = (uint8_t)((f & 1) << 7 | vvvv << 3 | 4 | pp);
	b[3] = (uint8_t)((f >> 4 & 1) << 7 | (f >> 1 & 3) << 5 |
			 (f >> 3 & 1) << 4 | vp << 3 |
			 (f >> 5 & 1 ? 1 + (r >> 10) % 7 : 0));
	b[4] = (uint8_t)op;
	b[5] = (uint8_t)m;
	b[6] = r >> 13 & 1 ? 0x25 : (uint8_t)(r >> 14);
}

/* EVEX: every map, pp, opcode and ModRM byte in random forms, and every
 * map, pp and opcode in every form with random ModRM bytes; the maps
 * that do not exist; all against Zydis. */
static void test_evex(void **state)
{
	static const uint8_t maps[] = {1, 2, 3, 5, 6, 0, 4, 7};
	uint64_t x = 0x6a09e667f3bcc909ull;
	uint8_t b[2 * X86_FAST_READ];
	long fast = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(0x81 + 0x1d * i);
	for (size_t mi = 0; mi < sizeof(maps); mi++)
		for (unsigned v = 0; v < 4 * 256 * 256; v++) {
			unsigned pp = v >> 16, op = (v >> 8) & 255, m = v & 255;

			for (int k = 0; k < (mi < 5 ? 4 : 1); k++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				evex_at(b, maps[mi], pp, op, m,
					(unsigned)x & 511, x >> 9);
				check_at(b, sizeof(b), 0, &fast);
			}
			if (m >= 4) /* every form: 4 ModRM bytes per opcode */
				continue;
			for (unsigned f = 0; f < 512 && mi < 5; f++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				evex_at(b, maps[mi], pp, op,
					(unsigned)(x >> 32) & 255, f, x);
				check_at(b, sizeof(b), 0, &fast);
			}
		}
	/* most of AVX-512: answered by the table */
	assert_true(fast > 250000); /* 283 024 with Zydis 4.0 */
}

/* Runs of 0 to 14 prefixes (legacy ones and any REX, in any order and
 * number, up to the 15-byte limit), then maybe a REX and an 0F, then
 * random bytes, sometimes cut short: where the decoders answer, they
 * answer as Zydis does (the exhaustive walk tries a few short runs and
 * three REX bytes only). */
static void test_prefix_runs(void **state)
{
	static const uint8_t pre[] = {0x66, 0x67, 0xf2, 0xf3, 0xf0, 0x26,
				      0x2e, 0x36, 0x3e, 0x64, 0x65};
	uint64_t x = 0x2545f4914f6cdd1dull;
	uint8_t b[2 * X86_FAST_READ];
	long fast = 0;

	(void)state;
	for (long it = 0; it < 1000000; it++) {
		size_t i = 0, n = sizeof(b), np;

		for (size_t k = 0; k < sizeof(b); k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			b[k] = (uint8_t)(x >> 24);
		}
		np = x % 15;
		for (size_t k = 0; k < np; k++)
			b[i++] = b[k + 16] & 1
				     ? (uint8_t)(0x40 | (b[k + 32] & 15))
				     : pre[b[k + 32] % sizeof(pre)];
		if (x >> 60 & 1)
			b[i++] = (uint8_t)(0x40 | (x >> 40 & 15));
		if (x >> 58 & 3)
			b[i++] = 0x0f;
		else if (x >> 56 & 1) /* VEX */
			b[i++] = x >> 55 & 1 ? 0xc4 : x >> 54 & 1 ? 0xc5 : 0x62;
		if (!(x >> 50 & 3))
			n = 1 + (x >> 8) % 20;
		check_at(b, n, 0, &fast);
	}
	assert_true(fast > 0);
}

static void test_picked(void **state)
{
	static const struct {
		uint8_t b[24];
		size_t n; /* bytes given */
	} cases[] = {
	    /* 66 REX.W C7: REX.W wins, the immediate stays 4 bytes */
	    {{0x66, 0x48, 0xc7, 0x45, 0xe8, 0xc0, 0x6b, 0xb3, 0x00}, 9},
	    /* mov $imm32 into a register: the raw value is sign-extended */
	    {{0xb8, 0xff, 0xff, 0xff, 0xff}, 5},
	    {{0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8}, 10},
	    /* RIP-relative, SIB without base, FS-relative */
	    {{0x48, 0x8b, 0x05, 0x10, 0x20, 0x30, 0x40}, 7},
	    {{0xff, 0x24, 0xc5, 0x00, 0x10, 0x40, 0x00}, 7},
	    {{0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0}, 9},
	    /* lea with a register operand, xbegin, far jmp to a register,
	     * LOCK, a REX before a prefix: all refused here or by Zydis */
	    {{0x48, 0x8d, 0xc0}, 3},
	    {{0xc7, 0xf8, 0, 0, 0, 0}, 6},
	    {{0xff, 0xe8}, 2},
	    {{0xf0, 0x48, 0x01, 0x07}, 4},
	    {{0x48, 0x66, 0x90}, 3},
	    /* what position-dependent code names: a MOV's imm64 and imm32
	     * (to memory: c7 /0), RIP before the MOV's immediate, a disp32
	     * without base before it, the same under FS (not an address),
	     * moffs (Zydis only) */
	    {{0x48, 0xbf, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80}, 10},
	    {{0x48, 0xc7, 0xc7, 0xf0, 0xff, 0xff, 0xff}, 7},
	    {{0xc7, 0x05, 0x10, 0, 0, 0, 0x78, 0x56, 0x34, 0x12}, 10},
	    {{0xc7, 0x04, 0x25, 0x10, 0x20, 0x30, 0, 1, 0, 0, 0}, 11},
	    {{0x64, 0xc7, 0x04, 0x25, 0x10, 0x20, 0x30, 0, 1, 0, 0, 0}, 12},
	    {{0x48, 0xa1, 1, 2, 3, 4, 5, 6, 7, 8}, 10},
	    /* a second REX, a REX before 0F with a prefix after */
	    {{0x48, 0x48, 0x8b, 0x05, 0x10, 0x20, 0x30, 0x40}, 8},
	    {{0x48, 0x0f, 0x66, 0x90}, 4},
	    /* VEX: vmovdqu (%rip), %ymm0; vpshufb (%rip), %ymm1, %ymm1;
	     * vpalignr $8, (%rip), %ymm1, %ymm1 (its immediate after the
	     * displacement); vzeroupper (no ModRM); shlx (BMI2); a VEX
	     * behind 66 (refused) */
	    {{0xc5, 0xfe, 0x6f, 0x05, 0x10, 0x20, 0x30, 0x40}, 8},
	    {{0xc4, 0xe2, 0x75, 0x00, 0x0d, 0x10, 0x20, 0x30, 0x40}, 9},
	    {{0xc4, 0xe3, 0x75, 0x0f, 0x0d, 0x10, 0x20, 0x30, 0x40, 0x08}, 10},
	    {{0xc5, 0xf8, 0x77}, 3},
	    {{0xc4, 0xe2, 0xf9, 0xf7, 0xc7}, 5},
	    {{0x66, 0xc5, 0xfe, 0x6f, 0x05, 0x10, 0x20, 0x30, 0x40}, 9},
	    /* EVEX: vmovdqu64 (%rip), %zmm16; vpcmpb $1, (%rip), %zmm0,
	     * %k1 (the immediate after the displacement); a disp8 (scaled
	     * by the operand size, one byte still) */
	    {{0x62, 0xe1, 0xfe, 0x48, 0x6f, 0x05, 0x10, 0x20, 0x30, 0x40}, 10},
	    {{0x62, 0xf3, 0x7d, 0x48, 0x3f, 0x0d, 0x10, 0x20, 0x30, 0x40, 1},
	     11},
	    {{0x62, 0xf1, 0xfe, 0x48, 0x6f, 0x46, 0x01}, 7},
	    /* cut short */
	    {{0x48, 0x8b, 0x05, 0x10}, 4},
	    {{0xe8, 0x00}, 2},
	    /* 15 prefixes: too long */
	    {{0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
	      0x66, 0x66, 0x66, 0x90},
	     15},
	    /* padding NOPs (pad_nop_len): 66 2E 0F 1F 84 00 disp32 cut
	     * after its SIB byte; behind 13 66s, 21 bytes: too long */
	    {{0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00}, 6},
	    {{0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
	      0x66, 0x66, 0x0f, 0x1f, 0x84, 0x00, 0,	0,    0,    0},
	     21},
	};
	long fast = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* as given, and followed by zeros (the table's path wants
		 * X86_FAST_READ bytes) */
		uint8_t pad[2 * X86_FAST_READ] = {0};

		check_at(cases[i].b, cases[i].n, 0, &fast);
		memcpy(pad, cases[i].b, cases[i].n);
		check_at(pad, sizeof(pad), 0, &fast);
	}
	/* the first six are the common kinds the fast path exists for */
	assert_true(fast >= 6);
}

static int setup(void **state)
{
	(void)state;
	elf_version(EV_CURRENT);
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
					   ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(ZydisDecoderEnableMode(
		&dec, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE)))
		return -1;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_installed_code),
	    cmocka_unit_test(test_random_bytes),
	    cmocka_unit_test(test_exhaustive),
	    cmocka_unit_test(test_vex),
	    cmocka_unit_test(test_evex),
	    cmocka_unit_test(test_prefix_runs),
	    cmocka_unit_test(test_picked),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
