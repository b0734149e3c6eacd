/* thought.c: the model's reasoning on a terminal: dim, folded to its last line while the answer has not begun; /reasoning shows the last one whole. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mc.h"

/* Where the fold is drawn: stdout, when it is a terminal and not --json. */
static int
folding(const struct driver *d)
{
	return d->t.out && !d->c.json;
}

void
fold_add(struct driver *d, struct fold *f, const char *delta)
{
	const char *last, *prev;

	if (!folding(d) || f->over || delta == NULL || *delta == '\0')
		return;
	/* Only the last line is shown; one a newline ends stays shown
	 * until the next begins. */
	if (f->ended)
		f->line.len = 0;
	f->ended = 0;
	if ((last = strrchr(delta, '\n')) == NULL) {
		mc_buf_adds(&f->line, delta);
	} else if (last[1] != '\0') {
		f->line.len = 0;
		mc_buf_adds(&f->line, last + 1);
	} else {
		for (prev = last; prev > delta && prev[-1] != '\n'; prev--)
			;
		if (prev > delta)
			f->line.len = 0;
		mc_buf_add(&f->line, prev, (size_t)(last - prev));
		f->ended = 1;
	}
	f->row.len = 0;
	show_fold(&f->row, f->line.data ? f->line.data : "", f->line.len,
	    term_width(STDOUT_FILENO));
	if (f->row.len == 0)
		return;
	printf("\r\033[K%s%.*s%s", d->t.color ? "\033[2m" : "", (int)f->row.len, f->row.data,
	    d->t.color ? "\033[0m" : "");
	fflush(stdout);
	f->shown = 1;
}

void
fold_clear(struct driver *d, struct fold *f)
{
	(void)d;	/* drawn only where fold_add drew it */
	f->over = 1;
	if (!f->shown)
		return;
	fputs("\r\033[K", stdout);
	fflush(stdout);
	f->shown = 0;
}

void
fold_free(struct fold *f)
{
	mc_buf_free(&f->line);
	mc_buf_free(&f->row);
}

void
reasoning_keep(struct driver *d, const char *text, size_t n)
{
	d->thought.len = 0;
	if (text != NULL && n > 0)
		mc_buf_add(&d->thought, text, n);
}

void
reasoning_slash(struct driver *d)
{
	if (d->thought.len == 0) {
		note(d, "no reasoning yet");
		return;
	}
	if (d->t.color)
		fputs("\033[2m", stdout);
	show(d, d->thought.data, d->thought.len);
	if (d->thought.data[d->thought.len - 1] != '\n')
		putchar('\n');
	if (d->t.color)
		fputs("\033[0m", stdout);
	fflush(stdout);
}
