/*
 * pyrec: the recorders' Python frames, read as samples are drained.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "hash.h"
#include "htab.h"
#include "intern.h"
#include "mapfile.h"
#include "procstat.h"
#include "pyframe.h"
#include "pyrec.h"
#include "window.h"

#define PAGE		4096u
/* C libraries of processes no interpreter was found in yet, the last this many. */
#define LIBC_RING	64
/*
 * Files looked at (probed) lately, by process and file: a file is probed
 * once a process however often it is mapped, and at most PROBES_MAX
 * files a process (a target that maps 60,000 files named python costs
 * 16 looks, not 60,000).
 */
#define PROBED_RING	256
#define PROBES_MAX	16
/* Helper requests one walk of a thread's frames may make, and one listing of the threads. */
#define WALK_READS	128
#define LIST_READS	2048

enum { PROC_FOUND, PROC_READY, PROC_OFF };

struct thread {
	uint32_t tid;			/* as the interpreter knows it: in its PID namespace */
	uint32_t host;			/* as the samples name it (0: not known yet) */
	uint64_t ts;
	/* The first pages its last walk read, asked for at once by the next (one request). */
	uint64_t pages[PF_MAPFILES_PAGES_MAX];
	size_t npages;
};

struct proc {
	uint32_t pid;
	int state;
	const char *why;		/* PROC_OFF: the header's reason */
	struct pf_py_elf elf;
	uint64_t runtime;		/* in the process */
	uint64_t eval_lo, eval_hi;	/* _PyEval_EvalFrameDefault, in the process */
	struct pf_pyrec_slots slots;
	uint32_t tid_off;		/* libc's, 0: not found (yet) */
	struct pf_py py;
	struct thread *threads;
	size_t nthreads, cap;
	uint64_t listed_ns;		/* when the thread list was last walked */
	uint64_t seen;			/* the time of the latest mapping that told something */
	int ns;				/* in a PID namespace of its own: 1, not: 0, not known: -1 */
	bool listed;
};

struct page {
	uint64_t addr;
	bool ok;
	unsigned char data[PAGE];
};

/* The reads of one walk: pages read through the helper, each once. */
struct reader {
	struct pf_mapfiles *mf;
	uint32_t pid;
	struct page *pages;		/* PF_PYREC_PAGES */
	size_t npages, next;		/* used, and the one replaced next when full */
	unsigned budget;		/* helper requests left */
	uint64_t reads;			/* helper requests, over the run */
	uint64_t touched[PF_MAPFILES_PAGES_MAX];	/* the first pages this walk used */
	size_t ntouched;
};

struct code {
	uint32_t pid;
	int32_t line;
	uint64_t code, name_obj, file_obj;
	uint64_t span;			/* the code object's bytes, 0: not known */
	uint32_t name;			/* number in names (without a line) */
	/* --python-lines: its line table in tabs, or none (too long). */
	bool tab_ok;
	size_t tab_at, tab_len;
};

/* The bytes of line tables kept (--python-lines); the code cache starts over beyond. */
#define TABS_MAX	(8u << 20)

/* The largest code object believed (a bigger size is not one). */
#define SPAN_MAX	(16u << 20)

struct pf_pyrec {
	struct pf_mapfiles *mf;
	bool lines;
	struct proc procs[PF_PYREC_PROCS];
	size_t nprocs;
	uint64_t procs_over;
	struct reader rd;
	struct pf_py_stack *st;
	struct pf_intern names, stacks;
	struct pf_htab codes_ix;
	struct code *codes;
	size_t ncodes, codes_cap;
	struct pf_buf key;		/* a stack's bytes */
	struct pf_buf nkey;		/* a name's */
	struct pf_buf tabs;		/* --python-lines: the code cache's line tables */
	unsigned char *tab;		/* one read (PF_PY_LINETABLE_MAX) */
	uint64_t samples, read, hits, misses;
	uint64_t leaf_lo, leaf_hi, leaf_instr;	/* pf_pyrec_leaf_code's */
	struct {
		uint32_t pid, off;
		uint64_t time;
	} libc[LIBC_RING];		/* C libraries seen before their interpreter */
	size_t nlibc;
	struct {
		uint32_t pid;
		char *path;
	} exes[PF_PYREC_EXES];		/* pf_pyrec_exe's */
	size_t nexes;
	struct {
		uint32_t pid;
		uint64_t file;
	} probed[PROBED_RING];		/* files looked at, a ring */
	size_t nprobed;
	uint64_t probes_refused;
	uint64_t heads;			/* head_thread's looks */
	uint64_t nothread;		/* samples of a thread with no thread state found */
};

