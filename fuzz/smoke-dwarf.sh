#!/bin/sh
# Fuzz fuzz_dwarf briefly (fuzz/smoke.sh).
exec sh "$top_srcdir/fuzz/smoke.sh" dwarf
