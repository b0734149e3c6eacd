/* request.h: what a provider request holds besides the conversation: tools, schema, limits. */
#ifndef MC_REQUEST_H
#define MC_REQUEST_H

#include <stddef.h>

#include <cJSON.h>

#include "provider.h"
#include "settings.h"

#define MC_TOOLS_MAX (4u << 20)	/* largest tools file read */

struct mc_request {
	const char *system;	/* the system prompt; NULL or "" for none */
	const cJSON *items;	/* checked items (mc_items_parse): mc-request's; the wire takes them one by one */
	const cJSON *tools;	/* checked tools (mc_request_tools), or NULL */
	int stream;
	long max_output_tokens;	/* 0: leave to the provider */
	/* --reasoning: a level of reasoning.h, over the provider's (NULL: its) */
	const char *reasoning;
	const cJSON *schema;	/* a JSON Schema the answer must match, or NULL */
	const char *schema_name;	/* its name: [A-Za-z0-9_-], at most 64 */
};

/*
 * Check a tools document (text s of len bytes read from name): a JSON
 * array of {"name","description","parameters","strict"} with name
 * required and unique. Tools listed in the settings' tools.disabled are
 * dropped. Returns the checked array, or NULL with "NAME: reason" in err.
 */
cJSON *mc_request_tools(const char *name, const char *s, size_t len,
    const struct mc_settings *st, char *err, size_t errsz);

/*
 * The members of the body the provider gets, in the shape of p->api, but
 * for its long array (chat's and Messages' messages, responses' input; lib/wire.c
 * builds that): in *head those before it, in *tail those after. A schema
 * becomes chat's response_format or responses' text.format, strict. With
 * send, the tail ends with how the answer is sent ("stream" and chat's
 * "stream_options"); without, it holds only what shapes the answer.
 * Messages: "system" is one text block, tools carry "input_schema",
 * "max_tokens" is always set, and with p->prompt_cache the system block
 * and the last tool are cache breakpoints (the wire marks the last user
 * message); a schema is not sent (mc-request refuses it). The reasoning
 * level (r->reasoning, else p->reasoning) adds what mc_reasoning_members
 * says; none or "off" adds nothing.
 */
void mc_request_members(const struct mc_provider *p, const struct mc_request *r, int send,
    cJSON **head, cJSON **tail);

/* Add the prompt-cache breakpoint "cache_control":{"type":"ephemeral"}
 * (Messages) to the block o. */
void mc_request_cache_mark(cJSON *o);

/* The schema name for the file at path: its base name without the last
 * extension, each byte outside [A-Za-z0-9_-] made '_', at most 64 bytes
 * ("schema" when nothing is left). */
void mc_request_schema_name(const char *path, char name[65]);

/* The JSON Schema in the file at path, read and checked (valid UTF-8,
 * JSON, no NUL in a string, an object): NULL with the reason in err. */
cJSON *mc_request_schema_read(const char *path, char *err, size_t errsz);

#endif
