/* json.c: whole-document JSON I/O and small checked helpers over cJSON. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"

void
mc_json_where(const char *s, const char *at, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (; s < at; s++) {
		if (*s == '\n') {
			(*line)++;
			*col = 1;
		} else
			(*col)++;
	}
}

/*
 * The first \\u escape that is \\u0000 (nul set) or that lacks its four
 * hex digits (nul 0), or NULL. Backslashes occur only inside strings, and
 * pair off there; one outside a string is a syntax error cJSON meets
 * first.
 */
static const char *
u_escape(const char *s, size_t len, int nul)
{
	const char *p = s, *end = s + len;
	int i;

	while ((p = memchr(p, '\\', (size_t)(end - p))) != NULL && end - p >= 2) {
		if (p[1] == 'u' && nul && end - p >= 6 && memcmp(p + 2, "0000", 4) == 0)
			return p;
		if (p[1] == 'u' && !nul) {
			if (end - p < 6)
				return p;
			for (i = 2; i < 6; i++)
				if (!isxdigit((unsigned char)p[i]))
					return p;
		}
		p += 2;
	}
	return NULL;
}

cJSON *
mc_json_parse_doc(const char *s, size_t len, const char **end)
{
	const char *bad = u_escape(s, len, 0);
	cJSON *doc = cJSON_ParseWithLengthOpts(s, len, end, 0);

	/* cJSON reads a short \\u escape as \\u0000 and cuts the string
	 * there: an error where the escape is, unless cJSON failed sooner
	 * or the escape lies past the value. */
	if (bad != NULL && bad < *end) {
		cJSON_Delete(doc);
		*end = bad;
		return NULL;
	}
	return doc;
}

