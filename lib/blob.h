/* blob.h: the content-addressed store $MC_HOME/blobs/: an image kept once, named by its SHA-256. */
#ifndef MC_BLOB_H
#define MC_BLOB_H

#include <stddef.h>

#include "buf.h"

#define MC_BLOB_HEX 65	/* a SHA-256 in lowercase hex, with its NUL */

/*
 * Keep the n bytes at p in HOME/blobs/HEX, HEX their SHA-256 in
 * lowercase hex (put in hex): written to a temporary file there and
 * renamed, so that a reader never sees half of one; when the blob is
 * there already, nothing is written. HOME and HOME/blobs are made when
 * missing (mode 0700). 0, or -1 with "PATH: reason" in err.
 */
int mc_blob_put(const char *home, const void *p, size_t n, char hex[MC_BLOB_HEX], char *err,
    size_t errsz);

/*
 * The bytes of blob hex (at most cap), appended to out, checked against
 * their hash. 0, or -1 with a one-line reason in err naming the blob
 * ("blob HEX is not in DIR", "... does not match its hash").
 */
int mc_blob_get(const char *home, const char *hex, size_t cap, struct mc_buf *out, char *err,
    size_t errsz);

#endif
