/* request.c: what a request holds besides the conversation, in each API's shape: tools, schema, limits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "buf.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "reasoning.h"
#include "request.h"
#include "strset.h"
#include "utf8.h"

static cJSON *
tools_fail(char *err, size_t errsz, const char *name, int i, const char *what)
{
	snprintf(err, errsz, "%s: [%d]%s", name, i, what);
	return NULL;
}

cJSON *
mc_request_tools(const char *name, const char *s, size_t len,
    const struct mc_settings *st, char *err, size_t errsz)
{
	struct mc_strset seen = {0};	/* the names in out: hashed, for 10k tools */
	char why[256];
	cJSON *doc, *out, *t, *o, *v;
	const char *tn;
	int i = 0;

	if (!mc_utf8_valid(s, len)) {
		snprintf(err, errsz, "%s: not valid UTF-8", name);
		return NULL;
	}
	if ((doc = mc_json_parse(s, len, why, sizeof why)) == NULL) {
		snprintf(err, errsz, "%s: %s", name, why);
		return NULL;
	}
	if (mc_json_nul_escape(s, len) != NULL) {
		snprintf(err, errsz, "%s: a string holds a NUL character (\\u0000)", name);
		cJSON_Delete(doc);
		return NULL;
	}
	if (!cJSON_IsArray(doc)) {
		snprintf(err, errsz, "%s: expected a JSON array of tools", name);
		cJSON_Delete(doc);
		return NULL;
	}
	out = mc_json_new_arr();
	cJSON_ArrayForEach(t, doc) {
		if (!cJSON_IsObject(t)) {
			tools_fail(err, errsz, name, i, ": expected an object");
			goto bad;
		}
		if ((tn = mc_json_str(t, "name")) == NULL || *tn == '\0') {
			tools_fail(err, errsz, name, i, cJSON_HasObjectItem(t, "name") ?
			    ".name: expected a non-empty string" : ": missing \"name\"");
			goto bad;
		}
		if ((v = cJSON_GetObjectItemCaseSensitive(t, "description")) != NULL &&
		    !cJSON_IsString(v)) {
			tools_fail(err, errsz, name, i, ".description: expected a string");
			goto bad;
		}
		if ((v = cJSON_GetObjectItemCaseSensitive(t, "parameters")) != NULL &&
		    !cJSON_IsObject(v)) {
			tools_fail(err, errsz, name, i, ".parameters: expected a JSON Schema object");
			goto bad;
		}
		if ((v = cJSON_GetObjectItemCaseSensitive(t, "strict")) != NULL &&
		    !cJSON_IsBool(v)) {
			tools_fail(err, errsz, name, i, ".strict: expected true or false");
			goto bad;
		}
		if (mc_strset_find(&seen, tn) != NULL) {
			snprintf(err, errsz, "%s: [%d].name: tool \"%s\" is defined twice",
			    name, i, tn);
			goto bad;
		}
		i++;
		if (st != NULL && mc_settings_listed(st, "tools.disabled", tn))
			continue;
		mc_strset_add(&seen, tn, 0, NULL);
		o = mc_json_push(out, mc_json_new_obj());
		mc_json_add_str(o, "name", tn);
		if ((v = cJSON_GetObjectItemCaseSensitive(t, "description")) != NULL)
			mc_json_add(o, "description", cJSON_Duplicate(v, 1));
		if ((v = cJSON_GetObjectItemCaseSensitive(t, "parameters")) != NULL)
			mc_json_add(o, "parameters", cJSON_Duplicate(v, 1));
		if ((v = cJSON_GetObjectItemCaseSensitive(t, "strict")) != NULL)
			mc_json_add(o, "strict", cJSON_Duplicate(v, 1));
	}
	cJSON_Delete(doc);
	mc_strset_free(&seen);
	return out;
bad:
	cJSON_Delete(doc);
	cJSON_Delete(out);
	mc_strset_free(&seen);
	return NULL;
}

