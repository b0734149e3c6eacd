/* files.c: the write and edit tools: whole files replaced atomically, inside the working directory. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "confine.h"
#include "fsread.h"
#include "diag.h"
#include "json.h"
#include "mc-tool.h"

#define EDIT_MAX (16u << 20)		/* largest file edit will load */

/* The new text of a file: into it, or (--buffer-out) to the editor. */
static int
put(struct call *c, const struct mc_confined *t, const char *data, size_t len, int *created,
    char *err, size_t errsz)
{
	if (c->buffer_out == -1)
		return mc_confine_write(t, data, len, created, err, errsz);
	*created = faccessat(t->dfd, t->name, F_OK, AT_SYMLINK_NOFOLLOW) == -1;
	if (mc_write_all(c->buffer_out, data, len) == -1) {
		snprintf(err, errsz, "%s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The text of a file, for edit: from it, or (--buffer-in) from the editor. */
static void
get(struct call *c, const struct mc_confined *t, struct mc_read *r)
{
	struct mc_buf b = {0};

	if (c->buffer_in == -1) {
		mc_file_readat(t->dfd, t->name, EDIT_MAX, 0, r);
		return;
	}
	memset(r, 0, sizeof *r);
	if (mc_fd_slurp(c->buffer_in, EDIT_MAX, &b) == -1) {
		r->status = errno == EFBIG ? MC_READ_TOOBIG : MC_READ_ERRNO;
		r->err = errno;
		mc_buf_free(&b);
		return;
	}
	mc_buf_adds(&b, "");
	r->len = b.len;
	r->data = mc_buf_steal(&b);
}

void
tool_write(struct call *c)
{
	const char *path = arg_str(c, "path");
	const char *content = arg_str(c, "content");
	char err[PATH_MAX * 2 + 256], *full;
	size_t len = strlen(content), lines = 0, i;
	struct mc_confined t;
	int created;

	if (mc_confine_resolve(c->root, path, 1, &t, err, sizeof err) == -1) {
		say(c, "error: %s\n", err);
		return;
	}
	if (put(c, &t, content, len, &created, err, sizeof err) == -1) {
		say(c, "error: %s: %s\n", path, err);
	} else {
		for (i = 0; i < len; i++)
			lines += content[i] == '\n';
		if (len && content[len - 1] != '\n')
			lines++;
		say(c, "%s %s: %zu bytes, %zu line%s\n", created ? "Created" : "Wrote",
		    path, len, lines, lines == 1 ? "" : "s");
		full = mc_path_join(t.dir, t.name);
		touch(c, full);
		free(full);
	}
	mc_confine_free(&t);
}

static long
line_at(const char *at, const char **from, long *line)
{
	const char *p;

	for (p = *from; p < at; p++)
		*line += *p == '\n';
	*from = at;
	return *line;
}

/* Bytes of a file of len bytes once count occurrences of olen bytes
 * become nlen bytes each; saturates rather than wraps. */
static unsigned long long
result_size(size_t len, size_t count, size_t olen, size_t nlen)
{
	unsigned long long grow;

	if (nlen <= olen)
		return len - count * (olen - nlen);
	if (__builtin_mul_overflow((unsigned long long)count, nlen - olen, &grow) ||
	    grow > ULLONG_MAX - len)
		return ULLONG_MAX;
	return len + grow;
}

void
tool_edit(struct call *c)
{
	const char *path = arg_str(c, "path");
	const char *old = arg_str(c, "old_string"), *new = arg_str(c, "new_string");
	int all = arg_bool(c, "replace_all"), created;
	char err[PATH_MAX * 2 + 256], *full = NULL;
	struct mc_buf lines = {0}, res = {0};
	struct mc_confined t;
	size_t olen = strlen(old), nlen = strlen(new), count = 0;
	const char *p, *hit, *from;
	struct mc_read r = {0};
	unsigned long long size;
	long line = 1;

	if (olen == 0) {
		say(c, "error: old_string is empty; to create a file or replace all of it, use write\n");
		return;
	}
	if (strcmp(old, new) == 0) {
		say(c, "error: old_string and new_string are the same; nothing to change\n");
		return;
	}
	if (mc_confine_resolve(c->root, path, 0, &t, err, sizeof err) == -1) {
		say(c, "error: %s\n", err);
		return;
	}
	full = mc_path_join(t.dir, t.name);
	/* Through the directory resolved and held, as the write will be. */
	get(c, &t, &r);
	if (r.status != MC_READ_OK) {
		say(c, "error: %s: %s\n", path, mc_read_strerror(&r, EDIT_MAX));
		goto out;
	}
	if (memchr(r.data, '\0', r.len) != NULL) {
		say(c, "error: %s is a binary file; edit changes text files only\n", path);
		goto out;
	}
	from = r.data;
	for (p = r.data; (hit = memmem(p, r.len - (size_t)(p - r.data), old, olen)) != NULL; p = hit + olen) {
		count++;
		if (count <= 10)
			mc_buf_printf(&lines, "%s%ld", count > 1 ? ", " : "", line_at(hit, &from, &line));
	}
	if (count == 0) {
		say(c, "error: old_string was not found in %s. It must match the file exactly, "
		    "including whitespace and indentation; read the file again and copy the text.%s\n", path,
		    memmem(r.data, r.len, "\r\n", 2) && strstr(old, "\r\n") == NULL && strchr(old, '\n') ?
		    " Note: the file has CRLF line endings." : "");
		goto out;
	}
	if (count > 1 && !all) {
		say(c, "error: old_string occurs %zu times in %s (lines %s%s). Include more surrounding "
		    "lines to make it unique, or set replace_all to true to replace every occurrence.\n",
		    count, path, lines.data, count > 10 ? ", ..." : "");
		goto out;
	}
	/* Known before it is built: replace_all of a short string by a long
	 * one over a large file could ask for gigabytes. */
	if ((size = result_size(r.len, count, olen, nlen)) > MC_CONFINE_MAX) {
		say(c, "error: the edit would make %s %llu bytes, over the %u-byte limit of a write; "
		    "nothing was changed\n", path, size, MC_CONFINE_MAX);
		goto out;
	}
	mc_buf_grow(&res, (size_t)size);
	for (p = r.data; (hit = memmem(p, r.len - (size_t)(p - r.data), old, olen)) != NULL; p = hit + olen) {
		mc_buf_add(&res, p, (size_t)(hit - p));
		mc_buf_add(&res, new, nlen);
	}
	mc_buf_add(&res, p, r.len - (size_t)(p - r.data));
	if (put(c, &t, res.data, res.len, &created, err, sizeof err) == -1) {
		say(c, "error: %s: %s\n", path, err);
		goto out;
	}
	say(c, "Edited %s: replaced %zu occurrence%s (line%s %s%s)\n", path, count,
	    count == 1 ? "" : "s", count == 1 ? "" : "s", lines.data, count > 10 ? ", ..." : "");
	touch(c, full);
out:
	free(r.data);
	free(full);
	mc_confine_free(&t);
	mc_buf_free(&lines);
	mc_buf_free(&res);
}

