/* thought.c: the model's reasoning on a terminal: dim, folded to its last line while the answer has not begun; /reasoning shows the last one whole. */
#include <stdio.h>
#include <strings.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "json.h"
#include "mc.h"
#include "models.h"

/* Where the fold is drawn: stdout, when it is a terminal and not --json. */
static int
folding(const struct driver *d)
{
	return d->t.out && !d->c.json;
}

#define FOLD_KEEP 2048	/* bytes of a long line kept: more than a row shows */

/* Only a long line's end is ever shown: the rest goes, so that a line
 * without end costs each delta no more than FOLD_KEEP bytes to draw. */
static void
trim(struct mc_buf *b)
{
	size_t cut;

	if (b->len <= 2 * FOLD_KEEP)
		return;
	cut = b->len - FOLD_KEEP;
	while (cut < b->len && ((unsigned char)b->data[cut] & 0xc0) == 0x80)
		cut++;		/* a whole character first */
	memmove(b->data, b->data + cut, b->len - cut);
	b->len -= cut;
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
	trim(&f->line);
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

/*
 * An error event of mc-send: when the request asked for a reasoning level
 * and the provider refused it (a 400 or 422 whose message names
 * reasoning, thinking, effort or a budget), a note saying which setting
 * to change; mc-send has shown the provider's own message.
 */
void
reasoning_refused(const struct driver *d, const cJSON *ev)
{
	static const char *const words[] = { "reasoning", "thinking", "effort", "budget_tokens" };
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(ev, "status"), *v;
	const char *msg = mc_json_str(ev, "message"), *level = d->c.reasoning, *from = "*";
	size_t i;

	if (level == NULL) {
		v = mc_model_field(&d->c.set, d->s.model, "reasoning", &from);
		level = cJSON_IsString(v) ? v->valuestring : NULL;
	}
	if (level == NULL || strcmp(level, "off") == 0 || msg == NULL || !cJSON_IsNumber(st) ||
	    (st->valueint != 400 && st->valueint != 422))
		return;
	for (i = 0; i < sizeof words / sizeof words[0] && strcasestr(msg, words[i]) == NULL; i++)
		;
	if (i == sizeof words / sizeof words[0])
		return;
	if (d->c.reasoning != NULL)
		mc_note("the provider refused reasoning level \"%s\": pass another --reasoning "
		    "level, or --reasoning off", level);
	else
		mc_note("the provider refused reasoning level \"%s\" (models.%s.reasoning in %s): "
		    "change it, or pass --reasoning off", level, from, d->c.set.path);
}
