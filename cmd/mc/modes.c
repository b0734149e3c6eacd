/* modes.c: the session's mode (default, accept-edits, plan, yes): --mode, /mode, /go; plan mode's tools and its prompt fragment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "items.h"
#include "json.h"
#include "mc.h"

#define PLAN_CAP (1u << 20)	/* the rendered plan fragment */

static const char *const names[] = { "default", "accept-edits", "plan", "yes", NULL };

/* The tools plan mode offers besides the MCP tools marked read-only. */
static const char *const readers[] = { "read", "grep", "find", NULL };

int
mode_parse(const char *s)
{
	int i;

	for (i = 0; names[i]; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

const char *
mode_name(enum mode m)
{
	return names[m];
}

/* The mode a run starts in: --mode (or --yes), else permissions.mode,
 * else default. -1 after a usage error. */
int
mode_init(struct driver *d, const char *opt)
{
	const char *set = mc_json_str(mc_settings_get(&d->c.set, "permissions"), "mode");
	int m = MODE_DEFAULT;

	if (opt != NULL && (m = mode_parse(opt)) == -1) {
		mc_usage_error("--mode: unknown mode \"%s\" (default, accept-edits, plan or yes)", opt);
		return -1;
	}
	if (opt != NULL && d->c.yes && m != MODE_YES) {
		mc_usage_error("--yes is --mode yes: not with --mode %s", opt);
		return -1;
	}
	if (d->c.yes)
		m = MODE_YES;
	else if (opt == NULL && set != NULL)
		m = mode_parse(set);	/* settings.c checked it */
	d->mode.now = d->mode.before = (enum mode)m;
	return 0;
}

void
mode_free(struct driver *d)
{
	mc_buf_free(&d->mode.plan);
}

/* Into mode m; plan remembers the mode it came from, for /go. */
void
mode_set(struct driver *d, enum mode m)
{
	if (m == MODE_PLAN && d->mode.now != MODE_PLAN)
		d->mode.before = d->mode.now;
	d->mode.now = m;
}

/* Whether plan mode offers the tool named: read, grep, find, MCP tools
 * whose server marks them readOnlyHint, and tool_search. */
int
plan_offers(const struct driver *d, const char *name)
{
	int i;

	if (mcp_has(d, name))
		return mcp_read_only(d, name);
	if (toolsearch_has(d, name))	/* what it loads passes this filter again */
		return 1;
	for (i = 0; readers[i]; i++)
		if (strcmp(name, readers[i]) == 0)
			return 1;
	return 0;
}

/* tools (a JSON array it takes) without what plan mode does not offer. */
cJSON *
plan_filter(const struct driver *d, cJSON *tools)
{
	cJSON *out = mc_json_new_arr(), *t;
	const char *name;

	while ((t = cJSON_DetachItemFromArray(tools, 0)) != NULL) {
		name = mc_json_str(t, "name");
		if (name != NULL && plan_offers(d, name))
			mc_json_push(out, t);
		else
			cJSON_Delete(t);
	}
	cJSON_Delete(tools);
	return out;
}

/* The plan fragment, rendered by mc-render --fragment plan once a run. */
static int
plan_fragment(struct driver *d)
{
	char *argv[] = { "mc-render", "-q", "--fragment", "plan", NULL }, err[256];
	struct mc_filter f = { .collect = &d->mode.plan, .cap = PLAN_CAP, .stop = &interrupted };
	int st;

	if (d->mode.plan.len > 0)
		return 0;
	if (mc_filter_run(argv, &f, &st, err, sizeof err) == -1) {
		mc_err("%s", err);
		return -1;
	}
	if (!stage_ok("mc-render", st)) {
		d->mode.plan.len = 0;
		return -1;
	}
	while (d->mode.plan.len > 0 && d->mode.plan.data[d->mode.plan.len - 1] == '\n')
		d->mode.plan.data[--d->mode.plan.len] = '\0';
	return 0;
}

/* Before a turn's message: in plan mode, the plan fragment as a user
 * message of its own, for this turn, in *m (NULL in another mode),
 * marked "mode": the session's own note, not a turn the user typed.
 * 0, or -1 (said why). */
int
mode_turn(struct driver *d, cJSON **m)
{
	*m = NULL;
	if (d->mode.now != MODE_PLAN)
		return 0;
	if (plan_fragment(d) == -1)
		return -1;
	*m = mc_item_message("user", d->mode.plan.data ? d->mode.plan.data : "");
	mc_json_add_str(*m, "mode", "plan");
	return 0;
}

/* /mode [NAME]: show the mode, or change it. */
void
mode_slash(struct driver *d, const char *arg)
{
	int m;

	if (*arg == '\0') {
		note(d, "mode: %s (default, accept-edits, plan or yes)", mode_name(d->mode.now));
		return;
	}
	if ((m = mode_parse(arg)) == -1) {
		mc_err("/mode: unknown mode \"%s\" (default, accept-edits, plan or yes)", arg);
		return;
	}
	mode_set(d, (enum mode)m);
	note(d, "mode: %s%s", arg, m == MODE_PLAN ? " (read-only tools; /go carries the plan out)" :
	    "");
}

/* /go [TEXT]: out of plan mode, back to the mode before it; the message
 * that carries the plan out (malloc'ed), or NULL when not in plan mode. */
char *
mode_go(struct driver *d, const char *arg)
{
	char *text;

	if (d->mode.now != MODE_PLAN) {
		mc_err("/go: not in plan mode (/mode plan)");
		return NULL;
	}
	d->mode.now = d->mode.before;
	note(d, "mode: %s", mode_name(d->mode.now));
	if (asprintf(&text, "Carry out the plan.%s%s", *arg ? " " : "", arg) == -1)
		mc_oom();
	return text;
}
