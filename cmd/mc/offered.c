/* offered.c: the tools the model is offered: the session's list through each filter in turn (modeltools.c's per-model one), made again only when the list or the model changes. */
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
 * The list to send: d->s.tools itself when no filter applies, else the
 * filters' result, kept in d->offer until the session's list (compared
 * byte for byte, as request.c compares what it told mc-request) or the
 * model changes. Warnings about names the settings give that name no
 * tool are said when the list is made for a new model.
 */
const struct mc_buf *
tools_offered(struct driver *d)
{
	struct offer *o = &d->offer;
	char *text;
	cJSON *all;
	size_t n;
	int new_model;

	if (!model_tools_active(d))
		return &d->s.tools;
	new_model = !o->made || !same_str(o->model, d->s.model);
	if (!new_model && o->from.len == d->s.tools.len &&
	    (o->from.len == 0 || memcmp(o->from.data, d->s.tools.data, o->from.len) == 0))
		return &o->list;
	o->from.len = 0;
	mc_buf_add(&o->from, d->s.tools.data, d->s.tools.len);
	free(o->model);
	o->model = d->s.model ? mc_strdup(d->s.model) : NULL;
	o->made = 1;
	o->list.len = 0;
	if ((all = tools_get(d)) == NULL)
		return &o->list;
	model_tools_filter(d, all, new_model);
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