cJSON *
mc_json_parse(const char *s, size_t len, char *err, size_t errsz)
{
	const char *end = NULL;
	size_t line, col;
	cJSON *doc;

	if (memchr(s, '\0', len) != NULL) {
		snprintf(err, errsz, "invalid JSON: NUL byte in input");
		return NULL;
	}
	if ((doc = mc_json_parse_doc(s, len, &end)) == NULL) {
		mc_json_where(s, end, &line, &col);
		snprintf(err, errsz, "invalid JSON at line %zu, column %zu", line, col);
		return NULL;
	}
	/* Only white space may follow the document. */
	while (end < s + len && strchr(" \t\r\n", *end) != NULL)
		end++;
	if (end < s + len) {
		mc_json_where(s, end, &line, &col);
		snprintf(err, errsz, "invalid JSON: unexpected data after the document at line %zu, column %zu",
		    line, col);
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

const char *
mc_json_nul_escape(const char *s, size_t len)
{
	return u_escape(s, len, 1);
}

/* Past the JSON string opening at p (on its quote), or NULL when it does
 * not end before e. */
static const char *
skip_string(const char *p, const char *e)
{
	const char *start = p + 1, *q, *b;

	/* The closing quote: the first one after an even run of backslashes. */
	for (p = start; (q = memchr(p, '"', (size_t)(e - p))) != NULL; p = q + 1) {
		for (b = q; b > start && b[-1] == '\\'; b--)
			;
		if ((q - b) % 2 == 0)
			return q + 1;
	}
	return NULL;
}

/* ---- a long array member, one element at a time ---- */

/* cJSON takes every byte up to the space for white space. */
static const char *
skip_ws(const char *p, const char *e)
{
	while (p < e && (unsigned char)*p <= ' ')
		p++;
	return p;
}

/* Past the value at p, or NULL. Only the structure is followed (strings,
 * brackets, tokens up to a delimiter); cJSON checks the rest. *deep
 * gets the deepest nesting met. */
static const char *
skip_value(const char *p, const char *e, size_t *deep)
{
	const char *q = p;
	size_t depth = 0;

	*deep = 0;

	if (p < e && *p == '"')
		return skip_string(p, e);
	if (p < e && *p != '{' && *p != '[') {
		while (q < e && (unsigned char)*q > ' ' && *q != ',' && *q != ']' && *q != '}')
			q++;
		return q > p ? q : NULL;
	}
	for (; q < e; q++) {
		if (*q == '"') {
			if ((q = skip_string(q, e)) == NULL)
				return NULL;
			q--;
		} else if (*q == '{' || *q == '[') {
			if (++depth > *deep)
				*deep = depth;
		} else if ((*q == '}' || *q == ']') && --depth == 0)
			return q + 1;
	}
	return NULL;
}

/*
 * The span of the top-level member key's value, in an object whose keys
 * are plain (no escapes) and hold key at most once, with only white space
 * after it: 1 and *vs, *ve (*deep: the value's deepest nesting), 0 when
 * there is no such member, -1 for any other text.
 */
static int
find_member(const char *s, size_t len, const char *key, const char **vs, const char **ve,
    size_t *vdeep)
{
	const char *p, *e = s + len, *k, *v;
	size_t klen = strlen(key), deep;
	int mine, found = 0;

	p = skip_ws(s, e);
	if (p == e || *p != '{')
		return -1;
	p = skip_ws(p + 1, e);
	if (p < e && *p == '}')
		return skip_ws(p + 1, e) == e ? 0 : -1;
	for (;;) {
		if (p == e || *p != '"' || (k = skip_string(p, e)) == NULL ||
		    memchr(p, '\\', (size_t)(k - p)) != NULL)
			return -1;
		mine = (size_t)(k - p) == klen + 2 && memcmp(p + 1, key, klen) == 0;
		if (mine && found++)
			return -1;
		p = skip_ws(k, e);
		if (p == e || *p != ':')
			return -1;
		p = skip_ws(p + 1, e);
		if ((v = skip_value(p, e, &deep)) == NULL)
			return -1;
		if (mine) {
			*vs = p;
			*ve = v;
			*vdeep = deep;
		}
		if ((p = skip_ws(v, e)) == e)
			return -1;
		if (*p == '}')
			break;
		if (*p != ',')
			return -1;
		p = skip_ws(p + 1, e);
	}
	return skip_ws(p + 1, e) != e ? -1 : found;
}

int
mc_json_member(const char *s, size_t len, const char *key, const char **vs, const char **ve)
{
	size_t deep;

	return find_member(s, len, key, vs, ve, &deep);
}

/*
 * The span of the top-level member key's array value, in an object whose
 * keys are plain (no escapes) and hold key once. -1 for any other text,
 * which is then parsed whole.
 */
static int
find_array(const char *s, size_t len, const char *key, const char **vs, const char **ve)
{
	size_t deep;

	/* Alone, an element could nest deeper than cJSON allows it inside
	 * the document: leave that to the whole parse. */
	return find_member(s, len, key, vs, ve, &deep) == 1 && **vs == '[' &&
	    deep + 2 < CJSON_NESTING_LIMIT ? 0 : -1;
}

/* ---- the grammar, checked without building anything ---- */

/* JSON's white space: space, tab, line feed, carriage return (cJSON
 * takes every byte up to the space; the grammar does not). */
static const char *
gap(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

struct check {
	const char *e;
	const char *bad;	/* where the text went wrong */
	struct mc_json_found *f;	/* what is looked for, and found */
};

static const char *check_value(struct check *c, const char *p, size_t depth, int on);

/* Where the text goes wrong, kept for the message (p NULL: a part
 * already said where). */
static const char *
fail_at(struct check *c, const char *p)
{
	if (p != NULL)
		c->bad = p;
	return NULL;
}

static size_t plain_run(const unsigned char *p, size_t n);

/* The four hex digits at p as a number, or -1. */
static long
hex4(const char *p, const char *e)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++, p++) {
		if (p >= e || !isxdigit((unsigned char)*p))
			return -1;
		v = v * 16 + (isdigit((unsigned char)*p) ? *p - '0' : (*p | 0x20) - 'a' + 10);
	}
	return v;
}

static const char *
check_string(struct check *c, const char *p)
{
	const char *e = c->e;
	long u;

	for (p++; p < e; p++) {
		p += plain_run((const unsigned char *)p, (size_t)(e - p));
		if (p == e)
			break;
		if (*p == '"')
			return p + 1;
		if (*p != '\\' || ++p == e)
			return fail_at(c, p);
		switch (*p) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
			continue;
		case 'u':
			if (e - p > 4 && memcmp(p + 1, "0000", 4) == 0 && c->f->nul == NULL)
				c->f->nul = p - 1;
			if ((u = hex4(p + 1, e)) == -1) {
				for (p++; p < e && isxdigit((unsigned char)*p); p++)
					;
				return fail_at(c, p);	/* where the digits stop */
			}
			p += 4;
			/* UTF-16 halves in pairs, as a parser takes them
			 * (cJSON refuses a lone one). */
			if (u >= 0xdc00 && u <= 0xdfff)
				return fail_at(c, p - 5);
			if (u < 0xd800 || u > 0xdbff)
				continue;
			if (e - p < 7 || p[1] != '\\' || p[2] != 'u' ||
			    (u = hex4(p + 3, e)) < 0xdc00 || u > 0xdfff)
				return fail_at(c, p - 5);
			p += 6;		/* the pair's second half */
			continue;
		}
		return fail_at(c, p);
	}
	return fail_at(c, p);
}

