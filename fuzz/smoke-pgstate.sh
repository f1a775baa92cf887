#!/bin/sh
# Fuzz fuzz_pgstate briefly (fuzz/smoke.sh).
exec sh "$top_srcdir/fuzz/smoke.sh" pgstate
