/*
 * acp.c: mc acp: the Agent Client Protocol (version 1) as an agent, on
 * stdin and stdout (SPEC 23). The methods: initialize, authenticate,
 * session/new, session/load, session/prompt, session/set_mode (and the
 * session/cancel notification, acpwire.c's). It is the terminal's driver
 * with another front end: a prompt is a turn (turn.c), its events are
 * told as session/update (acpupdate.c), its approvals asked of the
 * client, its files read and written through it (acpfs.c). One session
 * is in use at a time; a prompt for another this connection made or
 * loaded goes on in that one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acp.h"
#include "diag.h"
#include "image.h"
#include "json.h"
#include "mc.h"

/* What the run was started in: each session begins so. */
struct start {
	enum mode mode;
	int launched;		/* the stages run (stages_launch) */
};

/* The file of a session the client knows by id, or NULL. */
static const char *
file_of(const struct acp *a, const char *id)
{
	return mc_json_str(a->known, id);
}

/* The session in use is id's, its file the one open now: after a
 * compaction, the new one. */
static void
known_now(struct acp *a, const char *id)
{
	if (id != a->current)
		snprintf(a->current, sizeof a->current, "%s", id);
	cJSON_DeleteItemFromObjectCaseSensitive(a->known, a->current);
	mc_json_add_str(a->known, a->current, a->d->s.file.id);
}

/* The session in use left (a prompt may come back to it). */
static void
leave(struct acp *a)
{
	if (a->d->s.open)
		session_forget(a->d);
}

/* At the end: the sessions made here that hold nothing go. */
static void
sweep(struct acp *a)
{
	struct mc_session s = {0};
	const cJSON *e;
	char err[512];

	leave(a);
	cJSON_ArrayForEach(e, a->made) {
		if (mc_session_read(&s, a->d->c.set.home, e->valuestring, err, sizeof err) == 0 &&
		    s.items == 0 && s.path != NULL)
			unlink(s.path);
		mc_session_close(&s);
		memset(&s, 0, sizeof s);
	}
}

/* A working directory a session may have: absolute, there. */
static int
cwd_ok(const char *cwd, char *err, size_t errsz)
{
	struct stat st;

	if (cwd == NULL || cwd[0] != '/') {
		snprintf(err, errsz, "cwd: expected an absolute path%s%s", cwd ? ", not " : "",
		    cwd ? cwd : "");
		return -1;
	}
	if (stat(cwd, &st) == -1) {
		snprintf(err, errsz, "cwd: %s: %s", cwd, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errsz, "cwd: %s: not a directory", cwd);
		return -1;
	}
	return 0;
}

/*
 * The session's working directory: the process goes there; the stages
 * are launched there at the first session, and at a later one in another
 * directory the prompt is rendered again and the MCP servers restarted
 * there (as /new does); so are they when renew (the client's servers
 * changed). 0, or -1 with err.
 */
static int
enter(struct acp *a, struct start *st, const char *cwd, int renew, char *err, size_t errsz)
{
	struct driver *d = a->d;
	struct mc_buf b = {0};
	char *real;

	if ((real = realpath(cwd, NULL)) == NULL || chdir(real) == -1) {
		snprintf(err, errsz, "cwd: %s: %s", cwd, strerror(errno));
		free(real);
		return -1;
	}
	if (st->launched && strcmp(real, d->c.cwd) == 0) {
		free(real);
		if (renew) {	/* other MCP servers from the client */
			mcp_restart(d);
			toolsearch_forget(d);
		}
		return 0;
	}
	free(d->c.cwd);
	d->c.cwd = real;
	workspace_moved(&d->c);
	if (!st->launched) {
		if (session_resolve(d) == -1 || stages_launch(d) == -1) {
			snprintf(err, errsz, "the session's stages could not start (mc's message is "
			    "on stderr)");
			return -1;
		}
		st->launched = 1;
		return 0;
	}
	if (stages_prompt(d, 0, d->c.keep_going, -1, &b) == -1) {
		mc_buf_free(&b);
		snprintf(err, errsz, "the prompt could not be built in %s (mc's message is on "
		    "stderr)", real);
		return -1;
	}
	mc_buf_free(&d->s.prompt);
	d->s.prompt = b;
	mcp_restart(d);
	toolsearch_forget(d);
	return 0;
}

