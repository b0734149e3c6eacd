/* t/unit/lsp.c: tables for lib/lsp.c (Content-Length framing, read in pieces, and its bad forms). */
#include <stdio.h>
#include <string.h>

#include "lsp.h"

static const struct {
	const char *in;		/* the bytes, fed one at a time */
	int r;			/* the last mc_lsp_next's result */
	const char *bodies;	/* the bodies found, joined by '|' */
	const char *err;	/* with r -1 */
} cases[] = {
	{ "Content-Length: 2\r\n\r\n{}", 1, "{}", NULL },
	{ "Content-Length: 2\r\n\r\n{}Content-Length:3\r\n\r\n[1]", 1, "{}|[1]", NULL },
	{ "content-length:  2 \r\nContent-Type: application/vscode-jsonrpc\r\n\r\n{}", 1, "{}", NULL },
	{ "Content-Length: 5\r\n\r\n{}", 0, "", NULL },	/* more to come */
	{ "Content-Length: 2\r\n", 0, "", NULL },
	{ "Content-Type: x\r\n\r\n{}", -1, "", "bad framing: no Content-Length" },
	{ "Content-Length: two\r\n\r\n{}", -1, "", "bad framing: Content-Length is not a number" },
	{ "Content-Length: 2\r\nnonsense\r\n\r\n{}", -1, "", "bad framing: a header line without a colon" },
	{ "Content-Length: 99\r\n\r\n", -1, "", "a message of 99 bytes, over the 64-byte cap" },
};

int
main(void)
{
	struct mc_lsp_reader r;
	char err[128], got[256];
	const char *body;
	size_t i, k, len;
	int fail = 0, res = 0;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		r = (struct mc_lsp_reader){ .max = 64 };
		got[0] = err[0] = '\0';
		res = 0;
		for (k = 0; cases[i].in[k] != '\0' && res != -1; k++) {
			mc_lsp_feed(&r, cases[i].in + k, 1);
			while ((res = mc_lsp_next(&r, &body, &len, err, sizeof err)) == 1)
				snprintf(got + strlen(got), sizeof got - strlen(got), "%s%.*s",
				    got[0] ? "|" : "", (int)len, body);
		}
		if (got[0] != '\0' && res == 0 && cases[i].r == 1)
			res = 1;	/* every byte taken */
		if (res != cases[i].r || strcmp(got, cases[i].bodies) != 0 ||
		    (cases[i].err != NULL && strcmp(err, cases[i].err) != 0)) {
			printf("lsp: case %zu: got %d \"%s\" (%s)\n", i, res, got, err);
			fail = 1;
		}
		mc_lsp_reader_free(&r);
	}
	/* a header that never ends */
	r = (struct mc_lsp_reader){ .max = 64 };
	for (k = 0; k < MC_LSP_HEADER_MAX; k++)
		mc_lsp_feed(&r, "x", 1);
	if (mc_lsp_next(&r, &body, &len, err, sizeof err) != -1 ||
	    strcmp(err, "bad framing: no end of header") != 0) {
		printf("lsp: an endless header: %s\n", err);
		fail = 1;
	}
	mc_lsp_reader_free(&r);
	/* framing */
	{
		struct mc_buf b = {0};

		mc_lsp_frame(&b, "{}", 2);
		if (b.len != 23 || memcmp(b.data, "Content-Length: 2\r\n\r\n{}", 23) != 0) {
			printf("lsp: mc_lsp_frame\n");
			fail = 1;
		}
		mc_buf_free(&b);
	}
	return fail;
}
