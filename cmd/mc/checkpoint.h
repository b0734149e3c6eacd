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

#include <cJSON.h>

char *cp_log_path(const char *home, const char *id);
char *cp_repo_dir(const char *home, const char *cwd);
char *cp_image_dir(const char *home, const char *id);
/* One line of session id's log, on disk before it returns. 0, or -1
 * with err. */
int cp_log_append(const char *home, const char *id, const cJSON *line, char *err, size_t errsz);
/* The lines of session id's log, an array (empty when there is none),
 * or NULL with err. */
cJSON *cp_log_read(const char *home, const char *id, char *err, size_t errsz);

#endif
