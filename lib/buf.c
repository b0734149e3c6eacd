/* buf.c: growable byte buffer. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"

void
mc_buf_grow(struct mc_buf *b, size_t more)
{
	size_t need, cap;
	char *p;

	if (more > SIZE_MAX - b->len - 1)
		mc_oom();
	need = b->len + more + 1;
	if (need <= b->cap)
		return;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	if ((p = realloc(b->data, cap)) == NULL)
		mc_oom();
	b->data = p;
	b->cap = cap;
}

void
mc_buf_add(struct mc_buf *b, const void *p, size_t n)
{
	mc_buf_grow(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
mc_buf_adds(struct mc_buf *b, const char *s)
{
	mc_buf_add(b, s, strlen(s));
}

void
mc_buf_addc(struct mc_buf *b, char c)
{
	mc_buf_add(b, &c, 1);
}

void
mc_buf_printf(struct mc_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)	/* only a wide-character conversion can fail; none is used */
		return;
	mc_buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *
mc_buf_steal(struct mc_buf *b)
{
	char *p;

	if (b->data == NULL)
		mc_buf_grow(b, 0);
	b->data[b->len] = '\0';
	p = b->data;
	*b = (struct mc_buf){0};
	return p;
}

void
mc_buf_free(struct mc_buf *b)
{
	free(b->data);
	*b = (struct mc_buf){0};
}

int
mc_buf_same(const struct mc_buf *a, const struct mc_buf *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

void
mc_buf_fence(struct mc_buf *b, const char *info, const char *s, size_t n)
{
	size_t best = 2, run = 0, i;

	for (i = 0; i < n; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	for (i = 0; i <= best; i++)
		mc_buf_addc(b, '`');
	mc_buf_printf(b, "%s\n", info);
	mc_buf_add(b, s, n);
	if (n > 0 && s[n - 1] != '\n')
		mc_buf_addc(b, '\n');
	for (i = 0; i <= best; i++)
		mc_buf_addc(b, '`');
}
