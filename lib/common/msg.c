/*
 * msg: the house diagnostic format, in one place.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "pf.h"

/* The format attribute lets a compiler check fmt at each caller's
 * literal, and accept it here (clang's -Wformat-nonliteral). */
static void vmsg(int with_errno, int saved, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void
vmsg(int with_errno, int saved, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	if (with_errno)
		fprintf(stderr, ": %s", strerror(saved));
	fputc('\n', stderr);
}

void
pf_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(0, 0, fmt, ap);
	va_end(ap);
}

void
pf_warn(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg(1, saved, fmt, ap);
	va_end(ap);
}

void
pf_diex(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(0, 0, fmt, ap);
	va_end(ap);
	exit(code);
}

void
pf_die(int code, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vmsg(1, saved, fmt, ap);
	va_end(ap);
	exit(code);
}

void
pf_usage_error(const char *synopsis, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(0, 0, fmt, ap);
	va_end(ap);
	fputs(synopsis, stderr);
	exit(PF_EXIT_USAGE);
}

const char *
pf_getopt_why(char *buf, size_t len, const char *shortopts, int c, char *const argv[])
{
	/* getopt_long has stepped past a long option, so it is argv[optind - 1]. */
	const char *arg = optind > 0 ? argv[optind - 1] : "?";

	if (c == ':') {
		if (strncmp(arg, "--", 2) == 0)
			snprintf(buf, len, "%s: needs an argument", arg);
		else
			snprintf(buf, len, "-%c: needs an argument", optopt);
	} else if (optopt == 0) {
		/* optopt is 0 for a long option that matched none or several. */
		snprintf(buf, len, "%s: unknown or ambiguous option", arg);
	} else if (optopt >= 256 || (optopt != ':' && optopt != '+' &&
	    strchr(shortopts, optopt) != NULL)) {
		/*
		 * A known short option never gets here, so optopt naming one (or
		 * a long-only value) means its long form was given "=value".
		 */
		snprintf(buf, len, "%s: takes no argument", arg);
	} else
		snprintf(buf, len, "-%c: unknown option", optopt);
	return buf;
}

void
pf_usage_getopt(const char *synopsis, const char *shortopts, int c,
    char *const argv[])
{
	char why[256];

	pf_usage_error(synopsis, "%s", pf_getopt_why(why, sizeof(why), shortopts, c, argv));
}

void
pf_print_version(void)
{
#ifdef PF_STATIC
	/* Which build a report came from: the static one carries its own libraries. */
	printf("%s %s (static)\n", program_invocation_short_name, PF_VERSION);
#else
	printf("%s %s\n", program_invocation_short_name, PF_VERSION);
#endif
	pf_exit_checked(PF_EXIT_OK);
}

void
pf_exit_checked(int code)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		/* A closed pipe downstream is the reader's choice, not our failure. */
		if (errno == EPIPE)
			exit(code);
		pf_die(PF_EXIT_FAIL, "stdout");
	}
	exit(code);
}

void
pf_say(enum pf_say kind, int err, const char *text)
{
	switch (kind) {
	case PF_SAY_WARN:
		if (err)
			fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, text,
			    strerror(err));
		else
			fprintf(stderr, "%s: %s\n", program_invocation_short_name, text);
		break;
	case PF_SAY_PROGRESS:
	case PF_SAY_PROGRESS_END:
		/* \r and erase-to-end redraw the line; the last state ends it. */
		fprintf(stderr, "\r%s: %s\033[K%s", program_invocation_short_name, text,
		    kind == PF_SAY_PROGRESS_END ? "\n" : "");
		break;
	}
}

int
pf_result_set(struct pf_result *s, int code, int err, const char *fmt, ...)
{
	va_list ap;

	s->code = code;
	s->err = err;
	va_start(ap, fmt);
	vsnprintf(s->text, sizeof(s->text), fmt, ap);
	va_end(ap);
	return -1;
}

void
pf_result_exit(const struct pf_result *s, const char *synopsis, const char *help)
{
	if (s->kind == PF_RESULT_HELP) {
		fputs(synopsis, stdout);
		fputs(help, stdout);
		pf_exit_checked(PF_EXIT_OK);
	}
	if (s->kind == PF_RESULT_VERSION)
		pf_print_version();
	if (s->code == PF_EXIT_USAGE) {
		if (s->text[0] != '\0')
			pf_usage_error(synopsis, "%s", s->text);
		fputs(synopsis, stderr);
		exit(PF_EXIT_USAGE);
	}
	if (s->text[0] != '\0') {
		if (s->err) {
			errno = s->err;
			pf_die(s->code, "%s", s->text);
		}
		pf_diex(s->code, "%s", s->text);
	}
	pf_exit_checked(s->code);
}

static bool (*exit_fn)(void);
static int exit_code;

static void
run_exit_hook(void)
{
	bool (*fn)(void) = exit_fn;

	exit_fn = NULL;
	if (fn != NULL && fn())
		_exit(exit_code);
}

/*
 * abort() from inside a library that ran out of memory: libdw 0.188's
 * hash tables assert that a resize's allocation succeeded
 * (dynamicsizehash_concurrent.c: `htab->table'), so an address-space
 * limit met there ends in SIGABRT, not in its exit(1).  The abort is
 * synchronous (the code that called malloc, not a signal from outside),
 * and errno still says why: ENOMEM runs the hook as exit() would.  Any
 * other abort (a bug, a sanitizer's report) keeps its default action.
 */
static void
abort_hook(int sig)
{
	bool (*fn)(void) = exit_fn;

	if (errno == ENOMEM && fn != NULL) {
		exit_fn = NULL;
		if (fn())
			_exit(exit_code);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void
pf_exit_hook(bool (*fn)(void), int code)
{
	static bool registered;
	struct sigaction sa;

	exit_fn = fn;
	exit_code = code;
	if (!registered) {
		registered = atexit(run_exit_hook) == 0;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = abort_hook;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESETHAND;
		(void)sigaction(SIGABRT, &sa, NULL);
	}
}