static const char *
check_digits(struct check *c, const char *p)
{
	const char *q = p;

	while (q < c->e && *q >= '0' && *q <= '9')
		q++;
	return q > p ? q : fail_at(c, q);
}

static const char *
check_number(struct check *c, const char *p)
{
	const char *e = c->e;

	if (p < e && *p == '-')
		p++;
	if (p < e && *p == '0')
		p++;
	else if ((p = check_digits(c, p)) == NULL)
		return NULL;
	if (p < e && *p == '.' && (p = check_digits(c, p + 1)) == NULL)
		return NULL;
	if (p < e && (*p == 'e' || *p == 'E')) {
		if (++p < e && (*p == '+' || *p == '-'))
			p++;
		p = check_digits(c, p);
	}
	return p;
}

/* Whether the key token from k to q (its quotes included) is the one
 * looked for at this place: on, the index into the path, or -1. */
static int
wanted(struct check *c, const char *k, const char *q, int on)
{
	const char *key;
	size_t n;

	if (on < 0 || on > 1 || (key = c->f->path[on]) == NULL)
		return 0;
	if (memchr(k, '\\', (size_t)(q - k)) != NULL) {
		c->f->escaped = 1;	/* a key only a parse can name */
		return 0;
	}
	n = strlen(key);
	return (size_t)(q - k) == n + 2 && memcmp(k + 1, key, n) == 0;
}

/* The members of an object or the elements of an array, at p past its
 * opening bracket; on: which key of the path this object may hold. */
static const char *
check_list(struct check *c, const char *p, size_t depth, char close, int on)
{
	const char *e = c->e, *k, *v;
	int mine = 0;

	if ((p = gap(p, e)) < e && *p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			k = p = gap(p, e);
			if (p == e || *p != '"' || (p = check_string(c, p)) == NULL)
				return fail_at(c, p);
			mine = wanted(c, k, p, on);
			if ((p = gap(p, e)) == e || *p != ':')
				return fail_at(c, p);
			p++;
		}
		v = gap(p, e);
		if ((p = check_value(c, p, depth, mine ? on + 1 : -1)) == NULL)
			return NULL;
		if (mine && c->f->n[on]++ == 0) {
			c->f->vs[on] = v;
			c->f->ve[on] = p;
		}
		mine = 0;
		if ((p = gap(p, e)) == e)
			return fail_at(c, p);
		if (*p == close)
			return p + 1;
		if (*p != ',')
			return fail_at(c, p);
		p++;
	}
}

static const char *
check_value(struct check *c, const char *p, size_t depth, int on)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t i, n;

	if ((p = gap(p, c->e)) == c->e)
		return fail_at(c, p);
	switch (*p) {
	case '{':
	case '[':
		if (depth >= CJSON_NESTING_LIMIT)
			return fail_at(c, p);
		return check_list(c, p + 1, depth + 1, *p == '{' ? '}' : ']', *p == '{' ? on : -1);
	case '"':
		return check_string(c, p);
	}
	for (i = 0; i < 3; i++) {
		n = strlen(words[i]);
		if ((size_t)(c->e - p) >= n && memcmp(p, words[i], n) == 0)
			return p + n;
	}
	return check_number(c, p);
}

const char *
mc_json_check_find(const char *s, size_t len, struct mc_json_found *f)
{
	struct check c = { .e = s + len, .bad = s, .f = f };
	const char *p;

	f->nul = NULL;
	f->escaped = f->n[0] = f->n[1] = 0;
	if ((p = check_value(&c, s, 0, 0)) == NULL)
		return c.bad;
	return (p = gap(p, s + len)) == s + len ? NULL : p;
}

const char *
mc_json_check(const char *s, size_t len)
{
	struct mc_json_found f = {0};

	return mc_json_check_find(s, len, &f);
}