static cJSON *
dup_member(const cJSON *obj, const char *key)
{
	cJSON *v = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(obj, key), 1);

	if (v == NULL)
		mc_oom();
	return v;
}

/* A tool without parameters takes none; Responses requires the member. */
static cJSON *
parameters(const cJSON *tool)
{
	cJSON *p;

	if (cJSON_HasObjectItem(tool, "parameters"))
		return dup_member(tool, "parameters");
	p = mc_json_new_obj();
	mc_json_add_str(p, "type", "object");
	mc_json_add(p, "properties", mc_json_new_obj());
	return p;
}

static cJSON *
chat_tool(const cJSON *t)
{
	cJSON *o = mc_json_new_obj(), *f;

	mc_json_add_str(o, "type", "function");
	f = mc_json_add(o, "function", mc_json_new_obj());
	mc_json_add_str(f, "name", mc_json_str(t, "name"));
	if (cJSON_HasObjectItem(t, "description"))
		mc_json_add(f, "description", dup_member(t, "description"));
	mc_json_add(f, "parameters", parameters(t));
	if (cJSON_HasObjectItem(t, "strict"))
		mc_json_add(f, "strict", dup_member(t, "strict"));
	return o;
}

/* Responses makes strict the default, which most tool schemas do not
 * satisfy; it is sent as false unless the tool asks for it. */
static cJSON *
responses_tool(const cJSON *t)
{
	cJSON *o = mc_json_new_obj();

	mc_json_add_str(o, "type", "function");
	mc_json_add_str(o, "name", mc_json_str(t, "name"));
	if (cJSON_HasObjectItem(t, "description"))
		mc_json_add(o, "description", dup_member(t, "description"));
	mc_json_add(o, "parameters", parameters(t));
	if (cJSON_HasObjectItem(t, "strict"))
		mc_json_add(o, "strict", dup_member(t, "strict"));
	else
		mc_json_add(o, "strict", cJSON_CreateFalse());
	return o;
}

/* Messages: the schema is input_schema. */
static cJSON *
messages_tool(const cJSON *t)
{
	cJSON *o = mc_json_new_obj();

	mc_json_add_str(o, "name", mc_json_str(t, "name"));
	if (cJSON_HasObjectItem(t, "description"))
		mc_json_add(o, "description", dup_member(t, "description"));
	mc_json_add(o, "input_schema", parameters(t));
	return o;
}

/* A prompt-cache breakpoint: the prefix up to and with o is cached. */
void
mc_request_cache_mark(cJSON *o)
{
	mc_json_add_str(mc_json_add(o, "cache_control", mc_json_new_obj()), "type", "ephemeral");
}

/* Structured output: the answer must match r->schema. */
static void
add_schema(cJSON *b, const struct mc_request *r, int chat)
{
	cJSON *o, *f;

	if (r->schema == NULL)
		return;
	if (chat) {
		o = mc_json_add(b, "response_format", mc_json_new_obj());
		mc_json_add_str(o, "type", "json_schema");
		f = mc_json_add(o, "json_schema", mc_json_new_obj());
	} else {
		o = mc_json_add(b, "text", mc_json_new_obj());
		f = mc_json_add(o, "format", mc_json_new_obj());
		mc_json_add_str(f, "type", "json_schema");
	}
	mc_json_add_str(f, "name", r->schema_name ? r->schema_name : "schema");
	mc_json_add(f, "schema", cJSON_Duplicate(r->schema, 1));
	mc_json_add(f, "strict", cJSON_CreateTrue());
}

/* The output limit: --max-output-tokens, else models.MODEL.max_output_tokens,
 * else (Messages requires one) the model's default; 0 for none. */
static long
output_limit(const struct mc_provider *p, const struct mc_request *r, int messages)
{
	if (r->max_output_tokens > 0)
		return r->max_output_tokens;
	if (p->max_output_tokens > 0)
		return p->max_output_tokens;
	return messages ? mc_provider_default_max_tokens(p->model) : 0;
}

