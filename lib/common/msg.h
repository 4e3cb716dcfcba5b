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
#include <stddef.h>
#include <stdbool.h>

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

/*
 * The same reason as text in buf (len bytes), returned, without printing:
 * for library code that reports through a result instead of exiting.
 */
const char *pf_getopt_why(char *buf, size_t len, const char *shortopts, int c,
    char *const argv[]);

/* Print "prog version" to stdout and exit 0 (--version). */
void pf_print_version(void) __attribute__((noreturn));

/*
 * Flush stdout and exit with code, or with PF_EXIT_FAIL and a message when
 * stdout could not be written (full disk, closed pipe): a tool never
 * claims success for output that did not arrive.
 */
void pf_exit_checked(int code) __attribute__((noreturn));

/*
 * An exit() made anywhere, a library's that gives up included (libdw's
 * out-of-memory handler exits 1 with its own message), runs fn first;
 * when fn returns true the status becomes code instead.  So does an
 * abort() with errno ENOMEM (an assertion on a failed allocation, in
 * libdw's hash tables); any other abort keeps its default action.  One
 * hook; a later call replaces it.
 */
void pf_exit_hook(bool (*fn)(void), int code);

/*
 * What a library module hands its tool to print, since only this module
 * prints: a warning line ("prog: text", with ": strerror(err)" when err
 * is not 0), or the progress line on a terminal, redrawn in place, and
 * its last state, which ends the line.
 */
enum pf_say { PF_SAY_WARN, PF_SAY_PROGRESS, PF_SAY_PROGRESS_END };
void pf_say(enum pf_say kind, int err, const char *text);

/*
 * How a library module's run ended, for its tool to report: an exit
 * status (PF_EXIT_*), and what to say, if anything, with the errno
 * behind it (0: none).
 */
struct pf_result {
	enum { PF_RESULT_DONE, PF_RESULT_HELP, PF_RESULT_VERSION } kind;
	int code;
	int err;
	char text[512];
};

/* Fill s; returns -1, for "return pf_result_set(...)" on a failure path. */
int pf_result_set(struct pf_result *s, int code, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Report s and exit with its code: -h as the synopsis and help on stdout,
 * --version as pf_print_version, a usage error as pf_usage_error does
 * (the synopsis alone when there is no text), any other text as pf_die
 * or pf_diex would, and no text as pf_exit_checked.
 */
void pf_result_exit(const struct pf_result *s, const char *synopsis, const char *help)
	__attribute__((noreturn));

#endif
