/* modeltools.c: the model's own tool list (models.ID.tools include or exclude, models.ID.tool_descriptions, with its family and "*"): one filter of offered.c, and the calls it keeps from running. */
#include <string.h>

#include "diag.h"
#include "json.h"
#include "mc.h"
#include "models.h"

/* The model's include or exclude list, and which it is; NULL when it has
 * none. */
static const cJSON *
tool_list(const struct driver *d, int *include)
{
	const cJSON *t = mc_model_field(&d->c.set, d->s.model, "tools", NULL), *l;

	if ((l = cJSON_GetObjectItemCaseSensitive(t, "include")) != NULL) {
		*include = 1;
		return l;
	}
	*include = 0;
	return cJSON_GetObjectItemCaseSensitive(t, "exclude");
}

static int
listed(const cJSON *list, const char *name)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, list)
		if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0)
			return 1;
	return 0;
}

int
model_tool_refused(const struct driver *d, const char *name)
{
	int include;
	const cJSON *l = tool_list(d, &include);

	return l != NULL && listed(l, name) != include;
}

int
model_tools_active(const struct driver *d)
{
	int include;

	return tool_list(d, &include) != NULL ||
	    mc_model_field(&d->c.set, d->s.model, "tool_descriptions", NULL) != NULL;
}

/* A name of the settings' that names no tool of the session: said once
 * per name and model, as the settings path that has it. */
static void
unknown_names(const struct driver *d, const cJSON *all, const cJSON *names, const char *what,
    int keys)
{
	const cJSON *e, *t;
	const char *n;

	cJSON_ArrayForEach(e, names) {
		n = keys ? e->string : cJSON_IsString(e) ? e->valuestring : NULL;
		if (n == NULL)
			continue;
		cJSON_ArrayForEach(t, all)
			if (mc_json_str(t, "name") && strcmp(mc_json_str(t, "name"), n) == 0)
				break;
		if (t == NULL)
			mc_warn("%s: %s names no tool of this session: %s (for model %s)",
			    d->c.set.path, what, n, d->s.model ? d->s.model : "default");
	}
}

/*
 * all, the session's tools, as the model is offered them: those its
 * include list names or its exclude list does not, with the descriptions
 * its tool_descriptions give them. warn: say which names of the settings
 * name no tool.
 */
void
model_tools_filter(const struct driver *d, cJSON *all, int warn)
{
	const char *lfrom = NULL, *dfrom = NULL, *name;
	const cJSON *desc = mc_model_field(&d->c.set, d->s.model, "tool_descriptions", &dfrom);
	const cJSON *l, *nd;
	char what[300];
	cJSON *e, *next;
	int include;

	l = tool_list(d, &include);
	mc_model_field(&d->c.set, d->s.model, "tools", &lfrom);
	if (warn && l != NULL) {
		snprintf(what, sizeof what, "models.%s.tools.%s", lfrom, include ? "include" : "exclude");
		unknown_names(d, all, l, what, 0);
	}
	if (warn && desc != NULL) {
		snprintf(what, sizeof what, "models.%s.tool_descriptions", dfrom);
		unknown_names(d, all, desc, what, 1);
	}
	for (e = all->child; e != NULL; e = next) {
		next = e->next;
		if ((name = mc_json_str(e, "name")) == NULL)
			continue;
		if (l != NULL && listed(l, name) != include) {
			cJSON_Delete(cJSON_DetachItemViaPointer(all, e));
			continue;
		}
		if ((nd = cJSON_GetObjectItemCaseSensitive(desc, name)) != NULL && cJSON_IsString(nd))
			cJSON_ReplaceItemInObjectCaseSensitive(e, "description",
			    mc_json_new_str(nd->valuestring));
	}
}
