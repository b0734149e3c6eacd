/* cache.c: the answer cache's files: an entry read (its time refreshed), written whole and renamed, the oldest evicted past the bound, the total kept in an index. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "diag.h"
#include "fsread.h"

#define KEY_LEN 64
#define TMP_SUFFIX ".XXXXXX"
#define LEFTOVER_S 3600	/* a temporary file this old lost its writer */
#define INDEX ".size"	/* the entries' total bytes, and the writers' lock */
#define INDEX_LEN 21	/* 20 digits and a newline: one write, never shorter */

int
mc_cache_key_valid(const char *key)
{
	return strlen(key) == KEY_LEN && strspn(key, "0123456789abcdef") == KEY_LEN;
}

/* KEY.XXXXXX: an entry being written. */
static int
temp_name(const char *name)
{
	char key[KEY_LEN + 1];

	if (strlen(name) != KEY_LEN + sizeof TMP_SUFFIX - 1 || name[KEY_LEN] != '.')
		return 0;
	memcpy(key, name, KEY_LEN);
	key[KEY_LEN] = '\0';
	return mc_cache_key_valid(key);
}

void
mc_cache_init(struct mc_cache *c, const char *home, unsigned long long max)
{
	c->dir = mc_path_join(home, "cache");
	c->fd = -1;
	c->max = max;
}

void
mc_cache_free(struct mc_cache *c)
{
	if (c->dir == NULL)	/* never set up */
		return;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->dir);
	c->dir = NULL;
}

/* Open the directory, making it (and the home above it) when create is
 * set. 0; 1 when it is missing and create is not set; -1 with err. */
