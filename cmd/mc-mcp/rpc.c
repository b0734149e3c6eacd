/* rpc.c: JSON-RPC 2.0 with one server: initialize, tools/list page by page, tools/call, and what the server asks of us. */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "diag.h"
#include "json.h"
#include "utf8.h"
#include "clock.h"
#include "mcp.h"

#define PAGES_MAX 1000		/* tools/list pages followed before giving up */

/* The versions whose initialize, tools/list and tools/call are the ones
 * spoken here; the first is the one asked for. */
static const char *const versions[] = { MCP_PROTOCOL, "2025-06-18", "2025-03-26", NULL };

/* The lists asked for once initialized, each when the server has its
 * capability; tools first. */
static const struct {
	const char *method, *key, *cap;
	size_t field;		/* where in struct server the array goes */
} lists[] = {
	{ "tools/list", "tools", "tools", offsetof(struct server, tools) },
	{ "resources/list", "resources", "resources", offsetof(struct server, resources) },
	{ "resources/templates/list", "resourceTemplates", "resources", offsetof(struct server, templates) },
	{ "prompts/list", "prompts", "prompts", offsetof(struct server, prompts) },
};
#define NLISTS (sizeof lists / sizeof lists[0])

static cJSON **
list_field(struct server *sv, int i)
{
	return (cJSON **)((char *)sv + lists[i].field);
}

static void
enqueue(struct server *sv, cJSON *msg)
{
	size_t len;
	char *s;

	s = mc_json_compact(msg, &len);
	/* Compact JSON escapes every newline: one message, one line. */
	if (sv->in >= 0 && !sv->closing) {
		mc_buf_add(&sv->wq, s, len);
		mc_buf_addc(&sv->wq, '\n');
	}
	free(s);
	cJSON_Delete(msg);
}

static cJSON *
envelope(void)
{
	cJSON *msg = mc_json_new_obj();

	mc_json_add_str(msg, "jsonrpc", "2.0");
	return msg;
}

void
mcp_send(struct server *sv, const char *method, cJSON *params)
{
	cJSON *msg = envelope();

	sv->id = ++sv->next_id;
	sv->method = method;
	sv->deadline = mc_clock_ms() + sv->timeout_s * 1000LL;
	mc_json_add_num(msg, "id", (double)sv->id);
	mc_json_add_str(msg, "method", method);
	if (params != NULL)
		mc_json_add(msg, "params", params);
	enqueue(sv, msg);
}

void
mcp_notify(struct server *sv, const char *method, cJSON *params)
{
	cJSON *msg = envelope();

	mc_json_add_str(msg, "method", method);
	if (params != NULL)
		mc_json_add(msg, "params", params);
	enqueue(sv, msg);
}

void
mcp_initialize(struct server *sv)
{
	cJSON *params = mc_json_new_obj(), *info = mc_json_new_obj();

	cJSON *caps = mc_json_new_obj(), *roots = mc_json_new_obj();

	mc_json_add_str(params, "protocolVersion", MCP_PROTOCOL);
	cJSON_AddFalseToObject(roots, "listChanged");
	mc_json_add(caps, "roots", roots);
	mc_json_add(params, "capabilities", caps);
	mc_json_add_str(info, "name", "mc");
	mc_json_add_str(info, "version", MC_VERSION);
	mc_json_add(params, "clientInfo", info);
	mcp_send(sv, "initialize", params);
	sv->st = SV_INIT;
}

static void
list_page(struct server *sv)
{
	cJSON *params = NULL;

	if (sv->cursor != NULL) {
		params = mc_json_new_obj();
		mc_json_add_str(params, "cursor", sv->cursor);
	}
	mcp_send(sv, lists[sv->listing].method, params);
	sv->st = SV_LIST;
}

/* Ask for list i from its first page; past the last, the server is ready. */
static void
list_from(struct server *sv, int i)
{
	for (; i < (int)NLISTS; i++)
		if (i == 0 || (!sv->tools_only && mc_json_obj(sv->caps, lists[i].cap) != NULL))
			break;
	if (i >= (int)NLISTS || (i > 0 && sv->tools_only)) {
		sv->ok = 1;
		if (sv->tools_only)
			sv->relisted = 1;
		sv->tools_only = 0;
		sv->st = SV_READY;
		return;
	}
	sv->listing = i;
	free(sv->cursor);
	sv->cursor = NULL;
	sv->pages = 0;
	cJSON_Delete(*list_field(sv, i));
	*list_field(sv, i) = mc_json_new_arr();
	list_page(sv);
}

