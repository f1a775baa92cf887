# man/ build fragment (included by Makefile.am)
