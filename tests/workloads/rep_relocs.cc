// SPDX-License-Identifier: GPL-2.0-or-later
/* rep_relocs.cc — a relocation-heavy PIE for t3010: "vtable for Foo" with
 * 37 RELATIVE relocations (offset-to-top, RTTI, two destructors and 35
 * methods: RTTI is off, see the test) and a 24 KiB table of 3072 function
 * pointers in .data.rel.ro, relocated at start, so both are private dirty.
 * Prints "pid PID" and waits.
 */
#include <cstdio>
#include <unistd.h>

#define M(n) virtual int m##n();
struct Foo {
	virtual ~Foo();
	M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9)
	M(10) M(11) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19)
	M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29)
	M(30) M(31) M(32) M(33) M(34)
};
#undef M
#define M(n) int Foo::m##n() { return n; }
Foo::~Foo() {}
M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9)
M(10) M(11) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19)
M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29)
M(30) M(31) M(32) M(33) M(34)

static int f0(int x) { return x + 1; }
static int f1(int x) { return x + 2; }
typedef int (*fn)(int);
#define F8 f0, f1, f0, f1, f0, f1, f0, f1
#define F64 F8, F8, F8, F8, F8, F8, F8, F8
#define F512 F64, F64, F64, F64, F64, F64, F64, F64
extern fn const table[3072];
fn const table[3072] = { F512, F512, F512, F512, F512, F512 };

Foo *volatile keep;

int main(int argc, char **argv)
{
	(void)argv;
	keep = new Foo;
	std::printf("pid %d %d\n", (int)getpid(),
		    keep->m3() + table[argc & 7](1));
	std::fflush(stdout);
	pause();
	return 0;
}
