/*
 * fpcheck: frame pointers judged from .eh_frame.  Code that keeps frame
 * pointers computes the CFA from rbp in its body; code built without them
 * computes it from rsp everywhere, but for the odd function that realigns
 * its stack or uses alloca.  Cheap (a binary search of .eh_frame_hdr and
 * a short CFI program per probe) and blind to code without call-frame
 * information.  Go code is known by its sections instead: it has no
 * .eh_frame, and its rbp frames do not hold where its assembly keeps
 * data in rbp.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fpcheck.h"
#include "mapfile.h"
#include "procmaps.h"

static bool
has_interp(Elf *elf)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) != NULL && ph.p_type == PT_INTERP)
			return true;
	return false;
}

/*
 * Go's linker writes .note.go.buildid and .go.buildinfo into every
 * program (strip keeps both); .debug_frame is what -g dwarf unwinds Go
 * code by, and what -s -w or strip removes.
 */
static bool
go_marker(const char *name)
{
	return strcmp(name, ".note.go.buildid") == 0 || strcmp(name, ".go.buildinfo") == 0;
}

int
pf_fp_probe(int fd, struct pf_fpinfo *fi)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	Dwarf_CFI *cfi;
	GElf_Shdr sh, text = { 0 };
	size_t shstr, i;
	bool go = false, debug_frame = false;
	int rc = -1;

	memset(fi, 0, sizeof(*fi));
	(void)elf_version(EV_CURRENT);
	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL) {
		errno = EINVAL;
		return -1;
	}
	fi->dynamic = has_interp(elf);
	/*
	 * Every section header, once: libelf has read them all already (as
	 * many as the file holds), and each name is bounded by its string
	 * table.
	 */
	if (elf_getshdrstrndx(elf, &shstr) == 0)
		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			const char *name;

			if (gelf_getshdr(scn, &sh) == NULL ||
			    (name = elf_strptr(elf, shstr, sh.sh_name)) == NULL)
				continue;
			if (strcmp(name, ".text") == 0 && text.sh_size == 0)
				text = sh;
			else if (go_marker(name))
				go = true;
			else if (strcmp(name, ".debug_frame") == 0 && sh.sh_type != SHT_NOBITS &&
			    sh.sh_size > 0)
				debug_frame = true;
		}
	fi->go = go && debug_frame && text.sh_size > 0;
	if (text.sh_size > 0 && (cfi = dwarf_getcfi_elf(elf)) != NULL) {
		for (i = 0; i < PF_FP_PROBES; i++) {
			Dwarf_Addr a = text.sh_addr + (2 * i + 1) * text.sh_size / (2 * PF_FP_PROBES);
			Dwarf_Frame *fr;
			Dwarf_Op *ops;
			size_t nops;

			if (dwarf_cfi_addrframe(cfi, a, &fr) != 0)
				continue;	/* padding between functions, or no FDE */
			if (dwarf_frame_cfa(fr, &ops, &nops) == 0 && nops > 0) {
				fi->probed++;
				if (ops[0].atom == DW_OP_breg6 ||
				    (ops[0].atom == DW_OP_bregx && ops[0].number == 6))
					fi->rbp++;
			}
			free(fr);
		}
		dwarf_cfi_end(cfi);
	}
	if (fi->probed > 0 || fi->go)
		rc = 0;
	elf_end(elf);
	if (rc == -1)
		errno = EINVAL;
	return rc;
}

/* More than half the probed code with rbp frames: frame pointers kept. */
bool
pf_fp_kept(const struct pf_fpinfo *fi)
{
	return 2 * fi->rbp > fi->probed;
}

/*
 * Go before the probes: Go's own code keeps rbp frames, but a sample in
 * its assembly finds rbp holding data, and Go code has no .eh_frame to
 * probe anyway.
 */
int
pf_fp_verdict(const struct pf_fpinfo *fi)
{
	if (fi->go)
		return PF_FP_GO;
	return pf_fp_kept(fi) ? PF_FP_WALKS : PF_FP_LACKING;
}

const char *
pf_fp_word(int verdict)
{
	return verdict == PF_FP_GO ? "go" : verdict == PF_FP_UNJUDGED ? "unjudged" :
	    "no-frame-pointers";
}

/*
 * The base name for a header word, as it is: the header escapes it when
 * it writes it (pf_name_escape), so no blank or control byte can split
 * the header's key=value list.
 */
static void
name_of(const char *path, char *why, size_t whylen)
{
	const char *b = strrchr(path, '/');

	snprintf(why, whylen, "%s", b ? b + 1 : path);
}

/*
 * The file at path by pf_fp_verdict, or -1 when it cannot be opened or
 * judged.
 */
static int
judge(const char *path, struct pf_fpinfo *fi)
{
	int fd, rc;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	rc = pf_fp_probe(fd, fi);
	close(fd);
	return rc == 0 ? pf_fp_verdict(fi) : -1;
}

#define SEEN_MAX	64

struct walk {
	const char *proc_root;
	pid_t pid;
	char *seen[SEEN_MAX];
	size_t nseen;
	char *why;
	size_t whylen;
	int found;
	bool full;
	char unjudged[PATH_MAX];	/* the first file not opened or judged, "" if none */
};

