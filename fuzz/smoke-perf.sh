#!/bin/sh
# Fuzz fuzz_perf briefly (fuzz/smoke.sh).
exec sh "$top_srcdir/fuzz/smoke.sh" perf
