/*
 * symbolize: per-process mapping tables over shared per-file libdwfl
 * handles, with one cache of (file, file address) -> (name, offset,
 * functions inlined there).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addrsearch.h"
#include "demangle.h"
#include "fileio.h"
#include "grow.h"
#include "hash.h"
#include "htab.h"
#include "intern.h"
#include "parse.h"
#include "jitmap.h"
#include "mapfile.h"
#include "procmaps.h"
#include "procstat.h"
#include "symbolize.h"

#define MAX_PREOPEN 256
/*
 * Inlined names kept at most: a cache entry's run starts at a 32-bit
 * offset into them (2^31, where doubling from 256 stopped before).
 */
#define INL_MAX ((size_t)1 << 31)

/*
 * Deeper than this, a chain of scopes is cut: a DIE tree is the target's
 * to nest.  So one frame has at most this many inlined functions.
 */
#define PF_SYM_MAX_SCOPES	64

/*
 * Where separate debuginfo is looked for: by build-id under
 * /usr/lib/debug/.build-id, then by the file's .gnu_debuglink in its
 * directory, its .debug and /usr/lib/debug.  pf_sym_file_info asks the
 * same, so pf-precheck's verdict is the recorders'.
 */
static char debuginfo_search[] = "/usr/lib/debug";
static char *debuginfo_path = debuginfo_search;

/*
 * The debug link is the target's to choose, and so is what lies beside
 * its file: libdwfl's own search opened whatever the name led to, as
 * root, and a FIFO there blocked the symbolizer for good (fuzz-symelf).
 * Here the name must be a plain file name (no '/'), each candidate is
 * opened without blocking and without following a last link, only a
 * regular file is taken, and only one whose build-id is the file's
 * (a file without a build-id gets no debug link).
 */
static int
find_debuglink(Dwfl_Module *mod, const char *file_name, const char *link, char **found)
{
	const unsigned char *want, *got;
	GElf_Addr vaddr;
	char dir[PATH_MAX], path[PATH_MAX];
	const char *slash = file_name ? strrchr(file_name, '/') : NULL;
	int nwant, ngot, fd, i, n;
	struct stat st;
	bool same;
	Elf *elf;

	if (link == NULL || link[0] == '\0' || strchr(link, '/') != NULL ||
	    strcmp(link, ".") == 0 || strcmp(link, "..") == 0 || slash == NULL ||
	    (nwant = dwfl_module_build_id(mod, &want, &vaddr)) <= 0)
		return -1;
	if ((size_t)(slash - file_name) >= sizeof(dir))
		return -1;
	memcpy(dir, file_name, (size_t)(slash - file_name));
	dir[slash - file_name] = '\0';
	for (i = 0; i < 3; i++) {
		n = snprintf(path, sizeof(path), i == 0 ? "%s/%s" : i == 1 ? "%s/.debug/%s" :
		    "/usr/lib/debug%s/%s", dir, link);
		if (n < 0 || (size_t)n >= sizeof(path))
			continue;
		if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)) == -1)
			continue;
		if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
		    (elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL) {
			close(fd);
			continue;
		}
		/* got points into elf: compared before elf_end. */
		ngot = (int)dwelf_elf_gnu_build_id(elf, (const void **)&got);
		same = ngot == nwant && memcmp(got, want, (size_t)nwant) == 0;
		elf_end(elf);
		if (!same || (*found = strdup(path)) == NULL) {
			close(fd);
			continue;
		}
		(void)fcntl(fd, F_SETFL, 0);
		return fd;
	}
	return -1;
}

static int
find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
    const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
    char **debuginfo_file_name)
{
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
	    debuglink_file, debuglink_crc, debuginfo_file_name);

	if (fd >= 0)
		return fd;
	return find_debuglink(mod, file_name, debuglink_file, debuginfo_file_name);
}

static const Dwfl_Callbacks dwfl_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/*
 * A symbol as the index of a file's symbols holds it: perf's view of the
 * table (see index_symbols), or a PLT entry made from the relocations.
 */
struct fsym {
	uint64_t lo, hi;	/* [lo, hi) in the Dwfl's addresses; lo == hi: lo alone */
	uint64_t reach;		/* the highest hi of this entry and all before it */
	const char *name;	/* in the ELF's string table, live with the Dwfl */
	uint32_t ndx;		/* its index in the symbol table, or the PLT slot's */
	uint8_t bind;		/* STB_* */
	bool plt;		/* a PLT entry: printed name@plt */
};

struct symfile {
	char *path;
	uint32_t maj, min;
	uint64_t ino;
	pid_t pid;		/* the first process seen mapping it, 0 if none */
	uint64_t start, end;	/* a mapping of it there, 0 if none known */
	int fd;			/* pre-opened, or -1 */
	bool tried, ok;
	bool hit;		/* a frame lies in it (pf_sym_mark) */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct pf_buildid_seg *segs;	/* PT_LOADs, vaddr with the bias */
	size_t nsegs, capsegs;
	/*
	 * The symbols perf would name addresses with, one per address,
	 * and the PLT entries, sorted by address, made at the first lookup:
	 * libdwfl's own lookup reads the whole table every time (libLLVM
	 * has 100,000 symbols) and chooses among aliases otherwise.
	 * indexed: tried; syms NULL: not made (libdwfl's lookup then).
	 */
	bool indexed;
	struct fsym *syms;
	size_t nsyms;
	uint64_t bias;		/* a debug file's (pf_sym_debug_add): module - ELF address */
};

static Dwfl_Module *report_file(Dwfl *dwfl, const char *base, const char *path, int fd);

struct map {
	uint64_t start, end, pgoff;
	struct symfile *file;	/* NULL for non-file mappings */
	const char *name;	/* file path, or "[vdso]" etc. */
};

struct proc {
	pid_t pid;
	struct map *maps;
	size_t n, cap;
	uint64_t top;		/* no map ends above it (it may be above them all) */
	bool sorted;
	bool jit_tried;
	bool uid_known;
	uid_t uid;		/* the owner a JIT map must have, besides root */
	struct pf_jitmap *jit;
	char *jit_name;
};

struct centry {
	const struct symfile *file;
	uint64_t vaddr;
	uint64_t off;
	uint32_t name;			/* in s->names; NO_NAME: no symbol */
	uint32_t inl_at, inl_n;		/* its inlined functions, in s->inl */
};

/*
 * A name's number in s->names when there is none: no symbol, or one that
 * could not be kept (ENOMEM).  Numbers stay below PF_INTERN_MAX.
 */
#define NO_NAME UINT32_MAX

/* A growing array of pointers with an htab index over it. */
struct ptrtab {
	void **v;
	size_t n, cap;
	struct pf_htab index;
};

struct pf_symbolizer {
	const struct pf_kallsyms *k;
	struct ptrtab procs;		/* struct proc *, by pid */
	struct ptrtab files;		/* struct symfile *, by path and inode */
	/*
	 * Symbol and module names, each with its NUL, so that a number
	 * gives a C string; the pool moves as it grows, so what is kept is
	 * the number, and a name's address only lasts one answer.
	 */
	struct pf_intern names;
	struct centry *cache;		/* (file, file address) -> symbol */
	size_t ccap, cn;
	struct pf_htab cindex;
	size_t preopened;
	struct pf_mapfiles *mf;		/* the recorder's file helper, or NULL */
	struct pf_sym_stats st;
	bool inlines;			/* look up inlined functions */
	bool dwarf_names;		/* ... and name the function as its DWARF does */
	uint32_t *inl;			/* names' numbers, each entry's run innermost first */
	size_t inl_n, inl_cap;
	const char *inl_out[PF_SYM_MAX_SCOPES];	/* one answer's run, as names */
	uint64_t vdso_size;	/* of our own [vdso] mapping, 0 if none */
	char *jit_refusal;	/* the first JIT map refused, and why */
	struct symfile **debugs;	/* pf_sym_debug_add's files, by handle */
	size_t ndebugs, capdebugs;
};

/*
 * Append p to t under hash h; the caller found no equal entry.  0, or -1
 * with ENOMEM (t unchanged).
 */
static int
ptrtab_add(struct ptrtab *t, uint64_t h, void *p, pf_htab_eq *eq, const void *arg)
{
	if (pf_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v)) == -1)
		return -1;
	if (pf_htab_reserve(&t->index) == -1)
		return -1;
	pf_htab_set(&t->index, pf_htab_find(&t->index, h, eq, arg), h, t->n);
	t->v[t->n++] = p;
	return 0;
}

static void
ptrtab_free(struct ptrtab *t)
{
	free(t->v);
	pf_htab_free(&t->index);
}

/*
 * The kernel maps one vDSO image into every process of an ABI, so our own
 * copy names the frames in a target's [vdso] mapping of the same size (a
 * 32-bit process's differs).  Nothing of the target's memory is read.
 */
static int
vdso_size_cb(const struct pf_maps_entry *e, void *arg)
{
	if (strcmp(e->path, "[vdso]") == 0 && e->pgoff == 0)
		*(uint64_t *)arg = e->end - e->start;
	return 0;
}

