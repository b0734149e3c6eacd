/* sse.c: server-sent events framing: bytes in, (event name, data) out. */
#include <string.h>

#include "buf.h"
#include "sse.h"

void
mc_sse_init(struct mc_sse *x)
{
	memset(x, 0, sizeof *x);
	x->first = 1;
	x->max = MC_SSE_MAX;
}

void
mc_sse_free(struct mc_sse *x)
{
	mc_buf_free(&x->line);
	mc_buf_free(&x->event);
	mc_buf_free(&x->data);
}

static int
add(struct mc_buf *b, const char *p, size_t n, size_t max)
{
	if (b->len + n > max)
		return -2;
	mc_buf_add(b, p, n);
	return 0;
}

static int
dispatch(struct mc_sse *x, mc_sse_fn fn, void *arg, int *rc)
{
	int r = 0;

	if (x->has_data)
		r = fn(x->event.len ? x->event.data : "", x->data.len ? x->data.data : "",
		    x->data.len, arg);
	x->has_data = 0;
	x->data.len = 0;
	x->event.len = 0;
	if (r != 0) {
		*rc = r;
		return -1;
	}
	return 0;
}

/* One complete line l, n (without its terminator): in x->line, or in the
 * caller's chunk when it lay wholly inside one. */
static int
line(struct mc_sse *x, const char *l, size_t n, mc_sse_fn fn, void *arg, int *rc)
{
	const char *colon, *v;
	size_t fl, vl;
	int r = 0;

	if (x->first) {
		x->first = 0;
		if (n >= 3 && memcmp(l, "\xef\xbb\xbf", 3) == 0) {
			l += 3;
			n -= 3;
		}
	}
	if (n == 0) {
		r = dispatch(x, fn, arg, rc);
		goto out;
	}
	if (l[0] == ':')
		goto out;
	if (x->line.len == 0)	/* else counted as its pieces came */
		x->progress += n;
	if ((colon = memchr(l, ':', n)) != NULL) {
		fl = colon - l;
		v = colon + 1;
		vl = n - fl - 1;
		if (vl > 0 && *v == ' ') {
			v++;
			vl--;
		}
	} else {
		fl = n;
		v = l + n;
		vl = 0;
	}
	if ((fl == 4 && memcmp(l, "data", 4) == 0) || (fl == 5 && memcmp(l, "error", 5) == 0)) {
		if (fl == 5) {
			x->event.len = 0;
			if ((r = add(&x->event, "error", 5, x->max)) != 0)
				goto out;
		}
		if (x->has_data && (r = add(&x->data, "\n", 1, x->max)) != 0)
			goto out;
		if ((r = add(&x->data, v, vl, x->max)) != 0)
			goto out;
		x->has_data = 1;
	} else if (fl == 5 && memcmp(l, "event", 5) == 0) {
		/* A legacy error: field wins over a later event: line. */
		if (!(x->event.len == 5 && memcmp(x->event.data, "error", 5) == 0)) {
			x->event.len = 0;
			r = add(&x->event, v, vl, x->max);
		}
	}
	/* id:, retry: and unknown fields mean nothing here. */
out:
	x->line.len = 0;
	return r;
}

int
mc_sse_feed(struct mc_sse *x, const char *p, size_t n, mc_sse_fn fn, void *arg, int *rc)
{
	const char *end = p + n, *e, *cr;
	int anycr = memchr(p, '\r', n) != NULL, r;

	while (p < end) {
		if (x->cr) {
			x->cr = 0;
			if (*p == '\n' && x->line.len == 0) {
				/* the LF of a CRLF */
				p++;
				continue;
			}
		}
		e = memchr(p, '\n', end - p);
		if (anycr && (cr = memchr(p, '\r', (e ? e : end) - p)) != NULL)
			e = cr;
		if (e == NULL)
			break;
		if (x->line.len == 0) {
			if ((size_t)(e - p) > x->max)
				return -2;
			x->cr = *e == '\r';
			r = line(x, p, e - p, fn, arg, rc);
		} else {
			if ((r = add(&x->line, p, e - p, x->max)) != 0)
				return r;
			if (x->line.data[0] != ':')
				x->progress += (size_t)(e - p);
			x->cr = *e == '\r';
			r = line(x, x->line.data, x->line.len, fn, arg, rc);
		}
		if (r != 0)
			return r;
		p = e + 1;
	}
	if ((r = add(&x->line, p, end - p, x->max)) == 0 && x->line.len > 0 && x->line.data[0] != ':')
		x->progress += (size_t)(end - p);
	return r;
}

int
mc_sse_finish(struct mc_sse *x, mc_sse_fn fn, void *arg, int *rc)
{
	int r;

	if (x->line.len > 0 && (r = line(x, x->line.data, x->line.len, fn, arg, rc)) != 0)
		return r;
	return dispatch(x, fn, arg, rc);
}
