/* frontmatter.c: parse the flat frontmatter between two `---` lines. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "frontmatter.h"

/* The line at p (up to end): its length without the line break (LF or
 * CRLF), and the offset of the next line. Returns the length; *next is
 * 0 when the line is the last one and has no LF. */
static size_t
line(const char *p, const char *end, size_t *next)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

	*next = nl ? n + 1 : 0;
	if (n > 0 && p[n - 1] == '\r')
		n--;
	return n;
}

static int
is_marker(const char *p, size_t n)
{
	while (n > 3 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	return n == 3 && memcmp(p, "---", 3) == 0;
}

static char *
trimmed_dup(const char *p, size_t n)
{
	char *s;

	while (n > 0 && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n >= 2 && (p[0] == '"' || p[0] == '\'') && p[n - 1] == p[0]) {
		p++;
		n -= 2;
	}
	if ((s = malloc(n + 1)) == NULL)
		mc_oom();
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

static void
add_field(struct mc_frontmatter *fm, const char *p, size_t n)
{
	const char *colon = memchr(p, ':', n);
	struct mc_fm_field *f;

	if (n == 0 || p[0] == ' ' || p[0] == '\t' || p[0] == '#' || colon == NULL || colon == p)
		return;
	if ((f = reallocarray(fm->fields, fm->nfields + 1, sizeof *f)) == NULL)
		mc_oom();
	fm->fields = f;
	f[fm->nfields].key = trimmed_dup(p, (size_t)(colon - p));
	f[fm->nfields].value = trimmed_dup(colon + 1, n - (size_t)(colon - p) - 1);
	fm->nfields++;
}

void
mc_frontmatter_parse(const char *text, size_t len, struct mc_frontmatter *fm)
{
	const char *p = text, *end = text + len;
	size_t n, next;

	*fm = (struct mc_frontmatter){ .body = text, .body_len = len };
	/* Editors on some systems start a UTF-8 file with a byte order mark. */
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	n = line(p, end, &next);
	if (!is_marker(p, n) || next == 0)
		return;	/* no frontmatter (a lone "---" with no newline is body) */
	fm->present = 1;
	for (p += next; p < end; p = next ? p + next : end) {
		n = line(p, end, &next);
		if (is_marker(p, n)) {
			fm->terminated = 1;
			fm->body = next ? p + next : end;
			fm->body_len = (size_t)(end - fm->body);
			return;
		}
		add_field(fm, p, n);
	}
	/* Unterminated: nothing in it counts. */
	mc_frontmatter_free(fm);
	*fm = (struct mc_frontmatter){ .present = 1, .body = text, .body_len = len };
}

const char *
mc_frontmatter_get(const struct mc_frontmatter *fm, const char *key)
{
	size_t i;

	for (i = fm->nfields; i-- > 0;)
		if (strcmp(fm->fields[i].key, key) == 0)
			return fm->fields[i].value;
	return NULL;
}

void
mc_frontmatter_free(struct mc_frontmatter *fm)
{
	size_t i;

	for (i = 0; i < fm->nfields; i++) {
		free(fm->fields[i].key);
		free(fm->fields[i].value);
	}
	free(fm->fields);
	fm->fields = NULL;
	fm->nfields = 0;
}
