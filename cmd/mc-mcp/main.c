/* mc-mcp: the tools of MCP servers (stdio or HTTP): listing them, calling one, and serving them, their resources and prompts for a session. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "image.h"
#include "fsread.h"
#include "items.h"
#include "json.h"
#include "settings.h"
#include "toolenv.h"
#include "mcp.h"

static const char usage[] =
    "usage: mc-mcp [-q] list [-C DIR] [--pretty]\n"
    "       mc-mcp [-q] call [-C DIR]\n"
    "       mc-mcp [-q] serve [-C DIR] [--servers FILE]\n"
    "\n"
    "The tools of the MCP servers in settings (mcp_servers), each named\n"
    "SERVER__TOOL. list writes their definitions as one JSON array, as\n"
    "mc-tool list does. call reads one function_call item on stdin, calls the\n"
    "tool and writes one function_call_output item. serve keeps the servers\n"
    "running for a session: it writes the tools as one line, then answers each\n"
    "function_call line on stdin with one function_call_output line.\n"
    "\n"
    "  -C DIR       run the servers in DIR (the working directory)\n"
    "  --servers FILE\n"
    "               more servers, beside the settings': a JSON object of them,\n"
    "               as mcp_servers holds them (an editor's, for mc acp)\n"
    "  --pretty     indent the JSON of list\n"
    "  -q           no warnings, and the servers' stderr not passed on\n"
    "  -h, --help   show this help\n"
    "  --version    show the version\n";

cJSON *
mcp_call_args(const cJSON *item, char **out)
{
	char err[256];
	cJSON *args;

	if ((args = mc_item_call_args(item, err, sizeof err)) == NULL &&
	    asprintf(out, "error: the arguments of this %s call %s; send one JSON object "
	    "as the tool's schema describes", mc_json_str(item, "name"), err) == -1)
		mc_oom();
	return args;
}

int
mcp_write_output(const char *call_id, const char *text, const cJSON *images)
{
	cJSON *item = mc_item_output(call_id, text);
	int rc;

	if (images != NULL)
		cJSON_AddItemReferenceToObject(item, MC_IMAGE_DATA,
		    mc_json_arr(images, MC_IMAGE_DATA));
	rc = mc_json_write(stdout, item, 0);
	cJSON_Delete(item);
	if (rc == 0 && fflush(stdout) == EOF)
		rc = -1;
	return rc;
}

char *
mcp_unknown(const struct mcp *m, const char *name)
{
	struct mc_buf b = {0};
	const cJSON *t;
	size_t i, n = 0;

	/* Its server is the one to blame, and has said why. */
	for (i = 0; i < m->n; i++)
		if (mcp_names_server(name, m->sv[i].name) && !m->sv[i].ok && m->sv[i].why != NULL) {
			mc_buf_printf(&b, "error: the MCP server \"%s\" of this tool is not running: %s",
			    m->sv[i].name, m->sv[i].why);
			return mc_buf_steal(&b);
		}
	mc_err("unknown tool: %s", name);
	mc_buf_printf(&b, "error: there is no MCP tool named \"%s\"; the MCP tools are: ", name);
	cJSON_ArrayForEach(t, m->list)
		mc_buf_printf(&b, "%s%s", n++ ? ", " : "", mc_json_str(t, "name"));
	if (n == 0)
		mc_buf_adds(&b, "none");
	return mc_buf_steal(&b);
}

char *
mcp_failed_output(const struct server *sv)
{
	char *s;

	if (sv->timed_out) {
		if (asprintf(&s, "error: the MCP server \"%s\" did not answer within %u s; the call was "
		    "cancelled", sv->name, sv->timeout_s) == -1)
			mc_oom();
	} else if (asprintf(&s, "error: the MCP server \"%s\" failed: %s", sv->name,
	    sv->why ? sv->why : "it stopped") == -1)
		mc_oom();
	return s;
}

/* Whether v (a member of --servers FILE's object) has strings only:
 * v itself (kind 0), an array of them (1), an object of them (2). */
static int
strings(const cJSON *v, int kind)
{
	const cJSON *e;

	if (kind == 0)
		return cJSON_IsString(v);
	if (kind == 1 ? !cJSON_IsArray(v) : !cJSON_IsObject(v))
		return 0;
	cJSON_ArrayForEach(e, v)
		if (!cJSON_IsString(e))
			return 0;
	return 1;
}

