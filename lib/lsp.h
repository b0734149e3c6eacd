/* lsp.h: a language server's messages: Content-Length framing (not MCP's one JSON a line), read and written. */
#ifndef MC_LSP_H
#define MC_LSP_H

#include <stddef.h>

#include "buf.h"

#define MC_LSP_HEADER_MAX 1024	/* the header block of one message */

/* Bytes as they come from the server, and the messages found in them. */
struct mc_lsp_reader {
	struct mc_buf buf;
	size_t at;		/* where the next message begins in buf */
	size_t max;		/* the largest body taken (bytes) */
};

/* The bytes read, appended. */
void mc_lsp_feed(struct mc_lsp_reader *r, const char *p, size_t n);

/*
 * The next whole message: 1 with *body and *len (valid until the next
 * feed), 0 when more bytes are needed, -1 for bad framing (a header
 * line without a colon, no or a bad Content-Length, a body over max, a
 * header block over MC_LSP_HEADER_MAX) with a one-line reason in err.
 */
int mc_lsp_next(struct mc_lsp_reader *r, const char **body, size_t *len, char *err,
    size_t errsz);

void mc_lsp_reader_free(struct mc_lsp_reader *r);

/* json (n bytes) framed: "Content-Length: n\r\n\r\n" then json, into out. */
void mc_lsp_frame(struct mc_buf *out, const char *json, size_t n);

#endif
