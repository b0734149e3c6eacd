/* confine.c: resolve write targets inside the working directory; replace files atomically. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bsd/stdlib.h>

#include "diag.h"
#include "confine.h"
#include "fsread.h"
#include "json.h"

static int
fail(char *err, size_t errsz, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
fail(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	return -1;
}

/* True when a component of p is .git, in any case (a case-insensitive
 * file system would take .GIT for it). */
static int
in_git(const char *p)
{
	const char *e;

	for (; *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, '/');
		if (e - p == 4 && strncasecmp(p, ".git", 4) == 0)
			return 1;
	}
	return 0;
}

static int
git_refused(char *err, size_t errsz, const char *path)
{
	return fail(err, errsz, "%s: is inside a .git directory, whose config and hooks run commands; "
	    "write and edit do not change it (git itself, through bash, does)", path);
}

/* Split canonical path p into its directory and last component. */
static void
split(const char *p, char **dir, char **name)
{
	const char *slash = strrchr(p, '/');

	*dir = slash == p ? mc_strdup("/") : mc_strndup(p, (size_t)(slash - p));
	*name = mc_strdup(slash + 1);
}

/*
 * Open dir, canonical and inside root, by walking down from root one
 * component at a time, never through a symbolic link, making the missing
 * directories when create is set. What the path checks saw may have
 * changed since; this walk cannot be led out of root by such a change.
 */
static int
open_inside(const char *root, const char *dir, int create, const char *path,
    char *err, size_t errsz)
{
	const int flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	char *rel, *comp, *save;
	struct stat st;
	int fd, next;

	if ((fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return fail(err, errsz, "%s: %s", root, strerror(errno));
	rel = mc_strdup(dir + strlen(root));
	for (comp = strtok_r(rel, "/", &save); comp != NULL; comp = strtok_r(NULL, "/", &save)) {
		if ((next = openat(fd, comp, flags)) == -1 && errno == ENOENT && create) {
			if (mkdirat(fd, comp, 0777) == -1 && errno != EEXIST) {
				fail(err, errsz, "%s: cannot create directory: %s", path, strerror(errno));
				goto fail;
			}
			next = openat(fd, comp, flags);
		}
		/* With O_PATH, O_NOFOLLOW would open a symbolic link itself. */
		if (next != -1 && (fstat(next, &st) == -1 || !S_ISDIR(st.st_mode))) {
			close(next);
			next = -1;
			errno = ENOTDIR;
		}
		if (next == -1) {
			fail(err, errsz, "%s: %s changed while being checked: %s", path, comp, strerror(errno));
			goto fail;
		}
		close(fd);
		fd = next;
	}
	free(rel);
	return fd;
fail:
	free(rel);
	close(fd);
	return -1;
}

int
mc_confine_resolve(const char *root, const char *path, int create,
    struct mc_confined *t, char *err, size_t errsz)
{
	char *work, *cur, *next, *res, *comp, *save, *name, *slash;
	struct stat st;
	int inside, rc = -1;
	size_t missing = 0;	/* trailing components of cur still to be made */

	*t = (struct mc_confined){ .dfd = -1 };
	if (*path == '\0')
		return fail(err, errsz, "empty path");
	/* As named, and below as resolved (a link may lead into one). */
	if (in_git(path))
		return git_refused(err, errsz, path);
	work = mc_strdup(path);
	cur = mc_strdup(path[0] == '/' ? "/" : root);
	if (work[strlen(work) - 1] == '/') {
		fail(err, errsz, "%s: names a directory, not a file", path);
		goto out;
	}
	if ((slash = strrchr(work, '/')) != NULL) {
		*slash = '\0';
		name = slash + 1;
	} else {
		name = work;
	}
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		fail(err, errsz, "%s: names a directory, not a file", path);
		goto out;
	}
	inside = mc_path_within(cur, root);
	for (comp = slash ? strtok_r(work, "/", &save) : NULL; comp != NULL;
	    comp = strtok_r(NULL, "/", &save)) {
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			/* cur is canonical, so its lexical parent is the real one. */
			slash = strrchr(cur, '/');
			if (slash == cur)
				slash[1] = '\0';
			else
				*slash = '\0';
			if (inside && !mc_path_within(cur, root)) {
				fail(err, errsz, "%s: \"..\" leads outside the working directory %s", path, root);
				goto out;
			}
			if (missing > 0)
				missing--;
			continue;
		}
		next = mc_path_join(cur, comp);
		if (missing > 0 || lstat(next, &st) == -1) {
			if (missing == 0 && (errno != ENOENT || !create || !mc_path_within(cur, root))) {
				if (errno == ENOENT && !mc_path_within(cur, root))
					fail(err, errsz, "%s: outside the working directory %s", path, root);
				else
					fail(err, errsz, "%s: %s", path, strerror(errno));
				free(next);
				goto out;
			}
			/* Made later, once the whole path is known to stay inside. */
			missing++;
		} else if (S_ISLNK(st.st_mode)) {
			res = realpath(next, NULL);
			if (res == NULL) {
				fail(err, errsz, "%s: symbolic link %s is broken", path, comp);
				free(next);
				goto out;
			}
			free(next);
			next = res;
			if (inside && !mc_path_within(next, root)) {
				fail(err, errsz, "%s: symbolic link leads outside the working directory %s", path, root);
				free(next);
				goto out;
			}
		} else if (!S_ISDIR(st.st_mode)) {
			fail(err, errsz, "%s: %s is not a directory", path, comp);
			free(next);
			goto out;
		}
		free(cur);
		cur = next;
		if (mc_path_within(cur, root))
			inside = 1;
	}
	if (!mc_path_within(cur, root)) {
		fail(err, errsz, "%s: outside the working directory %s", path, root);
		goto out;
	}
	next = mc_path_join(cur, name);
	if (missing > 0 || lstat(next, &st) == -1) {
		if (missing == 0 && (errno != ENOENT || !create)) {
			fail(err, errsz, "%s: %s", path, strerror(errno));
			free(next);
			goto out;
		}
	} else if (S_ISLNK(st.st_mode)) {
		if ((res = realpath(next, NULL)) == NULL) {
			fail(err, errsz, "%s: is a symbolic link to a missing file; refusing to follow it", path);
			free(next);
			goto out;
		}
		free(next);
		next = res;
		if (!mc_path_within(next, root)) {
			fail(err, errsz, "%s: symbolic link leads outside the working directory %s", path, root);
			free(next);
			goto out;
		}
		if (stat(next, &st) == -1 || !S_ISREG(st.st_mode)) {
			fail(err, errsz, "%s: symbolic link to something other than a regular file", path);
			free(next);
			goto out;
		}
	} else if (S_ISDIR(st.st_mode)) {
		fail(err, errsz, "%s: is a directory", path);
		free(next);
		goto out;
	} else if (!S_ISREG(st.st_mode)) {
		fail(err, errsz, "%s: not a regular file", path);
		free(next);
		goto out;
	}
	if (in_git(next)) {
		git_refused(err, errsz, path);
		free(next);
		goto out;
	}
	split(next, &t->dir, &t->name);
	free(next);
	if ((t->dfd = open_inside(root, t->dir, create, path, err, errsz)) == -1) {
		mc_confine_free(t);
		goto out;
	}
	rc = 0;
out:
	free(work);
	free(cur);
	return rc;
}

