/* strset.c: unit tests for lib/strset.c (add, find, growth, values kept). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strset.h"

static int failures;

#define CHECK(c, what) do { if (!(c)) { printf("strset: %s\n", what); failures++; } } while (0)

int
main(void)
{
	struct mc_strset s = {0};
	struct mc_strset_slot *p, *q;
	char key[32];
	const char *addr[5000];
	int added;
	size_t i;

	CHECK(mc_strset_find(&s, "a") == NULL, "empty set finds a key");
	p = mc_strset_add(&s, "a", 7, &added);
	CHECK(added && p->val == 7 && strcmp(p->key, "a") == 0, "first add");
	q = mc_strset_add(&s, "a", 9, &added);
	CHECK(!added && q->val == 7 && s.n == 1, "a second add changed the value or count");
	CHECK(mc_strset_find(&s, "") == NULL, "found the empty string before adding it");
	mc_strset_add(&s, "", 1, &added);
	CHECK(added && mc_strset_find(&s, "")->val == 1, "the empty string is a key");
	mc_strset_free(&s);
	CHECK(s.n == 0 && s.cap == 0 && mc_strset_find(&s, "a") == NULL, "free leaves an empty set");

	/* Through many growths: every key keeps its value and its address. */
	for (i = 0; i < 5000; i++) {
		snprintf(key, sizeof key, "call_%zu", i);
		addr[i] = mc_strset_add(&s, key, i, NULL)->key;
	}
	CHECK(s.n == 5000 && s.cap >= 10000, "count or load after 5000 adds");
	for (i = 0; i < 5000; i++) {
		snprintf(key, sizeof key, "call_%zu", i);
		p = mc_strset_find(&s, key);
		CHECK(p != NULL && p->val == i && p->key == addr[i], "a key lost through growth");
	}
	CHECK(mc_strset_find(&s, "call_5000") == NULL, "found a key never added");
	mc_strset_free(&s);
	CHECK(mc_strhash("") == 14695981039346656037u, "FNV-1a offset basis");
	CHECK(mc_strhash("a") == 0xaf63dc4c8601ec8cu, "FNV-1a of \"a\"");
	if (failures == 0)
		puts("strset: ok");
	return failures != 0;
}
