/* session.c: session files written as whole lines, resumable after a crash. */
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

#include <bsd/stdlib.h>

#include "diag.h"
#include "buf.h"
#include "fsread.h"
#include "items.h"
#include "json.h"
#include "session.h"
#include "utf8.h"

#define HEADER_MAX (64u << 10)

static const char interrupted[] =
    "error: this call was interrupted before it finished (the session ended); "
    "it may or may not have taken effect";

int
mc_session_id_valid(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n > 64 || id[0] == '-')
		return 0;
	return strspn(id, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == n;
}

static char *
sessions_dir(const char *home, int create, char *err, size_t errsz)
{
	char *dir = mc_path_join(home, "sessions");

	if (create && mc_dir_make(dir, err, errsz) == -1) {
		free(dir);
		return NULL;
	}
	return dir;
}

static char *
session_path(const char *dir, const char *id)
{
	char *name, *path;

	if (asprintf(&name, "%s.jsonl", id) == -1)
		mc_oom();
	path = mc_path_join(dir, name);
	free(name);
	return path;
}

char *
mc_session_path(const char *home, const char *id)
{
	char *dir = mc_path_join(home, "sessions"), *path = session_path(dir, id);

	free(dir);
	return path;
}

/* Note the call_id of a function_call (not yet answered); the key as the
 * set holds it, or NULL for another item or a call_id already known. */
static const char *
remember_call(struct mc_session *s, const cJSON *item)
{
	const char *type = mc_json_str(item, "type"), *cid = mc_json_str(item, "call_id");
	struct mc_strset_slot *p;
	int added;

	if (type == NULL || cid == NULL || strcmp(type, "function_call") != 0)
		return NULL;
	p = mc_strset_add(&s->calls, cid, 0, &added);
	return added ? p->key : NULL;
}

/* Mark the call an output item answers; 1 when it was one not yet answered. */
static int
remember_output(struct mc_session *s, const cJSON *item)
{
	const char *type = mc_json_str(item, "type"), *cid = mc_json_str(item, "call_id");
	struct mc_strset_slot *p;

	if (type == NULL || cid == NULL || strcmp(type, "function_call_output") != 0 ||
	    (p = mc_strset_find(&s->calls, cid)) == NULL || p->val)
		return 0;
	p->val = 1;
	return 1;
}

int
mc_session_has_call(const struct mc_session *s, const char *call_id)
{
	return mc_strset_find(&s->calls, call_id) != NULL;
}

char *
mc_session_cwd(const char *cwd)
{
	struct mc_buf b = {0};
	size_t n = strlen(cwd), k;

	while (n > 0) {
		if ((k = mc_utf8_seqlen(cwd, n)) == 0) {
			mc_buf_add(&b, "\xEF\xBF\xBD", 3);
			k = 1;
		} else
			mc_buf_add(&b, cwd, k);
		cwd += k;
		n -= k;
	}
	mc_buf_add(&b, "", 0);
	return mc_buf_steal(&b);
}

void
mc_session_memory(struct mc_session *s)
{
	memset(s, 0, sizeof *s);
	s->fd = -1;
}

