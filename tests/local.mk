# SPDX-License-Identifier: GPL-2.0-or-later
# tests/: cmocka unit tests per module (test_<module>.c, or by theme,
# test_<module>_<theme>.c, with what they share in <module>_fixture.c) and
# end-to-end scripts numbered by family: t1xxx size, t2xxx record, t3xxx
# report.
# Fixtures are generated at test time.
unit_tests = tests/test_archive tests/test_attrib tests/test_bbaddrmap tests/test_datafile_corrupt tests/test_datafile_image tests/test_datafile_nospace tests/test_datafile_pages tests/test_datafile_pgfields tests/test_datafile_records tests/test_datafile_samples tests/test_difftree tests/test_dwp tests/test_ehframe tests/test_elf_debug tests/test_elf_demangle tests/test_elf_hostile tests/test_elf_images tests/test_elf_zrace tests/test_events tests/test_faults tests/test_filter tests/test_hashmap tests/test_hugeshare tests/test_jitmap tests/test_labels tests/test_lsda tests/test_machine tests/test_memcg tests/test_numfmt tests/test_openreg tests/test_output_pprof_html tests/test_output_text tests/test_pagecache tests/test_perf tests/test_procmaps tests/test_rangemap_literal tests/test_rangemap_random tests/test_relocs tests/test_rows tests/test_rows_again tests/test_snap_kpage tests/test_snapshot tests/test_snapshot_images tests/test_strbuf tests/test_strlist tests/test_targets_scan tests/test_unwind tests/test_util tests/test_x86dec
check_PROGRAMS += $(unit_tests)
TESTS += $(unit_tests)

tests_test_archive_SOURCES = tests/test_archive.c tests/testutil.c tests/testutil.h
tests_test_archive_CFLAGS = $(TEST_CFLAGS)
tests_test_archive_LDADD = $(TEST_LIBS)
tests_test_hugeshare_SOURCES = tests/test_hugeshare.c tests/testutil.c tests/testutil.h
tests_test_hugeshare_CFLAGS = $(TEST_CFLAGS)
tests_test_hugeshare_LDADD = $(TEST_LIBS)

tests_test_attrib_SOURCES = tests/test_attrib.c tests/testutil.c tests/testutil.h
tests_test_attrib_CFLAGS = $(TEST_CFLAGS)
tests_test_attrib_LDADD = $(TEST_LIBS)
tests_test_bbaddrmap_SOURCES = tests/test_bbaddrmap.c tests/testutil.c tests/testutil.h
tests_test_bbaddrmap_CFLAGS = $(TEST_CFLAGS)
tests_test_bbaddrmap_LDADD = $(TEST_LIBS)
datafile_fixture = tests/datafile_fixture.c tests/datafile_fixture.h \
	tests/testutil.c tests/testutil.h
tests_test_datafile_corrupt_SOURCES = tests/test_datafile_corrupt.c \
	$(datafile_fixture)
tests_test_datafile_corrupt_CFLAGS = $(TEST_CFLAGS)
tests_test_datafile_corrupt_LDADD = $(TEST_LIBS)
tests_test_datafile_image_SOURCES = tests/test_datafile_image.c \
	$(datafile_fixture)
tests_test_datafile_image_CFLAGS = $(TEST_CFLAGS)
tests_test_datafile_image_LDADD = $(TEST_LIBS)
tests_test_datafile_nospace_SOURCES = tests/test_datafile_nospace.c \
	$(datafile_fixture)
tests_test_datafile_nospace_CFLAGS = $(TEST_CFLAGS)
tests_test_datafile_nospace_LDADD = $(TEST_LIBS)
tests_test_datafile_pages_SOURCES = tests/test_datafile_pages.c \
	$(datafile_fixture)
tests_test_datafile_pages_CFLAGS = $(TEST_CFLAGS)
tests_test_datafile_pages_LDADD = $(TEST_LIBS)
tests_test_datafile_pgfields_SOURCES = tests/test_datafile_pgfields.c \
	$(datafile_fixture)
tests_test_datafile_pgfields_CFLAGS = $(TEST_CFLAGS)
tests_test_datafile_pgfields_LDADD = $(TEST_LIBS)
tests_test_datafile_records_SOURCES = tests/test_datafile_records.c \
	$(datafile_fixture)
tests_test_datafile_records_CFLAGS = $(TEST_CFLAGS)
tests_test_datafile_records_LDADD = $(TEST_LIBS)
tests_test_datafile_samples_SOURCES = tests/test_datafile_samples.c \
	$(datafile_fixture)
