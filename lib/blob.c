/* blob.c: the content-addressed store $MC_HOME/blobs/: put once by SHA-256, got back checked. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sha256.h>

#include "blob.h"
#include "diag.h"
#include "fsread.h"

int
mc_blob_put(const char *home, const void *p, size_t n, char hex[MC_BLOB_HEX], char *err,
    size_t errsz)
{
	char *dir = mc_path_join(home, "blobs"), *path, *tmp;
	struct stat st;
	int fd, r = -1;

	SHA256Data(p, n, hex);
	path = mc_path_join(dir, hex);
	if (asprintf(&tmp, "%s/.%s.XXXXXX", dir, hex) == -1)
		mc_oom();
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == n) {
		r = 0;		/* stored once: the name is the content */
		goto out;
	}
	if (mc_dir_make(dir, err, errsz) == -1)
		goto out;
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		snprintf(err, errsz, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	if (mc_write_all(fd, p, n) == -1 || fsync(fd) == -1) {
		snprintf(err, errsz, "%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd) == -1 || rename(tmp, path) == -1) {
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	r = 0;
out:
	free(tmp);
	free(path);
	free(dir);
	return r;
}

int
mc_blob_get(const char *home, const char *hex, size_t cap, struct mc_buf *out, char *err,
    size_t errsz)
{
	char *dir = mc_path_join(home, "blobs"), *path = mc_path_join(dir, hex);
	char got[MC_BLOB_HEX];
	struct mc_read r;
	int rc = -1;

	mc_file_read(path, cap, MC_LINK_REFUSE, NULL, 0, &r);
	if (r.status == MC_READ_MISSING)
		snprintf(err, errsz, "blob %s is not in %s", hex, dir);
	else if (r.status != MC_READ_OK)
		snprintf(err, errsz, "blob %s: %s", path, mc_read_strerror(&r, cap));
	else if (strcmp(SHA256Data((const uint8_t *)r.data, r.len, got), hex) != 0)
		snprintf(err, errsz, "blob %s does not match its hash (changed on disk?)", path);
	else {
		mc_buf_add(out, r.data, r.len);
		rc = 0;
	}
	free(r.data);
	free(path);
	free(dir);
	return rc;
}
