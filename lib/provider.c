/* provider.c: built-in providers, settings overrides and the precedence chain. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "models.h"
#include "provider.h"

#define CONNECT_S 10
#define IDLE_S 120
#define LOCAL_IDLE_S 600	/* a local server reads a long prompt silently */

struct builtin {
	const char *name, *base_url, *api, *api_key_env, *chat_max_tokens;
	int key_optional;
	long idle_s;
};

/* openai-compatible has no URL of its own: MC_BASE_URL or the settings give it. */
static const struct builtin builtins[] = {
	{ "openai", "https://api.openai.com/v1", "responses", "OPENAI_API_KEY",
	    "max_completion_tokens", 0, IDLE_S },
	{ "openrouter", "https://openrouter.ai/api/v1", "chat", "OPENROUTER_API_KEY",
	    "max_tokens", 0, IDLE_S },
	{ "ollama", "http://127.0.0.1:11434/v1", "chat", NULL, "max_tokens", 0, LOCAL_IDLE_S },
	{ "llamacpp", "http://127.0.0.1:8080/v1", "chat", NULL, "max_tokens", 0, LOCAL_IDLE_S },
	{ "vllm", "http://127.0.0.1:8000/v1", "chat", NULL, "max_tokens", 0, LOCAL_IDLE_S },
	{ "openai-compatible", NULL, "chat", "OPENAI_API_KEY", "max_tokens", 1, IDLE_S },
	{ "anthropic", "https://api.anthropic.com/v1", "messages", "ANTHROPIC_API_KEY",
	    "max_tokens", 0, IDLE_S },
};

/* Messages needs max_tokens: a default within each model family's own
 * output limit, by the first prefix of the model's name that matches
 * (older models allow less). */
static const struct {
	const char *prefix;
	long tokens;
} max_tokens[] = {
	{ "claude-3-haiku", 4096 }, { "claude-3-opus", 4096 }, { "claude-3-sonnet", 4096 },
	{ "claude-3-5", 8192 }, { "claude-3-7", 16384 }, { "claude-opus-4", 16384 },
	{ "claude-sonnet-4", 16384 }, { "claude-haiku-4", 16384 }, { "claude-", 8192 },
};
#define MAX_TOKENS_OTHER 4096	/* another server's model: a limit every one takes */

long
mc_provider_default_max_tokens(const char *model)
{
	const char *m = strrchr(model, '/');	/* a gateway's "anthropic/claude-..." */
	size_t i;

	m = m != NULL ? m + 1 : model;
	for (i = 0; i < sizeof max_tokens / sizeof max_tokens[0]; i++)
		if (strncmp(m, max_tokens[i].prefix, strlen(max_tokens[i].prefix)) == 0)
			return max_tokens[i].tokens;
	return MAX_TOKENS_OTHER;
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
	free(p->api_key_cmd);
	free(p->api_key_file);
	free(p->system_role);
	*p = (struct mc_provider){0};
}

static const struct builtin *
builtin(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (strcmp(builtins[i].name, name) == 0)
			return &builtins[i];
	return NULL;
}

static void
replace(char **dst, const char *v)
{
	free(*dst);
	*dst = mc_strdup(v);
}

/* providers.NAME.api_key_cmd or api_key_file, when one is set: it
 * replaces the key variable. */
static int
key_source(const struct mc_settings *s, const char *name, const cJSON *entry,
    struct mc_provider *p, char *err, size_t errsz)
{
	const char *cmd = mc_json_str(entry, "api_key_cmd"), *file = mc_json_str(entry, "api_key_file");
	const char *bad = NULL;

	if (cmd == NULL && file == NULL)
		return 0;
	if (cmd != NULL && file != NULL)
		bad = "api_key_cmd: set it or api_key_file, not both";
	else if (cmd != NULL && *cmd == '\0')
		bad = "api_key_cmd: must not be empty";
	else if (file != NULL && file[0] != '/')
		bad = "api_key_file: must be an absolute path";
	if (bad != NULL) {
		snprintf(err, errsz, "%s: providers.%s.%s", s->path, name, bad);
		return -1;
	}
	replace(&p->api_key_env, NULL);
	p->api_key_optional = 0;
	p->api_key_cmd = cmd != NULL ? mc_strdup(cmd) : NULL;
	p->api_key_file = file != NULL ? mc_strdup(file) : NULL;
	return 0;
}

int
mc_provider_resolve(const struct mc_settings *s, const struct mc_provider_opts *o,
    struct mc_provider *p, char *err, size_t errsz)
{
	const struct builtin *b;
	const char *name, *from, *v, *url_from = NULL;
	char from_settings[600];
	const cJSON *entry, *m;
	char *end;

	*p = (struct mc_provider){0};
	snprintf(from_settings, sizeof from_settings, "%s: provider", s->path);
	if (o->provider != NULL)
		name = o->provider, from = o->provider_from ? o->provider_from : "-p";
	else if ((name = env("MC_PROVIDER")) != NULL)
		from = "MC_PROVIDER";
	else if ((name = mc_json_str(s->root, "provider")) != NULL)
		from = from_settings;
	else if (env("MC_BASE_URL") != NULL)
		name = "openai-compatible", from = "MC_BASE_URL";
	else
		name = "openai", from = "default";

