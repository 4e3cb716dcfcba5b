/*
 * lto-inline: nofp-inline built as Debian builds python3.11, with
 * link-time optimization (the Makefile's lto- rule, -O2 -g -flto): the
 * inlined instances of inl_spin sit in the unit the link made, their
 * abstract origin in the unit of the source, so only a reader that
 * follows an origin across units finds them.  Same behaviour and
 * arguments as nofp-inline.
 */
#include "nofp-inline.c"
