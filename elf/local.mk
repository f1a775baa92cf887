# elf/ build fragment (included by Makefile.am)
