/* calls.c: one tool call: approved, run by mc-tool call or mc-mcp; the guides of the paths it touched. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "context.h"
#include "diag.h"
#include "fsread.h"
#include "items.h"
#include "json.h"
#include "mc.h"

#define TOOL_OUTPUT_CAP (4u << 20)	/* mc-tool's item: a 64 KiB output, escaped */
#define TOUCHED_CAP (1u << 20)

/* A call's output into the session (and, with --json, a tool_output event). */
static int
output_item(struct driver *d, const char *name, cJSON *item)
{
	cJSON *ev;

	if (d->c.json) {
		ev = ev_new("tool_output");
		mc_json_add_str(ev, "call_id", mc_json_str(item, "call_id"));
		mc_json_add_str(ev, "name", name ? name : "");
		mc_json_add_str(ev, "output", mc_json_str(item, "output") ?
		    mc_json_str(item, "output") : "");
		/* hooks.c: a post_tool hook failed after the tool ran */
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(item, "target_ran")) &&
		    cJSON_AddTrueToObject(ev, "target_ran") == NULL)
			mc_oom();
		ev_emit(d, ev);
	}
	return session_add(d, item);
}

/* An output for call written here: refused, interrupted, failed. */
int
call_output(struct driver *d, const cJSON *call, const char *output)
{
	const char *cid = mc_json_str(call, "call_id");

	return output_item(d, mc_json_str(call, "name"), mc_item_output(cid ? cid : "", output));
}

/* The output item of a call that ran: the post_tool hooks (hooks.c; exit 2
 * adds to it), then the session. */
static int
ran_item(struct driver *d, const cJSON *call, cJSON *item)
{
	hooks_post_tool(d, call, item);
	return output_item(d, mc_json_str(call, "name"), item);
}

int
call_ran(struct driver *d, const cJSON *call, const char *output)
{
	const char *cid = mc_json_str(call, "call_id");

	return ran_item(d, call, mc_item_output(cid ? cid : "", output));
}

/*
 * Run call through `mc-tool call`: its output item, or NULL. The paths
 * it touched come back through a pipe named to it as --touched-out
 * /dev/fd/N, and are added to touched; what a bash command prints comes
 * as it is printed through another, --progress-out, for the status line
 * (progress.c) on a terminal.
 */
