/*
 * demangle: recursive-descent parsers for the Itanium C++ ABI mangling
 * (the common subset: nested and local names, templates, substitutions,
 * operators, constructors, special names, clone suffixes) and Rust's
 * legacy and v0 manglings.  Output follows perf's default (libiberty
 * without DMGL_PARAMS): no parameter lists.  Every string lives in a
 * per-call arena, so error paths just unwind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

#define MAX_DEPTH 64
#define MAX_SUBS 128

struct chunk {
	struct chunk *next;
	char s[];
};

struct dm {
	const char *p, *end, *start;
	bool err;
	int depth;
	struct chunk *arena;
	const char *subs[MAX_SUBS];
	int nsubs;
	const char *targs[MAX_SUBS];	/* the current template arguments, for T_ */
	int ntargs;
	const char *last;		/* last unqualified name, for ctors/dtors */
};

static char *
dup_n(struct dm *d, const char *s, size_t n)
{
	struct chunk *c = malloc(sizeof(*c) + n + 1);

	if (c == NULL) {
		d->err = true;
		return NULL;
	}
	memcpy(c->s, s, n);
	c->s[n] = '\0';
	c->next = d->arena;
	d->arena = c;
	return c->s;
}

/* Concatenate NULL-terminated string arguments into the arena. */
static char *
cat(struct dm *d, ...)
{
	va_list ap;
	const char *s;
	size_t n = 0;
	char *r, *q;

	va_start(ap, d);
	while ((s = va_arg(ap, const char *)) != NULL)
		n += strlen(s);
	va_end(ap);
	if ((r = dup_n(d, "", 0)) == NULL)
		return NULL;
	/* Replace the empty chunk just made with one of the right size. */
	{
		struct chunk *c = d->arena, *nc;

		if ((nc = realloc(c, sizeof(*c) + n + 1)) == NULL) {
			d->err = true;
			return NULL;
		}
		d->arena = nc;
		r = nc->s;
	}
	q = r;
	va_start(ap, d);
	while ((s = va_arg(ap, const char *)) != NULL) {
		size_t k = strlen(s);

		memcpy(q, s, k);
		q += k;
	}
	va_end(ap);
	*q = '\0';
	return r;
}

static void
free_arena(struct dm *d)
{
	while (d->arena) {
		struct chunk *c = d->arena;

		d->arena = c->next;
		free(c);
	}
}

static char *
fail(struct dm *d)
{
	d->err = true;
	return NULL;
}

static int
peek(const struct dm *d, size_t i)
{
	return d->p + i < d->end ? (unsigned char)d->p[i] : 0;
}

static bool
eat(struct dm *d, char c)
{
	if (peek(d, 0) == (unsigned char)c) {
		d->p++;
		return true;
	}
	return false;
}

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool
number(struct dm *d, uint64_t *v)
{
	uint64_t n = 0;

	if (!is_digit(peek(d, 0)))
		return false;
	while (is_digit(peek(d, 0))) {
		if (n > UINT64_MAX / 10 - 10)
			return false;
		n = n * 10 + (uint64_t)(*d->p++ - '0');
	}
	*v = n;
	return true;
}

static void
add_sub(struct dm *d, const char *s)
{
	if (s && d->nsubs < MAX_SUBS)
		d->subs[d->nsubs++] = s;
}

/* ------------------------------------------------------------------ */
/* Itanium */

static char *it_type(struct dm *d);
static char *it_name(struct dm *d, bool *is_template);
static char *it_encoding(struct dm *d, bool params);
static char *it_type_body(struct dm *d);
static char *it_name_body(struct dm *d, bool *is_template);

/* Recursion is bounded: a hostile name must not exhaust the stack. */
static char *
it_type(struct dm *d)
{
	char *r;

	if (d->err || ++d->depth > MAX_DEPTH)
		return fail(d);
	r = it_type_body(d);
	d->depth--;
	return r;
}

static char *
it_name(struct dm *d, bool *is_template)
{
	char *r;

	if (d->err || ++d->depth > MAX_DEPTH)
		return fail(d);
	r = it_name_body(d, is_template);
	d->depth--;
	return r;
}

static const struct {
	const char code[3];
	const char *name;
} operators[] = {
	{ "aN", "&=" }, { "aS", "=" }, { "aa", "&&" }, { "ad", "&" }, { "an", "&" },
	{ "cl", "()" }, { "cm", "," }, { "co", "~" }, { "dV", "/=" }, { "da", " delete[]" },
	{ "de", "*" }, { "dl", " delete" }, { "dv", "/" }, { "eO", "^=" }, { "eo", "^" },
	{ "eq", "==" }, { "ge", ">=" }, { "gt", ">" }, { "ix", "[]" }, { "lS", "<<=" },
	{ "le", "<=" }, { "ls", "<<" }, { "lt", "<" }, { "mI", "-=" }, { "mL", "*=" },
	{ "mi", "-" }, { "ml", "*" }, { "mm", "--" }, { "na", " new[]" }, { "ne", "!=" },
	{ "ng", "-" }, { "nt", "!" }, { "nw", " new" }, { "oR", "|=" }, { "oo", "||" },
	{ "or", "|" }, { "pL", "+=" }, { "pl", "+" }, { "pm", "->*" }, { "pp", "++" },
	{ "ps", "+" }, { "pt", "->" }, { "qu", "?" }, { "rM", "%=" }, { "rS", ">>=" },
	{ "rm", "%" }, { "rs", ">>" }, { "ss", "<=>" },
};