void
mcp_relist(struct server *sv)
{
	sv->list_changed = 0;
	sv->tools_only = 1;
	list_from(sv, 0);
}

void
mcp_ask(struct server *sv, const char *method, cJSON *params)
{
	cJSON_Delete(sv->answer);
	sv->answer = NULL;
	sv->timed_out = 0;
	sv->as_task = 0;
	free(sv->task_id);
	sv->task_id = NULL;
	mcp_send(sv, method, params);
	sv->call_deadline = sv->deadline;
	sv->st = SV_CALL;
}

void
mcp_call(struct server *sv, const char *tool, cJSON *args, int as_task)
{
	cJSON *params = mc_json_new_obj(), *meta = mc_json_new_obj(), *task;
	char token[32];

	mc_json_add_str(params, "name", tool);
	mc_json_add(params, "arguments", args);
	/* Progress comes back under this token while the call runs. */
	snprintf(token, sizeof token, "mc-%ld", sv->next_id + 1);
	mc_json_add_str(meta, "progressToken", token);
	mc_json_add(params, "_meta", meta);
	if (as_task) {
		task = mc_json_new_obj();
		mc_json_add_num(task, "ttl", sv->timeout_s * 1000.0);
		mc_json_add(params, "task", task);
	}
	mcp_ask(sv, "tools/call", params);
	sv->as_task = as_task;
}

/* tasks/cancel of the task the call in flight waits for; its answer is
 * dropped. */
static void
cancel_task(struct server *sv)
{
	cJSON *msg = envelope(), *params = mc_json_new_obj();
	long id = ++sv->next_id;

	mc_json_add_num(msg, "id", (double)id);
	mc_json_add_str(msg, "method", "tasks/cancel");
	mc_json_add_str(params, "taskId", sv->task_id);
	mc_json_add(msg, "params", params);
	enqueue(sv, msg);
	sv->ignored[sv->nignored++ % MCP_IGNORED] = id;
	free(sv->task_id);
	sv->task_id = NULL;
}

void
mcp_cancel(struct server *sv, const char *reason)
{
	cJSON *params;

	if (sv->id == 0)
		return;
	if (sv->task_id != NULL)
		cancel_task(sv);
	params = mc_json_new_obj();
	mc_json_add_num(params, "requestId", (double)sv->id);
	mc_json_add_str(params, "reason", reason);
	mcp_notify(sv, "notifications/cancelled", params);
	sv->ignored[sv->nignored++ % MCP_IGNORED] = sv->id;
	sv->id = 0;
	sv->st = SV_READY;
}

/* "error CODE: MESSAGE" of a JSON-RPC error object, into buf. */
static const char *
error_text(const cJSON *error, char *buf, size_t bufsz)
{
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(error, "code");
	const char *msg = mc_json_str(error, "message");

	snprintf(buf, bufsz, "error %.0f: %s", cJSON_IsNumber(code) ? code->valuedouble : 0.0,
	    msg != NULL ? msg : "(no message)");
	return buf;
}

/* The working directory as a file: URI, bytes outside the unreserved
 * ones and '/' percent-encoded. */
static cJSON *
roots(void)
{
	static const char hex[] = "0123456789ABCDEF";
	cJSON *result = mc_json_new_obj(), *list = mc_json_new_arr(), *root;
	struct mc_buf uri = {0};
	const unsigned char *p;
	char *cwd = getcwd(NULL, 0);

	if (cwd != NULL) {
		mc_buf_adds(&uri, "file://");
		for (p = (const unsigned char *)cwd; *p; p++)
			if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			    strchr("/-._~", *p) != NULL)
				mc_buf_addc(&uri, (char)*p);
			else
				mc_buf_printf(&uri, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
		root = mc_json_new_obj();
		mc_json_add_owned(root, "uri", mc_buf_steal(&uri));
		mc_json_add_str(root, "name", strrchr(cwd, '/')[1] ? strrchr(cwd, '/') + 1 : cwd);
		mc_json_push(list, root);
	}
	free(cwd);
	mc_json_add(result, "roots", list);
	return result;
}

/* A request from the server: ping and roots/list are answered, anything
 * else refused. */
static void
answer_request(struct server *sv, const char *method, const cJSON *id)
{
	cJSON *msg = envelope(), *error;

	if ((id = cJSON_Duplicate(id, 1)) == NULL)
		mc_oom();
	mc_json_add(msg, "id", (cJSON *)id);
	if (strcmp(method, "ping") == 0)
		mc_json_add(msg, "result", mc_json_new_obj());
	else if (strcmp(method, "roots/list") == 0)
		mc_json_add(msg, "result", roots());
	else {
		error = mc_json_new_obj();
		mc_json_add_num(error, "code", -32601);
		mc_json_add_str(error, "message", "Method not found");
		mc_json_add(msg, "error", error);
	}
	enqueue(sv, msg);
}

