/* chunk.c: validate a chat chunk and take its text delta without building a cJSON tree. */
#include <string.h>

#include "diag.h"
#include "buf.h"
#include "chunk.h"
#include "json.h"

#define DEPTH 64	/* deeper documents go to cJSON (its limit is 1000) */
#define NUMMAX 62	/* cJSON reads at most 63 bytes of a number */

struct scan {
	const char *p, *end;
	int depth;
};

static void
ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

int
mc_chunk_hex4(const char *p, unsigned *v)
{
	int i, d;

	*v = 0;
	for (i = 0; i < 4; i++) {
		if (p[i] >= '0' && p[i] <= '9')
			d = p[i] - '0';
		else if (p[i] >= 'a' && p[i] <= 'f')
			d = p[i] - 'a' + 10;
		else if (p[i] >= 'A' && p[i] <= 'F')
			d = p[i] - 'A' + 10;
		else
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

/*
 * A string at s->p (on its opening quote), appended to out unless out is
 * NULL. The plain run up to the next quote, backslash or control byte is
 * copied at once. Returns 0, or -1 for anything not plainly valid.
 */
static int
str(struct scan *s, struct mc_buf *out)
{
	const char *p = s->p + 1, *q;
	unsigned c, lo;
	char u[4];
	size_t k;

	for (;;) {
		for (q = p; q < s->end && mc_json_plain[(unsigned char)*q]; q++)
			;
		if (q == s->end || (unsigned char)*q < 0x20)
			return -1;
		if (out != NULL && q > p)
			mc_buf_add(out, p, q - p);
		if (*q == '"') {
			s->p = q + 1;
			return 0;
		}
		if (s->end - q < 2)
			return -1;
		switch (q[1]) {
		case '"': case '\\': case '/':
			u[0] = q[1];
			break;
		case 'b': u[0] = '\b'; break;
		case 'f': u[0] = '\f'; break;
		case 'n': u[0] = '\n'; break;
		case 'r': u[0] = '\r'; break;
		case 't': u[0] = '\t'; break;
		case 'u':
			if (s->end - q < 6 || mc_chunk_hex4(q + 2, &c) == -1 || c == 0 ||
			    (c >= 0xdc00 && c <= 0xdfff))
				return -1;
			if (c >= 0xd800 && c <= 0xdbff) {
				if (s->end - q < 12 || q[6] != '\\' || q[7] != 'u' ||
				    mc_chunk_hex4(q + 8, &lo) == -1 || lo < 0xdc00 || lo > 0xdfff)
					return -1;
				c = 0x10000 + ((c & 0x3ff) << 10 | (lo & 0x3ff));
				q += 6;
			}
			if (c < 0x80) {
				u[0] = c;
				k = 1;
			} else if (c < 0x800) {
				u[0] = 0xc0 | c >> 6;
				u[1] = 0x80 | (c & 0x3f);
				k = 2;
			} else if (c < 0x10000) {
				u[0] = 0xe0 | c >> 12;
				u[1] = 0x80 | (c >> 6 & 0x3f);
				u[2] = 0x80 | (c & 0x3f);
				k = 3;
			} else {
				u[0] = 0xf0 | c >> 18;
				u[1] = 0x80 | (c >> 12 & 0x3f);
				u[2] = 0x80 | (c >> 6 & 0x3f);
				u[3] = 0x80 | (c & 0x3f);
				k = 4;
			}
			if (out != NULL)
				mc_buf_add(out, u, k);
			p = q + 6;
			continue;
		default:
			return -1;
		}
		if (out != NULL)
			mc_buf_add(out, u, 1);
		p = q + 2;
	}
}

static int
digits(struct scan *s)
{
	const char *p = s->p;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return s->p > p ? 0 : -1;
}

/* The strict JSON number grammar, which cJSON's strtod reads whole. */
static int
num(struct scan *s)
{
	const char *start = s->p;

	if (s->p < s->end && *s->p == '-')
		s->p++;
	if (s->p < s->end && *s->p == '0')
		s->p++;
	else if (digits(s) == -1)
		return -1;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (digits(s) == -1)
			return -1;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (digits(s) == -1)
			return -1;
	}
	return s->p - start <= NUMMAX ? 0 : -1;
}

static int
lit(struct scan *s, const char *w, size_t n)
{
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0)
		return -1;
	s->p += n;
	return 0;
}

static int value(struct scan *s);

/* A key: a plain string (no escapes) followed by ':'; k, kl name it. */
static int
key(struct scan *s, const char **k, size_t *kl)
{
	const char *q;

	if (s->p >= s->end || *s->p != '"')
		return -1;
	for (q = s->p + 1; q < s->end && mc_json_plain[(unsigned char)*q]; q++)
		;
	if (q == s->end || *q != '"')
		return -1;
	*k = s->p + 1;
	*kl = q - *k;
	s->p = q + 1;
	ws(s);
	if (s->p >= s->end || *s->p != ':')
		return -1;
	s->p++;
	ws(s);
	return 0;
}

