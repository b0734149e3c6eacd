/* models.c: per-model settings (models.ID): a model's family chain, its cycles refused, and each field as the nearest entry gives it. */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "models.h"

static const cJSON *
entry(const struct mc_settings *s, const char *name)
{
	const cJSON *m = mc_settings_get(s, "models");

	return name != NULL && cJSON_IsObject(m) ? cJSON_GetObjectItemCaseSensitive(m, name) : NULL;
}

size_t
mc_model_chain(const struct mc_settings *s, const char *model, const char **chain)
{
	const char *f;
	size_t n = 0, i;

	if (model == NULL)
		return 0;
	chain[n++] = model;
	while (n < MC_FAMILY_DEPTH && (f = mc_json_str(entry(s, chain[n - 1]), "family")) != NULL) {
		for (i = 0; i < n && strcmp(chain[i], f) != 0; i++)
			;
		if (i < n)	/* a cycle: mc_models_check refuses it at load */
			break;
		chain[n++] = f;
	}
	return n;
}

int
mc_models_check(const struct mc_settings *s, char *err, size_t errsz)
{
	const char *chain[MC_FAMILY_DEPTH + 1], *f;
	const cJSON *e;
	size_t n, i, k;
	int w;

	cJSON_ArrayForEach(e, mc_settings_get(s, "models")) {
		if (cJSON_HasObjectItem(mc_json_obj(e, "tools"), "include") &&
		    cJSON_HasObjectItem(mc_json_obj(e, "tools"), "exclude")) {
			snprintf(err, errsz, "%s: models.%s.tools: \"include\" or \"exclude\", not both",
			    s->path, e->string);
			return -1;
		}
		if ((f = mc_json_str(e, "family")) == NULL)
			continue;
		if (strcmp(f, e->string) == 0) {
			snprintf(err, errsz, "%s: models.%s.family: names the model itself", s->path,
			    e->string);
			return -1;
		}
		chain[0] = e->string;
		for (n = 1; f != NULL && n <= MC_FAMILY_DEPTH; n++) {
			for (i = 0; i < n && strcmp(chain[i], f) != 0; i++)
				;
			if (i == 0) {
				w = snprintf(err, errsz, "%s: models.%s.family: a cycle:", s->path,
				    e->string);
				for (k = 0; k < n && w >= 0 && (size_t)w < errsz; k++)
					w += snprintf(err + w, errsz - (size_t)w, " %s ->", chain[k]);
				if (w >= 0 && (size_t)w < errsz)
					snprintf(err + w, errsz - (size_t)w, " %s", f);
				return -1;
			}
			if (i < n)	/* a cycle further on: said from its own entry */
				break;
			chain[n] = f;
			f = mc_json_str(entry(s, f), "family");
		}
		if (n > MC_FAMILY_DEPTH) {
			snprintf(err, errsz, "%s: models.%s.family: more than %d families deep",
			    s->path, e->string, MC_FAMILY_DEPTH);
			return -1;
		}
	}
	return 0;
}

const cJSON *
mc_model_field(const struct mc_settings *s, const char *model, const char *field,
    const char **from)
{
	const char *chain[MC_FAMILY_DEPTH];
	const cJSON *v;
	size_t n, i;

	n = mc_model_chain(s, model, chain);
	chain[n < MC_FAMILY_DEPTH ? n++ : n - 1] = "*";
	for (i = 0; i < n; i++)
		if ((v = cJSON_GetObjectItemCaseSensitive(entry(s, chain[i]), field)) != NULL) {
			if (from != NULL)
				*from = chain[i];
			return v;
		}
	return NULL;
}
