/* wire-messages.c: the Messages API's content blocks, one for each conversation item. */
#include <string.h>

#include "items.h"
#include "json.h"
#include "wire.h"

/* The member key of the item, moved out of it (a long output is not copied). */
static cJSON *
take(cJSON *it, const char *key)
{
	cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(it, key);

	return v != NULL ? v : mc_json_new_str("");	/* never: the item was checked */
}

static cJSON *
text_block(cJSON *it)
{
	cJSON *b, *t = take(it, "content");

	/* The API refuses a text block of white space or nothing (a refusal
	 * alone leaves one). */
	if (!cJSON_IsString(t) || t->valuestring[strspn(t->valuestring, " \t\r\n")] == '\0') {
		cJSON_Delete(t);
		return NULL;
	}
	b = mc_json_new_obj();
	mc_json_add_str(b, "type", "text");
	mc_json_add(b, "text", t);
	return b;
}

/* The arguments as the object input; {} for arguments that are no JSON
 * object (a session from another provider may hold such a call). */
static cJSON *
tool_use(cJSON *it)
{
	cJSON *b = mc_json_new_obj(), *in;
	char err[256];

	if ((in = mc_item_call_args(it, err, sizeof err)) == NULL)
		in = mc_json_new_obj();
	mc_json_add_str(b, "type", "tool_use");
	mc_json_add(b, "id", take(it, "call_id"));
	mc_json_add(b, "name", take(it, "name"));
	mc_json_add(b, "input", in);
	return b;
}

/* A tool's output; one that starts "error:" (how mc-tool, mc-mcp and
 * the driver word a failed call) is marked is_error. */
static cJSON *
tool_result(cJSON *it)
{
	cJSON *b = mc_json_new_obj(), *o = take(it, "output");
	int failed = cJSON_IsString(o) && strncmp(o->valuestring, "error:", 6) == 0;

	mc_json_add_str(b, "type", "tool_result");
	mc_json_add(b, "tool_use_id", take(it, "call_id"));
	if (cJSON_IsString(o) && o->valuestring[0] != '\0')
		mc_json_add(b, "content", o);
	else
		cJSON_Delete(o);
	if (failed)
		mc_json_add(b, "is_error", cJSON_CreateTrue());
	return b;
}

/* Reasoning from a Messages answer goes back as it came: its data is the
 * block without its text (a thinking block's signature, a redacted
 * block's data). Another API's reasoning is not sent. */
static cJSON *
thinking(cJSON *it)
{
	const char *api = mc_json_str(it, "api");
	cJSON *d = cJSON_GetObjectItemCaseSensitive(it, "data"), *b, *v;
	const char *type = mc_json_str(d, "type");

	if (api == NULL || strcmp(api, "messages") != 0 || type == NULL)
		return NULL;
	/* In the order the API gives them: type, the text, the rest. */
	b = mc_json_new_obj();
	mc_json_add(b, "type", cJSON_DetachItemFromObjectCaseSensitive(d, "type"));
	if (strcmp(mc_json_str(b, "type"), "thinking") == 0)
		mc_json_add(b, "thinking", take(it, "text"));
	while ((v = d->child) != NULL) {
		cJSON_DetachItemViaPointer(d, v);
		mc_json_add(b, v->string, v);
	}
	return b;
}

cJSON *
mc_wire_messages_block(cJSON *it, int *user)
{
	const char *type = mc_json_str(it, "type");

	*user = 0;
	if (strcmp(type, "message") == 0) {
		*user = strcmp(mc_json_str(it, "role"), "user") == 0;
		return text_block(it);
	}
	if (strcmp(type, "function_call") == 0)
		return tool_use(it);
	if (strcmp(type, "function_call_output") == 0) {
		*user = 1;
		return tool_result(it);
	}
	if (strcmp(type, "reasoning") == 0)
		return thinking(it);
	return NULL;
}
