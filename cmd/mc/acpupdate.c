/*
 * acpupdate.c: mc acp: what the turn path does, told to the client as
 * session/update notifications: the events mc --json writes (events.c)
 * mapped one by one, the approval question as session/request_permission,
 * a loaded session's history replayed, the mode and the commands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acp.h"
#include "clip.h"
#include "diag.h"
#include "fsread.h"
#include "items.h"
#include "json.h"
#include "mc.h"

#define TITLE_SHOWN 120		/* bytes of a command or pattern in a title */

/* A session/update of the session in use. */
void
acp_update(struct acp *a, cJSON *update)
{
	cJSON *p = mc_json_new_obj();

	mc_json_add_str(p, "sessionId", a->current);
	mc_json_add(p, "update", update);
	acp_notify(a, "session/update", p);
}

static cJSON *
update_new(const char *kind)
{
	cJSON *u = mc_json_new_obj();

	mc_json_add_str(u, "sessionUpdate", kind);
	return u;
}

/* {type:"text", text} */
static cJSON *
text_block(const char *text)
{
	cJSON *b = mc_json_new_obj();

	mc_json_add_str(b, "type", "text");
	mc_json_add_str(b, "text", text);
	return b;
}

/* A message chunk (kind user_message_chunk, agent_message_chunk or
 * agent_thought_chunk). */
static void
chunk(struct acp *a, const char *kind, const char *text)
{
	cJSON *u = update_new(kind);

	mc_json_add(u, "content", text_block(text));
	acp_update(a, u);
}

/* What kind of tool the client is told a tool is. */
static const char *
kind_of(const char *name)
{
	static const struct { const char *name, *kind; } kinds[] = {
		{ "read", "read" }, { "write", "edit" }, { "edit", "edit" },
		{ "bash", "execute" }, { "grep", "search" }, { "find", "search" },
		{ "tool_search", "search" }, { "fetch", "fetch" }, { "web_fetch", "fetch" },
	};
	size_t i;

	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(name, kinds[i].name) == 0)
			return kinds[i].kind;
	return "other";
}

/* The arguments of a call as JSON (an empty object when they are not). */
static cJSON *
args_of(const char *arguments)
{
	char err[64];
	cJSON *v = mc_json_parse(arguments ? arguments : "", arguments ? strlen(arguments) : 0,
	    err, sizeof err);

	if (!cJSON_IsObject(v)) {
		cJSON_Delete(v);
		v = mc_json_new_obj();
	}
	return v;
}

/* A path of the call's as the client wants it: absolute. */
static char *
abs_path(const struct acp *a, const char *path)
{
	return path[0] == '/' ? mc_strdup(path) : mc_path_join(a->d->c.cwd, path);
}

/* "read src/x.c", "bash: make check", "grep TODO": one line, cut. */
static char *
title_of_call(const char *name, const cJSON *args)
{
	static const char *const keys[] = { "path", "command", "pattern", "glob", "query", NULL };
	const char *v = NULL;
	char *t, *nl;
	int i;

	for (i = 0; keys[i] && v == NULL; i++)
		v = mc_json_str(args, keys[i]);
	if (v == NULL)
		return mc_strdup(name);
	if (asprintf(&t, "%s%s %.*s", name, strcmp(name, "bash") == 0 ? ":" : "", TITLE_SHOWN,
	    v) == -1)
		mc_oom();
	if ((nl = strchr(t, '\n')) != NULL)
		strcpy(nl, " ...");
	return t;
}

/* A diff of a write or edit: {type:"diff", path, oldText, newText}; the
 * edit's strings as they are, a write's old text the file's now (invalid
 * UTF-8 as U+FFFD: JSON text is UTF-8). */
