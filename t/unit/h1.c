/* t/unit/h1.c: HTTP/1.x answers read whole, byte by byte and cut in two at every point give the same body, state and fields. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "h1.h"

static int failures;

#define FAIL(...) do { printf("h1: " __VA_ARGS__); putchar('\n'); failures++; } while (0)

#define H11 "HTTP/1.1 200 OK\r\n"
#define H10 "HTTP/1.0 200 OK\r\n"
#define TE "Transfer-Encoding: chunked\r\n"

struct c {
	const char *name;
	const char *in;
	size_t len;		/* 0: strlen(in) */
	int eof;		/* the connection ends after the input */
	enum mc_h1_state st;
	long status;		/* not checked for MC_H1_BAD */
	int keep;
	const char *body;	/* NULL: none */
	size_t blen;		/* 0: strlen(body) */
	size_t rest;		/* bytes of the input left unread */
	const char *reason;	/* NULL: not checked */
	const char *ra, *ram;	/* Retry-After, retry-after-ms; NULL: "" */
};

/* What one reading of an answer gave. */
struct got {
	struct mc_buf body;
	enum mc_h1_state st;
	long status;
	int keep, ret, eof;
	size_t used;
	char reason[128], ra[128], ram[32], err[160];
};

struct sink {
	struct mc_buf *b;
	int stop;		/* what the callback returns */
};

static int
take(const char *p, size_t n, void *arg)
{
	struct sink *s = arg;

	mc_buf_add(s->b, p, n);
	return s->stop;
}

/*
 * Read in[0..len) as pieces of at most step bytes, cut once more at cut,
 * the way a connection would: stop at an error, a stop from the body
 * callback, or bytes the parser left unread.
 */
static void
run(struct mc_h1 *h, const char *in, size_t len, size_t cut, size_t step, int eof,
    int stop, struct got *g)
{
	struct sink s = { &g->body, stop };
	size_t pos = 0, m, end, used;

	memset(g, 0, sizeof *g);
	while (pos < len) {
		end = pos < cut && cut < len ? cut : len;
		m = end - pos < step ? end - pos : step;
		used = SIZE_MAX;
		g->ret = mc_h1_feed(h, in + pos, m, &used, take, &s);
		if (used > m) {
			FAIL("used %zu of a %zu-byte piece", used, m);
			used = m;
		}
		g->used += used;
		pos += m;
		if (g->ret != 0 || used < m)
			break;
	}
	g->eof = eof && g->ret == 0 ? mc_h1_eof(h) : -1;
	g->st = h->state;
	g->status = h->status;
	g->keep = h->keep;
	memcpy(g->reason, h->reason, sizeof g->reason);
	memcpy(g->ra, h->retry_after, sizeof g->ra);
	memcpy(g->ram, h->retry_after_ms, sizeof g->ram);
	memcpy(g->err, h->err, sizeof g->err);
}

static void
read_once(const char *in, size_t len, size_t cut, size_t step, int eof, struct got *g)
{
	struct mc_h1 h = {0};

	run(&h, in, len, cut, step, eof, 0, g);
	mc_h1_free(&h);
}

/* Two readings of the same answer differ: say how, once. */
static int
differ(const char *name, const char *how, const struct got *a, const struct got *b)
{
	const char *what = NULL;

	if (a->body.len != b->body.len ||
	    (a->body.len && memcmp(a->body.data, b->body.data, a->body.len) != 0))
		what = "body";
	else if (a->st != b->st)
		what = "state";
	else if (a->status != b->status)
		what = "status";
	else if (a->keep != b->keep)
		what = "keep";
	else if (a->ret != b->ret)
		what = "return";
	else if (a->eof != b->eof)
		what = "eof";
	else if (a->used != b->used && a->ret != -1)
		what = "used";	/* what an error leaves unread does not matter */
	else if (strcmp(a->reason, b->reason) != 0)
		what = "reason";
	else if (strcmp(a->ra, b->ra) != 0)
		what = "retry_after";
	else if (strcmp(a->ram, b->ram) != 0)
		what = "retry_after_ms";
	else if (strcmp(a->err, b->err) != 0)
		what = "err";
	if (what != NULL)
		FAIL("%s: %s gives another %s than whole", name, how, what);
	return what != NULL;
}

