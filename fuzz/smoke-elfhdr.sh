#!/bin/sh
# Fuzz fuzz_elfhdr briefly (fuzz/smoke.sh).
exec sh "$top_srcdir/fuzz/smoke.sh" elfhdr
