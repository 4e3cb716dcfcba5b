/*
 * pyframe: CPython's frames from its memory (pyframe.h says what and
 * why).  Every read goes through the caller's callback into a buffer of
 * a fixed size; every loop is bounded by a fixed count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyframe.h"

/*
 * The offsets of 3.9 to 3.13 (3.13's replaced by the runtime's own by
 * pf_py_init): the output of scripts/py-offsets.sh, unedited, between
 * the markers.
 */
static const struct pf_py_layout layouts[] = {
/* BEGIN py-offsets.sh */
	{	/* 3.9.18, from its headers by scripts/py-offsets.sh */
		.minor = 9,
		.rt_interp_head = 32,
		.is_next = 0,
		.is_threads_head = 8,
		.ts_tid = 176,
		.ts_tid_pthread = 1,
		.ts_next = 8,
		.ts_frame = 24,
		.cf_frame = -1,
		.fr_previous = 24,
		.fr_code = 32,
		.fr_owner = -1,
		.fr_instr = -1,
		.fr_is_entry = -1,
		.owner_cstack = -1,
		.co_name = 112,
		.co_filename = 104,
		.co_firstlineno = 40,
		.co_linetable = 120,
		.co_code = -1,
		.fr_lasti = 104,
		.bytes_size = 16,
		.bytes_data = 32,
		.uni_length = 16,
		.uni_state = 32,
		.uni_ascii_size = 48,
		.uni_compact_size = 72,
		.uni_kind = 0x1c,
		.uni_compact = 0x20,
		.uni_ascii = 0x40,
		.uni_ready = 0x80,
	},
	{	/* 3.10.13, from its headers by scripts/py-offsets.sh */
		.minor = 10,
		.rt_interp_head = 32,
		.is_next = 0,
		.is_threads_head = 8,
		.ts_tid = 176,
		.ts_tid_pthread = 1,
		.ts_next = 8,
		.ts_frame = 24,
		.cf_frame = -1,
		.fr_previous = 24,
		.fr_code = 32,
		.fr_owner = -1,
		.fr_instr = -1,
		.fr_is_entry = -1,
		.owner_cstack = -1,
		.co_name = 112,
		.co_filename = 104,
		.co_firstlineno = 40,
		.co_linetable = 120,
		.co_code = -1,
		.fr_lasti = 96,
		.bytes_size = 16,
		.bytes_data = 32,
		.uni_length = 16,
		.uni_state = 32,
		.uni_ascii_size = 48,
		.uni_compact_size = 72,
		.uni_kind = 0x1c,
		.uni_compact = 0x20,
		.uni_ascii = 0x40,
		.uni_ready = 0x80,
	},
	{	/* 3.11.7, from its headers by scripts/py-offsets.sh */
		.minor = 11,
		.rt_interp_head = 40,
		.is_next = 0,
		.is_threads_head = 16,
		.ts_tid = 160,
		.ts_tid_pthread = 0,
		.ts_next = 8,
		.ts_frame = 56,
		.cf_frame = 8,
		.fr_previous = 48,
		.fr_code = 32,
		.fr_owner = 69,
		.fr_instr = 56,
		.fr_is_entry = 68,
		.owner_cstack = -1,
		.co_name = 128,
		.co_filename = 112,
		.co_firstlineno = 72,
		.co_linetable = 136,
		.co_code = 184,
		.fr_lasti = -1,
		.bytes_size = 16,
		.bytes_data = 32,
		.uni_length = 16,
		.uni_state = 32,
		.uni_ascii_size = 48,
		.uni_compact_size = 72,
		.uni_kind = 0x1c,
		.uni_compact = 0x20,
		.uni_ascii = 0x40,
		.uni_ready = 0x80,
	},
	{	/* 3.12.1, from its headers by scripts/py-offsets.sh */
		.minor = 12,
		.rt_interp_head = 40,
		.is_next = 0,
		.is_threads_head = 72,
		.ts_tid = 144,
		.ts_tid_pthread = 0,
		.ts_next = 8,
		.ts_frame = 56,
		.cf_frame = 0,
		.fr_previous = 8,
		.fr_code = 0,
		.fr_owner = 70,
		.fr_instr = 56,
		.fr_is_entry = -1,
		.owner_cstack = 3,
		.co_name = 128,
		.co_filename = 112,
		.co_firstlineno = 68,
		.co_linetable = 136,
		.co_code = 192,
		.fr_lasti = -1,
		.bytes_size = 16,
		.bytes_data = 32,
		.uni_length = 16,
		.uni_state = 32,
		.uni_ascii_size = 40,
		.uni_compact_size = 56,
		.uni_kind = 0x1c,
		.uni_compact = 0x20,
		.uni_ascii = 0x40,
		.uni_ready = 0,
	},
	{	/* 3.13.0, from its headers by scripts/py-offsets.sh */
		.minor = 13,
		.rt_interp_head = 632,
		.is_next = 7264,
		.is_threads_head = 7344,
		.ts_tid = 160,
		.ts_tid_pthread = 0,
		.ts_next = 8,
		.ts_frame = 72,
		.cf_frame = -1,
		.fr_previous = 8,
		.fr_code = 0,
		.fr_owner = 70,
		.fr_instr = 56,
		.fr_is_entry = -1,
		.owner_cstack = 3,
		.co_name = 128,
		.co_filename = 112,
		.co_firstlineno = 68,
		.co_linetable = 136,
		.co_code = 200,
		.fr_lasti = -1,
		.bytes_size = 16,
		.bytes_data = 32,
		.uni_length = 16,
		.uni_state = 32,
		.uni_ascii_size = 40,
		.uni_compact_size = 56,
		.uni_kind = 0x1c,
		.uni_compact = 0x20,
		.uni_ascii = 0x40,
		.uni_ready = 0,
	},
/* END py-offsets.sh */
};

