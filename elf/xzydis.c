// SPDX-License-Identifier: GPL-2.0-or-later
/* xzydis.c — libZydis, opened on first use, as x86_decode_fast()'s
 * fallback for the instructions it leaves (xrefs.c). */
#include "config.h"

#include "elf/xzydis.h"
#include "elf/x86dec.h"
#include "util/dynlib.h"
#include "util/util.h"

#include <string.h>

/* Zydis is opened on first use, as libdebuginfod and libpfm are: record
 * and dump never decode code, and a memsz without libzydis4.0 installed
 * still runs everything else (size says the references were not
 * analysed). Its cost when used is one dlopen of a 640 KB library with
 * 2 658 relocations (capstone's had 77 409). The header gives the types;
 * the soname is the one Debian's libzydis4.0 ships. */
#define ZYDIS_SONAME "libZydis.so.4.0"

static __typeof__(&ZydisDecoderInit) xzy_init;
static __typeof__(&ZydisDecoderEnableMode) xzy_enable_mode;
static __typeof__(&ZydisDecoderDecodeInstruction) xzy_decode;

static const struct dynlib_sym zy_syms[] = {
    {"ZydisDecoderInit", (void **)&xzy_init},
    {"ZydisDecoderEnableMode", (void **)&xzy_enable_mode},
    {"ZydisDecoderDecodeInstruction", (void **)&xzy_decode},
};

static struct dynlib zy_lib = {
    .soname = ZYDIS_SONAME,
    .syms = zy_syms,
    .nsyms = ARRAY_SIZE(zy_syms),
};

/* Has the instruction an FS or GS segment prefix (thread-local data, not
 * an image address)? */
static bool fs_gs(const ZydisDecodedInstruction *in)
{
	for (uint8_t i = 0; i < in->raw.prefix_count; i++)
		if (in->raw.prefixes[i].value == 0x64 ||
		    in->raw.prefixes[i].value == 0x65)
			return true;
	return false;
}

/* Zydis's answer in the form of x86_decode_fast()'s. */
static void from_zydis(const ZydisDecodedInstruction *zin, struct x86_insn *in)
{
	const ZydisDecodedInstructionRaw *r = &zin->raw;

	memset(in, 0, sizeof(*in));
	in->len = zin->length;
	in->modrm = r->modrm.offset != 0;
	in->mod = r->modrm.mod;
	in->rm = r->modrm.rm;
	in->sib = r->sib.offset != 0;
	in->sib_base = r->sib.base;
	in->disp_size = r->disp.size;
	in->disp = r->disp.value;
	in->imm_size = r->imm[0].size;
	in->imm = r->imm[0].value.u;
	in->mov = zin->mnemonic == ZYDIS_MNEMONIC_MOV;
	in->store32 = in->mov && zin->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT &&
		      zin->opcode == 0xc7 && in->modrm && in->mod != 3 &&
		      zin->operand_width == 32;
	in->fs_gs = fs_gs(zin);
}

/* The instruction at p (n bytes left) into *in, by Zydis. Returns its
 * length, 0 if Zydis cannot decode it. */
size_t decode_zydis(const ZydisDecoder *dec, const uint8_t *p, size_t n,
		    struct x86_insn *in)
{
	ZydisDecodedInstruction zin;
	ZydisDecoderContext ctx;

	if (!ZYAN_SUCCESS(xzy_decode(dec, &ctx, p, n, &zin)))
		return 0;
	from_zydis(&zin, in);
	return in->len;
}

int xzy_decoder(ZydisDecoder *dec)
{
	int ret = dynlib_load(&zy_lib);

	if (ret < 0)
		return ret;
	if (!ZYAN_SUCCESS(xzy_init(dec, ZYDIS_MACHINE_MODE_LONG_64,
				   ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(
		xzy_enable_mode(dec, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE)))
		return -MEMSZ_ENOTSUP;
	return 0;
}
