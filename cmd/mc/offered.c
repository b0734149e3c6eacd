/* offered.c: the tools the model is offered: the session's list through each filter in turn (modeltools.c's per-model one, toolsearch.c's deferral, modes.c's plan mode), made again only when the list, the model, the mode or the tools loaded change. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "mc.h"

static int
same_str(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/*
 * The list to send: the session's list through the filters in turn, the
 * per-model one (modeltools.c), tool search's (toolsearch.c) and plan
 * mode's (modes.c), or d->s.tools itself when none changes it. Made
 * again only when the session's list (compared byte for byte, as
 * request.c compares what it told mc-request), the model, the mode or
 * the tools loaded by tool_search change.
 * Warnings about names the settings give that name no tool are said
 * when the list is made for a new model.
 */
const struct mc_buf *
tools_offered(struct driver *d)
{
	struct offer *o = &d->offer;
	char *text;
	cJSON *all;
	size_t n;
	int new_model, mine, plan = d->mode.now == MODE_PLAN;

	new_model = !o->made || !same_str(o->model, d->s.model);
	if (!new_model && o->gen == d->search.gen && o->plan == plan && o->from.len == d->s.tools.len &&
	    (o->from.len == 0 || memcmp(o->from.data, d->s.tools.data, o->from.len) == 0))
		return o->same ? &d->s.tools : &o->list;
	o->from.len = 0;
	mc_buf_add(&o->from, d->s.tools.data, d->s.tools.len);
	free(o->model);
	o->model = d->s.model ? mc_strdup(d->s.model) : NULL;
	o->made = 1;
	o->gen = d->search.gen;
	o->plan = plan;
	o->list.len = 0;
	o->same = 0;
	if ((all = tools_get(d)) == NULL)
		return &o->list;
	if ((mine = model_tools_active(d)))
		model_tools_filter(d, all, new_model);
	toolsearch_filter(d, all);
	if (plan)
		all = plan_filter(d, all);
	if (!mine && !d->search.on && !plan) {
		o->same = 1;	/* no filter changed it */
		cJSON_Delete(all);
		return &d->s.tools;
	}
	text = mc_json_compact(all, &n);
	cJSON_Delete(all);
	mc_buf_add(&o->list, text, n);
	free(text);
	return &o->list;
}

void
tools_offered_free(struct driver *d)
{
	mc_buf_free(&d->offer.from);
	mc_buf_free(&d->offer.list);
	free(d->offer.model);
	d->offer = (struct offer){0};
}
