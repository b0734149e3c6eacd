/* provider.h: the provider table and which provider, model and API a request uses. */
#ifndef MC_PROVIDER_H
#define MC_PROVIDER_H

#include <stddef.h>

#include "settings.h"

struct mc_provider {
	char *name;		/* "openai", or a name from settings.providers */
	char *model;
	char *base_url;		/* without a trailing slash */
	char *api;		/* "chat" or "responses" */
	char *api_key_env;	/* variable holding the key; NULL: no key */
	char *system_role;	/* "system" or "developer" (chat only) */
	/* Chat's name for the output cap: OpenAI reads max_completion_tokens,
	 * local servers only the older max_tokens. */
	const char *chat_max_tokens;
};

/* What the command line said; NULL where it said nothing. */
struct mc_provider_opts {
	const char *provider;
	const char *model;
	const char *api;
};

/*
 * Resolve the provider from options > environment (MC_PROVIDER, MC_MODEL,
 * MC_BASE_URL) > settings (provider, model, providers.NAME) > built-ins
 * (openai, openrouter, ollama, llamacpp, vllm; the default is openai).
 * An unknown provider, a missing model or a bad provider entry returns -1
 * with a one-line reason in err saying where the value came from and how to
 * set it. Call mc_provider_free afterwards either way.
 */
int mc_provider_resolve(const struct mc_settings *s, const struct mc_provider_opts *o,
    struct mc_provider *p, char *err, size_t errsz);
void mc_provider_free(struct mc_provider *p);

/* The names of every provider's key variable, built-in and from settings
 * (a name may repeat), NULL-terminated; free the array, not the names. */
const char **mc_provider_key_vars(const struct mc_settings *s);

/* The names of the built-in providers, NULL-terminated. */
extern const char *const mc_provider_builtins[];

#endif
