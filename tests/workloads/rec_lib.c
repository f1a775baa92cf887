// SPDX-License-Identifier: GPL-2.0-or-later
/* rec_lib.c — the library rec_dlopen loads and unloads (built as a .so at
 * test time). Its data and bss make ld.so map every kind of segment. */
int rec_lib_counter = 1;
char rec_lib_bss[3 * 4096];

int rec_lib_f(int x)
{
	rec_lib_bss[x % sizeof(rec_lib_bss)] = (char)x;
	return x + rec_lib_counter++;
}