/* The session's MCP servers beside the settings': the client's. 1 when
 * they are not those in use, 0 when they are; -1 with err. */
static int
servers(struct acp *a, const cJSON *params, char *err, size_t errsz)
{
	struct driver *d = a->d;
	char *more;

	if (acp_servers_of(cJSON_GetObjectItemCaseSensitive(params, "mcpServers"), &more, err,
	    errsz) == -1)
		return -1;
	if (more == d->mcp.more || (more != NULL && d->mcp.more != NULL &&
	    strcmp(more, d->mcp.more) == 0)) {
		free(more);
		return 0;
	}
	free(d->mcp.more);
	d->mcp.more = more;
	return 1;
}

/* modes: {currentModeId, availableModes} (SPEC 22's modes). */
static cJSON *
modes_of(const struct driver *d)
{
	static const char *const about[] = {
		[MODE_DEFAULT] = "asks before write, edit, bash and MCP tools",
		[MODE_ACCEPT_EDITS] = "writes and edits inside the working directory unasked",
		[MODE_PLAN] = "read-only tools; the answer is a plan",
		[MODE_YES] = "runs every tool unasked",
	};
	cJSON *m = mc_json_new_obj(), *list = mc_json_new_arr(), *e;
	int i;

	mc_json_add_str(m, "currentModeId", mode_name(d->mode.now));
	for (i = MODE_DEFAULT; i <= MODE_YES; i++) {
		e = mc_json_new_obj();
		mc_json_add_str(e, "id", mode_name((enum mode)i));
		mc_json_add_str(e, "name", mode_name((enum mode)i));
		mc_json_add_str(e, "description", about[i]);
		mc_json_push(list, e);
	}
	mc_json_add(m, "availableModes", list);
	return m;
}

static void
initialize(struct acp *a, const cJSON *id, const cJSON *params)
{
	const cJSON *fs = mc_json_obj(mc_json_obj(params, "clientCapabilities"), "fs");
	cJSON *r, *caps, *pc, *mcp, *info;

	if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(params, "protocolVersion"))) {
		acp_error(a, id, RPC_PARAMS, "initialize: protocolVersion: expected a number");
		return;
	}
	r = mc_json_new_obj();
	caps = mc_json_new_obj();
	pc = mc_json_new_obj();
	mcp = mc_json_new_obj();
	info = mc_json_new_obj();
	a->fs_read = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fs, "readTextFile"));
	a->fs_write = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fs, "writeTextFile"));
	a->initialized = 1;
	/* Whatever the client speaks, the answer is the version mc speaks. */
	mc_json_add_num(r, "protocolVersion", ACP_PROTOCOL);
	mc_json_add(caps, "loadSession", cJSON_CreateTrue());
	mc_json_add(pc, "image", cJSON_CreateTrue());
	mc_json_add(pc, "audio", cJSON_CreateFalse());
	mc_json_add(pc, "embeddedContext", cJSON_CreateTrue());
	mc_json_add(caps, "promptCapabilities", pc);
	/* mc-mcp speaks streamable HTTP, and the older HTTP+SSE where a
	 * server refuses it (SPEC 24). */
	mc_json_add(mcp, "http", cJSON_CreateTrue());
	mc_json_add(mcp, "sse", cJSON_CreateTrue());
	mc_json_add(caps, "mcpCapabilities", mcp);
	mc_json_add(r, "agentCapabilities", caps);
	mc_json_add(r, "authMethods", mc_json_new_arr());
	mc_json_add_str(info, "name", "mc");
	mc_json_add_str(info, "title", "mc");
	mc_json_add_str(info, "version", MC_VERSION);
	mc_json_add(r, "agentInfo", info);
	acp_reply(a, id, r);
}

