// SPDX-License-Identifier: GPL-2.0-or-later
/* x86vex.c — the length and address fields of VEX-encoded instructions
 * (AVX, AVX2, FMA, F16C, BMI1/2: the C5 and C4 prefixes, maps 0F, 0F38
 * and 0F3A): the table x86dec.c's x86_decode_fast() reads before Zydis
 * is asked.
 *
 * After the VEX prefix, the length is the opcode, a ModRM byte with its
 * SIB and displacement (laid out as without VEX; all but vzeroupper and
 * vzeroall have one) and an 8-bit immediate for some opcodes (all of
 * 0F3A): nothing depends on an operand size. What remains to know is
 * whether the instruction exists: per map, mandatory prefix (pp) and
 * opcode, for which vector length (L), REX.W-like bit (W), ModRM reg
 * (the group opcodes), register or memory operand (ModRM mod 3 or not)
 * and whether VEX.vvvv names a register (not 1111). The rows below say
 * that as Zydis 4.0 decodes it (the reference: tests/test_x86dec walks
 * every map, pp, opcode, ModRM byte, L, W and several vvvv and
 * R/X/B values against it). What is not listed goes to Zydis: most
 * AVX-512 mask-register opcodes (0F 41-4B, 90-99), gathers (their VSIB
 * registers must differ), AMX and the Xeon Phi forms, whose validity
 * depends on more than these fields; and VEX behind a 66, F2, F3 or REX
 * prefix (Zydis refuses it).
 */
#include "config.h"

#include "elf/x86dec.h"

/* A row's mask: bit L | W << 1 | (vvvv != 1111) << 2 | (mod == 3) << 3
 * set where that form exists; the masks below are the forms each
 * condition allows, and a row's mask the AND of its conditions. */
enum {
	ANY = 0xffff,
	L0 = 0x5555, /* VEX.128 (a row without L0 or L1 ignores L) */
	L1 = 0xaaaa, /* VEX.256 */
	W0 = 0x3333,
	W1 = 0xcccc,
	NOV = 0x0f0f, /* vvvv unused: must be 1111 */
	MEM = 0x00ff, /* memory operand only */
	REG = 0xff00, /* register operand only */
};

/* A row (x86dec.h): the mask, an 8-bit immediate (IB), no ModRM byte
 * (NM), or the ModRM reg field selects the mask from x86_vex_group[]
 * (VG). */
enum { IB = X86V_IB, NM = X86V_NM };
#define V(mask, f) ((uint32_t)(mask) | (uint32_t)(f))
#define VG(g, f) ((uint32_t)(g) << X86V_GROUP | (uint32_t)(f))

