/*
 * perfscript: the parser for the sample stream, i.e. the text `perf script`
 * prints (man/pf-formats.5), turning each sample into one folded stack.
 *
 * It keeps stackcollapse-perf.pl's rules (the folded output of the Perl
 * script is the compatibility contract): the event line's period is the
 * weight, `[unknown]` becomes `[module]`, spaces in the comm become `_`,
 * names are tidied (`;` to `:`, arguments cut from the first parenthesis,
 * quotes removed, Java's `L` prefix removed), only the first event type is
 * kept unless a filter names one.  Not in the Perl: event names are
 * compared without their modifiers ("cycles:u" is "cycles") unless the
 * filter names a modifier.  On top of that it keeps a sample that is
 * not followed by a blank line, keeps parentheses inside C++ template
 * arguments, counts `.ko` modules and `vmlinux-*` as kernel and
 * `jitted-*.so` as JIT, and reads a frame carried on the event line.
 *
 * The caller feeds lines (pf_ps_line) and gets each finished sample through a
 * callback: its folded stack, the event line's fields and, when asked
 * (keep_frames), each frame's fields as printed, for a caller that keeps
 * what folding loses (pprof).  '#' comment lines go to a second callback,
 * and a third may name the frames printed [unknown] (pf-fold --debug-dir).
 * Memory is bounded by the largest sample, not the input.
 */
#ifndef PF_PERFSCRIPT_H
#define PF_PERFSCRIPT_H

#include <stddef.h>
#include <stdint.h>

struct pf_perfscript;

struct pf_ps_config {
	int include_pid;	/* root frame "comm-PID" (PID "?" when absent) */
	int include_tid;	/* root frame "comm-PID/TID"; wins over include_pid */
	int annotate_kernel;	/* "_[k]" on kernel frames */
	int annotate_jit;	/* "_[j]" on JIT frames */
	int annotate_inline;	/* "_[i]" on "(inlined)" frames (not in the Perl) */
	int annotate_libc;	/* "_[l]" on frames of the C library's files and
				   the functions inlined into them, in place of
				   any other annotation (not in the Perl) */
	int include_addrs;	/* "[module <pc>]" for unknown symbols */
	const char *event_filter;	/* keep only this event; NULL: the first seen;
					   without a modifier, any modifier matches */
	/* Extras; a zero value is off. */
	const uint64_t *pids;	/* keep samples whose PID (or TID when no PID) is listed */
	size_t npids;
	const char *comm;	/* keep samples of this comm (as printed, or with '_') */
	int use_time;		/* keep samples with time_start <= t < time_end */
	uint64_t time_start_ns, time_end_ns;
	int keep_frames;	/* fill ps_sample's frames */
};

/* One frame line's fields as printed; pointers valid in the callback only. */
struct pf_ps_frame {
	uint64_t addr;		/* the address (hex, its low 64 bits); 0 if not hex */
	const char *func;	/* the symbol, without trailing white space and
				   "+0x<offset>"; may be empty */
	size_t func_len;
	const char *module;	/* between the parentheses: a path, "[kernel.kallsyms]",
				   "inlined", "[unknown]"...; perf's " (deleted)" mark dropped */
	size_t module_len;
};

struct pf_ps_sample {
	const char *stack;	/* "root;caller;...;leaf", NUL-terminated, valid in the callback */
	size_t len;
	uint64_t weight;	/* the period, or 1 */
	/* The event line's fields; strings as printed, not NUL-terminated. */
	const char *comm;	/* spaces kept, a padded comm's leading ones dropped */
	size_t comm_len;
	const char *event;	/* the event's name, NULL when the line has none */
	size_t event_len;
	uint64_t pid, tid;
	int has_pid;		/* "PID/TID" printed, PID a 64-bit number */
	int has_tid;		/* TID (or the one number printed) a 64-bit number */
	uint64_t time_ns;
	int has_time;		/* a time "secs[.frac]" printed */
	/*
	 * With keep_frames, every frame line of the sample that the frame
	 * rule reads (a frame on the event line first), leaf first, also
	 * those folding leaves out; otherwise NULL and 0.
	 */
	const struct pf_ps_frame *frames;
	size_t nframes;
};

