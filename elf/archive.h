/* SPDX-License-Identifier: GPL-2.0-or-later */
/* archive.h — static archives (ar, `lib.a`): their members, as `ar t`
 * lists them, and the bytes between them.
 *
 * Reads the System V / GNU format (names "name/", the long-name table
 * "//" and "/OFFSET" names into it, the symbol tables "/" and
 * "/SYM64/") and BSD names ("#1/LEN": the name leads the data; symbol
 * table "__.SYMDEF"). A thin archive ("!<thin>\n") holds no members,
 * only their paths: it is recognised and refused. Every header field is
 * checked against the buffer before use; nothing is mapped.
 */
#ifndef MEMSZ_ELF_ARCHIVE_H
#define MEMSZ_ELF_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AR_MAGIC "!<arch>\n"
#define AR_THIN_MAGIC "!<thin>\n"
#define AR_MAGIC_LEN 8
#define AR_HDR_LEN 60 /* one member header */

/* What a member is. */
enum ar_kind {
	AR_FILE,      /* a member file (an object file, or anything) */
	AR_SYMTAB,    /* the archive's symbol index ("/", "/SYM64/") */
	AR_LONGNAMES, /* the GNU long-name table ("//") */
};

/* One member, in archive order. */
struct ar_member {
	enum ar_kind kind;
	char *name;	  /* AR_FILE: its name as `ar t` prints it; else
			     NULL. Owned by the member list. */
	uint64_t hdr_off; /* its header [hdr_off, hdr_off + hdr_len) */
	uint64_t hdr_len; /* AR_HDR_LEN, plus a BSD name's length */
	uint64_t off;	  /* its data [off, off + size) */
	uint64_t size;
	uint64_t pad; /* 1 if a '\n' after the data pads it to even */
};

/* True if the len bytes at buf start with the archive magic; *thin (may
 * be NULL) tells a thin archive's. */
bool ar_is_archive(const void *buf, size_t len, bool *thin);

/* The members of the archive in buf (len bytes, from its magic on) into
 * *out (caller frees with ar_members_free) and their count into *n.
 * Returns 0; -MEMSZ_ENOTSUP for a thin archive; -MEMSZ_ENOTELF if buf is
 * no archive; -MEMSZ_ETRUNC if a header or a member's data runs past the
 * end; -MEMSZ_EBADAR for a field that is not a number, a size that
 * overflows, a long name outside or unterminated in the long-name table
 * or a special name not known. *out and *n are then untouched. */
int ar_members_read(const unsigned char *buf, size_t len,
		    struct ar_member **out, size_t *n);

/* Free the list ar_members_read() gave. NULL is fine. */
void ar_members_free(struct ar_member *m, size_t n);

/* A new anonymous file (memfd, close-on-exec) holding member m's data
 * of the archive in buf, for the code that opens images by path to open
 * as /proc/self/fd/FD. Returns the descriptor (caller closes) or -errno. */
int ar_member_memfd(const unsigned char *buf, const struct ar_member *m);

/* The whole regular file at path into *buf (caller frees) and its length
 * into *len: opened without waiting on a FIFO, read (never mapped, so a
 * file truncated meanwhile gives what is there, never a SIGBUS). Returns
 * 0, 1 if the file changed (its size or mtime; truncated or rewritten)
 * while it was read (what was read is in *buf all the same), -EISDIR,
 * -MEMSZ_ENOTELF for a file that is not regular, or -errno. */
int ar_file_read(const char *path, unsigned char **buf, size_t *len);

#endif