const struct pf_py_layout *
pf_py_layout(int minor)
{
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].minor == minor)
			return &layouts[i];
	errno = ENOTSUP;
	return NULL;
}

/* ELF: the file's symbols and data, through libelf as fpcheck.c reads. */

/* The symbol name in the dynamic symbol table, else the static one. */
static bool
find_sym(Elf *elf, const char *name, GElf_Sym *out)
{
	static const Elf64_Word types[] = { SHT_DYNSYM, SHT_SYMTAB };
	size_t t;

	for (t = 0; t < 2; t++) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;

		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			Elf_Data *d;
			size_t i, n;

			if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != types[t] ||
			    sh.sh_entsize == 0 || (d = elf_getdata(scn, NULL)) == NULL)
				continue;
			n = sh.sh_size / sh.sh_entsize;
			for (i = 0; i < n && i <= INT_MAX; i++) {
				GElf_Sym s;
				const char *sn;

				if (gelf_getsym(d, (int)i, &s) == NULL || s.st_shndx == SHN_UNDEF ||
				    (sn = elf_strptr(elf, sh.sh_link, s.st_name)) == NULL)
					continue;
				if (strcmp(sn, name) == 0) {
					*out = s;
					return true;
				}
			}
		}
	}
	return false;
}

/* len bytes of the file's data at its address va (in a section with contents), into buf. */
static bool
read_vaddr(Elf *elf, uint64_t va, void *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type == SHT_NOBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || va < sh.sh_addr || va - sh.sh_addr > sh.sh_size ||
		    len > sh.sh_size - (va - sh.sh_addr))
			continue;
		if ((d = elf_rawdata(scn, NULL)) == NULL || d->d_buf == NULL ||
		    va - sh.sh_addr > d->d_size || len > d->d_size - (va - sh.sh_addr))
			return false;
		memcpy(buf, (const char *)d->d_buf + (va - sh.sh_addr), len);
		return true;
	}
	return false;
}

/* A 32-bit word of the file's data in its byte order. */
static uint32_t
word32(Elf *elf, const unsigned char *p)
{
	const char *id = elf_getident(elf, NULL);

	if (id != NULL && id[EI_DATA] == ELFDATA2MSB)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/*
 * s starts with prefix, then the minor version (one or two digits, no
 * leading zero), an optional ABI flag 'd' or 'm', then rest: the minor
 * version, or -1.
 */
static int
name_minor(const char *s, const char *prefix, const char *rest)
{
	size_t pl = strlen(prefix);
	int minor = 0, digits = 0;

	if (strncmp(s, prefix, pl) != 0)
		return -1;
	s += pl;
	if (*s == '0')
		return -1;
	while (*s >= '0' && *s <= '9' && digits < 2) {
		minor = minor * 10 + (*s++ - '0');
		digits++;
	}
	if (digits == 0)
		return -1;
	if (*s == 'd' || *s == 'm')
		s++;
	if (rest == NULL ? *s != '\0' : strncmp(s, rest, strlen(rest)) != 0)
		return -1;
	return minor;
}

/* The DT_SONAME of the file, or NULL. */
static const char *
soname(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *d;
		size_t i, n;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_DYNAMIC ||
		    sh.sh_entsize == 0 || (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n && i <= INT_MAX; i++) {
			GElf_Dyn dyn;

			if (gelf_getdyn(d, (int)i, &dyn) == NULL || dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == DT_SONAME)
				return elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
		}
	}
	return NULL;
}

