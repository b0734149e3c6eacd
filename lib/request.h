/* request.h: provider request bodies for Chat Completions and Responses, and their cache key. */
#ifndef MC_REQUEST_H
#define MC_REQUEST_H

#include <stddef.h>

#include <cJSON.h>

#include "provider.h"
#include "settings.h"

#define MC_TOOLS_MAX (4u << 20)	/* largest tools file read */

struct mc_request {
	const char *system;	/* the system prompt; NULL or "" for none */
	const cJSON *items;	/* checked items (mc_items_parse) */
	const cJSON *tools;	/* checked tools (mc_request_tools), or NULL */
	int stream;
	long max_output_tokens;	/* 0: leave to the provider */
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
 * The body the provider gets, in the shape of p->api. Consecutive user
 * messages are sent as one, joined by a blank line (chat templates that
 * require alternating roles reject two in a row). An assistant message's
 * refusal is not sent (it is not what the assistant said); a message that
 * held only a refusal is left out. Its "status" is not sent either. A
 * schema becomes chat's response_format or responses' text.format, strict.
 */
cJSON *mc_request_body(const struct mc_provider *p, const struct mc_request *r);

/*
 * The lowercase SHA-256 hex digest (65 bytes with the NUL) that names an
 * answer: of the provider's name, the URL and the body as compact JSON
 * without "stream" and "stream_options" (everything that shapes the
 * answer: model, system prompt, items, tools, schema, output limit), each
 * length-prefixed so that no two different inputs serialize alike.
 */
void mc_request_cache_key(const char *provider, const char *url, const cJSON *body,
    char hex[65]);

/* The schema name for the file at path: its base name without the last
 * extension, each byte outside [A-Za-z0-9_-] made '_', at most 64 bytes
 * ("schema" when nothing is left). */
void mc_request_schema_name(const char *path, char name[65]);

/* {"version":1,"provider","api","url","api_key_env","cache_key","body"}. */
cJSON *mc_request_envelope(const struct mc_provider *p, const struct mc_request *r);

#endif
