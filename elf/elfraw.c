/* elfraw.c — elfimg_raw(): the file bytes libelf already holds. */
#include "config.h"

#include "elf/elfimg.h"
#include "elf/elfpriv.h"

const void *elfimg_raw(struct elfimg *img, size_t *len)
{
	size_t n = 0;
	const char *p = elf_rawfile(elfimg_elf(img), &n);

	*len = p ? n : 0;
	return p;
}
