/* request.c: map conversation items and tools onto each provider API, and the cache key. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha256.h>

#include "diag.h"
#include "json.h"
#include "request.h"
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
	char why[256];
	cJSON *doc, *out, *t, *o, *v, *u;
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
		cJSON_ArrayForEach(u, out)
			if (strcmp(mc_json_str(u, "name"), tn) == 0) {
				snprintf(err, errsz, "%s: [%d].name: tool \"%s\" is defined twice",
				    name, i, tn);
				goto bad;
			}
		i++;
		if (st != NULL && mc_settings_listed(st, "tools.disabled", tn))
			continue;
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
	return out;
bad:
	cJSON_Delete(doc);
	cJSON_Delete(out);
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

/* A message that held only a refusal: not sent (its text is not the
 * assistant's words, and an empty assistant turn breaks some templates). */
static int
refusal_only(const cJSON *it)
{
	return cJSON_HasObjectItem(it, "refusal") && mc_json_str(it, "content")[0] == '\0';
}

/*
 * The user messages waiting to be sent as one. Consecutive user messages
 * (a failed turn left one behind, say) are joined by a blank line: chat
 * templates that require alternating roles reject two in a row.
 */
struct users {
	struct mc_buf text;
	int n;
};

static void
users_add(struct users *u, const char *text)
{
	if (u->n++ > 0)
		mc_buf_adds(&u->text, "\n\n");
	mc_buf_adds(&u->text, text);
}

/* The joined message, pushed to arr in the API's shape. */
static void
users_flush(struct users *u, cJSON *arr, int chat)
{
	cJSON *m;

	if (u->n == 0)
		return;
	m = mc_json_push(arr, mc_json_new_obj());
	if (!chat)
		mc_json_add_str(m, "type", "message");
	mc_json_add_str(m, "role", "user");
	mc_json_add_owned(m, "content", mc_buf_steal(&u->text));
	u->n = 0;
}

static cJSON *
chat_messages(const struct mc_provider *p, const struct mc_request *r)
{
	cJSON *msgs = mc_json_new_arr(), *m, *assistant = NULL, *calls, *c, *f;
	struct users u = {0};
	const cJSON *it;
	const char *type;

	if (r->system != NULL && *r->system != '\0') {
		m = mc_json_push(msgs, mc_json_new_obj());
		mc_json_add_str(m, "role", p->system_role);
		mc_json_add_str(m, "content", r->system);
	}
	cJSON_ArrayForEach(it, r->items) {
		type = mc_json_str(it, "type");
		if (strcmp(type, "message") == 0 && strcmp(mc_json_str(it, "role"), "user") == 0) {
			users_add(&u, mc_json_str(it, "content"));
			assistant = NULL;
			continue;
		}
		if (strcmp(type, "message") == 0 && refusal_only(it)) {
			assistant = NULL;
			continue;
		}
		users_flush(&u, msgs, 1);
		if (strcmp(type, "message") == 0) {
			m = mc_json_push(msgs, mc_json_new_obj());
			mc_json_add(m, "role", dup_member(it, "role"));
			mc_json_add(m, "content", dup_member(it, "content"));
			assistant = m;
		} else if (strcmp(type, "function_call") == 0) {
			/* Calls belong to the assistant turn they follow; a call
			 * with no such turn gets one without text. */
			if (assistant == NULL) {
				assistant = mc_json_push(msgs, mc_json_new_obj());
				mc_json_add_str(assistant, "role", "assistant");
				mc_json_add(assistant, "content", cJSON_CreateNull());
			}
			calls = mc_json_arr_ensure(assistant, "tool_calls");
			c = mc_json_push(calls, mc_json_new_obj());
			mc_json_add(c, "id", dup_member(it, "call_id"));
			mc_json_add_str(c, "type", "function");
			f = mc_json_add(c, "function", mc_json_new_obj());
			mc_json_add(f, "name", dup_member(it, "name"));
			mc_json_add(f, "arguments", dup_member(it, "arguments"));
		} else {
			m = mc_json_push(msgs, mc_json_new_obj());
			mc_json_add_str(m, "role", "tool");
			mc_json_add(m, "tool_call_id", dup_member(it, "call_id"));
			mc_json_add(m, "content", dup_member(it, "output"));
			assistant = NULL;
		}
	}
	users_flush(&u, msgs, 1);
	return msgs;
}