/*
 * --servers FILE: an object of servers as mcp_servers holds them, each
 * a command (args, env) or a url (headers), checked as the settings are.
 * The object, or NULL after saying why.
 */
static cJSON *
servers_read(const char *path)
{
	static const struct { const char *key; int kind; } keys[] = {
		{ "command", 0 }, { "url", 0 }, { "args", 1 }, { "env", 2 }, { "headers", 2 },
	};
	struct mc_buf b = {0};
	char err[512];
	const cJSON *e, *v;
	cJSON *doc;
	size_t i;

	if (mc_slurp_path(path, 1u << 20, &b, err, sizeof err) == -1) {
		mc_err("%s", err);
		return NULL;
	}
	doc = mc_json_parse(b.data ? b.data : "", b.len, err, sizeof err);
	mc_buf_free(&b);
	if (!cJSON_IsObject(doc)) {
		mc_err("%s: %s", path, doc == NULL ? err : "not a JSON object of servers");
		cJSON_Delete(doc);
		return NULL;
	}
	cJSON_ArrayForEach(e, doc) {
		if (!cJSON_IsObject(e) || (mc_json_str(e, "command") == NULL &&
		    mc_json_str(e, "url") == NULL)) {
			mc_err("%s: %s: expected an object with \"command\" or \"url\"", path, e->string);
			cJSON_Delete(doc);
			return NULL;
		}
		for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
			if ((v = cJSON_GetObjectItemCaseSensitive(e, keys[i].key)) != NULL &&
			    !strings(v, keys[i].kind)) {
				mc_err("%s: %s.%s: expected %s", path, e->string, keys[i].key,
				    keys[i].kind == 0 ? "a string" : keys[i].kind == 1 ?
				    "an array of strings" : "an object of strings");
				cJSON_Delete(doc);
				return NULL;
			}
	}
	return doc;
}

/* Server e (of the settings, or of --servers FILE at path) into m's
 * list, unless disabled; -1 when it cannot be run. */
static int
server_add(struct mcp *m, const cJSON *e, const char *path)
{
	const char *cmd;
	struct server *sv;
	const cJSON *t;

	if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(e, "enabled")))
		return 0;
	if (mc_json_str(e, "url") != NULL && *mc_json_str(e, "url") != '\0')
		;	/* remote: spoken to by mc-mcp bridge */
	else if ((cmd = mc_json_str(e, "command")) == NULL || *cmd == '\0') {
		mc_err("%s: mcp_servers.%s.command: %s", path, e->string,
		    cmd ? "expected the program to run, not an empty string" :
		    "missing: the program that runs the server (or \"url\" for a remote one)");
		return -1;
	}
	sv = &m->sv[m->n++];
	sv->name = e->string;
	sv->conf = e;
	sv->in = sv->out = sv->err = -1;
	t = cJSON_GetObjectItemCaseSensitive(e, "timeout_s");
	sv->timeout_s = !cJSON_IsNumber(t) ? MCP_TIMEOUT :
	    t->valuedouble > 1e6 ? 1000000 : (unsigned)t->valuedouble;
	return 0;
}

/* The enabled servers, in settings order, then those of --servers (one
 * the settings name already is theirs); -1 when one cannot be run. */
static int
load_servers(struct mcp *m, const struct mc_settings *s, const cJSON *more, const char *path)
{
	const cJSON *e, *all = mc_settings_get(s, "mcp_servers");

	if ((m->sv = calloc((size_t)cJSON_GetArraySize(all) + (size_t)cJSON_GetArraySize(more) + 1,
	    sizeof *m->sv)) == NULL)
		mc_oom();
	cJSON_ArrayForEach(e, all)
		if (server_add(m, e, s->path) == -1)
			return -1;
	cJSON_ArrayForEach(e, more) {
		if (mc_json_obj(all, e->string) != NULL)
			mc_warn("%s: %s: the settings have a server of that name; theirs is used",
			    path, e->string);
		else if (server_add(m, e, path) == -1)
			return -1;
	}
	return 0;
}

/* Wait until no server has a request in flight. Returns -1 when a
 * signal came first. */
static int
settle(struct mcp *m)
{
	size_t i;
	int busy;

	for (;;) {
		for (i = 0, busy = 0; i < m->n; i++)
			busy |= mcp_busy(&m->sv[i]);
		if (!busy)
			return 0;
		if (mcp_got_int || mcp_got_stop)
			return -1;
		mcp_pump(m, -1, -1);
	}
}