	b = builtin(name);
	entry = mc_json_obj(mc_settings_get(s, "providers"), name);
	if (b == NULL && entry == NULL) {
		snprintf(err, errsz,
		    "%s: unknown provider \"%s\": use openai, anthropic, openrouter, ollama, llamacpp, "
		    "vllm or openai-compatible, or define it under \"providers\" in %s", from, name, s->path);
		return -1;
	}
	p->name = mc_strdup(name);
	p->system_role = mc_strdup("system");
	p->chat_max_tokens = "max_tokens";
	if (b != NULL) {
		p->base_url = mc_strdup(b->base_url);
		p->api = mc_strdup(b->api);
		p->api_key_env = mc_strdup(b->api_key_env);
		p->api_key_optional = b->key_optional;
		p->chat_max_tokens = b->chat_max_tokens;
	}

	/* The settings were type-checked on load; only presence matters here. */
	if ((v = mc_json_str(entry, "base_url")) != NULL)
		replace(&p->base_url, v), url_from = "settings";
	else if (strcmp(name, "openai") == 0 && (v = env("OPENAI_BASE_URL")) != NULL)
		replace(&p->base_url, v), url_from = "OPENAI_BASE_URL";
	if ((v = env("MC_BASE_URL")) != NULL)
		replace(&p->base_url, v), url_from = "MC_BASE_URL";
	if ((v = mc_json_str(entry, "api")) != NULL)
		replace(&p->api, v);
	if ((m = cJSON_GetObjectItemCaseSensitive(entry, "api_key_env")) != NULL) {
		replace(&p->api_key_env, cJSON_IsString(m) ? m->valuestring : NULL);
		p->api_key_optional = 0;
	}
	if (key_source(s, name, entry, p, err, errsz) == -1)
		return -1;
	if ((v = mc_json_str(entry, "system_role")) != NULL)
		replace(&p->system_role, v);
	p->prompt_cache = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(entry, "prompt_cache"));
	if (p->base_url == NULL && b != NULL) {
		snprintf(err, errsz, "%s: no base URL: set MC_BASE_URL, or providers.%s.base_url in %s",
		    name, name, s->path);
		return -1;
	}
	if (p->base_url == NULL || p->api == NULL) {
		snprintf(err, errsz, "%s: providers.%s.%s: required for a provider that is not built in",
		    s->path, name, p->base_url == NULL ? "base_url" : "api");
		return -1;
	}
	if (!url_ok(p->base_url)) {
		if (url_from != NULL && strcmp(url_from, "settings") != 0)
			snprintf(err, errsz, "%s: expected an http:// or https:// URL: %s",
			    url_from, p->base_url);
		else
			snprintf(err, errsz, "%s: providers.%s.base_url: expected an http:// or https:// URL: %s",
			    s->path, name, p->base_url);
		return -1;
	}
	end = p->base_url + strlen(p->base_url);
	while (end > p->base_url && end[-1] == '/')
		*--end = '\0';
	if (o->api != NULL)
		replace(&p->api, o->api);

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
	p->model = mc_strdup(v);
	m = cJSON_GetObjectItemCaseSensitive(mc_json_obj(mc_settings_get(s, "models"), v),
	    "max_output_tokens");
	if (cJSON_IsNumber(m))	/* checked on load: a whole number from 1 */
		p->max_output_tokens = (long)m->valuedouble;
	m = mc_model_field(s, p->model, "reasoning", NULL);
	p->reasoning = cJSON_IsString(m) ? m->valuestring : NULL;	/* checked on load */
	p->images = !cJSON_IsFalse(mc_model_field(s, p->model, "images", NULL));
	return 0;
}

void
mc_provider_timeouts(const struct mc_settings *s, const char *name, long *connect, long *idle)
{
	const struct builtin *b = builtin(name);
	const cJSON *entry = s != NULL ? mc_json_obj(mc_settings_get(s, "providers"), name) : NULL;
	const cJSON *v;

	*connect = CONNECT_S;
	*idle = b != NULL ? b->idle_s : IDLE_S;
	/* The settings were checked on load: whole numbers from 1. */
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(entry, "connect_timeout_s")))
		*connect = (long)v->valuedouble;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(entry, "idle_timeout_s")))
		*idle = (long)v->valuedouble;
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

const char *
mc_provider_builtin(size_t i)
{
	return i < sizeof builtins / sizeof builtins[0] ? builtins[i].name : NULL;
}

cJSON *
mc_provider_envelope(const struct mc_provider *p, const char *url)
{
	cJSON *e = mc_json_new_obj();

	mc_json_add_num(e, "version", 1);
	mc_json_add_str(e, "provider", p->name);
	mc_json_add_str(e, "api", p->api);
	mc_json_add_str(e, "url", url);
	mc_json_add_str(e, "api_key_env", p->api_key_env);
	if (p->api_key_env != NULL && p->api_key_optional)
		mc_json_add(e, "api_key_optional", cJSON_CreateTrue());
	/* Where mc-send finds the key, never the key itself. */
	if (p->api_key_cmd != NULL)
		mc_json_add_str(e, "api_key_cmd", p->api_key_cmd);
	if (p->api_key_file != NULL)
		mc_json_add_str(e, "api_key_file", p->api_key_file);
	return e;
}
