// SPDX-License-Identifier: GPL-2.0-or-later
/* test_elf_demangle.c — elf/'s demangling: C++ and Rust symbol names as
 * libiberty (and c++filt) read them, and names built to blow up a
 * demangler.
 *
 * Fixtures are compiled at test time into a temporary directory
 * (elf_fixture.c); ground truth comes from readelf -W (binutils), c++filt
 * and stat(2), never from memsz's own code.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <elf.h>
#include <unistd.h>

#include "elf/elfimg.h"
#include "elf/elfpriv.h"
#include "elf/imagemaps.h"
#include "elf/relocs.h"
#include "report/keys.h"
#include "tests/elf_fixture.h"
#include "tests/testutil.h"
#include "util/strbuf.h"
#include "util/util.h"

/* after util.h: its ARRAY_SIZE is the one kept */
#include <libiberty/demangle.h>

static void test_cxx_demangled(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct mapped m;
	struct truth t;
	char *names, *line, *save;
	size_t checked = 0;
	FILE *f;

	(void)state;
	truth_read(fx("fxx"), &t);
	assert_int_equal(map_image(fx("fxx"), ELFSRC_SYMBOLS, &m, NULL), 0);
	check_i1(&m.src, &t, file_size(fx("fxx")));
	f = fopen(fx("mangled.txt"), "w");
	for (size_t i = 0; i < t.nsyms; i++)
		fprintf(f, "%s\n", t.syms[i].name[0] ? t.syms[i].name : "-");
	fclose(f);
	names = sh_output("c++filt < '%s'", fx("mangled.txt"));
	line = strtok_r(names, "\n", &save);
	for (size_t i = 0; i < t.nsyms && line;
	     i++, line = strtok_r(NULL, "\n", &save)) {
		const struct rsym *y = &t.syms[i];

		if (strncmp(y->name, "_Z", 2) || !strstr(y->name, "4fxns") ||
		    !y->size ||
		    (strcmp(y->type, "FUNC") && strcmp(y->type, "OBJECT")))
			continue;
		char *dm = elf_demangle(y->name);
		assert_non_null(dm);
		assert_string_equal(dm, line);
		free(dm);
		/* the same through one buffer, emptied by a name that
		 * does not demangle between two that do */
		assert_true(elf_demangle_to(y->name, ELF_DEMANGLE_FULL, &sb));
		assert_string_equal(sb.buf, line);
		assert_false(
		    elf_demangle_to("_Zgarbage!", ELF_DEMANGLE_FULL, &sb));
		assert_int_equal(sb.len, 0);
		assert_int_equal(sym_vm_bytes(&m, line), y->size);
		assert_true(strstr(line, "fxns::") != NULL);
		checked++;
	}
	assert_true(checked >= 4);
	assert_null(elf_demangle("main"));
	assert_null(elf_demangle("_Zgarbage!"));
	assert_false(elf_demangle_to("main", ELF_DEMANGLE_FULL, &sb));
	assert_int_equal(sb.len, 0);
	strbuf_free(&sb);
	free(names);
	unmap_image(&m);
	truth_free(&t);
}

/* Real Rust names (v0 from rustc's own libraries, legacy from a program
 * built with -C symbol-mangling-version=legacy): each must read as
 * c++filt prints it once c++filt's extras are taken out (crate hashes
 * "[0123abcd]", the legacy "::h<hash>", the ": usize" type of a constant),
 * which is what rustfilt shows. */
/* A v0 name "alloc::foo::<A0, A1, ...>" of k generic arguments, where A0
 * is a tuple holding a crate named in punycode and each next A is the
 * tuple (A, A) of the one before, by back-reference: its output doubles
 * with each argument. */