static uint64_t
own_vdso_size(void)
{
	uint64_t size = 0;
	int fd;

	if (getauxval(AT_SYSINFO_EHDR) == 0)
		return 0;
	if ((fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	if (pf_maps_read(fd, vdso_size_cb, &size) == -1)
		size = 0;
	close(fd);
	return size;
}

/* Our vDSO image in a memfd: libdwfl reads ELF files from descriptors. */
static int
own_vdso_fd(uint64_t size)
{
	const char *base = (const char *)getauxval(AT_SYSINFO_EHDR);

	if (base == NULL || size == 0 || size > SIZE_MAX)
		return -1;
	return pf_memfd_copy("pf-vdso", base, (size_t)size);
}

struct pf_symbolizer *
pf_sym_new(const struct pf_kallsyms *kallsyms)
{
	struct pf_symbolizer *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->k = kallsyms;
	if (pf_htab_init(&s->procs.index, 256) == -1 ||
	    pf_htab_init(&s->files.index, 256) == -1 ||
	    pf_intern_init(&s->names, 4096) == -1 ||
	    pf_htab_init(&s->cindex, 4096) == -1) {
		pf_sym_free(s);
		return NULL;
	}
	s->vdso_size = own_vdso_size();
	return s;
}

static struct proc *
get_proc(struct pf_symbolizer *s, pid_t pid, bool create)
{
	uint64_t h = pf_hash_u64((uint64_t)pid);
	const struct pf_htab_slot *sl = pf_htab_find(&s->procs.index, h, pf_htab_u64_eq, NULL);
	struct proc *p;

	if (sl->idx)
		return s->procs.v[sl->idx - 1];
	if (!create || (p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->pid = pid;
	if (ptrtab_add(&s->procs, h, p, pf_htab_u64_eq, NULL) == -1) {
		free(p);
		return NULL;
	}
	return p;
}

/* One file: the same path, and the same inode when both sides know it. */
struct file_key {
	const struct pf_symbolizer *s;
	const char *path;
	uint32_t maj, min;
	uint64_t ino;
};

static bool
file_eq(const void *arg, size_t idx)
{
	const struct file_key *k = arg;
	const struct symfile *f = k->s->files.v[idx];

	return strcmp(f->path, k->path) == 0 && (k->ino == 0 || f->ino == 0 ||
	    (f->ino == k->ino && f->maj == k->maj && f->min == k->min));
}

static struct symfile *
get_file(struct pf_symbolizer *s, const char *path, uint32_t maj, uint32_t min, uint64_t ino)
{
	struct file_key k = { s, path, maj, min, ino };
	uint64_t h = pf_hash(path, strlen(path));
	const struct pf_htab_slot *sl = pf_htab_find(&s->files.index, h, file_eq, &k);
	struct symfile *f;

	if (sl->idx)
		return s->files.v[sl->idx - 1];
	if ((f = calloc(1, sizeof(*f))) == NULL)
		return NULL;
	if ((f->path = strdup(path)) == NULL) {
		free(f);
		return NULL;
	}
	f->maj = maj;
	f->min = min;
	f->ino = ino;
	f->fd = -1;
	if (ptrtab_add(&s->files, h, f, file_eq, &k) == -1) {
		free(f->path);
		free(f);
		return NULL;
	}
	return f;
}

int
pf_sym_add_map(struct pf_symbolizer *s, pid_t pid, uint64_t start, uint64_t end,
    uint64_t pgoff, const char *path, uint32_t maj, uint32_t min, uint64_t ino)
{
	struct proc *p;
	struct map *m;
	size_t i;

	if (end <= start)
		return 0;
	if ((p = get_proc(s, pid, true)) == NULL)
		return -1;
	/*
	 * A new mapping replaces whatever it overlaps.  One above all the
	 * others (every map of /proc/PID/maps, read in order) overlaps none:
	 * no look, so a target's 60,000 mappings cost no square.
	 */
	for (i = 0; start < p->top && i < p->n;) {
		if (p->maps[i].start < end && start < p->maps[i].end)
			p->maps[i] = p->maps[--p->n];
		else
			i++;
	}
	if (end > p->top)
		p->top = end;
	if (pf_grow(&p->maps, &p->cap, p->n + 1, sizeof(*p->maps)) == -1)
		return -1;
	m = &p->maps[p->n];
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->file = NULL;
	if (pf_maps_file_path(path) || (strcmp(path, "[vdso]") == 0 &&
	    s->vdso_size != 0 && end - start == s->vdso_size)) {
		if ((m->file = get_file(s, path, maj, min, ino)) == NULL)
			return -1;
		if (m->file->pid == 0) {
			m->file->pid = pid;
			m->file->start = start;
			m->file->end = end;
		}
		m->name = m->file->path;
	} else if (path[0] == '[') {
		struct symfile *f = get_file(s, path, 0, 0, 0);	/* interned name only */

		if (f == NULL)
			return -1;
		f->tried = true;
		m->name = f->path;
	} else
		m->name = NULL;
	p->n++;
	p->sorted = false;
	return 0;
}

/* The mapped file, as every target's file is reached (mapfile.h). */
static int
open_candidate(struct pf_symbolizer *s, pid_t pid, const char *path, uint64_t start,
    uint64_t end, uint64_t ino)
{
	return pf_mapfile_open(s->mf, "/proc", pid, start, end, path, ino);
}

struct load_ctx {
	struct pf_symbolizer *s;
	pid_t pid;
	bool open_files;
};

static int
load_cb(const struct pf_maps_entry *e, void *arg)
{
	struct load_ctx *c = arg;
	struct proc *p;

	if (!e->exec)
		return 0;
	if (pf_sym_add_map(c->s, c->pid, e->start, e->end, e->pgoff, e->path,
	    e->maj, e->min, e->ino) == -1)
		return -1;
	if (!c->open_files || (p = get_proc(c->s, c->pid, false)) == NULL)
		return 0;
	{
		struct symfile *f = p->maps[p->n - 1].file;

		if (f && f->fd == -1 && !f->tried && c->s->preopened < MAX_PREOPEN) {
			f->fd = open_candidate(c->s, c->pid, f->path, e->start, e->end, e->ino);
			if (f->fd != -1)
				c->s->preopened++;
		}
	}
	return 0;
}

/* /proc/PID/maps belongs to the process's effective uid. */
static void
note_uid(struct pf_symbolizer *s, pid_t pid, int maps_fd)
{
	struct stat st;
	struct proc *p;

	if (fstat(maps_fd, &st) == 0 && (p = get_proc(s, pid, true)) != NULL) {
		p->uid = st.st_uid;
		p->uid_known = true;
	}
}

int
pf_sym_load_proc(struct pf_symbolizer *s, const char *proc_root, pid_t pid, bool open_files)
{
	char path[PATH_MAX];
	struct load_ctx c = { s, pid, open_files };
	int fd, rc, e;

	snprintf(path, sizeof(path), "%s/%d/maps", proc_root ? proc_root : "/proc", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	note_uid(s, pid, fd);
	rc = pf_maps_read(fd, load_cb, &c);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

void
pf_sym_foreach_file(const struct pf_symbolizer *s,
    void (*fn)(const char *path, uint32_t maj, uint32_t min, uint64_t ino, void *arg),
    void *arg)
{
	size_t i;

	for (i = 0; i < s->files.n; i++) {
		const struct symfile *f = s->files.v[i];

		if (pf_maps_file_path(f->path))
			fn(f->path, f->maj, f->min, f->ino, arg);
	}
}

void
pf_sym_offer_file(const char *path, uint32_t maj, uint32_t min, uint64_t ino, int fd, void *arg)
{
	struct pf_symbolizer *s = arg;
	struct symfile *f;

	if (ino == 0 || !pf_maps_file_path(path) || (f = get_file(s, path, maj, min, ino)) == NULL)
		return;
	/* Only a file of that very inode: the one on disk now may be another. */
	if (f->fd == -1 && !f->tried && f->ino == ino)
		f->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

void
pf_sym_set_mapfiles(struct pf_symbolizer *s, struct pf_mapfiles *mf)
{
	s->mf = mf;
}

int
pf_sym_preopen(struct pf_symbolizer *s, pid_t pid, uint64_t start, uint64_t end,
    const char *path, uint32_t maj, uint32_t min, uint64_t ino)
{
	struct symfile *f;

	if (end <= start || !pf_maps_file_path(path))
		return 0;
	if ((f = get_file(s, path, maj, min, ino)) == NULL)
		return -1;
	if (f->pid == 0) {
		f->pid = pid;
		f->start = start;
		f->end = end;
	}
	if (f->fd == -1 && !f->tried && s->preopened < MAX_PREOPEN) {
		f->fd = open_candidate(s, pid, path, start, end, ino);
		if (f->fd != -1)
			s->preopened++;
	}
	return 0;
}

int
pf_sym_fork(struct pf_symbolizer *s, pid_t parent, pid_t child)
{
	struct proc *pp, *cp;
	size_t i;

	if (parent == child || (pp = get_proc(s, parent, false)) == NULL)
		return 0;
	if ((cp = get_proc(s, child, true)) == NULL)
		return -1;
	if (!cp->uid_known) {
		cp->uid = pp->uid;
		cp->uid_known = pp->uid_known;
	}
	if (cp->n)
		return 0;
	for (i = 0; i < pp->n; i++) {
		if (pf_grow(&cp->maps, &cp->cap, cp->n + 1, sizeof(*cp->maps)) == -1)
			return -1;
		cp->maps[cp->n++] = pp->maps[i];
	}
	cp->top = pp->top;
	cp->sorted = false;
	return 0;
}

void
pf_sym_exec(struct pf_symbolizer *s, pid_t pid)
{
	struct proc *p = get_proc(s, pid, false);

	if (p) {
		p->n = 0;
		p->top = 0;
	}
}

static int
cmp_map(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static const struct map *
find_map(struct proc *p, uint64_t addr)
{
	size_t i;

	if (p == NULL || p->n == 0)
		return NULL;
	if (!p->sorted) {
		qsort(p->maps, p->n, sizeof(*p->maps), cmp_map);
		p->sorted = true;
	}
	/* Mappings never overlap (a new one replaces what it covers). */
	if ((i = PF_ADDR_FLOOR(p->maps, p->n, start, addr)) != SIZE_MAX && addr < p->maps[i].end)
		return &p->maps[i];
	return NULL;
}

static bool
open_file(struct pf_symbolizer *s, struct symfile *f, pid_t pid)
{
	Elf *elf;
	GElf_Ehdr eh;
	Dwarf_Addr bias;
	size_t i, nph;
	const char *base;

	f->tried = true;
	s->st.files++;
	if (f->fd == -1 && strcmp(f->path, "[vdso]") == 0)
		f->fd = own_vdso_fd(s->vdso_size);
	else if (f->fd == -1)
		f->fd = open_candidate(s, f->pid ? f->pid : pid, f->path, f->start, f->end,
		    f->ino);
	if (f->fd == -1)
		goto fail;
	if ((f->dwfl = dwfl_begin(&dwfl_cb)) == NULL)
		goto fail;
	dwfl_report_begin(f->dwfl);
	base = strrchr(f->path, '/');
	base = base ? base + 1 : f->path;
	f->mod = report_file(f->dwfl, base, f->path, f->fd);
	f->fd = -1;
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (f->mod == NULL || (elf = dwfl_module_getelf(f->mod, &bias)) == NULL)
		goto fail;
	if (gelf_getehdr(elf, &eh) == NULL || elf_getphdrnum(elf, &nph) != 0)
		goto fail;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD)
			continue;
		if (pf_grow(&f->segs, &f->capsegs, f->nsegs + 1, sizeof(*f->segs)) == -1)
			goto fail;
		f->segs[f->nsegs].offset = ph.p_offset;
		f->segs[f->nsegs].vaddr = ph.p_vaddr + bias;
		f->segs[f->nsegs].size = ph.p_filesz;
		f->nsegs++;
	}
	f->ok = f->nsegs > 0;
	if (!f->ok)
		goto fail;
	return true;
fail:
	if (f->fd != -1) {
		close(f->fd);
		f->fd = -1;
	}
	s->st.files_failed++;
	f->ok = false;
	return false;
}

/* The number of name str in s->names (kept with its NUL), or NO_NAME. */
static uint32_t
intern(struct pf_symbolizer *s, const char *str)
{
	uint32_t id;

	if (pf_intern_add(&s->names, str, strlen(str) + 1, &id) == -1)
		return NO_NAME;
	return id;
}

/* Name id as a C string, valid until the next name is added; NULL for NO_NAME. */
static const char *
name_str(const struct pf_symbolizer *s, uint32_t id)
{
	size_t len;

	return id == NO_NAME ? NULL : pf_intern_key(&s->names, id, &len);
}

/*
 * Versions go (foo@@GLIBC_2.34 -> foo), then C++/Rust names are demangled.
 * A name of PF_DEMANGLE_MAX_IN bytes or more stays mangled, and whole:
 * never cut, so two long names that share a prefix stay two frames.
 */
static uint32_t
clean_name(struct pf_symbolizer *s, const char *raw)
{
	char buf[PF_DEMANGLE_MAX_IN + 1], *d;
	const char *at = strchr(raw + 1, '@');
	size_t n = at ? (size_t)(at - raw) : strlen(raw);
	uint32_t r;

	if (n >= sizeof(buf)) {
		if (at == NULL)
			return intern(s, raw);
		if ((d = strndup(raw, n)) == NULL)
			return NO_NAME;
		r = intern(s, d);
		free(d);
		return r;
	}
	memcpy(buf, raw, n);
	buf[n] = '\0';
	if ((d = pf_demangle(buf)) != NULL) {
		r = intern(s, d);
		free(d);
		return r;
	}
	return intern(s, buf);
}

/* A PLT entry's name: its function's, cleaned as a symbol's, then @plt. */
static uint32_t
plt_name(struct pf_symbolizer *s, const char *raw)
{
	const char *c = raw[0] ? name_str(s, clean_name(s, raw)) : "";
	uint32_t r;
	char *t;

	/* Printed before t is added: c may move with the names. */
	if (c == NULL || asprintf(&t, "%s@plt", c) == -1)
		return NO_NAME;
	r = intern(s, t);
	free(t);
	return r;
}

/*
 * dwfl_report_elf, which keeps fd when it makes the module, and closes it
 * on some failures but not on others (a file that is no ELF file: the
 * fuzz-symelf harness found one descriptor left open a file): after a
 * failure, fd is closed unless it is already.  pf is single-threaded, so
 * no other open can have taken the number in between.
 */
static Dwfl_Module *
report_file(Dwfl *dwfl, const char *base, const char *path, int fd)
{
	Dwfl_Module *mod = dwfl_report_elf(dwfl, base, path, fd, 0, false);

	if (mod == NULL && fcntl(fd, F_GETFD) != -1)
		close(fd);
	return mod;
}

/*
 * Where two symbols start at one address, perf keeps one for it, and
 * its rule is copied here, not libdwfl's: it decides which of glibc's
 * aliases a frame is named by (free, not __libc_free; __getpid, not
 * getpid).  The rule only needs the index order, the sizes and the names
 * perf compares: demangled when they demangle, versions kept.
 */
static int
cmp_fsym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	/* A PLT entry after a symbol at its address: the symbol names it. */
	if (x->plt != y->plt)
		return x->plt ? 1 : -1;
	return (x->ndx > y->ndx) - (x->ndx < y->ndx);
}

/* The leading underscores and the length of a name in the form perf compares. */
static void
perf_name_shape(const char *raw, size_t *unders, size_t *len)
{
	char *d = NULL;
	const char *n = raw;

	if ((raw[0] == '_' && (raw[1] == 'Z' || raw[1] == 'R')) &&
	    strlen(raw) < PF_DEMANGLE_MAX_IN && (d = pf_demangle(raw)) != NULL)
		n = d;
	*unders = strspn(n, "_");
	*len = strlen(n);
	free(d);
}

/*
 * Of two symbols at one address, in table order, whether perf keeps the
 * second: the one with a size, then the one not weak, then the global,
 * then the one with fewer leading underscores, then the longer name;
 * else the first.
 */
static bool
second_better(const struct fsym *a, const struct fsym *b)
{
	size_t ua, la, ub, lb;
	bool sa = a->hi > a->lo, sb = b->hi > b->lo;

	if (sa != sb)
		return sb;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return a->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return b->bind == STB_GLOBAL;
	perf_name_shape(a->name, &ua, &la);
	perf_name_shape(b->name, &ub, &lb);
	if (ua != ub)
		return ub < ua;
	return lb > la;
}

/*
 * Whether perf takes symbol i of the table (sym, in section shndx of
 * elf): a defined function or object with a name, or a label (no type,
 * visible, not absolute) in a section named like text or data; and in a
 * section the program loads.
 */
static bool
perf_takes(Elf *elf, const GElf_Sym *sym, const char *name, GElf_Word shndx)
{
	int type = GELF_ST_TYPE(sym->st_info), vis = GELF_ST_VISIBILITY(sym->st_other);
	bool label = type == STT_NOTYPE && shndx != SHN_ABS && vis != STV_HIDDEN &&
	    vis != STV_INTERNAL;
	size_t shstr;
	Elf_Scn *scn;
	GElf_Shdr sh;
	const char *sn;

	if (name == NULL || name[0] == '\0' || shndx == SHN_UNDEF || elf == NULL)
		return false;
	if (!label && type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT)
		return false;
	if ((scn = elf_getscn(elf, shndx)) == NULL || gelf_getshdr(scn, &sh) == NULL ||
	    !(sh.sh_flags & SHF_ALLOC))
		return false;
	if (!label)
		return true;
	if (elf_getshdrstrndx(elf, &shstr) != 0 || (sn = elf_strptr(elf, shstr, sh.sh_name)) == NULL)
		return false;
	return strstr(sn, "text") != NULL || strstr(sn, "data") != NULL;
}

/*
 * perf's symbols of the table libdwfl chose (.symtab, the debug file's,
 * or .dynsym), appended to v from *k on, sorted, each symbol without a
 * size reaching the next one's start (the last one the page after its
 * own).  v has room for n - 1 more.
 */
static void
perf_symbols(struct symfile *f, struct fsym *v, size_t *k, int n)
{
	size_t i, at = *k;
	int t;

	for (t = 1; t < n; t++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		Dwarf_Addr bias;
		const char *name = dwfl_module_getsym_info(f->mod, t, &sym, &addr, &shndx, &elf, &bias);

		if (!perf_takes(elf, &sym, name, shndx) || addr + sym.st_size < addr)
			continue;
		v[*k].lo = addr;
		v[*k].hi = addr + sym.st_size;
		v[*k].name = name;
		v[*k].ndx = (uint32_t)t;
		v[*k].bind = (uint8_t)GELF_ST_BIND(sym.st_info);
		v[*k].plt = false;
		(*k)++;
	}
	qsort(v + at, *k - at, sizeof(*v), cmp_fsym);
	for (i = at; i < *k; i++) {
		uint64_t up = (v[i].lo + 0xfff) & ~(uint64_t)0xfff;

		if (v[i].hi != v[i].lo)
			continue;
		if (i + 1 < *k)
			v[i].hi = v[i + 1].lo;
		else
			v[i].hi = up < v[i].lo || up + 0x1000 < up ? UINT64_MAX : up + 0x1000;
	}
}

/* The one symbol perf keeps of the run of those at v[i]'s address; *end: past the run. */
static size_t
perf_keeps(const struct fsym *v, size_t k, size_t i, size_t *end)
{
	size_t best = i, j;

	for (j = i + 1; j < k && v[j].lo == v[i].lo; j++)
		if (second_better(&v[best], &v[j]))
			best = j;
	*end = j;
	return best;
}

/* One symbol per address of v[at..*k), as perf keeps them. */
static void
perf_dedup(struct fsym *v, size_t at, size_t *k)
{
	size_t i, j, out = at;

	for (i = at; i < *k; i = j)
		v[out++] = v[perf_keeps(v, *k, i, &j)];
	*k = out;
}

/*
 * The file's PLT entries, named as perf names them: name@plt.  The
 * relocations are the target's: every index is checked by libelf, the
 * slots must lie in their section, and at most PF_SYM_MAX_PLT are made
 * per section.
 */
#define PF_SYM_MAX_PLT	65536

struct pltsecs {
	Elf *elf;
	GElf_Addr bias;
	GElf_Shdr plt, pltsec, pltgot, relplt, reldyn;
	bool has_plt, has_pltsec, has_pltgot, has_relplt, has_reldyn;
	Elf_Data *relplt_d, *reldyn_d, *pltgot_d;
	size_t relplt_n, reldyn_n;
};

/* The name of dynamic symbol idx of the table a relocation section links to. */
static const char *
plt_symname(Elf *elf, const GElf_Shdr *rel, size_t idx)
{
	Elf_Scn *scn = elf_getscn(elf, rel->sh_link);
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Sym sym;

	if (scn == NULL || gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_DYNSYM ||
	    (d = elf_getdata(scn, NULL)) == NULL || idx > INT_MAX ||
	    gelf_getsym(d, (int)idx, &sym) == NULL)
		return NULL;
	return elf_strptr(elf, sh.sh_link, sym.st_name);
}

/* Relocation i of a .rel or .rela section: its symbol index and place. */
static bool
plt_rel(Elf_Data *d, const GElf_Shdr *sh, size_t i, size_t *sym, uint64_t *where)
{
	GElf_Rela ra;
	GElf_Rel r;

	if (i > INT_MAX)
		return false;
	if (sh->sh_type == SHT_RELA) {
		if (gelf_getrela(d, (int)i, &ra) == NULL)
			return false;
		*sym = GELF_R_SYM(ra.r_info);
		*where = ra.r_offset;
		return true;
	}
	if (gelf_getrel(d, (int)i, &r) == NULL)
		return false;
	*sym = GELF_R_SYM(r.r_info);
	*where = r.r_offset;
	return true;
}

/*
 * How many relocations a section holds: by the bytes it has in the file
 * and libelf's size of one, never by its header's own claims.
 */
static size_t
rel_count(Elf *elf, const GElf_Shdr *sh, const Elf_Data *d)
{
	size_t one = gelf_fsize(elf, sh->sh_type == SHT_RELA ? ELF_T_RELA : ELF_T_REL, 1,
	    EV_CURRENT);

	return one == 0 ? 0 : d->d_size / one;
}

static void
plt_find(Elf *elf, struct pltsecs *p)
{
	Elf_Scn *scn = NULL;
	size_t shstr;
	GElf_Shdr sh;
	const char *sn;

	if (elf_getshdrstrndx(elf, &shstr) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || (sn = elf_strptr(elf, shstr, sh.sh_name)) == NULL)
			continue;
		if (strcmp(sn, ".plt") == 0 && sh.sh_type == SHT_PROGBITS && !p->has_plt) {
			p->plt = sh;
			p->has_plt = true;
		} else if (strcmp(sn, ".plt.sec") == 0 && sh.sh_type == SHT_PROGBITS && !p->has_pltsec) {
			p->pltsec = sh;
			p->has_pltsec = true;
		} else if (strcmp(sn, ".plt.got") == 0 && sh.sh_type == SHT_PROGBITS &&
		    !p->has_pltgot && (p->pltgot_d = elf_getdata(scn, NULL)) != NULL) {
			p->pltgot = sh;
			p->has_pltgot = true;
		} else if ((strcmp(sn, ".rela.plt") == 0 || strcmp(sn, ".rel.plt") == 0) &&
		    (sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) && !p->has_relplt &&
		    sh.sh_entsize != 0 && (p->relplt_d = elf_getdata(scn, NULL)) != NULL) {
			p->relplt = sh;
			p->relplt_n = rel_count(elf, &sh, p->relplt_d);
			p->has_relplt = true;
		} else if ((strcmp(sn, ".rela.dyn") == 0 || strcmp(sn, ".rel.dyn") == 0) &&
		    (sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) && !p->has_reldyn &&
		    sh.sh_entsize != 0 && (p->reldyn_d = elf_getdata(scn, NULL)) != NULL) {
			p->reldyn = sh;
			p->reldyn_n = rel_count(elf, &sh, p->reldyn_d);
			p->has_reldyn = true;
		}
	}
}

/* The entry size of a PLT section of an x86 file: its own, else by its alignment. */
static uint64_t
plt_x86_entry(const GElf_Shdr *sh)
{
	if (sh->sh_entsize == 8 || sh->sh_entsize == 16)
		return sh->sh_entsize;
	return sh->sh_addralign == 8 ? 8 : 16;
}

/* Entry i of a section of entries of size ent after a header of hdr bytes. */
static bool
plt_slot(const GElf_Shdr *sh, uint64_t hdr, uint64_t ent, size_t i, uint64_t *at)
{
	if (ent == 0 || hdr > sh->sh_size || i >= (sh->sh_size - hdr) / ent)
		return false;
	*at = sh->sh_addr + hdr + (uint64_t)i * ent;
	return true;
}

static void
plt_add(struct fsym *v, size_t *k, size_t cap, uint64_t at, uint64_t ent, const char *name,
    size_t slot, GElf_Addr bias)
{
	if (*k >= cap || name == NULL || at + bias < at || at + bias + ent < at + bias)
		return;
	v[*k].lo = at + bias;
	v[*k].hi = at + bias + ent;
	v[*k].name = name;
	v[*k].ndx = (uint32_t)slot;
	v[*k].bind = STB_GLOBAL;
	v[*k].plt = true;
	(*k)++;
}

struct gotref {
	uint64_t got, at;	/* the GOT slot a .plt.got entry jumps through; the entry */
	const char *name;
};

static int
cmp_gotref(const void *a, const void *b)
{
	const struct gotref *x = a, *y = b;

	return (x->got > y->got) - (x->got < y->got);
}

/*
 * The .plt.got entries (x86-64): each is a jump through a GOT slot,
 * after an endbr64 and a bnd prefix if any, and the dynamic relocation
 * that fills that slot names it.  One pass over the relocations.
 */
static void
plt_got(struct pltsecs *p, struct fsym *v, size_t *k, size_t cap)
{
	const unsigned char *b = p->pltgot_d->d_buf;
	uint64_t ent = p->pltgot.sh_entsize, at;
	size_t n = 0, i, max, sym;
	struct gotref *g, key, *hit;
	uint64_t where;

	if (ent == 0 || b == NULL || !p->has_reldyn)
		return;
	max = p->pltgot_d->d_size / ent;
	if (max > PF_SYM_MAX_PLT)
		max = PF_SYM_MAX_PLT;
	if (max == 0 || (g = calloc(max, sizeof(*g))) == NULL)
		return;
	for (i = 0; i < max; i++) {
		const unsigned char *e = b + i * ent;
		size_t room = p->pltgot_d->d_size - i * ent, o = 0;
		int32_t disp;

		if (room >= 4 && memcmp(e, "\xf3\x0f\x1e\xfa", 4) == 0)
			o = 4;
		if (room > o && e[o] == 0xf2)
			o++;
		if (room < o + 6 || e[o] != 0xff || e[o + 1] != 0x25 ||
		    !plt_slot(&p->pltgot, 0, ent, i, &at))
			continue;
		memcpy(&disp, e + o + 2, sizeof(disp));
		g[n].at = at;
		g[n].got = at + o + 6 + (uint64_t)(int64_t)disp;
		g[n].name = NULL;
		n++;
	}
	qsort(g, n, sizeof(*g), cmp_gotref);
	for (i = 0; n > 0 && i < p->reldyn_n; i++) {
		if (!plt_rel(p->reldyn_d, &p->reldyn, i, &sym, &where) || sym == 0)
			continue;
		key.got = where;
		if ((hit = bsearch(&key, g, n, sizeof(*g), cmp_gotref)) != NULL && hit->name == NULL)
			hit->name = plt_symname(p->elf, &p->reldyn, sym);
	}
	for (i = 0; i < n; i++)
		if (g[i].name != NULL && g[i].name[0] != '\0')
			plt_add(v, k, cap, g[i].at, ent, g[i].name, i, p->bias);
	free(g);
}

/* How many PLT entries plt_entries may make, at most. */
static size_t
plt_count(const struct pltsecs *p)
{
	size_t n = 0, r = p->relplt_n < PF_SYM_MAX_PLT ? p->relplt_n : PF_SYM_MAX_PLT;

	if (p->has_relplt)
		n += (p->has_plt ? r : 0) + (p->has_pltsec ? r : 0);
	if (p->has_pltgot && p->pltgot.sh_entsize != 0)
		n += p->pltgot.sh_size / p->pltgot.sh_entsize < PF_SYM_MAX_PLT ?
		    p->pltgot.sh_size / p->pltgot.sh_entsize : PF_SYM_MAX_PLT;
	return n;
}

/*
 * .plt as perf 6.1 names it: slot i after the header is the function of
 * relocation i of .rela.plt, by its .dynsym name ("" for an IRELATIVE
 * one: "@plt", as perf prints it).  .plt.sec (IBT builds) holds the
 * entries the calls go through, in the same order, and .plt.got those
 * of functions that also have a GOT slot: perf 6.1 names neither (its
 * later versions do, as here).
 */
static void
plt_entries(struct pltsecs *p, struct fsym *v, size_t *k, size_t cap)
{
	GElf_Ehdr eh;
	uint64_t hdr, ent, sent = 0, at;
	size_t i, sym, n;
	uint64_t where;
	bool x86;

	if (p->elf == NULL || gelf_getehdr(p->elf, &eh) == NULL)
		return;
	x86 = eh.e_machine == EM_X86_64 || eh.e_machine == EM_386;
	if (x86) {
		ent = hdr = p->plt.sh_entsize;
		if (p->has_pltsec)
			sent = plt_x86_entry(&p->pltsec);
	} else if (eh.e_machine == EM_AARCH64) {
		hdr = 32;
		ent = 16;
	} else
		return;
	n = p->relplt_n < PF_SYM_MAX_PLT ? p->relplt_n : PF_SYM_MAX_PLT;
	for (i = 0; p->has_relplt && i < n; i++) {
		const char *name;

		if (!plt_rel(p->relplt_d, &p->relplt, i, &sym, &where) ||
		    (name = plt_symname(p->elf, &p->relplt, sym)) == NULL)
			continue;
		if (p->has_plt && plt_slot(&p->plt, hdr, ent, i, &at))
			plt_add(v, k, cap, at, ent, name, i, p->bias);
		if (p->has_pltsec && sent != 0 && plt_slot(&p->pltsec, 0, sent, i, &at))
			plt_add(v, k, cap, at, sent, name, i, p->bias);
	}
	if (x86 && eh.e_machine == EM_X86_64 && p->has_pltgot)
		plt_got(p, v, k, cap);
}

/*
 * f's index: perf's symbols (perf_symbols) and the PLT entries, sorted
 * by address.  On ENOMEM it is not made, and every lookup is libdwfl's.
 */
static void
index_symbols(struct symfile *f)
{
	int n = dwfl_module_getsymtab(f->mod);
	struct pltsecs p;
	struct fsym *v;
	size_t k = 0, cap, i;
	uint64_t reach = 0;
	Dwarf_Addr bias;

	f->indexed = true;
	memset(&p, 0, sizeof(p));
	if ((p.elf = dwfl_module_getelf(f->mod, &bias)) != NULL) {
		p.bias = bias;
		plt_find(p.elf, &p);
	}
	if (n < 1)
		n = 1;
	cap = (size_t)(n - 1) + plt_count(&p);
	if ((v = calloc(cap ? cap : 1, sizeof(*v))) == NULL)
		return;
	perf_symbols(f, v, &k, n);
	perf_dedup(v, 0, &k);
	plt_entries(&p, v, &k, cap);
	qsort(v, k, sizeof(*v), cmp_fsym);
	for (i = 0; i < k; i++) {
		uint64_t end = v[i].hi > v[i].lo ? v[i].hi : v[i].lo + 1;

		if (end > reach)
			reach = end;
		v[i].reach = reach;
	}
	f->syms = v;
	f->nsyms = k;
}

/* Whether e holds vaddr, as perf's lookup decides: a symbol of no size its start alone. */
static bool
fsym_holds(const struct fsym *e, uint64_t vaddr)
{
	return vaddr >= e->lo && (vaddr < e->hi || (e->hi == e->lo && vaddr == e->lo));
}

/*
 * The entry naming vaddr: the one starting last at or below it that
 * holds it, through nested ones (a label inside a function) for a
 * bounded number of steps.  1 with *hit (NULL: none), or -1 when the
 * index could not be made.
 */
static int
index_lookup(struct symfile *f, uint64_t vaddr, const struct fsym **hit)
{
	size_t i, steps;

	if (!f->indexed)
		index_symbols(f);
	if (f->syms == NULL)
		return -1;
	*hit = NULL;
	i = PF_ADDR_FLOOR(f->syms, f->nsyms, lo, vaddr);
	for (steps = 0; i != SIZE_MAX && steps < 64 && f->syms[i].reach > vaddr; i--, steps++) {
		if (fsym_holds(&f->syms[i], vaddr)) {
			*hit = &f->syms[i];
			break;
		}
		if (i == 0)
			break;
	}
	return 1;
}

struct cache_key {
	const struct pf_symbolizer *s;
	const struct symfile *file;
	uint64_t vaddr;
};

static bool
cache_eq(const void *arg, size_t idx)
{
	const struct cache_key *k = arg;
	const struct centry *e = &k->s->cache[idx];

	return e->file == k->file && e->vaddr == k->vaddr;
}

/* Remember a lookup; on ENOMEM the answer just stays uncached. */
static void
cache_add(struct pf_symbolizer *s, uint64_t h, const struct cache_key *k,
    uint32_t name, uint64_t off, uint32_t inl_at, uint32_t inl_n)
{
	struct centry *e;

	if (pf_grow(&s->cache, &s->ccap, s->cn + 1, sizeof(*s->cache)) == -1)
		return;
	if (pf_htab_reserve(&s->cindex) == -1)
		return;
	e = &s->cache[s->cn];
	e->file = k->file;
	e->vaddr = k->vaddr;
	e->name = name;
	e->off = off;
	e->inl_at = inl_at;
	e->inl_n = inl_n;
	pf_htab_set(&s->cindex, pf_htab_find(&s->cindex, h, cache_eq, k), h, s->cn++);
}

/*
 * Append name to s->inl.  0, or -1 with ENOMEM, also past INL_MAX names:
 * a cache entry finds its run by a 32-bit offset.
 */
static int
inl_push(struct pf_symbolizer *s, uint32_t name)
{
	if (s->inl_n == INL_MAX) {
		errno = ENOMEM;
		return -1;
	}
	if (pf_grow(&s->inl, &s->inl_cap, s->inl_n + 1, sizeof(*s->inl)) == -1)
		return -1;
	s->inl[s->inl_n++] = name;
	return 0;
}

/*
 * The name an inlined instance's abstract origin gives, as a symbol
 * table would: the linkage name demangled when there is one, else the
 * plain name, else "??".
 */
static uint32_t
inline_name(struct pf_symbolizer *s, Dwarf_Die *die)
{
	Dwarf_Attribute am;
	const char *raw;

	raw = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &am));
	if (raw == NULL)
		raw = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &am));
	if (raw == NULL)
		raw = dwarf_diename(die);
	return clean_name(s, raw && *raw ? raw : "??");
}