static int
open_dir(struct mc_cache *c, int create, char *err, size_t errsz)
{
	if (c->fd >= 0)
		return 0;
	if (create && mc_dir_make(c->dir, err, errsz) == -1)
		return -1;
	/* The directory may be a link the user made (to a bigger disk, say);
	 * the entries in it never are. */
	if ((c->fd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		if (errno == ENOENT && !create)
			return 1;
		snprintf(err, errsz, "%s: %s", c->dir, strerror(errno));
		return -1;
	}
	return 0;
}

int
mc_cache_get(struct mc_cache *c, const char *key, struct mc_buf *out, char *err, size_t errsz)
{
	struct mc_read r;
	int o;

	if ((o = open_dir(c, 0, err, errsz)) != 0)
		return o == 1 ? 0 : -1;
	mc_file_readat(c->fd, key, MC_CACHE_ENTRY_MAX, 1, &r);
	if (r.status == MC_READ_MISSING)
		return 0;
	if (r.status != MC_READ_OK) {
		snprintf(err, errsz, "%s/%s: %s", c->dir, key, mc_read_strerror(&r,
		    MC_CACHE_ENTRY_MAX));
		free(r.data);
		return -1;
	}
	/* Used now: the last to go. A cache the user may only read still
	 * answers. */
	(void)utimensat(c->fd, key, NULL, AT_SYMLINK_NOFOLLOW);
	mc_buf_free(out);	/* the read's buffer is handed over, not copied */
	*out = (struct mc_buf){ .data = r.data, .len = r.len, .cap = r.len + 1 };
	return 1;
}

struct entry {
	char name[KEY_LEN + 1];
	struct timespec mtime;
	unsigned long long size;
};

static int
older(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Remove name unless another process did first. */
static int
remove_entry(struct mc_cache *c, const char *name, char *err, size_t errsz)
{
	if (unlinkat(c->fd, name, 0) == -1 && errno != ENOENT) {
		snprintf(err, errsz, "%s/%s: %s", c->dir, name, strerror(errno));
		return -1;
	}
	return 0;
}

/* The entries other than keep (whose size is in *total) into *vp, the
 * oldest first; leftover temporary files removed on the way. 0, or -1
 * with err. */
static int
entries(struct mc_cache *c, const char *keep, struct entry **vp, size_t *n,
    unsigned long long *total, char *err, size_t errsz)
{
	struct entry *v = NULL, *nv;
	struct dirent *de;
	struct stat st;
	size_t cap = 0;
	time_t now = time(NULL);
	DIR *d;
	int fd, tmp;

	*vp = NULL;
	*n = 0;
	if ((fd = dup(c->fd)) == -1 || (d = fdopendir(fd)) == NULL) {
		snprintf(err, errsz, "%s: %s", c->dir, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		if (!(tmp = temp_name(de->d_name)) && !mc_cache_key_valid(de->d_name))
			continue;
		if (fstatat(c->fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISREG(st.st_mode))
			continue;	/* gone meanwhile, or not ours */
		if (tmp) {
			if (now - st.st_mtim.tv_sec > LEFTOVER_S)
				(void)unlinkat(c->fd, de->d_name, 0);
			continue;
		}
		*total += (unsigned long long)st.st_size;
		if (strcmp(de->d_name, keep) == 0)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nv = reallocarray(v, cap, sizeof *v)) == NULL)
				mc_oom();
			v = nv;
		}
		memcpy(v[*n].name, de->d_name, KEY_LEN + 1);
		v[*n].mtime = st.st_mtim;
		v[*n].size = (unsigned long long)st.st_size;
		(*n)++;
	}
	closedir(d);
	if (*n > 1)
		qsort(v, *n, sizeof *v, older);
	*vp = v;
	return 0;
}

/* Remove the oldest entries but keep until the rest fit in c->max; what
 * they hold then in *total. */
static int
evict(struct mc_cache *c, const char *keep, unsigned long long *total, char *err,
    size_t errsz)
{
	struct entry *v;
	size_t n, i;
	int rc = 0;

	*total = 0;
	if (entries(c, keep, &v, &n, total, err, errsz) == -1)
		return -1;
	for (i = 0; i < n && *total > c->max && rc == 0; i++) {
		rc = remove_entry(c, v[i].name, err, errsz);
		*total -= v[i].size;
	}
	free(v);
	return rc;
}

/*
 * The index: the entries' total size, so that a put scans the directory
 * only when the total may pass the bound, not every time. Its file is
 * also the lock that writers (put, drop) hold while they change entries
 * and total, so two mc-send at once cannot lose each other's sizes. A
 * reader takes no lock. Open and locked: its descriptor, or -1 (the
 * cache then works without it, scanning as it did before it had one).
 */
static int
index_lock(struct mc_cache *c)
{
	int fd = openat(c->fd, INDEX, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	int r;

	if (fd == -1)
		return -1;
	while ((r = flock(fd, LOCK_EX)) == -1 && errno == EINTR)
		;
	if (r == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The total the index holds: 0, or -1 when it is missing or implausible
 * (not 20 digits and a newline: a new index, a crash, a hand's edit), to
 * be rebuilt by a scan. */
static int
index_read(int fd, unsigned long long *total)
{
	char b[INDEX_LEN + 1], *end;
	ssize_t n;

	if (fd == -1 || (n = pread(fd, b, sizeof b, 0)) != INDEX_LEN || b[INDEX_LEN - 1] != '\n' ||
	    strspn(b, "0123456789") != INDEX_LEN - 1)
		return -1;
	b[INDEX_LEN - 1] = '\0';
	errno = 0;
	*total = strtoull(b, &end, 10);
	return errno == 0 && *end == '\0' ? 0 : -1;
}

/* Keep total in the index: one write of a fixed length, so a crash
 * leaves the old figure or the new one; a failed write empties it, so
 * that the next writer scans. */
static void
index_write(int fd, unsigned long long total)
{
	char b[INDEX_LEN + 1];

	if (fd == -1)
		return;
	snprintf(b, sizeof b, "%020llu\n", total);
	if (pwrite(fd, b, INDEX_LEN, 0) != INDEX_LEN && ftruncate(fd, 0) == -1) {
		/* Nothing better to do: an index that is not whole is rebuilt. */
	}
}

/* The size of entry name, 0 when there is none. */
static unsigned long long
entry_size(struct mc_cache *c, const char *name)
{
	struct stat st;

	if (fstatat(c->fd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 || !S_ISREG(st.st_mode))
		return 0;
	return (unsigned long long)st.st_size;
}

/* After key's entry of n bytes replaced one of old bytes: the total
 * updated, and the directory scanned (leftovers removed, the oldest
 * evicted) only when the index cannot say or the total passes c->max. */
static int
account(struct mc_cache *c, int ix, const char *key, unsigned long long old, size_t n,
    char *err, size_t errsz)
{
	unsigned long long total;
	int rc = 0;

	if (index_read(ix, &total) == -1 || total < old || (total += n - old) > c->max)
		rc = evict(c, key, &total, err, errsz);
	if (rc == 0)
		index_write(ix, total);
	else if (ix != -1 && ftruncate(ix, 0) == -1) {
		/* Rebuilt by the next writer all the same: its figure is not whole. */
	}
	return rc;
}

int
mc_cache_put(struct mc_cache *c, const char *key, const char *data, size_t n, char *err,
    size_t errsz)
{
	unsigned long long old;
	int fd, e, ix, rc;
	char *tmp;

	if (n > c->max || n > MC_CACHE_ENTRY_MAX)
		return 1;
	if (open_dir(c, 1, err, errsz) == -1)
		return -1;
	if (asprintf(&tmp, "%s/%s" TMP_SUFFIX, c->dir, key) == -1)
		mc_oom();
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		snprintf(err, errsz, "%s: %s", c->dir, strerror(errno));
		free(tmp);
		return -1;
	}
	if (fchmod(fd, 0600) == -1 || mc_write_all(fd, data, n) == -1) {
		e = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) == -1) {
		e = errno;
		goto fail;
	}
	ix = index_lock(c);
	old = entry_size(c, key);
	if (renameat(c->fd, strrchr(tmp, '/') + 1, c->fd, key) == -1) {
		e = errno;
		if (ix != -1)
			close(ix);
		goto fail;
	}
	free(tmp);
	rc = account(c, ix, key, old, n, err, errsz);
	if (ix != -1)
		close(ix);
	return rc;
fail:
	unlink(tmp);
	snprintf(err, errsz, "%s/%s: %s", c->dir, key, strerror(e));
	free(tmp);
	return -1;
}

int
mc_cache_drop(struct mc_cache *c, const char *key, char *err, size_t errsz)
{

	unsigned long long total, size;
	int o, ix;

	if ((o = open_dir(c, 0, err, errsz)) != 0)
		return o == 1 ? 0 : -1;
	ix = index_lock(c);
	size = entry_size(c, key);
	if ((o = remove_entry(c, key, err, errsz)) == 0 && index_read(ix, &total) == 0)
		index_write(ix, total >= size ? total - size : 0);
	if (ix != -1)
		close(ix);
	return o;
}
