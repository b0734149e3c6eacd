/* term.h: making model text safe to write to a terminal. */
#ifndef MC_TERM_H
#define MC_TERM_H

#include <stddef.h>

#include "buf.h"

/*
 * A streaming filter that removes terminal control sequences (ESC and
 * C1 sequences: CSI, OSC, DCS, ...) and control characters other than
 * newline and tab, and replaces invalid UTF-8 with U+FFFD. State carries
 * over between calls, so a sequence split across reads is still removed.
 * Zero-initialise before use.
 */
struct mc_term {
	int state;
	size_t seqlen;			/* bytes swallowed in the current sequence */
	unsigned char pend[4];		/* an incomplete UTF-8 sequence */
	size_t npend;
};

/* Filter n bytes of in onto out. */
void mc_term_filter(struct mc_term *t, const char *in, size_t n, struct mc_buf *out);
/* End of the stream: an incomplete UTF-8 sequence becomes U+FFFD. */
void mc_term_flush(struct mc_term *t, struct mc_buf *out);

#endif
