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
 * of server a, or echo of server a__b; "my.srv" becomes my_srv).
 */
static cJSON *
served_list(const struct mcp *m)
{
	cJSON *list = cJSON_Duplicate(m->list, 1), *t;
	size_t i = 0;

	if (list == NULL)
		mc_oom();
	cJSON_ArrayForEach(t, list)
		mc_json_add_str(t, "server", m->refs[i++].sv->name);
	return list;
}

/* Answer one line of stdin. Returns 0, or -1 when serving must end
 * (status in *status). */
static int
serve_line(struct mcp *m, char *line, size_t len, int *status)
{
	const struct toolref *ref;
	const char *call_id, *name;
	char err[256], *out = NULL;
	cJSON *item, *args;
	int rc = 0;

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
	if (mc_item_call_check(item, err, sizeof err) == -1) {
		mc_err("stdin: %s", err);
		if (asprintf(&out, "error: mc-mcp could not read this call: %s", err) == -1)
			mc_oom();
	} else if (mc_json_nul_escape(line, len) != NULL)
		out = mc_strdup("error: this call holds a NUL character (\\u0000); no argument may contain one");
	else if ((ref = mcp_find_tool(m, name)) == NULL)
		out = mcp_unknown(m, name);
	else if ((args = mcp_call_args(item, &out)) == NULL)
		;
	else if (revive(m, ref->sv, &out) == -1)
		cJSON_Delete(args);
	else if (mcp_run_call(m, ref->sv, ref->tool, args, &out) == -1)
		out = mc_strdup(mcp_got_stop ? "error: cancelled: mc-mcp was told to stop" :
		    "error: cancelled by the user");
	/* A Ctrl-C is for the call it came during. */
	mcp_got_int = 0;
	if (mcp_write_output(call_id, out) == -1) {
		if (errno != EPIPE) {
			mc_err("stdout: %s", strerror(errno));
			*status = MC_EXIT_FAIL;
		}
		rc = -1;
	}
	free(out);
	cJSON_Delete(item);
	return rc;
}

int
mcp_serve(struct mcp *m)
{
	struct mc_buf in = {0};
	int status = MC_EXIT_OK, eof = 0, r;
	char buf[65536], *nl;
	cJSON *list;
	size_t off, from;
	ssize_t k;

	if (start_all(m) == -1)
		goto done;
	mcp_build_list(m);
	list = served_list(m);
	r = mc_json_write(stdout, list, 0);
	cJSON_Delete(list);
	if (r == -1 || fflush(stdout) == EOF)
		goto done;
	while (!eof && !mcp_got_stop) {
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
