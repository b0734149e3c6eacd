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


/* A call's output into the session (and, with --json, a tool_output event). */
static int
output_item(struct driver *d, const char *name, cJSON *item)
{
	cJSON *ev, *line;

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
	if (session_add(d, item) == -1)
		return -1;
	/* toolsearch.c: the tools the call loaded, kept for a resumed session */
	if ((line = toolsearch_line(d)) != NULL)
		return session_add(d, line);
	return 0;
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
	if (!toolsearch_has(d, name) && model_tool_refused(d, name))
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
	item = tools_run(d, call, touched);	/* tools.c: run by the tool's owner */
	if (item != NULL)
		attach_output(d, item);	/* attach.c: its images stored, referenced */
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
