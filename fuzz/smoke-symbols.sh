#!/bin/sh
# Fuzz fuzz_symbols briefly (fuzz/smoke.sh).
exec sh "$top_srcdir/fuzz/smoke.sh" symbols