tests_test_datafile_samples_CFLAGS = $(TEST_CFLAGS)
tests_test_datafile_samples_LDADD = $(TEST_LIBS)
tests_test_difftree_SOURCES = tests/test_difftree.c tests/testutil.c tests/testutil.h
tests_test_difftree_CFLAGS = $(TEST_CFLAGS)
tests_test_difftree_LDADD = $(TEST_LIBS)
tests_test_dwp_SOURCES = tests/test_dwp.c tests/testutil.c tests/testutil.h
tests_test_dwp_CFLAGS = $(TEST_CFLAGS)
tests_test_dwp_LDADD = $(TEST_LIBS)
tests_test_ehframe_SOURCES = tests/test_ehframe.c tests/testutil.c tests/testutil.h
tests_test_ehframe_CFLAGS = $(TEST_CFLAGS)
tests_test_ehframe_LDADD = $(TEST_LIBS)
tests_test_lsda_SOURCES = tests/test_lsda.c
tests_test_lsda_CFLAGS = $(TEST_CFLAGS)
tests_test_lsda_LDADD = $(TEST_LIBS)
elf_fixture = tests/elf_fixture.c tests/elf_fixture.h tests/testutil.c \
	tests/testutil.h
elf_fixture_cppflags = $(AM_CPPFLAGS) -DELF_TEST_SRCDIR='"$(abs_top_srcdir)"'
tests_test_elf_debug_SOURCES = tests/test_elf_debug.c $(elf_fixture)
tests_test_elf_debug_CFLAGS = $(TEST_CFLAGS)
tests_test_elf_debug_LDADD = $(TEST_LIBS)
tests_test_elf_debug_CPPFLAGS = $(elf_fixture_cppflags)
tests_test_elf_demangle_SOURCES = tests/test_elf_demangle.c $(elf_fixture)
tests_test_elf_demangle_CFLAGS = $(TEST_CFLAGS)
tests_test_elf_demangle_LDADD = $(TEST_LIBS)
tests_test_elf_demangle_CPPFLAGS = $(elf_fixture_cppflags)
tests_test_elf_hostile_SOURCES = tests/test_elf_hostile.c $(elf_fixture)
tests_test_elf_hostile_CFLAGS = $(TEST_CFLAGS)
tests_test_elf_hostile_LDADD = $(TEST_LIBS)
tests_test_elf_hostile_CPPFLAGS = $(elf_fixture_cppflags)
tests_test_elf_images_SOURCES = tests/test_elf_images.c $(elf_fixture)
tests_test_elf_images_CFLAGS = $(TEST_CFLAGS)
tests_test_elf_images_LDADD = $(TEST_LIBS)
tests_test_elf_images_CPPFLAGS = $(elf_fixture_cppflags)
tests_test_elf_zrace_SOURCES = tests/test_elf_zrace.c $(elf_fixture)
tests_test_elf_zrace_CFLAGS = $(TEST_CFLAGS)
tests_test_elf_zrace_LDADD = $(TEST_LIBS)
tests_test_elf_zrace_CPPFLAGS = $(elf_fixture_cppflags)
tests_test_events_SOURCES = tests/test_events.c tests/testutil.c tests/testutil.h
tests_test_events_CFLAGS = $(TEST_CFLAGS)
tests_test_events_LDADD = $(TEST_LIBS)
tests_test_faults_SOURCES = tests/test_faults.c tests/testutil.c tests/testutil.h
tests_test_faults_CFLAGS = $(TEST_CFLAGS)
tests_test_faults_LDADD = $(TEST_LIBS)
tests_test_filter_SOURCES = tests/test_filter.c tests/testutil.c tests/testutil.h
tests_test_filter_CFLAGS = $(TEST_CFLAGS)
tests_test_filter_LDADD = $(TEST_LIBS)
tests_test_hashmap_SOURCES = tests/test_hashmap.c tests/testutil.c tests/testutil.h
tests_test_hashmap_CFLAGS = $(TEST_CFLAGS)
tests_test_hashmap_LDADD = $(TEST_LIBS)
tests_test_util_SOURCES = tests/test_util.c tests/testutil.c tests/testutil.h
tests_test_util_CFLAGS = $(TEST_CFLAGS)
tests_test_util_LDADD = $(TEST_LIBS)
# zinflate() against zlib's inflate() of whole streams
unit_tests += tests/test_zinflate
tests_test_zinflate_SOURCES = tests/test_zinflate.c
tests_test_zinflate_CFLAGS = $(TEST_CFLAGS)
tests_test_zinflate_LDADD = $(TEST_LIBS)
tests_test_jitmap_SOURCES = tests/test_jitmap.c tests/testutil.c tests/testutil.h
tests_test_jitmap_CFLAGS = $(TEST_CFLAGS)
tests_test_jitmap_LDADD = $(TEST_LIBS)
tests_test_memcg_SOURCES = tests/test_memcg.c tests/testutil.c tests/testutil.h
tests_test_memcg_CFLAGS = $(TEST_CFLAGS)
tests_test_memcg_LDADD = $(TEST_LIBS)
tests_test_pagecache_SOURCES = tests/test_pagecache.c tests/testutil.c tests/testutil.h
tests_test_pagecache_CFLAGS = $(TEST_CFLAGS)
tests_test_pagecache_LDADD = $(TEST_LIBS)
tests_test_machine_SOURCES = tests/test_machine.c tests/testutil.c tests/testutil.h
tests_test_machine_CFLAGS = $(TEST_CFLAGS)
tests_test_machine_LDADD = $(TEST_LIBS)
tests_test_labels_SOURCES = tests/test_labels.c tests/testutil.c tests/testutil.h
tests_test_labels_CFLAGS = $(TEST_CFLAGS)
tests_test_labels_LDADD = $(TEST_LIBS)
tests_test_numfmt_SOURCES = tests/test_numfmt.c tests/testutil.c tests/testutil.h
tests_test_numfmt_CFLAGS = $(TEST_CFLAGS)
tests_test_numfmt_LDADD = $(TEST_LIBS)
output_fixture = tests/output_fixture.c tests/output_fixture.h \
	tests/testutil.c tests/testutil.h
