/*
 * privs: one place for the kernel's perf and kallsyms permission rules.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "pf.h"
#include "privs.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_CHECKPOINT_RESTORE
#define CAP_CHECKPOINT_RESTORE 40
#endif

static bool
has_cap(cap_t c, cap_value_t v)
{
	cap_flag_value_t f = CAP_CLEAR;

	if (!CAP_IS_SUPPORTED(v))
		return false;
	if (cap_get_flag(c, v, CAP_EFFECTIVE, &f) == -1)
		return false;
	return f == CAP_SET;
}

int
pf_caps_get(struct pf_caps *c)
{
	cap_t cur;

	if ((cur = cap_get_proc()) == NULL)
		return -1;
	c->perfmon = has_cap(cur, CAP_PERFMON);
	c->sys_admin = has_cap(cur, CAP_SYS_ADMIN);
	c->syslog = has_cap(cur, CAP_SYSLOG);
	c->sys_ptrace = has_cap(cur, CAP_SYS_PTRACE);
	c->ipc_lock = has_cap(cur, CAP_IPC_LOCK);
	c->checkpoint_restore = has_cap(cur, CAP_CHECKPOINT_RESTORE);
	cap_free(cur);
	return 0;
}

bool
pf_caps_perf(const struct pf_caps *c)
{
	return c->perfmon || c->sys_admin;
}

bool
pf_may_sample_user(long paranoid, const struct pf_caps *c)
{
	return pf_caps_perf(c) || paranoid <= 2;
}

bool
pf_may_sample_kernel(long paranoid, const struct pf_caps *c)
{
	return pf_caps_perf(c) || paranoid <= 1;
}

bool
pf_may_sample_cpu(long paranoid, const struct pf_caps *c)
{
	return pf_caps_perf(c) || paranoid <= 0;
}

bool
pf_kallsyms_visible(long kptr_restrict, long paranoid, const struct pf_caps *c)
{
	if (kptr_restrict <= 0 && paranoid <= 1)
		return true;
	if (kptr_restrict <= 1 && c->syslog)
		return true;
	return false;
}

int
pf_drop_privileges(void)
{
	cap_t none;
	cap_value_t v;
	int rc;

	/*
	 * The bounding set first (needs CAP_SETPCAP, which we still hold if
	 * we hold anything); failure there is not fatal because the empty
	 * permitted set plus no_new_privs already prevents regaining caps.
	 */
	for (v = 0; v <= CAP_LAST_CAP; v++)
		if (CAP_IS_SUPPORTED(v))
			(void)prctl(PR_CAPBSET_DROP, v, 0, 0, 0);
	if ((none = cap_init()) == NULL)
		return -1;
	rc = cap_set_proc(none);
	cap_free(none);
	if (rc == -1)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return -1;
	return 0;
}

static bool
listed(const int *caps, size_t n, cap_value_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (caps[i] == (int)v)
			return true;
	return false;
}

int
pf_keep_privileges(const int *caps, size_t n)
{
	cap_value_t keep[64];
	cap_flag_value_t f;
	cap_t cur, next;
	cap_value_t v;
	int nkeep = 0, rc;

	if ((cur = cap_get_proc()) == NULL)
		return -1;
	for (v = 0; v <= CAP_LAST_CAP && nkeep < (int)PF_ARRAY_LEN(keep); v++)
		if (listed(caps, n, v) && CAP_IS_SUPPORTED(v) &&
		    cap_get_flag(cur, v, CAP_PERMITTED, &f) == 0 && f == CAP_SET)
			keep[nkeep++] = v;
	cap_free(cur);
	/* The bounding set while CAP_SETPCAP is still held, as pf_drop_privileges does. */
	for (v = 0; v <= CAP_LAST_CAP; v++)
		if (CAP_IS_SUPPORTED(v) && !listed(caps, n, v))
			(void)prctl(PR_CAPBSET_DROP, v, 0, 0, 0);
	if ((next = cap_init()) == NULL)
		return -1;
	rc = nkeep == 0 ? 0 : cap_set_flag(next, CAP_EFFECTIVE, nkeep, keep, CAP_SET);
	if (rc == 0 && nkeep > 0)
		rc = cap_set_flag(next, CAP_PERMITTED, nkeep, keep, CAP_SET);
	if (rc == 0)
		rc = cap_set_proc(next);
	cap_free(next);
	if (rc == -1)
		return -1;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ? -1 : 0;
}