/* Whether a DIE of this tag is a scope that holds code of its own. */
static bool
code_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	    tag == DW_TAG_lexical_block || tag == DW_TAG_entry_point ||
	    tag == DW_TAG_try_block || tag == DW_TAG_catch_block || tag == DW_TAG_with_stmt;
}

/* Whether a DIE of this tag may hold functions without holding code itself. */
static bool
holder(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_module || tag == DW_TAG_class_type ||
	    tag == DW_TAG_structure_type || tag == DW_TAG_union_type;
}

/*
 * Of functions at one address, the one addr2line names: an assembler
 * writes a subprogram for each alias of a routine, one after the other
 * (glibc's __memmove_avx512_unaligned_erms, then
 * __memcpy_avx512_unaligned_erms), and binutils takes the last of equal
 * ranges.  *c becomes the last of the siblings after it that start where
 * it starts and hold pc (8 at most).
 */
static void
last_alias(Dwarf_Die *c, Dwarf_Addr pc)
{
	Dwarf_Addr lo, lo2;
	Dwarf_Die nx = *c;
	int i;

	if (dwarf_lowpc(c, &lo) != 0)
		return;
	for (i = 0; i < 8 && dwarf_siblingof(&nx, &nx) == 0; i++) {
		if (dwarf_tag(&nx) != DW_TAG_subprogram || dwarf_lowpc(&nx, &lo2) != 0 || lo2 != lo ||
		    dwarf_haspc(&nx, pc) != 1)
			break;
		*c = nx;
	}
}