static void
on_initialize(struct server *sv, const cJSON *result)
{
	const char *v = mc_json_str(result, "protocolVersion");
	size_t i;

	for (i = 0; v != NULL && versions[i] != NULL; i++)
		if (strcmp(v, versions[i]) == 0)
			break;
	if (v == NULL || versions[i] == NULL) {
		mcp_fail(sv, 0, "answered initialize with protocol version %s%s%s, not one of %s, %s, %s",
		    v ? "\"" : "", v ? v : "(none)", v ? "\"" : "", versions[0], versions[1], versions[2]);
		return;
	}
	mcp_notify(sv, "notifications/initialized", NULL);
	if (!sv->want_tools) {
		sv->st = SV_READY;
		return;
	}
	cJSON_Delete(sv->caps);
	if ((sv->caps = cJSON_Duplicate(mc_json_obj(result, "capabilities"), 1)) == NULL)
		sv->caps = mc_json_new_obj();
	sv->tools_only = 0;
	if (mc_json_obj(sv->caps, "tools") == NULL) {
		mc_warn("server \"%s\": offers no tools (no \"tools\" capability)", sv->name);
		cJSON_Delete(sv->tools);
		sv->tools = mc_json_new_arr();
		list_from(sv, 1);
		return;
	}
	list_from(sv, 0);
}

static void
on_list(struct server *sv, cJSON *result)
{
	cJSON *items = mc_json_arr(result, lists[sv->listing].key), *t;
	const char *next = mc_json_str(result, "nextCursor");

	if (items == NULL) {
		mcp_fail(sv, 0, "answered %s without a \"%s\" array", lists[sv->listing].method,
		    lists[sv->listing].key);
		return;
	}
	while ((t = items->child) != NULL)
		mc_json_push(*list_field(sv, sv->listing), cJSON_DetachItemViaPointer(items, t));
	free(sv->cursor);
	sv->cursor = NULL;
	if (next == NULL || *next == '\0') {
		list_from(sv, sv->listing + 1);
		return;
	}
	if (++sv->pages >= PAGES_MAX) {
		mcp_fail(sv, 0, "%s went on for more than %d pages", lists[sv->listing].method, PAGES_MAX);
		return;
	}
	sv->cursor = mc_strdup(next);
	list_page(sv);
}

/*
 * A task-only tool's call answered with its task: its result is asked for
 * (tasks/result waits until the task ends), within the call's own time.
 * True when that was so.
 */
static int
task_made(struct server *sv, const cJSON *result)
{
	const char *id = mc_json_str(mc_json_obj(result, "task"), "taskId");
	cJSON *params;

	if (id == NULL || cJSON_GetObjectItemCaseSensitive(result, "content") != NULL)
		return 0;
	params = mc_json_new_obj();
	mc_json_add_str(params, "taskId", id);
	sv->as_task = 0;
	free(sv->task_id);
	sv->task_id = mc_strdup(id);
	mcp_send(sv, "tasks/result", params);
	sv->deadline = sv->call_deadline;
	return 1;
}

static int
ignored(const struct server *sv, const cJSON *id)
{
	size_t i;

	for (i = 0; cJSON_IsNumber(id) && i < sv->nignored && i < MCP_IGNORED; i++)
		if (id->valuedouble == (double)sv->ignored[i])
			return 1;
	return 0;
}

/* A response to the request in flight. */
static void
on_response(struct server *sv, cJSON *msg)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	cJSON *result = cJSON_GetObjectItemCaseSensitive(msg, "result");
	cJSON *error = mc_json_obj(msg, "error");
	char buf[512], *s;

	if (sv->id == 0 || !cJSON_IsNumber(id) || id->valuedouble != (double)sv->id) {
		if (ignored(sv, id))
			return;
		s = cJSON_PrintUnformatted(id);
		mcp_fail(sv, 0, "sent an answer with id %.40s, not the id of the request in flight%s",
		    s ? s : "?", sv->id ? "" : " (none was)");
		free(s);
		return;
	}
	if (result == NULL && error == NULL) {
		mcp_fail(sv, 0, "answered %s with neither a result nor an error", sv->method);
		return;
	}
	sv->id = 0;
	if (error != NULL && sv->st == SV_LIST && sv->listing > 0) {
		/* Resources and prompts are extras: the tools still count. */
		mc_warn("server \"%s\": answered %s with %s", sv->name, lists[sv->listing].method,
		    error_text(error, buf, sizeof buf));
		list_from(sv, sv->listing + 1);
		return;
	}
	if (error != NULL && sv->st != SV_CALL) {
		mcp_fail(sv, 0, "answered %s with %s", sv->method, error_text(error, buf, sizeof buf));
		return;
	}
	if (sv->st != SV_CALL && !cJSON_IsObject(result)) {
		mcp_fail(sv, 0, "answered %s with a result that is not an object", sv->method);
		return;
	}
	switch (sv->st) {
	case SV_INIT:
		on_initialize(sv, result);
		break;
	case SV_LIST:
		on_list(sv, result);
		break;
	case SV_CALL:
		if (sv->as_task && task_made(sv, result))
			break;
		/* The answer is read by the caller, error or not. */
		sv->answer = cJSON_Duplicate(msg, 1);
		if (sv->answer == NULL)
			mc_oom();
		sv->st = SV_READY;
		break;
	default:
		break;
	}
}