tests_test_output_pprof_html_SOURCES = tests/test_output_pprof_html.c \
	$(output_fixture)
tests_test_output_pprof_html_CFLAGS = $(TEST_CFLAGS)
tests_test_output_pprof_html_LDADD = $(TEST_LIBS)
tests_test_output_text_SOURCES = tests/test_output_text.c $(output_fixture)
tests_test_output_text_CFLAGS = $(TEST_CFLAGS)
tests_test_output_text_LDADD = $(TEST_LIBS)
tests_test_perf_SOURCES = tests/test_perf.c tests/testutil.c tests/testutil.h
tests_test_perf_CFLAGS = $(TEST_CFLAGS)
tests_test_perf_LDADD = $(TEST_LIBS)
tests_test_procmaps_SOURCES = tests/test_procmaps.c tests/testutil.c tests/testutil.h
tests_test_procmaps_CFLAGS = $(TEST_CFLAGS)
tests_test_procmaps_LDADD = $(TEST_LIBS)
rangemap_fixture = tests/rangemap_fixture.c tests/rangemap_fixture.h \
	tests/testutil.c tests/testutil.h
tests_test_rangemap_literal_SOURCES = tests/test_rangemap_literal.c \
	$(rangemap_fixture)
tests_test_rangemap_literal_CFLAGS = $(TEST_CFLAGS)
tests_test_rangemap_literal_LDADD = $(TEST_LIBS)
tests_test_rangemap_random_SOURCES = tests/test_rangemap_random.c \
	$(rangemap_fixture)
tests_test_rangemap_random_CFLAGS = $(TEST_CFLAGS)
tests_test_rangemap_random_LDADD = $(TEST_LIBS)
tests_test_x86dec_SOURCES = tests/test_x86dec.c
tests_test_x86dec_CFLAGS = $(TEST_CFLAGS)
tests_test_x86dec_LDADD = $(TEST_LIBS) -lZydis
tests_test_relocs_SOURCES = tests/test_relocs.c tests/testutil.c tests/testutil.h
tests_test_relocs_CFLAGS = $(TEST_CFLAGS)
tests_test_relocs_LDADD = $(TEST_LIBS)
tests_test_rows_SOURCES = tests/test_rows.c tests/testutil.c tests/testutil.h
tests_test_rows_CFLAGS = $(TEST_CFLAGS)
tests_test_rows_LDADD = $(TEST_LIBS)
tests_test_rows_again_SOURCES = tests/test_rows_again.c tests/testutil.c tests/testutil.h
tests_test_rows_again_CFLAGS = $(TEST_CFLAGS)
tests_test_rows_again_LDADD = $(TEST_LIBS)
tests_test_snap_kpage_SOURCES = tests/test_snap_kpage.c tests/testutil.c tests/testutil.h
tests_test_snap_kpage_CFLAGS = $(TEST_CFLAGS)
tests_test_snap_kpage_LDADD = $(TEST_LIBS)
snapshot_fixture = tests/snapshot_fixture.c tests/snapshot_fixture.h \
	tests/testutil.c tests/testutil.h
