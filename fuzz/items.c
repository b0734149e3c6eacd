/* fuzz/items.c: libFuzzer target for the items checker and both request mappings. */
#include <stdint.h>
#include <string.h>

#include "items.h"
#include "request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_provider p = { .name = "vllm", .model = "m", .base_url = "http://x/v1",
		.api = "chat", .system_role = "system", .chat_max_tokens = "max_tokens" };
	struct mc_request r = { .system = "sys", .stream = 1, .max_output_tokens = 100 };
	char err[1024], key[65];
	cJSON *items, *b;

	if ((items = mc_items_parse("items", (const char *)data, size, err, sizeof err)) == NULL)
		return 0;
	r.items = items;
	cJSON_Delete(mc_request_envelope(&p, &r));
	p.api = "responses";
	b = mc_request_body(&p, &r);
	mc_request_cache_key(p.name, p.base_url, b, key);
	cJSON_Delete(b);
	cJSON_Delete(items);
	return 0;
}
