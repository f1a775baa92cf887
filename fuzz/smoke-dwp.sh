#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fuzz fuzz_dwp briefly (fuzz/smoke.sh).
exec sh "$top_srcdir/fuzz/smoke.sh" dwp
