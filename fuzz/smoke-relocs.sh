#!/bin/sh
# Fuzz fuzz_relocs briefly (fuzz/smoke.sh).
exec sh "$top_srcdir/fuzz/smoke.sh" relocs
