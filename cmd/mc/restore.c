/* restore.c: the files the turns of a session changed, put back as they were before one, conflicts named. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"
#include "shadow.h"

#define IMAGE_CAP (MC_SHADOW_LARGE + 1)

/* One file to put back: as before the earliest turn that changed it,
 * checked against what the latest one left. */
struct rfile {
	const char *path, *cwd, *repo;
	const cJSON *want, *expect;
	long long turn;		/* the latest turn that changed it */
};

void
rlog_free(struct rlog *w)
{
	cJSON_Delete(w->lines);
	cJSON_Delete(w->found);
	free(w->t);
}

/* What a git turn that never ended changed: the tree now against its
 * checkpoint. */
static cJSON *
changed_since(const cJSON *begin, char *err, size_t errsz)
{
	struct mc_shadow sh;
	char now[MC_SHADOW_ID];
	cJSON *v = NULL;

	if (mc_json_str(begin, "repo") == NULL || mc_json_str(begin, "before") == NULL)
		return mc_json_new_arr();
	if (mc_shadow_open(&sh, mc_json_str(begin, "repo"), mc_json_str(begin, "cwd"), NULL, err,
	    errsz) == -1)
		return NULL;
	if (mc_shadow_snapshot(&sh, now, err, errsz) == 0)
		v = mc_shadow_diff(&sh, mc_json_str(begin, "before"), now, err, errsz);
	mc_shadow_close(&sh);
	return v;
}

int
rlog_load(struct rlog *w, const char *home, const char *id, char *err, size_t errsz)
{
	const cJSON *l;
	long long n;
	size_t i;

	memset(w, 0, sizeof *w);
	w->home = home;
	w->id = id;
	if ((w->lines = cp_log_read(home, id, err, errsz)) == NULL)
		return -1;
	w->found = mc_json_new_arr();
	cJSON_ArrayForEach(l, w->lines) {
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(l, "rewound"))) {
			n = mc_json_count(l, "rewound");
			for (i = 0; i < w->nt; i++)
				if (w->t[i].n >= n)
					w->t[i].active = 0;
			continue;
		}
		if ((n = mc_json_count(l, "turn")) <= 0)
			continue;
		if (mc_json_str(l, "cwd") != NULL) {
			if ((w->t = reallocarray(w->t, w->nt + 1, sizeof *w->t)) == NULL)
				mc_oom();
			w->t[w->nt++] = (struct rturn){ .n = n, .begin = l, .active = 1 };
		} else if (w->nt > 0 && w->t[w->nt - 1].n == n && cJSON_IsArray(
		    cJSON_GetObjectItemCaseSensitive(l, "changed")))
			w->t[w->nt - 1].changed = cJSON_GetObjectItemCaseSensitive(l, "changed");
	}
	for (i = 0; i < w->nt; i++) {
		if (w->t[i].changed != NULL || !w->t[i].active)
			continue;
		if ((w->t[i].changed = changed_since(w->t[i].begin, err, errsz)) == NULL)
			return -1;
		mc_json_push(w->found, w->t[i].changed);
	}
	return 0;
}

/* The latest turn still in effect that changed a file, or 0. */
long long
rlog_last_changing(const struct rlog *w)
{
	size_t i = w->nt;

	while (i-- > 0)
		if (w->t[i].active && cJSON_GetArraySize(w->t[i].changed) > 0)
			return w->t[i].n;
	return 0;
}

