#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz/seeds.sh OUT MEMSZ SRCDIR — make the seed corpora of the fuzz
# targets in OUT/<target>/: small ELF files of the kinds the tests build
# (static, PIE, shared, RELR, basic-block sections, 32-bit, big-endian,
# C++ with DWARF, MiniDebugInfo), their .eh_frame and .eh_frame_hdr sections (with
# fuzz_ehframe.c's header), page-state streams (fuzz_pgstate.c's input),
# real recordings made by MEMSZ of OUT/seed_prog (plain, fault samples
# with stacks, frame-pointer chains) and of a dynamically linked program,
# /proc/PID/maps texts and perf records. CC compiles.
set -eu
out=$1 memsz=$2 srcdir=$3
cc=${CC:-cc}
mkdir -p "$out/elf" "$out/dwp" "$out/datafile" "$out/procmaps" "$out/perf" \
	"$out/archive" \
	"$out/ehframe" "$out/pgstate"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memsz-seeds.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# --- ELF ---
# the recordings' image, and a copy with debug info for the ELF targets
$cc -static -nostdlib -fno-stack-protector -fno-pie -O1 \
	-Wl,--build-id -o "$out/seed_prog" "$srcdir/fuzz/seed_prog.c"
$cc -static -nostdlib -fno-stack-protector -fno-pie -O1 -g \
	-Wl,--build-id -o "$out/elf/static-nolibc-g" "$srcdir/fuzz/seed_prog.c"
cat >"$tmp/lib.c" <<'C'
#include <stdio.h>
static int counter;
int table[64] = { 1, 2, 3 };
const char *names[] = { "one", "two", "three", "four" };
int (*fns[])(const char *, ...) = { printf };
__attribute__((constructor)) static void init(void) { counter = 1; }
int lib_add(int a, int b) { return a + b + counter + table[a & 63]; }
const char *lib_name(int i) { return names[i & 3]; }
C
cat >"$tmp/main.c" <<'C'
#include <stdio.h>
int lib_add(int a, int b);
int main(int argc, char **argv) { printf("%d\n", argc + (argv != 0)); return 0; }
C
$cc -shared -fPIC -O2 -g -o "$out/elf/lib.so" "$tmp/lib.c"
if $cc -shared -fPIC -O2 -Wl,-z,pack-relative-relocs \
	-o "$out/elf/lib-relr.so" "$tmp/lib.c" 2>/dev/null; then :; fi
$cc -O2 -fPIE -pie -o "$out/elf/pie" "$tmp/main.c"
cp "$out/elf/pie" "$out/elf/pie-stripped"
strip --strip-all "$out/elf/pie-stripped"
# a MiniDebugInfo (.gnu_debugdata) as Fedora's find-debuginfo.sh makes it
# (tests/memsz_testlib/elf.py), its xz without a check: a mutated payload
# reaches the ELF reader, not only the CRC
if command -v xz >/dev/null; then
	m=$tmp/mdi
	$cc -O1 -g -fPIE -pie -o "$m" "$tmp/lib.c" -x c - <<'C'
int lib_add(int a, int b);
int main(int argc, char **argv) { return lib_add(argc, argv != 0); }
C
	objcopy --only-keep-debug "$m" "$m.debug"
	strip --strip-all "$m"
	nm -D "$m" --format=posix --defined-only | awk '{ print $1 }' |
		sort >"$m.dyn"
	nm "$m.debug" --format=posix --defined-only |
		awk '{ if ($2 == "T" || $2 == "t") print $1 }' | sort >"$m.fn"
	comm -13 "$m.dyn" "$m.fn" >"$m.keep"
	objcopy -S --remove-section .gdb_index --remove-section .comment \
		--keep-symbols="$m.keep" "$m.debug" "$m.mini"
	xz --check=none -f "$m.mini"
	objcopy --add-section .gnu_debugdata="$m.mini.xz" "$m" \
		"$out/elf/pie-minidebuginfo"
fi
$cc -O2 -g -gsplit-dwarf -c -o "$out/elf/split.o" "$tmp/lib.c" 2>/dev/null ||
	true
# DWARF packages (fuzz_dwp): that unit packed, and C++ type units
# (-fdebug-types-section: .debug_tu_index), by whichever packer is there
for pk in dwp llvm-dwp; do
	command -v $pk >/dev/null || continue
	[ -f "$out/elf/split.dwo" ] &&
		$pk -o "$out/dwp/split-$pk.dwp" "$out/elf/split.dwo" \
			2>/dev/null || true
	printf 'struct B { char c[300]; }; struct O { B b[2]; int k; };\n%s\n' \
		'B bb[3]; O oo; int f() { return bb[1].c[2] + oo.k; }' \
		>"$tmp/tu.cc"
	for v in 4 5; do
		${CXX:-c++} -O1 -g -gdwarf-$v -fdebug-types-section \
			-gsplit-dwarf -c -o "$tmp/tu$v.o" "$tmp/tu.cc" \
			2>/dev/null &&
			$pk -o "$out/dwp/types$v-$pk.dwp" "$tmp/tu$v.dwo" \
				2>/dev/null || true
	done
