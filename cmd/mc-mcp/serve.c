/* serve.c: mc-mcp serve, the driver's session: the tools as one line, then one output line for each function_call line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "items.h"
#include "json.h"
#include "mcp.h"

/* Start every server and wait until each is ready or has failed (and
 * said why). SIGINT
 * gives up on those still starting. Returns -1 on SIGTERM or SIGHUP. */
static int
start_all(struct mcp *m)
{
	size_t i;
	int busy;

	for (i = 0; i < m->n; i++) {
		m->sv[i].want_tools = 1;
		mcp_start(m, &m->sv[i]);
	}
	for (;;) {
		if (mcp_got_stop)
			return -1;
		for (i = 0, busy = 0; i < m->n; i++) {
			if (mcp_got_int && mcp_busy(&m->sv[i])) {
				mcp_stop(&m->sv[i], 0);
				mcp_fail(&m->sv[i], 0, "start-up interrupted");
			}
			/* A failure that waits for the exit status is said
			 * before the list: the driver shows it before its prompt. */
			busy |= mcp_busy(&m->sv[i]) ||
			    (m->sv[i].st == SV_STOPPING && m->sv[i].said_status);
		}
		mcp_got_int = 0;
		if (!busy)
			return 0;
		mcp_pump(m, -1, -1);
	}
}

/* A server that stopped is started again, once in a session. Returns 0
 * when sv is ready, else -1 with *out the output saying why not. */
static int
revive(struct mcp *m, struct server *sv, char **out)
{
	if (sv->st == SV_READY)
		return 0;
	if (sv->restarts > 0) {
		if (asprintf(out, "error: the MCP server \"%s\" is not running: it stopped again after "
		    "it was restarted (%s)", sv->name, sv->why ? sv->why : "") == -1)
			mc_oom();
		return -1;
	}
	mc_err("server \"%s\": starting it again for this call", sv->name);
	sv->restarts++;
	sv->want_tools = 0;
	if (mcp_start(m, sv) == 0)
		while (mcp_busy(sv)) {
			if (mcp_got_int || mcp_got_stop) {
				mcp_stop(sv, 0);
				mcp_fail(sv, 0, "restart interrupted");
				break;
			}
			mcp_pump(m, -1, -1);
		}
	while (sv->st == SV_STOPPING)
		mcp_pump(m, -1, -1);
	if (sv->st == SV_READY)
		return 0;
	*out = mcp_failed_output(sv);
	return -1;
}

/*
 * The tool list for the driver: each tool with "server", the name its
 * server has in the settings, which the driver's approval goes by; a
 * tool's name does not always tell it ("a__b__echo" may be tool b__echo
 * of server a, or echo of server a__b; "my.srv" becomes my_srv); and
 * "read_only" for a tool whose annotations say readOnlyHint, which plan
 * mode offers and before which the driver takes no checkpoint.
 */
static cJSON *
served_list(const struct mcp *m)
{
	cJSON *list = cJSON_Duplicate(m->list, 1), *t;
	size_t i = 0;

	if (list == NULL)
		mc_oom();
	cJSON_ArrayForEach(t, list) {
		mc_json_add_str(t, "server", m->refs[i].sv->name);
		if (m->refs[i++].read_only)
			mc_json_add(t, "read_only", cJSON_CreateTrue());
	}
	for (i = 0; i < m->n; i++)
		if (m->sv[i].ok)
			mcp_extras(&m->sv[i], list);
	return list;
}

/* Write the tool list as one line. -1 when stdout failed. */
static int
offer(struct mcp *m)
{
	cJSON *list;
	int r;

	mcp_build_list(m);
	list = served_list(m);
	r = mc_json_write(stdout, list, 0);
	cJSON_Delete(list);
	return r == -1 || fflush(stdout) == EOF ? -1 : 0;
}

/* Servers whose tools changed (notifications/tools/list_changed) and
 * that are free are asked again; once they (and any asked before)
 * answered, the new list goes out, before the next output, so the driver
 * offers it at the next step. -1 when stdout failed. */
static int
refresh(struct mcp *m)
{
	size_t i;
	int asked = 0, busy;

	for (i = 0; i < m->n; i++) {
		if (m->sv[i].list_changed && m->sv[i].st == SV_READY)
			mcp_relist(&m->sv[i]);
		asked |= m->sv[i].st == SV_LIST || m->sv[i].relisted;
	}
	if (!asked)
		return 0;
	for (;;) {
		for (i = 0, busy = 0; i < m->n; i++)
			busy |= m->sv[i].st == SV_LIST;
		if (!busy || mcp_got_stop || mcp_got_int)
			break;
		mcp_pump(m, -1, -1);
	}
	/* Offered even when a server failed while it was asked: the list
	 * (and the tools its names point into) is rebuilt either way. */
	for (i = 0; i < m->n; i++)
		m->sv[i].relisted = 0;
	return offer(m);
}

