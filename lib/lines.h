/* lines.h: reading a descriptor one line at a time, bounded. */
#ifndef MC_LINES_H
#define MC_LINES_H

#include <stddef.h>

#include "buf.h"

struct mc_lines {
	int fd;
	size_t cap;		/* the longest line taken */
	struct mc_buf buf;	/* read, not yet taken */
	size_t at;		/* where the next line starts in buf */
	size_t seen;		/* bytes after at known to hold no newline */
};

/*
 * The next line of l->fd, without its newline, NUL-terminated in place
 * (valid until the next call): 1 and *line, *len set; 0 at the end of
 * input (a last line without a newline is dropped: it was cut); -1 with
 * errno: EINTR when a signal came (call again to go on), EFBIG past cap,
 * or the read's error.
 */
int mc_lines_next(struct mc_lines *l, char **line, size_t *len);

/* Forget what was read (a new stream on fd). */
void mc_lines_reset(struct mc_lines *l);

#endif