static const char *
builtin(int c)
{
	switch (c) {
	case 'v': return "void";
	case 'w': return "wchar_t";
	case 'b': return "bool";
	case 'c': return "char";
	case 'a': return "signed char";
	case 'h': return "unsigned char";
	case 's': return "short";
	case 't': return "unsigned short";
	case 'i': return "int";
	case 'j': return "unsigned int";
	case 'l': return "long";
	case 'm': return "unsigned long";
	case 'x': return "long long";
	case 'y': return "unsigned long long";
	case 'n': return "__int128";
	case 'o': return "unsigned __int128";
	case 'f': return "float";
	case 'd': return "double";
	case 'e': return "long double";
	case 'g': return "__float128";
	case 'z': return "...";
	default: return NULL;
	}
}

static char *
source_name(struct dm *d)
{
	uint64_t n;
	char *s;

	if (!number(d, &n) || n == 0 || n > (uint64_t)(d->end - d->p))
		return fail(d);
	if (n >= 10 && strncmp(d->p, "_GLOBAL_", 8) == 0 &&
	    (d->p[8] == '.' || d->p[8] == '_' || d->p[8] == '$') && d->p[9] == 'N') {
		d->p += n;
		return cat(d, "(anonymous namespace)", NULL);
	}
	s = dup_n(d, d->p, (size_t)n);
	d->p += n;
	return s;
}

/* <seq-id> _ after the S; S_ is the first substitution. */
static char *
std_stream(struct dm *d, bool prefix, const char *shortname, const char *cls,
    const char *args)
{
	(void)prefix;
	(void)shortname;
	d->p++;
	d->last = cls;
	return cat(d, "std::", cls, args, NULL);
}

/*
 * The standard abbreviations Ss, Si, So, Sd expand to the full template,
 * as c++filt prints them (std::basic_string<char, ...>).
 */
static char *
substitution(struct dm *d, bool prefix)
{
	uint64_t v = 0;
	int c;

	switch (peek(d, 0)) {
	case 't': d->p++; return cat(d, "std", NULL);
	case 'a': d->p++; d->last = "allocator"; return cat(d, "std::allocator", NULL);
	case 'b': d->p++; d->last = "basic_string"; return cat(d, "std::basic_string", NULL);
	case 's':
		return std_stream(d, prefix, "std::string", "basic_string",
		    "<char, std::char_traits<char>, std::allocator<char> >");
	case 'i':
		return std_stream(d, prefix, "std::istream", "basic_istream",
		    "<char, std::char_traits<char> >");
	case 'o':
		return std_stream(d, prefix, "std::ostream", "basic_ostream",
		    "<char, std::char_traits<char> >");
	case 'd':
		return std_stream(d, prefix, "std::iostream", "basic_iostream",
		    "<char, std::char_traits<char> >");
	case '_': d->p++; return d->nsubs > 0 ? (char *)d->subs[0] : fail(d);
	default: break;
	}
	while ((c = peek(d, 0)) != '_') {
		if (is_digit(c))
			v = v * 36 + (uint64_t)(c - '0');
		else if (c >= 'A' && c <= 'Z')
			v = v * 36 + (uint64_t)(c - 'A' + 10);
		else
			return fail(d);
		if (v > MAX_SUBS)
			return fail(d);
		d->p++;
	}
	d->p++;
	if (v + 1 >= (uint64_t)d->nsubs)
		return fail(d);
	return (char *)d->subs[v + 1];
}

static char *
template_param(struct dm *d)
{
	uint64_t v = 0;

	if (!eat(d, '_')) {
		if (!number(d, &v) || !eat(d, '_'))
			return fail(d);
		v++;
	}
	if (v >= (uint64_t)d->ntargs)
		return fail(d);
	return (char *)d->targs[v];
}

static char *
join_args(struct dm *d, const char *base, const char *args)
{
	size_t n = strlen(args);
	const char *close = n && args[n - 1] == '>' ? " >" : ">";
	size_t b = strlen(base);
	const char *open = b && base[b - 1] == '<' ? " <" : "<";

	return cat(d, base, open, args, close, NULL);
}