/*
 * The scopes under parent that hold pc, outermost first, appended to
 * out from n on (at most PF_SYM_MAX_SCOPES); the new count.  Below a
 * function only the scopes holding pc are entered; above it, the
 * namespaces and types that may hold one too, and the partial units a
 * unit imports (dwz).  depth counts every level entered, so neither a
 * deep nest nor imports that import each other can run on; siblings
 * are taken only forward, so a crafted DW_AT_sibling cannot loop.
 */
static int
scopes_at(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int n, bool in_function, int depth)
{
	Dwarf_Attribute at;
	Dwarf_Die c, u;
	Dwarf_Off last = 0;
	int tag, m;

	if (n >= PF_SYM_MAX_SCOPES || depth >= 2 * PF_SYM_MAX_SCOPES || dwarf_child(parent, &c) != 0)
		return n;
	do {
		if (last != 0 && dwarf_dieoffset(&c) <= last)
			break;
		last = dwarf_dieoffset(&c);
		tag = dwarf_tag(&c);
		if (code_scope(tag) && dwarf_haspc(&c, pc) == 1) {
			if (tag == DW_TAG_subprogram && !in_function)
				last_alias(&c, pc);
			out[n] = c;
			return scopes_at(&out[n], pc, out, n + 1, true, depth + 1);
		}
		if (in_function)
			continue;
		if (holder(tag) && (m = scopes_at(&c, pc, out, n, false, depth + 1)) > n)
			return m;
		if (tag == DW_TAG_imported_unit && dwarf_attr(&c, DW_AT_import, &at) != NULL &&
		    dwarf_formref_die(&at, &u) != NULL &&
		    (m = scopes_at(&u, pc, out, n, false, depth + 1)) > n)
			return m;
	} while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

/*
 * The functions inlined at module address vaddr of f, appended to s->inl
 * innermost first, up to the concrete function; how many, 0 without
 * DWARF.  *fn gets the concrete function's own name as its DWARF gives
 * it (NO_NAME when no subprogram holds vaddr): perf names a frame so
 * when the file has DWARF, as addr2line does (see file_lookup).  The scopes are found by walking
 * the unit's tree, not with dwarf_getscopes: libdw 0.188's gives up on
 * an inlined instance whose abstract origin lies in another unit, as
 * every one of an LTO build's does (python3.11: no chain at all where
 * binutils' addr2line -i shows three levels).  The names come through
 * the abstract origins, across units.
 */
static uint32_t
file_inlines(struct pf_symbolizer *s, struct symfile *f, uint64_t vaddr, uint32_t *fn)
{
	Dwarf_Die *cu, scopes[PF_SYM_MAX_SCOPES];
	Dwarf_Addr bias;
	size_t at = s->inl_n;
	int n, i;

	*fn = NO_NAME;
	if ((cu = dwfl_module_addrdie(f->mod, vaddr, &bias)) == NULL)
		return 0;
	n = scopes_at(cu, vaddr - bias, scopes, 0, false, 0);
	for (i = n - 1; i >= 0; i--) {
		int tag = dwarf_tag(&scopes[i]);
		uint32_t nm;

		if (tag == DW_TAG_subprogram) {
			*fn = inline_name(s, &scopes[i]);
			break;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		if ((nm = inline_name(s, &scopes[i])) == NO_NAME || inl_push(s, nm) == -1) {
			s->inl_n = at;	/* all or nothing */
			break;
		}
	}
	s->st.inline_frames += s->inl_n - at;
	return (uint32_t)(s->inl_n - at);
}

/*
 * An answer's names as the caller gets them: pointers into s->names,
 * valid until the next answer adds a name, the run of inlined ones in
 * s->inl_out.
 */
static void
answer(struct pf_symbolizer *s, uint32_t nm, uint32_t at, uint32_t n, const char **name,
    const char *const **inl, size_t *ninl)
{
	uint32_t i;

	*name = name_str(s, nm);
	for (i = 0; i < n; i++)
		s->inl_out[i] = name_str(s, s->inl[at + i]);
	*inl = n ? s->inl_out : NULL;
	*ninl = n;
}

static void
file_lookup(struct pf_symbolizer *s, struct symfile *f, uint64_t vaddr,
    const char **name, uint64_t *offp, const char *const **inl, size_t *ninl)
{
	struct cache_key k = { s, f, vaddr };
	uint64_t h = pf_hash_u64((uint64_t)(uintptr_t)f ^ pf_hash_u64(vaddr));
	const struct pf_htab_slot *sl = pf_htab_find(&s->cindex, h, cache_eq, &k);
	const struct centry *e;
	uint32_t at, n = 0, nm;
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *raw;
	const struct fsym *y;

	if (sl->idx) {
		s->st.cache_hits++;
		e = &s->cache[sl->idx - 1];
		*offp = e->off;
		answer(s, e->name, e->inl_at, e->inl_n, name, inl, ninl);
		return;
	}
	if (index_lookup(f, vaddr, &y) == -1) {
		raw = dwfl_module_addrinfo(f->mod, vaddr, &off, &sym, NULL, NULL, NULL);
		nm = raw && *raw ? clean_name(s, raw) : NO_NAME;
	} else if (y == NULL)
		nm = NO_NAME;
	else {
		off = vaddr - y->lo;
		nm = y->plt ? plt_name(s, y->name) : y->name[0] ? clean_name(s, y->name) : NO_NAME;
	}
	*offp = off;
	at = (uint32_t)s->inl_n;
	/*
	 * Inlined functions only hang under a function the symbols name;
	 * with dwarf_names that function is named as its DWARF names it,
	 * when it does (pf_sym_set_dwarf_names).
	 */
	if (s->inlines && nm != NO_NAME) {
		uint32_t fn;

		s->st.inline_lookups++;
		n = file_inlines(s, f, vaddr, &fn);
		if (s->dwarf_names && fn != NO_NAME && strcmp(name_str(s, fn), "??") != 0)
			nm = fn;
	}
	cache_add(s, h, &k, nm, off, at, n);
	answer(s, nm, at, n, name, inl, ninl);
}

/*
 * The target's own map, in our /tmp or else in its mount namespace's;
 * fd or -1 with why filled for a refusal (errno EPERM).  A process in
 * another PID namespace (a container) names its map by its PID there
 * (the innermost NSpid) and writes it in its own /tmp: only that one is
 * its map, our /tmp/perf-PID.map being some host process's.
 */
static int
jit_open(struct pf_mapfiles *mf, pid_t pid, uid_t owner, char *why, size_t whylen)
{
	char path[PATH_MAX], w[128];
	struct pf_status st;
	int fd, i, refused = 0, nspid = (int)pid;

	if (pf_status_read("/proc", (int)pid, 0, &st) == 0 && st.nspid > 0)
		nspid = st.nspid;
	/*
	 * A confined recorder cannot follow /proc/PID/root (Landlock): its
	 * helper opens the map there, and it is vetted here as any other.
	 */
	if (nspid != (int)pid && mf != NULL) {
		if ((fd = pf_mapfiles_open_jit(mf, pid)) != -1)
			return pf_jitmap_vet(fd, owner, why, whylen);
		if (errno == ELOOP) {
			snprintf(why, whylen, "a symbolic link");
			errno = EPERM;
			return -1;
		}
	}
	for (i = nspid == (int)pid ? 0 : 1; i < 2; i++) {
		if (i == 0)
			snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
		else
			snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map",
			    (int)pid, nspid);
		if ((fd = pf_jitmap_open(path, owner, w, sizeof(w))) != -1)
			return fd;
		if (errno == EPERM && !refused) {
			refused = 1;
			snprintf(why, whylen, "%s", w);
		}
	}
	errno = refused ? EPERM : ENOENT;
	return -1;
}

static uid_t
target_uid(pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &st) == 0 ? st.st_uid : (uid_t)-1;
}

