/* t/unit/models.c: tables for lib/models.c (family chains, their cycles, fields by model, family and "*") and the windows it gives lib/window.c. */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "models.h"
#include "settings.h"
#include "window.h"

static const struct {
	const char *models;	/* the settings' "models" */
	const char *err;	/* after the file's name, or NULL */
} checks[] = {
	{ "{\"a\":{\"family\":\"b\"},\"b\":{}}", NULL },
	{ "{\"a\":{\"family\":\"nowhere\"}}", NULL },	/* a family with no entry of its own */
	{ "{\"a\":{\"family\":\"a\"}}", "models.a.family: names the model itself" },
	{ "{\"a\":{\"family\":\"b\"},\"b\":{\"family\":\"a\"}}", "models.a.family: a cycle: a -> b -> a" },
	{ "{\"x\":{\"family\":\"a\"},\"a\":{\"family\":\"b\"},\"b\":{\"family\":\"a\"}}",
	  "models.a.family: a cycle: a -> b -> a" },	/* x leads into it; a names it */
	{ "{\"a\":{\"tools\":{\"include\":[],\"exclude\":[]}}}",
	  "models.a.tools: \"include\" or \"exclude\", not both" },
};

static const struct {
	const char *model, *field;
	const char *want, *from;	/* its "v" member, and the entry that gave it */
} fields[] = {
	{ "m", "own", "m", "m" },
	{ "m", "fam", "f", "f" },		/* from the family */
	{ "m", "top", "g", "g" },		/* the family's family */
	{ "m", "star", "*", "*" },		/* every model's */
	{ "m", "none", NULL, NULL },
	{ "f", "own", "f", "f" },
	{ "other", "own", "*", "*" },
	{ "other", "fam", NULL, NULL },
};

static int
check_one(size_t i)
{
	struct mc_settings s = { .path = "settings.json" };
	char doc[512], err[256] = "";
	int r, fail = 0;

	snprintf(doc, sizeof doc, "{\"models\":%s}", checks[i].models);
	r = mc_settings_parse(&s, doc, strlen(doc), err, sizeof err);
	if (checks[i].err == NULL ? r != 0 : r != -1 || strncmp(err, "settings.json: ", 15) != 0 ||
	    strcmp(err + 15, checks[i].err) != 0) {
		printf("models: check %zu: got %d (%s)\n", i, r, err);
		fail = 1;
	}
	cJSON_Delete(s.root);
	cJSON_Delete(s.warnings);
	return fail;
}

int
main(void)
{
	static const char settings[] = "{\"models\":{"
	    "\"m\":{\"family\":\"f\",\"own\":{\"v\":\"m\"}},"
	    "\"f\":{\"family\":\"g\",\"own\":{\"v\":\"f\"},\"fam\":{\"v\":\"f\"},\"context_window\":9000},"
	    "\"g\":{\"top\":{\"v\":\"g\"},\"fam\":{\"v\":\"g\"}},"
	    "\"*\":{\"own\":{\"v\":\"*\"},\"star\":{\"v\":\"*\"},\"top\":{\"v\":\"*\"}}}}";
	struct mc_settings s = { .path = "settings.json" };
	const char *chain[MC_FAMILY_DEPTH], *from, *v;
	char err[256], wfrom[256];
	const cJSON *j;
	size_t i, n;
	int fail = 0;

	for (i = 0; i < sizeof checks / sizeof checks[0]; i++)
		fail |= check_one(i);
	if (mc_settings_parse(&s, settings, strlen(settings), err, sizeof err) == -1) {
		printf("models: settings: %s\n", err);
		return 1;
	}
	n = mc_model_chain(&s, "m", chain);
	if (n != 3 || strcmp(chain[0], "m") || strcmp(chain[1], "f") || strcmp(chain[2], "g")) {
		printf("models: the chain of m: %zu names\n", n);
		fail = 1;
	}
	for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		from = NULL;
		j = mc_model_field(&s, fields[i].model, fields[i].field, &from);
		v = mc_json_str(j, "v");
		if (fields[i].want == NULL ? j != NULL :
		    v == NULL || strcmp(v, fields[i].want) || strcmp(from, fields[i].from)) {
			printf("models: field %zu (%s of %s): got %s from %s\n", i, fields[i].field,
			    fields[i].model, v ? v : "nothing", from ? from : "nowhere");
			fail = 1;
		}
	}
	/* A family's context window is its models', named as its own. */
	if (mc_window_size(&s, "p", "m", wfrom, sizeof wfrom) != 9000 ||
	    strcmp(wfrom, "models.f.context_window") != 0) {
		printf("models: the window of m: from %s\n", wfrom);
		fail = 1;
	}
	cJSON_Delete(s.root);
	cJSON_Delete(s.warnings);
	return fail;
}
