/* fuzz/items.c: libFuzzer target for the items checker and both request mappings. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "items.h"
#include "json.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Each API: the items built into a wire that is asked for its body after
 * every item, as a session-long mc-request is, and into a fresh one at
 * the end, as mc-request alone: the bodies and keys must be the same, and
 * the body JSON.
 */
static void
both_ways(struct mc_provider *p, const struct mc_request *r, const cJSON *items)
{
	struct mc_wire *step = mc_wire_new(p), *once = mc_wire_new(p);
	struct mc_buf a = {0}, b = {0};
	char ka[65], kb[65];
	const cJSON *it;
	cJSON *doc;

	mc_wire_set(step, r);
	mc_wire_set(once, r);
	cJSON_ArrayForEach(it, items) {
		mc_wire_add(step, cJSON_Duplicate(it, 1));
		a.len = 0;
		mc_wire_body(step, &a);
		mc_wire_key(step, ka);
	}
	cJSON_ArrayForEach(it, items)
		mc_wire_add(once, cJSON_Duplicate(it, 1));
	a.len = 0;
	mc_wire_envelope(step, 1, &a);
	mc_wire_envelope(once, 1, &b);
	mc_wire_key(step, ka);
	mc_wire_key(once, kb);
	if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0 || strcmp(ka, kb) != 0)
		abort();
	if ((doc = cJSON_ParseWithLength(a.data, a.len)) == NULL)
		abort();
	cJSON_Delete(doc);
	mc_buf_free(&a);
	mc_buf_free(&b);
	mc_wire_free(step);
	mc_wire_free(once);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_provider p = { .name = "vllm", .model = "m", .base_url = "http://x/v1",
		.api = "chat", .system_role = "system", .chat_max_tokens = "max_tokens" };
	struct mc_request r = { .system = "sys", .stream = 1, .max_output_tokens = 100 };
	char err[1024];
	cJSON *items;

	if ((items = mc_items_parse("items", (const char *)data, size, err, sizeof err)) == NULL)
		return 0;
	both_ways(&p, &r, items);
	p.api = "responses";
	both_ways(&p, &r, items);
	cJSON_Delete(items);
	return 0;
}