/* The server that a name ("SERVER" of mcp://SERVER/... or SERVER:NAME)
 * of len bytes names; NULL (said in *out) when none is running. */
static struct server *
named(struct mcp *m, const char *name, size_t len, char **out)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strlen(m->sv[i].name) == len && memcmp(m->sv[i].name, name, len) == 0) {
			if (m->sv[i].ok)
				return &m->sv[i];
			break;
		}
	if (asprintf(out, "error: no MCP server \"%.*s\" is running%s", (int)len, name,
	    i < m->n ? " (it failed to start)" : "") == -1)
		mc_oom();
	return NULL;
}

/* read of mcp://SERVER/URI: resources/read of URI on SERVER. */
static int
read_resource(struct mcp *m, const char *path, char **out)
{
	const char *p = path + 6, *slash = strchr(p, '/');
	struct server *sv;
	cJSON *params;

	if (slash == NULL || slash[1] == '\0') {
		*out = mc_strdup("error: an MCP resource is read as mcp://SERVER/URI, its URI after "
		    "the server's name and a slash");
		return 0;
	}
	if ((sv = named(m, p, (size_t)(slash - p), out)) == NULL || revive(m, sv, out) == -1)
		return 0;
	params = mc_json_new_obj();
	mc_json_add_str(params, "uri", slash + 1);
	return mcp_run_ask(m, sv, "resources/read", params, out);
}

/* {"type":"prompt","name":"SERVER:NAME","arguments":"TEXT"}: prompts/get,
 * the words of TEXT given to the prompt's arguments in order, the last
 * one taking the rest. */
static int
get_prompt(struct mcp *m, const cJSON *item, char **out)
{
	const char *name = mc_json_str(item, "name"), *text = mc_json_str(item, "arguments");
	const char *colon = name ? strchr(name, ':') : NULL, *pname, *an;
	const cJSON *p, *a, *list;
	struct server *sv;
	cJSON *params, *args;
	size_t k, n, i = 0;

	if (colon == NULL) {
		*out = mc_strdup("error: a prompt is named SERVER:NAME");
		return 0;
	}
	if ((sv = named(m, name, (size_t)(colon - name), out)) == NULL || revive(m, sv, out) == -1)
		return 0;
	pname = colon + 1;
	cJSON_ArrayForEach(p, sv->prompts)
		if (mc_json_str(p, "name") && strcmp(mc_json_str(p, "name"), pname) == 0)
			break;
	if (p == NULL) {
		if (asprintf(out, "error: the MCP server \"%s\" has no prompt \"%s\"", sv->name,
		    pname) == -1)
			mc_oom();
		return 0;
	}
	list = mc_json_arr(p, "arguments");
	n = (size_t)cJSON_GetArraySize(list);
	args = mc_json_new_obj();
	text = text ? text : "";
	cJSON_ArrayForEach(a, list) {
		text += strspn(text, " \t");
		if (*text == '\0' || (an = mc_json_str(a, "name")) == NULL)
			break;
		k = ++i == n ? strlen(text) : strcspn(text, " \t");
		while (k > 0 && strchr(" \t\n", text[k - 1]))
			k--;
		mc_json_add_owned(args, an, mc_strndup(text, k));
		text += k;
	}
	params = mc_json_new_obj();
	mc_json_add_str(params, "name", pname);
	mc_json_add(params, "arguments", args);
	return mcp_run_ask(m, sv, "prompts/get", params, out);
}

/* A read call of an mcp:// path: its path, else NULL. */
static char *
resource_path(const cJSON *item)
{
	const char *args = mc_json_str(item, "arguments"), *path;
	char *s = NULL;
	cJSON *a;

	if (strcmp(mc_json_str(item, "name") ? mc_json_str(item, "name") : "", "read") != 0 ||
	    args == NULL)
		return NULL;
	a = mc_json_parse(args, strlen(args), NULL, 0);
	if ((path = mc_json_str(a, "path")) != NULL && strncmp(path, "mcp://", 6) == 0)
		s = mc_strdup(path);
	cJSON_Delete(a);
	return s;
}

/* Answer one line of stdin. Returns 0, or -1 when serving must end
 * (status in *status). */