/* A session begun (new or loaded) as id: its mode the run's, id known. */
static void
begun(struct acp *a, const struct start *st, const char *id)
{
	known_now(a, id);
	mode_set(a->d, st->mode);
	a->d->mode.before = st->mode;
}

static void
session_new(struct acp *a, struct start *st, const cJSON *id, const cJSON *params)
{
	struct driver *d = a->d;
	const char *cwd = mc_json_str(params, "cwd");
	char err[1024];
	int renew;
	cJSON *r;

	if (cwd_ok(cwd, err, sizeof err) == -1 ||
	    (renew = servers(a, params, err, sizeof err)) == -1) {
		acp_error(a, id, RPC_PARAMS, "session/new: %s", err);
		return;
	}
	leave(a);
	if (enter(a, st, cwd, renew, err, sizeof err) == -1) {
		acp_error(a, id, RPC_PARAMS, "session/new: %s", err);
		return;
	}
	if (session_resolve(d) == -1 || session_begin(d) == -1) {
		acp_error(a, id, RPC_INTERNAL, "session/new: the session could not be made "
		    "(mc's message is on stderr)");
		return;
	}
	mc_json_push(a->made, mc_json_new_str(d->s.file.id));
	begun(a, st, d->s.file.id);
	r = mc_json_new_obj();
	mc_json_add_str(r, "sessionId", d->s.file.id);
	mc_json_add(r, "modes", modes_of(d));
	acp_reply(a, id, r);
	acp_commands_update(a);
}

/* The session id, resumed from its file (for session/load, its history
 * replayed). 0, or -1 with err. */
static int
resume(struct acp *a, const char *sid, char *err, size_t errsz)
{
	struct driver *d = a->d;
	int r;

	leave(a);
	d->c.session = sid;
	d->c.cont = 0;
	r = session_resume(d) == -1 || session_resolve(d) == -1 ? -1 : 0;
	d->c.session = NULL;
	if (r == -1) {
		snprintf(err, errsz, "session %s could not be loaded (mc's message is on stderr)",
		    sid);
		session_forget(d);
	}
	return r;
}

static void
session_load(struct acp *a, struct start *st, const cJSON *id, const cJSON *params)
{
	const char *sid = mc_json_str(params, "sessionId"), *cwd = mc_json_str(params, "cwd");
	char err[1024];
	int renew;
	cJSON *r;

	if (sid == NULL || !mc_session_id_valid(sid)) {
		acp_error(a, id, RPC_PARAMS, "session/load: sessionId: not an mc session id");
		return;
	}
	if (cwd_ok(cwd, err, sizeof err) == -1 ||
	    (renew = servers(a, params, err, sizeof err)) == -1) {
		acp_error(a, id, RPC_PARAMS, "session/load: %s", err);
		return;
	}
	leave(a);
	/* One compacted here goes on in its new file. */
	if (enter(a, st, cwd, renew, err, sizeof err) == -1 ||
	    resume(a, file_of(a, sid) ? file_of(a, sid) : sid, err, sizeof err) == -1) {
		acp_error(a, id, RPC_PARAMS, "session/load: %s", err);
		return;
	}
	begun(a, st, sid);
	acp_replay(a);
	r = mc_json_new_obj();
	mc_json_add(r, "modes", modes_of(a->d));
	acp_reply(a, id, r);
	acp_commands_update(a);
}

/* The session a request names, in use: the one in use, or another this
 * connection made or loaded, resumed. 0, or -1 after answering id. */
