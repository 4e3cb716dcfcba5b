/*
 * spawn: the child a recorder runs for -- CMD, held between fork and exec
 * until the events are open (they count from the exec), then killed when
 * the window ends.
 */
#ifndef PF_SPAWN_H
#define PF_SPAWN_H

#include "target.h"

/*
 * Where the command's standard output goes: a command must not write into
 * a stream its recorder writes to the same standard output.
 */
enum pf_spawn_stdout {
	PF_SPAWN_STDOUT_KEEP,		/* the recorder's standard output */
	PF_SPAWN_STDOUT_STDERR,		/* the recorder's standard error */
	PF_SPAWN_STDOUT_NULL		/* /dev/null */
};

/*
 * Fork cmd, held before exec until pf_spawn_start, its standard output
 * sent where out says.  -1 with errno from pipe or fork.
 */
int pf_spawn_cmd(struct pf_target *t, char **cmd, enum pf_spawn_stdout out);

/*
 * Let the child exec.  -1 with errno: the exec's own error (the child
 * is reaped), or the write's.
 */
int pf_spawn_start(struct pf_target *t);

/*
 * Close the release pipe without starting the child and reap it (the
 * events could not be opened).
 */
void pf_spawn_abandon(struct pf_target *t);

/* SIGTERM the child, SIGKILL after a second, reap it.  No child: no-op. */
void pf_spawn_kill(struct pf_target *t);

/*
 * Where execvp(file) finds file, canonical, into buf (PATH_MAX bytes): 0,
 * or -1 when nowhere.
 */
int pf_spawn_path(const char *file, char *buf);

#endif
