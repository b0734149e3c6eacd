/* lines.c: reading a descriptor one line at a time, bounded. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "lines.h"

#define READ_SIZE 65536

int
mc_lines_next(struct mc_lines *l, char **line, size_t *len)
{
	char *nl;
	ssize_t n;

	for (;;) {
		/* Only the bytes not looked at yet: a long line comes in many
		 * reads, and is searched once. */
		nl = l->buf.len > l->at + l->seen ? memchr(l->buf.data + l->at + l->seen, '\n',
		    l->buf.len - l->at - l->seen) : NULL;
		l->seen = l->buf.len - l->at;
		if (nl != NULL) {
			l->seen = 0;
			*nl = '\0';
			*line = l->buf.data + l->at;
			*len = (size_t)(nl - *line);
			l->at = (size_t)(nl - l->buf.data) + 1;
			return 1;
		}
		if (l->at > 0) {
			memmove(l->buf.data, l->buf.data + l->at, l->buf.len - l->at);
			l->buf.len -= l->at;
			l->at = 0;
		}
		if (l->buf.len > l->cap) {
			errno = EFBIG;
			return -1;
		}
		/* As much as there is room for: a long line (an envelope)
		 * comes in few reads. */
		mc_buf_grow(&l->buf, READ_SIZE);
		n = read(l->fd, l->buf.data + l->buf.len, l->buf.cap - l->buf.len - 1);
		if (n > 0)
			l->buf.len += (size_t)n;
		else if (n == 0)
			return 0;
		else
			return -1;
	}
}

void
mc_lines_reset(struct mc_lines *l)
{
	l->buf.len = l->at = l->seen = 0;
}