static int
is(const char *k, size_t kl, const char *w)
{
	return k[0] == w[0] && strncmp(k, w, kl) == 0 && w[kl] == '\0';
}

/* After a member or element: 1 at the closing byte c, 0 after a comma. */
static int
next(struct scan *s, char c)
{
	ws(s);
	if (s->p < s->end && *s->p == ',') {
		s->p++;
		ws(s);
		return 0;
	}
	if (s->p < s->end && *s->p == c) {
		s->p++;
		return 1;
	}
	return -1;
}

/* Any value, only checked. */
static int
value(struct scan *s)
{
	const char *k;
	size_t kl;
	int r;

	if (s->p >= s->end)
		return -1;
	switch (*s->p) {
	case '"':
		return str(s, NULL);
	case 't':
		return lit(s, "true", 4);
	case 'f':
		return lit(s, "false", 5);
	case 'n':
		return lit(s, "null", 4);
	case '{':
	case '[':
		if (++s->depth > DEPTH)
			return -1;
		r = *s->p++ == '{' ? '}' : ']';
		ws(s);
		if (s->p < s->end && *s->p == r) {
			s->p++;
			s->depth--;
			return 0;
		}
		for (;;) {
			if ((r == '}' && key(s, &k, &kl) == -1) || value(s) == -1)
				return -1;
			switch (next(s, r)) {
			case -1:
				return -1;
			case 1:
				s->depth--;
				return 0;
			}
		}
	default:
		return num(s);
	}
}

static int
null(struct scan *s)
{
	return lit(s, "null", 4);
}

/*
 * An object at s->p whose members named in names[] are read by each[i];
 * any other member is only checked. A name seen twice gives -1 (cJSON
 * would take the first; not worth following here).
 */
typedef int (*member_fn)(struct scan *, void *);

static int
object(struct scan *s, const char *const names[], const member_fn each[], size_t nn, void *arg)
{
	unsigned seen = 0;
	const char *k;
	size_t kl, i;
	int r;

	if (s->p >= s->end || *s->p != '{')
		return -1;
	s->p++;
	ws(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return 0;
	}
	for (;;) {
		if (key(s, &k, &kl) == -1)
			return -1;
		for (i = 0; i < nn && !is(k, kl, names[i]); i++)
			;
		if (i < nn) {
			if (seen & 1u << i)
				return -1;
			seen |= 1u << i;
			r = each[i](s, arg);
		} else
			r = value(s);
		if (r == -1)
			return -1;
		switch (next(s, '}')) {
		case -1:
			return -1;
		case 1:
			return 0;
		}
	}
}

static int
content(struct scan *s, void *out)
{
	if (s->p < s->end && *s->p == '"')
		return str(s, out);
	return null(s);
}

static int
nullonly(struct scan *s, void *arg)
{
	(void)arg;
	return null(s);
}

static int
delta(struct scan *s, void *out)
{
	/* Reasoning is not the answer: a chunk with some goes to cJSON. */
	static const char *const names[] = { "content", "refusal", "tool_calls", "function_call",
		"reasoning_content", "reasoning" };
	static const member_fn each[] = { content, nullonly, nullonly, nullonly, nullonly,
		nullonly };

	return object(s, names, each, 6, out);
}

static int
choice(struct scan *s, void *out)
{
	static const char *const names[] = { "delta", "finish_reason" };
	static const member_fn each[] = { delta, nullonly };

	return object(s, names, each, 2, out);
}

/* Exactly one choice. */
static int
choices(struct scan *s, void *out)
{
	if (s->p >= s->end || *s->p != '[')
		return -1;
	s->p++;
	ws(s);
	if (choice(s, out) == -1)
		return -1;
	ws(s);
	if (s->p >= s->end || *s->p != ']')
		return -1;
	s->p++;
	return 0;
}

static int
refuse(struct scan *s, void *arg)
{
	(void)s, (void)arg;
	return -1;
}

int
mc_chunk_text(const char *p, size_t n, struct mc_buf *out)
{
	static const char *const names[] = { "choices", "error", "usage" };
	static const member_fn each[] = { choices, refuse, nullonly };
	struct scan s = { p, p + n, 1 };

	out->len = 0;
	if (out->data != NULL)
		out->data[0] = '\0';
	ws(&s);
	/* Without choices (and without error or usage) cJSON finds nothing either. */
	if (object(&s, names, each, 3, out) == -1)
		return 0;
	ws(&s);
	return s.p == s.end;
}