/* Log levels (RFC 5424's, as MCP names them) from warning up. */
static int
loud(const char *level)
{
	static const char *const levels[] = { "warning", "error", "critical", "alert", "emergency", NULL };
	size_t i;

	for (i = 0; level != NULL && levels[i] != NULL; i++)
		if (strcmp(level, levels[i]) == 0)
			return 1;
	return 0;
}

/* A notification: a log message from warning up goes to stderr (even
 * with -q: the server thought it worth saying; one during a call is kept
 * for the caller), progress of the call in flight is kept for the
 * caller, a changed tool list noted. */
static void
notification(struct server *sv, const char *method, const cJSON *params)
{
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(params, "data");
	const char *level = mc_json_str(params, "level"), *logger = mc_json_str(params, "logger");
	char *s;

	if (strcmp(method, "notifications/message") == 0 && loud(level)) {
		s = cJSON_IsString(data) ? mc_strdup(data->valuestring) : mc_json_compact(data, NULL);
		/* During a call its caller says it, in order with the call's
		 * progress (serve: on the driver's status line's terms). */
		if (sv->st == SV_CALL)
			mc_buf_printf(&sv->logs, "%s: %s%s%s: %s%c", sv->name, level, logger ? " " : "",
			    logger ? logger : "", s, '\0');
		else
			mc_err("%s: %s%s%s: %s", sv->name, level, logger ? " " : "", logger ? logger : "", s);
		free(s);
	} else if (strcmp(method, "notifications/progress") == 0 && sv->st == SV_CALL) {
		cJSON_Delete(sv->progress);
		if ((sv->progress = cJSON_Duplicate(params, 1)) == NULL)
			mc_oom();
	} else if (strcmp(method, "notifications/tools/list_changed") == 0)
		sv->list_changed = 1;
}

void
mcp_message(struct server *sv, char *line, size_t len)
{
	struct mc_buf fixed = {0};
	char err[128], show[64];
	const char *method;
	cJSON *msg, *id;
	char *at;

	if (sv->st == SV_STOPPING || sv->st == SV_OFF)
		return;
	while (len > 0 && strchr(" \t\r", line[len - 1]) != NULL)
		len--;
	if (len == 0)
		return;
	/* Bytes that are not UTF-8 become U+FFFD, and so does the escape
	 * \u0000, which cJSON would cut a string at: same length, so in
	 * place. */
	if (!mc_utf8_valid(line, len)) {
		mc_clip_repair(&fixed, line, len);
		line = fixed.data;
		len = fixed.len;
	}
	while ((at = (char *)mc_json_nul_escape(line, len)) != NULL)
		memcpy(at, "\\ufffd", 6);
	if ((msg = mc_json_parse(line, len, err, sizeof err)) == NULL) {
		snprintf(show, sizeof show, "%.*s", (int)(len < 40 ? len : 40), line);
		mcp_fail(sv, 0, "sent a line that is not JSON-RPC (%s): \"%s%s\"", err, show,
		    len > 40 ? "..." : "");
		mc_buf_free(&fixed);
		return;
	}
	mc_buf_free(&fixed);
	method = mc_json_str(msg, "method");
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	if (!cJSON_IsObject(msg))
		mcp_fail(sv, 0, "sent a message that is not a JSON object");
	else if (method != NULL) {
		if (id != NULL && !cJSON_IsNull(id))
			answer_request(sv, method, id);
		else
			notification(sv, method, cJSON_GetObjectItemCaseSensitive(msg, "params"));
	} else if (id == NULL)
		mcp_fail(sv, 0, "sent a message with neither a method nor an id");
	else
		on_response(sv, msg);
	cJSON_Delete(msg);
}
