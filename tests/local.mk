# tests/ build fragment (included by Makefile.am)
