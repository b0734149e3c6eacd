/* modellist.c: mc models: the provider's models (GET BASE_URL/models through mc-send --models), one a line or --json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "mc.h"
#include "pipeline.h"
#include "provider.h"
#include "toolenv.h"

#define LIST_CAP (16u << 20)

/* The models' ids: "data" (OpenAI, Anthropic, most OpenAI-compatible
 * servers) or "models" (Ollama's own /api/tags), each an object's "id"
 * (or "name") or a string. NULL when the list is not one of these. */
static const cJSON *
entries(const cJSON *doc)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(doc, "data");

	if (!cJSON_IsArray(a))
		a = cJSON_GetObjectItemCaseSensitive(doc, "models");
	if (!cJSON_IsArray(a) && cJSON_IsArray(doc))
		a = doc;
	return cJSON_IsArray(a) ? a : NULL;
}

int
models_list(struct driver *d)
{
	struct mc_provider_opts o = { .provider = d->c.provider, .model = d->c.model };
	struct mc_provider p = {0};
	struct mc_buf out = {0};
	struct mc_filter f = {0};
	char *argv[] = { "mc-send", "--models", NULL }, err[1024], buf[512], *env_line, **env;
	const cJSON *list, *e, *id;
	cJSON *envelope, *doc;
	int st, status = MC_EXIT_FAIL;

	/* The list needs no model: one the settings lack is no error here. */
	if (mc_provider_resolve(&d->c.set, &o, &p, err, sizeof err) == -1 && o.model == NULL) {
		mc_provider_free(&p);
		p = (struct mc_provider){0};
		o.model = "-";
	}
	if (p.base_url == NULL && mc_provider_resolve(&d->c.set, &o, &p, err, sizeof err) == -1) {
		mc_err("%s", err);
		mc_provider_free(&p);
		return MC_EXIT_FAIL;
	}
	/* The envelope mc-request would write, with the list's URL and no
	 * body: the key (its variable, command or file) is mc-send's alone. */
	if (asprintf(&env_line, "%s/models", p.base_url) == -1)
		mc_oom();
	envelope = mc_provider_envelope(&p, env_line);
	free(env_line);
	cJSON_AddItemToObject(envelope, "body", mc_json_new_obj());
	env_line = cJSON_PrintUnformatted(envelope);
	cJSON_Delete(envelope);
	if (env_line == NULL)
		mc_oom();
	env = mc_env_merge(NULL, d->c.keys);
	f = (struct mc_filter){ .in = env_line, .inlen = strlen(env_line), .collect = &out,
	    .cap = LIST_CAP, .stop = &interrupted, .envp = env };
	if (mc_filter_run(argv, &f, &st, err, sizeof err) == -1)
		mc_err("%s", err);
	else if (stage_ok("mc-send", st)) {
		if ((doc = cJSON_ParseWithLength(out.data ? out.data : "", out.len)) == NULL ||
		    (list = entries(doc)) == NULL) {
			mc_err("%s gave no list of models for GET %s/models", p.name, p.base_url);
		} else if (d->c.json) {
			fwrite(out.data, 1, out.len, stdout);
			status = MC_EXIT_OK;
		} else {
			cJSON_ArrayForEach(e, list) {
				id = cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "id") : e;
				if (!cJSON_IsString(id) && cJSON_IsObject(e))
					id = cJSON_GetObjectItemCaseSensitive(e, "name");
				if (cJSON_IsString(id))
					printf("%s\n", mc_sanitize(buf, sizeof buf, id->valuestring));
			}
			status = MC_EXIT_OK;
		}
		cJSON_Delete(doc);
	}
	mc_env_free(env);
	free(env_line);
	mc_buf_free(&out);
	mc_provider_free(&p);
	return status;
}