static char *rust_bomb_name(int k)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char buf[2048] = "INvCs1234_5alloc3foo";
	size_t len = strlen(buf), prev = 0;

	for (int i = 0; i < k; i++) {
		char ref[16];
		size_t at = len, r = sizeof(ref) - 1, n = prev - 1;

		if (i == 0) {
			len += snprintf(buf + len, sizeof(buf) - len,
					"TCu30_"
					"___7hkackfecea1cbdathfdh9hlq6yE");
			prev = at;
			continue;
		}
		/* base 62 of prev - 1, then '_' (prev is never 0) */
		ref[r] = 0;
		ref[--r] = '_';
		do {
			ref[--r] = digits[n % 62];
			n /= 62;
		} while (n);
		len += snprintf(buf + len, sizeof(buf) - len, "TB%sB%sE",
				ref + r, ref + r);
		prev = at;
	}
	assert_true(len + 1 < sizeof(buf));
	return xasprintf("_R%sE", buf);
}

static void test_rust_demangled(void **state)
{
	static const char *const names[] = {
	    "_RNvXs_NtCsgEmfK2I1SDS_4core3anyDNtB4_3AnyEL_NtNtB6_"
	    "3fmt5Debug3fmt",
	    "_RNvXs0_NtNtCs7OxSQD10jZQ_18tracing_subscriber3fmt4timeFG0_QL1_"
	    "INtNtB7_6format6WriterL0_EEINtNtCsgEmfK2I1SDS_4core6result6"
	    "ResultuNtNtB1u_3fmt5ErrorENtB5_10FormatTime11format_time",
	    "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecTOhFUKCBN_Eu"
	    "ENtNtCsjrHSEGnQ3l9_3std5alloc6SystemE8grow_oneB13_",
	    "_RINvNtCsgEmfK2I1SDS_4core9panicking13assert_failedONtNtB4_3ffi"
	    "6c_voidBM_ECs2N2TEQjwqGk_7stacker",
	    "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecINtNtB7_5boxed"
	    "3BoxDINtNtNtCsgEmfK2I1SDS_4core3ops8function5FnMutuEp6Output"
	    "INtNtB1c_6result6ResultuNtNtNtCsjrHSEGnQ3l9_3std2io5error5Error"
	    "ENtNtB1c_6marker4SyncNtB32_4SendEL_EE8grow_oneB2s_",
	    "_RNvXs_NtCsfqPBR87PSkx_9rustc_hir10intravisitzNtB4_9HirTyCtxt8"
	    "hir_body",
	    "_RNvXs8_NtCsfoXig8kEbyV_12simd_adler324hashAhj8_NtB7_11Adler32"
	    "Hash4hash",
	    "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h8cd93d847"
	    "1d054beE",
	    "_ZN42_$LT$$RF$T$u20$as$u20$core..fmt..Debug$GT$3fmt17h14ab7e4a3"
	    "3641fa3E",
	    "_ZN4core3ptr110drop_glue$LT$std..collections..hash..map..HashMap"
	    "$LT$alloc..string..String$C$alloc..vec..Vec$LT$u8$GT$$GT$$GT$17h"
	    "9609bf1ab3991671E",
	    "_ZN9hashbrown3raw21RawTable$LT$T$C$A$GT$14reserve_rehash17hb5b610"
	    "3bfce6abbfE.llvm.1234567890",
	};
	char *dm;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *want = sh_output(
		    "echo '%s' | c++filt | sed -E "
		    "-e 's/\\[[0-9a-f]+\\]//g' -e 's/::h[0-9a-f]{16}//' "
		    "-e 's/\\.llvm\\.[0-9]+$//' "
		    "-e 's/([0-9]): (u|i)(8|16|32|64|128|size)/\\1/g'",
		    names[i]);

		want[strcspn(want, "\n")] = 0;
		dm = elf_demangle(names[i]);
		assert_non_null(dm);
		assert_string_equal(dm, want);
		free(dm);
		free(want);
	}
	/* spelled out from the v0 grammar and the legacy escapes */
	dm = elf_demangle(names[0]);
	assert_string_equal(dm,
			    "<dyn core::any::Any as core::fmt::Debug>::fmt");
	free(dm);
	dm = elf_demangle(names[1]);
	assert_string_equal(dm,
			    "<for<'a, 'b> fn(&'a mut tracing_subscriber::"
			    "fmt::format::Writer<'b>) -> core::result::"
			    "Result<(), core::fmt::Error> as tracing_"
			    "subscriber::fmt::time::FormatTime>::format_time");
	free(dm);
	dm = elf_demangle(names[8]);
	assert_string_equal(dm, "<&T as core::fmt::Debug>::fmt");
	free(dm);
	/* not Rust: a C++ name whose last component is not a hash, and a
	 * v0 name cut short */
	dm = elf_demangle("_ZN3foo3barE");
	assert_string_equal(dm, "foo::bar");
	free(dm);
	assert_null(elf_demangle("_RNvCs1234_5alloc"));
	/* a ".cold" part keeps its suffix (c++filt drops it); a punycode
	 * identifier reads as Unicode */
	dm = elf_demangle("_ZN3std2rt10lang_start17h8cd93d8471d054beE.cold");
	assert_string_equal(dm, "std::rt::lang_start.cold");
	free(dm);
	dm = elf_demangle("_RNvCs1234_5alloc3foo.cold");
	assert_string_equal(dm, "alloc::foo.cold");
	free(dm);
	dm = elf_demangle("_RNqCs4fqI2P2rA04_11utf8_identsu30____"
			  "7hkackfecea1cbdathfdh9hlq6y");
	assert_string_equal(dm, "utf8_idents::"
				"\u10e1\u10d0\u10ed\u10db\u10d4\u10da\u10d0"
				"\u10d3_\u10d2\u10d4\u10db\u10e0\u10d8\u10d4"
				"\u10da\u10d8_\u10e1\u10d0\u10d3\u10d8\u10da"
				"\u10d8");
	free(dm);
	/* a v0 name whose back-references double its output 40 times,
	 * punycode in the doubled part: past the bound, left alone */
	dm = rust_bomb_name(40);
	assert_null(elf_demangle(dm));
	{
		/* a buffer that went past the bound is empty, and of use
		 * again */
		struct strbuf sb = STRBUF_INIT;

		assert_false(elf_demangle_to(dm, ELF_DEMANGLE_FULL, &sb));
		assert_int_equal(sb.len, 0);
		assert_true(
		    elf_demangle_to("_ZN3foo3barE", ELF_DEMANGLE_FULL, &sb));
		assert_string_equal(sb.buf, "foo::bar");
		strbuf_free(&sb);
	}
	free(dm);
	dm = rust_bomb_name(3);
	{
		char *small = elf_demangle(dm);

		assert_non_null(small);
		assert_non_null(strstr(small, "((("));
		free(small);
	}
	free(dm);
	/* a versioned C++ name demangles up to the '@', as c++filt does */
	dm = elf_demangle("_ZSt4cout@@GLIBCXX_3.4");
	assert_string_equal(dm, "std::cout@@GLIBCXX_3.4");
	free(dm);
}

