// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_procmaps.c — libFuzzer target: the /proc/PID/maps parser over the
 * fuzz bytes as the file's text, then procmaps_order() on what it read. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "record/procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct procmaps m = {0};
	FILE *f;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	procmaps_parse(f, &m);
	fclose(f);
	procmaps_order(&m);
	procmaps_free(&m);
	return 0;
}