done
if command -v clang >/dev/null &&
   clang -O1 -fbasic-block-sections=labels -o "$out/elf/bbs" \
	"$tmp/main.c" 2>/dev/null; then :; fi
if $cc -m32 -shared -fPIC -O2 -o "$out/elf/lib32.so" "$tmp/lib.c" \
	2>/dev/null; then :; fi
python3 "$srcdir/tests/elf-fixtures/elf-byteswap.py" "$out/seed_prog" \
	"$out/elf/static-be"
cat >"$tmp/t.cc" <<'C'
namespace ns {
template <class T, int N> struct box { T v[N]; virtual ~box() {}
	virtual T at(int i) const { return v[i % N]; } };
box<long, 3> b3; box<char, 7> b7;
long get(const box<long, 3> &b, int i) { return b.at(i) + b7.at(i); }
}
C
if command -v g++ >/dev/null; then
	g++ -O1 -g -c -o "$out/elf/cxx.o" "$tmp/t.cc"
fi
# relocatable objects whose DWARF and .eh_frame memsz relocates (no
# headers: no foreign libc needed): i386's SHT_REL, RISC-V's ADD/SUB
# pairs, MIPS n64's packed r_info
cat >"$tmp/rel.c" <<'C'
int table[64] = { 1, 2, 3 };
static const char *const names[] = { "one", "two", "three", "four" };
int rel_add(int a, int b) { return a + b + table[a & 63]; }
const char *rel_name(int i) { return names[i & 3]; }
C
if $cc -m32 -O1 -g -c -o "$out/elf/rel-i386.o" "$tmp/rel.c" \
	2>/dev/null; then :; fi
if command -v clang >/dev/null; then
	for t in riscv64-linux-gnu mips64el-linux-gnuabi64; do
		clang --target=$t -O1 -g -funwind-tables -c \
			-o "$out/elf/rel-$t.o" "$tmp/rel.c" 2>/dev/null || :
	done
	# 32-bit ARM's .ARM.exidx (R_ARM_PREL31) and powerpc64 ELFv1's
	# .opd descriptors, as a .o and linked
	for t in armv7-linux-gnueabihf powerpc64-linux-gnu; do
		clang --target=$t -O1 -fPIC -funwind-tables -c \
			-o "$out/elf/rel-$t.o" "$tmp/rel.c" 2>/dev/null &&
			command -v ld.lld >/dev/null &&
			ld.lld -shared -o "$out/elf/rel-$t.so" \
				"$out/elf/rel-$t.o" 2>/dev/null || :
	done
fi

