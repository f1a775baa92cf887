# maps/ build fragment (included by Makefile.am)
