/* reasoning.c: reasoning effort levels and what each API is sent for them. */
#include <string.h>

#include "json.h"
#include "reasoning.h"

const char *const mc_reasoning_levels[] = { "minimal", "low", "medium", "high", "off", NULL };

/* Messages budgets, documented in mc-formats(5); 1024 is the API's least. */
static const struct { const char *level; long budget; } budgets[] = {
	{ "minimal", 1024 }, { "low", 4096 }, { "medium", 10000 }, { "high", 32000 },
};

int
mc_reasoning_valid(const char *s)
{
	size_t i;

	for (i = 0; s != NULL && mc_reasoning_levels[i] != NULL; i++)
		if (strcmp(s, mc_reasoning_levels[i]) == 0)
			return 1;
	return 0;
}

long
mc_reasoning_budget(const char *level)
{
	size_t i;

	for (i = 0; level != NULL && i < sizeof budgets / sizeof budgets[0]; i++)
		if (strcmp(level, budgets[i].level) == 0)
			return budgets[i].budget;
	return 0;
}

void
mc_reasoning_members(const char *api, const char *level, cJSON *tail, long *max_tokens)
{
	cJSON *o;
	long budget;

	if (level == NULL || strcmp(level, "off") == 0 || !mc_reasoning_valid(level))
		return;
	if (strcmp(api, "chat") == 0) {
		mc_json_add_str(tail, "reasoning_effort", level);
	} else if (strcmp(api, "responses") == 0) {
		o = mc_json_add(tail, "reasoning", mc_json_new_obj());
		mc_json_add_str(o, "effort", level);
		mc_json_add_str(o, "summary", "auto");
		/* store:false keeps nothing on the server: the reasoning
		 * comes back encrypted, to be sent again in a tool loop. */
		mc_json_push(mc_json_add(tail, "include", mc_json_new_arr()),
		    mc_json_new_str("reasoning.encrypted_content"));
	} else if (strcmp(api, "messages") == 0) {
		budget = mc_reasoning_budget(level);
		o = mc_json_add(tail, "thinking", mc_json_new_obj());
		mc_json_add_str(o, "type", "enabled");
		mc_json_add_num(o, "budget_tokens", (double)budget);
		/* The budget is part of max_tokens, which must exceed it. */
		if (max_tokens != NULL && *max_tokens <= budget)
			*max_tokens += budget;
	}
}
