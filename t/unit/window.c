/* t/unit/window.c: tables for lib/window.c (context-overflow errors, usage records, windows, estimates). */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "settings.h"
#include "window.h"

static const struct {
	int status;
	const char *code, *message;
	int overflow;
} errors[] = {
	{ 400, "context_length_exceeded", "This model's maximum context length is 8192 tokens.", 1 },
	{ 0, "context_length_exceeded", "", 1 },		/* the code alone, in a stream */
	{ 400, "exceed_context_size_error", "", 1 },
	{ 400, "", "the request exceeds the available context size, try increasing it", 1 },
	{ 400, "", "This endpoint's maximum context length is 4096 tokens.", 1 },
	{ 400, "", "Input is longer than the Context Window of this model", 1 },
	{ 400, NULL, "prompt uses context_length 9000 of 8192", 1 },
	{ 400, "", "Invalid value for 'temperature'", 0 },
	{ 413, "", "maximum context length exceeded", 0 },	/* a 400 only */
	{ 500, "", "context length", 0 },
	{ 429, "rate_limit_exceeded", "Rate limit reached", 0 },
	{ 400, "invalid_request_error", NULL, 0 },
	/* Anthropic: in an error body, and in an error event (no status) */
	{ 400, "invalid_request_error", "HTTP 400 from anthropic: prompt is too long: 208163 tokens > 200000 maximum", 1 },
	{ 0, "invalid_request_error", "prompt is too long: 208163 tokens > 200000 maximum", 1 },
	{ 0, "invalid_request_error", "max_tokens: must be at least 1", 0 },
	{ 0, "overloaded_error", "prompt is too long", 0 },
};

static const struct {
	const char *json;
	int r;
	long long tokens;
} usages[] = {
	{ "{\"type\":\"usage\",\"input_tokens\":100,\"output_tokens\":20}", 1, 120 },
	{ "{\"type\":\"usage\",\"input_tokens\":0,\"output_tokens\":0,\"cached_tokens\":9}", 1, 0 },
	{ "{\"type\":\"message\",\"role\":\"user\",\"content\":\"usage\"}", 0, 0 },
	{ "{\"input_tokens\":1,\"output_tokens\":2}", 0, 0 },
	{ "{\"type\":\"usage\",\"input_tokens\":\"1\",\"output_tokens\":2}", -1, 0 },
	{ "{\"type\":\"usage\",\"input_tokens\":1}", -1, 0 },
	{ "{\"type\":\"usage\",\"input_tokens\":1.5,\"output_tokens\":2}", -1, 0 },
	{ "{\"type\":\"usage\",\"input_tokens\":-1,\"output_tokens\":2}", -1, 0 },
};

static const struct {
	const char *body, *message;
	long long tokens;
} told[] = {
	{ "{\"error\":{\"code\":400,\"message\":\"the request exceeds the available context size, "
	  "try increasing it\",\"type\":\"exceed_context_size_error\",\"n_prompt_tokens\":12761,"
	  "\"n_ctx\":12288}}", "the request exceeds the available context size", 12761 },
	{ "data: {\"code\":400,\"type\":\"exceed_context_size_error\",\"n_prompt_tokens\":9000}",
	  NULL, 9000 },
	{ NULL, "This model's maximum context length is 8192 tokens. However, your messages "
	  "resulted in 9000 tokens. Please reduce the length of the messages.", 9000 },
	{ "{\"error\":{\"message\":\"m\",\"n_prompt_tokens\":\"12\"}}", "m", 0 },
	{ "not json", "resulted in many tokens", 0 },
	{ NULL, NULL, 0 },
};

static const struct {
	const char *provider, *model;
	long long window;
	const char *from;
} windows[] = {
	{ "fake", "gpt-5.1", 200000, "models.gpt-5.1.context_window" },	/* dots in the id */
	{ "fake", "other", 8000, "providers.fake.context_window" },
	{ "fake", NULL, 8000, "providers.fake.context_window" },
	{ "openai", "other", 0, "" },
	{ NULL, NULL, 0, "" },
};

int
main(void)
{
	static const char settings[] = "{\"models\":{\"gpt-5.1\":{\"context_window\":200000},"
	    "\"gpt-5\":{\"1\":{\"context_window\":7}}},\"providers\":{\"fake\":{\"context_window\":8000}}}";
	struct mc_settings s = { .path = "settings.json" };
	char err[256], from[256];
	long long t, w;
	size_t i;
	cJSON *doc;
	int fail = 0, r;

	for (i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (mc_window_overflow(errors[i].status, errors[i].code, errors[i].message) !=
		    (errors[i].overflow != 0)) {
			printf("window: error %zu: want overflow %d\n", i, errors[i].overflow);
			fail = 1;
		}
	for (i = 0; i < sizeof usages / sizeof usages[0]; i++) {
		doc = mc_json_parse(usages[i].json, strlen(usages[i].json), err, sizeof err);
		t = -7;
		r = mc_window_usage(doc, &t, err, sizeof err);
		if (r != usages[i].r || (r == 1 && t != usages[i].tokens)) {
			printf("window: usage %zu: got %d (%lld), want %d (%lld)\n", i, r, t,
			    usages[i].r, usages[i].tokens);
			fail = 1;
		}
		cJSON_Delete(doc);
	}
	for (i = 0; i < sizeof told / sizeof told[0]; i++) {
		t = mc_window_told(told[i].body, told[i].body ? strlen(told[i].body) : 0,
		    told[i].message);
		if (t != told[i].tokens) {
			printf("window: told %zu: got %lld, want %lld\n", i, t, told[i].tokens);
			fail = 1;
		}
	}
	if (mc_settings_parse(&s, settings, strlen(settings), err, sizeof err) == -1) {
		printf("window: settings: %s\n", err);
		return 1;
	}
	for (i = 0; i < sizeof windows / sizeof windows[0]; i++) {
		w = mc_window_size(&s, windows[i].provider, windows[i].model, from, sizeof from);
		if (w != windows[i].window || strcmp(from, windows[i].from) != 0) {
			printf("window: window %zu: got %lld (%s), want %lld (%s)\n", i, w, from,
			    windows[i].window, windows[i].from);
			fail = 1;
		}
	}
	cJSON_Delete(s.root);
	cJSON_Delete(s.warnings);
	if (mc_window_tokens(0) != 0 || mc_window_tokens(1) != 1 || mc_window_tokens(4) != 1 ||
	    mc_window_tokens(5) != 2) {
		printf("window: a token per 4 bytes, rounded up\n");
		fail = 1;
	}
	return fail;
}
