/* mcp.c: the session's MCP tools, through one mc-mcp serve started with the other stages. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"

#define MCP_LINE_CAP (8u << 20)	/* its tool list, or one output item */

/* Whether settings name a server that is not disabled. */
static int
configured(const struct driver *d)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, mc_settings_get(&d->c.set, "mcp_servers"))
		if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(e, "enabled")))
			return 1;
	return 0;
}

/*
 * Start mc-mcp serve when servers are configured: in a process group of
 * its own (Ctrl-C is the driver's to pass on), told to stop with SIGTERM
 * should the driver die, so that it ends its servers. 0, or -1 after
 * saying why.
 */
int
mcp_start(struct driver *d)
{
	char *argv[] = { "mc-mcp", "-q", "serve", NULL }, err[256];
	struct mc_child c = { .argv = argv, .fd = { -1, -1, -1 },
	    .flags = MC_CHILD_SUITE | MC_CHILD_PGROUP | MC_CHILD_PDEATH_TERM };

	if (d->mcp.pid > 0 || !configured(d))
		return 0;
	d->mcp.out = (struct mc_lines){ .cap = MCP_LINE_CAP };
	if ((d->mcp.pid = mc_child_start_piped(&c, &d->mcp.wr, &d->mcp.out.fd, err,
	    sizeof err)) == -1) {
		d->mcp.pid = 0;
		mc_warn("%s; no MCP tools this session", err);
	}
	return 0;
}

/* A line from mc-mcp; NULL when it ended. A Ctrl-C meanwhile is passed on
 * once: mc-mcp then answers the call in flight as cancelled. */
static cJSON *
next(struct driver *d)
{
	char err[256], *line;
	size_t len;
	int r, told = 0;
	cJSON *j;

	while ((r = mc_lines_next(&d->mcp.out, &line, &len)) == -1 && errno == EINTR)
		if (interrupted && !told) {
			kill(-d->mcp.pid, SIGINT);
			told = 1;
		}
	if (r != 1) {
		if (r == -1)
			mc_err("mc-mcp: %s", errno == EFBIG ? "a line over the size limit" :
			    strerror(errno));
		mcp_stop(d);
		return NULL;
	}
	if ((j = mc_json_parse(line, len, err, sizeof err)) == NULL) {
		mc_err("mc-mcp: %s", err);
		mcp_stop(d);
	}
	return j;
}

/*
 * On a terminal, until mc-mcp has its next line ready: a status line
 * saying what it is about (what, then the seconds), since servers can
 * take seconds to start (npx fetching one) and a call as long as it likes.
 */
static void
wait_shown(struct driver *d, const char *what)
{
	struct pollfd p = { .fd = d->mcp.out.fd, .events = POLLIN };
	struct progress pr;

	if (d->mcp.out.buf.len > d->mcp.out.at)
		return;	/* a line may be there already */
	progress_begin(&pr, d, what, -1);
	if (!pr.on)
		return;
	while (!interrupted && poll(&p, 1, 200) == 0)
		progress_tick(&pr);
	progress_end(&pr);
}

/* The names of its tools forgotten. */
void
mcp_forget(struct driver *d)
{
	size_t i;

	for (i = 0; i < d->mcp.names.n; i++)
		free(d->mcp.servers[i]);
	free(d->mcp.servers);
	d->mcp.servers = NULL;
	mc_strset_free(&d->mcp.names);
}

/* Note tool t's name and its server (detached from t: the model is not
 * told it), for approval. */
static void
tool_noted(struct driver *d, cJSON *t)
{
	cJSON *server = cJSON_DetachItemFromObjectCaseSensitive(t, "server");
	const char *name = mc_json_str(t, "name");
	size_t k = d->mcp.names.n;
	int added;

	if (name != NULL) {
		mc_strset_add(&d->mcp.names, name, k, &added);
		if (added) {
			if ((d->mcp.servers = reallocarray(d->mcp.servers, k + 1,
			    sizeof *d->mcp.servers)) == NULL)
				mc_oom();
			d->mcp.servers[k] = cJSON_IsString(server) ?
			    mc_strdup(server->valuestring) : NULL;
		}
	}
	cJSON_Delete(server);
}

/* The servers' tools, after mc-tool's in the session's list (where those
 * of an earlier start were). */
