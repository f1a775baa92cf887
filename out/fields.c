/* fields.c — see fields.h */
#include "config.h"

#include "out/fields.h"

#include <stdint.h>
#include <string.h>

#include "out/json_writer.h"

void out_csv_field(FILE *f, const char *s, bool tsv)
{
	if (tsv) {
		for (const char *p = s; *p; p++)
			fputc(*p == '\t' || *p == '\n' || *p == '\r' ? ' ' : *p,
			      f);
		return;
	}
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

void out_put_label(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, len;
	uint32_t cp;

	while (i < n) {
		len = utf8_decode(s + i, n - i, &cp);
		if (!len || cp < 0x20 || cp == 0x7f) {
			fprintf(f, "\\x%02x", len ? cp : s[i]);
			i++;
		} else if (cp >= 0x80 && cp < 0xa0) {
			fprintf(f, "\\u%04x", cp);
			i += len;
		} else {
			fwrite(s + i, 1, len, f);
			i += len;
		}
	}
}

const char *out_level_key(const struct out_opts *o, size_t level, char *buf,
			  size_t len)
{
	if (o->keys && o->keys[level])
		return o->keys[level];
	snprintf(buf, len, "key%zu", level + 1);
	return buf;
}