static char *
literal(struct dm *d)
{
	const char *t, *start;
	char *num;
	int c = peek(d, 0);

	if (c == '_' && peek(d, 1) == 'Z') {	/* external name */
		char *e;

		d->p += 2;
		e = it_encoding(d, true);
		if (!eat(d, 'E'))
			return fail(d);
		return e;
	}
	if ((t = it_type(d)) == NULL)
		return NULL;
	start = d->p;
	eat(d, 'n');
	while (is_digit(peek(d, 0)))
		d->p++;
	num = dup_n(d, start, (size_t)(d->p - start));
	if (!eat(d, 'E') || num == NULL)
		return fail(d);
	if (num[0] == 'n')
		num[0] = '-';
	switch (c) {
	case 'b':
		return cat(d, strcmp(num, "0") == 0 ? "false" : "true", NULL);
	case 'i':
		return num;
	case 'j':
		return cat(d, num, "u", NULL);
	case 'l':
		return cat(d, num, "l", NULL);
	case 'm':
		return cat(d, num, "ul", NULL);
	default:
		return cat(d, "(", t, ")", num, NULL);
	}
}

/* I <template-arg>+ E; sets the current template arguments when top. */
static char *
template_args(struct dm *d, bool top)
{
	const char *list[MAX_SUBS];
	const char *last = d->last;	/* a ctor after the args names the class */
	int n = 0, i;
	char *s = NULL;

	if (!eat(d, 'I') || ++d->depth > MAX_DEPTH)
		return fail(d);
	while (!eat(d, 'E')) {
		char *a;

		if (d->p >= d->end)
			return fail(d);
		if (eat(d, 'L'))
			a = literal(d);
		else if (peek(d, 0) == 'J') {	/* argument pack */
			d->p++;
			a = cat(d, "", NULL);
			while (a && !eat(d, 'E')) {
				char *x = it_type(d);

				if (x == NULL || d->p >= d->end)
					return fail(d);
				a = *a ? cat(d, a, ", ", x, NULL) : x;
			}
		} else if (peek(d, 0) == 'X')
			return fail(d);		/* expressions: not in this subset */
		else
			a = it_type(d);
		if (a == NULL || n == MAX_SUBS)
			return fail(d);
		list[n++] = a;
		if (*a == '\0')	/* an empty pack prints nothing */
			continue;
		s = s ? cat(d, s, ", ", a, NULL) : a;
	}
	d->depth--;
	d->last = last;
	if (top) {
		for (i = 0; i < n; i++)
			d->targs[i] = list[i];
		d->ntargs = n;
	}
	return s ? s : cat(d, "", NULL);
}

static char *
function_type(struct dm *d, const char *inner)
{
	char *ret, *params = NULL;

	eat(d, 'Y');
	if ((ret = it_type(d)) == NULL)
		return NULL;
	while (!eat(d, 'E')) {
		char *t;

		if (peek(d, 0) == 'R' && peek(d, 1) == 'E') {
			d->p++;
			continue;
		}
		if (peek(d, 0) == 'O' && peek(d, 1) == 'E') {
			d->p++;
			continue;
		}
		if ((t = it_type(d)) == NULL)
			return NULL;
		if (strcmp(t, "void") == 0 && params == NULL && peek(d, 0) == 'E')
			continue;
		params = params ? cat(d, params, ", ", t, NULL) : t;
	}
	if (*inner == '\0')
		return cat(d, ret, " (", params ? params : "", ")", NULL);
	return cat(d, ret, " (", inner, ")(", params ? params : "", ")", NULL);
}

static char *
operator_name(struct dm *d)
{
	size_t i;

	if (peek(d, 0) == 'c' && peek(d, 1) == 'v') {
		char *t;

		d->p += 2;
		if ((t = it_type(d)) == NULL)
			return NULL;
		return cat(d, "operator ", t, NULL);
	}
	if (peek(d, 0) == 'l' && peek(d, 1) == 'i') {
		char *s;

		d->p += 2;
		if ((s = source_name(d)) == NULL)
			return NULL;
		return cat(d, "operator\"\" ", s, NULL);
	}
	for (i = 0; i < sizeof(operators) / sizeof(operators[0]); i++)
		if (peek(d, 0) == (unsigned char)operators[i].code[0] &&
		    peek(d, 1) == (unsigned char)operators[i].code[1]) {
			d->p += 2;
			return cat(d, "operator", operators[i].name, NULL);
		}
	return fail(d);
}

static char *
abi_tags(struct dm *d, char *s)
{
	while (s && peek(d, 0) == 'B') {
		char *t;

		d->p++;
		if ((t = source_name(d)) == NULL)
			return NULL;
		s = cat(d, s, "[abi:", t, "]", NULL);
	}
	return s;
}

static char *
unnamed_type(struct dm *d)
{
	uint64_t n = 0;
	char buf[32];
	char *params = NULL;

	if (eat(d, 't')) {		/* Ut [n] _ */
		if (number(d, &n))
			n++;
		if (!eat(d, '_'))
			return fail(d);
		snprintf(buf, sizeof(buf), "{unnamed type#%llu}", (unsigned long long)n + 1);
		return cat(d, buf, NULL);
	}
	if (!eat(d, 'l'))		/* Ul <types> E [n] _ */
		return fail(d);
	while (!eat(d, 'E')) {
		char *t = it_type(d);

		if (t == NULL)
			return NULL;
		if (strcmp(t, "void") == 0 && params == NULL && peek(d, 0) == 'E')
			continue;
		params = params ? cat(d, params, ", ", t, NULL) : t;
	}
	if (number(d, &n))
		n++;
	if (!eat(d, '_'))
		return fail(d);
	snprintf(buf, sizeof(buf), ")#%llu}", (unsigned long long)n + 1);
	return cat(d, "{lambda(", params ? params : "", buf, NULL);
}