int
mcp_tools(struct driver *d)
{
	struct mc_buf what = {0};
	cJSON *mine, *all, *out, *t;
	const cJSON *e;
	size_t i;

	if (d->mcp.pid <= 0)
		return 0;
	mc_buf_adds(&what, "MCP servers starting:");
	cJSON_ArrayForEach(e, mc_settings_get(&d->c.set, "mcp_servers"))
		if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(e, "enabled")))
			mc_buf_printf(&what, "%s %s", what.data[what.len - 1] == ':' ? "" : ",",
			    e->string);
	wait_shown(d, what.data);
	mc_buf_free(&what);
	if ((mine = next(d)) == NULL)
		return interrupted ? -1 : 0;
	if (!cJSON_IsArray(mine)) {
		mc_err("mc-mcp: its tool list is not a JSON array");
		cJSON_Delete(mine);
		mcp_stop(d);
		return 0;
	}
	if ((all = tools_get(d)) == NULL) {
		cJSON_Delete(mine);
		return -1;
	}
	if (!d->mcp.listed)
		d->mcp.at = (size_t)cJSON_GetArraySize(all);
	d->mcp.listed = 1;
	mcp_forget(d);
	/* A new list in order, each tool moved off the front of the old
	 * ones: inserting at an index would walk the list for every tool. */
	out = mc_json_new_arr();
	for (i = 0; i < d->mcp.at && (t = cJSON_DetachItemFromArray(all, 0)) != NULL; i++)
		mc_json_push(out, t);
	while ((t = cJSON_DetachItemFromArray(mine, 0)) != NULL) {
		tool_noted(d, t);
		mc_json_push(out, t);
	}
	while ((t = cJSON_DetachItemFromArray(all, 0)) != NULL)
		mc_json_push(out, t);
	cJSON_Delete(mine);
	cJSON_Delete(all);
	tools_put(d, out);
	return 0;
}

int
mcp_has(const struct driver *d, const char *name)
{
	return mc_strset_find(&d->mcp.names, name) != NULL;
}

/* An MCP tool is asked for like bash, unless its server (as mc-mcp
 * named it with the tool list) says "approve": false. */
int
mcp_guarded(const struct driver *d, const char *name)
{
	const struct mc_strset_slot *p = mc_strset_find(&d->mcp.names, name);
	const char *server = p != NULL ? d->mcp.servers[p->val] : NULL;

	if (server == NULL)
		return 1;
	return !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(mc_json_obj(
	    mc_settings_get(&d->c.set, "mcp_servers"), server), "approve"));
}

/* One call through mc-mcp: its output item, or NULL. */
cJSON *
mcp_call(struct driver *d, const cJSON *call)
{
	char *text;
	int r;

	if (d->mcp.pid <= 0)
		return NULL;
	if ((text = cJSON_PrintUnformatted(call)) == NULL)
		mc_oom();
	r = mc_write_all(d->mcp.wr, text, strlen(text)) == -1 ||
	    mc_write_all(d->mcp.wr, "\n", 1) == -1 ? -1 : 0;
	free(text);
	if (r == -1) {
		mc_err("mc-mcp: stopped taking calls: %s", strerror(errno));
		mcp_stop(d);
		return NULL;
	}
	wait_shown(d, mc_json_str(call, "name") ? mc_json_str(call, "name") : "");
	return next(d);
}

/*
 * A new session (/new) gets new servers: a stateful one keeps nothing of
 * the last session. The old tools leave the session's list and the new
 * ones take their place. 0, or -1 after saying why.
 */
int
mcp_restart(struct driver *d)
{
	cJSON *all, *t, *next_t;

	if (!d->mcp.listed)
		return 0;	/* none started this run */
	if ((all = tools_get(d)) == NULL)
		return -1;
	for (t = all->child; t != NULL; t = next_t) {
		next_t = t->next;
		if (mcp_has(d, mc_json_str(t, "name") ? mc_json_str(t, "name") : ""))
			cJSON_Delete(cJSON_DetachItemViaPointer(all, t));
	}
	tools_put(d, all);
	mcp_forget(d);
	mcp_stop(d);
	if (mcp_start(d) == -1)
		return -1;
	return mcp_tools(d);
}

/* For /context: each MCP server of the settings, its command, and the
 * tools it gave this session (none: it failed to start, or is not
 * running), one a line. */
void
mcp_show(const struct driver *d, struct mc_buf *out)
{
	const cJSON *e, *a;
	size_t i, tools;

	cJSON_ArrayForEach(e, mc_settings_get(&d->c.set, "mcp_servers")) {
		mc_buf_printf(out, "  MCP server %s: %s", e->string,
		    mc_json_str(e, "command") ? mc_json_str(e, "command") : "?");
		cJSON_ArrayForEach(a, mc_json_arr(e, "args"))
			mc_buf_printf(out, " %s", cJSON_IsString(a) ? a->valuestring : "?");
		for (i = tools = 0; i < d->mcp.names.n; i++)
			tools += d->mcp.servers[i] != NULL && strcmp(d->mcp.servers[i], e->string) == 0;
		if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(e, "enabled")))
			mc_buf_adds(out, " (disabled)\n");
		else if (tools > 0)
			mc_buf_printf(out, " (%zu tool%s)\n", tools, tools == 1 ? "" : "s");
		else
			mc_buf_adds(out, " (no tools this session: it failed to start, or offers "
			    "none)\n");
	}
}

/* End mc-mcp by the end of its input: it ends its servers. */
void
mcp_stop(struct driver *d)
{
	if (d->mcp.pid <= 0)
		return;
	close(d->mcp.wr);
	close(d->mcp.out.fd);
	mc_child_wait(d->mcp.pid);
	d->mcp.pid = 0;
	mc_buf_free(&d->mcp.out.buf);
}