/*
 * An element of the array, or what lies between two, went wrong at `at`.
 * The text is still whole: a whole parse says where it goes wrong first,
 * as any reader of it would be told.
 */
static cJSON *
syntax_error(const char *s, size_t len, const char *at, char *err, size_t errsz)
{
	size_t line, col;
	cJSON *doc;

	if ((doc = mc_json_parse(s, len, err, errsz)) == NULL)
		return NULL;
	cJSON_Delete(doc);
	mc_json_where(s, at, &line, &col);
	snprintf(err, errsz, "invalid JSON at line %zu, column %zu", line, col);
	return NULL;
}

cJSON *
mc_json_parse_each(char *s, size_t len, const char *key, mc_json_each_fn *fn, void *arg,
    char *err, size_t errsz)
{
	const char *vs = NULL, *ve = NULL, *p, *v, *end;
	cJSON *doc, *arr, *elem;
	size_t i = 0, deep;
	char *q, *nl;

	if (memchr(s, '\0', len) != NULL || find_array(s, len, key, &vs, &ve) == -1) {
		if ((doc = mc_json_parse(s, len, err, errsz)) == NULL)
			return NULL;
		arr = cJSON_GetObjectItemCaseSensitive(doc, key);
		while (cJSON_IsArray(arr) && (elem = arr->child) != NULL)
			fn(cJSON_DetachItemViaPointer(arr, elem), i++, arg);
		return doc;
	}
	for (p = skip_ws(vs + 1, ve); *p != ']';) {
		if ((v = skip_value(p, ve, &deep)) == NULL)
			return syntax_error(s, len, p, err, errsz);
		/* Alone, an element would have a byte-order mark skipped. */
		if (strchr("\"{[-0123456789tfn", *p) == NULL)
			return syntax_error(s, len, p, err, errsz);
		if ((elem = mc_json_parse_doc(p, (size_t)(v - p), &end)) == NULL)
			return syntax_error(s, len, end, err, errsz);
		if (skip_ws(end, v) != v) {
			cJSON_Delete(elem);
			return syntax_error(s, len, end, err, errsz);
		}
		fn(elem, i++, arg);
		p = skip_ws(v, ve);
		if (p < ve && *p == ',') {
			if (*(p = skip_ws(p + 1, ve)) == ']')
				return syntax_error(s, len, p, err, errsz);
		} else if (p == ve || *p != ']')
			return syntax_error(s, len, p < ve ? p : ve - 1, err, errsz);
	}
	/* Blank the array but keep its lines: positions in errors stay true. */
	for (q = (char *)vs + 1; q < ve - 1; q = nl + 1) {
		if ((nl = memchr(q, '\n', (size_t)(ve - 1 - q))) == NULL)
			nl = (char *)ve - 1;
		memset(q, ' ', (size_t)(nl - q));
	}
	return mc_json_parse(s, len, err, errsz);
}

cJSON *
mc_json_read_fd(int fd, int *empty, char *err, size_t errsz)
{
	return mc_json_read_fd_each(fd, empty, NULL, NULL, NULL, err, errsz);
}

cJSON *
mc_json_read_fd_each(int fd, int *empty, const char *key, mc_json_each_fn *fn, void *arg,
    char *err, size_t errsz)
{
	struct mc_buf b = {0};
	size_t i, line, col;
	const char *at;
	cJSON *doc;

	*empty = 0;
	if (mc_fd_slurp(fd, MC_JSON_MAX, &b) == -1) {
		if (errno == EFBIG)
			snprintf(err, errsz, "input is over the %u-byte limit", MC_JSON_MAX);
		else
			snprintf(err, errsz, "read: %s", strerror(errno));
		mc_buf_free(&b);
		return NULL;
	}
	for (i = 0; i < b.len && strchr(" \t\r\n", b.data[i]) != NULL; i++)
		;
	if (i == b.len) {
		*empty = 1;
		mc_buf_free(&b);
		return NULL;
	}
	/* Checked first, so that no element with a cut string reaches fn;
	 * a text that is not JSON at all still says so first. */
	at = mc_json_nul_escape(b.data, b.len);
	if (at != NULL || key == NULL)
		doc = mc_json_parse(b.data, b.len, err, errsz);
	else
		doc = mc_json_parse_each(b.data, b.len, key, fn, arg, err, errsz);
	if (doc != NULL && at != NULL) {
		mc_json_where(b.data, at, &line, &col);
		snprintf(err, errsz, "a string holds a NUL character (\\u0000) at line %zu, column %zu",
		    line, col);
		cJSON_Delete(doc);
		doc = NULL;
	}
	mc_buf_free(&b);
	return doc;
}

