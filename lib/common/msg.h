/*
 * msg: diagnostics in the house format "pf-tool: context: reason".
 *
 * These are the only functions in lib/common that print or exit; they exist
 * so that every tool words its errors the same way.  The program name is
 * glibc's program_invocation_short_name, set before main().
 */
#ifndef PF_MSG_H
#define PF_MSG_H

#include <stdarg.h>

/* Print "prog: msg" (warnx) or "prog: msg: strerror(errno)" (warn). */
void pf_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pf_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* As above, then exit with status code. */
void pf_diex(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
void pf_die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/*
 * Misuse of the command line: one line saying why, then the synopsis, both
 * to stderr, exit PF_EXIT_USAGE.  synopsis is the text usage() prints
 * (it may span several lines).
 */
void pf_usage_error(const char *synopsis, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/*
 * The getopt_long misuse cases in the house words, through pf_usage_error:
 * call it for the '?' and ':' that getopt_long returned (c), with the
 * tool's short-option string.  getopt's own messages must be off (opterr =
 * 0, and shortopts starting with ':', after any '+') so that exactly one
 * line says why.  It tells an unknown option, an ambiguous abbreviation, a
 * missing argument and an argument given to an option that takes none apart.
 */
void pf_usage_getopt(const char *synopsis, const char *shortopts, int c,
    char *const argv[]) __attribute__((noreturn));

/* Print "prog version" to stdout and exit 0 (--version). */
void pf_print_version(void) __attribute__((noreturn));

/*
 * Flush stdout and exit with code, or with PF_EXIT_FAIL and a message when
 * stdout could not be written (full disk, closed pipe): a tool never
 * claims success for output that did not arrive.
 */
void pf_exit_checked(int code) __attribute__((noreturn));

#endif