int
pf_py_elf_probe(int fd, const char *name, struct pf_py_elf *e)
{
	Elf *elf;
	GElf_Sym s;
	GElf_Phdr ph;
	size_t nph, i;
	unsigned char w[8];
	const char *so, *base, *id;
	int minor;
	bool msb;

	memset(e, 0, sizeof(*e));
	(void)elf_version(EV_CURRENT);
	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		errno = EINVAL;
		return -1;
	}
	msb = (id = elf_getident(elf, NULL)) != NULL && id[EI_DATA] == ELFDATA2MSB;
	if (!find_sym(elf, "_PyRuntime", &s)) {
		elf_end(elf);
		errno = ENOENT;
		return -1;
	}
	e->runtime = s.st_value;
	if (find_sym(elf, "_PyEval_EvalFrameDefault", &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC) {
		e->eval = s.st_value;
		e->eval_size = s.st_size;
	}
	if (elf_getphdrnum(elf, &nph) == 0)
		for (i = 0; i < nph && i <= INT_MAX; i++)
			if (gelf_getphdr(elf, (int)i, &ph) != NULL && ph.p_type == PT_LOAD) {
				e->vaddr0 = (ph.p_vaddr - ph.p_offset) & ~(uint64_t)0xfff;
				break;
			}
	/* An unsigned long: its low 32 bits, in the file's byte order. */
	if (find_sym(elf, "Py_Version", &s) && (s.st_size == 4 || s.st_size == 8) &&
	    read_vaddr(elf, s.st_value, w, s.st_size) &&
	    (s.st_size == 4 || word32(elf, msb ? w : w + 4) == 0)) {
		e->hexversion = word32(elf, s.st_size == 8 && msb ? w + 4 : w);
		e->major = (int)(e->hexversion >> 24);
		e->minor = (int)(e->hexversion >> 16 & 0xff);
		e->from = PF_PY_VER_PY_VERSION;
	} else if ((so = soname(elf)) != NULL) {
		if ((minor = name_minor(so, "libpython3.", ".so")) >= 0) {
			e->major = 3;
			e->minor = minor;
			e->from = PF_PY_VER_SONAME;
		}
	} else if (name != NULL) {
		base = strrchr(name, '/') != NULL ? strrchr(name, '/') + 1 : name;
		if ((minor = name_minor(base, "python3.", NULL)) >= 0) {
			e->major = 3;
			e->minor = minor;
			e->from = PF_PY_VER_FILENAME;
		}
	}
	if (e->from != PF_PY_VER_PY_VERSION && e->from != PF_PY_VER_NONE)
		e->hexversion = (uint32_t)e->major << 24 | (uint32_t)e->minor << 16;
	elf_end(elf);
	return 0;
}

int
pf_py_elf_pthread_tid(int fd, uint32_t *off)
{
	Elf *elf;
	GElf_Sym s;
	unsigned char w[12];
	int rc = -1;

	(void)elf_version(EV_CURRENT);
	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) == NULL || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		errno = EINVAL;
		return -1;
	}
	if (!find_sym(elf, "_thread_db_pthread_tid", &s))
		errno = ENOENT;
	else if (s.st_size != 12 || !read_vaddr(elf, s.st_value, w, 12) ||
	    word32(elf, w) != 32 || word32(elf, w + 4) != 1 || word32(elf, w + 8) > 65536 - 4)
		errno = EPROTO;
	else {
		*off = word32(elf, w + 8);
		rc = 0;
	}
	elf_end(elf);
	return rc;
}

/* Memory: everything below reads the target through py->read only. */

/* The size of 3.13's _Py_DebugOffsets, and where it keeps what is read. */
#define DBG_SIZE		584
#define DBG_VERSION		8
#define DBG_FREE_THREADED	16
#define DBG_RT_SIZE		24
#define DBG_RT_INTERP_HEAD	40
#define DBG_IS_SIZE		48
#define DBG_IS_NEXT		64
#define DBG_IS_THREADS_HEAD	72
#define DBG_TS_SIZE		152
#define DBG_TS_NEXT		168
#define DBG_TS_CURRENT_FRAME	184
#define DBG_TS_NATIVE_TID	200
#define DBG_FR_SIZE		224
#define DBG_FR_PREVIOUS		232
#define DBG_FR_EXECUTABLE	240
#define DBG_FR_INSTR_PTR	248
#define DBG_FR_OWNER		264
#define DBG_CO_SIZE		272
#define DBG_CO_FILENAME		280
#define DBG_CO_QUALNAME		296
#define DBG_CO_LINETABLE	304
#define DBG_CO_FIRSTLINENO	312
#define DBG_CO_CODE_ADAPTIVE	344
#define DBG_UNI_SIZE		536
#define DBG_UNI_STATE		544
#define DBG_UNI_LENGTH		552
#define DBG_UNI_ASCII_SIZE	560
/* No structure the walk reads is near this large: a larger size is not 3.13's. */
#define DBG_STRUCT_MAX		(1u << 20)