static void
expect(const struct c *c, size_t len, const struct got *g)
{
	const char *body = c->body ? c->body : "";
	size_t blen = c->blen ? c->blen : strlen(body);

	if (g->st != c->st)
		FAIL("%s: state %d, not %d (%s)", c->name, (int)g->st, (int)c->st, g->err);
	if (c->st == MC_H1_BAD) {
		if (g->ret != -1 || g->err[0] == '\0' || g->keep)
			FAIL("%s: bad but returns %d, keep %d, err \"%s\"", c->name, g->ret, g->keep, g->err);
		/* A head that failed is no answer: its status does not stand. */
		if (g->status != c->status)
			FAIL("%s: bad with status %ld, not %ld", c->name, g->status, c->status);
	} else {
		if (g->ret != 0)
			FAIL("%s: returns %d (%s)", c->name, g->ret, g->err);
		if (g->status != c->status)
			FAIL("%s: status %ld, not %ld", c->name, g->status, c->status);
		if (g->keep != c->keep)
			FAIL("%s: keep %d, not %d", c->name, g->keep, c->keep);
		if (g->used != len - c->rest)
			FAIL("%s: used %zu of %zu, not %zu", c->name, g->used, len, len - c->rest);
	}
	if (g->body.len != blen || memcmp(g->body.data ? g->body.data : "", body, g->body.len) != 0)
		FAIL("%s: body \"%.*s\", not \"%s\"", c->name, (int)g->body.len,
		    g->body.data ? g->body.data : "", body);
	if (c->reason != NULL && strcmp(g->reason, c->reason) != 0)
		FAIL("%s: reason \"%s\", not \"%s\"", c->name, g->reason, c->reason);
	if (strcmp(g->ra, c->ra ? c->ra : "") != 0)
		FAIL("%s: Retry-After \"%s\", not \"%s\"", c->name, g->ra, c->ra ? c->ra : "");
	if (strcmp(g->ram, c->ram ? c->ram : "") != 0)
		FAIL("%s: retry-after-ms \"%s\", not \"%s\"", c->name, g->ram, c->ram ? c->ram : "");
}

/* Whole, byte by byte, and cut in two at every point (at some 60 when long). */
static void
check(const struct c *c)
{
	size_t len = c->len ? c->len : strlen(c->in), cut;
	struct got whole, other;

	read_once(c->in, len, 0, SIZE_MAX, c->eof, &whole);
	expect(c, len, &whole);
	read_once(c->in, len, 0, 1, c->eof, &other);
	differ(c->name, "byte by byte", &whole, &other);
	mc_buf_free(&other.body);
	for (cut = 1; cut < len; cut += len <= 4096 ? 1 : len / 61 + 1) {
		read_once(c->in, len, cut, SIZE_MAX, c->eof, &other);
		if (differ(c->name, "cut in two", &whole, &other))
			cut = len;
		mc_buf_free(&other.body);
	}
	mc_buf_free(&whole.body);
}