# --- unwind tables of the ELF seeds (fuzz_ehframe.c's input: a flags
# byte, bit 0 ELFCLASS64, bit 1 big-endian; the VM address, 8 bytes
# little-endian; the section) ---
python3 - "$out/ehframe" "$out"/elf/* <<'PY'
import struct, sys
out = sys.argv[1]
for path in sys.argv[2:]:
    b = open(path, "rb").read()
    if b[:4] != b"\x7fELF":
        continue
    is64, be = b[4] == 2, b[5] == 2
    e = ">" if be else "<"
    if is64:
        shoff, = struct.unpack_from(e + "Q", b, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", b, 0x3a)
        fmt = e + "IIQQQQIIQQ"
    else:
        shoff, = struct.unpack_from(e + "I", b, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", b, 0x2e)
        fmt = e + "IIIIIIIIII"
    if not shoff or shstrndx >= shnum:
        continue
    shdrs = [struct.unpack_from(fmt, b, shoff + i * shentsize)
             for i in range(shnum)]
    stroff = shdrs[shstrndx][4]
    for sh in shdrs:
        name = b[stroff + sh[0]:b.index(b"\0", stroff + sh[0])].decode()
        if name not in (".eh_frame", ".eh_frame_hdr") or sh[1] == 8:
            continue
        data = b[sh[4]:sh[4] + sh[5]]
        flags = (1 if is64 else 0) | (2 if be else 0)
        seed = bytes([flags]) + struct.pack("<Q", sh[3]) + data
        base = path.rsplit("/", 1)[-1]
        open("%s/%s%s" % (out, base, name), "wb").write(seed)
PY

# --- page-state streams (fuzz_pgstate.c's input: a byte, bit 0 64 KiB
# pages; the palette size, 1 byte; the mapping's pages and the run count,
# 4 bytes each, little-endian; the palette; the blocks) ---
python3 - "$out/pgstate" <<'PY'
import struct, sys
out = sys.argv[1]
def seed(name, shift, pal, npages, nruns, stream):
    b = bytes([shift, len(pal)]) + struct.pack("<II", npages, nruns)
    b += b"".join(struct.pack("<II", f, m) for f, m in pal)
    open(out + "/" + name, "wb").write(b + bytes(stream))
pal = [(0x201, 1), (0x5, 3)]  # present anon, present file mapped thrice
# RUN 4 pages of entry 0; SKIP 2; MAP 8 pages, 2 local entries, pages
# 0 1 2 4 5 7 present with codes 0 0 1 1 0 0: 6 runs
seed("run-skip-map", 0, pal, 16, 6,
     [4 << 2 | 1, 0, 2 << 2 | 0, 8 << 2 | 2, 1, 0, 1, 0b10110111,
      0b001100])
seed("run", 1, pal[:1], 300, 1, [0xb1, 0x04, 0])  # RUN 300 pages
seed("empty", 0, [], 5, 0, [])
# CODED 16 pages (version 5): symbols entry 0, entry 1, absent with
# frequencies 2304 1280 512, rANS-coded (man/memsz-data.5); 11 runs
pages = [0, 1, 0, 0, 1, 2, 0, 1, 0, 0, 2, 1, 0, 0, 1, 0]
f, c, x, code = [2304, 1280, 512], [0, 2304, 3584], 1 << 23, []
for p in reversed(pages):
    while x >= (1 << 19) * f[p]:
        code.append(x & 0xff)
        x >>= 8
    x = (x // f[p] << 12) + x % f[p] + c[p]
code = list(x.to_bytes(4, "big")) + code[::-1]
seed("coded", 0, pal, 16, 11,
     [16 << 2 | 3, 2, 1, 2, 0, 0x80, 0x12, 0x80, 0x0a, 0x80, 0x04,
      len(code)] + code)
PY

# --- memsz.data: real recordings ---
rec() {
	name=$1
	shift
	"$memsz" record -o "$out/datafile/$name" "$@" >/dev/null 2>&1 || true
	rm -f "$out/datafile/$name.old"
	[ -s "$out/datafile/$name" ] || {
		echo "seeds.sh: memsz record $* made no file" >&2
		exit 1
	}
}
rec exec.data -- "$out/seed_prog"
rec faults.data --faults --stack-size 256 -- "$out/seed_prog"
rec faults-fp.data --faults --call-graph fp -- "$out/seed_prog"
rec true.data -- true
# a recording cut short: the file before its END record
size=$(stat -c %s "$out/datafile/exec.data")
head -c $((size - 40)) "$out/datafile/exec.data" >"$out/datafile/cut.data"

# --- static archives (fuzz_archive.c's input: the whole archive): the
# .o seeds under long and short names with a symbol index, an odd-sized
# text member (padded), and a thin archive ---
mkdir -p "$out/archive" "$tmp/ar"
printf 'abc' >"$tmp/ar/odd.txt"
for o in "$out"/elf/*.o; do
	[ -e "$o" ] || continue
	cp "$o" "$tmp/ar/a_member_with_a_long_name_$(basename "$o")"
done
cp "$out/seed_prog" "$tmp/ar/p.o"
arout=$(cd "$out/archive" && pwd)
(cd "$tmp/ar" && ar rcs "$arout/lib.a" ./*.o odd.txt &&
	ar rcT "$arout/thin.a" p.o odd.txt) ||
	echo "fuzz/seeds.sh: no ar: no archive seeds" >&2

# --- /proc/PID/maps ---
cat /proc/self/maps >"$out/procmaps/self"
cat >"$out/procmaps/odd" <<'M'
00400000-00401000 r-xp 00000000 08:01 1234 /bin/x (deleted)
7f0000000000-7f0000021000 rw-p 00000000 00:00 0 [anon:name with spaces]
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]
M

# --- perf records (fuzz_perf.c's input: 3 bytes, then the ring) ---
python3 - "$out/perf" <<'PY'
import struct, sys
out = sys.argv[1]
def rec(t, misc, body):
    body += struct.pack("<IIQ", 42, 43, 123456789)  # sample_id: tid, time
    body += b"\0" * (-len(body) % 8)
    return struct.pack("<IHH", t, misc, 8 + len(body)) + body
name = b"/usr/lib/libc.so.6\0"
mmap2 = rec(10, 2, struct.pack("<IIQQQIIQQII", 42, 43, 0x7f0000000000,
            0x1000, 0, 8, 1, 99, 1, 5, 2) + name)
comm = rec(3, 0, struct.pack("<II", 42, 43) + b"worker\0")
fork = rec(7, 0, struct.pack("<IIIIQ", 44, 42, 44, 43, 5))
lost = rec(2, 0, struct.pack("<QQ", 1, 17))
regs = struct.pack("<Q", 2) + b"".join(struct.pack("<Q", i) for i in range(4))
stack = struct.pack("<Q", 16) + b"\xab" * 16 + struct.pack("<Q", 16)
sample = struct.pack("<IIQQ", 42, 43, 99, 0x1000)  # tid, time, addr
sample = struct.pack("<Q", 0x400000) + sample
sample += struct.pack("<Q", 3) + struct.pack("<QQQ", (1 << 64) - 512,
                                             0x400100, 0x400200)
sample += regs + stack
samp = struct.pack("<IHH", 9, 2, 8 + len(sample)) + sample
# sample_type IP|TID|TIME|ADDR|CALLCHAIN|REGS_USER|STACK_USER, 4 regs
open(out + "/side", "wb").write(b"\x7f\x04\x00" + mmap2 + comm + fork + lost)
open(out + "/sample", "wb").write(b"\x7f\x04\x00" + samp)
open(out + "/wrap", "wb").write(b"\x7f\x04\x07" + samp + mmap2)
PY