static uint64_t
dbg_word(const unsigned char *d, size_t at)
{
	uint64_t v;

	memcpy(&v, d + at, sizeof(v));
	return v;
}

/* Field at fat of the structure whose size is at sat: in it (8 bytes), or false. */
static bool
dbg_field(const unsigned char *d, size_t sat, size_t fat, int64_t *out)
{
	uint64_t size = dbg_word(d, sat), off = dbg_word(d, fat);

	if (size > DBG_STRUCT_MAX || off > size || size - off < 8) {
		return false;
	}
	*out = (int64_t)off;
	return true;
}

/* 3.13: the runtime's debug offsets over the table's row. */
static int
init_debug_offsets(struct pf_py *py)
{
	unsigned char d[DBG_SIZE];
	struct pf_py_layout *l = &py->lay;
	uint64_t v, asz;
	int64_t compact_extra = l->uni_compact_size - l->uni_ascii_size;

	if (py->read(py->ctx, py->runtime, d, sizeof(d)) != 0) {
		errno = EIO;
		return -1;
	}
	v = dbg_word(d, DBG_VERSION);
	if (memcmp(d, "xdebugpy", 8) != 0 || (v >> 24) != 3 || (v >> 16 & 0xff) != 13) {
		errno = EPROTO;
		return -1;
	}
	if (dbg_word(d, DBG_FREE_THREADED) != 0) {
		errno = ENOTSUP;
		return -1;
	}
	asz = dbg_word(d, DBG_UNI_ASCII_SIZE);
	if (!dbg_field(d, DBG_RT_SIZE, DBG_RT_INTERP_HEAD, &l->rt_interp_head) ||
	    !dbg_field(d, DBG_IS_SIZE, DBG_IS_NEXT, &l->is_next) ||
	    !dbg_field(d, DBG_IS_SIZE, DBG_IS_THREADS_HEAD, &l->is_threads_head) ||
	    !dbg_field(d, DBG_TS_SIZE, DBG_TS_NEXT, &l->ts_next) ||
	    !dbg_field(d, DBG_TS_SIZE, DBG_TS_CURRENT_FRAME, &l->ts_frame) ||
	    !dbg_field(d, DBG_TS_SIZE, DBG_TS_NATIVE_TID, &l->ts_tid) ||
	    !dbg_field(d, DBG_FR_SIZE, DBG_FR_PREVIOUS, &l->fr_previous) ||
	    !dbg_field(d, DBG_FR_SIZE, DBG_FR_EXECUTABLE, &l->fr_code) ||
	    !dbg_field(d, DBG_FR_SIZE, DBG_FR_OWNER, &l->fr_owner) ||
	    !dbg_field(d, DBG_FR_SIZE, DBG_FR_INSTR_PTR, &l->fr_instr) ||
	    !dbg_field(d, DBG_CO_SIZE, DBG_CO_FILENAME, &l->co_filename) ||
	    !dbg_field(d, DBG_CO_SIZE, DBG_CO_QUALNAME, &l->co_name) ||
	    !dbg_field(d, DBG_CO_SIZE, DBG_CO_FIRSTLINENO, &l->co_firstlineno) ||
	    !dbg_field(d, DBG_CO_SIZE, DBG_CO_LINETABLE, &l->co_linetable) ||
	    !dbg_field(d, DBG_CO_SIZE, DBG_CO_CODE_ADAPTIVE, &l->co_code) ||
	    !dbg_field(d, DBG_UNI_SIZE, DBG_UNI_STATE, &l->uni_state) ||
	    !dbg_field(d, DBG_UNI_SIZE, DBG_UNI_LENGTH, &l->uni_length) ||
	    asz > DBG_STRUCT_MAX) {
		errno = EPROTO;
		return -1;
	}
	/*
	 * The debug offsets say where a compact ASCII string's data starts,
	 * not another compact string's: that is the table's distance past
	 * it (utf8_length and utf8, in 3.12 and 3.13).
	 */
	l->uni_ascii_size = (int64_t)asz;
	l->uni_compact_size = (int64_t)asz + compact_extra;
	return 0;
}