/* The files the turns from `from` on changed, in the order first seen. */
static struct rfile *
plan(const struct rlog *w, long long from, size_t *n)
{
	struct mc_strset seen = {0};
	struct mc_strset_slot *slot;
	struct rfile *v = NULL;
	const cJSON *e;
	const char *path;
	size_t i;
	int added;

	*n = 0;
	for (i = 0; i < w->nt; i++) {
		if (!w->t[i].active || w->t[i].n < from)
			continue;
		cJSON_ArrayForEach(e, w->t[i].changed) {
			if ((path = mc_json_str(e, "path")) == NULL)
				continue;
			slot = mc_strset_add(&seen, path, *n, &added);
			if (added) {
				if ((v = reallocarray(v, *n + 1, sizeof *v)) == NULL)
					mc_oom();
				v[(*n)++] = (struct rfile){ .path = path, .want =
				    cJSON_GetObjectItemCaseSensitive(e, "before"),
				    .cwd = mc_json_str(w->t[i].begin, "cwd"),
				    .repo = mc_json_str(w->t[i].begin, "repo") };
			}
			v[slot->val].expect = cJSON_GetObjectItemCaseSensitive(e, "after");
			v[slot->val].turn = w->t[i].n;
		}
	}
	mc_strset_free(&seen);
	return v;
}

static char *
full_path(const struct rfile *f)
{
	return *f->path == '/' ? mc_strdup(f->path) : mc_path_join(f->cwd, f->path);
}

/* "git MODE ID" or "image MODE NAME": its parts. */
static int
side_parse(const cJSON *side, char kind[8], char mode[8], char id[MC_SHADOW_ID])
{
	const char *s = cJSON_IsString(side) ? side->valuestring : NULL;

	return s != NULL && sscanf(s, "%7s %7s %71s", kind, mode, id) == 3 ? 0 : -1;
}

/* The bytes a side names, and its mode. */
static int
side_bytes(const struct rlog *w, const struct rfile *f, const cJSON *side, struct mc_buf *out,
    char mode[8], char *err, size_t errsz)
{
	char kind[8], id[MC_SHADOW_ID], *dir, *file;
	struct mc_shadow sh;
	struct mc_read r;
	int res = -1;

	if (side_parse(side, kind, mode, id) == -1) {
		snprintf(err, errsz, "%s: the checkpoint's record of it is not understood", f->path);
		return -1;
	}
	if (strcmp(kind, "git") == 0) {
		if (f->repo == NULL)
			snprintf(err, errsz, "%s: the checkpoint names no repository", f->path);
		else if (mc_shadow_open(&sh, f->repo, f->cwd, NULL, err, errsz) == 0) {
			res = mc_shadow_blob(&sh, id, out, err, errsz);
			mc_shadow_close(&sh);
		}
		return res;
	}
	dir = cp_image_dir(w->home, w->id);
	file = mc_path_join(dir, id);
	mc_file_read(file, IMAGE_CAP, MC_LINK_REFUSE, NULL, 0, &r);
	if (r.status == MC_READ_OK) {
		mc_buf_add(out, r.data, r.len);
		res = 0;
	} else
		snprintf(err, errsz, "%s: %s", file, mc_read_strerror(&r, IMAGE_CAP));
	free(r.data);
	free(file);
	free(dir);
	return res;
}

/* Whether the file is as the latest turn that changed it left it: 1
 * yes, 0 no (changed outside mc since), -1 not known (err). */
static int
as_left(const struct rlog *w, const struct rfile *f, char *err, size_t errsz)
{
	char kind[8], mode[8], id[MC_SHADOW_ID], ref[MC_SHADOW_ID + 16], *full = full_path(f);
	struct mc_buf want = {0};
	struct mc_shadow sh;
	struct mc_read r;
	struct stat st;
	int res = -1, there = lstat(full, &st) == 0;

	if (f->expect == NULL || cJSON_IsNull(f->expect))
		res = !there;
	else if (side_parse(f->expect, kind, mode, id) == 0 && strcmp(kind, "git") == 0) {
		if (mc_shadow_open(&sh, f->repo, f->cwd, NULL, err, errsz) == 0) {
			if (mc_shadow_hash(&sh, f->path, ref, err, errsz) == 0)
				res = strcmp(ref, f->expect->valuestring) == 0;
			mc_shadow_close(&sh);
		}
	} else if (!there)
		res = 0;
	else if (side_bytes(w, f, f->expect, &want, mode, err, errsz) == 0) {
		mc_file_read(full, IMAGE_CAP, MC_LINK_REFUSE, NULL, 0, &r);
		res = r.status == MC_READ_OK && r.len == want.len &&
		    memcmp(r.data, want.data ? want.data : "", r.len) == 0;
		free(r.data);
	}
	mc_buf_free(&want);
	free(full);
	return res;
}