/* Append without the NUL mc_buf_add writes each time: the writer makes
 * many small appends, and the text is terminated once at the end. A
 * writer with a stream passes on each 64 KiB as it fills, so a large
 * document never sits whole in memory and the next program in the pipe
 * can start reading it. */
void
mc_jw_raw(struct mc_jw *w, const void *p, size_t n)
{
	struct mc_buf *b = &w->b;

	if (b->cap - b->len <= n)
		mc_buf_grow(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
	if (w->fp != NULL && b->len >= MC_JW_CHUNK) {
		if (fwrite(b->data, 1, b->len, w->fp) != b->len)
			w->err = 1;
		b->len = 0;
	}
}

const unsigned char mc_json_plain[256] = {
	/* all but control characters, '"' (0x22) and '\\' (0x5c) */
	[0x20 ... 0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0xff] = 1
};

/* The length of the run of plain bytes at p, of the n there: sixteen at
 * a time where SSE2 is (every x86-64), where instruction files spend
 * most of their time. */
static size_t
plain_run(const unsigned char *p, size_t n)
{
	size_t i = 0;
#ifdef __SSE2__
	const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'),
	    bslash = _mm_set1_epi8('\\');
	__m128i x, bad;
	unsigned m;

	for (; i + 16 <= n; i += 16) {
		x = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		bad = _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash));
		/* plain: at least 0x20 (unsigned) and neither of those */
		m = (unsigned)_mm_movemask_epi8(_mm_andnot_si128(bad,
		    _mm_cmpeq_epi8(_mm_max_epu8(x, space), x)));
		if (m != 0xffff)
			return i + (size_t)__builtin_ctz(~m);
	}
#endif
	while (i < n && mc_json_plain[p[i]])
		i++;
	return i;
}

/* A string as cJSON writes it, but a run of plain bytes at a time:
 * cJSON's printer spends most of a large document's time here. */
void
mc_jw_str(struct mc_jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)(s ? s : ""), *end;
	size_t k;
	char esc[7];

	end = p + strlen((const char *)p);
	mc_jw_raw(w, "\"", 1);
	for (;;) {
		k = plain_run(p, (size_t)(end - p));
		mc_jw_raw(w, p, k);
		if ((p += k) == end)
			break;
		esc[0] = '\\';
		switch (*p) {
		case '"': case '\\': esc[1] = (char)*p; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[*p >> 4];
			esc[5] = hex[*p & 15];
			mc_jw_raw(w, esc, 6);
			p++;
			continue;
		}
		mc_jw_raw(w, esc, 2);
		p++;
	}
	mc_jw_raw(w, "\"", 1);
}

/* A number exactly as cJSON 1.7 prints one. */
static void
put_number(struct mc_jw *w, const cJSON *n)
{
	double d = n->valuedouble, back;
	char num[32];

	if (isnan(d) || isinf(d))
		snprintf(num, sizeof num, "null");
	else if (d == 0 && signbit(d))
		snprintf(num, sizeof num, "-0");
	else if (d == (double)n->valueint)
		snprintf(num, sizeof num, "%d", n->valueint);
	else {
		snprintf(num, sizeof num, "%1.15g", d);
		/* cJSON's test of "recovered": equal within an epsilon */
		if (sscanf(num, "%lg", &back) != 1 ||
		    fabs(back - d) > (fabs(back) > fabs(d) ? fabs(back) : fabs(d)) * DBL_EPSILON)
			snprintf(num, sizeof num, "%1.17g", d);
	}
	mc_jw_raw(w, num, strlen(num));
}

static void jw_value(struct mc_jw *, const cJSON *);

void
mc_jw_member(struct mc_jw *w, const char *key, const cJSON *v)
{
	mc_jw_str(w, key);
	mc_jw_raw(w, ":", 1);
	jw_value(w, v);
}