int
pf_py_init(struct pf_py *py, int minor, uint64_t runtime, uint32_t tid_off,
    pf_py_read_fn read, void *ctx)
{
	const struct pf_py_layout *l;

	memset(py, 0, sizeof(*py));
	if ((l = pf_py_layout(minor)) == NULL)
		return -1;
	if (l->ts_tid_pthread && tid_off == 0) {
		errno = EINVAL;
		return -1;
	}
	py->read = read;
	py->ctx = ctx;
	py->runtime = runtime;
	py->tid_off = tid_off;
	py->lay = *l;
	if (minor >= 13)
		return init_debug_offsets(py);
	return 0;
}

static bool
rd_ptr(const struct pf_py *py, uint64_t base, int64_t off, uint64_t *out)
{
	return py->read(py->ctx, base + (uint64_t)off, out, sizeof(*out)) == 0;
}

static bool
rd_u8(const struct pf_py *py, uint64_t base, int64_t off, unsigned char *out)
{
	return py->read(py->ctx, base + (uint64_t)off, out, 1) == 0;
}

static bool
seen(const uint64_t *a, size_t n, uint64_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] == v)
			return true;
	return false;
}

/* The native thread id of the thread state at ts, or 0. */
static uint32_t
thread_tid(const struct pf_py *py, uint64_t ts)
{
	uint64_t v;
	uint32_t tid;

	if (!rd_ptr(py, ts, py->lay.ts_tid, &v))
		return 0;
	if (!py->lay.ts_tid_pthread)
		return v <= UINT32_MAX ? (uint32_t)v : 0;
	if (v == 0 || py->read(py->ctx, v + py->tid_off, &tid, sizeof(tid)) != 0)
		return 0;
	return tid;
}

/*
 * Each thread state of each interpreter to fn, until fn returns true
 * (found) or the lists end: the PF_PY_END_* of the walk.
 */
static int
walk_threads(const struct pf_py *py, bool (*fn)(void *arg, uint64_t ts, uint32_t tid),
    void *arg)
{
	uint64_t interps[PF_PY_INTERPS_MAX], threads[PF_PY_THREADS_MAX], is, ts;
	size_t ni = 0, nt = 0;

	if (!rd_ptr(py, py->runtime, py->lay.rt_interp_head, &is))
		return PF_PY_END_READ;
	while (is != 0) {
		if (seen(interps, ni, is))
			return PF_PY_END_LOOP;
		if (ni == PF_PY_INTERPS_MAX)
			return PF_PY_END_DEPTH;
		interps[ni++] = is;
		if (!rd_ptr(py, is, py->lay.is_threads_head, &ts))
			return PF_PY_END_READ;
		while (ts != 0) {
			if (seen(threads, nt, ts))
				return PF_PY_END_LOOP;
			if (nt == PF_PY_THREADS_MAX)
				return PF_PY_END_DEPTH;
			threads[nt++] = ts;
			if (fn(arg, ts, thread_tid(py, ts)))
				return PF_PY_END_DONE;
			if (!rd_ptr(py, ts, py->lay.ts_next, &ts))
				return PF_PY_END_READ;
		}
		if (!rd_ptr(py, is, py->lay.is_next, &is))
			return PF_PY_END_READ;
	}
	return PF_PY_END_DONE;
}

struct collect {
	struct pf_py_thread *t;
	size_t max, n;
	bool over;
};

static bool
collect_one(void *arg, uint64_t ts, uint32_t tid)
{
	struct collect *c = arg;

	if (c->n == c->max) {
		c->over = true;
		return true;
	}
	c->t[c->n].tstate = ts;
	c->t[c->n].tid = tid;
	c->n++;
	return false;
}

int
pf_py_threads(const struct pf_py *py, struct pf_py_thread *t, size_t max, size_t *n, int *end)
{
	struct collect c = { t, max < PF_PY_THREADS_MAX ? max : PF_PY_THREADS_MAX, 0, false };

	*end = walk_threads(py, collect_one, &c);
	if (c.over)
		*end = PF_PY_END_DEPTH;
	*n = c.n;
	return 0;
}

struct findtid {
	uint32_t tid;
	uint64_t ts;
	bool found;
};

static bool
find_one(void *arg, uint64_t ts, uint32_t tid)
{
	struct findtid *f = arg;

	if (tid != f->tid || tid == 0)
		return false;
	f->ts = ts;
	f->found = true;
	return true;
}

int
pf_py_find_thread(const struct pf_py *py, uint32_t tid, uint64_t *tstate)
{
	struct findtid f = { tid, 0, false };

	(void)walk_threads(py, find_one, &f);
	if (!f.found) {
		errno = ENOENT;
		return -1;
	}
	*tstate = f.ts;
	return 0;
}

