/* clip.c: repair tool output into valid UTF-8 and cut it to a cap, head and tail kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "diag.h"
#include "utf8.h"

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD */
#define MARKER_ROOM 96			/* the marker line fits in this */

typedef void (*emit_fn)(void *, const char *, size_t);

/*
 * Emit s in valid runs with each bad byte replaced. Unless final, an
 * incomplete sequence at the very end is left unconsumed (*used < n).
 */
static void
repair(const char *s, size_t n, int final, emit_fn emit, void *arg, size_t *used)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0, k;

	while (i < n) {
		if (u[i] != 0 && u[i] < 0x80) {
			i++;
			continue;
		}
		if (u[i] != 0 && (k = mc_utf8_seqlen(s + i, n - i)) != 0) {
			i += k;
			continue;
		}
		if (i > run)
			emit(arg, s + run, i - run);
		if (!final && n - i < 4 && mc_utf8_incomplete(s + i, n - i)) {
			*used = i;
			return;
		}
		emit(arg, REPLACEMENT, 3);
		run = ++i;
	}
	if (i > run)
		emit(arg, s + run, i - run);
	*used = n;
}

static void
buf_emit(void *arg, const char *s, size_t n)
{
	mc_buf_add(arg, s, n);
}

void
mc_clip_repair(struct mc_buf *out, const char *s, size_t n)
{
	size_t used;

	mc_buf_grow(out, n);
	repair(s, n, 1, buf_emit, out, &used);
}

void
mc_clip_init(struct mc_clip *c, size_t cap)
{
	*c = (struct mc_clip){0};
	if (cap < 256)
		cap = 256;
	c->hcap = (cap - MARKER_ROOM) / 2;
	c->tcap = cap - MARKER_ROOM - c->hcap;
}

/* Valid UTF-8 arrives here; a character is never split between head and tail. */
static void
clip_emit(void *arg, const char *s, size_t n)
{
	struct mc_clip *c = arg;
	size_t room, k, keep, keepn;

	c->total += n;
	if (!c->headfull) {
		room = c->hcap - c->head.len;
		if (n <= room) {
			mc_buf_add(&c->head, s, n);
			return;
		}
		k = mc_utf8_floor(s, room);
		mc_buf_add(&c->head, s, k);
		c->headfull = 1;
		s += k;
		n -= k;
	}
	/* A few bytes more than the tail shows: whether it starts a line,
	 * and the bytes a head that stopped short of a character left over. */
	keepn = c->tcap + 4;
	if (c->tail == NULL && (c->tail = malloc(2 * keepn)) == NULL)
		mc_oom();
	if (n >= keepn) {
		memcpy(c->tail, s + n - keepn, keepn);
		c->tlen = keepn;
		return;
	}
	if (c->tlen + n > 2 * keepn) {
		keep = keepn - n;
		memmove(c->tail, c->tail + c->tlen - keep, keep);
		c->tlen = keep;
	}
	memcpy(c->tail + c->tlen, s, n);
	c->tlen += n;
}

void
mc_clip_add(struct mc_clip *c, const char *p, size_t n)
{
	char *tmp = NULL;
	size_t used;

	if (c->npart) {
		if ((tmp = malloc(c->npart + n)) == NULL)
			mc_oom();
		memcpy(tmp, c->part, c->npart);
		memcpy(tmp + c->npart, p, n);
		n += c->npart;
		p = tmp;
		c->npart = 0;
	}
	repair(p, n, 0, clip_emit, c, &used);
	if (used < n) {
		c->npart = n - used;
		memcpy(c->part, p + used, c->npart);
	}
	free(tmp);
}

char *
mc_clip_finish(struct mc_clip *c, size_t *len)
{
	struct mc_buf out = {0};
	const char *ts, *nl;
	size_t hl, tl, i, cut;
	char marker[MARKER_ROOM];

	for (i = 0; i < c->npart; i++)
		clip_emit(c, REPLACEMENT, 3);
	c->npart = 0;
	if (c->total <= c->hcap + c->tcap) {
		mc_buf_add(&out, c->head.data ? c->head.data : "", c->head.len);
		mc_buf_add(&out, c->tail ? c->tail : "", c->tlen);
	} else {
		ts = c->tail;
		tl = c->tlen;
		if (tl > c->tcap) {
			ts += tl - c->tcap;
			tl = c->tcap;
		}
		while (tl > 0 && (*ts & 0xc0) == 0x80) {
			ts++;
			tl--;
		}
		/* Cut at line ends when one is near, so no half line is shown. */
		if ((ts == c->tail || ts[-1] != '\n') &&
		    (nl = memchr(ts, '\n', tl < c->tcap / 8 ? tl : c->tcap / 8)) != NULL) {
			tl -= (size_t)(nl + 1 - ts);
			ts = nl + 1;
		}
		hl = c->head.len;
		for (i = hl; i > 0 && hl - i < c->hcap / 8; i--)
			if (c->head.data[i - 1] == '\n') {
				hl = i;
				break;
			}
		cut = c->total - hl - tl;
		snprintf(marker, sizeof marker, "%s[... %zu bytes cut from the middle of this output ...]\n",
		    hl > 0 && c->head.data[hl - 1] != '\n' ? "\n" : "", cut);
		mc_buf_add(&out, c->head.data, hl);
		mc_buf_adds(&out, marker);
		mc_buf_add(&out, ts, tl);
	}
	mc_clip_free(c);
	if (len)
		*len = out.len;
	return mc_buf_steal(&out);
}

void
mc_clip_free(struct mc_clip *c)
{
	mc_buf_free(&c->head);
	free(c->tail);
	c->tail = NULL;
	c->tlen = c->total = c->npart = 0;
	c->headfull = 0;
}

char *
mc_clip_text(const char *s, size_t n, size_t cap, size_t *len)
{
	struct mc_clip c;

	mc_clip_init(&c, cap);
	mc_clip_add(&c, s, n);
	return mc_clip_finish(&c, len);
}
