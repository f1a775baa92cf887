# data/ build fragment: the memsz.data format (included by Makefile.am)
