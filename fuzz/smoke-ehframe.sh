#!/bin/sh
# Fuzz fuzz_ehframe briefly (fuzz/smoke.sh).
exec sh "$top_srcdir/fuzz/smoke.sh" ehframe
