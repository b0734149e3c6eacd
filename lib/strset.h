/* strset.h: a set of strings found by hash, each with a number beside it. */
#ifndef MC_STRSET_H
#define MC_STRSET_H

#include <stddef.h>

/*
 * Open addressing with linear probing, at most half full, so adding and
 * finding take constant time on average: for the call ids of a session
 * and the names of a tool list, which can run to tens of thousands. The
 * set owns copies of its keys; a key's address stays the same for the
 * set's life (growing moves the slots, not the strings).
 */
struct mc_strset {
	struct mc_strset_slot {
		char *key;	/* NULL: empty */
		size_t val;
	} *v;
	size_t n, cap;		/* keys held; slots, a power of two or 0 */
};

/* FNV-1a of s: the one string hash of the tree. */
size_t mc_strhash(const char *s);

/* Add key with val; returns the key's slot, new or the one it had (whose
 * value is then left as it was); *added (when not NULL) says which. */
struct mc_strset_slot *mc_strset_add(struct mc_strset *set, const char *key, size_t val,
    int *added);
/* The slot of key, or NULL. */
struct mc_strset_slot *mc_strset_find(const struct mc_strset *set, const char *key);
void mc_strset_free(struct mc_strset *set);

#endif
