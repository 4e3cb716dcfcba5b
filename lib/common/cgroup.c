/*
 * cgroup: cpu controller lookup and cpu.stat / quota readers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>

#include "cgroup.h"
#include "fileio.h"
#include "linereader.h"
#include "parse.h"
#include "pf.h"
#include "procstat.h"

static bool
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static int
join(char *out, size_t cap, const char *a, const char *b)
{
	int n = snprintf(out, cap, "%s%s%s", a, (b[0] == '/' || b[0] == '\0') ? "" : "/", b);

	if (n < 0 || (size_t)n >= cap) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Does the comma-separated controller list hold "cpu"? */
static bool
has_cpu_ctrl(const char *list, size_t n)
{
	const char *p = list, *end = list + n;

	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t l = c ? (size_t)(c - p) : (size_t)(end - p);

		if (l == 3 && memcmp(p, "cpu", 3) == 0)
			return true;
		p += l + 1;
	}
	return false;
}

static bool
usable_path(const char *path)
{
	/* Outside our cgroup namespace the path starts with "/.."; unusable. */
	return path[0] == '/' && strstr(path, "/..") == NULL;
}

int
pf_cgroup_find(const char *proc_root, const char *sys_root, int pid, struct pf_cgroup *cg)
{
	char buf[8192], v1path[PATH_MAX] = "", v2path[PATH_MAX] = "", mnt[PATH_MAX];
	char tmp[PATH_MAX];
	const char *pos, *line, *c1, *c2;
	size_t len;
	bool have_v1 = false, have_v2 = false;
	char self[PATH_MAX];
	int n;

	memset(cg, 0, sizeof(*cg));
	if (pid > 0)
		n = snprintf(self, sizeof(self), "%s/%d/cgroup", proc_root, pid);
	else
		n = snprintf(self, sizeof(self), "%s/self/cgroup", proc_root);
	if (n < 0 || (size_t)n >= sizeof(self)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (pf_read_small(self, buf, sizeof(buf)) < 0)
		return -1;
	for (pos = buf; pf_lr_text_next(&pos, &line, &len) == 1;) {
		c1 = memchr(line, ':', len);
		c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
		if (c2 != NULL) {
			size_t pl = len - (size_t)(c2 + 1 - line);

			if (pl < sizeof(v1path)) {
				if (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1) {
					memcpy(v2path, c2 + 1, pl);
					v2path[pl] = '\0';
					have_v2 = usable_path(v2path);
				} else if (has_cpu_ctrl(c1 + 1, (size_t)(c2 - c1 - 1))) {
					memcpy(v1path, c2 + 1, pl);
					v1path[pl] = '\0';
					have_v1 = usable_path(v1path);
				}
			}
		}
	}
	/* v2: pure at fs/cgroup, hybrid at fs/cgroup/unified. */
	if (have_v2) {
		if (join(tmp, sizeof(tmp), sys_root, "fs/cgroup/cgroup.controllers") == 0 && exists(tmp))
			(void)join(mnt, sizeof(mnt), sys_root, "fs/cgroup");
		else
			(void)join(mnt, sizeof(mnt), sys_root, "fs/cgroup/unified");
		if (join(cg->v2_dir, sizeof(cg->v2_dir), mnt, v2path) == -1 || !exists(cg->v2_dir))
			cg->v2_dir[0] = '\0';
	}
	/* The cpu controller: v2 when it has the throttling fields, else v1. */
	if (cg->v2_dir[0] != '\0' && join(tmp, sizeof(tmp), cg->v2_dir, "cpu.max") == 0 && exists(tmp)) {
		cg->cpu_version = 2;
		strcpy(cg->cpu_dir, cg->v2_dir);
		strcpy(cg->path, v2path);
	} else if (have_v1) {
		static const char *const mounts[] = { "fs/cgroup/cpu", "fs/cgroup/cpu,cpuacct",
		    "fs/cgroup/cpuacct,cpu" };
		size_t i;

		for (i = 0; i < PF_ARRAY_LEN(mounts); i++) {
			if (join(mnt, sizeof(mnt), sys_root, mounts[i]) == -1 || !exists(mnt))
				continue;
			if (join(cg->cpu_dir, sizeof(cg->cpu_dir), mnt, v1path) == 0 && exists(cg->cpu_dir)) {
				cg->cpu_version = 1;
				strcpy(cg->path, v1path);
				break;
			}
		}
		if (cg->cpu_version == 0)
			cg->cpu_dir[0] = '\0';
	}
	if (cg->cpu_version == 0 && cg->v2_dir[0] != '\0') {
		cg->cpu_version = 2;	/* usage only: no cpu controller on v2 */
		strcpy(cg->cpu_dir, cg->v2_dir);
		strcpy(cg->path, v2path);
	}
	if (cg->path[0] == '\0')
		snprintf(cg->path, sizeof(cg->path), "%s", have_v2 ? v2path : have_v1 ? v1path : "");
	cg->nested = (have_v2 && strcmp(v2path, "/") != 0) || (have_v1 && strcmp(v1path, "/") != 0);
	return 0;
}

/* The quota of one directory in CPUs, < 0 when unlimited or unknown. */
static double
dir_quota(const char *dir, int version)
{
	char path[PATH_MAX], buf[128];
	long long q, p;

	if (version == 2) {
		if (join(path, sizeof(path), dir, "cpu.max") == -1 ||
		    pf_read_small(path, buf, sizeof(buf)) <= 0)
			return -1;
		if (sscanf(buf, "%lld %lld", &q, &p) != 2 || q <= 0 || p <= 0)
			return -1;	/* "max 100000" does not scan: unlimited */
		return (double)q / (double)p;
	}
	if (join(path, sizeof(path), dir, "cpu.cfs_quota_us") == -1 ||
	    pf_read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	if (sscanf(buf, "%lld", &q) != 1 || q <= 0)
		return -1;
	if (join(path, sizeof(path), dir, "cpu.cfs_period_us") == -1 ||
	    pf_read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	if (sscanf(buf, "%lld", &p) != 1 || p <= 0)
		return -1;
	return (double)q / (double)p;
}

int
pf_cgroup_cpu_read(const struct pf_cgroup *cg, struct pf_cgroup_cpu *c)
{
	static const char *const keys[] = { "nr_periods", "nr_throttled",
	    "throttled_usec", "throttled_time" };
	uint64_t v[4];
	bool f[4];
	char path[PATH_MAX], dir[PATH_MAX];
	size_t up = 0;
	const char *p;
	char *slash;
	double q;

	memset(c, 0, sizeof(*c));
	c->quota_cpus = -1;
	if (cg->cpu_version == 0) {
		errno = ENOENT;
		return -1;
	}
	if (join(path, sizeof(path), cg->cpu_dir, "cpu.stat") == -1 ||
	    pf_keyvals_read(path, keys, 4, v, f) == -1)
		return -1;
	if (f[0] && f[1] && (f[2] || f[3])) {
		c->have_throttle = true;
		c->nr_periods = v[0];
		c->nr_throttled = v[1];
		c->throttled_us = f[2] ? v[2] : v[3] / 1000;
	}
	/* The tightest quota on the way up to the hierarchy's root. */
	for (p = cg->path; *p; p++)
		if (*p == '/' && p[1] != '/' && p[1] != '\0')
			up++;
	strcpy(dir, cg->cpu_dir);
	for (;;) {
		q = dir_quota(dir, cg->cpu_version);
		if (q > 0 && (c->quota_cpus < 0 || q < c->quota_cpus))
			c->quota_cpus = q;
		if (up-- == 0 || (slash = strrchr(dir, '/')) == NULL)
			break;
		*slash = '\0';
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* A cgroup as a recording's target (--cgroup) */

#define CGROUP_SUPER	0x27e0eb	/* cgroup v1 */
#define CGROUP2_SUPER	0x63677270	/* cgroup v2 */

int
pf_cgroup_open_target(const char *sys_root, const char *arg, char *dir, size_t len)
{
	static const char *const roots[] = { "fs/cgroup", "fs/cgroup/unified",
	    "fs/cgroup/perf_event" };
	char base[PATH_MAX], tmp[PATH_MAX];
	struct statfs sf;
	size_t i;
	int fd = -1;

	if (arg[0] == '\0' || strstr(arg, "/../") != NULL || strncmp(arg, "../", 3) == 0 ||
	    (strlen(arg) >= 3 && strcmp(arg + strlen(arg) - 3, "/..") == 0) ||
	    strcmp(arg, "..") == 0) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; fd == -1 && i < PF_ARRAY_LEN(roots); i++) {
		if (join(base, sizeof(base), sys_root, roots[i]) == -1)
			return -1;
		/* A path given whole must lie in one of the hierarchies. */
		if (arg[0] == '/' && strncmp(arg, base, strlen(base)) == 0 &&
		    (arg[strlen(base)] == '/' || arg[strlen(base)] == '\0')) {
			if (join(tmp, sizeof(tmp), arg, "") == -1)
				return -1;
		} else if (arg[0] == '/' && strncmp(arg, sys_root, strlen(sys_root)) == 0)
			continue;
		else if (join(tmp, sizeof(tmp), base, arg) == -1)
			return -1;
		if ((fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
			continue;
		if (fstatfs(fd, &sf) == -1 || (sf.f_type != CGROUP_SUPER &&
		    sf.f_type != CGROUP2_SUPER) ||
		    (sf.f_type == CGROUP_SUPER && strcmp(roots[i], "fs/cgroup/perf_event") != 0)) {
			close(fd);
			fd = -1;
			continue;
		}
		if (join(dir, len, "", tmp) == -1) {
			close(fd);
			return -1;
		}
	}
	if (fd == -1)
		errno = ENOENT;
	return fd;
}

/* The processes of cgroup directory dirfd and its descendants, depth levels down. */
static void
procs_of(int dirfd, pid_t *pids, size_t max, size_t *n, int depth)
{
	struct dirent *d;
	char buf[4096];
	ssize_t got;
	size_t have = 0;
	DIR *dir;
	int fd, sub;

	if ((fd = openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC)) != -1) {
		/* One number a line: read in pieces, a number cut at a piece's end kept. */
		while (*n < max && (got = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
			char *p = buf, *nl;
			uint64_t v;

			have += (size_t)got;
			buf[have] = '\0';
			while (*n < max && (nl = strchr(p, '\n')) != NULL) {
				*nl = '\0';
				if (pf_parse_u64(p, 1, INT_MAX, &v) == 0)
					pids[(*n)++] = (pid_t)v;
				p = nl + 1;
			}
			have = strlen(p);
			memmove(buf, p, have);
		}
		close(fd);
	}
	if (depth == 0 || *n >= max)
		return;
	if ((sub = dup(dirfd)) == -1 || (dir = fdopendir(sub)) == NULL) {
		if (sub != -1)
			close(sub);
		return;
	}
	while (*n < max && (d = readdir(dir)) != NULL) {
		int child;

		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		if ((child = openat(dirfd, d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
		    O_NOFOLLOW)) == -1)
			continue;
		procs_of(child, pids, max, n, depth - 1);
		close(child);
	}
	closedir(dir);
}

size_t
pf_cgroup_procs(int dirfd, pid_t *pids, size_t max)
{
	size_t n = 0;

	procs_of(dirfd, pids, max, &n, PF_CGROUP_DEPTH);
	return n;
}
