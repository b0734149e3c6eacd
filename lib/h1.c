/* h1.c: an HTTP/1.x response read as it arrives (RFC 9112): the head, then the body by Content-Length, chunks or the connection's end. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "h1.h"

#define LINE_MAX_CHUNK 4096	/* a chunk's size line, extensions and all */
#define SIZE_MAX_CHUNK (1ull << 60)

static int
bad(struct mc_h1 *h, const char *why)
{
	h->state = MC_H1_BAD;
	h->keep = 0;
	snprintf(h->err, sizeof h->err, "%s", why);
	return -1;
}

/* s (n bytes) without the white space around it. */
static void
trim(const char **s, size_t *n)
{
	while (*n > 0 && (**s == ' ' || **s == '\t')) {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
		(*n)--;
}

/* Copy a field's value into dst when it fits, printable bytes only. */
static void
keep_value(char *dst, size_t dsz, const char *v, size_t n)
{
	size_t i;

	if (n >= dsz)
		return;
	for (i = 0; i < n; i++)
		dst[i] = (unsigned char)v[i] < ' ' || v[i] == 0x7f ? '?' : v[i];
	dst[n] = '\0';
}

/* Each comma-separated token of a Connection value. */
static void
connection(struct mc_h1 *h, const char *v, size_t n, int *alive)
{
	const char *t;
	size_t tn;

	while (n > 0) {
		for (tn = 0; tn < n && v[tn] != ','; tn++)
			;
		t = v;
		v += tn;
		n -= tn;
		if (n > 0) {
			v++;
			n--;
		}
		trim(&t, &tn);
		if (tn == 5 && strncasecmp(t, "close", 5) == 0)
			h->close = 1;
		else if (tn == 10 && strncasecmp(t, "keep-alive", 10) == 0)
			*alive = 1;
	}
}

/* A Content-Length: a length, or a list of the same one (RFC 9110 §8.6;
 * empty elements of a list are no elements, §5.6.1). */
static int
content_length(struct mc_h1 *h, const char *v, size_t n)
{
	unsigned long long x;
	const char *t;
	size_t tn;
	int any = 0;

	do {
		for (tn = 0; tn < n && v[tn] != ','; tn++)
			;
		t = v;
		v += tn < n ? tn + 1 : tn;
		n -= tn < n ? tn + 1 : tn;
		trim(&t, &tn);
		if (tn == 0)
			continue;
		any = 1;
		for (x = 0; tn > 0; t++, tn--) {
			if (!isdigit((unsigned char)*t) || x > (SIZE_MAX_CHUNK - 9) / 10)
				return bad(h, "a Content-Length that is not a length");
			x = x * 10 + (unsigned)(*t - '0');
		}
		if (h->has_length && x != h->left)
			return bad(h, "two different Content-Lengths");
		h->has_length = 1;
		h->left = x;
	} while (n > 0);
	return any ? 0 : bad(h, "an empty Content-Length");
}

/* One header field line (no line end). */
static int
field(struct mc_h1 *h, const char *s, size_t n, int *alive)
{
	const char *colon = memchr(s, ':', n), *v, *last;
	size_t k, vn;

	if (n > 0 && (s[0] == ' ' || s[0] == '\t'))
		return 0;	/* an obsolete continuation of the field before */
	if (colon == NULL)
		return 0;
	k = (size_t)(colon - s);
	v = colon + 1;
	vn = n - k - 1;
	trim(&v, &vn);
	if (k == 14 && strncasecmp(s, "content-length", k) == 0)
		return content_length(h, v, vn);
	if (k == 17 && strncasecmp(s, "transfer-encoding", k) == 0) {
		/* Chunked only when it is the last coding (RFC 9112 §6.3). */
		last = memrchr(v, ',', vn);
		if (last != NULL) {
			vn -= (size_t)(last + 1 - v);
			v = last + 1;
			trim(&v, &vn);
		}
		h->chunked = vn == 7 && strncasecmp(v, "chunked", 7) == 0 ? 1 : -1;
	} else if (k == 10 && strncasecmp(s, "connection", k) == 0)
		connection(h, v, vn, alive);
	else if (k == 11 && strncasecmp(s, "retry-after", k) == 0)
		keep_value(h->retry_after, sizeof h->retry_after, v, vn);
	else if (k == 14 && strncasecmp(s, "retry-after-ms", k) == 0)
		keep_value(h->retry_after_ms, sizeof h->retry_after_ms, v, vn);
	else if (k == 12 && strncasecmp(s, "content-type", k) == 0)
		keep_value(h->content_type, sizeof h->content_type, v, vn);
	else if (k == 14 && strncasecmp(s, "mcp-session-id", k) == 0)
		keep_value(h->mcp_session, sizeof h->mcp_session, v, vn);
	return 0;
}

/* The head in h->line is whole: its status, fields and the body's framing. */
static int
head(struct mc_h1 *h)
{
	const char *s = h->line.data, *end = s + h->line.len, *nl;
	size_t n, v = 0;
	long status;
	int alive = 0;

	nl = memchr(s, '\n', (size_t)(end - s));
	n = (size_t)(nl - s);
	if (n > 0 && s[n - 1] == '\r')
		n--;
	/* "HTTP/1.1 200 OK"; libcurl hands on "HTTP/2 200" alike. */
	if (n >= 7 && memcmp(s, "HTTP/1.", 7) == 0 && isdigit((unsigned char)s[7]))
		v = 8;
	else if (h->any_version && n >= 6 && memcmp(s, "HTTP/", 5) == 0 &&
	    (s[5] == '2' || s[5] == '3'))
		v = 6;
	if (v == 0 || n < v + 4 || s[v] != ' ' || !isdigit((unsigned char)s[v + 1]) ||
	    !isdigit((unsigned char)s[v + 2]) || !isdigit((unsigned char)s[v + 3]) ||
	    (n > v + 4 && s[v + 4] != ' '))
		return bad(h, "not an HTTP/1 answer");
	h->http10 = v == 8 && s[7] == '0';
	status = (s[v + 1] - '0') * 100 + (s[v + 2] - '0') * 10 + (s[v + 3] - '0');
	h->reason[0] = h->retry_after[0] = h->retry_after_ms[0] = '\0';
	h->content_type[0] = h->mcp_session[0] = '\0';
	if (n > v + 5)
		keep_value(h->reason, sizeof h->reason, s + v + 5,
		    n - v - 5 < sizeof h->reason ? n - v - 5 : sizeof h->reason - 1);
	h->chunked = h->close = h->has_length = 0;
	h->left = 0;
	for (s = nl + 1; s < end; s = nl + 1) {
		nl = memchr(s, '\n', (size_t)(end - s));
		n = (size_t)(nl - s);
		if (n > 0 && s[n - 1] == '\r')
			n--;
		if (field(h, s, n, &alive) == -1)
			return -1;
	}
	h->seen += h->line.len;
	h->line.len = 0;
	/* The status stands only for a head taken whole: one that failed is
	 * no answer (NOCONN, not a cut one). */
	if (status < 100)
		return bad(h, "not an HTTP/1 answer");
	if (status == 101)
		return bad(h, "the server switched protocols");
	if (status < 200)	/* 100 Continue, 103 Early Hints: the answer follows */
		return 0;
	h->status = status;
	h->keep = h->http10 ? alive && !h->close : !h->close;
	/* Both framings, or chunks in HTTP/1.0: read it, but trust the
	 * connection no further (RFC 9112 §6.1, §6.3). */
	if (h->chunked != 0 && (h->has_length || h->http10))
		h->keep = 0;
	if (h->status == 204 || h->status == 304)
		h->state = MC_H1_DONE;
	else if (h->chunked == 1)
		h->state = MC_H1_CHUNK_SIZE;
	else if (h->chunked == 0 && h->has_length)
		h->state = h->left > 0 ? MC_H1_LENGTH : MC_H1_DONE;
	else {
		h->state = MC_H1_TILL_CLOSE;
		h->keep = 0;
	}
	return 0;
}

/* Take bytes into h->line up to a line's end: 1 when the line is whole,
 * 0 when more is needed, -1 when it would pass max (toolong says so). */
static int
take_line(struct mc_h1 *h, const char **p, size_t *n, size_t max, const char *toolong)
{
	const char *nl = memchr(*p, '\n', *n);
	size_t k = nl != NULL ? (size_t)(nl - *p) + 1 : *n;

	if (h->line.len + k > max)
		return bad(h, toolong);
	mc_buf_add(&h->line, *p, k);
	*p += k;
	*n -= k;
	return nl != NULL;
}

/*
 * Take a head's bytes into h->line: 1 once the blank line that ends it
 * came. Every head of the answer (1xx ones, blank lines before them)
 * counts against MC_H1_HEAD_MAX; a first line that cannot be a status
 * line fails at once, not when the head would have ended.
 */
static int
take_head(struct mc_h1 *h, const char **p, size_t *n)
{
	const char *s;
	size_t len, k;
	int r;

	for (;;) {
		if ((r = take_line(h, p, n, MC_H1_HEAD_MAX - h->seen,
		    "an answer's head over 64 KiB")) == -1)
			return -1;
		s = h->line.data;
		len = h->line.len;
		k = len > 0 && s[0] == '\r';	/* "\r\n" is a blank line, "\rSSH" is not */
		if (len > k && s[k] != '\n' && memcmp(s + k, "HTTP/", len - k < 5 ? len - k : 5) != 0)
			return bad(h, "not an HTTP/1 answer");
		if (r == 0)
			return 0;
		if (len == 1 || (len == 2 && s[0] == '\r')) {
			h->seen += len;	/* a blank line before a status line */
			h->line.len = 0;
		} else if (s[len - 2] == '\n' || (len >= 3 && s[len - 2] == '\r' && s[len - 3] == '\n'))
			return 1;	/* "\n\n" or "\n\r\n": the head's end */
	}
}

static int
chunk_size(struct mc_h1 *h)
{
	const char *s = h->line.data;
	unsigned long long x = 0;
	size_t i, n = h->line.len;
	int d;

	for (i = 0; i < n && isxdigit((unsigned char)s[i]); i++) {
		d = isdigit((unsigned char)s[i]) ? s[i] - '0' : (tolower((unsigned char)s[i]) - 'a' + 10);
		if (x > (SIZE_MAX_CHUNK >> 4))
			return bad(h, "a chunk too large");
		x = x << 4 | (unsigned)d;
	}
	if (i == 0)
		return bad(h, "a chunk without a size");
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < n && s[i] != ';' && s[i] != '\r' && s[i] != '\n')
		return bad(h, "a chunk's size line that is not one");
	h->line.len = 0;
	h->left = x;
	h->state = x > 0 ? MC_H1_CHUNK_DATA : MC_H1_TRAILER;
	return 0;
}