static void
jw_value(struct mc_jw *w, const cJSON *v)
{
	const cJSON *e;

	switch (v->type & 0xff) {
	case cJSON_False:
		mc_jw_raw(w, "false", 5);
		break;
	case cJSON_True:
		mc_jw_raw(w, "true", 4);
		break;
	case cJSON_NULL:
		mc_jw_raw(w, "null", 4);
		break;
	case cJSON_Number:
		put_number(w, v);
		break;
	case cJSON_Raw:
		if (v->valuestring)
			mc_jw_raw(w, v->valuestring, strlen(v->valuestring));
		break;
	case cJSON_String:
		mc_jw_str(w, v->valuestring);
		break;
	case cJSON_Array:
		mc_jw_raw(w, "[", 1);
		for (e = v->child; e; e = e->next) {
			jw_value(w, e);
			if (e->next)
				mc_jw_raw(w, ",", 1);
		}
		mc_jw_raw(w, "]", 1);
		break;
	case cJSON_Object:
		mc_jw_raw(w, "{", 1);
		for (e = v->child; e; e = e->next) {
			mc_jw_member(w, e->string, e);
			if (e->next)
				mc_jw_raw(w, ",", 1);
		}
		mc_jw_raw(w, "}", 1);
		break;
	}
}

int
mc_jw_end(struct mc_jw *w)
{
	struct mc_buf *b = &w->b;

	if (w->fp != NULL && b->len > 0 && fwrite(b->data, 1, b->len, w->fp) != b->len)
		w->err = 1;
	mc_buf_free(b);
	return w->err ? -1 : 0;
}

char *
mc_json_compact(const cJSON *doc, size_t *len)
{
	struct mc_jw w = {0};

	jw_value(&w, doc);
	if (len)
		*len = w.b.len;
	return mc_buf_steal(&w.b);
}

int
mc_json_write(FILE *fp, const cJSON *doc, int pretty)
{
	struct mc_jw w = { .fp = fp };
	size_t n;
	char *s;
	int rc;

	if (!pretty) {
		jw_value(&w, doc);
		mc_jw_raw(&w, "\n", 1);
		return mc_jw_end(&w);
	}
	if ((s = cJSON_Print(doc)) == NULL)
		mc_oom();
	n = strlen(s);
	rc = fwrite(s, 1, n, fp) != n || putc('\n', fp) == EOF ? -1 : 0;
	free(s);
	return rc;
}

const char *
mc_json_str(const cJSON *obj, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

long long
mc_json_count(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNumber(v) && v->valuedouble > 0 ? (long long)v->valuedouble : 0;
}

cJSON *
mc_json_obj(const cJSON *obj, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsObject(v) ? v : NULL;
}

cJSON *
mc_json_arr(const cJSON *obj, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsArray(v) ? v : NULL;
}

static cJSON *
checked(cJSON *v)
{
	if (v == NULL)
		mc_oom();
	return v;
}

cJSON *
mc_json_add(cJSON *obj, const char *key, cJSON *item)
{
	checked(item);
	if (!cJSON_AddItemToObject(obj, key, item))
		mc_oom();
	return item;
}

cJSON *
mc_json_add_str(cJSON *obj, const char *key, const char *val)
{
	return mc_json_add(obj, key, mc_json_new_str(val));
}

cJSON *
mc_json_new_owned(char *s)
{
	cJSON *v = cJSON_CreateStringReference(s);

	if (v == NULL)
		mc_oom();
	/* No longer a reference: cJSON_Delete frees it, with free(). */
	v->type &= ~cJSON_IsReference;
	return v;
}

cJSON *
mc_json_add_owned(cJSON *obj, const char *key, char *val)
{
	return mc_json_add(obj, key, mc_json_new_owned(val));
}

cJSON *
mc_json_add_num(cJSON *obj, const char *key, double val)
{
	return mc_json_add(obj, key, cJSON_CreateNumber(val));
}

cJSON *
mc_json_push(cJSON *arr, cJSON *item)
{
	checked(item);
	if (!cJSON_AddItemToArray(arr, item))
		mc_oom();
	return item;
}

cJSON *
mc_json_new_obj(void)
{
	return checked(cJSON_CreateObject());
}

cJSON *
mc_json_new_arr(void)
{
	return checked(cJSON_CreateArray());
}

cJSON *
mc_json_new_str(const char *s)
{
	return checked(s != NULL ? cJSON_CreateString(s) : cJSON_CreateNull());
}

cJSON *
mc_json_arr_ensure(cJSON *obj, const char *key)
{
	cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (cJSON_IsArray(a))
		return a;
	if (a != NULL)
		cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	return mc_json_add(obj, key, cJSON_CreateArray());
}
