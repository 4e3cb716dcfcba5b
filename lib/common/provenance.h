/*
 * provenance: what a recording was (tool, host, target, window, rate,
 * samples...), carried from a recorder's header and trailer comments
 * through the folded stacks to the flame graph as one comment line,
 *
 *   # pf-provenance tool=pf-record host=web1 target=nginx pid=4242 ... unit=ns
 *
 * (man/pf-formats.5).  Values hold no white space, control byte or ';'
 * (each becomes '_') and at most PF_PROV_VALMAX bytes; the last token is
 * always unit=samples or unit=ns, so the line never ends in a digit and a
 * folded-stacks reader that skips lines without a trailing count skips it.
 */
#ifndef PF_PROVENANCE_H
#define PF_PROVENANCE_H

#include <stddef.h>

#include "buf.h"

#define PF_PROV_PREFIX "# pf-provenance "
#define PF_PROV_VALMAX 64

/* The keys, in the order the line gives them; unit comes last, apart. */
enum pf_prov_key {
	PF_PROV_TOOL, PF_PROV_HOST, PF_PROV_TARGET, PF_PROV_PID, PF_PROV_EVENT,
	PF_PROV_START, PF_PROV_WINDOW, PF_PROV_FREQ, PF_PROV_SAMPLES,
	PF_PROV_LOST, PF_PROV_TRUNCATED, PF_PROV_INCOMPLETE, PF_PROV_INCOMPLETE_CAUSE,
	PF_PROV_STOP, PF_PROV_KSTACKS, PF_PROV_CALLGRAPH, PF_PROV_NKEYS
};

struct pf_prov {
	char val[PF_PROV_NKEYS][PF_PROV_VALMAX + 1];	/* "" when unknown */
	int unit_ns;		/* counts are nanoseconds (both recorders' periods) */
	int unit_known;		/* a provenance line said unit=ns or unit=samples */
	int targets_pids;	/* the header named pids: the comm lines name the target */
	int version;		/* the header's stream version, 1 or 2 */
};

/*
 * Whether line (len bytes, no newline) is a recorder's header,
 * "# pf-record V ..." or "# pf-offcpu V ..." of version V 1 or 2
 * (writer.h, PF_STREAM_VERSION): 1 and p is reset and filled
 * from it; 0 and p is untouched.
 */
int pf_prov_header(struct pf_prov *p, const char *line, size_t len);

/*
 * Whether line is one of the recorder's later comments that p uses (the
 * target's comm, the caps line's window, the trailer's counts), for the
 * tool p's header named: 1 and p is updated; 0 otherwise.
 */
int pf_prov_note(struct pf_prov *p, const char *line, size_t len);

/*
 * Whether line is a "# pf-provenance " line: 1 and p is reset and filled
 * from its tokens (unknown keys and tokens without '=' are skipped); 0
 * and p is untouched.
 */
int pf_prov_parse(struct pf_prov *p, const char *line, size_t len);

/* Append p as one provenance line, with its newline.  0, or -1 (ENOMEM). */
int pf_prov_format(const struct pf_prov *p, struct pf_buf *out);

/* Whether p is time off the CPU (pf-offcpu, event offcpu-time): 1 or 0. */
int pf_prov_offcpu(const struct pf_prov *p);

/* The name of key in a provenance line ("tool", "incomplete-cause"...). */
const char *pf_prov_key_name(enum pf_prov_key key);

/* The value of key, or NULL when p has none. */
const char *pf_prov_get(const struct pf_prov *p, enum pf_prov_key key);

/*
 * Append who was recorded where: "nginx (pid 4242) on web1", as much of
 * it as p knows ("all processes on web1" for -a).  0, or -1 (ENOMEM).
 */
int pf_prov_who(const struct pf_prov *p, struct pf_buf *b);

/*
 * The share of p's stacks that reach no entry frame (its trailer's
 * incomplete= of samples=), in percent; -1 when p does not say.
 */
double pf_prov_incomplete_pct(const struct pf_prov *p);

/*
 * Append what incomplete stacks say, when more than
 * PF_PROV_INCOMPLETE_SAY percent of p's are: "12% of stacks incomplete
 * (mostly: stack copy too short)", the main cause in words.  Nothing
 * otherwise.  0, or -1 (ENOMEM).
 */
#define PF_PROV_INCOMPLETE_SAY 5.0
int pf_prov_incomplete_say(const struct pf_prov *p, struct pf_buf *b);

/*
 * A flame graph's title and subtitle from p, each appended to its buffer
 * (nothing to a NULL one): "CPU: nginx (pid 4242) on web1" ("Off-CPU
 * time: ..." for pf-offcpu), and "start 2026-12-02T11:00:00Z, window
 * 15s, 99 Hz, 2970 samples, call graph dwarf", with the losses and an
 * early stop when there were any.  0, or -1 (ENOMEM).
 */
int pf_prov_describe(const struct pf_prov *p, struct pf_buf *title, struct pf_buf *subtitle);

#endif