/* Lock the session file against a second writer. */
static int
lock(struct mc_session *s, char *err, size_t errsz)
{
	if (flock(s->fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno == EWOULDBLOCK)
		snprintf(err, errsz, "session %s is in use by another mc", s->id);
	else
		snprintf(err, errsz, "%s: lock: %s", s->path, strerror(errno));
	return -1;
}

/* Write one whole line; a short write is undone so no torn line stays. */
static int
append_line(struct mc_session *s, const char *line, size_t len, char *err, size_t errsz)
{
	struct stat st;
	ssize_t w;

	if (fstat(s->fd, &st) == -1) {
		snprintf(err, errsz, "%s: %s", s->path, strerror(errno));
		return -1;
	}
	do
		w = write(s->fd, line, len);
	while (w == -1 && errno == EINTR);
	/* "Flushed to disk before the next step": a crash of the machine,
	 * not only of mc, keeps every item that was reported written. */
	if (w == (ssize_t)len) {
		if (fdatasync(s->fd) == 0) {
			s->bytes = (size_t)st.st_size + len;
			return 0;
		}
	} else if (w >= 0)
		errno = ENOSPC;
	snprintf(err, errsz, "%s: %s", s->path, strerror(errno));
	if (w > 0 && ftruncate(s->fd, st.st_size) == -1) {
		/* Nothing better to do: mc_session_open() cuts a torn line. */
	}
	return -1;
}

int
mc_session_append(struct mc_session *s, const cJSON *item, char *err, size_t errsz)
{
	char *text;
	size_t n;
	int r;

	if ((text = cJSON_PrintUnformatted(item)) == NULL)
		mc_oom();
	n = strlen(text);
	/* cJSON escapes control characters, so the text is one line. */
	text[n] = '\n';
	r = s->fd == -1 ? 0 : append_line(s, text, n + 1, err, errsz);
	if (r == 0 && strcmp(mc_json_str(item, "type") ? mc_json_str(item, "type") : "", "session") != 0) {
		mc_buf_add(&s->lines, text, n + 1);
		remember_call(s, item);
		remember_output(s, item);
		s->items++;
	}
	free(text);
	return r;
}

/*
 * Make the file of a new session in dir: a fresh id from the time now
 * (tm) and random digits, the file created empty with O_EXCL, so the id
 * is this session's. Fills s->id, s->path and s->fd (appending, locked).
 */
static int
reserve(struct mc_session *s, const char *dir, const struct tm *tm, char *err, size_t errsz)
{
	char id[64];

	for (;;) {
		strftime(id, sizeof id, "%Y%m%d-%H%M%S", tm);
		snprintf(id + strlen(id), sizeof id - strlen(id), "-%06x",
		    arc4random_uniform(0x1000000));
		s->path = session_path(dir, id);
		s->fd = open(s->path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (s->fd != -1 || errno != EEXIST)
			break;
		free(s->path);
	}
	if (s->fd == -1) {
		snprintf(err, errsz, "%s: %s", s->path, strerror(errno));
		free(s->path);
		s->path = NULL;
		return -1;
	}
	/* Nobody else knows the new name yet: this lock cannot be held. */
	(void)flock(s->fd, LOCK_EX | LOCK_NB);
	s->id = mc_strdup(id);
	return 0;
}

/* The header of a new session s, created at tm. */
static cJSON *
header_new(const struct mc_session *s, const struct tm *tm, const char *cwd,
    const char *provider, const char *model, const cJSON *more)
{
	char created[32];
	const cJSON *e;
	cJSON *h = mc_json_new_obj();

	strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", tm);
	mc_json_add_str(h, "type", "session");
	mc_json_add_str(h, "id", s->id);
	mc_json_add_str(h, "created", created);
	mc_json_add_owned(h, "cwd", mc_session_cwd(cwd));
	mc_json_add_str(h, "provider", provider);
	mc_json_add_str(h, "model", model);
	cJSON_ArrayForEach(e, more)
		mc_json_add(h, e->string, cJSON_Duplicate(e, 1));
	return h;
}

int
mc_session_create(struct mc_session *s, const char *home, const char *cwd,
    const char *provider, const char *model, const cJSON *more, char *err, size_t errsz)
{
	time_t now = time(NULL);
	struct tm tm;
	char *dir;
	int r;

	memset(s, 0, sizeof *s);
	s->fd = -1;
	if ((dir = sessions_dir(home, 1, err, errsz)) == NULL)
		return -1;
	gmtime_r(&now, &tm);
	r = reserve(s, dir, &tm, err, errsz);
	free(dir);
	if (r == -1)
		return -1;
	s->header = header_new(s, &tm, cwd, provider, model, more);
	if (mc_session_append(s, s->header, err, errsz) == -1) {
		unlink(s->path);
		mc_session_close(s);
		return -1;
	}
	return 0;
}

cJSON *
mc_session_more(const cJSON *header, const char *key, const char *id)
{
	static const char *const own[] = { "type", "id", "created", "cwd", "provider", "model",
	    "compacted_from", "forked_from", "title", "tools_loaded", NULL };
	cJSON *more = mc_json_new_obj();
	const cJSON *e;
	size_t i;

	cJSON_ArrayForEach(e, header) {
		for (i = 0; own[i] != NULL && strcmp(own[i], e->string) != 0; i++)
			;
		if (own[i] == NULL)
			mc_json_add(more, e->string, cJSON_Duplicate(e, 1));
	}
	if (id != NULL)
		mc_json_add_str(more, key, id);
	return more;
}

/*
 * Scan the lines of a session file (data, len bytes, whole lines): the
 * header, then items, counted, each call_id noted, each line given to
 * each. *open is set to the calls whose output never came, in the order
 * of the file (the set's keys; malloc'ed, *nopen of them). Returns the
 * header line's length, or -1 with err naming the line of name.
 */
static long
scan(struct mc_session *s, const char *name, const char *data, size_t len,
    void (*each)(const cJSON *, const char *, size_t, void *), void *arg, const char ***open,
    size_t *nopen,
    char *err, size_t errsz)
{
	const char *line = data, *nl, **calls = NULL, *key, *type;
	size_t lineno = 0, n = 0, cap = 0, i, k;
	long hdr = -1;
	char perr[256];
	cJSON *item;

	while (line < data + len) {
		nl = memchr(line, '\n', (size_t)(data + len - line));
		lineno++;
		item = mc_json_parse(line, (size_t)(nl - line), perr, sizeof perr);
		if (item == NULL || !cJSON_IsObject(item)) {
			snprintf(err, errsz, "%s:%zu: %s", name, lineno,
			    item ? "not a JSON object" : perr);
			cJSON_Delete(item);
			goto fail;
		}
		if (lineno == 1) {
			type = mc_json_str(item, "type");
			if (type == NULL || strcmp(type, "session") != 0) {
				snprintf(err, errsz, "%s:1: not a session header", name);
				cJSON_Delete(item);
				goto fail;
			}
			s->header = item;
			hdr = (long)(nl + 1 - data);
		} else {
			s->items++;
			if ((key = remember_call(s, item)) != NULL) {
				if (n == cap) {
					cap = cap ? 2 * cap : 64;
					if ((calls = reallocarray(calls, cap, sizeof *calls)) == NULL)
						mc_oom();
				}
				calls[n++] = key;
			}
			remember_output(s, item);
		}
		if (each != NULL)
			each(item, line, (size_t)(nl + 1 - line), arg);
		if (lineno > 1)
			cJSON_Delete(item);
		line = nl + 1;
	}
	if (s->header == NULL) {
		snprintf(err, errsz, "%s: empty session file", name);
		goto fail;
	}
	for (i = k = 0; i < n; i++)
		if (!mc_strset_find(&s->calls, calls[i])->val)
			calls[k++] = calls[i];
	*open = calls;
	*nopen = k;
	return hdr;
fail:
	free(calls);
	return -1;
}

/* The items of text (len bytes, after a header line of hdr bytes) become
 * s->lines in place: the one copy of the file that is kept. */
static void
take_lines(struct mc_session *s, char *text, size_t len, size_t hdr)
{
	memmove(text, text + hdr, len - hdr);
	text[len - hdr] = '\0';
	mc_buf_free(&s->lines);
	s->lines.data = text;
	s->lines.len = len - hdr;
	s->lines.cap = len - hdr + 1;
}

/*
 * Write text whole to a hidden temporary file in dir, flushed to disk,
 * and give it path's name: the file at path is replaced in one step.
 * Returns the new file's descriptor (appending, locked), or -1 with err;
 * nothing is left behind then.
 */
static int
replace_whole(const char *dir, const char *path, const struct mc_buf *text, char *err,
    size_t errsz)
{
	char *tmp = mc_path_join(dir, ".compacting-XXXXXX");
	int fd;

	if ((fd = mkostemp(tmp, O_APPEND | O_CLOEXEC)) == -1) {
		snprintf(err, errsz, "%s: %s", dir, strerror(errno));
		free(tmp);
		return -1;
	}
	(void)flock(fd, LOCK_EX | LOCK_NB);
	if (mc_write_all(fd, text->data, text->len) == -1 || fdatasync(fd) == -1 ||
	    rename(tmp, path) == -1) {
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		close(fd);
		unlink(tmp);
		fd = -1;
	}
	free(tmp);
	return fd;
}

int
mc_session_create_items(struct mc_session *s, const char *home, const char *cwd,
    const char *provider, const char *model, const cJSON *more, const char *items, size_t len,
    char *err, size_t errsz)
{
	struct mc_buf b = {0};
	char *dir = NULL, *text;
	const char **open_ids = NULL;
	size_t nopen = 0, n;
	time_t now = time(NULL);
	struct tm tm;
	int fd, ret = -1;
	long hdr;
	cJSON *h;

	memset(s, 0, sizeof *s);
	s->fd = -1;
	gmtime_r(&now, &tm);
	if (home != NULL && ((dir = sessions_dir(home, 1, err, errsz)) == NULL ||
	    reserve(s, dir, &tm, err, errsz) == -1)) {
		free(dir);
		return -1;
	}
	h = header_new(s, &tm, cwd, provider, model, more);
	text = mc_json_compact(h, &n);
	cJSON_Delete(h);
	mc_buf_add(&b, text, n);
	mc_buf_addc(&b, '\n');
	free(text);
	mc_buf_add(&b, items, len);
	if (len > 0 && items[len - 1] != '\n')
		mc_buf_addc(&b, '\n');
	/* The items become the session's, checked as a resumed file's are. */
	if ((hdr = scan(s, s->path ? s->path : "the compacted session", b.data, b.len, NULL,
	    NULL, &open_ids, &nopen, err, errsz)) == -1)
		goto out;
	s->bytes = b.len;
	if (home != NULL) {
		if ((fd = replace_whole(dir, s->path, &b, err, errsz)) == -1)
			goto out;
		close(s->fd);
		s->fd = fd;
	}
	take_lines(s, b.data, b.len, (size_t)hdr);
	b = (struct mc_buf){0};
	ret = 0;
out:
	if (ret == -1) {
		if (s->path != NULL)
			unlink(s->path);
		mc_session_close(s);
	}
	free(open_ids);
	free(dir);
	mc_buf_free(&b);
	return ret;
}

/* Fill in the id and path of session id; nothing is opened. */
static int
locate(struct mc_session *s, const char *home, const char *id, char *err, size_t errsz)
{
	char *dir;

	memset(s, 0, sizeof *s);
	s->fd = -1;
	if (!mc_session_id_valid(id)) {
		snprintf(err, errsz, "%s: not a valid session id", id);
		return -1;
	}
	if ((dir = sessions_dir(home, 0, err, errsz)) == NULL)
		return -1;
	s->path = session_path(dir, id);
	free(dir);
	s->id = mc_strdup(id);
	return 0;
}

int
mc_session_load(struct mc_session *s, const char *home, const char *id, int writable,
    void (*each)(const cJSON *, const char *, size_t, void *), void *arg, char *err,
    size_t errsz)
{
	const char **ids = NULL;
	size_t nids = 0, i, keep;
	struct mc_read r;
	int ret = -1;
	char *end;
	long hdr;
	cJSON *out;

	if (locate(s, home, id, err, errsz) == -1)
		return -1;
	memset(&r, 0, sizeof r);
	if (writable &&
	    (s->fd = open(s->path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			snprintf(err, errsz, "no session %s (%s)", id, s->path);
		else
			snprintf(err, errsz, "%s: %s", s->path, strerror(errno));
		goto out;
	}
	if (writable && lock(s, err, errsz) == -1)
		goto out;
	/* Bytes, not text: a torn last line may end inside a character. */
	mc_file_read(s->path, MC_SESSION_MAX, MC_LINK_REFUSE, NULL, 0, &r);
	if (r.status == MC_READ_MISSING) {
		snprintf(err, errsz, "no session %s (%s)", id, s->path);
		goto out;
	}
	if (r.status != MC_READ_OK) {
		snprintf(err, errsz, "%s: %s", s->path, mc_read_strerror(&r, MC_SESSION_MAX));
		goto out;
	}
	/* Only a torn last line lacks its newline; it never reached the session. */
	end = memrchr(r.data, '\n', r.len);
	keep = end ? (size_t)(end - r.data) + 1 : 0;
	s->dropped = r.len - keep;
	if (memchr(r.data, '\0', keep) != NULL || !mc_utf8_valid(r.data, keep)) {
		snprintf(err, errsz, "%s: not valid UTF-8 text", s->path);
		goto out;
	}
	if ((hdr = scan(s, s->path, r.data, keep, each, arg, &ids, &nids, err, errsz)) == -1)
		goto out;
	if (writable && s->dropped && ftruncate(s->fd, (off_t)keep) == -1) {
		snprintf(err, errsz, "%s: %s", s->path, strerror(errno));
		goto out;
	}
	s->bytes = keep;
	take_lines(s, r.data, keep, (size_t)hdr);
	r.data = NULL;
	ret = 0;
	for (i = 0; i < nids && ret == 0; i++) {
		out = mc_item_output(ids[i], interrupted);
		ret = mc_session_append(s, out, err, errsz);
		cJSON_Delete(out);
		s->repaired++;
	}
out:
	free(ids);
	free(r.data);
	if (ret == -1)
		mc_session_close(s);
	return ret;
}

int
mc_session_open(struct mc_session *s, const char *home, const char *id,
    char *err, size_t errsz)
{
	return mc_session_load(s, home, id, 1, NULL, NULL, err, errsz);
}

int
mc_session_read(struct mc_session *s, const char *home, const char *id,
    char *err, size_t errsz)
{
	return mc_session_load(s, home, id, 0, NULL, NULL, err, errsz);
}

/* The header of the session file name in dirfd, or NULL. */
static cJSON *
read_header(int dirfd, const char *name)
{
	char buf[HEADER_MAX], *nl, perr[64];
	struct stat st;
	ssize_t n;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (n = read(fd, buf, sizeof buf - 1)) <= 0) {
		close(fd);
		return NULL;
	}
	close(fd);
	buf[n] = '\0';
	if ((nl = memchr(buf, '\n', (size_t)n)) == NULL)
		return NULL;
	return mc_json_parse(buf, (size_t)(nl - buf), perr, sizeof perr);
}

int
mc_session_latest(const char *home, const char *cwd, char **id, char *err, size_t errsz)
{
	struct timespec best = {0};
	char *dir, name[80];
	struct dirent *e;
	struct stat st;
	const char *hc;
	char *want = mc_session_cwd(cwd);
	cJSON *h;
	size_t n;
	DIR *d;

	*id = NULL;
	if ((dir = sessions_dir(home, 0, err, errsz)) == NULL) {
		free(want);
		return -1;
	}
	if ((d = opendir(dir)) == NULL) {
		if (errno == ENOENT) {
			free(dir);
			free(want);
			return 1;
		}
		snprintf(err, errsz, "%s: %s", dir, strerror(errno));
		free(dir);
		free(want);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		n = strlen(e->d_name);
		if (n <= 6 || n >= sizeof name || strcmp(e->d_name + n - 6, ".jsonl") != 0)
			continue;
		memcpy(name, e->d_name, n - 6);
		name[n - 6] = '\0';
		if (!mc_session_id_valid(name) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (*id != NULL && (st.st_mtim.tv_sec < best.tv_sec ||
		    (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec < best.tv_nsec) ||
		    (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec == best.tv_nsec &&
		    strcmp(name, *id) < 0)))
			continue;
		if ((h = read_header(dirfd(d), e->d_name)) == NULL)
			continue;
		hc = mc_json_str(h, "cwd");
		/* A subagent's session is its parent's part, not one to go on with. */
		if (hc != NULL && strcmp(hc, want) == 0 &&
		    cJSON_GetObjectItemCaseSensitive(h, "parent") == NULL) {
			free(*id);
			*id = mc_strdup(name);
			best = st.st_mtim;
		}
		cJSON_Delete(h);
	}
	closedir(d);
	free(dir);
	free(want);
	return *id ? 0 : 1;
}

void
mc_session_close(struct mc_session *s)
{
	if (s->fd != -1)
		close(s->fd);
	s->fd = -1;
	free(s->id);
	free(s->path);
	cJSON_Delete(s->header);
	mc_strset_free(&s->calls);
	mc_buf_free(&s->lines);
	memset(s, 0, sizeof *s);
	s->fd = -1;
}

const char *
mc_session_line_before(const char *start, const char *q)
{
	const char *nl = q - 1 > start ? memrchr(start, '\n', (size_t)(q - 1 - start)) : NULL;

	return nl != NULL ? nl + 1 : start;
}

int
mc_session_is_turn(const cJSON *item)
{
	static const char tag[] = "<Context File=", summary[] = "<Conversation-Summary>";
	const char *type = mc_json_str(item, "type"), *role = mc_json_str(item, "role");
	const char *content = mc_json_str(item, "content");

	return type && role && content && strcmp(type, "message") == 0 &&
	    strcmp(role, "user") == 0 && strncmp(content, tag, sizeof tag - 1) != 0 &&
	    strncmp(content, summary, sizeof summary - 1) != 0 &&
	    !cJSON_HasObjectItem(item, "hook") && !cJSON_HasObjectItem(item, "mode") &&
	    !cJSON_HasObjectItem(item, "shell");
}

long long
mc_session_turns(const char *data, size_t len,
    void (*each)(const cJSON *item, size_t off, void *arg), void *arg)
{
	const char *line, *nl, *end = data + len;
	long long n = 0;
	char perr[64];
	cJSON *item;

	for (line = data; line != NULL && line < end; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			break;
		/* Only a line that names the user can be a turn: the others
		 * are not parsed. */
		if (memmem(line, (size_t)(nl - line), "\"user\"", 6) == NULL ||
		    (item = mc_json_parse(line, (size_t)(nl - line), perr, sizeof perr)) == NULL)
			continue;
		if (mc_session_is_turn(item)) {
			n++;
			if (each != NULL)
				each(item, (size_t)(line - data), arg);
		}
		cJSON_Delete(item);
	}
	return n;
}

/* The counts of info from one session file's lines after the header.
 * Guides, a compacted session's summary and what a hook said are user
 * messages the user did not type: no turn, no first prompt. */
static void
tally(struct mc_session_info *in, const char *data, size_t len)
{
	const char *line, *nl, *end = data + len, *type, *content;
	char perr[64];
	cJSON *item;

	for (line = data; line < end; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			break;
		if ((item = mc_json_parse(line, (size_t)(nl - line), perr, sizeof perr)) == NULL)
			continue;
		type = mc_json_str(item, "type");
		content = mc_json_str(item, "content");
		if (type && strcmp(type, "usage") == 0 &&
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(item, "cached"))) {
			;	/* an answer from the cache: no tokens spent */
		} else if (type && strcmp(type, "title") == 0 && mc_json_str(item, "title") != NULL) {
			free(in->title);
			in->title = mc_strdup(mc_json_str(item, "title"));
		} else if (type && strcmp(type, "usage") == 0) {
			in->input += (long long)cJSON_GetNumberValue(
			    cJSON_GetObjectItemCaseSensitive(item, "input_tokens"));
			in->output += (long long)cJSON_GetNumberValue(
			    cJSON_GetObjectItemCaseSensitive(item, "output_tokens"));
			in->cached += (long long)cJSON_GetNumberValue(
			    cJSON_GetObjectItemCaseSensitive(item, "cached_tokens"));
		} else if (mc_session_is_turn(item)) {
			in->turns++;
			if (in->first == NULL)
				in->first = mc_strndup(content, strcspn(content, "\n"));
		}
		cJSON_Delete(item);
	}
}

static int
newer(const void *a, const void *b)
{
	const struct mc_session_info *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? 1 : -1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? 1 : -1;
	return strcmp(y->id, x->id);
}

/* What mc sessions shows of the session file name.jsonl in dir (dirfd
 * open on it), but its time: 0, or -1 when it is not a session. */
static int
info_read(int dfd, const char *dir, const char *name, struct mc_session_info *in)
{
	char *path = session_path(dir, name), *body, file[80];
	struct mc_read r;
	const char *type;

	mc_file_read(path, MC_SESSION_MAX, MC_LINK_REFUSE, NULL, 0, &r);
	free(path);
	memset(in, 0, sizeof *in);
	snprintf(file, sizeof file, "%s.jsonl", name);
	body = r.status == MC_READ_OK ? memchr(r.data, '\n', r.len) : NULL;
	if (body != NULL)
		in->header = read_header(dfd, file);
	type = mc_json_str(in->header, "type");
	if (type == NULL || strcmp(type, "session") != 0) {
		cJSON_Delete(in->header);
		free(r.data);
		return -1;
	}
	body++;
	in->title = mc_strdup(mc_json_str(in->header, "title"));	/* a compacted one's */
	tally(in, body, r.len - (size_t)(body - r.data));
	free(r.data);
	in->id = mc_strdup(name);
	return 0;
}

int
mc_session_info(const char *home, const char *id, struct mc_session_info *in, char *err,
    size_t errsz)
{
	char *dir, *path;
	struct stat st;
	int dfd, r = -1;

	memset(in, 0, sizeof *in);
	if (!mc_session_id_valid(id)) {
		snprintf(err, errsz, "%s: not a valid session id", id);
		return -1;
	}
	if ((dir = sessions_dir(home, 0, err, errsz)) == NULL)
		return -1;
	path = session_path(dir, id);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    lstat(path, &st) == -1)
		snprintf(err, errsz, "no session %s (%s)", id, path);
	else if (!S_ISREG(st.st_mode) || info_read(dfd, dir, id, in) == -1)
		snprintf(err, errsz, "%s: not a session file", path);
	else {
		in->mtime = st.st_mtim;
		r = 0;
	}
	if (dfd != -1)
		close(dfd);
	free(path);
	free(dir);
	return r;
}

int
mc_session_list(const char *home, struct mc_session_info **v, size_t *n,
    char *err, size_t errsz)
{
	struct mc_session_info *out = NULL, in;
	char *dir, name[80];
	struct dirent *e;
	struct stat st;
	size_t len, k = 0;
	DIR *d;

	*v = NULL;
	*n = 0;
	if ((dir = sessions_dir(home, 0, err, errsz)) == NULL)
		return -1;
	if ((d = opendir(dir)) == NULL) {
		free(dir);
		if (errno == ENOENT)
			return 0;
		snprintf(err, errsz, "%s/sessions: %s", home, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		len = strlen(e->d_name);
		if (len <= 6 || len >= sizeof name || strcmp(e->d_name + len - 6, ".jsonl") != 0)
			continue;
		memcpy(name, e->d_name, len - 6);
		name[len - 6] = '\0';
		if (!mc_session_id_valid(name) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (info_read(dirfd(d), dir, name, &in) == -1)
			continue;
		in.mtime = st.st_mtim;
		if ((out = reallocarray(out, k + 1, sizeof *out)) == NULL)
			mc_oom();
		out[k++] = in;
	}
	closedir(d);
	free(dir);
	if (k > 1)
		qsort(out, k, sizeof *out, newer);
	*v = out;
	*n = k;
	return 0;
}

void
mc_session_info_free(struct mc_session_info *in)
{
	free(in->id);
	free(in->first);
	free(in->title);
	cJSON_Delete(in->header);
}

void
mc_session_list_free(struct mc_session_info *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		mc_session_info_free(&v[i]);
	free(v);
}
