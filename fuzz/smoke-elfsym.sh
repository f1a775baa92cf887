#!/bin/sh
# Fuzz fuzz_elfsym briefly (fuzz/smoke.sh).
exec sh "$top_srcdir/fuzz/smoke.sh" elfsym