/* Names near the legacy Rust shape: each one libiberty's Rust demangler
 * reads is read as Rust (elf_demangle() hands only names with the hash
 * segment where libiberty looks for it to that demangler), and each other
 * one as libiberty's C++ demangler reads it. */
static void test_rust_prefilter(void **state)
{
	static const char *const names[] = {
	    "_ZN1a17h0123456789abcdefE",
	    "_ZN1a17h0123456789abcdefE.cold",
	    "_ZN1a17h0123456789abcdefE.llvm.42",
	    "_ZN1a17h0123456789abcdefE.1.x",
	    "_ZN3foo3bar17h0123456789abcdefE",
	    "_ZN3foo3bar17h0123456789abcdefE.E.x",
	    "_ZN3foo3bar17h0123456789abcdefE.E",
	    "_ZN3foo3bar17h0123456789abcdeE",
	    "_ZN3foo3bar17h0123456789ABCDEFE",
	    "_ZN3foo3bar17g0123456789abcdefE",
	    "_ZN17h0123456789abcdefE",
	    "_ZN3foo3barE17h0123456789abcdefE",
	    "_ZN3foo3barEv",
	    "_ZN3foo3barEv.cold",
	    "_ZNK3foo3barEv.isra.0",
	};
	size_t rust_read = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *rust = rust_demangle(names[i], 0);
		char *cxx = cplus_demangle(names[i], DMGL_PARAMS | DMGL_ANSI |
							 DMGL_VERBOSE);
		char *dm = elf_demangle(names[i]);

		if (rust) {
			/* its ".suffix" kept after libiberty's text */
			assert_non_null(dm);
			assert_int_equal(strncmp(dm, rust, strlen(rust)), 0);
			rust_read++;
		} else if (cxx) {
			assert_string_equal(dm, cxx);
		} else {
			assert_null(dm);
		}
		free(rust);
		free(cxx);
		free(dm);
	}
	/* the first five: a list libiberty reads differently proves less */
	assert_int_equal(rust_read, 5);
}