int
pf_sym_jit_vet(pid_t pid, char *why, size_t whylen)
{
	int fd;

	if ((fd = jit_open(NULL, pid, target_uid(pid), why, whylen)) == -1)
		return errno == EPERM ? -1 : 0;
	close(fd);
	return 1;
}

static void
jit_load(struct pf_symbolizer *s, struct proc *p)
{
	char path[PATH_MAX], why[128];
	int fd;

	p->jit_tried = true;
	if ((fd = jit_open(s->mf, p->pid, p->uid_known ? p->uid : target_uid(p->pid),
	    why, sizeof(why))) == -1) {
		if (errno == EPERM) {
			s->st.jit_refused++;
			if (s->jit_refusal == NULL &&
			    asprintf(&s->jit_refusal, "/tmp/perf-%d.map: %s", (int)p->pid, why) == -1)
				s->jit_refusal = NULL;
		}
		return;
	}
	p->jit = pf_jitmap_load(fd);
	close(fd);
	if (p->jit) {
		s->st.jit_maps++;
		if (pf_jitmap_truncated(p->jit))
			s->st.jit_truncated++;
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)p->pid);
		p->jit_name = strdup(path);
	}
}

void
pf_sym_frame(struct pf_symbolizer *s, pid_t pid, const struct pf_frame_in *in,
    struct pf_frame_out *out)
{
	uint64_t look = in->retaddr && in->addr ? in->addr - 1 : in->addr;
	const struct map *m;
	struct proc *p;

