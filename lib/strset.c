/* strset.c: a set of strings by hash (open addressing, linear probing). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "strset.h"

size_t
mc_strhash(const char *s)
{
	uint64_t h = 14695981039346656037u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return (size_t)h;
}

/* Where key is in v (cap slots), or the empty slot where it goes. */
static struct mc_strset_slot *
probe(struct mc_strset_slot *v, size_t cap, const char *key)
{
	size_t i = mc_strhash(key) & (cap - 1);

	while (v[i].key != NULL && strcmp(v[i].key, key) != 0)
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static void
grow(struct mc_strset *set)
{
	size_t cap = set->cap ? 2 * set->cap : 64, i;
	struct mc_strset_slot *v;

	if ((v = calloc(cap, sizeof *v)) == NULL)
		mc_oom();
	for (i = 0; i < set->cap; i++)
		if (set->v[i].key != NULL)
			*probe(v, cap, set->v[i].key) = set->v[i];
	free(set->v);
	set->v = v;
	set->cap = cap;
}

struct mc_strset_slot *
mc_strset_add(struct mc_strset *set, const char *key, size_t val, int *added)
{
	struct mc_strset_slot *p;

	if (2 * (set->n + 1) > set->cap)
		grow(set);
	p = probe(set->v, set->cap, key);
	if (added != NULL)
		*added = p->key == NULL;
	if (p->key == NULL) {
		p->key = mc_strdup(key);
		p->val = val;
		set->n++;
	}
	return p;
}

struct mc_strset_slot *
mc_strset_find(const struct mc_strset *set, const char *key)
{
	struct mc_strset_slot *p;

	if (set->cap == 0)
		return NULL;
	p = probe(set->v, set->cap, key);
	return p->key != NULL ? p : NULL;
}

void
mc_strset_free(struct mc_strset *set)
{
	size_t i;

	for (i = 0; i < set->cap; i++)
		free(set->v[i].key);
	free(set->v);
	memset(set, 0, sizeof *set);
}