static cJSON *
diff_of(const struct acp *a, const char *name, const cJSON *args)
{
	const char *path = mc_json_str(args, "path");
	struct mc_read r = {0};
	struct mc_buf b = {0};
	cJSON *df;
	char *full;

	if (path == NULL || (strcmp(name, "write") != 0 && strcmp(name, "edit") != 0))
		return NULL;
	full = abs_path(a, path);
	df = mc_json_new_obj();
	mc_json_add_str(df, "type", "diff");
	mc_json_add_str(df, "path", full);
	if (strcmp(name, "edit") == 0) {
		mc_json_add_str(df, "oldText", mc_json_str(args, "old_string"));
		mc_json_add_str(df, "newText", mc_json_str(args, "new_string"));
	} else {
		mc_file_read(full, 1u << 20, MC_LINK_FOLLOW, NULL, 0, &r);
		if (r.status == MC_READ_OK && memchr(r.data, '\0', r.len) == NULL) {
			mc_clip_repair(&b, r.data, r.len);
			mc_json_add_owned(df, "oldText", mc_buf_steal(&b));
		} else
			mc_json_add(df, "oldText", cJSON_CreateNull());
		free(r.data);
		mc_json_add_str(df, "newText", mc_json_str(args, "content"));
	}
	free(full);
	return df;
}

/* The call's place: the path it names (and the line a read starts at). */
static cJSON *
locations_of(const struct acp *a, const cJSON *args)
{
	const cJSON *off = cJSON_GetObjectItemCaseSensitive(args, "offset");
	const char *path = mc_json_str(args, "path");
	cJSON *v = mc_json_new_arr(), *l;

	if (path == NULL || strncmp(path, "mcp://", 6) == 0 || strncmp(path, "skill://", 8) == 0)
		return v;
	l = mc_json_new_obj();
	mc_json_add_owned(l, "path", abs_path(a, path));
	if (cJSON_IsNumber(off))
		mc_json_add_num(l, "line", off->valuedouble);
	mc_json_push(v, l);
	return v;
}

/* The fields a tool call is told with, into u: title, kind, status,
 * locations, rawInput, and (with diff) a write or edit's diff. */
static void
call_fields(const struct acp *a, cJSON *u, const char *cid, const char *name,
    const char *arguments, const char *status, int diff)
{
	cJSON *args = args_of(arguments), *df, *content = mc_json_new_arr();

	mc_json_add_str(u, "toolCallId", cid);
	mc_json_add_owned(u, "title", title_of_call(name, args));
	mc_json_add_str(u, "kind", kind_of(name));
	mc_json_add_str(u, "status", status);
	mc_json_add(u, "locations", locations_of(a, args));
	if (diff && (df = diff_of(a, name, args)) != NULL)
		mc_json_push(content, df);
	mc_json_add(u, "content", content);
	mc_json_add(u, "rawInput", args);
}

/* A call's output: failed when mc (or the tool) says so first. */
static int
failed(const char *output)
{
	return strncmp(output, "error:", 6) == 0 || strncmp(output, "refused:", 8) == 0;
}

/* tool_call_update for a call's output: completed or failed; the diff
 * of a write or edit that went through (kept from when it was told),
 * else the output as text. */
static void
call_done(struct acp *a, const char *cid, const cJSON *kept, const char *output)
{
	cJSON *u = update_new("tool_call_update"), *content = mc_json_new_arr(), *c, *raw;
	const cJSON *df = mc_json_obj(kept, "diff");
	int bad = failed(output);

	mc_json_add_str(u, "toolCallId", cid);
	mc_json_add_str(u, "status", bad ? "failed" : "completed");
	if (!bad && df != NULL)
		mc_json_push(content, cJSON_Duplicate(df, 1));
	else {
		c = mc_json_new_obj();
		mc_json_add_str(c, "type", "content");
		mc_json_add(c, "content", text_block(output));
		mc_json_push(content, c);
	}
	mc_json_add(u, "content", content);
	raw = mc_json_new_obj();
	mc_json_add_str(raw, "output", output);
	mc_json_add(u, "rawOutput", raw);
	acp_update(a, u);
}

