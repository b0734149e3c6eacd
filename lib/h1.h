/* h1.h: an HTTP/1.x response read as it arrives: its head, then a body framed by length, chunks or the connection's end. */
#ifndef MC_H1_H
#define MC_H1_H

#include <stddef.h>

#include "buf.h"

#define MC_H1_HEAD_MAX (64u << 10)	/* an answer's head, 1xx ones included */

enum mc_h1_state {
	MC_H1_HEAD,		/* the status line and header fields */
	MC_H1_LENGTH,		/* Content-Length bytes of body */
	MC_H1_TILL_CLOSE,	/* body until the connection ends */
	MC_H1_CHUNK_SIZE,	/* a chunk's size line */
	MC_H1_CHUNK_DATA,
	MC_H1_CHUNK_END,	/* the line end after a chunk's data */
	MC_H1_TRAILER,		/* trailer fields after the last chunk */
	MC_H1_DONE,		/* the whole answer came */
	MC_H1_BAD,		/* not HTTP/1: err says why */
};

struct mc_h1 {
	int any_version;		/* set by the caller: heads as libcurl hands
					 * them on, "HTTP/2 200" too */
	enum mc_h1_state state;
	long status;			/* 0 until the final status line came */
	int keep;			/* the connection may carry another request */
	char reason[128];		/* the status line's reason phrase */
	char retry_after[128];		/* Retry-After, "" when none */
	char retry_after_ms[32];	/* retry-after-ms (OpenAI) */
	char content_type[128];		/* Content-Type, "" when none */
	char mcp_session[256];		/* Mcp-Session-Id (MCP's Streamable HTTP) */
	char err[160];
	/* private */
	struct mc_buf line;		/* a head, or a chunk's size line, so far */
	unsigned long long left;	/* bytes left of the body or the chunk */
	size_t seen;			/* bytes of the heads before this one */
	int http10, chunked, close, has_length, lf;
};

/*
 * Feed n bytes of the answer. Body bytes go to body(p, n, arg) as they
 * come, in place; a nonzero return from it stops the feed, which returns
 * it. Otherwise 0, or -1 when the answer is not HTTP/1 (state MC_H1_BAD,
 * err says why). Bytes after the answer's end are left unread (*used
 * tells how many were taken) and the connection is not kept.
 */
int mc_h1_feed(struct mc_h1 *h, const char *p, size_t n, size_t *used,
    int (*body)(const char *p, size_t n, void *arg), void *arg);
/* The connection ended: the answer is whole when it was read till then. */
int mc_h1_eof(struct mc_h1 *h);
/* Ready for the next answer on the same connection (or the first). */
void mc_h1_reset(struct mc_h1 *h);
void mc_h1_free(struct mc_h1 *h);

#endif
