/* lsp.c: a language server's messages: Content-Length framing, read and written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lsp.h"

void
mc_lsp_feed(struct mc_lsp_reader *r, const char *p, size_t n)
{
	/* What was taken goes once it is most of the buffer: a copy per
	 * message at worst, never one per byte. */
	if (r->at > 0 && r->at >= r->buf.len / 2) {
		memmove(r->buf.data, r->buf.data + r->at, r->buf.len - r->at);
		r->buf.len -= r->at;
		r->at = 0;
	}
	mc_buf_add(&r->buf, p, n);
}

static int
bad(char *err, size_t errsz, const char *what)
{
	snprintf(err, errsz, "bad framing: %s", what);
	return -1;
}

/* The value of a Content-Length line, or -1. */
static long long
length_of(const char *v, const char *end)
{
	long long n = 0;

	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	if (v == end)
		return -1;
	for (; v < end && *v >= '0' && *v <= '9'; v++)
		if ((n = n * 10 + (*v - '0')) > (1LL << 40))
			return -1;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	return v == end ? n : -1;
}

int
mc_lsp_next(struct mc_lsp_reader *r, const char **body, size_t *len, char *err, size_t errsz)
{
	const char *p = r->buf.data + r->at, *end = r->buf.data + r->buf.len, *hend, *line, *nl, *colon;
	size_t have = r->buf.len - r->at;
	long long n = -1;

	if (have == 0)
		return 0;
	if ((hend = memmem(p, have < MC_LSP_HEADER_MAX ? have : MC_LSP_HEADER_MAX, "\r\n\r\n", 4)) == NULL)
		return have >= MC_LSP_HEADER_MAX ? bad(err, errsz, "no end of header") : 0;
	for (line = p; line < hend; line = nl + 2) {
		if ((nl = memmem(line, (size_t)(hend + 2 - line), "\r\n", 2)) == NULL)
			nl = hend;
		if ((colon = memchr(line, ':', (size_t)(nl - line))) == NULL)
			return bad(err, errsz, "a header line without a colon");
		if ((size_t)(colon - line) == 14 && strncasecmp(line, "Content-Length", 14) == 0 &&
		    (n = length_of(colon + 1, nl)) < 0)
			return bad(err, errsz, "Content-Length is not a number");
	}
	if (n < 0)
		return bad(err, errsz, "no Content-Length");
	if ((unsigned long long)n > r->max) {
		snprintf(err, errsz, "a message of %lld bytes, over the %zu-byte cap", n, r->max);
		return -1;
	}
	if ((size_t)(end - (hend + 4)) < (size_t)n)
		return 0;
	*body = hend + 4;
	*len = (size_t)n;
	r->at = (size_t)(hend + 4 + n - r->buf.data);
	return 1;
}

void
mc_lsp_reader_free(struct mc_lsp_reader *r)
{
	mc_buf_free(&r->buf);
	r->at = 0;
}

void
mc_lsp_frame(struct mc_buf *out, const char *json, size_t n)
{
	mc_buf_printf(out, "Content-Length: %zu\r\n\r\n", n);
	mc_buf_add(out, json, n);
}