	s->st.lookups++;
	out->addr = in->addr;
	out->sym = NULL;
	out->off = 0;
	out->dso = NULL;
	out->mapped = false;
	out->inl = NULL;
	out->ninl = 0;
	if (in->kernel) {
		const char *mod = NULL, *name;
		uint64_t off;

		out->dso = "[kernel.kallsyms]";
		if (s->k && (name = pf_kallsyms_lookup(s->k, look, &off, &mod)) != NULL) {
			out->sym = name;
			out->off = off + (look != in->addr);
			if (mod) {
				char b[256];

				snprintf(b, sizeof(b), "[%s]", mod);
				out->dso = name_str(s, intern(s, b));
			}
		}
		return;
	}
	p = get_proc(s, pid, false);
	if ((m = find_map(p, look)) != NULL) {
		out->mapped = true;
		out->dso = m->name;
		if (m->file == NULL && m->name)	/* [vdso] and the like */
			return;
	}
	if (m && m->file) {
		out->addr = in->addr - m->start + m->pgoff;
		if (!m->file->tried)
			open_file(s, m->file, pid);
		if (m->file->ok) {
			uint64_t va;

			if (pf_buildid_seg_vaddr(m->file->segs, m->file->nsegs,
			    look - m->start + m->pgoff, &va)) {
				const char *nm;
				uint64_t o;

				const char *const *inl;
				size_t ninl;

				file_lookup(s, m->file, va, &nm, &o, &inl, &ninl);
				if (nm) {
					out->sym = nm;
					out->off = o + (look != in->addr);
					out->inl = inl;
					out->ninl = ninl;
				}
			}
		}
		if (out->sym || m->name)
			return;
	}
	if (p == NULL && (p = get_proc(s, pid, true)) == NULL)
		return;
	if (!p->jit_tried)
		jit_load(s, p);
	if (p->jit) {
		uint64_t off;
		const char *name = pf_jitmap_lookup(p->jit, look, &off);

		if (name) {
			out->sym = name;
			out->off = off + (look != in->addr);
			out->dso = p->jit_name;
		}
	}
}