/* The call a tool_call event tells (or a loaded session holds: then
 * without the diff, the file being as it is now, not as it was), told to
 * the client, and kept for its output. */
static void
call_told(struct acp *a, const char *cid, const char *name, const char *arguments, int live)
{
	cJSON *u = update_new("tool_call"), *k, *df;

	call_fields(a, u, cid, name, arguments, "pending", live);
	k = mc_json_new_obj();
	mc_json_add_str(k, "name", name);
	df = cJSON_GetArrayItem(mc_json_arr(u, "content"), 0);
	if (df != NULL)
		mc_json_add(k, "diff", cJSON_Duplicate(df, 1));
	acp_update(a, u);
	cJSON_DeleteItemFromObjectCaseSensitive(a->calls, cid);
	mc_json_add(a->calls, cid, k);
}

/*
 * events.c's front end: each event of the turn, as mc --json would write
 * it, becomes its session/update (taken). An error (the turn's, or one
 * the driver said: mc_diag_hook) is kept for the prompt's answer; usage,
 * compaction and subagent events tell the client nothing it has a place
 * for.
 */
void
acp_event(struct driver *d, cJSON *ev)
{
	struct acp *a = d->front->arg;
	const char *type = mc_json_str(ev, "type"), *delta = mc_json_str(ev, "delta");
	const char *cid = mc_json_str(ev, "call_id"), *name = mc_json_str(ev, "name");
	cJSON *u;

	if (type == NULL)
		type = "";
	if ((strcmp(type, "text") == 0 || strcmp(type, "refusal") == 0) && delta != NULL) {
		chunk(a, "agent_message_chunk", delta);
		if (a->said.len < (1u << 20))
			mc_buf_adds(&a->said, delta);
	}
	else if (strcmp(type, "reasoning") == 0 && delta != NULL)
		chunk(a, "agent_thought_chunk", delta);
	else if (strcmp(type, "tool_call") == 0 && cid != NULL && name != NULL)
		call_told(a, cid, name, mc_json_str(ev, "arguments"), 1);
	else if (strcmp(type, "approval") == 0 && cid != NULL &&
	    strcmp(mc_json_str(ev, "decision") ? mc_json_str(ev, "decision") : "", "allowed") == 0) {
		u = update_new("tool_call_update");
		mc_json_add_str(u, "toolCallId", cid);
		mc_json_add_str(u, "status", "in_progress");
		acp_update(a, u);
	} else if (strcmp(type, "tool_output") == 0 && cid != NULL) {
		call_done(a, cid, mc_json_obj(a->calls, cid),
		    mc_json_str(ev, "output") ? mc_json_str(ev, "output") : "");
	} else if (strcmp(type, "error") == 0 && mc_json_str(ev, "message") != NULL &&
	    pthread_equal(pthread_self(), a->main)) {	/* not the reader's own */
		free(a->last_error);
		a->last_error = mc_strdup(mc_json_str(ev, "message"));
	}
	cJSON_Delete(ev);
}

/* A permission option {optionId, name, kind}. */
static void
option(cJSON *opts, const char *id, const char *name, const char *kind)
{
	cJSON *o = mc_json_new_obj();

	mc_json_add_str(o, "optionId", id);
	mc_json_add_str(o, "name", name);
	mc_json_add_str(o, "kind", kind);
	mc_json_push(opts, o);
}

/*
 * approve.c's front end: session/request_permission for the call, with
 * the options allow_once, allow_always (for the tool; for the command's
 * prefixes too where there are some), reject_once and reject_always.
 * The answer as approve.c's ask gives it; a request cancelled with the
 * turn is -1, one the client cancelled by itself a refusal.
 */