/* The file put back as want says: written beside itself and renamed
 * over, a link made again, or removed. */
static int
put_back(const struct rlog *w, const struct rfile *f, char *err, size_t errsz)
{
	char mode[8], *full = full_path(f);
	struct mc_buf data = {0}, tmp = {0};
	int fd, res = -1;

	if (f->want == NULL || cJSON_IsNull(f->want)) {
		if ((res = unlink(full)) == -1 && errno == ENOENT)
			res = 0;
		else if (res == -1)
			snprintf(err, errsz, "%s: %s", f->path, strerror(errno));
		free(full);
		return res;
	}
	if (side_bytes(w, f, f->want, &data, mode, err, errsz) == -1)
		goto out;
	mc_buf_adds(&data, "");
	if (mc_dir_parents(full, 0755, err, errsz) == -1)
		goto out;
	mc_buf_printf(&tmp, "%s.mc-rewind-%ld", full, (long)getpid());
	if (strcmp(mode, "120000") == 0) {
		unlink(tmp.data);
		if (symlink(data.data, tmp.data) == -1 || rename(tmp.data, full) == -1)
			snprintf(err, errsz, "%s: %s", f->path, strerror(errno));
		else
			res = 0;
	} else if ((fd = open(tmp.data, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
	    strcmp(mode, "100755") == 0 ? 0755 : 0644)) == -1 ||
	    mc_write_all(fd, data.data, data.len) == -1 ||
	    fchmod(fd, strcmp(mode, "100755") == 0 ? 0755 : 0644) == -1 || close(fd) == -1 ||
	    rename(tmp.data, full) == -1) {
		snprintf(err, errsz, "%s: %s", f->path, strerror(errno));
		unlink(tmp.data);
	} else
		res = 0;
out:
	mc_buf_free(&data);
	mc_buf_free(&tmp);
	free(full);
	return res;
}

/* Every file checked before any is put back: a conflict stops them all. */
int
restore_files(struct rlog *w, long long from, int force, struct mc_buf *out)
{
	struct rfile *v;
	char err[1024], safe[1024];
	size_t n, i, conflicts = 0;
	cJSON *l, *paths;
	int r, res = 1;

	if ((v = plan(w, from, &n)) == NULL)
		return 0;
	for (i = 0; i < n; i++) {
		if ((r = as_left(w, &v[i], err, sizeof err)) == 1)
			continue;
		if (r == -1)
			mc_err("rewind: %s", err);
		else
			mc_err("rewind: %s changed outside mc since turn %lld%s",
			    mc_sanitize(safe, sizeof safe, v[i].path), v[i].turn,
			    force ? "; overwritten (--force)" : "");
		conflicts++;
	}
	if (conflicts > 0 && !force) {
		mc_err("rewind: nothing was put back: %zu file%s changed outside mc (--force "
		    "overwrites)", conflicts, conflicts == 1 ? "" : "s");
		free(v);
		return -1;
	}
	paths = mc_json_new_arr();
	for (i = 0; i < n; i++) {
		if (put_back(w, &v[i], err, sizeof err) == -1) {
			mc_err("rewind: %s", err);
			res = -1;
			continue;
		}
		mc_json_push(paths, mc_json_new_str(v[i].path));
		mc_buf_printf(out, "  %s %s\n", v[i].want == NULL || cJSON_IsNull(v[i].want) ?
		    "removed " : "restored", mc_sanitize(safe, sizeof safe, v[i].path));
	}
	l = mc_json_new_obj();
	mc_json_add_num(l, "rewound", (double)from);
	mc_json_add(l, "paths", paths);
	if (cp_log_append(w->home, w->id, l, err, sizeof err) == -1) {
		mc_err("rewind: %s", err);
		res = -1;
	}
	cJSON_Delete(l);
	free(v);
	return res;
}
