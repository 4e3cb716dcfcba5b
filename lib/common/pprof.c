/*
 * pprof: the profile.proto encoder and the profile builder.
 *
 * Everything pprof numbers (strings, functions, mappings, locations,
 * samples) is interned in the one interning table (intern.h): a key is a
 * byte string, numbered in order of first sight.  pprof's ids are
 * those numbers plus one, 0 meaning "none"; string 0 is "" as the format
 * requires.  Identical samples (same locations, same labels) merge, so
 * memory grows with the distinct stacks, as pf-fold's folded output does.
 * The stream's text is perfscript's to read: samples arrive parsed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "grow.h"
#include "intern.h"
#include "parse.h"
#include "pf.h"
#include "pprof.h"

/* profile.proto field numbers. */
enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE, P_MAPPING, P_LOCATION, P_FUNCTION, P_STRING_TABLE,
	P_TIME_NANOS = 9, P_DURATION_NANOS, P_PERIOD_TYPE, P_PERIOD, P_COMMENT,
	P_DEFAULT_SAMPLE_TYPE
};

struct sample_val {
	uint64_t count, weight;
};

struct pf_pprof {
	struct pf_intern strings, functions, mappings, locations, samples;
	struct sample_val *vals;	/* per sample entry */
	size_t valcap;
	uint64_t total_weight, total_count;
	/* Header facts. */
	uint64_t comments[16];
	size_t ncomments;
	uint64_t time_ns, duration_ns, period_ns;
	uint64_t first_ns, last_ns;
	bool seen_time;
	bool cut_short;		/* the trailer's stop= is not the window's end */
	struct pf_buf key, tmp, msg;
};

/* The number of key p[0, len) in t, new keys numbered in order.  -1 on ENOMEM. */
static ssize_t
number(struct pf_intern *t, const void *p, size_t len)
{
	uint32_t id;

	if (pf_intern_add(t, p, len, &id) == -1)
		return -1;
	return (ssize_t)id;
}

int
pf_pb_varint(struct pf_buf *b, uint64_t v)
{
	char tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v != 0);
	return pf_buf_append(b, tmp, n);
}

int
pf_pb_uint(struct pf_buf *b, unsigned field, uint64_t v)
{
	if (pf_pb_varint(b, (uint64_t)field << 3) == -1)
		return -1;
	return pf_pb_varint(b, v);
}

int
pf_pb_bytes(struct pf_buf *b, unsigned field, const void *p, size_t n)
{
	if (pf_pb_varint(b, (uint64_t)field << 3 | 2) == -1 || pf_pb_varint(b, n) == -1)
		return -1;
	return n == 0 ? 0 : pf_buf_append(b, p, n);
}

int
pf_pb_packed(struct pf_buf *b, struct pf_buf *tmp, unsigned field, const uint64_t *v, size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	pf_buf_reset(tmp);
	for (i = 0; i < n; i++)
		if (pf_pb_varint(tmp, v[i]) == -1)
			return -1;
	return pf_pb_bytes(b, field, tmp->data, tmp->len);
}

struct pf_pprof *
pf_pprof_new(void)
{
	struct pf_pprof *pp;

	if ((pp = calloc(1, sizeof(*pp))) == NULL)
		return NULL;
	if (pf_intern_init(&pp->strings, 32) == -1 || pf_intern_init(&pp->functions, 32) == -1 ||
	    pf_intern_init(&pp->mappings, 32) == -1 || pf_intern_init(&pp->locations, 32) == -1 ||
	    pf_intern_init(&pp->samples, 32) == -1 || number(&pp->strings, "", 0) == -1) {
		pf_pprof_free(pp);
		errno = ENOMEM;
		return NULL;
	}
	return pp;
}

void
pf_pprof_free(struct pf_pprof *pp)
{
	if (pp == NULL)
		return;
	pf_intern_free(&pp->strings);
	pf_intern_free(&pp->functions);
	pf_intern_free(&pp->mappings);
	pf_intern_free(&pp->locations);
	pf_intern_free(&pp->samples);
	free(pp->vals);
	pf_buf_free(&pp->key);
	pf_buf_free(&pp->tmp);
	pf_buf_free(&pp->msg);
	free(pp);
}

size_t
pf_pprof_nsamples(const struct pf_pprof *pp)
{
	return pf_intern_count(&pp->samples);
}