/* <unqualified-name>: source name, operator, ctor/dtor, unnamed type. */
static char *
unqualified(struct dm *d)
{
	int c = peek(d, 0);
	char *s;

	if (c == 'L')		/* internal linkage marker */
		d->p++, c = peek(d, 0);
	if (is_digit(c))
		s = source_name(d);
	else if (c == 'U')
		d->p++, s = unnamed_type(d);
	else if (c == 'C' && d->last) {
		d->p++;
		if (eat(d, 'I')) {
			d->p++;
			if (it_type(d) == NULL)
				return NULL;
		} else if (!is_digit(peek(d, 0)))
			return fail(d);
		else
			d->p++;
		return cat(d, d->last, NULL);
	} else if (c == 'D' && d->last && is_digit(peek(d, 1))) {
		d->p += 2;
		return cat(d, "~", d->last, NULL);
	} else if (c >= 'a' && c <= 'z')
		s = operator_name(d);
	else
		return fail(d);
	if (s && is_digit(c))
		d->last = s;
	return abi_tags(d, s);
}

static char *
nested(struct dm *d, bool *is_template)
{
	char *cur = NULL;

	while (peek(d, 0) == 'r' || peek(d, 0) == 'V' || peek(d, 0) == 'K')
		d->p++;
	if (peek(d, 0) == 'R' || peek(d, 0) == 'O')
		d->p++;
	*is_template = false;
	while (!eat(d, 'E')) {
		int c = peek(d, 0);
		char *part;

		if (d->p >= d->end || d->err)
			return fail(d);
		*is_template = false;
		if (c == 'S' && peek(d, 1) != 't') {
			d->p++;
			if ((cur = substitution(d, true)) == NULL)
				return NULL;
			continue;
		}
		if (c == 'S') {
			d->p += 2;
			cur = cur ? cat(d, cur, "::std", NULL) : cat(d, "std", NULL);
			continue;
		}
		if (c == 'T') {
			d->p++;
			if ((part = template_param(d)) == NULL)
				return NULL;
			cur = part;
		} else if (c == 'I') {
			char *args;

			if (cur == NULL || (args = template_args(d, true)) == NULL)
				return fail(d);
			cur = join_args(d, cur, args);
			*is_template = true;
		} else if (c == 'D' && (peek(d, 1) == 't' || peek(d, 1) == 'T' || peek(d, 1) == 'C')) {
			return fail(d);
		} else {
			if ((part = unqualified(d)) == NULL)
				return NULL;
			cur = cur ? cat(d, cur, "::", part, NULL) : part;
		}
		if (peek(d, 0) != 'E')
			add_sub(d, cur);
	}
	return cur ? cur : fail(d);
}

static char *
it_name_body(struct dm *d, bool *is_template)
{
	char *n, *args;

	*is_template = false;
	switch (peek(d, 0)) {
	case 'N':
		d->p++;
		return nested(d, is_template);
	case 'Z': {
		char *outer, *inner;

		d->p++;
		if ((outer = it_encoding(d, true)) == NULL || !eat(d, 'E'))
			return fail(d);
		if (eat(d, 's'))
			inner = cat(d, "string literal", NULL);
		else if ((inner = it_name(d, is_template)) == NULL)
			return NULL;
		if (eat(d, '_')) {	/* discriminator: _N or __N_ */
			uint64_t v;

			if (eat(d, '_')) {
				if (!number(d, &v) || !eat(d, '_'))
					return fail(d);
			} else if (!number(d, &v))
				return fail(d);
		}
		return cat(d, outer, "::", inner, NULL);
	}
	case 'S':
		if (peek(d, 1) == 't') {
			d->p += 2;
			if ((n = unqualified(d)) == NULL)
				return NULL;
			n = cat(d, "std::", n, NULL);
		} else {
			d->p++;
			if ((n = substitution(d, false)) == NULL)
				return NULL;
			if (peek(d, 0) != 'I')
				return n;
			goto args;
		}
		break;
	default:
		if ((n = unqualified(d)) == NULL)
			return NULL;
		break;
	}
	if (peek(d, 0) != 'I')
		return n;
	add_sub(d, n);
args:
	if ((args = template_args(d, true)) == NULL)
		return NULL;
	*is_template = true;
	return join_args(d, n, args);
}

