/* cache.h: the answer cache: one file per cache key in $MC_HOME/cache, written whole, bounded in bytes. */
#ifndef MC_CACHE_H
#define MC_CACHE_H

#include <stddef.h>

#include "buf.h"

#define MC_CACHE_MAX_DEFAULT (256ull << 20)	/* cache.max_bytes when unset */
#define MC_CACHE_ENTRY_MAX (400u << 20)	/* largest entry kept or read */

/*
 * The directory, opened when first needed. A file in it named by a key
 * is an entry; KEY.XXXXXX is an entry being written (or left behind by
 * a writer that died, removed once it is an hour old). .size is the
 * index: the entries' total bytes, and the lock writers hold. Nothing
 * else in the directory is counted or touched.
 */
struct mc_cache {
	char *dir;		/* $MC_HOME/cache */
	int fd;			/* the directory, or -1 */
	unsigned long long max;	/* the most bytes its entries may hold */
};

/* True when key is 64 lowercase hex digits (a SHA-256), the only names
 * an entry may have. */
int mc_cache_key_valid(const char *key);

void mc_cache_init(struct mc_cache *c, const char *home, unsigned long long max);
/* Close and free; nothing for a zeroed one that was never set up. */
void mc_cache_free(struct mc_cache *c);

/*
 * key's entry into out (NUL-terminated UTF-8 text): 1, and the entry's
 * time is made now, so that eviction takes it last; 0 when there is
 * none; -1 with "PATH: reason" in err (a symbolic link, a file over
 * MC_CACHE_ENTRY_MAX, not text, an unreadable directory).
 */
int mc_cache_get(struct mc_cache *c, const char *key, struct mc_buf *out, char *err,
    size_t errsz);

/*
 * Keep the n bytes at data as key's entry: the directory (and the home
 * above it) made 0700 when missing, a temporary file of mode 0600 there
 * written whole and renamed over the entry, then the oldest other entries
 * removed until they all hold at most c->max bytes (the directory read
 * only when the index's total passes c->max or cannot be trusted, so a
 * put costs the same however many entries there are). 0; 1 when the entry
 * alone is over c->max (nothing is kept); -1 with "PATH: reason" in err
 * (nothing is left behind).
 */
int mc_cache_put(struct mc_cache *c, const char *key, const char *data, size_t n, char *err,
    size_t errsz);

/* Remove key's entry (a bad one); no error when there is none. */
int mc_cache_drop(struct mc_cache *c, const char *key, char *err, size_t errsz);

#endif
