/* buf.c: growable byte buffer. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

int
mc_buf_grow(struct mc_buf *b, size_t more)
{
	size_t need, cap;
	char *p;

	if (more > SIZE_MAX - b->len - 1) {
		errno = ENOMEM;
		return -1;
	}
	need = b->len + more + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	if ((p = realloc(b->data, cap)) == NULL)
		return -1;
	b->data = p;
	b->cap = cap;
	return 0;
}

int
mc_buf_add(struct mc_buf *b, const void *p, size_t n)
{
	if (mc_buf_grow(b, n) == -1)
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int
mc_buf_adds(struct mc_buf *b, const char *s)
{
	return mc_buf_add(b, s, strlen(s));
}

int
mc_buf_addc(struct mc_buf *b, char c)
{
	return mc_buf_add(b, &c, 1);
}

int
mc_buf_printf(struct mc_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || mc_buf_grow(b, (size_t)n) == -1)
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

char *
mc_buf_steal(struct mc_buf *b)
{
	char *p;

	if (b->data == NULL && mc_buf_grow(b, 0) == -1)
		return NULL;
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