/* clang-format off */
const uint32_t x86_vex_tab[3][4][256] = {
    [0] = { /* 0F */
        [0] = { /* no prefix */
            [0x10 ... 0x11] = V(NOV, 0),
            [0x12] = V(L0, 0),
            [0x13] = V(L0 & NOV & MEM, 0),
            [0x14 ... 0x15] = V(ANY, 0),
            [0x16] = V(L0, 0),
            [0x17 ... 0x18] = V(L0 & NOV & MEM, 0),
            [0x28 ... 0x29] = V(NOV, 0),
            [0x2b] = V(NOV & MEM, 0),
            [0x2e ... 0x2f] = V(NOV, 0),
            [0x50] = V(NOV & REG, 0),
            [0x51 ... 0x53] = V(NOV, 0),
            [0x54 ... 0x59] = V(ANY, 0),
            [0x5a ... 0x5b] = V(NOV, 0),
            [0x5c ... 0x5f] = V(ANY, 0),
            [0x77] = V(NOV, NM),
            [0x93] = V(L0 & W0 & NOV & REG, 0),
            [0xae] = VG(3, 0),
            [0xc2] = V(ANY, IB),
            [0xc6] = V(ANY, IB),
        },
        [1] = { /* 66 */
            [0x10 ... 0x11] = V(NOV, 0),
            [0x12] = V(L0 & MEM, 0),
            [0x13] = V(L0 & NOV & MEM, 0),
            [0x14 ... 0x15] = V(ANY, 0),
            [0x16] = V(L0 & MEM, 0),
            [0x17] = V(L0 & NOV & MEM, 0),
            [0x28 ... 0x29] = V(NOV, 0),
            [0x2b] = V(NOV & MEM, 0),
            [0x2e ... 0x2f] = V(NOV, 0),
            [0x50] = V(NOV & REG, 0),
            [0x51] = V(NOV, 0),
            [0x54 ... 0x59] = V(ANY, 0),
            [0x5a ... 0x5b] = V(NOV, 0),
            [0x5c ... 0x6d] = V(ANY, 0),
            [0x6e] = V(L0 & NOV, 0),
            [0x6f] = V(NOV, 0),
            [0x70] = V(NOV, IB),
            [0x71 ... 0x72] = VG(1, IB),
            [0x73] = VG(2, IB),
            [0x74 ... 0x76] = V(ANY, 0),
            [0x7c ... 0x7d] = V(ANY, 0),
            [0x7e] = V(L0 & NOV, 0),
            [0x7f] = V(NOV, 0),
            [0x93] = V(L0 & W0 & NOV & REG, 0),
            [0xc2] = V(ANY, IB),
            [0xc4] = V(L0, IB),
            [0xc5] = V(L0 & NOV & REG, IB),
            [0xc6] = V(ANY, IB),
            [0xd0 ... 0xd5] = V(ANY, 0),
            [0xd6] = V(L0 & NOV, 0),
            [0xd7] = V(NOV & REG, 0),
            [0xd8 ... 0xe5] = V(ANY, 0),
            [0xe6] = V(NOV, 0),
            [0xe7] = V(NOV & MEM, 0),
            [0xe8 ... 0xef] = V(ANY, 0),
            [0xf1 ... 0xf6] = V(ANY, 0),
            [0xf7] = V(L0 & NOV & REG, 0),
            [0xf8 ... 0xfe] = V(ANY, 0),
        },
        [2] = { /* F3 */
            [0x10 ... 0x11] = V((NOV & MEM) | (ANY & REG), 0),
            [0x12] = V(NOV, 0),
            [0x16] = V(NOV, 0),
            [0x2a] = V(ANY, 0),
            [0x2c ... 0x2d] = V(NOV, 0),
            [0x51 ... 0x53] = V(ANY, 0),
            [0x58 ... 0x5a] = V(ANY, 0),
            [0x5b] = V(NOV, 0),
            [0x5c ... 0x5f] = V(ANY, 0),
            [0x6f] = V(NOV, 0),
            [0x70] = V(NOV, IB),
            [0x7e] = V(L0 & NOV, 0),
            [0x7f] = V(NOV, 0),
            [0xae] = VG(4, 0),
            [0xb8] = V(L0 & NOV & REG, 0),
            [0xbc ... 0xbd] = V(L0 & NOV & REG, 0),
            [0xc2] = V(ANY, IB),
            [0xe6] = V(NOV, 0),
        },
        [3] = { /* F2 */
            [0x10 ... 0x11] = V((NOV & MEM) | (ANY & REG), 0),
            [0x12] = V(NOV, 0),
            [0x2a] = V(ANY, 0),
            [0x2c ... 0x2d] = V(NOV, 0),
            [0x51] = V(ANY, 0),
            [0x58 ... 0x5a] = V(ANY, 0),
            [0x5c ... 0x5f] = V(ANY, 0),
            [0x70] = V(NOV, IB),
            [0x7c ... 0x7d] = V(ANY, 0),
            [0x93] = V(L0 & NOV & REG, 0),
            [0xae] = VG(4, 0),
            [0xbc] = V(L0 & NOV & REG, 0),
            [0xc2] = V(ANY, IB),
            [0xd0] = V(ANY, 0),
            [0xe6] = V(NOV, 0),
            [0xf0] = V(NOV & MEM, 0),
        },
    },
    [1] = { /* 0F38 */
        [0] = { /* no prefix */
            [0xf2] = V(L0, 0),
            [0xf3] = VG(6, 0),
            [0xf5] = V(L0, 0),
            [0xf7] = V(L0, 0),
        },
        [1] = { /* 66 */
            [0x00 ... 0x0b] = V(ANY, 0),
            [0x0c ... 0x0d] = V(W0, 0),
            [0x0e ... 0x0f] = V(W0 & NOV, 0),
            [0x13] = V(W0 & NOV, 0),
            [0x16] = V(L1 & W0, 0),
            [0x17] = V(NOV, 0),
            [0x18] = V(W0 & NOV, 0),
            [0x19] = V(L1 & W0 & NOV, 0),
            [0x1a] = V(L1 & W0 & NOV & MEM, 0),
            [0x1c ... 0x1e] = V(NOV, 0),
            [0x20 ... 0x25] = V(NOV, 0),
            [0x28 ... 0x29] = V(ANY, 0),
            [0x2a] = V(NOV & MEM, 0),
            [0x2b] = V(ANY, 0),
            [0x2c ... 0x2f] = V(W0 & MEM, 0),
            [0x30 ... 0x35] = V(NOV, 0),
            [0x36] = V(L1 & W0, 0),
            [0x37 ... 0x40] = V(ANY, 0),
            [0x41] = V(L0 & NOV, 0),
            [0x45] = V(ANY, 0),
            [0x46] = V(W0, 0),
            [0x47] = V(ANY, 0),
            [0x49] = VG(5, 0),
            [0x50 ... 0x53] = V(W0, 0),
            [0x58 ... 0x59] = V(W0 & NOV, 0),
            [0x5a] = V(L1 & W0 & NOV & MEM, 0),
            [0x78 ... 0x79] = V(W0 & NOV, 0),
            [0x8c] = V(MEM, 0),
            [0x8e] = V(MEM, 0),
            [0x96 ... 0x9f] = V(ANY, 0),
            [0xa6 ... 0xaf] = V(ANY, 0),
            [0xb6 ... 0xbf] = V(ANY, 0),
            [0xcf] = V(W0, 0),
            [0xdb] = V(L0 & NOV, 0),
            [0xdc ... 0xdf] = V(ANY, 0),
            [0xf7] = V(L0, 0),
        },
        [2] = { /* F3 */
            [0xf5] = V(L0, 0),
            [0xf7] = V(L0, 0),
        },
        [3] = { /* F2 */
            [0xf5 ... 0xf7] = V(L0, 0),
        },
    },
    [2] = { /* 0F3A */
        [1] = { /* 66 */
            [0x00 ... 0x01] = V(L1 & W1 & NOV, IB),
            [0x02] = V(W0, IB),
            [0x04 ... 0x05] = V(W0 & NOV, IB),
            [0x06] = V(L1 & W0, IB),
            [0x08 ... 0x09] = V(NOV, IB),
            [0x0a ... 0x0f] = V(ANY, IB),
            [0x14 ... 0x17] = V(L0 & NOV, IB),
            [0x18] = V(L1 & W0, IB),
            [0x19] = V(L1 & W0 & NOV, IB),
            [0x1d] = V(W0 & NOV, IB),
            [0x20 ... 0x22] = V(L0, IB),
            [0x38] = V(L1 & W0, IB),
            [0x39] = V(L1 & W0 & NOV, IB),
            [0x40] = V(ANY, IB),
            [0x41] = V(L0, IB),
            [0x42] = V(ANY, IB),
            [0x44] = V(ANY, IB),
            [0x46] = V(L1 & W0, IB),
            [0x48 ... 0x49] = V(ANY, IB),
            [0x4a ... 0x4c] = V(W0, IB),
            [0x5c ... 0x5f] = V(ANY, IB),
            [0x60 ... 0x63] = V(L0 & NOV, IB),
            [0x68 ... 0x6f] = V(ANY, IB),
            [0x78 ... 0x7f] = V(ANY, IB),
            [0xce ... 0xcf] = V(W1, IB),
            [0xdf] = V(L0 & NOV, IB),
        },
        [3] = { /* F2 */
            [0xf0] = V(L0 & NOV, IB),
        },
    },
};

const uint16_t x86_vex_group[][8] = {
    {0, 0, REG, 0, REG, 0, REG, 0},
    {0, 0, REG, REG, 0, 0, REG, REG},
    {0, 0, L0 & NOV & MEM, L0 & NOV & MEM, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, L0 & NOV & REG, L0 & NOV & MEM},
    {L0 & W0 & NOV & MEM, 0, 0, 0, 0, 0, 0, 0},
    {0, L0, L0, L0, 0, 0, 0, 0},
};
/* clang-format on */
