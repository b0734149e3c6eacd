/* mcp.c: the session's MCP tools, through one mc-mcp serve started with the other stages. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "child.h"
#include "diag.h"
#include "image.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"

/* its tool list, or one output item (its images at most MC_IMAGE_MAX together) */
#define MCP_LINE_CAP ((8u << 20) + MC_IMAGE_B64_MAX + 4096)

/* Whether settings name a server that is not disabled, or the front
 * end gave some. */
static int
configured(const struct driver *d)
{
	const cJSON *e;

	if (d->mcp.more != NULL)
		return 1;
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
	char *argv[] = { "mc-mcp", "-q", "serve", NULL, NULL, NULL }, err[256], path[24];
	int keep[2] = { -1, -1 };
	struct mc_child c = { .argv = argv, .fd = { -1, -1, -1 }, .keep = keep,
	    .flags = MC_CHILD_SUITE | MC_CHILD_PGROUP | MC_CHILD_PDEATH_TERM };

	if (d->mcp.pid > 0 || !configured(d))
		return 0;
	/* The front end's servers, in a memory file mc-mcp reads. */
	if (d->mcp.more != NULL && ((keep[0] = memfd_create("mc-servers", MFD_CLOEXEC)) == -1 ||
	    mc_write_all(keep[0], d->mcp.more, strlen(d->mcp.more)) == -1)) {
		mc_warn("the editor's MCP servers: %s; not used", strerror(errno));
		if (keep[0] != -1)
			close(keep[0]);
		keep[0] = -1;
	}
	if (keep[0] != -1) {
		snprintf(path, sizeof path, "/dev/fd/%d", keep[0]);
		argv[3] = "--servers";
		argv[4] = path;
	}
	d->mcp.out = (struct mc_lines){ .cap = MCP_LINE_CAP };
	if ((d->mcp.pid = mc_child_start_piped(&c, &d->mcp.wr, &d->mcp.out.fd, err,
	    sizeof err)) == -1) {
		d->mcp.pid = 0;
		mc_warn("%s; no MCP tools this session", err);
	}
	if (keep[0] != -1)
		close(keep[0]);
	return 0;
}

static int apply_list(struct driver *d, cJSON *mine);
static cJSON *next_line(struct driver *d);

/* A progress line of mc-mcp's, on the terminal's status line. */
static void
progress(struct driver *d, const cJSON *p)
{
	const cJSON *done = cJSON_GetObjectItemCaseSensitive(p, "progress");
	const cJSON *total = cJSON_GetObjectItemCaseSensitive(p, "total");
	const char *msg = mc_json_str(p, "message");

	if (!isatty(STDERR_FILENO) || d->c.json)
		return;
	fprintf(stderr, "\r\033[K%s: %.60s", mc_json_str(p, "server") ? mc_json_str(p, "server") : "mcp",
	    msg ? msg : "working");
	if (cJSON_IsNumber(done) && cJSON_IsNumber(total) && total->valuedouble > 0)
		fprintf(stderr, " (%.0f%%)", 100 * done->valuedouble / total->valuedouble);
	fflush(stderr);
	d->mcp.status = 1;
}

/* The status line, if shown, cleared. */
static void
status_clear(struct driver *d)
{
	if (d->mcp.status) {
		fputs("\r\033[K", stderr);
		d->mcp.status = 0;
	}
}

/* The next line that is not a new tool list (taken into the session's
 * list at once: the next step offers it), progress or a server's log
 * line (said on a line of its own). */
static cJSON *
next(struct driver *d)
{
	const char *type;
	cJSON *j;

	for (;;) {
		if ((j = next_line(d)) == NULL)
			break;
		type = mc_json_str(j, "type") ? mc_json_str(j, "type") : "";
		if (cJSON_IsArray(j)) {
			if (apply_list(d, j) == -1)
				return NULL;
		} else if (strcmp(type, "progress") == 0) {
			progress(d, j);
			cJSON_Delete(j);
		} else if (strcmp(type, "log") == 0) {
			status_clear(d);
			mc_err("mc-mcp: %s", mc_json_str(j, "text") ? mc_json_str(j, "text") : "");
			cJSON_Delete(j);
		} else
			break;
	}
	status_clear(d);
	return j;
}

/* A line from mc-mcp; NULL when it ended. A Ctrl-C meanwhile is passed on
 * once: mc-mcp then answers the call in flight as cancelled. */
static cJSON *
next_line(struct driver *d)
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
	mc_strset_free(&d->mcp.read_only);
	cJSON_Delete(d->mcp.extras);
	d->mcp.extras = NULL;
}

/* Note tool t's name and its server (detached from t: the model is not
 * told it), for approval. */