static int
use(struct acp *a, const cJSON *id, const char *method, const cJSON *params)
{
	const char *sid = mc_json_str(params, "sessionId"), *file;
	char err[1024];

	if (sid == NULL || (file = file_of(a, sid)) == NULL) {
		acp_error(a, id, RPC_PARAMS, "%s: unknown session: %s", method, sid ? sid : "(none)");
		return -1;
	}
	if (a->d->s.open && strcmp(sid, a->current) == 0)
		return 0;
	if (resume(a, file, err, sizeof err) == -1) {
		acp_error(a, id, RPC_INTERNAL, "%s: %s", method, err);
		return -1;
	}
	snprintf(a->current, sizeof a->current, "%s", sid);
	return 0;
}

static void
set_mode(struct acp *a, const cJSON *id, const cJSON *params)
{
	const char *m = mc_json_str(params, "modeId");
	int k;

	if (use(a, id, "session/set_mode", params) == -1)
		return;
	if (m == NULL || (k = mode_parse(m)) == -1) {
		acp_error(a, id, RPC_PARAMS, "session/set_mode: modeId: unknown mode \"%s\" "
		    "(default, accept-edits, plan or yes)", m ? m : "");
		return;
	}
	mode_set(a->d, (enum mode)k);
	acp_reply(a, id, mc_json_new_obj());
}

/* A new session's title, from its first message (title.c), once its
 * turn is in the session. */
static void
titled(struct driver *d, const char *text)
{
	cJSON *l;
	char *t;

	if (d->s.title != NULL || (t = title_of(text)) == NULL)
		return;
	l = mc_json_new_obj();
	mc_json_add_str(l, "type", "title");
	mc_json_add_str(l, "title", t);
	if (session_add(d, l) == 0)
		d->s.title = t;
	else
		free(t);
}

/* The stopReason of a turn's outcome; NULL for a failure. */
static const char *
stop_reason(enum outcome o)
{
	switch (o) {
	case OUT_STOP:
		return "end_turn";
	case OUT_LENGTH:
		return "max_tokens";
	case OUT_MAX_STEPS:
		return "max_turn_requests";
	case OUT_REFUSAL:
		return "refusal";
	case OUT_CANCELLED:
	case OUT_TIMEOUT:
		return "cancelled";
	default:
		return NULL;
	}
}

/*
 * The prompt's images (acp_message_of's {image, media_type, name}), out
 * of blocks and attached as mc -a's are (attach.c: checked by their
 * magic bytes, at most 20 MiB, stored in $MC_HOME/blobs). 0, or -1 with
 * err and none attached. A model that takes no images gets a note in
 * their place from mc-request, as a resumed session's would.
 */
static int
images_of(struct acp *a, cJSON *blocks, char *err, size_t errsz)
{
	struct mc_buf raw = {0};
	cJSON *e, *next;
	const char *data;
	char why[1024];

	for (e = blocks != NULL ? blocks->child : NULL; e != NULL; e = next) {
		next = e->next;
		if ((data = mc_json_str(e, "image")) == NULL)
			continue;
		raw.len = 0;
		if (strlen(data) > MC_IMAGE_B64_MAX + 4 ||
		    mc_base64_decode(data, strlen(data), &raw) == -1) {
			snprintf(err, errsz, "prompt: image %s: %s", mc_json_str(e, "name"),
			    strlen(data) > MC_IMAGE_B64_MAX + 4 ? "over the 20 MiB limit for an image" :
			    "its data is no base64");
			goto fail;
		}
		if (attach_image_bytes(a->d, raw.data != NULL ? raw.data : "", raw.len,
		    mc_json_str(e, "media_type"), mc_json_str(e, "name"), why, sizeof why) == -1) {
			snprintf(err, errsz, "prompt: image %s", why);
			goto fail;
		}
		cJSON_Delete(cJSON_DetachItemViaPointer(blocks, e));
	}
	mc_buf_free(&raw);
	return 0;
fail:
	mc_buf_free(&raw);
	attach_forget(a->d);
	return -1;
}

