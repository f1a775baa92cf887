#!/bin/sh
# Fuzz fuzz_dfreader briefly (fuzz/smoke.sh).
exec sh "$top_srcdir/fuzz/smoke.sh" dfreader
