/* fsread.c: every file read of the suite: bounded, refusing FIFOs and stray links where asked, streams and named files whole. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <bsd/string.h>

#include "diag.h"
#include "fsread.h"
#include "utf8.h"

int
mc_path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

char *
mc_path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *p;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		n = 0;		/* "/name", not "//name" */
	if (asprintf(&p, "%.*s/%s", (int)n, dir, name) == -1)
		mc_oom();
	return p;
}

/* The last component of path (absolute) cut off, trailing slashes
 * first: it is returned, and path is what lies above it ("/" at the
 * top). path needs a byte of room past its end. */
static char *
cut_last(char *path)
{
	size_t n = strlen(path);
	char *slash;

	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	if (n == 1 && path[0] == '/')
		return path + 1;	/* the top has nothing above it */
	slash = strrchr(path, '/');
	if (slash == path) {
		memmove(path + 2, path + 1, n);	/* "/name" becomes "/" and "name" */
		path[1] = '\0';
		return path + 2;
	}
	*slash = '\0';
	return slash + 1;
}

char *
mc_path_resolve(const char *base, const char *path)
{
	char *cur, *res = NULL, *next, **tail = NULL, **tv, link[PATH_MAX];
	size_t ntail = 0, i;
	struct stat st;
	int links = 0;
	ssize_t n;

	cur = path[0] == '/' ? mc_strdup(path) : mc_path_join(base, path);
	/* cut_last may move a name one byte on: room for it */
	if ((cur = realloc(cur, strlen(cur) + 2)) == NULL)
		mc_oom();
	while ((res = realpath(cur, NULL)) == NULL) {
		if (errno != ENOENT)
			goto out;
		if (lstat(cur, &st) == 0 && S_ISLNK(st.st_mode)) {
			/* A link to nothing (yet): where it points. */
			if (++links > MC_PATH_LINKS || (n = readlink(cur, link, sizeof link - 1)) == -1) {
				errno = errno == 0 || links > MC_PATH_LINKS ? ELOOP : errno;
				goto out;
			}
			link[n] = '\0';
			if (link[0] == '/')
				next = mc_strdup(link);
			else {
				(void)cut_last(cur);
				next = mc_path_join(cur, link);
			}
			free(cur);
			if ((cur = realloc(next, strlen(next) + 2)) == NULL)
				mc_oom();
			continue;
		}
		/* Missing: the rest is taken lexically above what exists. */
		if ((tv = reallocarray(tail, ntail + 1, sizeof *tail)) == NULL)
			mc_oom();
		tail = tv;
		tail[ntail++] = mc_strdup(cut_last(cur));
	}
	if ((next = realloc(res, strlen(res) + 2)) == NULL)
		mc_oom();
	res = next;
	for (i = ntail; i-- > 0;) {
		if (strcmp(tail[i], "..") == 0) {
			(void)cut_last(res);
			continue;
		}
		if (*tail[i] == '\0' || strcmp(tail[i], ".") == 0)
			continue;
		next = mc_path_join(res, tail[i]);
		free(res);
		if ((res = realloc(next, strlen(next) + 2)) == NULL)
			mc_oom();
	}
out:
	for (i = 0; i < ntail; i++)
		free(tail[i]);
	free(tail);
	free(cur);
	return res;
}

int
mc_dir_make(const char *dir, char *err, size_t errsz)
{
	char *up = mc_strdup(dir), *slash = strrchr(up, '/');
	const char *bad = NULL;

	if (slash != NULL && slash != up) {
		*slash = '\0';
		if (mkdir(up, 0700) == -1 && errno != EEXIST)
			bad = up;
	}
	if (bad == NULL && mkdir(dir, 0700) == -1 && errno != EEXIST)
		bad = dir;
	if (bad != NULL)
		snprintf(err, errsz, "%s: %s", bad, strerror(errno));
	free(up);
	return bad == NULL ? 0 : -1;
}