static ssize_t
str(struct pf_pprof *pp, const char *s, size_t n)
{
	return number(&pp->strings, s, n);
}

/* "YYYY-MM-DDTHH:MM:SSZ" to nanoseconds since the epoch; false if not that. */
static bool
utc_ns(const char *s, size_t n, uint64_t *out)
{
	struct tm tm = { 0 };
	char buf[32], z;
	time_t t;

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (sscanf(buf, "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
	    &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &z) != 7 || z != 'Z')
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	if ((t = timegm(&tm)) == (time_t)-1 || t < 0)
		return false;
	*out = (uint64_t)t * 1000000000ULL;
	return true;
}

/* The value of " name=" in l, or NULL. */
static const char *
field(const char *l, size_t n, const char *name, size_t *vlen)
{
	size_t k = strlen(name), i;

	for (i = 0; i + k < n; i++) {
		if ((i == 0 || l[i - 1] == ' ') && memcmp(l + i, name, k) == 0 && l[i + k] == '=') {
			const char *v = l + i + k + 1, *e = memchr(v, ' ', (size_t)(l + n - v));

			*vlen = e != NULL ? (size_t)(e - v) : (size_t)(l + n - v);
			return v;
		}
	}
	return NULL;
}

int
pf_pprof_comment(struct pf_pprof *pp, const char *l, size_t n)
{
	const char *v;
	size_t vlen;
	ssize_t s;
	uint64_t x;
	char num[32];

	if (n < 11 || (memcmp(l, "# pf-record", 11) != 0 && memcmp(l, "# pf-offcpu", 11) != 0))
		return 0;
	if (pp->ncomments < PF_ARRAY_LEN(pp->comments)) {
		if ((s = str(pp, l + 2, n - 2)) == -1)
			return -1;
		pp->comments[pp->ncomments++] = (uint64_t)s;
	}
	if ((v = field(l, n, "start", &vlen)) != NULL && utc_ns(v, vlen, &x))
		pp->time_ns = x;
	if ((v = field(l, n, "freq", &vlen)) != NULL && pf_parse_u64_span(v, v + vlen, &x) == 0 &&
	    x >= 1 && x <= 1000000000ULL)
		pp->period_ns = 1000000000ULL / x;
	if ((v = field(l, n, "duration", &vlen)) != NULL && vlen < sizeof(num)) {
		memcpy(num, v, vlen);
		num[vlen] = '\0';
		if (pf_parse_duration(num, 1000000000ULL, 0, UINT64_MAX / 2, &x) == 0)
			pp->duration_ns = x;
	}
	if ((v = field(l, n, "stop", &vlen)) != NULL)
		pp->cut_short = !(vlen == 8 && memcmp(v, "duration", 8) == 0);
	return 0;
}

static int
key_u64(struct pf_buf *b, uint64_t v)
{
	return pf_buf_append(b, &v, sizeof(v));
}

/* The function named name (interned), its number; -1 on ENOMEM. */
static ssize_t
function(struct pf_pprof *pp, const char *name, size_t n)
{
	uint64_t s;
	ssize_t r;

	if ((r = str(pp, name, n)) == -1)
		return -1;
	s = (uint64_t)r;
	return number(&pp->functions, &s, sizeof(s));
}

/*
 * A frame's function name: its symbol, or for an unknown one the module's
 * base name in brackets, as folded stacks name it.
 */
static ssize_t
frame_function(struct pf_pprof *pp, const struct pf_ps_frame *f)
{
	const char *dso = f->module;
	const char *base;
	size_t blen;

	if (f->func_len == 9 && memcmp(f->func, "[unknown]", 9) == 0 && f->module_len > 0 &&
	    dso[0] != '[') {
		base = memrchr(dso, '/', f->module_len);
		base = base != NULL ? base + 1 : dso;
		blen = f->module_len - (size_t)(base - dso);
		pf_buf_reset(&pp->tmp);
		if (pf_buf_putc(&pp->tmp, '[') == -1 || pf_buf_append(&pp->tmp, base, blen) == -1 ||
		    pf_buf_putc(&pp->tmp, ']') == -1)
			return -1;
		return function(pp, pp->tmp.data, pp->tmp.len);
	}
	if (f->func_len == 0)
		return function(pp, "[unknown]", 9);
	return function(pp, f->func, f->func_len);
}

