/*
 * rec-bomb: a target that makes mappings to cost its profiler time and
 * memory, then spins in bomb_spin (called from main) for SECONDS:
 *
 *   rec-bomb maps N SECONDS         maps its own executable N times, a page
 *                                   each, alternately executable so that no
 *                                   two merge (N near vm.max_map_count);
 *   rec-bomb dlopen SO DIR N SECONDS
 *                                   copies the shared object SO to
 *                                   DIR/lib1.so ... DIR/libN.so and loads
 *                                   each (N distinct files, N modules).
 *
 * It writes "ready" on stdout, once everything is mapped.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wl-now.h"

#define SPIN 200000UL

__attribute__((noinline)) void
bomb_spin(void)
{
	for (volatile unsigned long i = 0; i < SPIN; i++)
		;
}

static int
maps(long n)
{
	long pg = sysconf(_SC_PAGESIZE), i;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (mmap(NULL, (size_t)pg, (i & 1) ? PROT_READ : PROT_READ | PROT_EXEC,
		    MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return -1;
	close(fd);
	return 0;
}

static int
copy(int in, off_t size, const char *to)
{
	off_t o = 0;
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);

	if (out == -1)
		return -1;
	while (o < size)
		if (sendfile(out, in, &o, (size_t)(size - o)) <= 0) {
			close(out);
			return -1;
		}
	return close(out);
}

static int
libs(const char *so, const char *dir, long n)
{
	char path[4096];
	struct stat st;
	long i;
	int in = open(so, O_RDONLY | O_CLOEXEC);

	if (in == -1 || fstat(in, &st) == -1)
		return -1;
	for (i = 1; i <= n; i++) {
		snprintf(path, sizeof(path), "%s/lib%ld.so", dir, i);
		if (copy(in, st.st_size, path) == -1)
			return -1;
		if (dlopen(path, RTLD_NOW | RTLD_LOCAL) == NULL) {
			fprintf(stderr, "rec-bomb: %s\n", dlerror());
			return -1;
		}
	}
	close(in);
	return 0;
}

int
main(int argc, char **argv)
{
	double end;
	double seconds;
	int rc;

	if (argc == 4 && strcmp(argv[1], "maps") == 0) {
		rc = maps(atol(argv[2]));
		seconds = atof(argv[3]);
	} else if (argc == 6 && strcmp(argv[1], "dlopen") == 0) {
		rc = libs(argv[2], argv[3], atol(argv[4]));
		seconds = atof(argv[5]);
	} else {
		fprintf(stderr, "usage: rec-bomb maps N SECONDS | dlopen SO DIR N SECONDS\n");
		return 2;
	}
	if (rc == -1) {
		perror("rec-bomb");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	end = now() + seconds;
	do {
		bomb_spin();
	} while (now() < end);
	return 0;
}
