#!/bin/sh
# Fuzz fuzz_elf briefly (fuzz/smoke.sh).
exec sh "$top_srcdir/fuzz/smoke.sh" elf