/* A prompt's turn, answered with its stopReason (or the error). */
static void
run_turn(struct acp *a, const cJSON *id, const char *text, cJSON *blocks)
{
	struct driver *d = a->d;
	const char *why;
	enum outcome o;
	cJSON *r;

	free(a->last_error);
	a->last_error = NULL;
	a->said.len = 0;
	cJSON_Delete(a->calls);
	a->calls = mc_json_new_obj();
	acp_turn_begins(a, a->current);	/* begun as the prompt came */
	if (acp_turn_cancelled(a)) {	/* before it began: nothing sent, nothing kept */
		cJSON_Delete(blocks);
		attach_forget(d);
		acp_turn_ends(a);
		interrupted = 0;
		r = mc_json_new_obj();
		mc_json_add_str(r, "stopReason", "cancelled");
		acp_reply(a, id, r);
		return;
	}
	d->context = blocks;	/* the embedded resources: turn.c attaches them */
	o = turn(d, text);
	cJSON_Delete(d->context);	/* not taken: the turn failed before */
	d->context = NULL;
	attach_forget(d);	/* the prompt's images, when it failed before them */
	acp_turn_ends(a);
	interrupted = 0;
	known_now(a, a->current);	/* compacted meanwhile: its new file */
	titled(d, text);	/* after: a session's first items are its hooks' */
	if (o == OUT_STOP && d->mode.now == MODE_PLAN)
		acp_plan_update(a);
	if ((why = stop_reason(o)) == NULL) {
		acp_error(a, id, RPC_INTERNAL, "%s", a->last_error ? a->last_error :
		    "the turn failed; mc's message is on stderr");
		return;
	}
	r = mc_json_new_obj();
	mc_json_add_str(r, "stopReason", why);
	acp_reply(a, id, r);
}

/* /compact [FOCUS], /go [TEXT] and the custom commands: 1 when line was
 * one (answered, or *text set to the message it sends), 0 when not. */
static int
slash(struct acp *a, const cJSON *id, const char *line, char **text)
{
	struct driver *d = a->d;
	const char *arg = line + strcspn(line, " \t\n");
	size_t n = (size_t)(arg - line);
	char err[1024], *model = NULL;
	cJSON *r;
	int k;

	arg += strspn(arg, " \t\n");
	*text = NULL;
	if (n == 8 && memcmp(line, "/compact", 8) == 0) {
		acp_turn_begins(a, a->current);	/* a cancel stops it */
		k = acp_turn_cancelled(a) ? -1 : compact_run(d, COMPACT_HAND, *arg ? arg : NULL,
		    NULL);
		acp_turn_ends(a);
		known_now(a, a->current);
		if (k == -1 && !interrupted) {
			acp_error(a, id, RPC_INTERNAL, "/compact failed; mc's message is on stderr");
			return 1;
		}
		r = mc_json_new_obj();
		mc_json_add_str(r, "stopReason", interrupted ? "cancelled" : "end_turn");
		interrupted = 0;
		acp_reply(a, id, r);
		return 1;
	}
	if (n == 3 && memcmp(line, "/go", 3) == 0) {
		if ((*text = mode_go(d, arg)) == NULL) {
			acp_error(a, id, RPC_PARAMS, "/go: not in plan mode");
			return 1;
		}
		acp_mode_update(a);
		return 1;
	}
	if ((k = commands_build(d, line, text, &model, err, sizeof err)) == 0)
		return 0;
	if (k < 0) {
		acp_error(a, id, RPC_PARAMS, "%s", err);
		return 1;
	}
	if (model != NULL) {	/* the command's model, as /model would make it */
		free(d->s.model);
		d->s.model = model;
		d->s.tell_model = 1;
		session_record(d);
	}
	return 1;
}