static cJSON *
tool_call(struct driver *d, const cJSON *call, struct mc_buf *touched, int *st)
{
	char *argv[] = { "mc-tool", "-q", "call", "--touched-out", NULL, "--progress-out", NULL,
	    NULL }, path[24], ppath[24], err[256];
	const char *name = mc_json_str(call, "name");
	struct mc_buf out = {0}, in = {0};
	struct mc_feed back[2] = { { .wr = -1 }, { .wr = -1 } };
	struct progress pr;
	struct mc_filter f = { .collect = &out, .cap = TOOL_OUTPUT_CAP, .stop = &interrupted,
	    .feeds = back, .nfeeds = 2, .tick = progress_tick, .tick_ms = 200, .arg = &pr };
	int fds[2], pfds[2];
	cJSON *item = NULL;
	char *text;

	if (pipe2(fds, O_CLOEXEC) == -1) {
		mc_err("pipe: %s", strerror(errno));
		return NULL;
	}
	if (pipe2(pfds, O_CLOEXEC | O_NONBLOCK) == -1) {
		mc_err("pipe: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	/* Feeds with no data: only their descriptors, the write ends, go to
	 * mc-tool; the read ends stay here. */
	back[0].fd = fds[1];
	snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
	argv[4] = path;
	back[1].fd = pfds[1];
	snprintf(ppath, sizeof ppath, "/dev/fd/%d", pfds[1]);
	argv[6] = ppath;
	progress_begin(&pr, d, name ? name : "", pfds[0]);
	if ((text = cJSON_PrintUnformatted(call)) == NULL)
		mc_oom();
	mc_buf_adds(&in, text);
	mc_buf_addc(&in, '\n');
	free(text);
	f.in = in.data;
	f.inlen = in.len;
	if (mc_filter_run(argv, &f, st, err, sizeof err) == -1) {
		progress_end(&pr);
		mc_err("%s", err);
	} else {
		progress_end(&pr);
		/* mc-tool has ended: all it wrote is in the pipe. */
		fcntl(fds[0], F_SETFL, O_NONBLOCK);
		if (mc_fd_slurp(fds[0], TOUCHED_CAP, touched) == -1 && errno != EAGAIN)
			mc_warn("the paths mc-tool touched: %s", strerror(errno));
		/* An unknown or disabled tool is mc-tool's exit 1, with an
		 * output naming the tools there are: the model should read it.
		 * Interrupted by the user (not --timeout: its output would say
		 * "the user"), mc-tool exits 130 with what the call had printed. */
		if ((!interrupted && (stage_ok("mc-tool", *st) ||
		    (WIFEXITED(*st) && WEXITSTATUS(*st) == MC_EXIT_FAIL))) ||
		    (interrupted && !timed_out && WIFEXITED(*st) && WEXITSTATUS(*st) == MC_EXIT_INTR))
			item = mc_json_parse(out.data ? out.data : "", out.len, err, sizeof err);
	}
	close(fds[0]);
	close(pfds[0]);
	mc_buf_free(&in);
	mc_buf_free(&out);
	return item;
}

/* With --json: an approval event. */
static void
approval_event(struct driver *d, const char *cid, const char *name, int ok, const char *by,
    const char *rule)
{
	cJSON *ev;

	if (!d->c.json)
		return;
	ev = ev_new("approval");
	mc_json_add_str(ev, "call_id", cid ? cid : "");
	mc_json_add_str(ev, "name", name);
	mc_json_add_str(ev, "decision", ok == 1 ? "allowed" : "refused");
	mc_json_add_str(ev, "by", by);
	if (rule != NULL)	/* permissions.c: the rule or mode that decided */
		mc_json_add_str(ev, "rule", rule);
	ev_emit(d, ev);
}

/* Run one function_call; its output joins the session. */
int
call_run(struct driver *d, const cJSON *call, struct mc_buf *touched)
{
	const char *name = mc_json_str(call, "name"), *cid = mc_json_str(call, "call_id");
	const char *type, *ocid, *by, *rule = NULL;
	char *why = NULL;
	cJSON *item;
	int ok, st;

	if (name == NULL)
		name = "";
	/* subagents.c: a tool this subagent's profiles disable is not run. */
	if (subagents_blocked(d, name))
		return call_output(d, call, "error: this tool is disabled for this subagent "
		    "(disabled_tools of its profile); use the tools you were given.") == -1 ?
		    MC_EXIT_FAIL : MC_EXIT_OK;
	/* modeltools.c: a tool the model is not offered is not run. */
	if (model_tool_refused(d, name))
		return call_output(d, call, "error: this tool is not offered to this model "
		    "(models.ID.tools in the settings); use the tools you were given.") == -1 ?
		    MC_EXIT_FAIL : MC_EXIT_OK;
	/* hooks.c: the pre_tool hooks come first; one that denies the call
	 * (exit 2) is its refusal, by "hook", and its message the output. */
	by = "hook";
	if ((ok = hooks_pre_tool(d, call, &why)) == 1)
		ok = approve(d, name, call, &why, &by, &rule);
	approval_event(d, cid, name, ok, by, rule);
	if (ok <= 0) {
		st = call_output(d, call, ok == 0 ? why : timed_out ?
		    "error: the run's --timeout came before this call ran." :
		    "error: the user interrupted before this call ran.");
		free(why);
		if (st == -1)
			return MC_EXIT_FAIL;
		return ok == 0 ? MC_EXIT_OK : MC_EXIT_INTR;
	}
	/* checkpoint.c: the working tree kept before the turn's first change */
	if (checkpoint_before(d, name, call, &why) == -1) {
		st = call_output(d, call, why);
		free(why);
		return st == -1 ? MC_EXIT_FAIL : interrupted ? MC_EXIT_INTR : MC_EXIT_OK;
	}
	if (subagents_has(d, name))	/* subagents.c: children run, their answers the output */
		return subagents_call(d, call);
	if (toolsearch_has(d, name))	/* toolsearch.c: deferred tools found and loaded */
		return toolsearch_call(d, call);
	toolsearch_used(d, name);	/* toolsearch.c: a deferred tool called is loaded */
	item = mcp_routes(d, name, call) ? mcp_call(d, call) : tool_call(d, call, touched, &st);
	type = mc_json_str(item, "type");
	ocid = mc_json_str(item, "call_id");
	if (item == NULL || type == NULL || strcmp(type, "function_call_output") != 0 ||
	    ocid == NULL || cid == NULL || strcmp(ocid, cid) != 0) {
		/* The history must hold an output for every call, so the model
		 * hears of the failure and the session stays valid. */
		cJSON_Delete(item);
		if (call_output(d, call, !interrupted ? "error: mc-tool could not run this call." :
		    timed_out ? "error: the run's --timeout ended this call." :
		    "error: the user interrupted this call.") == -1)
			return MC_EXIT_FAIL;
		return interrupted ? MC_EXIT_INTR : MC_EXIT_OK;
	}
	/* Interrupted, what the call had printed is kept: it did not end as
	 * a call does, so no post_tool hook sees it. */
	if (interrupted)
		return output_item(d, name, item) == 0 ? MC_EXIT_INTR : MC_EXIT_FAIL;
	lsp_after_edit(d, call, item);	/* lsp.c: a write or edit's diagnostics */
	return ran_item(d, call, item) == 0 ? MC_EXIT_OK : MC_EXIT_FAIL;
}

/* A user message <Context File=FILE>CONTENT</Context> into the session:
 * a guide, or what a session_start hook said (FILE hook:N). */
int
context_add(struct driver *d, const char *file, const char *content)
{
	struct mc_buf b = {0};
	int r;

	mc_context_block(&b, file, content);
	b.data[--b.len] = '\0';	/* the message ends at the closing tag */
	r = session_add(d, mc_item_message("user", b.data));
	mc_buf_free(&b);
	return r;
}

/*
 * The AGENTS.md guides of the directories the calls touched, from
 * `mc-discover --touched`, each appended once per session as a user message.
 */
void
guides_inject(struct driver *d, struct mc_buf *touched)
{
	char **paths = NULL, *line, *nl, *end = touched->data + touched->len;
	size_t n = 0, i;
	const cJSON *e;
	cJSON *doc;

	for (line = touched->data; line < end; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			nl = end;
		*nl = '\0';	/* at end, the buffer's own NUL */
		if (*line == '\0')
			continue;
		for (i = 0; i < n && strcmp(paths[i], line) != 0; i++)
			;
		if (i < n)
			continue;
		if ((paths = reallocarray(paths, n + 1, sizeof *paths)) == NULL)
			mc_oom();
		paths[n++] = line;
	}
	if (n > 0 && (doc = stages_guides(paths, n)) != NULL) {
		cJSON_ArrayForEach(e, mc_json_arr(doc, "instructions")) {
			const char *path = mc_json_str(e, "path"), *content = mc_json_str(e, "content");

			if (path == NULL || content == NULL || guide_known(d, path))
				continue;
			if (context_add(d, path, content) == -1)
				break;
			guide_remember(d, path, strlen(path));
		}
		cJSON_Delete(doc);
	}
	free(paths);
}
