# bench/ build fragment (included by Makefile.am)