static const char *const markers[] = {
	[PF_PY_NAME_LONG] = "[name too long]",
	[PF_PY_NAME_UNREADABLE] = "[unreadable]",
	[PF_PY_NAME_NOTSTR] = "[not a string]",
};

static void
mark(char *out, size_t *outlen, unsigned char *st, unsigned char why)
{
	*st = why;
	*outlen = strlen(markers[why]);
	memcpy(out, markers[why], *outlen + 1);
}

/* Code point c as UTF-8 at out + *len, within PF_PY_NAME_MAX: false when it does not fit. */
static bool
put_utf8(char *out, size_t *len, uint32_t c, bool *marked)
{
	unsigned char u[4];
	size_t k;

	if ((c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff) {
		c = '?';
		*marked = true;
	}
	if (c < 0x80) {
		u[0] = (unsigned char)c;
		k = 1;
	} else if (c < 0x800) {
		u[0] = (unsigned char)(0xc0 | c >> 6);
		u[1] = (unsigned char)(0x80 | (c & 0x3f));
		k = 2;
	} else if (c < 0x10000) {
		u[0] = (unsigned char)(0xe0 | c >> 12);
		u[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
		u[2] = (unsigned char)(0x80 | (c & 0x3f));
		k = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | c >> 18);
		u[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f));
		u[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
		u[3] = (unsigned char)(0x80 | (c & 0x3f));
		k = 4;
	}
	if (PF_PY_NAME_MAX - *len < k)
		return false;
	memcpy(out + *len, u, k);
	*len += k;
	return true;
}

/*
 * The str at obj as UTF-8 into out (PF_PY_NAME_MAX + 1 bytes), or its
 * marker: compact strings only (every name a code object holds is one),
 * read at most PF_PY_NAME_MAX characters of at most 4 bytes.
 */
static void
get_str(const struct pf_py *py, uint64_t obj, char *out, size_t *outlen, unsigned char *st)
{
	const struct pf_py_layout *l = &py->lay;
	unsigned char raw[4 * PF_PY_NAME_MAX];
	int64_t length;
	uint32_t state, kind;
	size_t i, len = 0;
	bool ascii, marked = false;

	if (obj == 0 || py->read(py->ctx, obj + (uint64_t)l->uni_length, &length, sizeof(length)) != 0 ||
	    py->read(py->ctx, obj + (uint64_t)l->uni_state, &state, sizeof(state)) != 0) {
		mark(out, outlen, st, PF_PY_NAME_UNREADABLE);
		return;
	}
	kind = (state & l->uni_kind) >> __builtin_ctz(l->uni_kind);
	ascii = (state & l->uni_ascii) != 0;
	if ((l->uni_ready != 0 && !(state & l->uni_ready)) || !(state & l->uni_compact) ||
	    (kind != 1 && kind != 2 && kind != 4) || (ascii && kind != 1) || length < 0) {
		mark(out, outlen, st, PF_PY_NAME_NOTSTR);
		return;
	}
	if (length > PF_PY_NAME_MAX) {
		mark(out, outlen, st, PF_PY_NAME_LONG);
		return;
	}
	if (length > 0 && py->read(py->ctx, obj + (uint64_t)(ascii ? l->uni_ascii_size :
	    l->uni_compact_size), raw, (size_t)length * kind) != 0) {
		mark(out, outlen, st, PF_PY_NAME_UNREADABLE);
		return;
	}
	for (i = 0; i < (size_t)length; i++) {
		uint32_t c;

		if (kind == 1)
			c = raw[i];
		else if (kind == 2)
			c = (uint32_t)raw[2 * i] | (uint32_t)raw[2 * i + 1] << 8;
		else
			c = (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
			    (uint32_t)raw[4 * i + 2] << 16 | (uint32_t)raw[4 * i + 3] << 24;
		if (ascii && c >= 0x80) {
			c = '?';
			marked = true;
		}
		if (!put_utf8(out, &len, c, &marked)) {
			mark(out, outlen, st, PF_PY_NAME_LONG);
			return;
		}
	}
	out[len] = '\0';
	*outlen = len;
	*st = marked ? PF_PY_NAME_MARKED : PF_PY_NAME_OK;
}

/* The frame's code object: its name and file objects and first line into f, and their names. */
static void
frame_code(const struct pf_py *py, uint64_t code, struct pf_py_frame *f)
{
	uint64_t name = 0, file = 0;
	int32_t line;

	f->code = code;
	f->firstline = 0;
	if (code != 0 && py->read(py->ctx, code + (uint64_t)py->lay.co_firstlineno, &line,
	    sizeof(line)) == 0)
		f->firstline = line;
	if (code == 0 || !rd_ptr(py, code, py->lay.co_name, &name))
		name = 0;
	if (code == 0 || !rd_ptr(py, code, py->lay.co_filename, &file))
		file = 0;
	f->name_obj = name;
	f->file_obj = file;
	if (py->lazy_names) {
		f->name[0] = f->file[0] = '\0';
		f->namelen = f->filelen = 0;
		f->name_st = f->file_st = PF_PY_NAME_UNREADABLE;
		return;
	}
	pf_py_frame_names(py, f);
}

/*
 * Where in its code frame fr (f, its code read) is, in bytes: 3.11+ from
 * its instruction pointer and its code's first instruction (one code
 * unit before it, -2, before its first), 3.10 from f_lasti in
 * instructions, 3.9 from f_lasti in bytes (-1 before the first).
 */
static int64_t
frame_lasti(const struct pf_py *py, uint64_t fr, const struct pf_py_frame *f)
{
	const struct pf_py_layout *l = &py->lay;
	uint64_t start;
	int32_t v;

	if (l->co_code >= 0) {
		start = f->code + (uint64_t)l->co_code;
		if (f->code == 0 || f->instr == 0 || f->instr + 2 < start ||
		    f->instr - start + 2 > (uint64_t)INT32_MAX)
			return PF_PY_LASTI_NONE;
		return (int64_t)(f->instr - start);
	}
	if (l->fr_lasti < 0 || py->read(py->ctx, fr + (uint64_t)l->fr_lasti, &v, sizeof(v)) != 0 ||
	    v < -1)
		return PF_PY_LASTI_NONE;
	return l->minor == 10 ? 2 * (int64_t)v : v;
}

int
pf_py_code_linetable(const struct pf_py *py, uint64_t code, unsigned char *buf, size_t *len)
{
	const struct pf_py_layout *l = &py->lay;
	uint64_t obj;
	int64_t n;
	size_t at, k;

	if (code == 0 || !rd_ptr(py, code, l->co_linetable, &obj) || obj == 0 ||
	    py->read(py->ctx, obj + (uint64_t)l->bytes_size, &n, sizeof(n)) != 0 || n < 0) {
		errno = EIO;
		return -1;
	}
	if (n > PF_PY_LINETABLE_MAX) {
		errno = E2BIG;
		return -1;
	}
	/* In reads of at most what the callback takes. */
	for (at = 0; at < (size_t)n; at += k) {
		k = (size_t)n - at < 4 * PF_PY_NAME_MAX ? (size_t)n - at : 4 * PF_PY_NAME_MAX;
		if (py->read(py->ctx, obj + (uint64_t)l->bytes_data + at, buf + at, k) != 0) {
			errno = EIO;
			return -1;
		}
	}
	*len = (size_t)n;
	return 0;
}

/* A line as an int32_t, 0 when none or not one. */
static int32_t
line_of(int64_t line)
{
	return line > 0 && line <= INT32_MAX ? (int32_t)line : 0;
}

/* 3.9's co_lnotab: (address step, signed line step) pairs, a line from where its step lands. */
static int32_t
addr2line_39(const unsigned char *tab, size_t len, int64_t line, int64_t lasti)
{
	int64_t addr = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		addr += tab[i];
		if (addr > lasti)
			break;
		line += (signed char)tab[i + 1];
	}
	return line_of(line);
}

/*
 * 3.10's co_linetable: (length, signed line step) pairs, each a range of
 * addresses after the last, -128 its having no line; an empty range
 * still steps the line.
 */
static int32_t
addr2line_310(const unsigned char *tab, size_t len, int64_t line, int64_t lasti)
{
	int64_t start = 0, end;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		signed char step = (signed char)tab[i + 1];

		end = start + tab[i];
		if (step != -128)
			line += step;
		if (lasti >= start && lasti < end)
			return step == -128 ? 0 : line_of(line);
		start = end;
	}
	return 0;
}