static char *
it_type_body(struct dm *d)
{
	int c = peek(d, 0);
	const char *b;
	char *t, *u;

	if ((b = builtin(c)) != NULL) {
		d->p++;
		return cat(d, b, NULL);
	}
	switch (c) {
	case 'P':
	case 'R':
	case 'O': {
		const char *op = c == 'P' ? "*" : c == 'R' ? "&" : "&&";

		d->p++;
		if (peek(d, 0) == 'F') {
			d->p++;
			t = function_type(d, op);
		} else if ((u = it_type(d)) == NULL)
			return NULL;
		else
			t = cat(d, u, op, NULL);
		add_sub(d, t);
		return t;
	}
	case 'r':
	case 'V':
	case 'K': {
		const char *q = c == 'r' ? " restrict" : c == 'V' ? " volatile" : " const";

		d->p++;
		if ((u = it_type(d)) == NULL)
			return NULL;
		t = cat(d, u, q, NULL);
		add_sub(d, t);
		return t;
	}
	case 'F':
		d->p++;
		t = function_type(d, "");
		add_sub(d, t);
		return t;
	case 'A': {
		uint64_t n = 0;
		char buf[32] = "";

		d->p++;
		if (number(d, &n))
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)n);
		if (!eat(d, '_') || (u = it_type(d)) == NULL)
			return fail(d);
		t = cat(d, u, " [", buf, "]", NULL);
		add_sub(d, t);
		return t;
	}
	case 'M': {
		char *cls;

		d->p++;
		if ((cls = it_type(d)) == NULL)
			return NULL;
		if (peek(d, 0) == 'F') {
			d->p++;
			t = function_type(d, cat(d, cls, "::*", NULL));
		} else if ((u = it_type(d)) == NULL)
			return NULL;
		else
			t = cat(d, u, " ", cls, "::*", NULL);
		add_sub(d, t);
		return t;
	}
	case 'T':
		d->p++;
		if ((t = template_param(d)) == NULL)
			return NULL;
		add_sub(d, t);
		if (peek(d, 0) == 'I') {
			if ((u = template_args(d, false)) == NULL)
				return NULL;
			t = join_args(d, t, u);
			add_sub(d, t);
		}
		return t;
	case 'S':
		if (peek(d, 1) != 't') {
			d->p++;
			if ((t = substitution(d, false)) == NULL)
				return NULL;
			if (peek(d, 0) == 'I') {
				if ((u = template_args(d, false)) == NULL)
					return NULL;
				t = join_args(d, t, u);
				add_sub(d, t);
			}
			return t;
		}
		d->p += 2;
		if ((u = unqualified(d)) == NULL)
			return NULL;
		t = cat(d, "std::", u, NULL);
		add_sub(d, t);
		if (peek(d, 0) == 'I') {
			if ((u = template_args(d, false)) == NULL)
				return NULL;
			t = join_args(d, t, u);
			add_sub(d, t);
		}
		return t;
	case 'D':
		d->p++;
		c = peek(d, 0);
		d->p++;
		switch (c) {
		case 'n': return cat(d, "decltype(nullptr)", NULL);
		case 'a': return cat(d, "auto", NULL);
		case 'c': return cat(d, "decltype(auto)", NULL);
		case 'i': return cat(d, "char32_t", NULL);
		case 's': return cat(d, "char16_t", NULL);
		case 'u': return cat(d, "char8_t", NULL);
		case 'f': return cat(d, "decimal32", NULL);
		case 'd': return cat(d, "decimal64", NULL);
		case 'e': return cat(d, "decimal128", NULL);
		case 'h': return cat(d, "half", NULL);
		case 'p':
			if ((u = it_type(d)) == NULL)
				return NULL;
			t = cat(d, u, "...", NULL);
			add_sub(d, t);
			return t;
		default:
			return fail(d);
		}
	case 'u':
		d->p++;
		return source_name(d);
	case 'N':
	case 'Z':
	default: {
		bool tmpl;
		const char *saved[MAX_SUBS];
		int ns = d->ntargs, i;

		if (c != 'N' && c != 'Z' && !is_digit(c))
			return fail(d);
		/* A class type's own template arguments do not rebind T_. */
		for (i = 0; i < ns; i++)
			saved[i] = d->targs[i];
		t = it_name(d, &tmpl);
		for (i = 0; i < ns; i++)
			d->targs[i] = saved[i];
		d->ntargs = ns;
		if (t == NULL)
			return NULL;
		add_sub(d, t);
		return t;
	}
	}
}

static char *
it_special(struct dm *d)
{
	const char *what = NULL;
	char *t;

	if (eat(d, 'G')) {
		bool tmpl;

		if (eat(d, 'V'))
			what = "guard variable for ";
		else if (eat(d, 'R'))
			what = "reference temporary for ";
		else
			return fail(d);
		if ((t = it_name(d, &tmpl)) == NULL)
			return NULL;
		return cat(d, what, t, NULL);
	}
	if (!eat(d, 'T'))
		return fail(d);
	switch (peek(d, 0)) {
	case 'V': what = "vtable for "; break;
	case 'T': what = "VTT for "; break;
	case 'I': what = "typeinfo for "; break;
	case 'S': what = "typeinfo name for "; break;
	case 'H': what = "TLS init function for "; break;
	case 'W': what = "TLS wrapper function for "; break;
	case 'h': {
		uint64_t v;

		d->p++;
		eat(d, 'n');
		if (!number(d, &v) || !eat(d, '_') || (t = it_encoding(d, true)) == NULL)
			return fail(d);
		return cat(d, "non-virtual thunk to ", t, NULL);
	}
	case 'v': {
		uint64_t v;

		d->p++;
		eat(d, 'n');
		if (!number(d, &v) || !eat(d, '_'))
			return fail(d);
		eat(d, 'n');
		if (!number(d, &v) || !eat(d, '_') || (t = it_encoding(d, true)) == NULL)
			return fail(d);
		return cat(d, "virtual thunk to ", t, NULL);
	}
	default:
		return fail(d);
	}
	d->p++;
	if (what[0] == 'T') {
		bool tmpl;

		t = it_name(d, &tmpl);
	} else
		t = it_type(d);
	if (t == NULL)
		return NULL;
	return cat(d, what, t, NULL);
}