static const struct c cases[] = {
	/* Content-Length */
	{ "length", H11 "Content-Length: 5\r\n\r\nhello", .st = MC_H1_DONE, .status = 200, .keep = 1,
	  .body = "hello", .reason = "OK" },
	{ "length 0", H11 "Content-Length: 0\r\n\r\n", .st = MC_H1_DONE, .status = 200, .keep = 1 },
	{ "length, more after", H11 "Content-Length: 2\r\n\r\nhiHTTP/1.1 200 OK\r\n", .st = MC_H1_DONE,
	  .status = 200, .body = "hi", .rest = 17 },
	{ "length 0, more after", H11 "Content-Length: 0\r\n\r\nx", .st = MC_H1_DONE, .status = 200,
	  .rest = 1 },
	{ "length cut short", H11 "Content-Length: 10\r\n\r\nabc", .eof = 1, .st = MC_H1_LENGTH,
	  .status = 200, .keep = 1, .body = "abc" },
	{ "two equal lengths", H11 "Content-Length: 3\r\nContent-Length:3 \r\n\r\nabc", .st = MC_H1_DONE,
	  .status = 200, .keep = 1, .body = "abc" },
	{ "length with NUL bytes", H11 "Content-Length: 3\r\n\r\na\0b", 41, .st = MC_H1_DONE,
	  .status = 200, .keep = 1, .body = "a\0b", .blen = 3 },
	{ "large length", H11 "Content-Length: 1000000000000000000\r\n\r\nab", .st = MC_H1_LENGTH,
	  .status = 200, .keep = 1, .body = "ab" },
	/* chunked */
	{ "chunked", H11 TE "\r\n5\r\nhello\r\nA\r\n0123456789\r\na\r\nabcdefghij\r\n1f\r\n"
	  "0123456789abcdef0123456789ABCDE\r\n0\r\n\r\n", .st = MC_H1_DONE, .status = 200, .keep = 1,
	  .body = "hello0123456789abcdefghij0123456789abcdef0123456789ABCDE" },
	{ "chunk extensions", H11 TE "\r\n5;a=b\r\nhello\r\n3 ; name=\"x;y\"\r\nabc\r\n000;last\r\n\r\n",
	  .st = MC_H1_DONE, .status = 200, .keep = 1, .body = "helloabc" },
	{ "trailers", H11 TE "\r\n2\r\nok\r\n0\r\nX-Checksum: 1\r\nServer-Timing: a;dur=1\r\n\r\n",
	  .st = MC_H1_DONE, .status = 200, .keep = 1, .body = "ok" },
	{ "LF only", "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n5\nhello\nB\n" "\n\n\n\n\n\n\n\n\n\n\n"
	  "\n0\nT: 1\n\n",
	  .st = MC_H1_DONE, .status = 200, .keep = 1, .body = "hello\n\n\n\n\n\n\n\n\n\n\n" },
	{ "chunked, more after", H11 TE "\r\n1\r\nx\r\n0\r\n\r\nHTTP", .st = MC_H1_DONE, .status = 200,
	  .body = "x", .rest = 4 },
	{ "chunked cut short", H11 TE "\r\n5\r\nhel", .eof = 1, .st = MC_H1_CHUNK_DATA, .status = 200,
	  .keep = 1, .body = "hel" },
	{ "chunked before the trailers end", H11 TE "\r\n0\r\nX: 1\r\n", .eof = 1, .st = MC_H1_TRAILER,
	  .status = 200, .keep = 1 },
	/* Chunks win over a length, but the connection is not trusted after. */
	{ "chunked wins over a length", H11 "Content-Length: 99\r\n" TE "\r\n2\r\nhi\r\n0\r\n\r\n",
	  .st = MC_H1_DONE, .status = 200, .keep = 0, .body = "hi" },
	{ "chunked in HTTP/1.0", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n" TE "\r\n"
	  "2\r\nhi\r\n0\r\n\r\n", .st = MC_H1_DONE, .status = 200, .keep = 0, .body = "hi" },
	{ "chunked last of the codings", H11 "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
	  "1\r\nz\r\n0\r\n\r\n", .st = MC_H1_DONE, .status = 200, .keep = 1, .body = "z" },
	/* till the connection ends */
	{ "HTTP/1.0 till close", H10 "Server: x\r\n\r\nabc", .eof = 1, .st = MC_H1_DONE, .status = 200,
	  .body = "abc" },
	{ "HTTP/1.0 till close, no eof", H10 "\r\nabc", .st = MC_H1_TILL_CLOSE, .status = 200,
	  .body = "abc" },
	{ "HTTP/1.1 without length", H11 "\r\nabc", .eof = 1, .st = MC_H1_DONE, .status = 200,
	  .body = "abc" },
	{ "gzip coding", H11 "Transfer-Encoding: gzip\r\nContent-Length: 1\r\n\r\nzzz", .eof = 1,
	  .st = MC_H1_DONE, .status = 200, .body = "zzz" },
	{ "chunked then gzip", H11 "Transfer-Encoding: chunked, gzip\r\n\r\n1\r\nz\r\n0\r\n\r\n", .eof = 1,
	  .st = MC_H1_DONE, .status = 200, .body = "1\r\nz\r\n0\r\n\r\n" },
	/* keep the connection or not */
	{ "HTTP/1.0 length", H10 "Content-Length: 3\r\n\r\nabc", .st = MC_H1_DONE, .status = 200,
	  .body = "abc" },
	{ "HTTP/1.0 keep-alive", H10 "Connection: keep-alive\r\nContent-Length: 3\r\n\r\nabc",
	  .st = MC_H1_DONE, .status = 200, .keep = 1, .body = "abc" },
	{ "HTTP/1.0 keep-alive in a list", H10 "connection: foo ,Keep-Alive\t\r\nContent-Length: 0\r\n\r\n",
	  .st = MC_H1_DONE, .status = 200, .keep = 1 },
	{ "HTTP/1.0 keep-alive till close", H10 "Connection: keep-alive\r\n\r\nab", .eof = 1,
	  .st = MC_H1_DONE, .status = 200, .body = "ab" },
	{ "HTTP/1.0 keep-alive and close", H10 "Connection: keep-alive, close\r\nContent-Length: 0\r\n\r\n",
	  .st = MC_H1_DONE, .status = 200 },
	{ "HTTP/1.1 close", H11 "Connection: close\r\nContent-Length: 2\r\n\r\nok", .st = MC_H1_DONE,
	  .status = 200, .body = "ok" },
	{ "HTTP/1.1 close in a list", H11 "Connection: Upgrade, CLOSE\r\nContent-Length: 0\r\n\r\n",
	  .st = MC_H1_DONE, .status = 200 },
	{ "HTTP/1.1 closed, not close", H11 "Connection: closed\r\nContent-Length: 0\r\n\r\n",
	  .st = MC_H1_DONE, .status = 200, .keep = 1 },
	/* interim answers and heads without a body */
	{ "100 Continue", "HTTP/1.1 100 Continue\r\n\r\n" H11 "Content-Length: 2\r\n\r\nok",
	  .st = MC_H1_DONE, .status = 200, .keep = 1, .body = "ok", .reason = "OK" },
	{ "103 then 100", "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\nRetry-After: 9\r\n"
	  "Content-Length: 7\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n"
	  "HTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx", .st = MC_H1_DONE, .status = 201, .keep = 1,
	  .body = "x", .reason = "Created" },
	{ "100 alone", "HTTP/1.1 100 Continue\r\n\r\n", .eof = 1, .st = MC_H1_HEAD },
	{ "204", "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", .st = MC_H1_DONE, .status = 204,
	  .keep = 1 },
	{ "204 then bytes", "HTTP/1.1 204 No Content\r\n\r\nabc", .st = MC_H1_DONE, .status = 204,
	  .rest = 3 },
	{ "304 chunked", "HTTP/1.1 304 Not Modified\r\n" TE "\r\n", .st = MC_H1_DONE, .status = 304,
	  .keep = 1, .reason = "Not Modified" },
	/* the head's form */
	{ "blank lines first", "\r\n\n\r\n" H11 "Content-Length: 1\r\n\r\nx", .st = MC_H1_DONE,
	  .status = 200, .keep = 1, .body = "x" },
	{ "LF-only head", "HTTP/1.1 200 OK\nContent-Length: 1\n\nx", .st = MC_H1_DONE, .status = 200,
	  .keep = 1, .body = "x" },
	{ "folded lines", H11 "X-A: a\r\n Content-Length: 99\r\n\tRetry-After: 5\r\nContent-Length: 1\r\n"
	  "\r\nx", .st = MC_H1_DONE, .status = 200, .keep = 1, .body = "x" },
	{ "names in any case", H11 "TRANSFER-encoding: CHUNKED\r\nRETRY-after: 3\r\nRetry-After-MS: 2500\r\n"
	  "\r\n1\r\nx\r\n0\r\n\r\n", .st = MC_H1_DONE, .status = 200, .keep = 1, .body = "x",
	  .ra = "3", .ram = "2500" },
	{ "content-length in lower case", H11 "content-LENGTH: 1\r\n\r\nx", .st = MC_H1_DONE, .status = 200,
	  .keep = 1, .body = "x" },
	{ "a line without a colon", H11 "garbage\r\nContent-Length: 1\r\n\r\nx", .st = MC_H1_DONE,
	  .status = 200, .keep = 1, .body = "x" },
	{ "429", "HTTP/1.1 429 Too Many Requests\r\nRetry-After:  30 \r\nretry-after-ms: 1500\r\n"
	  "Content-Length: 2\r\n\r\n{}", .st = MC_H1_DONE, .status = 429, .keep = 1, .body = "{}",
	  .reason = "Too Many Requests", .ra = "30", .ram = "1500" },
	{ "Retry-After date", "HTTP/1.1 503 Service Unavailable\r\nRetry-After: Wed, 21 Oct 2015 07:28:00 GMT"
	  "\r\nContent-Length: 0\r\n\r\n", .st = MC_H1_DONE, .status = 503, .keep = 1,
	  .ra = "Wed, 21 Oct 2015 07:28:00 GMT" },
	{ "control bytes", "HTTP/1.1 500 Oops\x1b[31m\r\nRetry-After: 1\x01" "2\x7f\r\nretry-after-ms: \t4\t5\r\n"
	  "Content-Length: 0\r\n\r\n", .st = MC_H1_DONE, .status = 500, .keep = 1, .reason = "Oops?[31m",
	  .ra = "1?2?", .ram = "4?5" },
	{ "no reason", "HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n", .st = MC_H1_DONE, .status = 404,
	  .keep = 1, .reason = "" },
	{ "empty reason", "HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n", .st = MC_H1_DONE, .status = 404,
	  .keep = 1, .reason = "" },
	{ "a head not yet whole", H11 "Content-Length: 1\r\n", .eof = 1, .st = MC_H1_HEAD },
	/* not HTTP/1, or not an answer to read */
	{ "SSH", "SSH-2.0-OpenSSH_9.6\r\n\r\n", .st = MC_H1_BAD },
	/* Known bad at the first bytes, without waiting for a head's end. */
	{ "SSH, no blank line", "SSH-2.0-OpenSSH_9.6\r\n", .st = MC_H1_BAD },
	{ "not HTTP, 3 bytes", "SSH", .st = MC_H1_BAD },
	{ "not HTTP after a CR", "\rSSH-2.0-OpenSSH_9.6\r\n", .st = MC_H1_BAD },
	{ "HTTP/2", "HTTP/2 200\r\n\r\n", .st = MC_H1_BAD },
	{ "two-digit status", "HTTP/1.1 20\r\n\r\n", .st = MC_H1_BAD },
	{ "status glued to reason", "HTTP/1.1 200OK\r\n\r\n", .st = MC_H1_BAD },
	{ "status under 100", "HTTP/1.1 099 Low\r\n\r\n", .st = MC_H1_BAD },
	{ "lower-case http", "http/1.1 200 OK\r\n\r\n", .st = MC_H1_BAD },
	{ "101", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n",
	  .st = MC_H1_BAD },
	{ "two lengths", H11 "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", .st = MC_H1_BAD },
	{ "length not a number", H11 "Content-Length: 12a\r\n\r\n", .st = MC_H1_BAD },
	{ "length negative", H11 "Content-Length: -1\r\n\r\n", .st = MC_H1_BAD },
	{ "length a list of one", H11 "Content-Length: 1, 1\r\n\r\nx", .st = MC_H1_DONE, .status = 200,
	  .keep = 1, .body = "x" },
	{ "length a list of two", H11 "Content-Length: 1, 2\r\n\r\nx", .st = MC_H1_BAD },
	{ "length a list, one empty", H11 "Content-Length: 1,,\r\n\r\nx", .st = MC_H1_DONE,
	  .status = 200, .keep = 1, .body = "x" },
	{ "length a list of nothing", H11 "Content-Length: , \r\n\r\nx", .st = MC_H1_BAD },
	{ "length empty", H11 "Content-Length:\r\n\r\n", .st = MC_H1_BAD },
	{ "length overflows", H11 "Content-Length: 18446744073709551617\r\n\r\n", .st = MC_H1_BAD },
	{ "length over the limit", H11 "Content-Length: 1152921504606846976\r\n\r\n", .st = MC_H1_BAD },
	{ "chunk without a size", H11 TE "\r\n\r\n", .st = MC_H1_BAD, .status = 200 },
	{ "chunk with only an extension", H11 TE "\r\n;a=b\r\nx\r\n0\r\n\r\n", .st = MC_H1_BAD, .status = 200 },
	{ "chunk size not hex", H11 TE "\r\nxyz\r\n", .st = MC_H1_BAD, .status = 200 },
	{ "chunk size with a sign", H11 TE "\r\n+5\r\nhello\r\n", .st = MC_H1_BAD, .status = 200 },
	{ "garbage after a chunk size", H11 TE "\r\n5x\r\nhello\r\n", .st = MC_H1_BAD, .status = 200 },
	{ "two chunk sizes", H11 TE "\r\n5 5\r\nhello\r\n", .st = MC_H1_BAD, .status = 200 },
	{ "chunk size overflows", H11 TE "\r\n10000000000000000\r\n", .st = MC_H1_BAD, .status = 200 },
	{ "chunk size over the limit", H11 TE "\r\nFFFFFFFFFFFFFFFF\r\n", .st = MC_H1_BAD, .status = 200 },
	{ "chunk longer than its size", H11 TE "\r\n3\r\nabcd\r\n0\r\n\r\n", .st = MC_H1_BAD, .status = 200, .body = "abc" },
	{ "chunk one byte longer, LF", H11 TE "\r\n3\r\nabcd\n0\r\n\r\n", .st = MC_H1_BAD, .status = 200, .body = "abc" },
	{ "chunk with no line end", H11 TE "\r\n3\r\nabcdefg", .st = MC_H1_BAD, .status = 200, .body = "abc" },
};