/* Mangled name whose demangling doubles with each of levels nestings of
 * back-references (as in the reviewer's generator). */
static char *bomb_name(int levels)
{
	static const char b36[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char *s = xstrdup("_Z1fIJ1AIiiE");

	for (int i = 0; i < levels; i++) {
		char seq[8] = "";
		char *n;

		/* S_ is candidate 0, S0_ candidate 1, ... (base 36) */
		if (i >= 36)
			snprintf(seq, sizeof(seq), "%c%c", b36[i / 36],
				 b36[i % 36]);
		else
			snprintf(seq, sizeof(seq), "%c", b36[i]);
		n = xasprintf("%sS_IS%s_S%s_E", s, seq, seq);
		free(s);
		s = n;
	}
	{
		char *n = xasprintf("%sEEvv", s);

		free(s);
		return n;
	}
}

static void test_demangle_bomb(void **state)
{
	char *name = bomb_name(48), *dm, *want;
	struct rusage ru;
	int st;
	pid_t pid;
	FILE *f;

	(void)state;
	/* c++filt agrees a small one is valid and it does double */
	dm = bomb_name(4);
	want = sh_output("c++filt '%s'", dm);
	want[strcspn(want, "\n")] = 0;
	assert_string_not_equal(want, dm);
	char *got = elf_demangle(dm);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(dm);
	/* a real name with many back-references still demangles */
	dm = elf_demangle("_ZSt17__rotate_adaptiveIPN5clang17Overload"
			  "CandidateES2_lET_S3_S3_S3_T1_S4_T0_S4_");
	want = sh_output("c++filt _ZSt17__rotate_adaptiveIPN5clang17Overload"
			 "CandidateES2_lET_S3_S3_S3_T1_S4_T0_S4_");
	want[strcspn(want, "\n")] = 0;
	assert_non_null(dm);
	assert_string_equal(dm, want);
	free(dm);
	free(want);
	/* a deeper bomb asks for more than the output bound: left alone */
	dm = bomb_name(120);
	assert_true(strlen(dm) > 1024);
	assert_null(elf_demangle(dm));
	free(dm);

	/* an ELF with the 48-level bomb: labelled by the mangled name, in a
	 * child whose peak RSS we read back */
	f = fopen(fx("bomb.s"), "w");
	assert_non_null(f);
	fprintf(f,
		".text\n.globl _start\n_start: ret\n.globl %s\n"
		".type %s,@function\n%s:\n ret\n.size %s,1\n",
		name, name, name, name);
	fclose(f);
	assert_int_equal(
	    sh("cd %s && gcc -nostdlib -static -o bomb bomb.s", tmpdir), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct mapped m;
		int ok;

		ok = map_image(fx("bomb"), ELFSRC_SYMBOLS, &m, NULL) == 0 &&
		     labels_find(m.lb, name) != LABEL_NONE && m.st.symbols == 1;
		unmap_image(&m);
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(wait4(pid, &st, 0, &ru), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	print_message("demangle bomb: child peak RSS %ld KiB\n", ru.ru_maxrss);
	assert_true(ru.ru_maxrss < 200 * 1024);
	free(name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cxx_demangled),
	    cmocka_unit_test(test_rust_demangled),
	    cmocka_unit_test(test_rust_prefilter),
	    cmocka_unit_test(test_demangle_bomb),
	};

	return test_run_group(tests, elf_fixture_setup, elf_fixture_teardown);
}
