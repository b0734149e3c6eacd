/* template.c: expand {{variables}} in prompt fragments, refusing anything not exactly right. */
#include <string.h>

#include "template.h"
#include "utf8.h"

static const char *const names[MC_TVAR_N] = {
	[MC_TVAR_HAS_RIPGREP] = "has_ripgrep",
	[MC_TVAR_OPERATING_SYSTEM] = "operating_system",
	[MC_TVAR_TERMINAL_ENVIRONMENT] = "terminal_environment",
};

/* Keep the token for the message; a long one is cut on a character
 * boundary and marked with "...". */
static int
fail(struct mc_template_error *e, const char *what, const char *tok, size_t n,
    size_t offset)
{
	size_t max = sizeof e->token - 1, keep = n;

	e->what = what;
	e->offset = offset;
	if (n > max) {
		keep = mc_utf8_floor(tok, max - 3);
	}
	memcpy(e->token, tok, keep);
	if (keep < n)
		memcpy(e->token + keep, "...", 4);
	else
		e->token[keep] = '\0';
	return -1;
}

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * One pass for both scanning and rendering: with out NULL nothing is
 * written, so the two can never disagree about what is valid.
 */
static int
walk(const char *text, size_t len, const char *const *values, struct mc_buf *out,
    unsigned *used, struct mc_template_error *e)
{
	const char *p = text, *end = text + len, *open, *name, *close, *q;
	size_t n, i;
	int v;

	*used = 0;
	while (p < end) {
		open = memmem(p, (size_t)(end - p), "{{", 2);
		if (open == NULL)
			open = end;
		if (out != NULL)
			mc_buf_add(out, p, (size_t)(open - p));
		if (open == end)
			break;
		name = open + 2;
		close = NULL;
		for (q = name; q < end && *q != '\n'; q++)
			if (q + 1 < end && q[0] == '}' && q[1] == '}') {
				close = q;
				break;
			}
		if (close == NULL) {
			n = (size_t)(q - open);
			if (n > 0 && open[n - 1] == '\r')
				n--;
			return fail(e, "unterminated variable", open, n, (size_t)(open - text));
		}
		n = (size_t)(close - name);
		if (n == 0)
			return fail(e, "empty variable", open, 4, (size_t)(open - text));
		for (i = 0; i < n; i++)
			if (is_space(name[i]))
				return fail(e, "whitespace inside variable", open, n + 4,
				    (size_t)(open - text));
		for (v = 0; v < MC_TVAR_N; v++)
			if (strlen(names[v]) == n && memcmp(names[v], name, n) == 0)
				break;
		if (v == MC_TVAR_N) {
			if (n == 10 && memcmp(name, "TOOLS_LIST", 10) == 0)
				return fail(e, "unsupported variable", open, n + 4,
				    (size_t)(open - text));
			return fail(e, "unknown variable", open, n + 4, (size_t)(open - text));
		}
		*used |= 1u << v;
		if (out != NULL) {
			if (values[v] == NULL)
				return fail(e, "variable has no value", open, n + 4,
				    (size_t)(open - text));
			mc_buf_adds(out, values[v]);
		}
		p = close + 2;
	}
	return 0;
}

int
mc_template_scan(const char *text, size_t len, unsigned *used,
    struct mc_template_error *e)
{
	return walk(text, len, NULL, NULL, used, e);
}

int
mc_template_render(const char *text, size_t len,
    const char *const values[MC_TVAR_N], struct mc_buf *out,
    struct mc_template_error *e)
{
	unsigned used;
	size_t before = out->len;

	if (walk(text, len, values, out, &used, e) == -1) {
		/* Leave out as it was: a half-expanded fragment is of no use. */
		out->len = before;
		if (out->data != NULL)
			out->data[before] = '\0';
		return -1;
	}
	/* An empty text still leaves out NUL-terminated. */
	if (out->data == NULL)
		mc_buf_grow(out, 0);
	return 0;
}
