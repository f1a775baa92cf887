# SPDX-License-Identifier: GPL-2.0-or-later
# man/: one page per command; SYNOPSIS is the exact grammar.
dist_man_MANS += man/memsz.1 man/memsz-size.1 man/memsz-record.1 \
	man/memsz-report.1 man/memsz-diff.1 man/memsz-dump.1 man/memsz-data.5