int
acp_asks(struct driver *d, const char *name, const cJSON *call, char **pre, size_t npre)
{
	struct acp *a = d->front->arg;
	cJSON *p = mc_json_new_obj(), *tc = mc_json_new_obj(), *opts = mc_json_new_arr(), *res;
	const char *cid = mc_json_str(call, "call_id"), *outcome, *id;
	struct mc_buf b = {0};
	char err[256];
	size_t i;
	int cancelled, r = 0;

	call_fields(a, tc, cid ? cid : "", name, mc_json_str(call, "arguments"), "pending", 1);
	mc_json_add_str(p, "sessionId", a->current);
	mc_json_add(p, "toolCall", tc);
	option(opts, "allow_once", "Allow", "allow_once");
	if (npre > 0) {
		mc_buf_adds(&b, "Always allow ");
		for (i = 0; i < npre; i++)
			mc_buf_printf(&b, "%s`%s`", i ? ", " : "", pre[i]);
		option(opts, "allow_prefix", b.data, "allow_always");
		mc_buf_free(&b);
	}
	mc_buf_printf(&b, "Always allow %s this session", name);
	option(opts, "allow_always", b.data, "allow_always");
	b.len = 0;
	option(opts, "reject_once", "Reject", "reject_once");
	mc_buf_printf(&b, "Always reject %s this session", name);
	option(opts, "reject_always", b.data, "reject_always");
	mc_buf_free(&b);
	mc_json_add(p, "options", opts);
	if ((res = acp_request(a, "session/request_permission", p, &cancelled, err,
	    sizeof err)) == NULL) {
		if (!cancelled)
			mc_err("%s", err);
		return cancelled ? -1 : 0;
	}
	outcome = mc_json_str(mc_json_obj(res, "outcome"), "outcome");
	id = mc_json_str(mc_json_obj(res, "outcome"), "optionId");
	if (outcome != NULL && strcmp(outcome, "selected") == 0 && id != NULL)
		r = strcmp(id, "allow_once") == 0 ? 1 : strcmp(id, "allow_always") == 0 ? 2 :
		    strcmp(id, "allow_prefix") == 0 && npre > 0 ? 3 :
		    strcmp(id, "reject_always") == 0 ? 4 : 0;
	else if (outcome != NULL && strcmp(outcome, "cancelled") == 0 && interrupted)
		r = -1;
	cJSON_Delete(res);
	return r;
}

/* A user message of the session's that the user typed (not a guide, a
 * hook's context or plan mode's note). */
static int
typed(const cJSON *item)
{
	const char *c = mc_json_str(item, "content");

	return c != NULL && mc_json_str(item, "mode") == NULL &&
	    strncmp(c, "<Context File=", 14) != 0;
}

/* One item of the session, as the update it was. */
static void
replay_item(struct acp *a, const cJSON *item)
{
	const char *type = mc_json_str(item, "type"), *role = mc_json_str(item, "role");
	const char *cid = mc_json_str(item, "call_id"), *out, *name;

	if (type == NULL)
		return;
	if (strcmp(type, "message") == 0 && role != NULL && strcmp(role, "user") == 0 &&
	    typed(item))
		chunk(a, "user_message_chunk", mc_json_str(item, "content"));
	else if (strcmp(type, "message") == 0 && role != NULL && strcmp(role, "assistant") == 0) {
		/* the answer, and a refusal, as they were streamed */
		if (mc_json_str(item, "content") != NULL && *mc_json_str(item, "content") != '\0')
			chunk(a, "agent_message_chunk", mc_json_str(item, "content"));
		if (mc_json_str(item, "refusal") != NULL)
			chunk(a, "agent_message_chunk", mc_json_str(item, "refusal"));
	}
	else if (strcmp(type, "reasoning") == 0 && mc_json_str(item, "text") != NULL &&
	    *mc_json_str(item, "text") != '\0')
		chunk(a, "agent_thought_chunk", mc_json_str(item, "text"));
	else if (strcmp(type, "function_call") == 0 && cid != NULL &&
	    (name = mc_json_str(item, "name")) != NULL)
		call_told(a, cid, name, mc_json_str(item, "arguments"), 0);
	else if (strcmp(type, "function_call_output") == 0 && cid != NULL &&
	    (out = mc_json_str(item, "output")) != NULL)
		call_done(a, cid, mc_json_obj(a->calls, cid), out);
}