/* Add a head of exactly n bytes: the status line, one padding field, a blank line. */
static void
add_head(struct mc_buf *b, size_t n, const char *status)
{
	size_t start = b->len;

	mc_buf_printf(b, "%s\r\nX-Pad: ", status);
	while (b->len - start < n - 4)
		mc_buf_addc(b, 'p');
	mc_buf_adds(b, "\r\n\r\n");
}

/* Add a chunked body of one chunk whose size line is n bytes long. */
static void
add_chunk(struct mc_buf *b, size_t n, const char *size, char pad)
{
	size_t start = b->len;

	mc_buf_adds(b, size);
	while (b->len - start < n - 2)
		mc_buf_addc(b, pad);
	mc_buf_adds(b, "\r\nhello\r\n0\r\n\r\n");
}

/* Lengths at the limits: reason, Retry-After, head, chunk size line. */
static void
limits(void)
{
	struct mc_buf b = {0};
	char v[201];
	struct c c;

	memset(v, 'r', 200);
	v[200] = '\0';
	mc_buf_printf(&b, "HTTP/1.1 200 %s\r\nContent-Length: 0\r\n\r\n", v);
	v[127] = '\0';
	c = (struct c){ "long reason", b.data, .st = MC_H1_DONE, .status = 200, .keep = 1, .reason = v };
	check(&c);

	memset(v, '7', 200);
	b.len = 0;
	mc_buf_printf(&b, H11 "Retry-After: %.127s\r\nretry-after-ms: %.31s\r\nContent-Length: 0\r\n\r\n", v, v);
	v[127] = '\0';
	c = (struct c){ "longest Retry-After", b.data, .st = MC_H1_DONE, .status = 200, .keep = 1,
	    .ra = v, .ram = v + 127 - 31 };
	check(&c);
	b.len = 0;
	mc_buf_printf(&b, H11 "Retry-After: %s7\r\nretry-after-ms: %.32s\r\nContent-Length: 0\r\n\r\n", v, v);
	c = (struct c){ "Retry-After too long", b.data, .st = MC_H1_DONE, .status = 200, .keep = 1 };
	check(&c);

	b.len = 0;
	add_head(&b, MC_H1_HEAD_MAX, "HTTP/1.1 204 No Content");
	c = (struct c){ "the longest head", b.data, .st = MC_H1_DONE, .status = 204, .keep = 1 };
	check(&c);
	b.len = 0;
	add_head(&b, MC_H1_HEAD_MAX + 1, "HTTP/1.1 204 No Content");
	c = (struct c){ "a head too long", b.data, .st = MC_H1_BAD };
	check(&c);
	/* The limit is on all the heads of an answer, the interim ones and the
	 * blank lines before them too: a server cannot keep the reader busy. */
	b.len = 0;
	add_head(&b, MC_H1_HEAD_MAX / 2, "HTTP/1.1 103 Early Hints");
	add_head(&b, MC_H1_HEAD_MAX / 2, "HTTP/1.1 204 No Content");
	c = (struct c){ "two heads, the longest", b.data, .st = MC_H1_DONE, .status = 204, .keep = 1 };
	check(&c);
	b.len = 0;
	add_head(&b, MC_H1_HEAD_MAX / 2, "HTTP/1.1 103 Early Hints");
	add_head(&b, MC_H1_HEAD_MAX / 2 + 1, "HTTP/1.1 204 No Content");
	c = (struct c){ "two heads too long", b.data, .st = MC_H1_BAD };
	check(&c);
	b.len = 0;
	while (b.len < MC_H1_HEAD_MAX)
		mc_buf_adds(&b, "\r\n");
	mc_buf_adds(&b, "HTTP/1.1 204 No Content\r\n\r\n");
	c = (struct c){ "blank lines without end", b.data, .st = MC_H1_BAD };
	check(&c);

	b.len = 0;
	mc_buf_adds(&b, H11 TE "\r\n");
	add_chunk(&b, 4096, "5;", 'e');
	c = (struct c){ "the longest chunk size line", b.data, .st = MC_H1_DONE, .status = 200, .keep = 1,
	    .body = "hello" };
	check(&c);
	b.len = 0;
	mc_buf_adds(&b, H11 TE "\r\n");
	add_chunk(&b, 4097, "5;", 'e');
	c = (struct c){ "a chunk size line too long", b.data, .st = MC_H1_BAD, .status = 200 };
	check(&c);
	b.len = 0;
	mc_buf_adds(&b, H11 TE "\r\n");
	add_chunk(&b, 4096, "", '0');
	b.data[b.len - 15] = '5';	/* the last digit of the size */
	c = (struct c){ "leading zeros", b.data, .st = MC_H1_DONE, .status = 200, .keep = 1, .body = "hello" };
	check(&c);
	mc_buf_free(&b);
}

