#!/bin/sh
# Fuzz fuzz_procmaps briefly (fuzz/smoke.sh).
exec sh "$top_srcdir/fuzz/smoke.sh" procmaps