int
mc_h1_feed(struct mc_h1 *h, const char *p, size_t n, size_t *used,
    int (*body)(const char *p, size_t n, void *arg), void *arg)
{
	const char *start = p;
	size_t k;
	int r = 0;

	while (n > 0 && r == 0) {
		switch (h->state) {
		case MC_H1_HEAD:
			if ((r = take_head(h, &p, &n)) == 1)
				r = head(h);
			break;
		case MC_H1_LENGTH:
		case MC_H1_CHUNK_DATA:
		case MC_H1_TILL_CLOSE:
			k = h->state == MC_H1_TILL_CLOSE || n < h->left ? n : (size_t)h->left;
			if (h->state != MC_H1_TILL_CLOSE && (h->left -= k) == 0)
				h->state = h->state == MC_H1_LENGTH ? MC_H1_DONE : MC_H1_CHUNK_END;
			p += k;
			n -= k;
			r = body(p - k, k, arg);
			break;
		case MC_H1_CHUNK_SIZE:
			if ((r = take_line(h, &p, &n, LINE_MAX_CHUNK,
			    "a chunk's size line over 4 KiB")) == 1)
				r = chunk_size(h);
			break;
		case MC_H1_CHUNK_END:
			if ((r = take_line(h, &p, &n, 2, "a chunk longer than its size")) == 1) {
				r = 0;
				if (h->line.len == 2 && h->line.data[0] != '\r')
					r = bad(h, "a chunk longer than its size");
				else
					h->state = MC_H1_CHUNK_SIZE;
				h->line.len = 0;
			}
			break;
		case MC_H1_TRAILER:
			if ((r = take_line(h, &p, &n, MC_H1_HEAD_MAX, "a trailer line over 64 KiB")) == 1) {
				r = 0;
				if (h->line.len <= 2 && h->line.data[0] != ' ' &&
				    (h->line.len == 1 || h->line.data[0] == '\r'))
					h->state = MC_H1_DONE;
				h->line.len = 0;
			}
			break;
		case MC_H1_DONE:
			h->keep = 0;	/* more than the answer: the connection is not clean */
			*used = (size_t)(p - start);
			return 0;
		case MC_H1_BAD:
			r = -1;
			break;
		}
	}
	*used = (size_t)(p - start);
	return r;
}

int
mc_h1_eof(struct mc_h1 *h)
{
	if (h->state == MC_H1_TILL_CLOSE)
		h->state = MC_H1_DONE;
	return h->state == MC_H1_DONE;
}

void
mc_h1_reset(struct mc_h1 *h)
{
	struct mc_buf keep = h->line;
	int any = h->any_version;

	memset(h, 0, sizeof *h);
	keep.len = 0;
	h->line = keep;
	h->any_version = any;
}

void
mc_h1_free(struct mc_h1 *h)
{
	mc_buf_free(&h->line);
	memset(h, 0, sizeof *h);
}
