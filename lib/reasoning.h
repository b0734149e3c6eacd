/* reasoning.h: reasoning effort levels (--reasoning, models.ID.reasoning) and their members in each API's request. */
#ifndef MC_REASONING_H
#define MC_REASONING_H

#include <cJSON.h>

/* The levels, NULL-terminated: "minimal", "low", "medium", "high", "off". */
extern const char *const mc_reasoning_levels[];

/* Non-zero when s is one of mc_reasoning_levels. */
int mc_reasoning_valid(const char *s);

/* Messages: thinking.budget_tokens for a level (0: none asked for). */
long mc_reasoning_budget(const char *level);

/*
 * The members a level adds to a request of api ("chat", "responses",
 * "messages"), into the body's tail: Chat "reasoning_effort"; Responses
 * "reasoning":{effort, summary:"auto"} and, the body being store:false,
 * "include":["reasoning.encrypted_content"]; Messages "thinking":
 * {type:"enabled", budget_tokens}, with *max_tokens raised above the
 * budget (by the answer's own limit) when it is not. NULL or "off" adds
 * nothing.
 */
void mc_reasoning_members(const char *api, const char *level, cJSON *tail, long *max_tokens);

#endif
