/* slurp.c: read a whole file named on the command line, pipes included, with a cap. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsread.h"
#include "slurp.h"

int
mc_slurp_path(const char *path, size_t cap, struct mc_buf *out, char *err, size_t errsz)
{
	struct stat st;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		return -1;
	}
	e = fstat(fd, &st) == -1 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
	if (e == 0 && mc_fd_slurp(fd, cap, out) == -1)
		e = errno;
	close(fd);
	if (e == EFBIG)
		snprintf(err, errsz, "%s: over the %zu-byte limit", path, cap);
	else if (e != 0)
		snprintf(err, errsz, "%s: %s", path, strerror(e));
	return e == 0 ? 0 : -1;
}