int
mc_dir_parents(const char *path, mode_t mode, char *err, size_t errsz)
{
	char *p = mc_strdup(path), *s;
	int r = 0;

	for (s = strchr(p + 1, '/'); s != NULL && r == 0; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, mode) == -1 && errno != EEXIST) {
			snprintf(err, errsz, "%s: %s", p, strerror(errno));
			r = -1;
		}
		*s = '/';
	}
	free(p);
	return r;
}

int
mc_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, c, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int
mc_writev_all(int fd, struct iovec *iov, int n)
{
	ssize_t w;
	size_t k;

	while (n > 0) {
		if ((w = writev(fd, iov, n > IOV_MAX ? IOV_MAX : n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (k = (size_t)w; n > 0 && k >= iov->iov_len; n--, iov++)
			k -= iov->iov_len;
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + k;
			iov->iov_len -= k;
		}
	}
	return 0;
}

int
mc_fd_move(int from, int to, size_t n)
{
	char buf[1 << 16];
	ssize_t r;
	int copy = 0;

	while (n > 0) {
		r = copy ? read(from, buf, n < sizeof buf ? n : sizeof buf) :
		    splice(from, NULL, to, NULL, n, SPLICE_F_MOVE);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && !copy && (errno == EINVAL || errno == ENOSYS)) {
			copy = 1;	/* a descriptor splice does not take (a terminal) */
			continue;
		}
		if (r == -1)
			return -1;
		if (r == 0) {
			errno = EPIPE;	/* the writer went before its bytes */
			return -1;
		}
		if (copy && mc_write_all(to, buf, (size_t)r) == -1)
			return -1;
		n -= (size_t)r;
	}
	return 0;
}

int
mc_looks_binary(const void *p, size_t n)
{
	return memchr(p, '\0', n < MC_BINARY_PROBE ? n : MC_BINARY_PROBE) != NULL;
}

int
mc_fd_slurp(int fd, size_t cap, struct mc_buf *out)
{
	ssize_t n;

	for (;;) {
		mc_buf_grow(out, 65536);
		n = read(fd, out->data + out->len, out->cap - out->len - 1);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		out->len += (size_t)n;
		out->data[out->len] = '\0';
		if (out->len > cap) {
			errno = EFBIG;
			return -1;
		}
	}
	out->data[out->len] = '\0';
	return 0;
}

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

/*
 * Resolve a final symlink that may be followed when its target lies
 * inside within. Returns the target, or NULL with r->status set: outside,
 * dangling (the target, or a directory on its way, does not exist), or
 * another failure of realpath (a loop, a permission).
 */
static char *
link_target(const char *path, const char *within, struct mc_read *r)
{
	char dirbuf[PATH_MAX], *dir, *slash, *target;

	if (within == NULL) {
		if (strlcpy(dirbuf, path, sizeof dirbuf) >= sizeof dirbuf) {
			r->status = MC_READ_ERRNO;
			r->err = ENAMETOOLONG;
			return NULL;
		}
		slash = strrchr(dirbuf, '/');
		if (slash == NULL)
			strlcpy(dirbuf, ".", sizeof dirbuf);
		else if (slash == dirbuf)
			slash[1] = '\0';
		else
			*slash = '\0';
		within = dirbuf;
	}
	if ((target = realpath(path, NULL)) == NULL) {
		r->status = errno == ENOENT || errno == ENOTDIR ? MC_READ_DANGLING : MC_READ_ERRNO;
		r->err = errno;
		return NULL;
	}
	if ((dir = realpath(within, NULL)) == NULL || !mc_path_within(target, dir)) {
		r->status = dir == NULL ? MC_READ_ERRNO : MC_READ_OUTSIDE;
		r->err = errno;
		free(target);
		target = NULL;
	}
	free(dir);
	return target;
}

static void read_open(int, size_t, int, struct mc_read *);

void
mc_file_read(const char *path, size_t cap, enum mc_link_policy links,
    const char *within, int text, struct mc_read *r)
{
	struct stat st;
	char *target = NULL;
	const char *open_path = path;
	int fd;

	*r = (struct mc_read){0};
	if (lstat(path, &st) == -1) {
		r->status = errno == ENOENT || errno == ENOTDIR ? MC_READ_MISSING : MC_READ_ERRNO;
		r->err = errno;
		return;
	}
	if (S_ISLNK(st.st_mode) && links == MC_LINK_REFUSE) {
		r->status = MC_READ_SYMLINK;
		if (stat(path, &st) == -1 && errno == ENOENT)
			r->err = ENOENT;	/* dangling, too: said in the message */
		return;
	}
	if (S_ISLNK(st.st_mode) && links == MC_LINK_INSIDE) {
		if ((target = link_target(path, within, r)) == NULL)
			return;
		open_path = target;
	}
	/* O_NONBLOCK: opening a FIFO with no writer must not hang. O_NOFOLLOW:
	 * the path checked above cannot be swapped for a link meanwhile. */
	fd = open(open_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY |
	    (links == MC_LINK_FOLLOW ? 0 : O_NOFOLLOW));
	free(target);
	if (fd == -1) {
		r->status = errno == ELOOP ? MC_READ_SYMLINK : MC_READ_ERRNO;
		r->err = errno;
		return;
	}
	read_open(fd, cap, text, r);
}

void
mc_file_readat(int dfd, const char *name, size_t cap, int text, struct mc_read *r)
{
	int fd;

	*r = (struct mc_read){0};
	fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	if (fd == -1) {
		r->status = errno == ENOENT ? MC_READ_MISSING :
		    errno == ELOOP ? MC_READ_SYMLINK : MC_READ_ERRNO;
		r->err = errno;
		return;
	}
	read_open(fd, cap, text, r);
}

/* The rest of a read, through fd (which it closes). */
static void
read_open(int fd, size_t cap, int text, struct mc_read *r)
{
	struct mc_buf b = {0};
	struct stat st;

	if (fstat(fd, &st) == -1) {
		r->status = MC_READ_ERRNO;
		r->err = errno;
		goto out;
	}
	r->mode = st.st_mode;
	if (!S_ISREG(st.st_mode)) {
		r->status = MC_READ_NOTREG;
		goto out;
	}
	r->size = st.st_size;
	if ((unsigned long long)st.st_size > cap) {
		r->status = MC_READ_TOOBIG;
		goto out;
	}
	/* Room for the whole file and the read that finds its end at once:
	 * a big file (a session) is held once, not in a buffer doubled past it. */
	b.cap = (size_t)st.st_size + 65536 + 1;
	if ((b.data = malloc(b.cap)) == NULL)
		mc_oom();
	if (mc_fd_slurp(fd, cap, &b) == -1) {
		if (errno == EFBIG) {	/* grew while we read */
			r->status = MC_READ_TOOBIG;
			r->size = (off_t)b.len;
		} else {
			r->status = MC_READ_ERRNO;
			r->err = errno;
		}
		mc_buf_free(&b);
		goto out;
	}
	if (text && (memchr(b.data, '\0', b.len) || !mc_utf8_valid(b.data, b.len))) {
		r->status = MC_READ_UTF8;
		mc_buf_free(&b);
		goto out;
	}
	r->len = b.len;
	r->data = mc_buf_steal(&b);
out:
	close(fd);
}

const char *
mc_read_strerror(const struct mc_read *r, size_t cap)
{
	static char msg[256];

	switch (r->status) {
	case MC_READ_OK:
		return "ok";
	case MC_READ_MISSING:
		return "no such file";
	case MC_READ_SYMLINK:
		return r->err == ENOENT ?
		    "symbolic link refused (this file is never read through a link; this one is dangling, too)" :
		    "symbolic link refused (this file is never read through a link)";
	case MC_READ_OUTSIDE:
		return "symbolic link refused (its target is outside the allowed directory)";
	case MC_READ_DANGLING:
		return "dangling symbolic link (its target does not exist)";
	case MC_READ_NOTREG:
		return "not a regular file";
	case MC_READ_TOOBIG:
		snprintf(msg, sizeof msg, "file is %lld bytes, over the %zu-byte cap; not loaded",
		    (long long)r->size, cap);
		return msg;
	case MC_READ_UTF8:
		return "not valid UTF-8 text";
	case MC_READ_ERRNO:
		return strerror(r->err);
	}
	return "unknown error";
}