static void
tool_noted(struct driver *d, cJSON *t)
{
	cJSON *server = cJSON_DetachItemFromObjectCaseSensitive(t, "server");
	cJSON *ro = cJSON_DetachItemFromObjectCaseSensitive(t, "read_only");
	const char *name = mc_json_str(t, "name");
	size_t k = d->mcp.names.n;
	int added;

	if (name != NULL && cJSON_IsTrue(ro))
		mc_strset_add(&d->mcp.read_only, name, 0, NULL);
	cJSON_Delete(ro);
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

/* The model learns of the servers' resources from read's description,
 * which gets them after this mark (an earlier list's replaced). */
#define RESOURCES_MARK "\n\nMCP resources, read with path mcp://SERVER/URI:"
#define RESOURCES_SHOWN 50

static void
describe_resources(struct driver *d, cJSON *all)
{
	const cJSON *e;
	cJSON *t, *desc;
	struct mc_buf b = {0};
	const char *type, *cut;
	size_t n = 0;

	cJSON_ArrayForEach(t, all)
		if (mc_json_str(t, "name") && strcmp(mc_json_str(t, "name"), "read") == 0)
			break;
	if (t == NULL || !cJSON_IsString(desc = cJSON_GetObjectItemCaseSensitive(t, "description")))
		return;
	cut = strstr(desc->valuestring, RESOURCES_MARK);
	mc_buf_add(&b, desc->valuestring, cut ? (size_t)(cut - desc->valuestring) : strlen(desc->valuestring));
	cJSON_ArrayForEach(e, d->mcp.extras) {
		type = mc_json_str(e, "type");
		if (strcmp(type, "mcp_resource") != 0 && strcmp(type, "mcp_template") != 0)
			continue;
		if (n++ == 0)
			mc_buf_adds(&b, RESOURCES_MARK);
		if (n > RESOURCES_SHOWN) {
			mc_buf_adds(&b, " ...");
			break;
		}
		mc_buf_printf(&b, " mcp://%s/%s%s%s%s", mc_json_str(e, "server"), mc_json_str(e, "uri"),
		    mc_json_str(e, "title") ? " (" : "", mc_json_str(e, "title") ? mc_json_str(e, "title") : "",
		    mc_json_str(e, "title") ? ")" : "");
	}
	cJSON_ReplaceItemInObjectCaseSensitive(t, "description", mc_json_new_owned(mc_buf_steal(&b)));
}

/* Take the tools of mc-mcp's last list out of all, by name: a filter of
 * the session's list may have moved them. */
static void
drop_tools(struct driver *d, cJSON *all)
{
	cJSON *t, *next_t;

	for (t = all->child; t != NULL && d->mcp.names.n > 0; t = next_t) {
		next_t = t->next;
		if (mcp_has(d, mc_json_str(t, "name") ? mc_json_str(t, "name") : ""))
			cJSON_Delete(cJSON_DetachItemViaPointer(all, t));
	}
}

/* A tool list from mc-mcp (its first line, or a new one after a
 * server's tools changed) into the session's: after mc-tool's, where
 * those of an earlier list were; its resources and prompts kept apart.
 * Takes mine. */
static int
apply_list(struct driver *d, cJSON *mine)
{
	cJSON *all, *out, *t;
	const char *type;
	size_t i;

	if ((all = tools_get(d)) == NULL) {
		cJSON_Delete(mine);
		return -1;
	}
	drop_tools(d, all);
	if (!d->mcp.listed)
		d->mcp.at = (size_t)cJSON_GetArraySize(all);
	d->mcp.listed = 1;
	mcp_forget(d);
	d->mcp.extras = mc_json_new_arr();
	/* A new list in order, each tool moved off the front of the old
	 * ones: inserting at an index would walk the list for every tool. */
	out = mc_json_new_arr();
	for (i = 0; i < d->mcp.at && (t = cJSON_DetachItemFromArray(all, 0)) != NULL; i++)
		mc_json_push(out, t);
	while ((t = cJSON_DetachItemFromArray(mine, 0)) != NULL) {
		type = mc_json_str(t, "type");
		if (type != NULL && strncmp(type, "mcp_", 4) == 0) {
			mc_json_push(d->mcp.extras, t);
			continue;
		}
		tool_noted(d, t);
		mc_json_push(out, t);
	}
	while ((t = cJSON_DetachItemFromArray(all, 0)) != NULL)
		mc_json_push(out, t);
	cJSON_Delete(mine);
	cJSON_Delete(all);
	describe_resources(d, out);
	tools_put(d, out);
	return 0;
}

/* The servers' tools, after mc-tool's in the session's list (where those
 * of an earlier start were). */
int
mcp_tools(struct driver *d)
{
	struct mc_buf what = {0};
	const cJSON *e;
	cJSON *mine;

	if (d->mcp.pid <= 0)
		return 0;
	mc_buf_adds(&what, "MCP servers starting:");
	cJSON_ArrayForEach(e, mc_settings_get(&d->c.set, "mcp_servers"))
		if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(e, "enabled")))
			mc_buf_printf(&what, "%s %s", what.data[what.len - 1] == ':' ? "" : ",",
			    e->string);
	wait_shown(d, what.data);
	mc_buf_free(&what);
	if ((mine = next_line(d)) == NULL)
		return interrupted ? -1 : 0;
	if (!cJSON_IsArray(mine)) {
		mc_err("mc-mcp: its tool list is not a JSON array");
		cJSON_Delete(mine);
		mcp_stop(d);
		return 0;
	}
	return apply_list(d, mine);
}