/* session/prompt; cancelled: a session/cancel came while it waited. */
static void
prompt(struct acp *a, const cJSON *id, const cJSON *params, int cancelled)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(params, "prompt");
	char err[1536], *text, *sent = NULL;
	cJSON *blocks;

	if (!cJSON_IsArray(p)) {
		acp_error(a, id, RPC_PARAMS, "session/prompt: prompt: expected an array of blocks");
		return;
	}
	if (use(a, id, "session/prompt", params) == -1)
		return;
	if (cancelled) {	/* before it began: nothing sent, nothing kept */
		blocks = mc_json_new_obj();
		mc_json_add_str(blocks, "stopReason", "cancelled");
		acp_reply(a, id, blocks);
		return;
	}
	acp_turn_begins(a, a->current);	/* a cancel while it is taken in stops it */
	if ((text = acp_message_of(p, &blocks, err, sizeof err)) == NULL ||
	    images_of(a, blocks, err, sizeof err) == -1) {
		acp_turn_ends(a);
		acp_error(a, id, RPC_PARAMS, "session/prompt: %s", err);
		free(text);
		cJSON_Delete(blocks);
		return;
	}
	if (text[0] == '/' && text[1] != '/' && slash(a, id, text, &sent) && sent == NULL) {
		acp_turn_ends(a);
		free(text);
		cJSON_Delete(blocks);
		return;
	}
	run_turn(a, id, sent ? sent : text[0] == '/' && text[1] == '/' ? text + 1 : text, blocks);
	free(sent);
	free(text);
}

/* One message of the client's: its method run, or the error said. */
static void
handle(struct acp *a, struct start *st, const cJSON *m)
{
	const char *method = mc_json_str(m, "method");
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");

	if (method == NULL) {
		acp_error(a, id, RPC_INVALID, "invalid request: no method");
		return;
	}
	if (params != NULL && !cJSON_IsObject(params) && !cJSON_IsNull(params)) {
		if (id != NULL)
			acp_error(a, id, RPC_PARAMS, "%s: params: expected an object", method);
		return;
	}
	if (id == NULL)
		return;		/* a notification mc has no use for */
	if (strcmp(method, "initialize") == 0)
		initialize(a, id, params);
	else if (strcmp(method, "authenticate") == 0)
		acp_reply(a, id, mc_json_new_obj());	/* no methods: nothing to do */
	else if (!a->initialized)
		acp_error(a, id, RPC_INVALID, "%s: initialize comes first", method);
	else if (strcmp(method, "session/new") == 0)
		session_new(a, st, id, params);
	else if (strcmp(method, "session/load") == 0)
		session_load(a, st, id, params);
	else if (strcmp(method, "session/prompt") == 0)
		prompt(a, id, params, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m,
		    ACP_CANCELLED)));
	else if (strcmp(method, "session/set_mode") == 0)
		set_mode(a, id, params);
	else
		acp_error(a, id, RPC_METHOD, "method not found: %s", method);
}

int
acp_main(struct driver *d)
{
	struct acp a = { .d = d };
	struct front f = { .event = acp_event, .asks = acp_asks, .buffers = acp_buffers,
	    .load = acp_load, .save = acp_save, .arg = &a };
	struct start st = { .mode = d->mode.now };
	cJSON *m;

	/* The turn's events go to the front end, never to stdout. */
	d->c.json = 1;
	d->front = &f;
	d->t.out = d->t.color = 0;
	a.known = mc_json_new_obj();
	a.made = mc_json_new_arr();
	a.calls = mc_json_new_obj();
	mc_settings_warn(&d->c.set);	/* once for the run: the stages get -q */
	ev_json_mode(d);	/* the driver's errors are events: a prompt's answer names them */
	if (acp_wire_start(&a) == -1) {
		mc_diag_hook = NULL;
		d->front = NULL;
		return MC_EXIT_FAIL;
	}
	while (!terminated && (m = acp_next(&a)) != NULL) {
		handle(&a, &st, m);
		cJSON_Delete(m);
	}
	sweep(&a);
	acp_wire_stop(&a);
	mc_diag_hook = NULL;	/* no front end for them now */
	d->front = NULL;
	cJSON_Delete(a.known);
	cJSON_Delete(a.made);
	cJSON_Delete(a.calls);
	free(a.last_error);
	mc_buf_free(&a.said);
	free(d->mcp.more);
	d->mcp.more = NULL;
	return MC_EXIT_OK;
}
