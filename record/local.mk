# record/ build fragment (included by Makefile.am)