static int
cmd_list(struct mcp *m, int pretty)
{
	size_t i, ok = 0;
	int rc;

	for (i = 0; i < m->n; i++) {
		m->sv[i].want_tools = 1;
		mcp_start(m, &m->sv[i]);
	}
	if (settle(m) == -1) {
		mcp_stop_all(m);
		return MC_EXIT_INTR;
	}
	mcp_build_list(m);
	rc = mc_json_write(stdout, m->list, pretty);
	fflush(stdout);
	mcp_stop_all(m);
	for (i = 0; i < m->n; i++)
		ok += m->sv[i].ok;
	if (rc == -1 && errno != EPIPE)
		return MC_EXIT_FAIL;
	return m->n > 0 && ok == 0 ? MC_EXIT_FAIL : MC_EXIT_OK;
}

/* Progress of sv's call, as a line for the driver's status line. */
static void
progress_line(struct server *sv)
{
	const cJSON *p = sv->progress;
	cJSON *line = mc_json_new_obj();
	const cJSON *v;

	mc_json_add_str(line, "type", "progress");
	mc_json_add_str(line, "server", sv->name);
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(p, "progress")))
		mc_json_add_num(line, "progress", v->valuedouble);
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(p, "total")))
		mc_json_add_num(line, "total", v->valuedouble);
	if (mc_json_str(p, "message") != NULL)
		mc_json_add_str(line, "message", mc_json_str(p, "message"));
	mc_json_write(stdout, line, 0);
	fflush(stdout);
	cJSON_Delete(line);
}

/* The log lines that came during sv's call: said, or (serve) written as
 * {"type":"log","text"} lines for the driver to say. */
static void
log_lines(const struct mcp *m, struct server *sv)
{
	const char *p, *end = sv->logs.data + sv->logs.len;
	cJSON *line;

	for (p = sv->logs.data; p != NULL && p < end; p += strlen(p) + 1) {
		if (!m->progress_lines) {
			mc_err("%s", p);
			continue;
		}
		line = mc_json_new_obj();
		mc_json_add_str(line, "type", "log");
		mc_json_add_str(line, "text", p);
		mc_json_write(stdout, line, 0);
		cJSON_Delete(line);
	}
	fflush(stdout);
	sv->logs.len = 0;
}

/* What came meanwhile of sv's call: its latest progress, its log lines. */
static void
call_news(const struct mcp *m, struct server *sv)
{
	if (sv->progress != NULL) {
		if (m->progress_lines)
			progress_line(sv);
		cJSON_Delete(sv->progress);
		sv->progress = NULL;
	}
	if (sv->logs.len > 0)
		log_lines(m, sv);
}

/* Wait for the answer to sv's request in flight. -1 when a signal came first. */
static int
await(struct mcp *m, struct server *sv)
{
	while (sv->st == SV_CALL) {
		if (mcp_got_int || mcp_got_stop) {
			mcp_cancel(sv, mcp_got_stop ? "the client is stopping" : "cancelled by the user");
			call_news(m, sv);
			return -1;
		}
		mcp_pump(m, -1, -1);
		call_news(m, sv);
	}
	/* A server that failed has its exit status still to say. */
	while (sv->st == SV_STOPPING)
		mcp_pump(m, -1, -1);
	call_news(m, sv);
	return 0;
}

int
mcp_run_call(struct mcp *m, struct server *sv, const char *tool, cJSON *args, int as_task, char **out,
    cJSON **images)
{
	mcp_call(sv, tool, args, as_task);
	if (await(m, sv) == -1)
		return -1;
	*out = sv->answer != NULL ? mcp_answer_text(sv->answer, images) : mcp_failed_output(sv);
	return 0;
}

int
mcp_run_ask(struct mcp *m, struct server *sv, const char *method, cJSON *params, char **out)
{
	mcp_ask(sv, method, params);
	if (await(m, sv) == -1)
		return -1;
	*out = sv->answer != NULL ? mcp_other_text(sv, sv->answer, method) : mcp_failed_output(sv);
	return 0;
}

