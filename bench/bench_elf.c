// SPDX-License-Identifier: GPL-2.0-or-later
/* bench_elf.c — time elfimg_open + base map + one source map per file.
 *
 * usage: bench_elf [-s segments|sections|symbols] [-d] FILE...
 * Prints, per file: milliseconds for each step, map entry counts and the
 * result code; at the end the peak RSS. -d looks for a debug file first.
 * Files that are not ELF are reported and skipped. */
#include "config.h"

#include "elf/elfimg.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	enum elf_source src = ELFSRC_SYMBOLS;
	bool debug = false;
	struct rusage ru;
	int opt, bad = 0;

	while ((opt = getopt(argc, argv, "s:d")) != -1) {
		if (opt == 's' && elfsrc_from_name(optarg) >= 0) {
			src = elfsrc_from_name(optarg);
		} else if (opt == 'd') {
			debug = true;
		} else {
			fprintf(stderr, "usage: bench_elf [-s SOURCE] [-d] "
					"FILE...\n");
			return 2;
		}
	}
	for (int i = optind; i < argc; i++) {
		struct elfsrc_stats st;
		struct dualmap base, out;
		struct elfimg *img;
		struct labels *lb;
		double t0, t1, t2, t3;
		int ret;

		t0 = now_ms();
		ret = elfimg_open(argv[i], &img);
		if (ret) {
			if (ret != -MEMSZ_ENOTELF && ret != -EISDIR)
				printf("%s: open: %s\n", argv[i],
				       memsz_strerror(ret));
			continue;
		}
		if (debug)
			elfimg_find_debug(img, NULL);
		t1 = now_ms();
		lb = labels_new();
		dualmap_init(&base);
		dualmap_init(&out);
		elfimg_base_map(img, lb, &base);
		rmap_count(base.vm);
		t2 = now_ms();
		ret = elfimg_source_map(img, src, NULL, lb, &base, &out, &st);
		rmap_count(out.vm);
		rmap_count(out.file);
		t3 = now_ms();
		printf("%s: open %.1f ms, base %.1f ms, %s %.1f ms, "
		       "%zu vm / %zu file entries, %lu symbols, %lu aliases, "
		       "%lu clipped%s%s: %s\n",
		       argv[i], t1 - t0, t2 - t1, elfsrc_name(src), t3 - t2,
		       rmap_count(out.vm), rmap_count(out.file),
		       (unsigned long)st.symbols, (unsigned long)st.aliases,
		       (unsigned long)st.clipped,
		       st.used_debug_file ? ", debug file" : "",
		       st.used_dynsym ? ", dynsym" : "",
		       ret ? memsz_strerror(ret) : "ok");
		bad += ret != 0;
		dualmap_free(&base);
		dualmap_free(&out);
		labels_free(lb);
		elfimg_close(img);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS %ld MiB, %d failed\n", ru.ru_maxrss / 1024, bad);
	return bad ? 1 : 0;
}
