#!/bin/sh
# Fuzz fuzz_datafile briefly (fuzz/smoke.sh).
exec sh "$top_srcdir/fuzz/smoke.sh" datafile
