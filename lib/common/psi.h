/*
 * psi: pressure stall information (Documentation/accounting/psi.rst),
 * system-wide (/proc/pressure/{cpu,io,memory}) or per cgroup v2
 * (<cgroup>/{cpu,io,memory}.pressure).  Use the total= counters over an
 * interval, not avg10, which carries history from before it.
 */
#ifndef PF_PSI_H
#define PF_PSI_H

#include <stdbool.h>
#include <stdint.h>

struct pf_psi {
	bool have_some, have_full;	/* the "full" line is absent for cpu before 5.13 */
	double some_avg10, full_avg10;	/* context only */
	uint64_t some_total, full_total; /* cumulative stall, microseconds */
};

/*
 * Parse the text of a pressure file.  0, or -1 with EINVAL when it has no
 * "some" line.
 */
int pf_psi_parse(const char *text, struct pf_psi *p);

/*
 * Read a pressure file at path.  0, or -1 with errno: ENOENT when PSI is
 * absent, EOPNOTSUPP when the kernel has it disabled.
 */
int pf_psi_read(const char *path, struct pf_psi *p);

/* Read <proc_root>/pressure/<resource> ("cpu", "io", "memory"). */
int pf_psi_read_system(const char *proc_root, const char *resource, struct pf_psi *p);

/*
 * Stall share of an interval in percent: 100 * (t1 - t0) / interval_us,
 * 0 when the counter went backwards (reset).
 */
double pf_psi_pct(uint64_t t0, uint64_t t1, double interval_us);

#endif
