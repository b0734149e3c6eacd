/* confine.h: paths the agent may write, kept inside the working directory, and atomic replacement. */
#ifndef MC_CONFINE_H
#define MC_CONFINE_H

#include <stddef.h>

/* The most a confined write may hold (write's content, edit's result):
 * as much as one item on a tool's standard input may carry. */
#define MC_CONFINE_MAX (64u << 20)

/* A file to write: its directory, held open, and its name there. */
struct mc_confined {
	int dfd;		/* the directory (O_PATH), or -1 */
	char *dir;		/* its canonical path, for messages */
	char *name;		/* the file's last component */
};

/*
 * Resolve path (relative to root, or absolute) to the file it names, for
 * writing, into *t: the file's canonical directory, open, and its last
 * component. The file must lie inside root (canonical):
 * walking the path, once inside root it may not leave it again, neither by
 * ".." nor through a symbolic link, and a final symbolic link is followed
 * only when its target lies inside root. Nothing inside a .git directory
 * is written: no component of path, nor of the canonical file, is named
 * .git (in any case): a repository's config and hooks run commands. With
 * create set, missing
 * directories inside root are created, once the whole path has passed
 * those checks. The directory is then opened by descending from root
 * without following any symbolic link, so a change on disk after the checks
 * cannot lead the write outside. Returns 0 (free *t with mc_confine_free),
 * or -1 with a one-line reason in err, fit for the model to read.
 */
int mc_confine_resolve(const char *root, const char *path, int create,
    struct mc_confined *t, char *err, size_t errsz);

/*
 * Replace t->name in t->dfd with data (at most MC_CONFINE_MAX bytes),
 * atomically: a temporary file in that directory, synced, then renamed
 * over the name. An existing file
 * keeps its mode; a new one gets 0666 less the umask. *created tells which
 * it was. Returns 0, or -1 with a reason in err (which does not repeat the
 * name).
 */
int mc_confine_write(const struct mc_confined *t, const char *data, size_t len,
    int *created, char *err, size_t errsz);

void mc_confine_free(struct mc_confined *t);

#endif
