/* confine.h: paths the agent may write, kept inside the working directory, and atomic replacement. */
#ifndef MC_CONFINE_H
#define MC_CONFINE_H

#include <stddef.h>

/*
 * Resolve path (relative to root, or absolute) to the file it names, for
 * writing: *dir is the file's canonical directory and *name its last
 * component (both malloc'ed). The file must lie inside root (canonical):
 * walking the path, once inside root it may not leave it again, neither by
 * ".." nor through a symbolic link, and a final symbolic link is followed
 * only when its target lies inside root. With create set, missing
 * directories inside root are created. Returns 0, or -1 with a one-line
 * reason in err, fit for the model to read.
 */
int mc_confine_resolve(const char *root, const char *path, int create,
    char **dir, char **name, char *err, size_t errsz);

/*
 * Replace dir/name with data, atomically: a temporary file in dir, synced,
 * then renamed over name. An existing file keeps its mode; a new one gets
 * 0666 less the umask. *created tells which it was. Returns 0, or -1 with
 * a reason in err (which does not repeat name).
 */
int mc_confine_write(const char *dir, const char *name, const char *data,
    size_t len, int *created, char *err, size_t errsz);

#endif
