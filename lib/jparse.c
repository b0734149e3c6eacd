/* jparse.c: a JSON parser that builds cJSON trees, taking long strings a run at a time. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"

/*
 * It accepts what cJSON 1.7 accepts and fails where cJSON fails (a fuzz
 * target holds the two side by side); cJSON's own parser copies strings
 * a byte at a time, and instruction files make strings of a megabyte.
 */

struct jp {
	const char *p, *end;
	const char *fail;	/* where the text went wrong */
	int depth;
};

static cJSON *value(struct jp *);

static void
ws(struct jp *j)
{
	while (j->p < j->end && (unsigned char)*j->p <= ' ')
		j->p++;
}

static cJSON *
failed(struct jp *j, const char *at, cJSON *partial)
{
	j->fail = at;
	cJSON_Delete(partial);
	return NULL;
}

static int
hex4(const char *p, unsigned *u)
{
	int i;

	/* cJSON takes a bad digit for \u0000 and cuts the string there:
	 * that is no JSON, and no text to pass on. */
	*u = 0;
	for (i = 0; i < 4; i++) {
		*u <<= 4;
		if (p[i] >= '0' && p[i] <= '9')
			*u |= (unsigned)(p[i] - '0');
		else if ((p[i] | 0x20) >= 'a' && (p[i] | 0x20) <= 'f')
			*u |= (unsigned)((p[i] | 0x20) - 'a' + 10);
		else
			return -1;
	}
	return 0;
}

/* \uXXXX (and its low surrogate) at p, below e, as UTF-8 at *o.
 * Returns the bytes of text read, 0 when they are no code point. */
