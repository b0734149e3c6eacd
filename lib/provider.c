/* provider.c: built-in providers, settings overrides and the precedence chain. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "provider.h"

struct builtin {
	const char *name, *base_url, *api, *api_key_env, *chat_max_tokens;
};

static const struct builtin builtins[] = {
	{ "openai", "https://api.openai.com/v1", "responses", "OPENAI_API_KEY",
	    "max_completion_tokens" },
	{ "openrouter", "https://openrouter.ai/api/v1", "chat", "OPENROUTER_API_KEY",
	    "max_tokens" },
	{ "ollama", "http://127.0.0.1:11434/v1", "chat", NULL, "max_tokens" },
	{ "llamacpp", "http://127.0.0.1:8080/v1", "chat", NULL, "max_tokens" },
	{ "vllm", "http://127.0.0.1:8000/v1", "chat", NULL, "max_tokens" },
};

const char *const mc_provider_builtins[] = {
	"openai", "openrouter", "ollama", "llamacpp", "vllm", NULL
};

static char *
dup(const char *s)
{
	char *d;

	if (s == NULL)
		return NULL;
	if ((d = strdup(s)) == NULL)
		mc_oom();
	return d;
}

/* The environment variable name, when set and not empty. */
static const char *
env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

static int
url_ok(const char *u)
{
	return strncmp(u, "http://", 7) == 0 || strncmp(u, "https://", 8) == 0;
}

void
mc_provider_free(struct mc_provider *p)
{
	free(p->name);
	free(p->model);
	free(p->base_url);
	free(p->api);
	free(p->api_key_env);
	free(p->system_role);
	*p = (struct mc_provider){0};
}

int
mc_provider_resolve(const struct mc_settings *s, const struct mc_provider_opts *o,
    struct mc_provider *p, char *err, size_t errsz)
{
	const struct builtin *b = NULL;
	const char *name, *from, *v;
	const cJSON *entry, *m;
	char *end;
	size_t i;
	int url_env = 0;

	*p = (struct mc_provider){0};
	if (o->provider != NULL)
		name = o->provider, from = "-p";
	else if ((name = env("MC_PROVIDER")) != NULL)
		from = "MC_PROVIDER";
	else if ((name = mc_json_str(s->root, "provider")) != NULL)
		from = "settings.json \"provider\"";
	else
		name = "openai", from = "default";

	for (i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (strcmp(builtins[i].name, name) == 0)
			b = &builtins[i];
	entry = mc_json_obj(mc_settings_get(s, "providers"), name);
	if (b == NULL && entry == NULL) {
		snprintf(err, errsz,
		    "%s: unknown provider \"%s\": use openai, openrouter, ollama, llamacpp or vllm, "
		    "or define it under \"providers\" in %s", from, name, s->path);
		return -1;
	}
	p->name = dup(name);
	if (b != NULL) {
		p->base_url = dup(b->base_url);
		p->api = dup(b->api);
		p->api_key_env = dup(b->api_key_env);
		p->chat_max_tokens = b->chat_max_tokens;
	} else
		p->chat_max_tokens = "max_tokens";
	p->system_role = dup("system");

	/* The settings were type-checked on load; only presence matters here. */
	if (entry != NULL) {
		if ((v = mc_json_str(entry, "base_url")) != NULL) {
			free(p->base_url);
			p->base_url = dup(v);
		}
		if ((v = mc_json_str(entry, "api")) != NULL) {
			free(p->api);
			p->api = dup(v);
		}
		if ((m = cJSON_GetObjectItemCaseSensitive(entry, "api_key_env")) != NULL) {
			free(p->api_key_env);
			p->api_key_env = dup(cJSON_IsString(m) ? m->valuestring : NULL);
		}
		if ((v = mc_json_str(entry, "system_role")) != NULL) {
			free(p->system_role);
			p->system_role = dup(v);
		}
	}
	if (p->base_url == NULL || p->api == NULL) {
		snprintf(err, errsz, "%s: providers.%s.%s: required for a provider that is not built in",
		    s->path, name, p->base_url == NULL ? "base_url" : "api");
		return -1;
	}
	if ((v = env("MC_BASE_URL")) != NULL) {
		free(p->base_url);
		p->base_url = dup(v);
		url_env = 1;
	}
	if (!url_ok(p->base_url)) {
		if (url_env)
			snprintf(err, errsz, "MC_BASE_URL: expected an http:// or https:// URL: %s",
			    p->base_url);
		else
			snprintf(err, errsz, "%s: providers.%s.base_url: expected an http:// or https:// URL: %s",
			    s->path, name, p->base_url);
		return -1;
	}
	end = p->base_url + strlen(p->base_url);
	while (end > p->base_url && end[-1] == '/')
		*--end = '\0';
	if (o->api != NULL) {
		free(p->api);
		p->api = dup(o->api);
	}

	if (o->model != NULL)
		v = o->model;
	else if ((v = env("MC_MODEL")) == NULL)
		v = mc_json_str(s->root, "model");
	if (v == NULL || *v == '\0') {
		snprintf(err, errsz,
		    "no model for provider %s: pass -m MODEL, set MC_MODEL, or set \"model\" in %s",
		    name, s->path);
		return -1;
	}
	p->model = dup(v);
	return 0;
}

const char **
mc_provider_key_vars(const struct mc_settings *s)
{
	const char **v;
	const cJSON *e, *k;
	size_t i, n = 0;

	if ((v = calloc(sizeof builtins / sizeof builtins[0] +
	    (size_t)cJSON_GetArraySize(mc_settings_get(s, "providers")) + 1, sizeof *v)) == NULL)
		mc_oom();
	for (i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (builtins[i].api_key_env != NULL)
			v[n++] = builtins[i].api_key_env;
	cJSON_ArrayForEach(e, mc_settings_get(s, "providers"))
		if ((k = cJSON_GetObjectItemCaseSensitive(e, "api_key_env")) != NULL &&
		    cJSON_IsString(k) && *k->valuestring != '\0')
			v[n++] = k->valuestring;
	return v;
}