/*
 * Called for every finished sample that passed the filters.  Return 0, or
 * -1 with errno set to stop: pf_ps_line/pf_ps_finish then return -1 with that
 * errno.
 */
typedef int (*pf_ps_emit_fn)(const struct pf_ps_sample *s, void *arg);

/*
 * Called for every line that starts with '#' (len bytes, no newline, not
 * NUL-terminated), with pf_ps_new's arg.  0, or -1 with errno set: pf_ps_line
 * then returns -1 with that errno.
 */
typedef int (*pf_ps_comment_fn)(const char *line, size_t len, void *arg);

/* What a frame printed "[unknown]" is named instead (pf_ps_unknown_fn). */
struct pf_ps_names {
	const char *name;		/* the function, as a stream prints names */
	const char *const *inl;		/* the functions inlined there, innermost first */
	size_t ninl;
};

/*
 * Called for a user frame printed "[unknown]" in a module (not empty, not
 * "[unknown]"), before it is
 * folded (or kept), with pf_ps_new's arg: the module as printed (perf's
 * " (deleted)" mark kept), the frame's address (0 if it is not hex or
 * longer than 16 digits) and whether it is a return address (a user
 * frame after its sample's first, which the recorders look up a byte
 * before).  Returns the names to fold in its place, valid until the next
 * call: the function and the functions inlined there, each folded as a
 * frame of its own, as if the stream had printed them ("(inlined)" lines
 * above the function's); or NULL to keep "[unknown]".
 */
typedef const struct pf_ps_names *(*pf_ps_unknown_fn)(const char *module, size_t module_len,
    uint64_t addr, int retaddr, void *arg);

struct pf_ps_stats {
	uint64_t events;		/* event lines read, kept or not */
	uint64_t samples;		/* emitted */
	uint64_t other_events;		/* dropped by the event filter */
	int event_defaulted;		/* the filter was the first event seen */
	const char *event;		/* the event kept (NULL before the first) */
};

/* A parser (cfg is copied, its strings are not), or NULL with ENOMEM. */
struct pf_perfscript *pf_ps_new(const struct pf_ps_config *cfg, pf_ps_emit_fn emit, void *arg);

/* Hand the '#' lines to comment (NULL: ignore them, the default). */
void pf_ps_on_comment(struct pf_perfscript *ps, pf_ps_comment_fn comment);

/* Ask unknown to name [unknown] user frames (NULL: never, the default). */
void pf_ps_on_unknown(struct pf_perfscript *ps, pf_ps_unknown_fn unknown);

/*
 * Whether the event lines that follow are a pf recorder's of stream
 * version 2 or later (on), whose comm is escaped (pf-formats(5), Names):
 * no white space before a digit inside it, so a comm ends at the first
 * white space that the pid follows, and may be one byte.  Off (the
 * default, and perf's text): the Perl's rule, a comm of two bytes or more.
 */
void pf_ps_names_escaped(struct pf_perfscript *ps, int on);

/*
 * Feed one line without its newline (len bytes; need not be
 * NUL-terminated).  Returns 0; or -1 with errno EBADMSG for a line that is
 * neither blank, a '#' comment, an event line nor a frame line (the line
 * is ignored and parsing can go on; pf_ps_malformed() says why); or -1 with
 * the callback's errno, or ENOMEM.
 */
int pf_ps_line(struct pf_perfscript *ps, const char *line, size_t len);

/* Why the last EBADMSG line was malformed (a static string). */
const char *pf_ps_malformed(const struct pf_perfscript *ps);

/*
 * End of one input: finish the pending sample, as if a blank line
 * followed.  The event filter carries over to the next input.  0 or -1
 * as pf_ps_line.
 */
int pf_ps_finish(struct pf_perfscript *ps);

void pf_ps_get_stats(const struct pf_perfscript *ps, struct pf_ps_stats *st);

void pf_ps_free(struct pf_perfscript *ps);

#endif