static int
walk_map(const struct pf_maps_entry *m, void *arg)
{
	struct walk *w = arg;
	struct pf_fpinfo fi;
	size_t i;
	int v, fd;

	if (!m->exec || m->path[0] != '/' || m->deleted)
		return 0;
	for (i = 0; i < w->nseen; i++)
		if (strcmp(w->seen[i], m->path) == 0)
			return 0;
	/* A process mapping more files than this is judged by its first ones. */
	if (w->nseen == SEEN_MAX) {
		w->full = true;
		return -1;
	}
	if ((w->seen[w->nseen] = strdup(m->path)) != NULL)
		w->nseen++;
	/* The mapped file itself, not whatever its path names here. */
	if ((fd = pf_mapfile_open(NULL, w->proc_root, w->pid, m->start, m->end, m->path,
	    m->ino)) == -1 || pf_fp_probe(fd, &fi) == -1)
		v = -1;
	else
		v = pf_fp_verdict(&fi);
	if (fd != -1)
		close(fd);
	if (v == -1 && w->unjudged[0] == '\0')
		snprintf(w->unjudged, sizeof(w->unjudged), "%s", m->path);
	if (v <= PF_FP_WALKS)
		return 0;
	name_of(m->path, w->why, w->whylen);
	w->found = v;
	return -1;
}

int
pf_fp_lacking_proc(const char *proc_root, pid_t pid, char *why, size_t whylen)
{
	struct walk w = { .proc_root = proc_root, .pid = pid, .why = why, .whylen = whylen };
	char path[PATH_MAX];
	size_t i;
	int fd, rc, e;

	snprintf(path, sizeof(path), "%s/%d/maps", proc_root, (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	rc = pf_maps_read(fd, walk_map, &w);
	e = errno;
	close(fd);
	for (i = 0; i < w.nseen; i++)
		free(w.seen[i]);
	if (w.found)
		return w.found;
	if (rc == -1 && !w.full) {
		errno = e;
		return -1;
	}
	if (w.unjudged[0] != '\0') {
		name_of(w.unjudged, why, whylen);
		return PF_FP_UNJUDGED;
	}
	return 0;
}

/*
 * The C library mapped in the maps file at maps_path (its path as that
 * process sees it): 0 with it in path, or -1.
 */
static int
maps_libc(const char *maps_path, char *path, size_t len)
{
	char line[PATH_MAX + 128];
	FILE *f;
	int found = -1;

	if ((f = fopen(maps_path, "re")) == NULL)
		return -1;
	/* A line longer than the buffer is read on as more lines, each refused or not a libc. */
	while (found == -1 && fgets(line, sizeof(line), f) != NULL) {
		struct pf_maps_entry e;
		const char *b;

		line[strcspn(line, "\n")] = '\0';
		if (pf_maps_parse_line(line, &e) == -1 || !e.exec || e.path[0] != '/')
			continue;
		b = strrchr(e.path, '/') + 1;
		if (strncmp(b, "libc.so", 7) == 0 || strncmp(b, "libc-", 5) == 0) {
			snprintf(path, len, "%s", e.path);
			found = 0;
		}
	}
	fclose(f);
	return found;
}

/* cmd as execvp finds it: a name with a slash as it is, else along PATH. */
static int
find_cmd(const char *cmd, char *path, size_t len)
{
	const char *p = getenv("PATH"), *q;

	if (strchr(cmd, '/') != NULL) {
		snprintf(path, len, "%s", cmd);
		return 0;
	}
	if (p == NULL)
		p = "/usr/local/bin:/usr/bin:/bin";
	for (; *p != '\0'; p = *q ? q + 1 : q) {
		int n;

		q = strchrnul(p, ':');
		n = snprintf(path, len, "%.*s/%s", (int)(q - p), q == p ? "." : p, cmd);
		if (n > 0 && (size_t)n < len && access(path, X_OK) == 0)
			return 0;
		if (*q == '\0')
			break;
	}
	return -1;
}

/*
 * The loader's C library is the host's: this process's, as a command
 * started from here would map it; a static build maps none, and then
 * init's is (pid 1 is the host's, seen through its own root).
 */
int
pf_fp_lacking_libc(const char *proc_root, char *why, size_t whylen)
{
	char maps[PATH_MAX], lib[PATH_MAX], path[PATH_MAX + 64];
	struct pf_fpinfo fi;
	int v;

	if (maps_libc("/proc/self/maps", lib, sizeof(lib)) == 0)
		snprintf(path, sizeof(path), "%s", lib);
	else {
		snprintf(maps, sizeof(maps), "%s/1/maps", proc_root);
		if (maps_libc(maps, lib, sizeof(lib)) == -1) {
			errno = ENOENT;
			return -1;
		}
		snprintf(path, sizeof(path), "%s/1/root%s", proc_root, lib);
	}
	if ((v = judge(path, &fi)) == -1) {
		errno = ENOENT;
		return -1;
	}
	if (v == PF_FP_WALKS)
		return 0;
	name_of(lib, why, whylen);
	return v;
}

int
pf_fp_lacking_cmd(const char *cmd, char *why, size_t whylen)
{
	char path[PATH_MAX];
	struct pf_fpinfo fi = { 0 };
	bool static_elf = false;
	int fd;

	if (find_cmd(cmd, path, sizeof(path)) == 0 &&
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
		int rc = pf_fp_probe(fd, &fi), v = rc == 0 ? pf_fp_verdict(&fi) : -1;

		close(fd);
		if (v > PF_FP_WALKS) {
			name_of(path, why, whylen);
			return v;
		}
		static_elf = rc == 0 && !fi.dynamic;
	}
	if (static_elf)
		return 0;
	return pf_fp_lacking_libc("/proc", why, whylen) == PF_FP_LACKING ? PF_FP_LACKING : 0;
}
