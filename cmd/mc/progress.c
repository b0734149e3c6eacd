/* progress.c: a status line on the terminal while something runs (a tool call, MCP servers starting), cleared when it ends. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "mc.h"

#define LAST_MAX 1024		/* bytes kept of the last line of output */

/* Begin a status line for what (a tool's name, say); fd, when not -1, is
 * read (non-blocking) for output whose last line is shown. Drawn only
 * on a terminal, and first at the first tick, so a quick call shows
 * nothing. */
void
progress_begin(struct progress *p, const struct driver *d, const char *what, int fd)
{
	*p = (struct progress){ .d = d, .what = what, .fd = fd, .start = mc_clock_ms() };
	p->on = isatty(STDERR_FILENO) && !d->c.json;
}

/* The output read so far: the line being written, and the last whole
 * one that has text in it (a carriage return ends a line too, as a
 * progress bar's). */
static void
take(struct progress *p)
{
	char buf[4096];
	ssize_t n, i;

	while ((n = read(p->fd, buf, sizeof buf)) > 0)
		for (i = 0; i < n; i++) {
			if (buf[i] != '\n' && buf[i] != '\r') {
				if (p->cur.len < LAST_MAX)
					mc_buf_addc(&p->cur, buf[i]);
				continue;
			}
			if (p->cur.len > 0) {
				p->last.len = 0;
				mc_buf_add(&p->last, p->cur.data, p->cur.len);
			}
			p->cur.len = 0;
		}
}

/* Draw the line again when what it says changed: "NAME, N s: LAST". */
void
progress_tick(void *arg)
{
	struct progress *p = arg;
	struct mc_buf line = {0}, rows = {0}, *shown;
	char *nl;
	long long s;

	if (p->fd != -1)
		take(p);
	if (!p->on)
		return;
	s = (mc_clock_ms() - p->start) / 1000;
	shown = p->cur.len > 0 ? &p->cur : &p->last;
	mc_buf_printf(&line, "%s, %lld s%s", p->what, s, shown->len ? ": " : "");
	mc_buf_add(&line, shown->data, shown->len);
	/* The first row of the line, escaped as the approval shows text. */
	show_rows(p->d, &rows, "", "", line.data, line.len, term_width(STDERR_FILENO));
	if ((nl = memchr(rows.data, '\n', rows.len)) != NULL)
		rows.len = (size_t)(nl - rows.data);
	if (p->drawn.len != rows.len || memcmp(p->drawn.data, rows.data, rows.len) != 0) {
		/* The cursor is left at the line's start: a message another
		 * program writes meanwhile (mc-mcp's, on the same terminal)
		 * is written over it, not after it. */
		fprintf(stderr, "\r\033[K%s%.*s%s\r", p->d->t.color ? "\033[2m" : "", (int)rows.len,
		    rows.data, p->d->t.color ? "\033[0m" : "");
		fflush(stderr);
		p->drawn.len = 0;
		mc_buf_add(&p->drawn, rows.data, rows.len);
		p->shown = 1;
	}
	mc_buf_free(&line);
	mc_buf_free(&rows);
}

/* The line cleared, where one was drawn. */
void
progress_end(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	mc_buf_free(&p->cur);
	mc_buf_free(&p->last);
	mc_buf_free(&p->drawn);
	p->shown = 0;
}
