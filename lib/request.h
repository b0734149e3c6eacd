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
};

/*
 * Check a tools document (text s of len bytes read from name): a JSON
 * array of {"name","description","parameters","strict"} with name
 * required and unique. Tools listed in the settings' tools.disabled are
 * dropped. Returns the checked array, or NULL with "NAME: reason" in err.
 */
cJSON *mc_request_tools(const char *name, const char *s, size_t len,
    const struct mc_settings *st, char *err, size_t errsz);

/* The body the provider gets, in the shape of p->api. */
cJSON *mc_request_body(const struct mc_provider *p, const struct mc_request *r);

/*
 * The lowercase SHA-256 hex digest (65 bytes with the NUL) of the
 * provider id, model, system prompt and items, each field length-prefixed
 * so that no two different inputs serialize alike.
 */
void mc_request_cache_key(const struct mc_provider *p, const char *system,
    const cJSON *items, char hex[65]);

/* {"version":1,"provider","api","url","api_key_env","cache_key","body"}. */
cJSON *mc_request_envelope(const struct mc_provider *p, const struct mc_request *r);

#endif