/* session/load: the history of the session just resumed, as updates. */
void
acp_replay(struct acp *a)
{
	const char *data = a->d->s.file.lines.data, *end = data + a->d->s.file.lines.len, *p, *nl;
	char err[64];
	cJSON *item;

	for (p = data; p != NULL && p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
		if ((item = mc_json_parse(p, (size_t)(nl - p), err, sizeof err)) == NULL)
			continue;
		replay_item(a, item);
		cJSON_Delete(item);
	}
	cJSON_Delete(a->calls);
	a->calls = mc_json_new_obj();
}

/* current_mode_update: the session's mode. */
void
acp_mode_update(struct acp *a)
{
	cJSON *u = update_new("current_mode_update");

	mc_json_add_str(u, "currentModeId", mode_name(a->d->mode.now));
	acp_update(a, u);
}

/* The item a line of a list is: after "- ", "* ", "+ ", "1. " or "1) ",
 * its length in *n; NULL when the line is not one. */
static const char *
list_item(const char *line, size_t len, size_t *n)
{
	const char *p = line, *end = line + len;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && strchr("-*+", *p) != NULL)
		p++;
	else {
		if (p == end || *p < '0' || *p > '9')
			return NULL;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p == end || (*p != '.' && *p != ')'))
			return NULL;
		p++;
	}
	if (p == end || (*p != ' ' && *p != '\t'))
		return NULL;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*n = (size_t)(end - p);
	return *n > 0 ? p : NULL;
}

/* plan: plan mode's answer is the plan (SPEC 22); its list items, each
 * an entry, pending; nothing when it has none. */
void
acp_plan_update(struct acp *a)
{
	const char *p = a->said.data, *end = p + a->said.len, *nl, *item;
	cJSON *u, *list = mc_json_new_arr(), *e;
	size_t n;

	for (; p != NULL && p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((item = list_item(p, (size_t)(nl - p), &n)) == NULL)
			continue;
		e = mc_json_new_obj();
		mc_json_add_owned(e, "content", mc_strndup(item, n));
		mc_json_add_str(e, "priority", "medium");
		mc_json_add_str(e, "status", "pending");
		mc_json_push(list, e);
	}
	if (cJSON_GetArraySize(list) == 0) {
		cJSON_Delete(list);
		return;
	}
	u = update_new("plan");
	mc_json_add(u, "entries", list);
	acp_update(a, u);
}

/* A command {name, description, input?}. */
static void
command(cJSON *list, const char *name, const char *desc, const char *hint)
{
	cJSON *c = mc_json_new_obj(), *in;

	mc_json_add_str(c, "name", name);
	mc_json_add_str(c, "description", desc);
	if (hint != NULL) {
		in = mc_json_new_obj();
		mc_json_add_str(in, "hint", hint);
		mc_json_add(c, "input", in);
	}
	mc_json_push(list, c);
}

/* available_commands_update: what a prompt of /NAME ARGS runs here (acp.c):
 * /compact, /go, and the custom commands (commands.c). */
void
acp_commands_update(struct acp *a)
{
	cJSON *u = update_new("available_commands_update"), *list = mc_json_new_arr(), *mine, *e;
	const char *desc;

	command(list, "compact", "summarize the older conversation", "what matters most");
	command(list, "go", "leave plan mode and carry the plan out", "more to say");
	mine = commands_list(a->d);
	cJSON_ArrayForEach(e, mine) {
		if (mc_json_str(e, "error") != NULL || mc_json_str(e, "name") == NULL)
			continue;
		desc = mc_json_str(e, "description");
		command(list, mc_json_str(e, "name"), desc ? desc : "a custom command",
		    mc_json_str(e, "argument-hint"));
	}
	cJSON_Delete(mine);
	mc_json_add(u, "availableCommands", list);
	acp_update(a, u);
}
