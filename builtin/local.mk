# SPDX-License-Identifier: GPL-2.0-or-later
# builtin/: the commands (thin: parse options, call the library, print).
memsz_SOURCES += builtin/builtin.h builtin/cmd_size.c builtin/cmd_record.c \
	builtin/cmd_report.c builtin/cmd_dump.c builtin/cmd_diff.c \
	builtin/timeline.c \
	builtin/options.c builtin/options.h builtin/view.c builtin/view.h