/* A location table's varint at *i (6 bits a byte, 0x40 for more), within len. */
static uint64_t
varint(const unsigned char *tab, size_t len, size_t *i)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (*i < len) {
		unsigned char b = tab[(*i)++];

		if (shift < 60)
			v |= (uint64_t)(b & 63) << shift;
		shift += 6;
		if (!(b & 64))
			break;
	}
	return v;
}

/*
 * 3.11+'s location table: entries of a first byte with its top bit set
 * (bits 3-6 the kind, 0-2 the length in code units less one), then the
 * kind's bytes, none with the top bit; the line steps by 0 (kinds 0-9,
 * a short form), by the kind less 10 (10-12), by a signed varint (13,
 * 14), or the entry has no line (15).
 */
static int32_t
addr2line_311(const unsigned char *tab, size_t len, int64_t line, int64_t lasti)
{
	int64_t addr = 0;
	size_t i = 0;

	while (i < len) {
		unsigned char b = tab[i++];
		unsigned kind = b >> 3 & 15;
		int64_t step = 0;

		if (!(b & 0x80))
			return 0;
		if (kind == 13 || kind == 14) {
			uint64_t u = varint(tab, len, &i);

			step = (u & 1) ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
		} else if (kind >= 10 && kind <= 12)
			step = kind - 10;
		if (kind != 15) {
			line += step;
			/* Out of belief: no line from here on. */
			if (line < INT32_MIN || line > INT32_MAX)
				return 0;
		}
		if (lasti >= addr && lasti < addr + 2 * ((b & 7) + 1))
			return kind == 15 ? 0 : line_of(line);
		addr += 2 * ((b & 7) + 1);
		/* The entry's other bytes. */
		while (i < len && !(tab[i] & 0x80))
			i++;
	}
	return 0;
}

