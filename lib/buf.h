/* buf.h: a growable byte buffer, always NUL-terminated. */
#ifndef MC_BUF_H
#define MC_BUF_H

#include <stddef.h>

struct mc_buf {
	char *data;	/* NUL-terminated once anything was added; may be NULL */
	size_t len;
	size_t cap;
};

/* Room for more bytes (and the NUL), or append. Nothing to check: running
 * out of memory ends the program (mc_oom in diag.h). */
void mc_buf_grow(struct mc_buf *b, size_t more);
void mc_buf_add(struct mc_buf *b, const void *p, size_t n);
void mc_buf_adds(struct mc_buf *b, const char *s);
void mc_buf_addc(struct mc_buf *b, char c);
void mc_buf_printf(struct mc_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* s (n bytes) as a Markdown fenced block: a fence of backticks longer
 * than any run in s (at least 3) and info, s, a newline when s lacks one,
 * the fence (no newline after it). */
void mc_buf_fence(struct mc_buf *b, const char *info, const char *s, size_t n);
/* The same bytes in both. */
int mc_buf_same(const struct mc_buf *a, const struct mc_buf *b);
/* Give up ownership of the data (never NULL; "" for an empty buffer). */
char *mc_buf_steal(struct mc_buf *b);
void mc_buf_free(struct mc_buf *b);

#endif
