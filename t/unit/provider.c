/* t/unit/provider.c: tables for lib/provider.c's timeouts (built-in defaults, settings over them). */
#include <stdio.h>
#include <string.h>

#include "provider.h"
#include "settings.h"

static const struct {
	const char *name;
	int with_settings;	/* the settings below, else none (NULL) */
	long connect, idle;
} cases[] = {
	/* the local servers read a long prompt silently: 600 s idle */
	{ "ollama", 0, 10, 600 },
	{ "llamacpp", 0, 10, 600 },
	{ "vllm", 0, 10, 600 },
	{ "openai", 0, 10, 120 },
	{ "openrouter", 0, 10, 120 },
	{ "openai-compatible", 0, 10, 120 },
	{ "mine", 0, 10, 120 },			/* a provider of the settings' own */
	{ "ollama", 1, 10, 600 },		/* settings that do not name it */
	{ "llamacpp", 1, 3, 900 },		/* both timeouts set */
	{ "vllm", 1, 10, 30 },			/* one set, the other the default */
	{ "openai", 1, 5, 120 },
	{ "mine", 1, 10, 45 },
};

int
main(void)
{
	static const char settings[] = "{\"providers\":{"
	    "\"llamacpp\":{\"connect_timeout_s\":3,\"idle_timeout_s\":900},"
	    "\"vllm\":{\"idle_timeout_s\":30},"
	    "\"openai\":{\"connect_timeout_s\":5},"
	    "\"mine\":{\"base_url\":\"http://127.0.0.1:9/v1\",\"api\":\"chat\",\"idle_timeout_s\":45}}}";
	struct mc_settings s = { .path = "settings.json" };
	char err[256];
	long connect, idle;
	size_t i;
	int fail = 0;

	if (mc_settings_parse(&s, settings, strlen(settings), err, sizeof err) == -1) {
		printf("provider: settings: %s\n", err);
		return 1;
	}
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		connect = idle = -1;
		mc_provider_timeouts(cases[i].with_settings ? &s : NULL, cases[i].name, &connect,
		    &idle);
		if (connect != cases[i].connect || idle != cases[i].idle) {
			printf("provider: timeouts %zu (%s): got %ld/%ld, want %ld/%ld\n", i,
			    cases[i].name, connect, idle, cases[i].connect, cases[i].idle);
			fail = 1;
		}
	}
	cJSON_Delete(s.root);
	cJSON_Delete(s.warnings);
	return fail;
}