void
mc_confine_free(struct mc_confined *t)
{
	if (t->dfd != -1)
		close(t->dfd);
	free(t->dir);
	free(t->name);
	*t = (struct mc_confined){ .dfd = -1 };
}

int
mc_confine_write(const struct mc_confined *t, const char *data, size_t len,
    int *created, char *err, size_t errsz)
{
	const char *name = t->name;
	char tmp[300];
	struct stat st;
	mode_t mode, mask;
	int dfd = t->dfd, fd = -1, tries, exists;

	if (len > MC_CONFINE_MAX)
		return fail(err, errsz, "%zu bytes is over the %u-byte limit of a write", len, MC_CONFINE_MAX);
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISREG(st.st_mode))
			return fail(err, errsz, "not a regular file");
		exists = 1;
		mode = st.st_mode & 07777;
	} else if (errno == ENOENT) {
		exists = 0;
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	} else {
		return fail(err, errsz, "%s", strerror(errno));
	}
	for (tries = 0; tries < 100; tries++) {
		snprintf(tmp, sizeof tmp, ".%.200s.%08x.tmp", name, arc4random());
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd != -1 || errno != EEXIST)
			break;
	}
	if (fd == -1)
		return fail(err, errsz, "cannot create a temporary file in %s: %s", t->dir, strerror(errno));
	/* Owner first: a chown would clear set-id bits set by the chmod. */
	if (exists)
		(void)!fchown(fd, st.st_uid, st.st_gid);	/* best effort */
	if (mc_write_all(fd, data, len) == -1 || fchmod(fd, mode) == -1 || fsync(fd) == -1) {
		fail(err, errsz, "%s", strerror(errno));
		goto unlink;
	}
	if (close(fd) == -1) {
		fd = -1;
		fail(err, errsz, "%s", strerror(errno));
		goto unlink;
	}
	fd = -1;
	if (renameat(dfd, tmp, dfd, name) == -1) {
		fail(err, errsz, "%s", strerror(errno));
		goto unlink;
	}
	*created = !exists;
	return 0;
unlink:
	if (fd != -1)
		close(fd);
	unlinkat(dfd, tmp, 0);
	return -1;
}
