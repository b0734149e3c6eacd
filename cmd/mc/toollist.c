/* toollist.c: the session's tool list, kept as the text mc-request is
 * given, and taken as JSON by whoever changes it (mcp.c, subagents.c,
 * toolsearch.c). Nothing here knows whose a tool is: tools.c does. */
#include <stdlib.h>

#include "diag.h"
#include "json.h"
#include "mc.h"

/* The session's tool list (mc-tool list's, then more), as JSON: an empty
 * array when there is none; NULL after saying why. */
cJSON *
tools_get(struct driver *d)
{
	char err[256];
	cJSON *all;

	if (d->s.tools.len == 0)
		return mc_json_new_arr();
	if ((all = mc_json_parse(d->s.tools.data, d->s.tools.len, err, sizeof err)) == NULL ||
	    !cJSON_IsArray(all)) {
		mc_err("mc-tool: its tool list: %s", all ? "not a JSON array" : err);
		cJSON_Delete(all);
		return NULL;
	}
	return all;
}

/* all, which it frees, becomes the session's tool list. */
void
tools_put(struct driver *d, cJSON *all)
{
	char *text;
	size_t n;

	text = mc_json_compact(all, &n);
	cJSON_Delete(all);
	d->s.tools.len = 0;
	mc_buf_add(&d->s.tools, text, n);
	free(text);
}