snapshot_fixture_cppflags = $(AM_CPPFLAGS) \
	-DWORKLOAD_DIR='"$(abs_top_srcdir)/tests/workloads"'
tests_test_snapshot_SOURCES = tests/test_snapshot.c $(snapshot_fixture)
tests_test_snapshot_CFLAGS = $(TEST_CFLAGS)
tests_test_snapshot_LDADD = $(TEST_LIBS)
tests_test_snapshot_CPPFLAGS = $(snapshot_fixture_cppflags)
tests_test_snapshot_images_SOURCES = tests/test_snapshot_images.c \
	$(snapshot_fixture)
tests_test_snapshot_images_CFLAGS = $(TEST_CFLAGS)
tests_test_snapshot_images_LDADD = $(TEST_LIBS)
tests_test_snapshot_images_CPPFLAGS = $(snapshot_fixture_cppflags)
tests_test_openreg_SOURCES = tests/test_openreg.c tests/testutil.c tests/testutil.h
tests_test_openreg_CFLAGS = $(TEST_CFLAGS)
tests_test_openreg_LDADD = $(TEST_LIBS)
tests_test_strbuf_SOURCES = tests/test_strbuf.c tests/testutil.c tests/testutil.h
tests_test_strbuf_CFLAGS = $(TEST_CFLAGS)
tests_test_strbuf_LDADD = $(TEST_LIBS)
tests_test_strlist_SOURCES = tests/test_strlist.c tests/testutil.c tests/testutil.h
tests_test_strlist_CFLAGS = $(TEST_CFLAGS)
tests_test_strlist_LDADD = $(TEST_LIBS)
tests_test_targets_scan_SOURCES = tests/test_targets_scan.c tests/testutil.c tests/testutil.h
tests_test_targets_scan_CFLAGS = $(TEST_CFLAGS)
tests_test_targets_scan_LDADD = $(TEST_LIBS)
tests_test_unwind_SOURCES = tests/test_unwind.c tests/testutil.c tests/testutil.h
tests_test_unwind_CFLAGS = $(TEST_CFLAGS)
tests_test_unwind_LDADD = $(TEST_LIBS)

