/* mc-render/text.c: text that reaches the prompt: trimmed, on one line. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "utf8.h"
#include "render.h"

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

void
trim(struct mc_buf *b)
{
	size_t lead = 0;

	if (b->data == NULL)
		return;
	while (b->len > 0 && is_space(b->data[b->len - 1]))
		b->len--;
	while (lead < b->len && is_space(b->data[lead]))
		lead++;
	memmove(b->data, b->data + lead, b->len - lead);
	b->len -= lead;
	b->data[b->len] = '\0';
}

/*
 * A value shown on one line of the prompt (a description, a persona):
 * control characters and line separators become spaces, < and > become
 * &lt; and &gt; so that the value cannot open or close a tag of the
 * prompt, the ends are trimmed and at most max characters are kept.
 * NULL when nothing is left.
 */
char *
one_line(const char *s, size_t max)
{
	struct mc_buf b = {0};
	size_t n = strlen(s), k, chars = 0;
	const unsigned char *u;
	const char *run = s;

	while (n > 0 && chars < max) {
		u = (const unsigned char *)s;
		if ((k = mc_utf8_seqlen(s, n)) == 0)
			k = 1;		/* callers pass valid UTF-8; be safe */
		if (*u < 0x20 || *u == 0x7f ||
		    (k == 2 && u[0] == 0xc2 && u[1] < 0xa0) ||	/* C1 controls */
		    (k == 3 && u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9))) {
			mc_buf_add(&b, run, (size_t)(s - run));
			mc_buf_adds(&b, " ");
			run = s + k;
		} else if (*u == '<' || *u == '>') {
			mc_buf_add(&b, run, (size_t)(s - run));
			mc_buf_adds(&b, *u == '<' ? "&lt;" : "&gt;");
			run = s + k;
		}
		s += k;
		n -= k;
		chars++;
	}
	mc_buf_add(&b, run, (size_t)(s - run));
	trim(&b);
	if (b.len == 0) {
		mc_buf_free(&b);
		return NULL;
	}
	return mc_buf_steal(&b);
}