/* The mapping number + 1 of a module, 0 for none or an unknown one. */
static int
mapping(struct pf_pprof *pp, const struct pf_ps_frame *f, uint64_t *id)
{
	ssize_t s, m;
	uint64_t k;

	*id = 0;
	if (f->module_len == 0 || (f->module_len == 9 && memcmp(f->module, "[unknown]", 9) == 0))
		return 0;
	if ((s = str(pp, f->module, f->module_len)) == -1)
		return -1;
	k = (uint64_t)s;
	if ((m = number(&pp->mappings, &k, sizeof(k))) == -1)
		return -1;
	*id = (uint64_t)m + 1;
	return 0;
}

/*
 * The location of frames [a, b]: the inlined frames a..b-1 (innermost
 * first) and the frame b they were inlined into.  Key: mapping, address,
 * then the function of each line.
 */
static ssize_t
location(struct pf_pprof *pp, const struct pf_ps_frame *fr, size_t a, size_t b)
{
	struct pf_buf *k = &pp->tmp;
	uint64_t map;
	ssize_t fn;
	size_t i;

	if (mapping(pp, &fr[b], &map) == -1)
		return -1;
	/* frame_function uses tmp too: the key is built in msg. */
	k = &pp->msg;
	pf_buf_reset(k);
	if (key_u64(k, map) == -1 || key_u64(k, fr[b].addr) == -1)
		return -1;
	for (i = a; i <= b; i++) {
		if ((fn = frame_function(pp, &fr[i])) == -1 || key_u64(k, (uint64_t)fn) == -1)
			return -1;
	}
	return number(&pp->locations, k->data, k->len);
}

static bool
is_inlined(const struct pf_ps_frame *f)
{
	return f->module_len == 7 && memcmp(f->module, "inlined", 7) == 0;
}