/*
 * A step begins: mc-mcp is asked for what changed meanwhile (a server's
 * tools, after notifications/tools/list_changed), which comes before its
 * answer to the question and so is in the session's list for the step.
 * A pipe's round trip, nothing more, when nothing did.
 */
void
mcp_sync(struct driver *d)
{
	static const char sync[] = "{\"type\":\"sync\",\"call_id\":\"sync\"}\n";

	if (d->mcp.pid <= 0 || !d->mcp.listed)
		return;
	if (mc_write_all(d->mcp.wr, sync, sizeof sync - 1) == -1) {
		mc_err("mc-mcp: stopped taking calls: %s", strerror(errno));
		mcp_stop(d);
		return;
	}
	cJSON_Delete(next(d));
}

/* A read of an mcp:// path is mc-mcp's: resources/read. */
int
mcp_routes(const struct driver *d, const char *name, const cJSON *call)
{
	const char *args = mc_json_str(call, "arguments"), *path;
	cJSON *a;
	int r;

	if (mcp_has(d, name))
		return 1;
	if (d->mcp.pid <= 0 || strcmp(name, "read") != 0 || args == NULL)
		return 0;
	a = mc_json_parse(args, strlen(args), NULL, 0);
	r = (path = mc_json_str(a, "path")) != NULL && strncmp(path, "mcp://", 6) == 0;
	cJSON_Delete(a);
	return r;
}

/* /help's part: the servers' prompts, each with its arguments and
 * description (sanitized: they come from the servers). */
void
mcp_help(const struct driver *d)
{
	const cJSON *e, *a;
	char buf[512];
	int any = 0;

	cJSON_ArrayForEach(e, d->mcp.extras) {
		if (strcmp(mc_json_str(e, "type"), "mcp_prompt") != 0 || mc_json_str(e, "name") == NULL)
			continue;
		if (!any++)
			fputs("MCP prompts:\n", stdout);
		printf("  /%s", mc_sanitize(buf, sizeof buf, mc_json_str(e, "name")));
		cJSON_ArrayForEach(a, mc_json_arr(e, "arguments"))
			if (cJSON_IsString(a))
				printf(" %s", mc_sanitize(buf, sizeof buf, a->valuestring));
		if (mc_json_str(e, "description") != NULL)
			printf("\n                %s", mc_sanitize(buf, sizeof buf, mc_json_str(e, "description")));
		putchar('\n');
	}
}

/*
 * "/SERVER:NAME ARGS", a server's prompt: 1 with *text its messages (the
 * prompt to send), -1 when mc-mcp could not give it (said), 0 when line
 * names no prompt.
 */
int
mcp_prompt(struct driver *d, const char *line, char **text)
{
	size_t n = strcspn(line + 1, " \t");
	const char *args = line + 1 + n;
	const cJSON *e;
	cJSON *msg, *out;
	const char *o;
	char *s;

	cJSON_ArrayForEach(e, d->mcp.extras)
		if (strcmp(mc_json_str(e, "type"), "mcp_prompt") == 0 && mc_json_str(e, "name") &&
		    strlen(mc_json_str(e, "name")) == n && memcmp(mc_json_str(e, "name"), line + 1, n) == 0)
			break;
	if (e == NULL || d->mcp.pid <= 0)
		return 0;
	msg = mc_json_new_obj();
	mc_json_add_str(msg, "type", "prompt");
	mc_json_add_str(msg, "call_id", "prompt");
	mc_json_add_str(msg, "name", mc_json_str(e, "name"));
	mc_json_add_str(msg, "arguments", args + strspn(args, " \t"));
	out = mcp_call(d, msg);
	cJSON_Delete(msg);
	if ((o = mc_json_str(out, "output")) == NULL || strncmp(o, "error: ", 7) == 0) {
		mc_err("/%.*s: %s", (int)n, line + 1, o ? o + 7 : "mc-mcp gave no answer");
		cJSON_Delete(out);
		return -1;
	}
	s = mc_strdup(o);
	cJSON_Delete(out);
	*text = s;
	return 1;
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
	const char *server = mcp_server_of(d, name);

	if (server == NULL)
		return 1;
	return !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(mc_json_obj(
	    mc_settings_get(&d->c.set, "mcp_servers"), server), "approve"));
}

/* The server of an MCP tool, as the settings name it; NULL for any other tool. */
const char *
mcp_server_of(const struct driver *d, const char *name)
{
	const struct mc_strset_slot *p = mc_strset_find(&d->mcp.names, name);

	return p != NULL ? d->mcp.servers[p->val] : NULL;
}

/* A tool whose server's annotations say readOnlyHint: plan mode offers
 * it (modes.c), no checkpoint is taken before it (checkpoint.c). */
int
mcp_read_only(const struct driver *d, const char *name)
{
	return mc_strset_find(&d->mcp.read_only, name) != NULL;
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
	cJSON *all;

	if (!d->mcp.listed && d->mcp.more == NULL)
		return 0;	/* none started this run, none to start */
	if ((all = tools_get(d)) == NULL)
		return -1;
	drop_tools(d, all);
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
