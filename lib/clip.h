/* clip.h: tool output as valid UTF-8, cut to a cap with its head and tail kept. */
#ifndef MC_CLIP_H
#define MC_CLIP_H

#include <stddef.h>

#include "buf.h"

#define MC_CLIP_MAX (64u << 10)	/* every tool output is cut to this */

/*
 * A collector for text of unknown length (a command's output): bytes are
 * repaired as they arrive (invalid UTF-8 and NUL become U+FFFD, also across
 * chunk boundaries) and only the first and last parts are kept in memory.
 */
struct mc_clip {
	size_t hcap, tcap;	/* bytes kept at the head and at the tail */
	struct mc_buf head;
	char *tail;		/* the last bytes after the head, up to 2 * (tcap + 4) */
	size_t tlen;
	int headfull;		/* the head took its last byte */
	size_t total;		/* repaired bytes seen */
	unsigned char part[4];	/* an incomplete sequence left by the last add */
	size_t npart;
};

/* Out of memory ends the program (mc_oom), so nothing here fails.
 * cap >= 256: the finished text is at most cap bytes, marker included. */
void mc_clip_init(struct mc_clip *c, size_t cap);
void mc_clip_add(struct mc_clip *c, const char *p, size_t n);
/*
 * The text: all of it, or its head, a marker line saying how many bytes
 * were cut, and its tail, cut at line ends where one is near. The collector
 * is emptied. Returns a malloc'ed NUL-terminated string.
 */
char *mc_clip_finish(struct mc_clip *c, size_t *len);
void mc_clip_free(struct mc_clip *c);

/* mc_clip_init + add + finish over a whole string. */
char *mc_clip_text(const char *s, size_t n, size_t cap, size_t *len);

/* Append s (n bytes) to out with invalid UTF-8 and NUL bytes replaced by
 * U+FFFD. */
void mc_clip_repair(struct mc_buf *out, const char *s, size_t n);

#endif