/*
 * <encoding>: a name and, for functions, parameter types (parsed so that
 * substitutions number right and local names find their 'E', not printed).
 */
static char *
it_encoding(struct dm *d, bool params)
{
	bool tmpl;
	char *n;
	int c = peek(d, 0);

	if (c == 'T' || (c == 'G' && (peek(d, 1) == 'V' || peek(d, 1) == 'R')))
		return it_special(d);
	d->last = NULL;
	if ((n = it_name(d, &tmpl)) == NULL)
		return NULL;
	if (!params)
		return n;
	if (tmpl && d->p < d->end && peek(d, 0) != 'E' && peek(d, 0) != '.') {
		if (it_type(d) == NULL)		/* return type */
			return NULL;
	}
	while (d->p < d->end && peek(d, 0) != 'E' && peek(d, 0) != '.') {
		if (it_type(d) == NULL)
			return NULL;
	}
	return n;
}

static char *
itanium(struct dm *d)
{
	char *s;

	d->p += 2;
	if ((s = it_encoding(d, true)) == NULL || d->err)
		return NULL;
	/* GCC clone suffixes: foo.cold, foo.isra.0, foo.constprop.0.isra.0 */
	while (d->p < d->end && *d->p == '.') {
		const char *st = d->p++;

		while (d->p < d->end && (*d->p == '_' || (*d->p >= 'a' && *d->p <= 'z') ||
		    (*d->p >= 'A' && *d->p <= 'Z')))
			d->p++;
		while (d->p + 1 < d->end && *d->p == '.' && is_digit(d->p[1])) {
			d->p++;
			while (d->p < d->end && is_digit(*d->p))
				d->p++;
		}
		if (d->p == st + 1)
			return fail(d);
		s = cat(d, s, " [clone ", dup_n(d, st, (size_t)(d->p - st)), "]", NULL);
	}
	if (d->p != d->end)
		return fail(d);
	return s;
}

/* ------------------------------------------------------------------ */
/* Rust legacy: _ZN <len ident>* 17h<16 hex> E, with $..$ escapes. */

static const struct {
	const char *code, *text;
} rust_escapes[] = {
	{ "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" }, { "$GT$", ">" },
	{ "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," },
};

static char *
rust_legacy_ident(struct dm *d, const char *s, size_t n)
{
	char *out = malloc(n + 1), *q = out, *r;
	size_t i = 0, k;

	if (out == NULL)
		return fail(d);
	if (n >= 2 && s[0] == '_' && s[1] == '$')
		i = 1;
	while (i < n) {
		if (s[i] == '.' && i + 1 < n && s[i + 1] == '.') {
			*q++ = ':';
			*q++ = ':';
			i += 2;
			continue;
		}
		if (s[i] == '$') {
			bool done = false;

			for (k = 0; k < sizeof(rust_escapes) / sizeof(rust_escapes[0]); k++) {
				size_t l = strlen(rust_escapes[k].code);

				if (i + l <= n && memcmp(s + i, rust_escapes[k].code, l) == 0) {
					*q++ = rust_escapes[k].text[0];
					i += l;
					done = true;
					break;
				}
			}
			if (!done && i + 4 < n && s[i + 1] == 'u') {
				unsigned v = 0;
				size_t j = i + 2;

				while (j < n && s[j] != '$' && j - i < 8) {
					int c = s[j];

					v = v * 16 + (unsigned)(is_digit(c) ? c - '0' :
					    (c >= 'a' && c <= 'f') ? c - 'a' + 10 : 99);
					j++;
				}
				if (j < n && s[j] == '$' && v >= 0x20 && v < 0x7f) {
					*q++ = (char)v;
					i = j + 1;
					done = true;
				}
			}
			if (!done) {
				free(out);
				return fail(d);
			}
			continue;
		}
		*q++ = s[i++];
	}
	*q = '\0';
	r = dup_n(d, out, (size_t)(q - out));
	free(out);
	return r;
}