void
pf_sym_stats(const struct pf_symbolizer *s, struct pf_sym_stats *st)
{
	*st = s->st;
}

const char *
pf_sym_jit_refusal(const struct pf_symbolizer *s)
{
	return s->jit_refusal;
}

static void
symfile_free(struct symfile *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl);
	if (f->fd != -1)
		close(f->fd);
	free(f->syms);
	free(f->segs);
	free(f->path);
	free(f);
}

void
pf_sym_free(struct pf_symbolizer *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->procs.n; i++) {
		struct proc *p = s->procs.v[i];

		free(p->maps);
		pf_jitmap_free(p->jit);
		free(p->jit_name);
		free(p);
	}
	for (i = 0; i < s->files.n; i++)
		symfile_free(s->files.v[i]);
	for (i = 0; i < s->ndebugs; i++)
		symfile_free(s->debugs[i]);
	free(s->debugs);
	ptrtab_free(&s->procs);
	ptrtab_free(&s->files);
	pf_intern_free(&s->names);
	pf_htab_free(&s->cindex);
	free(s->cache);
	free(s->inl);
	free(s->jit_refusal);
	free(s);
}

void
pf_sym_set_kallsyms(struct pf_symbolizer *s, const struct pf_kallsyms *k)
{
	s->k = k;
}

void
pf_sym_set_inlines(struct pf_symbolizer *s, bool on)
{
	s->inlines = on;
}

void
pf_sym_set_dwarf_names(struct pf_symbolizer *s, bool on)
{
	s->dwarf_names = on;
}

int
pf_sym_load_all(struct pf_symbolizer *s, const char *proc_root)
{
	DIR *d = opendir(proc_root);
	struct dirent *de;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		uint64_t pid;

		if (pf_parse_u64(de->d_name, 1, INT_MAX, &pid) == -1)
			continue;
		(void)pf_sym_load_proc(s, proc_root, (pid_t)pid, false);
	}
	closedir(d);
	return 0;
}

/* Whether elf has a .symtab of its own. */
static bool
has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

int
pf_sym_file_info(int fd, const char *path, struct pf_sym_fileinfo *fi)
{
	const unsigned char *bits;
	const char *base, *debug = NULL;
	GElf_Addr vaddr;
	Dwarf_Addr bias;
	Dwfl_Module *mod;
	Dwfl *dwfl;
	Elf *elf;
	int dfd, n, i;

	memset(fi, 0, sizeof(*fi));
	if ((dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) == -1)
		return -1;
	if ((dwfl = dwfl_begin(&dwfl_cb)) == NULL) {
		close(dfd);
		errno = ENOMEM;
		return -1;
	}
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dwfl_report_begin(dwfl);
	mod = report_file(dwfl, base, path, dfd);
	dwfl_report_end(dwfl, NULL, NULL);
	if (mod == NULL || (elf = dwfl_module_getelf(mod, &bias)) == NULL) {
		dwfl_end(dwfl);
		errno = EINVAL;
		return -1;
	}
	fi->symtab = has_symtab(elf);
	if ((n = dwfl_module_build_id(mod, &bits, &vaddr)) > 0)
		for (i = 0; i < n && (size_t)(2 * i + 2) < sizeof(fi->buildid); i++)
			snprintf(fi->buildid + 2 * i, 3, "%02x", bits[i]);
	if (!fi->symtab) {
		/* The symbol table look-up is what searches separate debuginfo. */
		(void)dwfl_module_getsymtab(mod);
		(void)dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debug);
		if (debug != NULL) {
			fi->debuginfo = true;
			snprintf(fi->debugfile, sizeof(fi->debugfile), "%s", debug);
		}
	}
	dwfl_end(dwfl);
	return 0;
}

/*
 * The reference pf_sym_index_check holds the index to: perf's rule
 * applied by a plain pass over every symbol (v, sorted, not made one per
 * address) and PLT entry (plt): of those that hold vaddr, the one perf
 * keeps at the highest start, a symbol before a PLT entry there.
 */
static const struct fsym *
reference_lookup(const struct fsym *v, size_t n, const struct fsym *plt, size_t nplt,
    uint64_t vaddr)
{
	const struct fsym *best = NULL;
	size_t i, j, any, keep;

	for (i = 0; i < n && v[i].lo <= vaddr; i = j) {
		for (j = i, any = 0; j < n && v[j].lo == v[i].lo; j++)
			any |= fsym_holds(&v[j], vaddr);
		if (!any)
			continue;
		keep = perf_keeps(v, n, i, &j);
		if (fsym_holds(&v[keep], vaddr))
			best = &v[keep];
	}
	for (i = 0; i < nplt; i++)
		if (fsym_holds(&plt[i], vaddr) && (best == NULL || plt[i].lo > best->lo))
			best = &plt[i];
	return best;
}

