/* fuzz/h1.c: libFuzzer target for the HTTP/1.x answer reader; how the bytes are cut must not change what it reads. */
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "h1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What one reading gave. */
struct reading {
	struct mc_buf body;
	enum mc_h1_state state;
	long status;
	int keep, ret;
	unsigned long long length;	/* the final head's Content-Length, when it frames the body */
	int has_length;
};

static int
take(const char *p, size_t n, void *arg)
{
	mc_buf_add(arg, p, n);
	return 0;
}

/*
 * Feed the answer as a connection would bring it: [0, cut) then the rest,
 * in pieces of at most step bytes; byte by byte while bytewise_head and
 * the final head is not whole yet, so that the Content-Length it sets is
 * seen before any body byte is taken.
 */
static void
readout(const char *p, size_t size, size_t cut, size_t step, int bytewise_head, struct reading *r)
{
	struct mc_h1 h = {0};
	size_t pos = 0, m, used;

	memset(r, 0, sizeof *r);
	while (pos < size) {
		m = (pos < cut ? cut : size) - pos;
		if (m > step)
			m = step;
		if (bytewise_head && h.state == MC_H1_HEAD)
			m = 1;
		used = SIZE_MAX;
		r->ret = mc_h1_feed(&h, p + pos, m, &used, take, &r->body);
		if (used > m)
			__builtin_trap();
		pos += m;
		/* The head just ended and no body came: its length is still whole (private fields). */
		if (bytewise_head && !r->has_length && h.state != MC_H1_HEAD && h.state != MC_H1_BAD &&
		    h.has_length && h.chunked == 0 && h.status != 204 && h.status != 304) {
			if (r->body.len != 0)
				__builtin_trap();
			r->has_length = 1;
			r->length = h.left;
		}
		if (r->ret != 0 || used < m)
			break;
	}
	if ((r->ret == -1) != (h.state == MC_H1_BAD))
		__builtin_trap();
	if (h.state == MC_H1_BAD && (h.err[0] == '\0' || h.keep))
		__builtin_trap();
	if (r->ret == 0)
		(void)mc_h1_eof(&h);
	r->state = h.state;
	r->status = h.status;
	r->keep = h.keep;
	mc_h1_free(&h);
}

static void
same(const struct reading *a, const struct reading *b)
{
	if (a->state != b->state || a->status != b->status || a->keep != b->keep ||
	    a->ret != b->ret || a->body.len != b->body.len ||
	    (a->body.len && memcmp(a->body.data, b->body.data, a->body.len) != 0))
		__builtin_trap();
}

/* The first byte picks where the rest is cut in two. It is read whole,
 * in two pieces, byte by byte through the head, and (when short) byte by
 * byte throughout: the body bytes, state, status and keep must agree. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reading whole, other;
	const char *p = (const char *)data + 1;
	size_t cut;

	if (size < 1)
		return 0;
	size--;
	cut = size ? data[0] % (size + 1) : 0;
	readout(p, size, 0, SIZE_MAX, 0, &whole);
	readout(p, size, cut, SIZE_MAX, 0, &other);
	same(&whole, &other);
	mc_buf_free(&other.body);
	readout(p, size, 0, SIZE_MAX, 1, &other);
	same(&whole, &other);
	/* A whole answer framed by its length carried no more than that. */
	if (other.has_length && other.state == MC_H1_DONE && other.body.len != other.length)
		__builtin_trap();
	mc_buf_free(&other.body);
	if (size < 4096) {
		readout(p, size, 0, 1, 0, &other);
		same(&whole, &other);
		mc_buf_free(&other.body);
	}
	mc_buf_free(&whole.body);
	return 0;
}