static cJSON *
responses_input(const struct mc_request *r)
{
	cJSON *in = mc_json_new_arr(), *m;
	struct users u = {0};
	const cJSON *it;
	const char *type;

	/* The neutral items are Responses input items, but for the members
	 * (refusal, status) that are the session's own. */
	cJSON_ArrayForEach(it, r->items) {
		type = mc_json_str(it, "type");
		if (strcmp(type, "message") == 0 && strcmp(mc_json_str(it, "role"), "user") == 0) {
			users_add(&u, mc_json_str(it, "content"));
			continue;
		}
		if (strcmp(type, "message") == 0 && refusal_only(it))
			continue;
		users_flush(&u, in, 0);
		if (strcmp(type, "message") == 0) {
			m = mc_json_push(in, mc_json_new_obj());
			mc_json_add_str(m, "type", "message");
			mc_json_add(m, "role", dup_member(it, "role"));
			mc_json_add(m, "content", dup_member(it, "content"));
		} else
			mc_json_push(in, cJSON_Duplicate(it, 1));
	}
	users_flush(&u, in, 0);
	return in;
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

/* The body but for the members that only say how it is sent. */
static cJSON *
body_answer(const struct mc_provider *p, const struct mc_request *r)
{
	int chat = strcmp(p->api, "chat") == 0;
	cJSON *b = mc_json_new_obj(), *tools;
	const cJSON *t;

	mc_json_add_str(b, "model", p->model);
	if (chat)
		mc_json_add(b, "messages", chat_messages(p, r));
	else {
		if (r->system != NULL && *r->system != '\0')
			mc_json_add_str(b, "instructions", r->system);
		mc_json_add(b, "input", responses_input(r));
	}
	if (r->tools != NULL && cJSON_GetArraySize(r->tools) > 0) {
		tools = mc_json_add(b, "tools", mc_json_new_arr());
		cJSON_ArrayForEach(t, r->tools)
			mc_json_push(tools, chat ? chat_tool(t) : responses_tool(t));
	}
	add_schema(b, r, chat);
	if (r->max_output_tokens > 0)
		mc_json_add_num(b, chat ? p->chat_max_tokens : "max_output_tokens",
		    (double)r->max_output_tokens);
	if (!chat)
		mc_json_add(b, "store", cJSON_CreateFalse());
	return b;
}

/* How the answer comes: streamed or whole. */
static void
add_stream(cJSON *b, const struct mc_provider *p, const struct mc_request *r)
{
	cJSON *so;

	if (!r->stream)
		return;
	mc_json_add(b, "stream", cJSON_CreateTrue());
	if (strcmp(p->api, "chat") == 0) {
		so = mc_json_add(b, "stream_options", mc_json_new_obj());
		mc_json_add(so, "include_usage", cJSON_CreateTrue());
	}
}

cJSON *
mc_request_body(const struct mc_provider *p, const struct mc_request *r)
{
	cJSON *b = body_answer(p, r);

	add_stream(b, p, r);
	return b;
}

static void
field(SHA2_CTX *ctx, const char *s)
{
	uint8_t n[8];
	uint64_t len = s != NULL ? strlen(s) : 0;
	int i;

	for (i = 7; i >= 0; i--, len >>= 8)
		n[i] = (uint8_t)(len & 0xff);
	SHA256Update(ctx, n, sizeof n);
	if (s != NULL)
		SHA256Update(ctx, (const uint8_t *)s, strlen(s));
}

void
mc_request_cache_key(const char *provider, const char *url, const cJSON *body, char hex[65])
{
	SHA2_CTX ctx;
	char *b;

	b = mc_json_compact(body, NULL);
	SHA256Init(&ctx);
	field(&ctx, "mc-request cache key 2");
	field(&ctx, provider);
	field(&ctx, url);
	field(&ctx, b);
	SHA256End(&ctx, hex);
	free(b);
}

cJSON *
mc_request_envelope(const struct mc_provider *p, const struct mc_request *r)
{
	cJSON *e = mc_json_new_obj(), *body = body_answer(p, r);
	char key[65], *url;
	size_t n;

	n = strlen(p->base_url) + sizeof "/chat/completions";
	if ((url = malloc(n)) == NULL)
		mc_oom();
	snprintf(url, n, "%s/%s", p->base_url,
	    strcmp(p->api, "chat") == 0 ? "chat/completions" : "responses");
	/* The same answer whether it is streamed or not. */
	mc_request_cache_key(p->name, url, body, key);
	add_stream(body, p, r);
	mc_json_add_num(e, "version", 1);
	mc_json_add_str(e, "provider", p->name);
	mc_json_add_str(e, "api", p->api);
	mc_json_add_str(e, "url", url);
	mc_json_add_str(e, "api_key_env", p->api_key_env);
	if (p->api_key_env != NULL && p->api_key_optional)
		mc_json_add(e, "api_key_optional", cJSON_CreateTrue());
	/* Where mc-send finds the key, never the key itself. */
	if (p->api_key_cmd != NULL)
		mc_json_add_str(e, "api_key_cmd", p->api_key_cmd);
	if (p->api_key_file != NULL)
		mc_json_add_str(e, "api_key_file", p->api_key_file);
	mc_json_add_str(e, "cache_key", key);
	mc_json_add(e, "body", body);
	free(url);
	return e;
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