int32_t
pf_py_addr2line(int minor, const unsigned char *tab, size_t len, int32_t firstline, int64_t lasti)
{
	if (lasti == PF_PY_LASTI_NONE)
		return 0;
	if (lasti < 0)
		return line_of(firstline);
	if (minor <= 9)
		return addr2line_39(tab, len, firstline, lasti);
	if (minor == 10)
		return addr2line_310(tab, len, firstline, lasti);
	return addr2line_311(tab, len, firstline, lasti);
}

void
pf_py_frame_names(const struct pf_py *py, struct pf_py_frame *f)
{
	get_str(py, f->name_obj, f->name, &f->namelen, &f->name_st);
	get_str(py, f->file_obj, f->file, &f->filelen, &f->file_st);
}

uint32_t
pf_py_tstate_tid(const struct pf_py *py, uint64_t tstate)
{
	return thread_tid(py, tstate);
}

int
pf_py_thread_frames(const struct pf_py *py, uint64_t tstate, struct pf_py_stack *st)
{
	const struct pf_py_layout *l = &py->lay;
	uint64_t visited[2 * PF_PY_FRAMES_MAX], fr, cf, code, prev;
	size_t nv = 0;

	st->n = 0;
	st->end = PF_PY_END_READ;
	if (l->cf_frame >= 0) {
		if (!rd_ptr(py, tstate, l->ts_frame, &cf) || cf == 0 ||
		    !rd_ptr(py, cf, l->cf_frame, &fr))
			return 0;
	} else if (!rd_ptr(py, tstate, l->ts_frame, &fr))
		return 0;
	st->end = PF_PY_END_DONE;
	while (fr != 0) {
		struct pf_py_frame *f;
		unsigned char owner = 0, entry = 0;

		if (seen(visited, nv, fr)) {
			st->end = PF_PY_END_LOOP;
			break;
		}
		if (nv == sizeof(visited) / sizeof(visited[0])) {
			st->end = PF_PY_END_DEPTH;
			break;
		}
		visited[nv++] = fr;
		if (!rd_ptr(py, fr, l->fr_code, &code) || !rd_ptr(py, fr, l->fr_previous, &prev) ||
		    (l->fr_owner >= 0 && !rd_u8(py, fr, l->fr_owner, &owner)) ||
		    (l->fr_is_entry >= 0 && !rd_u8(py, fr, l->fr_is_entry, &entry))) {
			st->end = PF_PY_END_READ;
			break;
		}
		if (l->owner_cstack >= 0 && owner == l->owner_cstack) {
			/* A shim: _PyEval_EvalFrameDefault's own, below the frame it ran first. */
			if (st->n > 0)
				st->frame[st->n - 1].entry = true;
			fr = prev;
			continue;
		}
		if (st->n == PF_PY_FRAMES_MAX) {
			st->end = PF_PY_END_DEPTH;
			break;
		}
		f = &st->frame[st->n++];
		f->addr = fr;
		f->instr = 0;
		if (l->fr_instr >= 0 && !rd_ptr(py, fr, l->fr_instr, &f->instr))
			f->instr = 0;
		/* Before 3.11 each Python call is a call of the C evaluator. */
		f->entry = l->minor < 11 || entry != 0;
		frame_code(py, code, f);
		f->lasti = frame_lasti(py, fr, f);
		fr = prev;
	}
	return 0;
}