static int
serve_line(struct mcp *m, char *line, size_t len, int *status)
{
	const struct toolref *ref;
	const char *call_id, *name;
	char err[256], *out = NULL, *path = NULL;
	cJSON *item, *args, *images = NULL;
	int rc = 0, intr = 0;

	if (line[strspn(line, " \t\r")] == '\0')
		return 0;
	if ((item = mc_json_parse(line, len, err, sizeof err)) == NULL ||
	    (call_id = mc_json_str(item, "call_id")) == NULL || *call_id == '\0') {
		/* Without a call_id there is nothing to answer: the driver
		 * and we are no longer in step. */
		mc_err("stdin: %s", item ? "a line without a call_id: expected a function_call item" : err);
		cJSON_Delete(item);
		*status = MC_EXIT_FAIL;
		return -1;
	}
	name = mc_json_str(item, "name");
	if (strcmp(mc_json_str(item, "type") ? mc_json_str(item, "type") : "", "prompt") == 0)
		intr = get_prompt(m, item, &out) == -1;
	else if (strcmp(mc_json_str(item, "type") ? mc_json_str(item, "type") : "", "sync") == 0)
		out = mc_strdup("");	/* the driver's step begins: a changed list first */
	else if (mc_item_call_check(item, err, sizeof err) == -1) {
		mc_err("stdin: %s", err);
		if (asprintf(&out, "error: mc-mcp could not read this call: %s", err) == -1)
			mc_oom();
	} else if (mc_json_nul_escape(line, len) != NULL)
		out = mc_strdup("error: this call holds a NUL character (\\u0000); no argument may contain one");
	else if ((path = resource_path(item)) != NULL)
		intr = read_resource(m, path, &out) == -1;
	else if ((ref = mcp_find_tool(m, name)) == NULL)
		out = mcp_unknown(m, name);
	else if ((args = mcp_call_args(item, &out)) == NULL)
		;
	else if (revive(m, ref->sv, &out) == -1)
		cJSON_Delete(args);
	else if (mcp_run_call(m, ref->sv, ref->tool, args, ref->task, &out, &images) == -1)
		intr = 1;
	if (intr)
		out = mc_strdup(mcp_got_stop ? "error: cancelled: mc-mcp was told to stop" :
		    "error: cancelled by the user");
	free(path);
	if (refresh(m) == -1)
		rc = -1;
	/* A Ctrl-C is for the call it came during. */
	mcp_got_int = 0;
	if (mcp_write_output(call_id, out, images) == -1) {
		if (errno != EPIPE) {
			mc_err("stdout: %s", strerror(errno));
			*status = MC_EXIT_FAIL;
		}
		rc = -1;
	}
	cJSON_Delete(images);
	free(out);
	cJSON_Delete(item);
	return rc;
}

int
mcp_serve(struct mcp *m)
{
	struct mc_buf in = {0};
	int status = MC_EXIT_OK, eof = 0;
	char buf[65536], *nl;
	size_t off, from;
	ssize_t k;

	if (start_all(m) == -1)
		goto done;
	m->progress_lines = 1;
	if (offer(m) == -1)
		goto done;
	while (!eof && !mcp_got_stop) {
		if (refresh(m) == -1)
			break;
		if (!mcp_pump(m, 0, -1)) {
			/* A SIGINT with no call waiting on stdin is late. */
			mcp_got_int = 0;
			continue;
		}
		if ((k = read(0, buf, sizeof buf)) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			mc_err("stdin: %s", strerror(errno));
			status = MC_EXIT_FAIL;
			break;
		}
		from = in.len;
		mc_buf_add(&in, buf, (size_t)k);
		/* The last line needs no newline. */
		if (k == 0 && in.len > 0 && in.data[in.len - 1] != '\n')
			mc_buf_addc(&in, '\n');
		eof = k == 0;
		if (in.len == 0)
			continue;
		for (off = 0; !mcp_got_stop && (nl = memchr(in.data + from, '\n', in.len - from)) != NULL;
		    off = from = (size_t)(nl - in.data) + 1) {
			*nl = '\0';
			if (serve_line(m, in.data + off, (size_t)(nl - in.data) - off, &status) == -1) {
				eof = 1;
				break;
			}
		}
		memmove(in.data, in.data + off, in.len - off);
		in.len -= off;
		if (in.len > MCP_LINE_MAX) {
			mc_err("stdin: a line over the %u-byte limit", MCP_LINE_MAX);
			status = MC_EXIT_FAIL;
			break;
		}
	}
done:
	mc_buf_free(&in);
	mcp_stop_all(m);
	return status;
}
