# man/: one page per command; SYNOPSIS is the exact grammar.
dist_man_MANS += man/memsz.1 man/memsz-size.1