static bool
is_rust_hash(const char *s, size_t n)
{
	size_t i;

	if (n != 17 || s[0] != 'h')
		return false;
	for (i = 1; i < n; i++)
		if (!is_digit(s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
			return false;
	return true;
}

static char *
rust_legacy(struct dm *d)
{
	const char *p = d->start + 3;
	char *out = NULL;

	while (p < d->end && *p != 'E') {
		uint64_t n = 0;
		char *id;

		if (!is_digit(*p))
			return NULL;
		while (p < d->end && is_digit(*p))
			n = n * 10 + (uint64_t)(*p++ - '0');
		if (n == 0 || n > (uint64_t)(d->end - p))
			return NULL;
		if (is_rust_hash(p, (size_t)n) && p + n < d->end && p[n] == 'E' && p + n + 1 == d->end)
			return out;
		if ((id = rust_legacy_ident(d, p, (size_t)n)) == NULL)
			return NULL;
		out = out ? cat(d, out, "::", id, NULL) : id;
		p += n;
	}
	return NULL;	/* no hash: not Rust, let the Itanium parser try */
}

/* ------------------------------------------------------------------ */
/* Rust v0 (RFC 2603), the common subset: paths, generics, basic types. */

static char *v0_path(struct dm *d);
static char *v0_type(struct dm *d);
static char *v0_path_body(struct dm *d);
static char *v0_type_body(struct dm *d);

static char *
v0_path(struct dm *d)
{
	char *r;

	if (d->err || ++d->depth > MAX_DEPTH)
		return fail(d);
	r = v0_path_body(d);
	d->depth--;
	return r;
}

static char *
v0_type(struct dm *d)
{
	char *r;

	if (d->err || ++d->depth > MAX_DEPTH)
		return fail(d);
	r = v0_type_body(d);
	d->depth--;
	return r;
}

static bool
v0_base62(struct dm *d, uint64_t *out)
{
	uint64_t v = 0;
	int c;

	if (eat(d, '_')) {
		*out = 0;
		return true;
	}
	while ((c = peek(d, 0)) != '_') {
		if (is_digit(c))
			v = v * 62 + (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'z')
			v = v * 62 + (uint64_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'Z')
			v = v * 62 + (uint64_t)(c - 'A' + 36);
		else
			return false;
		d->p++;	/* disambiguators are hashes: wrapping is harmless */
	}
	d->p++;
	*out = v + 1;
	return true;
}

static char *
v0_ident(struct dm *d)
{
	uint64_t n, dis;
	char *s;

	if (eat(d, 's') && !v0_base62(d, &dis))
		return fail(d);
	if (peek(d, 0) == 'u')
		return fail(d);		/* punycode: not in this subset */
	if (!number(d, &n))
		return fail(d);
	eat(d, '_');
	if (n > (uint64_t)(d->end - d->p))
		return fail(d);
	s = dup_n(d, d->p, (size_t)n);
	d->p += n;
	return s;
}

/* B <base-62-number>: re-parse from an earlier position. */
static char *
v0_backref(struct dm *d, char *(*fn)(struct dm *))
{
	uint64_t pos;
	const char *save;
	char *r;

	if (!v0_base62(d, &pos) || pos >= (uint64_t)(d->p - d->start) || ++d->depth > MAX_DEPTH)
		return fail(d);
	save = d->p;
	d->p = d->start + 2 + pos;
	r = fn(d);
	d->p = save;
	d->depth--;
	return r;
}

static char *
v0_generic_args(struct dm *d)
{
	char *s = NULL, *a;

	while (!eat(d, 'E')) {
		if (d->p >= d->end)
			return fail(d);
		if (eat(d, 'L')) {		/* lifetime: not printed */
			uint64_t v;

			if (!v0_base62(d, &v))
				return fail(d);
			continue;
		}
		if (eat(d, 'K')) {		/* const generic */
			const char *st;
			char *ty;

			if (eat(d, 'p'))
				a = cat(d, "_", NULL);
			else {
				if ((ty = v0_type(d)) == NULL)
					return NULL;
				eat(d, 'n');
				st = d->p;
				while (d->p < d->end && *d->p != '_')
					d->p++;
				if (!eat(d, '_'))
					return fail(d);
				{
					unsigned long long v = strtoull(dup_n(d, st, (size_t)(d->p - 1 - st)), NULL, 16);
					char buf[32];

					snprintf(buf, sizeof(buf), "%llu", v);
					a = cat(d, buf, NULL);
				}
			}
		} else if ((a = v0_type(d)) == NULL)
			return NULL;
		s = s ? cat(d, s, ", ", a, NULL) : a;
	}
	return s ? s : cat(d, "", NULL);
}

static char *
v0_path_body(struct dm *d)
{
	int c = peek(d, 0);
	char *a, *b, *id;
	uint64_t dis = 0;

	d->p++;
	switch (c) {
	case 'C':
		return v0_ident(d);
	case 'N': {
		int ns = peek(d, 0);
		const char *save;

		d->p++;
		if ((a = v0_path(d)) == NULL)
			return NULL;
		save = d->p;
		if (eat(d, 's') && !v0_base62(d, &dis))
			return fail(d);
		d->p = save;
		if ((id = v0_ident(d)) == NULL)
			return NULL;
		if (ns >= 'A' && ns <= 'Z') {
			char buf[64];
			const char *kind = ns == 'C' ? "closure" : ns == 'S' ? "shim" : "";

			snprintf(buf, sizeof(buf), "#%llu}", (unsigned long long)dis);
			if (*kind == '\0')
				return cat(d, a, "::{", id, buf, NULL);
			return cat(d, a, "::{", kind, *id ? ":" : "", id, buf, NULL);
		}
		return cat(d, a, "::", id, NULL);
	}
	case 'M':		/* inherent impl: <type> */
		if (eat(d, 's') && !v0_base62(d, &dis))
			return fail(d);
		if ((a = v0_path(d)) == NULL || (b = v0_type(d)) == NULL)
			return NULL;
		return cat(d, "<", b, ">", NULL);
	case 'X':		/* trait impl: <type as trait> */
		if (eat(d, 's') && !v0_base62(d, &dis))
			return fail(d);
		if ((a = v0_path(d)) == NULL || (b = v0_type(d)) == NULL ||
		    (id = v0_path(d)) == NULL)
			return NULL;
		return cat(d, "<", b, " as ", id, ">", NULL);
	case 'Y':
		if ((b = v0_type(d)) == NULL || (id = v0_path(d)) == NULL)
			return NULL;
		return cat(d, "<", b, " as ", id, ">", NULL);
	case 'I':
		if ((a = v0_path(d)) == NULL || (b = v0_generic_args(d)) == NULL)
			return NULL;
		return cat(d, a, "::<", b, ">", NULL);
	case 'B':
		return v0_backref(d, v0_path);
	default:
		return fail(d);
	}
}

static char *
v0_type_body(struct dm *d)
{
	static const char *const basic[26] = {
		['a' - 'a'] = "i8", ['b' - 'a'] = "bool", ['c' - 'a'] = "char",
		['d' - 'a'] = "f64", ['e' - 'a'] = "str", ['f' - 'a'] = "f32",
		['h' - 'a'] = "u8", ['i' - 'a'] = "isize", ['j' - 'a'] = "usize",
		['l' - 'a'] = "i32", ['m' - 'a'] = "u32", ['n' - 'a'] = "i128",
		['o' - 'a'] = "u128", ['p' - 'a'] = "_", ['s' - 'a'] = "i16",
		['t' - 'a'] = "u16", ['u' - 'a'] = "()", ['v' - 'a'] = "...",
		['x' - 'a'] = "i64", ['y' - 'a'] = "u64", ['z' - 'a'] = "!",
	};
	int c = peek(d, 0);
	char *t;

	if (c >= 'a' && c <= 'z') {
		d->p++;
		return basic[c - 'a'] ? cat(d, basic[c - 'a'], NULL) : fail(d);
	}
	switch (c) {
	case 'R':
	case 'Q':
		d->p++;
		if (eat(d, 'L')) {
			uint64_t v;

			if (!v0_base62(d, &v))
				return fail(d);
		}
		if ((t = v0_type(d)) == NULL)
			return NULL;
		return cat(d, c == 'R' ? "&" : "&mut ", t, NULL);
	case 'P':
	case 'O':
		d->p++;
		if ((t = v0_type(d)) == NULL)
			return NULL;
		return cat(d, c == 'P' ? "*const " : "*mut ", t, NULL);
	case 'S':
		d->p++;
		if ((t = v0_type(d)) == NULL)
			return NULL;
		return cat(d, "[", t, "]", NULL);
	case 'T': {
		char *s = NULL;
		int n = 0;

		d->p++;
		while (!eat(d, 'E')) {
			if (d->p >= d->end || (t = v0_type(d)) == NULL)
				return fail(d);
			s = s ? cat(d, s, ", ", t, NULL) : t;
			n++;
		}
		return cat(d, "(", s ? s : "", n == 1 ? ",)" : ")", NULL);
	}
	case 'B':
		d->p++;
		return v0_backref(d, v0_type);
	default:
		return v0_path(d);
	}
}

static char *
rust_v0(struct dm *d)
{
	char *s;

	d->p = d->start + 2;
	if (is_digit(peek(d, 0))) {	/* encoding version */
		uint64_t v;

		(void)number(d, &v);
	}
	if ((s = v0_path(d)) == NULL || d->err)
		return NULL;
	/* An instantiating-crate path may follow; it is not printed. */
	return s;
}

/* ------------------------------------------------------------------ */

char *
pf_demangle(const char *name)
{
	struct dm d;
	char *r = NULL, *out = NULL;
	size_t n;

	if (name == NULL) {
		errno = EINVAL;
		return NULL;
	}
	n = strlen(name);
	memset(&d, 0, sizeof(d));
	d.start = d.p = name;
	d.end = name + n;
	if (n > 3 && name[0] == '_' && name[1] == 'R')
		r = rust_v0(&d);
	else if (n > 3 && name[0] == '_' && name[1] == 'Z') {
		if (name[2] == 'N')
			r = rust_legacy(&d);
		if (r == NULL && !d.err) {
			free_arena(&d);
			memset(&d, 0, sizeof(d));
			d.start = d.p = name;
			d.end = name + n;
			r = itanium(&d);
		}
	}
	if (r && !d.err && (out = strdup(r)) == NULL)
		d.err = true;
	free_arena(&d);
	if (out == NULL)
		errno = EINVAL;
	return out;
}