/* A body callback that says stop: the feed stops there and returns its value. */
static void
stop(void)
{
	static const char *in[] = {
		H11 "Content-Length: 5\r\n\r\nhello",
		H11 TE "\r\n5\r\nhello\r\n0\r\n\r\n",
		H10 "\r\nhello",
	};
	struct mc_h1 h = {0};
	struct got g;
	size_t i, len, at;

	for (i = 0; i < sizeof in / sizeof in[0]; i++) {
		len = strlen(in[i]);
		at = (size_t)(strstr(in[i], "hello") - in[i]);
		run(&h, in[i], len, 0, SIZE_MAX, 0, 7, &g);
		if (g.ret != 7 || g.body.len != 5 || g.used != at + 5)
			FAIL("stop %zu: returns %d, %zu bytes, used %zu", i, g.ret, g.body.len, g.used);
		mc_buf_free(&g.body);
		mc_h1_reset(&h);
		run(&h, in[i], len, 0, 1, 0, 7, &g);
		if (g.ret != 7 || g.body.len != 1 || g.used != at + 1)
			FAIL("stop %zu byte by byte: returns %d, %zu bytes, used %zu", i, g.ret, g.body.len,
			    g.used);
		mc_buf_free(&g.body);
		mc_h1_reset(&h);
	}
	mc_h1_free(&h);
}