int
pf_sym_index_check(const char *path, uint64_t probes, uint64_t *checked, uint64_t *differ,
    char *first, size_t firstlen)
{
	struct symfile f = { .fd = -1 };
	struct fsym *all = NULL, *plt = NULL;
	struct pltsecs p;
	size_t nall = 0, nplt = 0, cap, i;
	uint64_t lo, hi, a, k;
	Dwarf_Addr bias;
	int fd, n, e = 0;

	*checked = *differ = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if ((f.dwfl = dwfl_begin(&dwfl_cb)) == NULL) {
		close(fd);
		return -1;
	}
	dwfl_report_begin(f.dwfl);
	f.mod = report_file(f.dwfl, "x", path, fd);
	dwfl_report_end(f.dwfl, NULL, NULL);
	if (f.mod == NULL) {
		dwfl_end(f.dwfl);
		errno = EINVAL;
		return -1;
	}
	index_symbols(&f);
	memset(&p, 0, sizeof(p));
	if ((p.elf = dwfl_module_getelf(f.mod, &bias)) != NULL) {
		p.bias = bias;
		plt_find(p.elf, &p);
	}
	n = dwfl_module_getsymtab(f.mod);
	if (n < 1)
		n = 1;
	cap = plt_count(&p);
	if (f.syms == NULL || (all = calloc((size_t)n, sizeof(*all))) == NULL ||
	    (plt = calloc(cap ? cap : 1, sizeof(*plt))) == NULL) {
		e = ENOMEM;
		goto out;
	}
	perf_symbols(&f, all, &nall, n);
	plt_entries(&p, plt, &nplt, cap);
	if (f.nsyms == 0)
		goto out;
	lo = f.syms[0].lo;
	hi = f.syms[f.nsyms - 1].reach;
	/* Evenly over the text, and at each edge of some symbols. */
	for (k = 0; k < probes; k++) {
		const struct fsym *y = &f.syms[(size_t)(k * 7919 % f.nsyms)];
		uint64_t at[4] = { lo + (hi - lo) / probes * k, y->lo, y->hi - 1, y->hi };

		for (i = 0; i < 4; i++) {
			const struct fsym *h1, *h2;

			a = at[i];
			if (index_lookup(&f, a, &h1) == -1)
				continue;
			(*checked)++;
			h2 = reference_lookup(all, nall, plt, nplt, a);
			if ((h1 == NULL) != (h2 == NULL) || (h1 != NULL &&
			    (h1->lo != h2->lo || strcmp(h1->name, h2->name) != 0 || h1->plt != h2->plt))) {
				if ((*differ)++ == 0)
					snprintf(first, firstlen, "%#llx: index %s%s at %#llx, reference %s%s at %#llx",
					    (unsigned long long)a, h1 ? h1->name : "(none)",
					    h1 && h1->plt ? "@plt" : "", h1 ? (unsigned long long)h1->lo : 0,
					    h2 ? h2->name : "(none)", h2 && h2->plt ? "@plt" : "",
					    h2 ? (unsigned long long)h2->lo : 0);
			}
		}
	}
out:
	free(all);
	free(plt);
	free(f.syms);
	dwfl_end(f.dwfl);
	if (e != 0) {
		errno = e;
		return -1;
	}
	return 0;
}

void
pf_sym_mark(struct pf_symbolizer *s, pid_t pid, const struct pf_frame_in *in)
{
	uint64_t look = in->retaddr && in->addr ? in->addr - 1 : in->addr;
	const struct map *m;

	if (!in->kernel && (m = find_map(get_proc(s, pid, false), look)) != NULL && m->file != NULL)
		m->file->hit = true;
}

/* One process's mappings as pf_sym_save found them. */
struct saved_proc {
	struct proc *p;
	struct map *maps;
	size_t n;
	uint64_t top;
};

struct pf_sym_saved {
	struct saved_proc *v;
	size_t n;
};

struct pf_sym_saved *
pf_sym_save(const struct pf_symbolizer *s)
{
	struct pf_sym_saved *sv;
	size_t i;

	if ((sv = calloc(1, sizeof(*sv))) == NULL ||
	    (s->procs.n > 0 && (sv->v = calloc(s->procs.n, sizeof(*sv->v))) == NULL)) {
		free(sv);
		return NULL;
	}
	for (i = 0; i < s->procs.n; i++) {
		struct proc *p = s->procs.v[i];
		struct saved_proc *o = &sv->v[sv->n++];

		o->p = p;
		o->n = p->n;
		o->top = p->top;
		if (p->n > 0 && (o->maps = malloc(p->n * sizeof(*o->maps))) == NULL) {
			pf_sym_restore(NULL, sv);
			return NULL;
		}
		if (p->n > 0)
			memcpy(o->maps, p->maps, p->n * sizeof(*o->maps));
	}
	return sv;
}

void
pf_sym_restore(struct pf_symbolizer *s, struct pf_sym_saved *sv)
{
	size_t i;

	if (sv == NULL)
		return;
	/* A process first seen since has no mappings yet, as then. */
	for (i = 0; s != NULL && i < s->procs.n; i++) {
		struct proc *p = s->procs.v[i];

		p->n = 0;
		p->top = 0;
	}
	for (i = 0; i < sv->n; i++) {
		struct saved_proc *o = &sv->v[i];

		/* The arrays only grew: the saved mappings fit where they were. */
		if (s != NULL && o->n > 0) {
			memcpy(o->p->maps, o->maps, o->n * sizeof(*o->maps));
			o->p->n = o->n;
			o->p->top = o->top;
			o->p->sorted = false;
		}
		free(o->maps);
	}
	free(sv->v);
	free(sv);
}

/* f's GNU build-id, from its own note, and its executable loadable segments. */
static bool
file_buildid(const struct symfile *f, struct pf_buildid *id)
{
	const void *bits;
	Dwarf_Addr bias;
	size_t nph, i;
	Elf *elf;
	int n;

	memset(id, 0, sizeof(*id));
	if ((elf = dwfl_module_getelf(f->mod, &bias)) == NULL ||
	    (n = (int)dwelf_elf_gnu_build_id(elf, &bits)) <= 0 || n > PF_BUILDID_MAX)
		return false;
	memcpy(id->id, bits, (size_t)n);
	id->idlen = (size_t)n;
	if (elf_getphdrnum(elf, &nph) != 0)
		return true;
	for (i = 0; i < nph && id->nseg < PF_BUILDID_SEGS; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) == NULL || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) || ph.p_filesz == 0 ||
		    ph.p_offset + ph.p_filesz < ph.p_offset || ph.p_vaddr + ph.p_filesz < ph.p_vaddr)
			continue;
		id->seg[id->nseg++] = (struct pf_buildid_seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
	return true;
}

void
pf_sym_foreach_buildid(struct pf_symbolizer *s,
    void (*fn)(const char *path, const struct pf_buildid *id, void *arg), void *arg)
{
	struct pf_buildid id;
	size_t i;

	for (i = 0; i < s->files.n; i++) {
		struct symfile *f = s->files.v[i];

		if (!f->hit || !pf_maps_file_path(f->path))
			continue;
		if (!f->tried)
			open_file(s, f, f->pid);
		if (f->ok && file_buildid(f, &id))
			fn(f->path, &id, arg);
	}
}

/*
 * For Dwfl_Callbacks.find_debuginfo: nothing is searched for.  A debug
 * file's own DWARF and symbols are all there is to it, and the unwinder
 * opens nothing a target's debug link or FILE.debug names.
 */
int
pf_dwfl_no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
    const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
    char **debuginfo_file_name)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink_file;
	(void)debuglink_crc;
	(void)debuginfo_file_name;
	errno = ENOENT;
	return -1;
}

static int
no_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
    char **file_name, Elf **elfp)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)elfp;
	return -1;
}

static const Dwfl_Callbacks debug_cb = {
	.find_elf = no_elf,
	.find_debuginfo = pf_dwfl_no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

int
pf_sym_debug_add(struct pf_symbolizer *s, int fd, const char *path, const unsigned char *want,
    size_t wantlen, char *got, size_t gotlen)
{
	const void *bits;
	struct symfile *f;
	Dwarf_Addr bias;
	const char *base;
	char hex[2 * PF_BUILDID_MAX + 1];
	Elf *elf;
	int n, e;

	if (gotlen > 0)
		got[0] = '\0';
	if (pf_grow(&s->debugs, &s->capdebugs, s->ndebugs + 1, sizeof(*s->debugs)) == -1) {
		close(fd);
		return -1;
	}
	if ((f = calloc(1, sizeof(*f))) == NULL) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	f->fd = -1;
	f->tried = true;
	if ((f->path = strdup(path)) == NULL || (f->dwfl = dwfl_begin(&debug_cb)) == NULL) {
		e = ENOMEM;
		close(fd);
		goto fail;
	}
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dwfl_report_begin(f->dwfl);
	f->mod = report_file(f->dwfl, base, path, fd);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (f->mod == NULL || (elf = dwfl_module_getelf(f->mod, &bias)) == NULL) {
		e = EINVAL;
		goto fail;
	}
	/* The file's own note: what libdwfl may have made of it is not asked. */
	if ((n = (int)dwelf_elf_gnu_build_id(elf, &bits)) <= 0) {
		e = ENODATA;
		goto fail;
	}
	if ((size_t)n != wantlen || memcmp(bits, want, wantlen) != 0) {
		if (n <= PF_BUILDID_MAX) {
			pf_buildid_hex(bits, (size_t)n, hex);
			snprintf(got, gotlen, "%s", hex);
		}
		e = ESTALE;
		goto fail;
	}
	f->bias = bias;
	f->ok = true;
	s->debugs[s->ndebugs] = f;
	return (int)s->ndebugs++;
fail:
	symfile_free(f);
	errno = e;
	return -1;
}

void
pf_sym_debug_frame(struct pf_symbolizer *s, int h, uint64_t vaddr, bool retaddr,
    struct pf_frame_out *out)
{
	uint64_t look = retaddr && vaddr ? vaddr - 1 : vaddr, o;
	const char *const *inl;
	const char *nm;
	size_t ninl;

	s->st.lookups++;
	memset(out, 0, sizeof(*out));
	out->addr = vaddr;
	if (h < 0 || (size_t)h >= s->ndebugs)
		return;
	file_lookup(s, s->debugs[h], look + s->debugs[h]->bias, &nm, &o, &inl, &ninl);
	if (nm == NULL)
		return;
	out->sym = nm;
	out->off = o + (look != vaddr);
	out->inl = inl;
	out->ninl = ninl;
}