e2e_tests = tests/t0001-layers.py \
	tests/t0002-spdx.sh \
	tests/t0003-version.sh \
	tests/t0004-format.sh \
	tests/t1000-size-i1.py \
	tests/t1001-size-cli.sh \
	tests/t1002-cli-options.sh \
	tests/t1003-completion.sh \
	tests/t1004-cli-hostile.py \
	tests/t1005-hostile-images.py \
	tests/t1010-size-hash.py \
	tests/t1100-size-compileunits.py \
	tests/t1104-size-dwarf-strings.py \
	tests/t1105-size-long-names.py \
	tests/t1106-size-dwarf-inflate-bound.py \
	tests/t1110-size-dwp.py \
	tests/t1111-size-dwo-types.py \
	tests/t1112-size-lsda.py \
	tests/t1113-size-arm-lsda.py \
	tests/t1114-size-dwo-pieces.py \
	tests/t1180-size-minidebuginfo.py \
	tests/t1181-size-minidebuginfo-hostile.py \
	tests/t1182-size-minidebuginfo-libc.py \
	tests/t1183-size-symbol-names-overlap.py \
	tests/t1190-size-dwo-name-unterminated.py \
	tests/t1191-size-xindex-symbols.py \
	tests/t1192-size-reloc-dwarf.py \
	tests/t1193-size-archive-changed.py \
	tests/t1194-size-reloc-32bit.py \
	tests/t1195-size-reloc-riscv.py \
	tests/t1196-size-reloc-ehframe.py \
	tests/t1197-size-reloc-mips.py \
	tests/t1198-size-zdebug-not-strings.py \
	tests/t1199-size-dwarf-strx-end.py \
	tests/t1200-size-debuginfod.py \
	tests/t1201-size-debuginfod-silent.py \
	tests/t1202-size-debuginfod-latch.py \
	tests/t1300-size-disasm.py \
	tests/t1301-size-disasm-node.py \
	tests/t1302-size-labels.py \
	tests/t1303-size-disasm-streams.py \
	tests/t1304-size-go.py \
	tests/t1305-size-dwz.py \
	tests/t1306-size-ppc64-opd.py \
	tests/t1307-size-cu-aliases.py \
	tests/t1308-size-zstd-dwarf.py \
	tests/t1309-size-dwarf-bounds.py \
	tests/t1310-size-arm-exidx.py \
	tests/t1311-size-ppc64-code.py \
	tests/t1312-size-debuglink-grows.py \
	tests/t1317-size-same-file.py \
	tests/t1313-size-arm-descriptors.py \
	tests/t1314-size-disasm-text-objects.py \
	tests/t1315-size-disasm-immediates.py \
	tests/t1316-size-disasm-node-numbers.py \
	tests/t1318-size-disasm-struct-strings.py \
	tests/t1319-size-disasm-store32.py \
	tests/t1320-size-debug-file-sections.py \
	tests/t1321-size-debug-file-notes.py \
	tests/t1322-size-nobits-inside.py \
	tests/t1323-size-filter-footer.py \
	tests/t1400-size-archive.py \
	tests/t1401-size-sort-both.py \
	tests/t2001-dump.sh \
	tests/t2050-record-mmaps.sh \
	tests/t2060-record-fork.sh \
	tests/t2070-record-attach.sh \
	tests/t2080-record-sigint.sh \
	tests/t2085-record-kill-held.py \
	tests/t2090-record-nonroot.sh \
	tests/t2091-record-output-dirs.py \
	tests/t2092-record-output-race.py \
	tests/t2093-record-output-fdlink.sh \
	tests/t2094-record-sync.sh \
	tests/t2095-record-errors.sh \
	tests/t2096-record-enospc.sh \
	tests/t2097-record-attach-endings.sh \
	tests/t2098-record-jitmap-planted.sh \
	tests/t2099-record-output-planted.sh \
	tests/t2100-record-faults.sh \
	tests/t2101-record-lost-count.sh \
	tests/t2102-record-faults-attach.py \
	tests/t2105-record-faults-busy.py \
	tests/t2106-record-faults-long-snapshot.py \
	tests/t2107-record-leash.py \
	tests/t2108-record-tstp.sh \
	tests/t2110-record-jit-node.py \
	tests/t2111-record-jit-jvm.py \
	tests/t2115-record-keep.sh \
	tests/t2120-record-follow.sh \
	tests/t2125-record-fork-growth.py \
	tests/t2126-record-fork-scattered.py \
	tests/t2127-record-thp-fork.py \
	tests/t2175-record-thp-smaps-share.py \
	tests/t2173-record-thp-fork-first.py \
	tests/t2130-record-pss-observer.py \
	tests/t2140-record-postgres.py \
	tests/t2150-record-peak.py \
	tests/t2160-record-thread-stacks.sh \
	tests/t2170-record-thp-locked.py \
	tests/t2171-record-status-long.py \
	tests/t2172-record-hugetlb-shared.py \
	tests/t2174-record-hugetlb-pss.py \
	tests/t2185-record-children.py \
	tests/t2186-record-users.py \
	tests/t2190-record-cache-sparse.py \
	tests/t2191-record-cache-walk-symlink.py \
	tests/t2192-record-hostile-notes.py \
	tests/t2193-record-pid-reuse.py \
	tests/t2194-record-mmap-swapped.py \
	tests/t2196-record-shmem-swap.py \
	tests/t2197-record-faults-fp-leaf.py \
	tests/t2198-record-shmem-swap-cow.py \
	tests/t2199-record-leash-threads.py \
	tests/t2300-record-all.py \
	tests/t2310-record-cgroup.py \
	tests/t2311-record-memcg.py \
	tests/t2313-record-memcg-move.py \
	tests/t2314-record-cache-walk-stop.py \
	tests/t2315-record-charge-queue.py \
	tests/t2316-record-cgroup-spelling.py \
	tests/t2317-record-cgroup-nested.py \
	tests/t2318-record-cgroup-hybrid.py \
	tests/t2319-record-cgroup-empty.py \
	tests/t2312-record-machine.py \
	tests/t2320-record-smem.py \
	tests/t2321-record-all-hugetlb.py \
	tests/t2322-record-cgroup-removed.py \
	tests/t2323-record-cgroup-nonroot.py \
	tests/t2324-dump-cgroup-escape.py \
	tests/t2325-record-cgroup-v1-root.py \
	tests/t2326-record-cgroup-v2-root.py \
	tests/t2327-record-cgroup-denied.py \
	tests/t2328-record-cgroup-warning-escape.py \
	tests/t2440-record-faults-static.py \
	tests/t2441-record-jit-map-large.py \
	tests/t2442-record-faults-exec.py \
	tests/t2443-report-jit-semicolon.py \
	tests/t2444-record-maps-newline-name.py \
	tests/t2445-record-comm-odd-bytes.py \
	tests/t2446-record-jit-map-pidns.py \
	tests/t2447-record-maps-newline-unprivileged.py \
	tests/t2450-record-fsize-limit.py \
	tests/t2451-record-pid-thread.py \
	tests/t2452-record-cpu-limit.py \
	tests/t2453-record-duration-bounds.sh \
	tests/t2454-record-ignored-signals.py \
	tests/t2455-record-launch-sigmask.py \
	tests/t2456-record-cache-walk-cpu-limit.py \
	tests/t2457-record-file-dirty-pieces.py \
	tests/t2458-record-file-charge-bitmap.py \
	tests/t2459-record-verbose.py \
	tests/t2460-record-cache-scan-swap.py \
	tests/t2461-record-cgroup-deep.py \
	tests/t2462-size-dwarf-sibling.py \
	tests/t2463-size-padding-fill.py \
	tests/t2464-size-relocs-given-data.py \
	tests/t2465-report-data-file-written.py \
	tests/t2466-record-swapin-dirty.py \
	tests/t2467-record-partial-kept.py \
	tests/t2468-record-error-no-previous.py \
	tests/t2469-report-pid-list.py \
	tests/t2470-record-one-shot-sigint.py \
	tests/t2471-report-pid-not-recorded.py \
	tests/t2472-help-usage-width.py \
	tests/t2473-report-dirty-note-grouped.py \
	tests/t2474-record-output-stalled.py \
	tests/t2479-record-commit-keeps-file.py \
	tests/t2483-record-old-dir-complete.py \
	tests/t2485-record-header-stalled.py \
	tests/t2475-record-attach-churn.py \
	tests/t2476-record-sideband-stopped.py \
	tests/t2477-record-faults-mlock-limit.py \
	tests/t2478-report-diff-image-kind.py \
	tests/t2480-record-pid-repeated.py \
	tests/t2481-record-guard-regions.py \
	tests/t2482-record-swap-areas-many.py \
	tests/t2484-size-disasm-slow-path.py \
	tests/t2486-record-exit-after-end.py \
	tests/t2487-record-charge-queue-wide.py \
	tests/t2488-record-attach-clone-blocked.py \
	tests/t2489-record-werr-pid-reused.py \
	tests/t2490-record-sigint-loop.py \
	tests/t2491-stdout-closed.py \
	tests/t2492-record-output-dash.py \
	tests/t2493-record-sigint-launch.py \
	tests/t2494-record-cache-paths-file-size.py \
	tests/t2495-record-cgroup-exited.py \
	tests/t2496-record-cache-paths-file.py \
	tests/t2497-record-cache-not-activated.py \
	tests/t2498-record-cgroup-exited-final.py \
	tests/t2499-record-cache-not-owner.py \
	tests/t3000-report-i2.py \
	tests/t3001-report-layout.py \
	tests/t3002-report-errors.sh \
	tests/t3005-report-escape.sh \
	tests/t3006-report-truncated.sh \
	tests/t3007-report-not-elf.sh \
	tests/t3008-report-recording-truncated.sh \
	tests/t3009-report-notes-escape.py \
	tests/t3010-report-relocs.py \
	tests/t3011-report-pid-reused.py \
	tests/t3020-report-views.py \
	tests/t3025-report-mappings-addr.py \
	tests/t3030-report-bbs.py \
	tests/t3050-report-mutations.py \
	tests/t3060-report-repro.py \
	tests/t3100-report-callers.py \
	tests/t3200-diff.py \
	tests/t3210-report-timeline.py \
	tests/t3220-report-moments.py \
	tests/t3230-report-footer.py \
	tests/t3240-report-image-labels.py \
	tests/t3280-report-same-image-once.py \
	tests/t3281-report-vm-mapped-twice.py \
	tests/t3282-sort-ties-relocs.py \
	tests/t3290-report-fault-keys-vm.py \
	tests/t3291-report-vm-shared-file-page.py \
	tests/t3292-report-whole-bytes.py \
	tests/t3293-report-pss-every-key.py \
	tests/t3294-report-html-times.py \
	tests/t3295-diff-unchanged-note.py \
	tests/t3296-table-sort-column.py \
	tests/t3297-report-diff-demangle.py \
	tests/t3300-report-pprof.py \
	tests/t3301-report-folded-semicolon.py \
	tests/t3302-report-pprof-escape.py \
	tests/t3303-diff-delta-printed.py \
	tests/t3304-table-wide-labels.py \
	tests/t3305-report-pprof-default-type.py \
	tests/t3310-report-html.py \
	tests/t3320-diff-path-named-symbol.py \
	tests/t3321-diff-upgraded-library.py \
	tests/t3322-diff-pids-inner-key.py \
	tests/t3323-report-vm-once-note.py \
	tests/t3324-report-procs-pseudo-rows.py \
	tests/t3325-report-mappings-file-size.py \
	tests/t3326-report-faults-sampled-note.py \
	tests/t3327-report-cli-consistency.py \
	tests/t3328-report-pprof-file-once.py \
	tests/t3329-record-dash-messages.py \
	tests/t3330-diff-fields-unchanged.py \
	tests/t3331-html-title-escape.py \
	tests/t3332-json-c1-escape.py \
	tests/t3333-diff-kinds-message.py \
	tests/t3335-record-cache-scan-truncated.py \
	tests/t3336-report-charge-over-note.py \
	tests/t3337-record-cache-scan-sigbus-sent.py \
	tests/t3338-record-cache-userns-root.py \
	tests/t3339-record-cgroup-exited-pid-reused.py \
	tests/t3340-report-audit-real.py