static int
cmd_call(struct mcp *m)
{
	const struct toolref *ref;
	int intr = 0, status = MC_EXIT_OK;
	const char *call_id, *name;
	char err[256], *out = NULL;
	cJSON *item, *args, *images = NULL;
	size_t i;

	if ((item = mc_item_call_read(STDIN_FILENO, err, sizeof err)) == NULL) {
		mc_err("stdin: %s", err);
		return MC_EXIT_FAIL;
	}
	call_id = mc_json_str(item, "call_id");
	name = mc_json_str(item, "name");
	/* Only the server the name can come from is started. */
	for (i = 0; i < m->n; i++)
		if (mcp_names_server(name, m->sv[i].name)) {
			m->sv[i].want_tools = 1;
			mcp_start(m, &m->sv[i]);
		}
	if (settle(m) == -1)
		intr = 1;
	else {
		mcp_build_list(m);
		if ((ref = mcp_find_tool(m, name)) == NULL) {
			out = mcp_unknown(m, name);
			status = MC_EXIT_FAIL;
		} else if ((args = mcp_call_args(item, &out)) != NULL)
			intr = mcp_run_call(m, ref->sv, ref->tool, args, ref->task, &out,
			    &images) == -1;
	}
	if (intr) {
		out = mc_strdup("error: cancelled by the user");
		status = MC_EXIT_INTR;
	}
	if (mcp_write_output(call_id, out, images) == -1 && errno != EPIPE)
		status = MC_EXIT_FAIL;
	cJSON_Delete(images);
	free(out);
	mcp_stop_all(m);
	cJSON_Delete(item);
	return status;
}

int
main(int argc, char *argv[])
{
	enum { OPT_PRETTY = 256, OPT_SERVERS };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "pretty", no_argument, NULL, OPT_PRETTY },
		{ "servers", required_argument, NULL, OPT_SERVERS },
		{ "version", no_argument, NULL, MC_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	const char *dir = NULL, *sub, *more_path = NULL;
	cJSON *more = NULL;
	struct mc_settings s;
	struct mcp m = {0};
	int c, pretty = 0, status;
	char err[1024], *cwd;

	mc_init("mc-mcp", argv);
	/* Descriptors the caller left open are none of a server's business:
	 * one holding a pipe of the driver's would keep it from its end. */
	(void)close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
	while ((c = getopt_long(argc, argv, "C:hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			dir = optarg;
			break;
		case 'q':
			mc_quiet = 1;
			break;
		case OPT_SERVERS:
			more_path = optarg;
			break;
		case OPT_PRETTY:
			pretty = 1;
			break;
		default:	/* -h, --version or a bad option */
			return mc_opt_exit(c, usage);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		return mc_usage_error("missing command: list, call or serve");
	sub = argv[0];
	/* Started by mc-mcp itself for a remote server (remote.c). */
	if (strcmp(sub, "bridge") == 0 && argc == 1)
		return mc_finish(mcp_bridge());
	if (strcmp(sub, "list") != 0 && strcmp(sub, "call") != 0 && strcmp(sub, "serve") != 0)
		return mc_usage_error("unknown command: %s", sub);
	if (argc > 1)
		return mc_usage_error("unexpected argument: %s", argv[1]);
	if (more_path != NULL && strcmp(sub, "serve") != 0)
		return mc_usage_error("--servers applies to serve only");
	if (pretty && strcmp(sub, "list") != 0)
		return mc_usage_error("--pretty applies to list only");

	if (mc_settings_load(&s, err, sizeof err) == -1) {
		mc_err("%s", err);
		return MC_EXIT_FAIL;
	}
	mc_settings_warn(&s);
	/* No server, nor anything it starts, may hold a provider's key. */
	mc_env_free(mc_keys_take(&s));
	m.s = &s;
	if ((more_path != NULL && (more = servers_read(more_path)) == NULL) ||
	    load_servers(&m, &s, more, more_path) == -1) {
		status = MC_EXIT_FAIL;
		goto done;
	}
	if (dir != NULL && chdir(dir) == -1) {
		mc_err("%s: %s", dir, strerror(errno));
		status = MC_EXIT_FAIL;
		goto done;
	}
	/* The servers are started without a shell, which would set it. */
	if ((cwd = getcwd(NULL, 0)) != NULL)
		setenv("PWD", cwd, 1);
	free(cwd);
	mcp_signals();
	if (strcmp(sub, "list") == 0)
		status = cmd_list(&m, pretty);
	else if (strcmp(sub, "call") == 0)
		status = cmd_call(&m);
	else
		status = mcp_serve(&m);
done:
	mcp_free(&m);
	cJSON_Delete(more);
	mc_settings_free(&s);
	return mc_finish(status);
}
