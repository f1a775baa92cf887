# SPDX-License-Identifier: GPL-2.0-or-later
"""memsz_testlib: helpers shared by the Python tests (tests/t*.py).

A test imports it from its own directory:
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import memsz_testlib as lib
and ends with `sys.exit(lib.finish())`.

The helpers live in modules by theme, and are all names of this package
(lib.check, lib.smaps_vmas, ...), as they were of the one file it was:
  core     the checks, skips, finish(), wait_until(), MEMSZ, SRCDIR
  proc     /proc: smaps, rollups, process states, stopping workloads
  record   recordings and reports: rows, snapshots, fault_loop under memsz
  formats  memsz.data bytes and checksums, pprof's protocol buffers
  elf      `memsz size` and its ground truth: readelf, nm, objdump, Bloaty
  cgroup   control groups and memory.stat
  system   borrowed resources: socket directories, swap, hugetlb, ports,
           fanotify, block devices
"""
from .core import (
    MEMSZ, SRCDIR, PAGE, sibling_test, check, check_quiet, skip_part, skip,
    fail, finish, wait_until, workload, read_int, dir_removed, run_ok)
from .proc import (
    resume, urgent, perf_map, untraced_threads, proc_state, task_field,
    wait_stopped,
    workload_ready, workload_stopped, stopped, asleep_in, reading_pipe,
    in_nanosleep, nmaps,
    smaps_vmas, smaps_inode_rss, smaps_rollup, all_rollups, cpu_state,
    all_cpu_states, is_kthread, children, stop_kill, stopped_child,
    smaps_mapping, NOBODY, SYS_PYTHON, start_as_nobody)
from .record import (
    report, recording, jitmap_syms, jit_checks, next_tick,
    start_fault_loop, stop_after_tick, end_fault_loop, mapping_rows,
    record_between, mapping_row_checks, checks_retried, smaps_regions,
    compare_regions, check_mapping_row, pid_rows, pid_label_is, snap_ends,
    wait_snaps, snapshot_after, charge_runs, check_charge_runs)
from .formats import (
    pb_fields, crc32c, md_records, md_fix_checksums,
    md_without_image_kinds, go_env, pprof_tmp)
from .elf import (
    bloaty_path, need_x86_tools, asm_function, build_asm, function_lines,
    asm_layouts, build_exec_stripped, check_no_disasm_rodata,
    lea_targets, llvm_tool, TU_SOURCES, type_unit_prog,
    readelf, size_rows, section_symbol_sizes, unit_code_vm, dwarf_unit_name,
    nm_sizes, check_unit_symbols, section_strings, sections, build_id,
    FEDORA_MINIDEBUG, fedora_minidebug, nm_defined, eh_frame_fdes,
    build_c_asm)
from .cgroup import (
    memcg_stat, STAT_GUARD, memcg_stat_until, cgroup2_mount,
    cgroup_records, cgroup_targets, V1_MEMORY, make_cgroup, remove_cgroup,
    memory_cgroup_root, cgroup_kill, memory_cgroups, cat_in_cgroup,
    start_in_cgroup, memcg_usage, memcg_stat_key, FILE_WRITER, ANON_HOLDER,
    cgroup_test, exit_recorded, charge_total, check_exit_left_out,
    check_exit_dropped,
    build_preload, preload_test)
from .system import (
    hugetlb_pool_lock, socket_dir, free_port, BlackHole, swap_file,
    wait_served, FAN_CLOEXEC, FAN_CLASS_CONTENT, FAN_MARK_ADD,
    FAN_OPEN_PERM, FAN_ACCESS_PERM, FAN_EVENT_ON_CHILD, FAN_ALLOW,
    AT_FDCWD, FAN_EVENT, fanotify, fan_events, fan_allow, fan_serve, block_device_dir,
    fincore_bytes, uncached_file, roots_file)
from . import core as _core

# every name above, for `from memsz_testlib import NAME` and pyflakes
__all__ = [
    "MEMSZ", "SRCDIR", "PAGE", "sibling_test", "check", "check_quiet",
    "skip_part", "skip", "fail", "finish", "wait_until", "workload",
    "read_int", "dir_removed", "run_ok", "resume", "urgent", "perf_map",
    "untraced_threads", "proc_state", "task_field", "wait_stopped",
    "workload_ready",
    "workload_stopped",
    "stopped", "asleep_in", "reading_pipe", "in_nanosleep",
    "nmaps", "smaps_vmas", "smaps_inode_rss",
    "smaps_rollup",
    "all_rollups", "cpu_state", "all_cpu_states", "is_kthread", "children",
    "stop_kill", "stopped_child", "smaps_mapping", "NOBODY", "SYS_PYTHON",
    "start_as_nobody", "report", "recording",
    "jitmap_syms", "jit_checks", "next_tick", "start_fault_loop",
    "stop_after_tick", "end_fault_loop", "mapping_rows", "record_between",
    "mapping_row_checks", "checks_retried", "smaps_regions",
    "compare_regions", "check_mapping_row", "pid_rows", "pid_label_is",
    "snap_ends", "wait_snaps", "snapshot_after", "charge_runs",
    "check_charge_runs",
    "pb_fields", "crc32c", "md_records", "md_fix_checksums", "go_env",
    "pprof_tmp",
    "md_without_image_kinds", "bloaty_path", "need_x86_tools",
    "asm_function", "build_asm", "function_lines", "asm_layouts",
    "build_exec_stripped", "check_no_disasm_rodata", "lea_targets", "llvm_tool",
    "TU_SOURCES", "type_unit_prog", "readelf", "size_rows",
    "section_symbol_sizes", "unit_code_vm",
    "dwarf_unit_name", "nm_sizes", "check_unit_symbols", "section_strings",
    "sections", "build_id", "FEDORA_MINIDEBUG", "fedora_minidebug",
    "nm_defined", "eh_frame_fdes", "build_c_asm", "memcg_stat",
    "STAT_GUARD", "memcg_stat_until", "cgroup2_mount", "cgroup_records",
    "cgroup_targets", "V1_MEMORY", "make_cgroup", "remove_cgroup",
    "memory_cgroup_root", "cgroup_kill", "memory_cgroups", "cat_in_cgroup",
    "start_in_cgroup", "memcg_usage", "memcg_stat_key", "FILE_WRITER",
    "ANON_HOLDER", "cgroup_test", "hugetlb_pool_lock", "socket_dir", "free_port",
    "BlackHole", "swap_file", "wait_served", "FAN_CLOEXEC",
    "FAN_CLASS_CONTENT", "FAN_MARK_ADD", "FAN_OPEN_PERM", "FAN_ACCESS_PERM",
    "FAN_EVENT_ON_CHILD", "FAN_ALLOW", "AT_FDCWD", "FAN_EVENT", "fanotify",
    "fan_events", "fan_allow", "fan_serve", "block_device_dir",
    "fincore_bytes", "exit_recorded", "charge_total",
    "check_exit_left_out", "check_exit_dropped", "build_preload",
    "preload_test",
    "uncached_file", "roots_file"]


def __getattr__(name):
    """The counts of checks (checks, failures, skipped) as they are now:
    core's globals change with each check, and a name imported from it
    above would keep the value it had then (t1000 and t1100 print
    lib.checks and lib.failures)."""
    if name in ("checks", "failures", "skipped"):
        return getattr(_core, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