int
pf_pprof_add_sample(struct pf_pprof *pp, const struct pf_ps_sample *smp)
{
	const struct pf_ps_frame *fr = smp->frames;
	struct pf_buf *k = &pp->key;
	uint64_t weight = smp->weight;
	ssize_t s, loc;
	size_t i, a;
	uint32_t id;
	int fresh;

	if (weight > INT64_MAX - pp->total_weight || pp->total_count == INT64_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	pf_buf_reset(k);
	if ((s = str(pp, smp->comm, smp->comm_len)) == -1 ||
	    key_u64(k, (uint64_t)s) == -1 || key_u64(k, smp->has_pid != 0) == -1 ||
	    key_u64(k, smp->pid) == -1 || key_u64(k, smp->has_tid != 0) == -1 ||
	    key_u64(k, smp->tid) == -1)
		goto nomem;
	/* An inlined frame is a line of the location of the next frame that is not. */
	for (a = i = 0; i < smp->nframes; i++) {
		if (is_inlined(&fr[i]) && i + 1 < smp->nframes)
			continue;
		if ((loc = location(pp, fr, a, i)) == -1 || key_u64(k, (uint64_t)loc) == -1)
			goto nomem;
		a = i + 1;
	}
	if ((fresh = pf_intern_add(&pp->samples, k->data, k->len, &id)) == -1)
		goto nomem;
	s = (ssize_t)id;
	if (fresh) {
		if (pf_grow(&pp->vals, &pp->valcap, (size_t)s + 1, sizeof(*pp->vals)) == -1)
			goto nomem;
		pp->vals[s] = (struct sample_val){ 0, 0 };
	}
	if (smp->has_time) {
		if (!pp->seen_time || smp->time_ns < pp->first_ns)
			pp->first_ns = smp->time_ns;
		if (!pp->seen_time || smp->time_ns > pp->last_ns)
			pp->last_ns = smp->time_ns;
		pp->seen_time = true;
	}
	pp->vals[s].count++;
	pp->vals[s].weight += weight;
	pp->total_count++;
	pp->total_weight += weight;
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}

static int
value_type(struct pf_pprof *pp, struct pf_buf *out, unsigned fieldno, const char *type,
    const char *unit)
{
	ssize_t t = str(pp, type, strlen(type)), u = str(pp, unit, strlen(unit));

	if (t == -1 || u == -1)
		return -1;
	pf_buf_reset(&pp->tmp);
	if (pf_pb_uint(&pp->tmp, 1, (uint64_t)t) == -1 ||
	    pf_pb_uint(&pp->tmp, 2, (uint64_t)u) == -1)
		return -1;
	return pf_pb_bytes(out, fieldno, pp->tmp.data, pp->tmp.len);
}

static int
label(struct pf_pprof *pp, struct pf_buf *m, const char *key, ssize_t strv, uint64_t num)
{
	struct pf_buf l = { 0 };
	ssize_t k = str(pp, key, strlen(key));
	int rc = -1;

	if (k == -1 || pf_pb_uint(&l, 1, (uint64_t)k) == -1)
		goto out;
	if (strv >= 0 ? pf_pb_uint(&l, 2, (uint64_t)strv) == -1 : pf_pb_uint(&l, 3, num) == -1)
		goto out;
	rc = pf_pb_bytes(m, 3, l.data, l.len);
out:
	pf_buf_free(&l);
	return rc;
}

static int
encode_samples(struct pf_pprof *pp, struct pf_buf *out)
{
	struct pf_buf m = { 0 };
	uint64_t *locs = NULL, vals[2];
	size_t i, j, n, nl, cap = 0;
	const uint64_t *key;
	int rc = -1;

	for (i = 0; i < pf_intern_count(&pp->samples); i++) {
		key = (const uint64_t *)(const void *)pf_intern_key(&pp->samples, (uint32_t)i, &n);
		n /= sizeof(uint64_t);
		/* comm, has_pid, pid, has_tid, tid, then the locations leaf first. */
		nl = n - 5;
		if (pf_grow(&locs, &cap, nl, sizeof(*locs)) == -1)
			goto out;
		for (j = 0; j < nl; j++) {
			uint64_t v;

			memcpy(&v, key + 5 + j, sizeof(v));
			locs[j] = v + 1;
		}
		vals[0] = pp->vals[i].count;
		vals[1] = pp->vals[i].weight;
		pf_buf_reset(&m);
		if (pf_pb_packed(&m, &pp->tmp, 1, locs, nl) == -1 ||
		    pf_pb_packed(&m, &pp->tmp, 2, vals, 2) == -1 ||
		    label(pp, &m, "comm", (ssize_t)key[0], 0) == -1 ||
		    (key[1] && label(pp, &m, "pid", -1, key[2]) == -1) ||
		    (key[3] && label(pp, &m, "tid", -1, key[4]) == -1) ||
		    pf_pb_bytes(out, P_SAMPLE, m.data, m.len) == -1)
			goto out;
	}
	rc = 0;
out:
	free(locs);
	pf_buf_free(&m);
	return rc;
}

static int
encode_tables(struct pf_pprof *pp, struct pf_buf *out)
{
	struct pf_buf m = { 0 }, l = { 0 };
	bool any_inline = false;
	const uint64_t *key;
	size_t i, j, n, main_map;
	int rc = -1;

	for (i = 0; i < pf_intern_count(&pp->locations); i++) {
		key = (const uint64_t *)(const void *)pf_intern_key(&pp->locations, (uint32_t)i, &n);
		n /= sizeof(uint64_t);
		pf_buf_reset(&m);
		if (pf_pb_uint(&m, 1, i + 1) == -1 || (key[0] && pf_pb_uint(&m, 2, key[0]) == -1) ||
		    (key[1] && pf_pb_uint(&m, 3, key[1]) == -1))
			goto out;
		for (j = 2; j < n; j++) {
			pf_buf_reset(&l);
			if (pf_pb_uint(&l, 1, key[j] + 1) == -1 ||
			    pf_pb_bytes(&m, 4, l.data, l.len) == -1)
				goto out;
		}
		any_inline |= n > 3;
		if (pf_pb_bytes(out, P_LOCATION, m.data, m.len) == -1)
			goto out;
	}
	/*
	 * pprof takes the first mapping for the main program and names the
	 * profile after it: the first one that is neither the kernel nor a
	 * shared object goes first.
	 */
	main_map = 0;
	for (i = 0; i < pf_intern_count(&pp->mappings); i++) {
		size_t flen;
		const char *fname;

		key = (const uint64_t *)(const void *)pf_intern_key(&pp->mappings, (uint32_t)i, &n);
		fname = pf_intern_key(&pp->strings, (uint32_t)key[0], &flen);
		if (flen > 0 && fname[0] != '[' && memmem(fname, flen, ".so", 3) == NULL) {
			main_map = i;
			break;
		}
	}
	for (j = 0; j < pf_intern_count(&pp->mappings); j++) {
		i = j == 0 ? main_map : j <= main_map ? j - 1 : j;
		key = (const uint64_t *)(const void *)pf_intern_key(&pp->mappings, (uint32_t)i, &n);
		pf_buf_reset(&m);
		/* Names come with the stream: nothing for pprof to symbolize. */
		if (pf_pb_uint(&m, 1, i + 1) == -1 || pf_pb_uint(&m, 5, key[0]) == -1 ||
		    pf_pb_uint(&m, 7, 1) == -1 || (any_inline && pf_pb_uint(&m, 10, 1) == -1) ||
		    pf_pb_bytes(out, P_MAPPING, m.data, m.len) == -1)
			goto out;
	}
	for (i = 0; i < pf_intern_count(&pp->functions); i++) {
		key = (const uint64_t *)(const void *)pf_intern_key(&pp->functions, (uint32_t)i, &n);
		pf_buf_reset(&m);
		if (pf_pb_uint(&m, 1, i + 1) == -1 || pf_pb_uint(&m, 2, key[0]) == -1 ||
		    pf_pb_uint(&m, 3, key[0]) == -1 ||
		    pf_pb_bytes(out, P_FUNCTION, m.data, m.len) == -1)
			goto out;
	}
	rc = 0;
out:
	pf_buf_free(&m);
	pf_buf_free(&l);
	return rc;
}

int
pf_pprof_encode(struct pf_pprof *pp, const char *event, struct pf_buf *out)
{
	const char *type = "events", *unit = "count";
	char evtype[128];
	ssize_t dst;
	size_t i, n;
	const char *s;

	if (event != NULL && (strncmp(event, "cpu-clock", 9) == 0 ||
	    strncmp(event, "task-clock", 10) == 0)) {
		type = "cpu";
		unit = "nanoseconds";
	} else if (event != NULL && strcmp(event, "offcpu-time") == 0) {
		type = "offcpu";
		unit = "nanoseconds";
	} else if (event != NULL) {
		snprintf(evtype, sizeof(evtype), "%s", event);
		type = evtype;
	}
	/* The samples first: they intern label strings the table must hold. */
	if (value_type(pp, out, P_SAMPLE_TYPE, "samples", "count") == -1 ||
	    value_type(pp, out, P_SAMPLE_TYPE, type, unit) == -1 ||
	    encode_samples(pp, out) == -1 || encode_tables(pp, out) == -1)
		goto nomem;
	if ((dst = str(pp, type, strlen(type))) == -1)
		goto nomem;
	if (pp->period_ns != 0 && strcmp(type, "cpu") == 0) {
		if (value_type(pp, out, P_PERIOD_TYPE, type, unit) == -1 ||
		    pf_pb_uint(out, P_PERIOD, pp->period_ns) == -1)
			goto nomem;
	}
	if (pp->time_ns != 0 && pf_pb_uint(out, P_TIME_NANOS, pp->time_ns) == -1)
		goto nomem;
	/* A window ended early (target exit, a cap) lasted as long as its samples. */
	if ((pp->duration_ns == 0 || pp->cut_short) && pp->seen_time)
		pp->duration_ns = pp->last_ns - pp->first_ns;
	if (pp->duration_ns != 0 && pf_pb_uint(out, P_DURATION_NANOS, pp->duration_ns) == -1)
		goto nomem;
	if (pf_pb_packed(out, &pp->tmp, P_COMMENT, pp->comments, pp->ncomments) == -1 ||
	    pf_pb_uint(out, P_DEFAULT_SAMPLE_TYPE, (uint64_t)dst) == -1)
		goto nomem;
	/* Last, once nothing more is interned. */
	for (i = 0; i < pf_intern_count(&pp->strings); i++) {
		s = pf_intern_key(&pp->strings, (uint32_t)i, &n);
		if (pf_pb_bytes(out, P_STRING_TABLE, s, n) == -1)
			goto nomem;
	}
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}
