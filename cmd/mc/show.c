/* show.c: what the driver itself writes on the terminal. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "json.h"
#include "mc.h"
#include "term.h"

/* Write text from a file, the model or a stage: filtered on a terminal. */
int
show(const struct driver *d, const char *p, size_t n)
{
	struct mc_term t = {0};
	struct mc_buf b = {0};
	int r;

	if (!d->t.out)
		return fwrite(p, 1, n, stdout) == n ? 0 : -1;
	mc_term_filter(&t, p, n, &b);
	mc_term_flush(&t, &b);
	r = b.len && fwrite(b.data, 1, b.len, stdout) != b.len ? -1 : 0;
	mc_buf_free(&b);
	return r;
}

/* A line of the driver's own on stdout, dim when colour is on. */
void
note(const struct driver *d, const char *fmt, ...)
{
	va_list ap;

	if (d->t.color)
		fputs("\033[2m", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (d->t.color)
		fputs("\033[0m", stdout);
	putchar('\n');
	fflush(stdout);
}

/* On a terminal, one dim line on stderr saying what a call does. */
void
announce(const struct driver *d, const char *name, const cJSON *call)
{
	static const char *const keys[] = { "path", "command", "pattern", "glob", NULL };
	const char *args = mc_json_str(call, "arguments"), *v = NULL;
	char clean[128], cname[128], err[64];
	cJSON *a;
	int i;

	if (!isatty(STDERR_FILENO))
		return;
	if ((a = mc_json_parse(args ? args : "", args ? strlen(args) : 0, err, sizeof err)) != NULL)
		for (i = 0; keys[i] && v == NULL; i++)
			v = mc_json_str(a, keys[i]);
	mc_sanitize(clean, sizeof clean, v ? v : "");
	mc_sanitize(cname, sizeof cname, name);
	fprintf(stderr, "%s> %s %s%s\n", d->t.color ? "\033[2m" : "", cname, clean,
	    d->t.color ? "\033[0m" : "");
	cJSON_Delete(a);
}

/* After an interactive answer: its tokens, one dim line on stderr. */
void
usage_line(const struct driver *d, const struct usage *u)
{
	char cached[48] = "";

	if (u->cached > 0)
		snprintf(cached, sizeof cached, " (%lld cached)", u->cached);
	fprintf(stderr, "%s%lld tokens in%s, %lld out%s\n", d->t.color ? "\033[2m" : "",
	    u->input, cached, u->output, d->t.color ? "\033[0m" : "");
}
