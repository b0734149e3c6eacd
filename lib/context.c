/* context.c: building the context document and its diagnostics. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "diag.h"
#include "json.h"

cJSON *
mc_context_new(const char *root, const char *mc_home)
{
	cJSON *doc = mc_json_new_obj();

	mc_json_add_num(doc, "version", 1);
	mc_json_add_str(doc, "root", root);
	mc_json_add_str(doc, "mc_home", mc_home);
	mc_json_add(doc, "instructions", cJSON_CreateArray());
	mc_json_add(doc, "diagnostics", cJSON_CreateArray());
	return doc;
}

void
mc_context_diag(cJSON *doc, const char *severity, const char *path, const char *fmt, ...)
{
	char msg[2048];
	cJSON *d;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	d = mc_json_push(mc_json_arr_ensure(doc, "diagnostics"), mc_json_new_obj());
	mc_json_add_str(d, "severity", severity);
	if (path != NULL)
		mc_json_add_str(d, "path", path);
	mc_json_add_str(d, "message", msg);
	if (strcmp(severity, "error") == 0)
		mc_err("%s%s%s", path ? path : "", path ? ": " : "", msg);
	else
		mc_warn("%s%s%s", path ? path : "", path ? ": " : "", msg);
}

void
mc_context_settings_warnings(cJSON *doc, const struct mc_settings *s)
{
	const cJSON *w;

	cJSON_ArrayForEach(w, s->warnings)
		mc_context_diag(doc, "warning", s->path, "%s", w->valuestring);
}

int
mc_context_errors(const cJSON *doc)
{
	const cJSON *d;
	const char *sev;
	int n = 0;

	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(doc, "diagnostics"))
		if ((sev = mc_json_str(d, "severity")) != NULL && strcmp(sev, "error") == 0)
			n++;
	return n;
}