/* One struct read answer after answer, as on a kept connection. */
static void
again(void)
{
	static const char a1[] = "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nretry-after-ms: 3000\r\n"
	    "Content-Length: 2\r\n\r\n{}";
	static const char a2[] = H11 TE "\r\n2\r\nok\r\n0\r\n\r\n";
	struct mc_h1 h = {0};
	struct got g;
	char both[sizeof a1 + sizeof a2];
	int i;

	for (i = 0; i < 2; i++) {
		run(&h, a1, strlen(a1), 0, i ? 1 : SIZE_MAX, 0, 0, &g);
		if (g.st != MC_H1_DONE || g.status != 429 || !g.keep || strcmp(g.ra, "3") != 0 ||
		    g.body.len != 2)
			FAIL("again %d: first answer: state %d, status %ld, keep %d", i, (int)g.st, g.status,
			    g.keep);
		mc_buf_free(&g.body);
		mc_h1_reset(&h);
		if (h.state != MC_H1_HEAD || h.status != 0 || h.keep || h.retry_after[0] || h.reason[0])
			FAIL("again %d: reset leaves state %d, status %ld", i, (int)h.state, h.status);
		run(&h, a2, strlen(a2), 0, i ? SIZE_MAX : 1, 0, 0, &g);
		if (g.st != MC_H1_DONE || g.status != 200 || !g.keep || g.ra[0] || g.ram[0] ||
		    strcmp(g.reason, "OK") != 0 || g.body.len != 2 || memcmp(g.body.data, "ok", 2) != 0)
			FAIL("again %d: second answer: state %d, status %ld, keep %d, Retry-After \"%s\"", i,
			    (int)g.st, g.status, g.keep, g.ra);
		mc_buf_free(&g.body);
		mc_h1_reset(&h);
		run(&h, "HTTP/2 200\r\n\r\n", 14, 0, SIZE_MAX, 0, 0, &g);
		mc_h1_reset(&h);
		run(&h, a2, strlen(a2), 0, SIZE_MAX, 0, 0, &g);
		if (g.st != MC_H1_DONE || g.err[0])
			FAIL("again %d: after a bad answer: state %d, err \"%s\"", i, (int)g.st, g.err);
		mc_buf_free(&g.body);
		mc_h1_reset(&h);
	}
	/* Two answers in one read: the first leaves the second unread. */
	snprintf(both, sizeof both, "%s%s", a1, a2);
	run(&h, both, strlen(both), 0, SIZE_MAX, 0, 0, &g);
	if (g.st != MC_H1_DONE || g.used != strlen(a1) || g.keep)
		FAIL("two answers: state %d, used %zu, keep %d", (int)g.st, g.used, g.keep);
	mc_buf_free(&g.body);
	mc_h1_reset(&h);
	run(&h, both + strlen(a1), strlen(a2), 0, SIZE_MAX, 0, 0, &g);
	if (g.st != MC_H1_DONE || g.status != 200 || !g.keep)
		FAIL("two answers: the second: state %d, status %ld", (int)g.st, g.status);
	mc_buf_free(&g.body);
	mc_h1_free(&h);
}

