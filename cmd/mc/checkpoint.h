/*
 * checkpoint.h: the checkpoints' files, shared by checkpoint.c (which
 * writes them as turns make changes) and rewind.c (which reads them to
 * put files back). Under $MC_HOME/checkpoints/:
 *
 *   git/KEY/     the shadow git repository of one working directory
 *                (KEY: a hash of its path)
 *   ID.jsonl     session ID's log: a line when a turn's checkpoint is
 *                taken, {"turn","cwd","repo","before","large"} (git) or
 *                {"turn","cwd","images":true}; a line when the turn
 *                ends, {"turn","after","changed":[{"path","before",
 *                "after"}]}; a line {"rewound":N,"paths"} when files
 *                were put back to before turn N
 *   images/ID/   without git: the files write and edit changed, before
 *                and after each turn
 *
 * A side of a change is "git MODE ID" (a blob of the repository),
 * "image MODE NAME" (a file of images/ID/) or null (no file).
 */
#ifndef MC_CHECKPOINT_H
#define MC_CHECKPOINT_H

#include <stddef.h>

#include <cJSON.h>

#include "buf.h"

char *cp_log_path(const char *home, const char *id);
char *cp_repo_dir(const char *home, const char *cwd);
char *cp_image_dir(const char *home, const char *id);
/* One line of session id's log, on disk before it returns. 0, or -1
 * with err. */
int cp_log_append(const char *home, const char *id, const cJSON *line, char *err, size_t errsz);
/* The lines of session id's log, an array (empty when there is none),
 * or NULL with err. */
cJSON *cp_log_read(const char *home, const char *id, char *err, size_t errsz);

/* restore.c */
/* A turn of the checkpoints' log. */
struct rturn {
	long long n;
	const cJSON *begin;	/* the line its checkpoint was taken with */
	cJSON *changed;		/* what it changed (the log's, or found now) */
	int active;		/* not put back since */
};

/* A session's log, read. */
struct rlog {
	const char *home, *id;
	cJSON *lines;
	struct rturn *t;
	size_t nt;
	cJSON *found;		/* changes found now, for turns that never ended */
};

/* Read session id's log: 0, or -1 with err. */
int rlog_load(struct rlog *w, const char *home, const char *id, char *err, size_t errsz);
void rlog_free(struct rlog *w);
/* The latest turn still in effect that changed a file, or 0. */
long long rlog_last_changing(const struct rlog *w);
/*
 * The files the turns from `from` on changed, put back as they were
 * before it; what was done said in out, a line a file. A file changed
 * outside mc since is a conflict: named, and without force nothing is
 * put back. 1 put back, 0 nothing to put back, -1 not (said why).
 */
int restore_files(struct rlog *w, long long from, int force, struct mc_buf *out);

#endif
