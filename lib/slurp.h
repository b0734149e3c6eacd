/* slurp.h: read a whole file named on the command line (a pipe too), up to a cap. */
#ifndef MC_SLURP_H
#define MC_SLURP_H

#include <stddef.h>

#include "buf.h"

/*
 * Read the file at path into out (at most cap bytes). Unlike mc_file_read
 * this is for data the user names explicitly, so a pipe such as bash's
 * <(...) is read, not refused. Returns 0, or -1 with "PATH: reason" in err.
 */
int mc_slurp_path(const char *path, size_t cap, struct mc_buf *out, char *err, size_t errsz);

#endif