/* The heads libcurl hands on: an HTTP/2 or HTTP/3 status line too, when
 * the caller says so, and only then. */
static void
libcurl_heads(void)
{
	static const char h2[] = "HTTP/2 429 \r\nretry-after: 7\r\n\r\n";
	static const char h3[] = "HTTP/3 200 OK\r\n\r\n";
	struct mc_h1 h = { .any_version = 1 };
	struct mc_buf body = {0};
	struct sink sk = { .b = &body };
	size_t used;

	if (mc_h1_feed(&h, h2, strlen(h2), &used, take, &sk) != 0 || h.status != 429 ||
	    strcmp(h.retry_after, "7") != 0 || h.reason[0] != '\0')
		FAIL("libcurl's HTTP/2 head: status %ld, Retry-After \"%s\" (%s)", h.status,
		    h.retry_after, h.err);
	mc_h1_reset(&h);
	if (!h.any_version || mc_h1_feed(&h, h3, strlen(h3), &used, take, &sk) != 0 ||
	    h.status != 200 || strcmp(h.reason, "OK") != 0)
		FAIL("libcurl's HTTP/3 head after a reset: status %ld (%s)", h.status, h.err);
	mc_h1_free(&h);
	if (mc_h1_feed(&h, h2, strlen(h2), &used, take, &sk) != -1)
		FAIL("an HTTP/2 head on a plain connection is taken");
	mc_h1_free(&h);
	mc_buf_free(&body);
}

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check(&cases[i]);
	limits();
	stop();
	again();
	libcurl_heads();
	return failures ? 1 : 0;
}