TESTS += $(e2e_tests)
# the helpers of the Python tests: one package, a module by theme
memsz_testlib = tests/memsz_testlib/__init__.py \
	tests/memsz_testlib/cgroup.py \
	tests/memsz_testlib/core.py \
	tests/memsz_testlib/elf.py \
	tests/memsz_testlib/formats.py \
	tests/memsz_testlib/proc.py \
	tests/memsz_testlib/record.py \
	tests/memsz_testlib/system.py
EXTRA_DIST += $(e2e_tests) tests/lib.sh $(memsz_testlib) \
	tests/elf-fixtures/elf-byteswap.py \
	tests/workloads/cg_load.c \
	tests/workloads/diff_grow.c \
	tests/workloads/fault_paths.c \
	tests/workloads/fp_jit.c \
	tests/workloads/fault_threads.c \
	tests/workloads/fault_churn.c \
	tests/workloads/fresh_anon.h \
	tests/workloads/fault_loop.c \
	tests/workloads/clone_blocked.c \
	tests/workloads/fd_flip.c \
	tests/workloads/fork_grow.c \
	tests/workloads/rec_dlopen.c \
	tests/workloads/rec_fork.c \
	tests/workloads/rec_fault_attach.c \
	tests/workloads/rec_lib.c \
	tests/workloads/rec_many_maps.c \
	tests/workloads/mmap_churn.c \
	tests/workloads/rec_sleep.c \
	tests/workloads/rec_hugetlb_shared.c \
	tests/workloads/rec_hugetlb_pss.c \
	tests/workloads/rec_thp.c \
	tests/workloads/rec_thpfork.c \
	tests/workloads/rec_thpzero.c \
	tests/workloads/rec_guard.c \
	tests/workloads/rep_fault_paths.c \
	tests/workloads/rep_jit_semicolon.c \
	tests/workloads/rep_stack_known.c \
	tests/workloads/rep_audit.c \
	tests/workloads/rep_layout.c \
	tests/workloads/rep_bbs.c \
	tests/workloads/rep_relocs.cc \
	tests/workloads/snap_workload.c \
	tests/workloads/spawner.py \
	tests/workloads/rec_threads.c \
	tests/workloads/stall_churn.c \
	tests/workloads/sys_share.c
# t2312 holds a walk of every page frame to /proc/meminfo: it must not run
# while t2315 writes and frees its 4.5 GiB of tmpfs
tests/t2312-record-machine.log: tests/t2315-record-charge-queue.log
