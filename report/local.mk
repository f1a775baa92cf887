# report/ build fragment (included by Makefile.am)