static size_t
utf16(const char *p, const char *e, char **o)
{
	unsigned c, lo;
	size_t n = 6;
	unsigned char *u = (unsigned char *)*o;

	if (e - p < 6 || hex4(p + 2, &c) == -1 || (c >= 0xdc00 && c <= 0xdfff))
		return 0;
	if (c >= 0xd800 && c <= 0xdbff) {
		if (e - p < 12 || p[6] != '\\' || p[7] != 'u' || hex4(p + 8, &lo) == -1 ||
		    lo < 0xdc00 || lo > 0xdfff)
			return 0;
		c = 0x10000 + (((c & 0x3ff) << 10) | (lo & 0x3ff));
		n = 12;
	}
	if (c < 0x80)
		*u++ = (unsigned char)c;
	else if (c < 0x800) {
		*u++ = (unsigned char)(0xc0 | c >> 6);
		*u++ = (unsigned char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*u++ = (unsigned char)(0xe0 | c >> 12);
		*u++ = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
		*u++ = (unsigned char)(0x80 | (c & 0x3f));
	} else {
		*u++ = (unsigned char)(0xf0 | c >> 18);
		*u++ = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
		*u++ = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
		*u++ = (unsigned char)(0x80 | (c & 0x3f));
	}
	*o = (char *)u;
	return n;
}

const char *
mc_json_skip_string(const char *p, const char *e)
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

/* The string at j->p (on its quote), unescaped into a new allocation. */
static char *
string(struct jp *j)
{
	const char *start = j->p + 1, *close, *p, *q;
	char *out, *o;
	size_t n;

	if ((close = mc_json_skip_string(j->p, j->end)) == NULL) {
		j->fail = start;
		return NULL;
	}
	close--;
	if ((out = malloc((size_t)(close - start) + 1)) == NULL)
		mc_oom();
	for (o = out, p = start; p < close;) {
		if ((q = memchr(p, '\\', (size_t)(close - p))) == NULL)
			q = close;
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		if ((p = q) == close)
			break;
		switch (p[1]) {
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case '"': case '\\': case '/': *o++ = p[1]; break;
		case 'u':
			if ((n = utf16(p, close, &o)) == 0)
				goto bad;
			p += n;
			continue;
		default:
			goto bad;
		}
		p += 2;
	}
	*o = '\0';
	j->p = close + 1;
	return out;
bad:
	free(out);
	j->fail = p;
	return NULL;
}

/* As cJSON: the run of characters a number may hold, to strtod. */
static cJSON *
number(struct jp *j)
{
	char small[64], *num = small, *stop;
	size_t n = 0;
	double d;
	cJSON *v;

	while (j->p + n < j->end && j->p[n] != '\0' && strchr("0123456789+-eE.", j->p[n]) != NULL)
		n++;
	if (n >= sizeof small && (num = malloc(n + 1)) == NULL)
		mc_oom();
	memcpy(num, j->p, n);
	num[n] = '\0';
	d = strtod(num, &stop);
	n = (size_t)(stop - num);
	if (num != small)
		free(num);
	if (n == 0)
		return failed(j, j->p, NULL);
	j->p += n;
	if ((v = cJSON_CreateNumber(d)) == NULL)
		mc_oom();
	return v;
}

static cJSON *
literal(struct jp *j, const char *word, cJSON *(*make)(void))
{
	size_t n = strlen(word);
	cJSON *v;

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
		return failed(j, j->p, NULL);
	j->p += n;
	if ((v = make()) == NULL)
		mc_oom();
	return v;
}

static cJSON *
make_true(void)
{
	return cJSON_CreateTrue();
}

static cJSON *
make_false(void)
{
	return cJSON_CreateFalse();
}

/* An array or an object: open is '[' or '{'. */
static cJSON *
container(struct jp *j, char open)
{
	char close = open == '[' ? ']' : '}';
	cJSON *c, *v;
	char *key = NULL;

	if (j->depth >= CJSON_NESTING_LIMIT)
		return failed(j, j->p, NULL);
	if ((c = open == '[' ? cJSON_CreateArray() : cJSON_CreateObject()) == NULL)
		mc_oom();
	j->depth++;
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return c;
	}
	for (;;) {
		if (j->p == j->end)
			return failed(j, j->p - 1, c);
		if (open == '{') {
			/* cJSON points a key that is no string one byte on */
			if (*j->p != '"')
				return failed(j, j->p + 1, c);
			if ((key = string(j)) == NULL)
				return failed(j, j->fail, c);
			ws(j);
			if (j->p == j->end || *j->p != ':') {
				free(key);
				return failed(j, j->p, c);
			}
			j->p++;
			ws(j);
		}
		if ((v = value(j)) == NULL) {
			free(key);
			return failed(j, j->fail, c);
		}
		v->string = key;
		key = NULL;
		cJSON_AddItemToArray(c, v);	/* the same list for an object */
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			ws(j);
			continue;
		}
		if (j->p == j->end || *j->p != close)
			return failed(j, j->p, c);
		j->p++;
		j->depth--;
		return c;
	}
}

static cJSON *
value(struct jp *j)
{
	char *s;

	if (j->p == j->end)
		return failed(j, j->p, NULL);
	switch (*j->p) {
	case '"':
		return (s = string(j)) == NULL ? NULL : mc_json_new_owned(s);
	case '{': case '[':
		return container(j, *j->p);
	case 'n':
		return literal(j, "null", cJSON_CreateNull);
	case 't':
		return literal(j, "true", make_true);
	case 'f':
		return literal(j, "false", make_false);
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return number(j);
	}
	return failed(j, j->p, NULL);
}

cJSON *
mc_json_parse_value(const char *p, const char *e, const char **end)
{
	struct jp j = { .p = p, .end = e };
	cJSON *v;

	ws(&j);
	if ((v = value(&j)) == NULL) {
		/* cJSON points past-the-end failures at the last byte */
		*end = j.fail < e ? j.fail : e > p ? e - 1 : p;
		return NULL;
	}
	*end = j.p;
	return v;
}

cJSON *
mc_json_parse_doc(const char *s, size_t len, const char **end)
{
	/* A byte-order mark may open the text, as cJSON allows (when five
	 * bytes or more follow: cJSON's own test). */
	size_t skip = len >= 5 && memcmp(s, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;

	return mc_json_parse_value(s + skip, s + len, end);
}