/* Messages: the system prompt as a text block, the cache's first breakpoint. */
static void
messages_system(const struct mc_provider *p, const struct mc_request *r, cJSON *head)
{
	cJSON *b;

	if (r->system == NULL || *r->system == '\0')
		return;
	b = mc_json_push(mc_json_add(head, "system", mc_json_new_arr()), mc_json_new_obj());
	mc_json_add_str(b, "type", "text");
	mc_json_add_str(b, "text", r->system);
	if (p->prompt_cache)
		mc_request_cache_mark(b);
}

void
mc_request_members(const struct mc_provider *p, const struct mc_request *r, int send,
    cJSON **head, cJSON **tail)
{
	int chat = strcmp(p->api, "chat") == 0, messages = strcmp(p->api, "messages") == 0;
	cJSON *tools, *so, *o = NULL;
	const cJSON *t;
	long max;

	*head = mc_json_new_obj();
	*tail = mc_json_new_obj();
	mc_json_add_str(*head, "model", p->model);
	if (messages)
		messages_system(p, r, *head);
	else if (!chat && r->system != NULL && *r->system != '\0')
		mc_json_add_str(*head, "instructions", r->system);
	if (r->tools != NULL && cJSON_GetArraySize(r->tools) > 0) {
		tools = mc_json_add(*tail, "tools", mc_json_new_arr());
		cJSON_ArrayForEach(t, r->tools)
			o = mc_json_push(tools, messages ? messages_tool(t) : chat ? chat_tool(t) :
			    responses_tool(t));
		if (messages && p->prompt_cache)
			mc_request_cache_mark(o);	/* the tools are cached with the last */
	}
	if (!messages)
		add_schema(*tail, r, chat);
	max = output_limit(p, r, messages);
	mc_reasoning_members(p->api, r->reasoning ? r->reasoning : p->reasoning, *tail, &max);
	if (max > 0)
		mc_json_add_num(*tail, chat ? p->chat_max_tokens : messages ? "max_tokens" :
		    "max_output_tokens",
		    (double)max);
	if (!chat && !messages)
		mc_json_add(*tail, "store", cJSON_CreateFalse());
	if (!send || !r->stream)
		return;
	mc_json_add(*tail, "stream", cJSON_CreateTrue());
	if (chat) {
		so = mc_json_add(*tail, "stream_options", mc_json_new_obj());
		mc_json_add(so, "include_usage", cJSON_CreateTrue());
	}
}

void
mc_request_schema_name(const char *path, char name[65])
{
	const char *base = strrchr(path, '/'), *dot;
	size_t n, i;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	if (n > 64)
		n = 64;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)base[i];

		name[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '_' || c == '-' ? (char)c : '_';
	}
	name[n] = '\0';
	if (n == 0)
		snprintf(name, 65, "schema");
}

cJSON *
mc_request_schema_read(const char *path, char *err, size_t errsz)
{
	struct mc_buf b = {0};
	char why[256];
	cJSON *doc = NULL;

	if (mc_slurp_path(path, MC_TOOLS_MAX, &b, err, errsz) == -1)
		goto out;
	if (!mc_utf8_valid(b.data, b.len))
		snprintf(err, errsz, "%s: not valid UTF-8", path);
	else if ((doc = mc_json_parse(b.data ? b.data : "", b.len, why, sizeof why)) == NULL)
		snprintf(err, errsz, "%s: %s", path, why);
	else if (mc_json_nul_escape(b.data, b.len) != NULL)
		snprintf(err, errsz, "%s: a string holds a NUL character (\\u0000)", path);
	else if (!cJSON_IsObject(doc))
		snprintf(err, errsz, "%s: expected a JSON Schema object", path);
	else
		goto out;
	cJSON_Delete(doc);
	doc = NULL;
out:
	mc_buf_free(&b);
	return doc;
}