struct pf_pyrec *
pf_pyrec_new(struct pf_mapfiles *mf, bool lines)
{
	struct pf_pyrec *p;

	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	p->mf = mf;
	p->lines = lines;
	p->rd.mf = mf;
	/* pf_pyrec_free frees what a zeroed state holds too. */
	if ((p->rd.pages = calloc(PF_PYREC_PAGES, sizeof(*p->rd.pages))) == NULL ||
	    (p->st = malloc(sizeof(*p->st))) == NULL || pf_intern_init(&p->names, 256) == -1 ||
	    pf_intern_init(&p->stacks, 256) == -1 || pf_htab_init(&p->codes_ix, 1024) == -1 ||
	    (lines && (p->tab = malloc(PF_PY_LINETABLE_MAX)) == NULL)) {
		pf_pyrec_free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void
pf_pyrec_free(struct pf_pyrec *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->nprocs; i++)
		free(p->procs[i].threads);
	pf_intern_free(&p->names);
	pf_intern_free(&p->stacks);
	pf_htab_free(&p->codes_ix);
	free(p->codes);
	pf_buf_free(&p->key);
	pf_buf_free(&p->nkey);
	pf_buf_free(&p->tabs);
	free(p->tab);
	for (i = 0; i < p->nexes; i++)
		free(p->exes[i].path);
	free(p->rd.pages);
	free(p->st);
	free(p);
}

static struct proc *
find_proc(struct pf_pyrec *p, uint32_t pid)
{
	size_t i;

	for (i = 0; i < p->nprocs; i++)
		if (p->procs[i].pid == pid)
			return &p->procs[i];
	return NULL;
}

static struct proc *
new_proc(struct pf_pyrec *p, uint32_t pid)
{
	struct proc *pr = find_proc(p, pid);

	if (pr != NULL)
		return pr;
	if (p->nprocs == PF_PYREC_PROCS) {
		p->procs_over++;
		return NULL;
	}
	pr = &p->procs[p->nprocs++];
	memset(pr, 0, sizeof(*pr));
	pr->pid = pid;
	pr->ns = -1;
	pr->state = PROC_OFF;
	pr->why = NULL;		/* nothing found yet: not listed */
	return pr;
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int
pf_pyrec_exe(struct pf_pyrec *p, pid_t pid, const char *path)
{
	if (p->nexes == PF_PYREC_EXES) {
		errno = ENOSPC;
		return -1;
	}
	if ((p->exes[p->nexes].path = strdup(path)) == NULL)
		return -1;
	p->exes[p->nexes++].pid = (uint32_t)pid;
	return 0;
}

/* Whether path is what pf_pyrec_exe named pid's executable. */
static bool
is_exe(const struct pf_pyrec *p, pid_t pid, const char *path)
{
	size_t i;

	for (i = 0; i < p->nexes; i++)
		if (p->exes[i].pid == (uint32_t)pid && strcmp(p->exes[i].path, path) == 0)
			return true;
	return false;
}

/*
 * Whether the file path (ino) mapped by pid is to be looked at: not when
 * pid's image looked at it already, nor past PROBES_MAX files of pid's;
 * else it is noted as looked at.
 */
static bool
probe_once(struct pf_pyrec *p, pid_t pid, const char *path, uint64_t ino)
{
	uint64_t file = pf_hash(path, strlen(path)) ^ pf_hash_u64(ino);
	size_t i, n = p->nprobed < PROBED_RING ? p->nprobed : PROBED_RING, mine = 0;

	for (i = 0; i < n; i++) {
		if (p->probed[i].pid != (uint32_t)pid)
			continue;
		if (p->probed[i].file == file)
			return false;
		mine++;
	}
	if (mine >= PROBES_MAX) {
		p->probes_refused++;
		return false;
	}
	p->probed[p->nprobed % PROBED_RING].pid = (uint32_t)pid;
	p->probed[p->nprobed % PROBED_RING].file = file;
	p->nprobed++;
	return true;
}

int
pf_pyrec_map(struct pf_pyrec *p, pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
    const char *path, uint64_t ino, uint64_t time)
{
	const char *name = base_name(path);
	bool libc = strncmp(name, "libc.so", 7) == 0 || strncmp(name, "libc-", 5) == 0;
	struct pf_py_elf e;
	struct proc *pr;
	uint32_t off;
	size_t i;
	int fd;

	if (p->mf == NULL || (!libc && strstr(name, "python") == NULL && !is_exe(p, pid, path)))
		return 0;
	pr = find_proc(p, (uint32_t)pid);
	if (libc && (pr == NULL ? false : pr->tid_off != 0))
		return 0;
	/* One interpreter a process: the first found. */
	if (!libc && pr != NULL && (pr->state == PROC_FOUND || pr->state == PROC_READY))
		return 0;
	if (!probe_once(p, pid, path, ino))
		return 0;
	if ((fd = pf_mapfile_open(p->mf, "/proc", pid, start, end, path, ino)) == -1)
		return 0;
	if (libc) {
		/*
		 * Kept for a process with an interpreter; before one is found
		 * (its loader maps the C library first), in a ring of the last
		 * few: under -a every process maps a C library, and must not
		 * take the interpreters' places.
		 */
		if (pf_py_elf_pthread_tid(fd, &off) == 0 && off != 0) {
			if (pr != NULL) {
				pr->tid_off = off;
				pr->seen = pr->seen > time ? pr->seen : time;
			} else {
				p->libc[p->nlibc % LIBC_RING].pid = (uint32_t)pid;
				p->libc[p->nlibc % LIBC_RING].off = off;
				p->libc[p->nlibc % LIBC_RING].time = time;
				p->nlibc++;
			}
		}
		close(fd);
		return 0;
	}
	if (pf_py_elf_probe(fd, name, &e) == -1) {
		close(fd);
		return 0;	/* not an interpreter */
	}
	close(fd);
	if ((pr = new_proc(p, (uint32_t)pid)) == NULL)
		return 0;
	for (i = 0; pr->tid_off == 0 && i < LIBC_RING && i < p->nlibc; i++)
		if (p->libc[i].pid == (uint32_t)pid) {
			pr->tid_off = p->libc[i].off;
			pr->seen = p->libc[i].time;
		}
	pr->elf = e;
	pr->seen = pr->seen > time ? pr->seen : time;
	pr->runtime = start - pgoff - e.vaddr0 + e.runtime;
	pr->eval_lo = pr->eval_hi = 0;
	memset(&pr->slots, 0, sizeof(pr->slots));
	if (e.eval != 0 && e.eval_size != 0) {
		pr->eval_lo = start - pgoff - e.vaddr0 + e.eval;
		pr->eval_hi = pr->eval_lo + e.eval_size;
	}
	if (e.from == PF_PY_VER_NONE) {
		pr->state = PROC_OFF;
		pr->why = "unknown-version";
	} else if (e.major != 3 || pf_py_layout(e.minor) == NULL) {
		pr->state = PROC_OFF;
		pr->why = "version-not-read";
	} else {
		pr->state = PROC_FOUND;
		pr->why = "";
	}
	return 0;
}

bool
pf_pyrec_found(const struct pf_pyrec *p)
{
	size_t i;

	for (i = 0; i < p->nprocs; i++)
		if (p->procs[i].why != NULL)
			return true;
	return false;
}

void
pf_pyrec_exec(struct pf_pyrec *p, pid_t pid, uint64_t time)
{
	struct proc *pr = find_proc(p, (uint32_t)pid);
	size_t i;

	/* The new image's files are looked at again. */
	for (i = 0; i < PROBED_RING && i < p->nprobed; i++)
		if (p->probed[i].pid == (uint32_t)pid)
			p->probed[i].pid = 0;
	if (pr == NULL || pr->seen > time)
		return;
	free(pr->threads);
	*pr = p->procs[--p->nprocs];
}

void
pf_pyrec_fork(struct pf_pyrec *p, pid_t ppid, pid_t child)
{
	struct proc *pr = find_proc(p, (uint32_t)ppid), *c;

	if (pr == NULL || find_proc(p, (uint32_t)child) != NULL ||
	    (c = new_proc(p, (uint32_t)child)) == NULL)
		return;
	pr = find_proc(p, (uint32_t)ppid);	/* new_proc may not move it, but be plain */
	*c = *pr;
	c->pid = (uint32_t)child;
	c->threads = NULL;
	c->nthreads = c->cap = 0;
	c->listed = false;
	if (c->state == PROC_READY) {
		c->state = PROC_FOUND;	/* initialised again against the child's memory */
	}
}

/*
 * pyframe's read callback: the bytes come from the pages of this walk,
 * each page read through the helper once, all of it or none (a page is
 * mapped whole or not at all), within the walk's budget.
 */
static int
rd(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct reader *r = ctx;
	unsigned char *out = buf;

	if (len == 0)
		return 0;
	if (addr + len < addr)
		return -1;
	while (len > 0) {
		uint64_t pa = addr & ~(uint64_t)(PAGE - 1);
		size_t at = (size_t)(addr - pa), k = PAGE - at < len ? PAGE - at : len, i;
		struct page *pg = NULL;

		for (i = 0; i < r->npages; i++)
			if (r->pages[i].addr == pa) {
				pg = &r->pages[i];
				break;
			}
		for (i = 0; i < r->ntouched && r->touched[i] != pa; i++)
			;
		if (i == r->ntouched && r->ntouched < PF_MAPFILES_PAGES_MAX)
			r->touched[r->ntouched++] = pa;
		if (pg == NULL) {
			if (r->budget == 0)
				return -1;
			r->budget--;
			if (r->npages < PF_PYREC_PAGES)
				pg = &r->pages[r->npages++];
			else {
				pg = &r->pages[r->next];
				r->next = (r->next + 1) % PF_PYREC_PAGES;
			}
			pg->addr = pa;
			r->reads++;
			pg->ok = pf_mapfiles_read(r->mf, (pid_t)r->pid, pa, pg->data, PAGE) == 0;
		}
		if (!pg->ok)
			return -1;
		memcpy(out, pg->data + at, k);
		out += k;
		addr += k;
		len -= k;
	}
	return 0;
}

static void
walk_begin(struct pf_pyrec *p, uint32_t pid, unsigned budget)
{
	p->rd.pid = pid;
	p->rd.npages = p->rd.next = 0;
	p->rd.budget = budget;
	p->rd.ntouched = 0;
}

/*
 * The pages a thread's last walk read, asked for in one request before
 * this walk needs them: a walk of the same frames is then served whole.
 * Pages the frames moved off are read as the walk asks, each in its own.
 */
static void
prefetch(struct pf_pyrec *p, const struct thread *t)
{
	static unsigned char buf[PF_MAPFILES_PAGES_MAX][PAGE];
	struct reader *r = &p->rd;
	bool ok[PF_MAPFILES_PAGES_MAX];
	size_t i;

	if (t->npages == 0 || r->budget == 0)
		return;
	r->budget--;
	r->reads++;
	if (pf_mapfiles_read_pages(r->mf, (pid_t)r->pid, t->pages, t->npages, buf, ok) == -1)
		return;
	for (i = 0; i < t->npages && r->npages < PF_PYREC_PAGES; i++) {
		struct page *pg = &r->pages[r->npages++];

		pg->addr = t->pages[i];
		pg->ok = ok[i];
		if (ok[i])
			memcpy(pg->data, buf[i], PAGE);
	}
}

static int
ready(struct pf_pyrec *p, struct proc *pr)
{
	if (pr->state == PROC_READY)
		return 0;
	if (pr->state != PROC_FOUND)
		return -1;
	/* 3.9, 3.10: not before the C library is mapped (a command's loader maps it after). */
	if (pf_py_layout(pr->elf.minor)->ts_tid_pthread && pr->tid_off == 0)
		return -1;
	walk_begin(p, pr->pid, WALK_READS);
	if (pf_py_init(&pr->py, pr->elf.minor, pr->runtime, pr->tid_off, rd, &p->rd) == -1) {
		pr->state = PROC_OFF;
		pr->why = errno == ENOTSUP ? "free-threaded" : errno == EIO ? "runtime-unreadable" :
		    "bad-debug-offsets";
		return -1;
	}
	pr->py.lazy_names = true;
	pr->state = PROC_READY;
	return 0;
}

/* The thread a sample names host (its TID as the recorder sees it). */
static struct thread *
thread_of(const struct proc *pr, uint32_t host)
{
	size_t i;

	for (i = 0; i < pr->nthreads; i++)
		if (pr->threads[i].host == host)
			return &pr->threads[i];
	return NULL;
}

/*
 * The TID host has in the process's own PID namespace (a container's),
 * the one its interpreter knows it by: the innermost of its NSpid; host
 * itself outside one, or when its status cannot be read.
 */
static uint32_t
ns_tid(struct proc *pr, uint32_t host)
{
	struct pf_status st;

	if (pr->ns == -1)
		pr->ns = pf_status_read("/proc", (int)pr->pid, 0, &st) == 0 &&
		    st.nspid_levels > 1;
	if (pr->ns != 1 || pf_status_read("/proc", (int)pr->pid, (int)host, &st) == -1 ||
	    st.nspid <= 0)
		return host;
	return (uint32_t)st.nspid;
}

/*
 * Between listings, a thread not known yet (a thread started for a
 * request lives milliseconds) is looked for among the first HEAD_THREADS
 * of the list, where CPython puts a new thread's state: what is found
 * there is added to the known threads (PF_PY_THREADS_MAX at most).
 */
#define HEAD_THREADS	8

static struct thread *
head_thread(struct pf_pyrec *p, struct proc *pr, uint32_t tid, uint32_t want)
{
	struct pf_py_thread list[HEAD_THREADS];
	struct thread *t;
	size_t n, i, j, k, found = SIZE_MAX;
	int end;

	(void)pf_py_threads(&pr->py, list, HEAD_THREADS, &n, &end);
	p->heads++;
	for (i = 0; i < n; i++) {
		if (list[i].tid == 0)
			continue;
		for (j = 0; j < pr->nthreads && pr->threads[j].ts != list[i].tstate; j++)
			;
		if (j == pr->nthreads) {
			if (pr->nthreads == PF_PY_THREADS_MAX ||
			    pf_grow(&pr->threads, &pr->cap, pr->nthreads + 1, sizeof(*pr->threads)) == -1)
				break;
			pr->nthreads++;
			pr->threads[j].tid = 0;
			pr->threads[j].ts = list[i].tstate;
		}
		t = &pr->threads[j];
		if (t->tid != list[i].tid) {
			/* A new thread, or its state now another thread's. */
			t->tid = list[i].tid;
			t->host = pr->ns == 1 ? 0 : list[i].tid;
			t->npages = 0;
		}
		/* An older state of the same tid is gone: not found first again. */
		for (k = 0; k < pr->nthreads; k++)
			if (k != j && pr->threads[k].tid == t->tid)
				pr->threads[k].tid = pr->threads[k].host = 0;
		if (t->tid == want)
			found = j;
	}
	if (found == SIZE_MAX)
		return NULL;
	/* Known by its host TID from now on, and by no other entry. */
	for (k = 0; k < pr->nthreads; k++)
		if (k != found && pr->threads[k].host == tid)
			pr->threads[k].tid = pr->threads[k].host = 0;
	pr->threads[found].host = tid;
	return &pr->threads[found];
}

/*
 * The thread of tid, from the cache when its state still holds tid (its
 * last walk's pages asked for first), else from a new listing, or
 * between listings from the head of the list; NULL.
 */
static struct thread *
find_thread(struct pf_pyrec *p, struct proc *pr, uint32_t tid)
{
	static struct pf_py_thread list[PF_PY_THREADS_MAX];
	static uint32_t old[PF_PY_THREADS_MAX][2];
	struct thread *t;
	uint64_t now;
	size_t n, i, j, nold;
	int end;

	uint32_t want;

	if ((t = thread_of(pr, tid)) != NULL) {
		prefetch(p, t);
		if (pf_py_tstate_tid(&pr->py, t->ts) == t->tid)
			return t;
	}
	now = pf_now_ns();
	want = ns_tid(pr, tid);
	if (pr->listed && now - pr->listed_ns < PF_PYREC_RELIST_NS)
		return head_thread(p, pr, tid, want);
	pr->listed = true;
	pr->listed_ns = now;
	walk_begin(p, pr->pid, LIST_READS);
	(void)pf_py_threads(&pr->py, list, PF_PY_THREADS_MAX, &n, &end);
	/* The host TIDs already known (in a namespace) stay known. */
	nold = pr->nthreads < PF_PY_THREADS_MAX ? pr->nthreads : PF_PY_THREADS_MAX;
	for (i = 0; i < nold; i++) {
		old[i][0] = pr->threads[i].tid;
		old[i][1] = pr->threads[i].host;
	}
	pr->nthreads = 0;
	if (n > 0 && pf_grow(&pr->threads, &pr->cap, n, sizeof(*pr->threads)) == -1)
		return NULL;
	for (i = 0; i < n; i++)
		if (list[i].tid != 0) {
			t = &pr->threads[pr->nthreads++];
			t->tid = list[i].tid;
			t->host = pr->ns == 1 ? 0 : list[i].tid;
			for (j = 0; pr->ns == 1 && j < nold; j++)
				if (old[j][0] == t->tid)
					t->host = old[j][1];
			t->ts = list[i].tstate;
			t->npages = 0;
		}
	walk_begin(p, pr->pid, WALK_READS);
	for (i = 0; i < pr->nthreads; i++)
		if (pr->threads[i].tid == want) {
			pr->threads[i].host = tid;
			return &pr->threads[i];
		}
	return NULL;
}

struct code_key {
	const struct pf_pyrec *p;
	uint32_t pid;
	uint64_t code;
};

static bool
code_eq(const void *arg, size_t idx)
{
	const struct code_key *k = arg;

	return k->p->codes[idx].pid == k->pid && k->p->codes[idx].code == k->code;
}

/* The name number of frame f: from the cache while its code holds the same objects. */
/*
 * The size of the object at obj, as its type says (tp_basicsize and
 * tp_itemsize, at offsets 32 and 40 of every CPython 3 type object, and
 * ob_size at 16 of a variable-size object): 0 when it cannot be read or
 * is beyond belief.
 */
static uint64_t
object_span(struct pf_pyrec *p, uint64_t obj)
{
	uint64_t type, size[2], n;

	if (rd(&p->rd, obj + 8, &type, 8) != 0 || rd(&p->rd, type + 32, size, 16) != 0 ||
	    rd(&p->rd, obj + 16, &n, 8) != 0)
		return 0;
	if (size[0] > SPAN_MAX || size[1] > 64 || (size[1] != 0 && n > SPAN_MAX / size[1]))
		return 0;
	n = size[0] + (size[1] != 0 ? n * size[1] : 0);
	return n <= SPAN_MAX ? n : 0;
}

/*
 * --python-lines: the line table of f's code into p->tab (*len), read
 * outside the pages the thread's next walk asks for at once: 1 read, 0
 * too long (a table refused whole, as a name is), -1 not read.
 */
static int
read_table(struct pf_pyrec *p, struct proc *pr, const struct pf_py_frame *f, size_t *len)
{
	size_t touched = p->rd.ntouched;
	int rc;

	rc = pf_py_code_linetable(&pr->py, f->code, p->tab, len);
	p->rd.ntouched = touched;
	if (rc == 0)
		return 1;
	return errno == E2BIG ? 0 : -1;
}

/* The name number of base (NAME:FILE) with ":LINE", or ":?" when line is 0 (none known). */
static int
line_name(struct pf_pyrec *p, uint32_t base, int32_t line, uint32_t *id)
{
	const char *b;
	size_t blen;
	char num[16];

	b = pf_intern_key(&p->names, base, &blen);
	pf_buf_reset(&p->nkey);
	if (line > 0)
		snprintf(num, sizeof(num), ":%d", (int)line);
	else
		snprintf(num, sizeof(num), ":?");
	if (pf_buf_append(&p->nkey, b, blen) == -1 || pf_buf_puts(&p->nkey, num) == -1)
		return -1;
	return pf_intern_add(&p->names, p->nkey.data, p->nkey.len, id);
}

/* The code cache starts over: its entries and their line tables. */
static int
codes_reset(struct pf_pyrec *p)
{
	pf_htab_free(&p->codes_ix);
	if (pf_htab_init(&p->codes_ix, 1024) == -1)
		return -1;
	p->ncodes = 0;
	pf_buf_reset(&p->tabs);
	return 0;
}

/*
 * The name number of frame f: from the cache while its code holds the
 * same objects.  With lines, the line it is at from its code's line
 * table, kept with the cache entry.
 */
static int
frame_name(struct pf_pyrec *p, struct proc *pr, struct pf_py_frame *f, uint32_t *id,
    uint64_t *span)
{
	struct code_key k = { p, pr->pid, f->code };
	uint64_t h = pf_hash_u64(f->code ^ ((uint64_t)pr->pid << 47) ^ pr->pid);
	struct pf_htab_slot *s;
	struct code *c;
	size_t tlen = 0;
	uint32_t base;
	int tab = -1;

	if (f->code != 0 && (s = pf_htab_find(&p->codes_ix, h, code_eq, &k))->idx != 0) {
		c = &p->codes[s->idx - 1];
		if (c->name_obj == f->name_obj && c->file_obj == f->file_obj &&
		    c->line == f->firstline) {
			p->hits++;
			*span = c->span;
			if (!p->lines) {
				*id = c->name;
				return 0;
			}
			return line_name(p, c->name, c->tab_ok ? pf_py_addr2line(pr->py.lay.minor,
			    (const unsigned char *)p->tabs.data + c->tab_at, c->tab_len,
			    f->firstline, f->lasti) : 0, id);
		}
	}
	p->misses++;
	*span = f->code != 0 ? object_span(p, f->code) : 0;
	pf_py_frame_names(&pr->py, f);
	pf_buf_reset(&p->nkey);
	if (pf_buf_append(&p->nkey, f->name, f->namelen) == -1 || pf_buf_putc(&p->nkey, ':') == -1 ||
	    pf_buf_append(&p->nkey, f->file, f->filelen) == -1)
		return -1;
	if (pf_intern_add(&p->names, p->nkey.data, p->nkey.len, &base) == -1)
		return -1;
	*id = base;
	if (p->lines) {
		tab = f->code != 0 ? read_table(p, pr, f, &tlen) : -1;
		if (line_name(p, base, tab == 1 ? pf_py_addr2line(pr->py.lay.minor, p->tab, tlen,
		    f->firstline, f->lasti) : 0, id) == -1)
			return -1;
		if (tab == 1 && p->tabs.len + tlen > TABS_MAX && codes_reset(p) == -1)
			return -1;
	}
	/* Only what was read whole is kept by code object (and a table read or refused). */
	if (f->code == 0 || f->name_st == PF_PY_NAME_UNREADABLE ||
	    f->file_st == PF_PY_NAME_UNREADABLE || (p->lines && tab == -1))
		return 0;
	if (p->ncodes == PF_PYREC_CODES && codes_reset(p) == -1)
		return -1;
	if (pf_grow(&p->codes, &p->codes_cap, p->ncodes + 1, sizeof(*p->codes)) == -1 ||
	    (s = pf_htab_claim(&p->codes_ix, h, code_eq, &k)) == NULL)
		return -1;
	if (s->idx != 0)
		c = &p->codes[s->idx - 1];
	else {
		c = &p->codes[p->ncodes];
		pf_htab_set(&p->codes_ix, s, h, p->ncodes);
		p->ncodes++;
	}
	c->pid = pr->pid;
	c->code = f->code;
	c->name_obj = f->name_obj;
	c->file_obj = f->file_obj;
	c->line = f->firstline;
	c->span = *span;
	c->name = base;
	c->tab_ok = tab == 1;
	c->tab_at = p->tabs.len;
	c->tab_len = tab == 1 ? tlen : 0;
	if (tab == 1 && pf_buf_append(&p->tabs, p->tab, tlen) == -1)
		return -1;
	return 0;
}

uint32_t
pf_pyrec_sample(struct pf_pyrec *p, uint32_t pid, uint32_t tid)
{
	struct proc *pr = find_proc(p, pid);
	struct thread *t;
	uint32_t id;
	unsigned char end;
	size_t i;

	if (pr == NULL || ready(p, pr) == -1)
		return PF_PYREC_NONE;
	walk_begin(p, pid, WALK_READS);
	if ((t = find_thread(p, pr, tid)) == NULL) {
		p->nothread++;
		return PF_PYREC_UNFOUND;
	}
	p->samples++;
	p->leaf_lo = p->leaf_hi = p->leaf_instr = 0;
	(void)pf_py_thread_frames(&pr->py, t->ts, p->st);
	/* The pages of this walk, for the next of this thread. */
	memcpy(t->pages, p->rd.touched, p->rd.ntouched * sizeof(*t->pages));
	t->npages = p->rd.ntouched;
	pf_buf_reset(&p->key);
	end = (unsigned char)p->st->end;
	if (pf_buf_putc(&p->key, (char)end) == -1)
		return PF_PYREC_NONE;
	for (i = 0; i < p->st->n; i++) {
		struct pf_py_frame *f = &p->st->frame[i];
		uint32_t k;
		size_t at = p->key.len;
		uint64_t span;

		if (pf_buf_append(&p->key, "\0\0\0\0", 4) == -1 ||
		    frame_name(p, pr, f, &k, &span) == -1)
			return PF_PYREC_NONE;
		if (i == 0 && span != 0) {
			p->leaf_lo = f->code;
			p->leaf_hi = f->code + span;
			p->leaf_instr = f->instr >= p->leaf_lo && f->instr < p->leaf_hi ? f->instr : 0;
		}
		k |= f->entry ? PF_PYREC_ENTRY : 0;
		memcpy(p->key.data + at, &k, 4);
	}
	if (pf_intern_add(&p->stacks, p->key.data, p->key.len, &id) == -1)
		return PF_PYREC_NONE;
	p->read++;
	return id + 1;
}

uint32_t
pf_pyrec_add_stack(struct pf_pyrec *p, const char *const *names, const bool *entry, size_t n,
    int end)
{
	uint32_t id, k;
	size_t i;

	pf_buf_reset(&p->key);
	if (pf_buf_putc(&p->key, (char)(unsigned char)end) == -1)
		return PF_PYREC_NONE;
	for (i = 0; i < n; i++) {
		if (pf_intern_add(&p->names, names[i], strlen(names[i]), &k) == -1)
			return PF_PYREC_NONE;
		k |= entry[i] ? PF_PYREC_ENTRY : 0;
		if (pf_buf_append(&p->key, &k, 4) == -1)
			return PF_PYREC_NONE;
	}
	if (pf_intern_add(&p->stacks, p->key.data, p->key.len, &id) == -1)
		return PF_PYREC_NONE;
	return id + 1;
}

bool
pf_pyrec_leaf_code(const struct pf_pyrec *p, uint64_t *lo, uint64_t *hi, uint64_t *instr)
{
	*lo = p->leaf_lo;
	*hi = p->leaf_hi;
	*instr = p->leaf_instr;
	return p->leaf_hi > p->leaf_lo;
}

struct pf_pyrec_slots *
pf_pyrec_slots(struct pf_pyrec *p, uint32_t pid)
{
	struct proc *pr = find_proc(p, pid);

	return pr != NULL ? &pr->slots : NULL;
}

bool
pf_pyrec_eval_code(const struct pf_pyrec *p, uint32_t pid, uint64_t *lo, uint64_t *hi)
{
	size_t i;

	for (i = 0; i < p->nprocs; i++)
		if (p->procs[i].pid == pid) {
			*lo = p->procs[i].eval_lo;
			*hi = p->procs[i].eval_hi;
			return *hi > *lo;
		}
	return false;
}

const unsigned char *
pf_pyrec_stack(const struct pf_pyrec *p, uint32_t id, size_t *n, int *end)
{
	const char *k;
	size_t len;

	if (id == PF_PYREC_NONE || id == PF_PYREC_LATE || id == PF_PYREC_STALE ||
	    id == PF_PYREC_UNFOUND || id - 1 >= pf_intern_count(&p->stacks))
		return NULL;
	k = pf_intern_key(&p->stacks, id - 1, &len);
	*end = (unsigned char)k[0];
	*n = (len - 1) / 4;
	return (const unsigned char *)k + 1;
}

const char *
pf_pyrec_name(const struct pf_pyrec *p, uint32_t k, size_t *len)
{
	k &= ~PF_PYREC_ENTRY;
	if (k >= pf_intern_count(&p->names)) {
		*len = 0;
		return "";
	}
	return pf_intern_key(&p->names, k, len);
}

int
pf_pyrec_header(const struct pf_pyrec *p, struct pf_buf *b)
{
	size_t i;

	for (i = 0; i < p->nprocs; i++) {
		const struct proc *pr = &p->procs[i];
		const struct pf_py_elf *e = &pr->elf;

		if (pr->why == NULL)
			continue;	/* only a C library seen */
		if (pf_buf_printf(b, "# python pid=%u version=", pr->pid) == -1)
			return -1;
		if (e->from == PF_PY_VER_NONE) {
			if (pf_buf_puts(b, "unknown") == -1)
				return -1;
		} else if (e->from == PF_PY_VER_PY_VERSION) {
			if (pf_buf_printf(b, "%d.%d.%d", e->major, e->minor,
			    (int)(e->hexversion >> 8 & 0xff)) == -1)
				return -1;
		} else if (pf_buf_printf(b, "%d.%d", e->major, e->minor) == -1)
			return -1;
		if (pr->state == PROC_OFF) {
			if (pf_buf_printf(b, " frames=off reason=%s\n", pr->why) == -1)
				return -1;
		} else if (pr->state == PROC_FOUND && pr->tid_off == 0 &&
		    pf_py_layout(e->minor)->ts_tid_pthread) {
			if (pf_buf_puts(b, " frames=off reason=no-libc-tid-offset\n") == -1)
				return -1;
		} else if (pf_buf_puts(b, " frames=read\n") == -1)
			return -1;
	}
	return 0;
}

void
pf_pyrec_stats(const struct pf_pyrec *p, struct pf_buf *b)
{
	(void)pf_buf_printf(b, " py-samples %llu py-reads %llu py-names-cached %llu "
	    "py-names-read %llu py-probes-refused %llu py-head-looks %llu py-no-thread %llu",
	    (unsigned long long)p->samples, (unsigned long long)p->rd.reads,
	    (unsigned long long)p->hits, (unsigned long long)p->misses,
	    (unsigned long long)p->probes_refused, (unsigned long long)p->heads,
	    (unsigned long long)p->nothread);
}
