/* shadow.h: a shadow git repository: snapshots of a work tree kept apart from the project's own .git. */
#ifndef MC_SHADOW_H
#define MC_SHADOW_H

#include <signal.h>
#include <stddef.h>

#include <cJSON.h>

#include "buf.h"

#define MC_SHADOW_LARGE (8u << 20)	/* files over this are noted, not stored */
#define MC_SHADOW_ID 72			/* a tree or blob id, with room */

/*
 * The repository is its own GIT_DIR (not the project's .git, which git
 * never opens here) with the project as its work tree. Every git it runs
 * gets a clean environment: no GIT_* of the user's, no system or global
 * configuration, hooks pointed at /dev/null, no attributes (the bytes are
 * stored as they are), the work tree's .gitignore files honoured.
 */
struct mc_shadow {
	char *dir;		/* the GIT_DIR */
	char *tree;		/* the work tree */
	char **env;		/* what git runs with */
	char **large;		/* the files over MC_SHADOW_LARGE at the last snapshot */
	size_t nlarge;
	/* When set and *stop becomes non-zero, the git running is sent
	 * SIGINT (and fails). */
	volatile sig_atomic_t *stop;
};

/*
 * Open the repository dir for the work tree tree, creating it when it is
 * missing; exclude, when not NULL, is a path inside the tree never stored
 * (mc's own home, should it lie there). 0, or -1 with err.
 */
int mc_shadow_open(struct mc_shadow *s, const char *dir, const char *tree, const char *exclude,
    char *err, size_t errsz);
void mc_shadow_close(struct mc_shadow *s);

/*
 * Record the work tree as it is now: the files git's status would list as
 * changed since the last snapshot are stored, the others are already
 * there; the files over MC_SHADOW_LARGE are left out and listed in
 * s->large. The tree's id into id. 0, or -1 with err.
 */
int mc_shadow_snapshot(struct mc_shadow *s, char id[MC_SHADOW_ID], char *err, size_t errsz);

/*
 * What changed from tree a to tree b: an array of {"path","before",
 * "after"}, each side "git MODE ID" or null (absent). NULL with err.
 */
cJSON *mc_shadow_diff(struct mc_shadow *s, const char *a, const char *b, char *err, size_t errsz);

/* A blob's bytes into out. 0, or -1 with err. */
int mc_shadow_blob(struct mc_shadow *s, const char *id, struct mc_buf *out, char *err,
    size_t errsz);

/*
 * The file at path (relative to the work tree) as a side of a change
 * would name it, "git MODE ID", in ref; empty when it is absent. 0, or -1
 * with err.
 */
int mc_shadow_hash(struct mc_shadow *s, const char *path, char ref[MC_SHADOW_ID + 16],
    char *err, size_t errsz);

#endif
