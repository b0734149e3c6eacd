/* provider.h: the provider table and which provider, model and API a request uses. */
#ifndef MC_PROVIDER_H
#define MC_PROVIDER_H

#include <stddef.h>

#include <cJSON.h>

#include "settings.h"

struct mc_provider {
	char *name;		/* "openai", or a name from settings.providers */
	char *model;
	char *base_url;		/* without a trailing slash */
	char *api;		/* "chat", "responses" or "messages" */
	char *api_key_env;	/* variable holding the key; NULL: no key */
	int api_key_optional;	/* the key is sent when that variable is set, else none */
	/* Instead of a variable (api_key_env is then NULL): the command whose
	 * first line of output is the key, or the file whose first line is. */
	char *api_key_cmd, *api_key_file;
	char *system_role;	/* "system" or "developer" (chat only) */
	/* Chat's name for the output cap: OpenAI reads max_completion_tokens,
	 * local servers only the older max_tokens. */
	const char *chat_max_tokens;
	/* Messages: cache_control breakpoints (providers.NAME.prompt_cache,
	 * on unless false). */
	int prompt_cache;
	/* models.MODEL.max_output_tokens, or 0 when the settings give none. */
	long max_output_tokens;
	/* models.MODEL.reasoning (its family's, models."*"'s): a level of
	 * reasoning.h, or NULL (the settings' own string). */
	const char *reasoning;
	/* The model takes images: unless models.MODEL.images (its family's,
	 * models."*"'s) is false. */
	int images;
};

/* What the command line said; NULL where it said nothing. */
struct mc_provider_opts {
	const char *provider;
	const char *provider_from;	/* where provider came from, for messages; NULL: "-p" */
	const char *model;
	const char *api;
};

/*
 * Resolve the provider from options > environment (MC_PROVIDER, MC_MODEL,
 * MC_BASE_URL) > settings (provider, model, providers.NAME) > built-ins
 * (openai, openrouter, ollama, llamacpp, vllm, openai-compatible). With
 * no provider chosen anywhere, it is openai-compatible when MC_BASE_URL is
 * set (an OpenAI-compatible server there: chat API, OPENAI_API_KEY sent
 * when it is set), else openai. OPENAI_BASE_URL is openai's base URL when
 * the settings give none (MC_BASE_URL still wins). An unknown provider, a
 * missing model or a bad provider entry returns -1 with a one-line reason
 * in err saying where the value came from and how to set it. Call
 * mc_provider_free afterwards either way.
 */
int mc_provider_resolve(const struct mc_settings *s, const struct mc_provider_opts *o,
    struct mc_provider *p, char *err, size_t errsz);
void mc_provider_free(struct mc_provider *p);

/* The name of built-in provider i (0, 1, ...), NULL past the last. */
const char *mc_provider_builtin(size_t i);

/* A request envelope's fields but its body (SPEC §4) for p and url: where
 * mc-send finds the key, never the key. */
cJSON *mc_provider_envelope(const struct mc_provider *p, const char *url);

/* The output limit a Messages request sends when neither
 * --max-output-tokens nor models.MODEL.max_output_tokens gives one (the
 * API requires max_tokens): by the model's name, see mc-formats(5). */
long mc_provider_default_max_tokens(const char *model);

/* The names of every provider's key variable, built-in and from settings
 * (a name may repeat), NULL-terminated; free the array, not the names. */
const char **mc_provider_key_vars(const struct mc_settings *s);

/* The timeouts of provider name, in seconds: providers.NAME.connect_timeout_s
 * and idle_timeout_s from the settings (s may be NULL), else the defaults:
 * 10 to connect, 120 idle (600 for the local servers ollama, llamacpp and
 * vllm, which send nothing while they read a long prompt). */
void mc_provider_timeouts(const struct mc_settings *s, const char *name,
    long *connect, long *idle);

#endif
