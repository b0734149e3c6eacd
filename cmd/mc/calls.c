/* calls.c: one tool call: approval, mc-tool call, the guides of the paths it touched. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

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

/* Asked for: the tools that change things or run commands. */
static int
guarded(const struct driver *d, const char *name)
{
	if (mcp_has(d, name))
		return mcp_guarded(d, name);
	return strcmp(name, "write") == 0 || strcmp(name, "edit") == 0 ||
	    strcmp(name, "bash") == 0;
}

/*
 * May this call run? 1 yes; 0 no, with *why the output the model gets;
 * -1 when the user interrupted the question. *by says who decided:
 * "policy", "yes", "always" or "user".
 */
static int
approve(struct driver *d, const char *name, const char **why, const char **by)
{
	struct termios quiet;
	const char *line;
	const cJSON *e;
	int n, r = -1;

	*by = "policy";
	if (!guarded(d, name))
		return 1;
	*by = "always";
	cJSON_ArrayForEach(e, d->s.always)
		if (strcmp(e->valuestring, name) == 0)
			return 1;
	if (d->t.el == NULL) {
		*by = d->c.yes ? "yes" : "policy";
		if (d->c.yes)
			return 1;
		*why = "refused: this one-shot run of mc may not write, edit or run "
		    "commands unless it is given --yes. Say what you would do instead, "
		    "or ask the user to run it again with --yes.";
		return 0;
	}
	*by = "user";
	snprintf(d->t.ask, sizeof d->t.ask, "allow %s? [y]es, [n]o, [a]lways this session: ", name);
	while (r == -1) {
		if (d->t.tio_ok)
			tcsetattr(STDIN_FILENO, TCSANOW, &d->t.tio);
		line = el_gets(d->t.el, &n);
		if (d->t.tio_ok) {
			quiet = d->t.tio;
			quiet.c_lflag &= ~(tcflag_t)ECHO;
			tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
		}
		if (interrupted || line == NULL || n <= 0)
			break;
		switch (tolower((unsigned char)line[0])) {
		case 'y':
			r = 1;
			break;
		case 'a':
			if (d->s.always == NULL)
				d->s.always = mc_json_new_arr();
			mc_json_push(d->s.always, mc_json_new_str(name));
			r = 1;
			break;
		case 'n':
			*why = "refused: the user did not allow this call.";
			r = 0;
			break;
		}
	}
	d->t.ask[0] = '\0';
	return r;
}

static int
collect(void *arg, const char *p, size_t n)
{
	struct mc_buf *b = arg;

	mc_buf_add(b, p, n);
	return b->len > TOOL_OUTPUT_CAP ? -1 : 0;
}

/*
 * Run call through `mc-tool call`: its output item, or NULL. The paths
 * it touched come back through a pipe named to it as --touched-out
 * /dev/fd/N, and are added to touched.
 */
static cJSON *
tool_call(const cJSON *call, struct mc_buf *touched, int *st)
{
	char *argv[] = { "mc-tool", "call", "--touched-out", NULL, NULL }, path[24], err[256];
	struct mc_buf out = {0}, in = {0};
	struct mc_feed back = { .wr = -1 };
	struct mc_filter f = { .out = collect, .arg = &out, .stop = &interrupted,
	    .feeds = &back, .nfeeds = 1 };
	int fds[2];
	cJSON *item = NULL;
	char *text;

	if (pipe2(fds, O_CLOEXEC) == -1) {
		mc_err("pipe: %s", strerror(errno));
		return NULL;
	}
	/* A feed with no data: only its descriptor, the write end, goes to
	 * mc-tool; the read end stays here. */
	back.fd = fds[1];
	snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
	argv[3] = path;
	if ((text = cJSON_PrintUnformatted(call)) == NULL)
		mc_oom();
	mc_buf_adds(&in, text);
	mc_buf_addc(&in, '\n');
	free(text);
	f.in = in.data;
	f.inlen = in.len;
	if (mc_filter_run(argv, &f, st, err, sizeof err) == -1)
		mc_err("%s", err);
	else {
		/* mc-tool has ended: all it wrote is in the pipe. */
		fcntl(fds[0], F_SETFL, O_NONBLOCK);
		if (mc_fd_slurp(fds[0], TOUCHED_CAP, touched) == -1 && errno != EAGAIN)
			mc_warn("the paths mc-tool touched: %s", strerror(errno));
		/* An unknown or disabled tool is mc-tool's exit 1, with an
		 * output naming the tools there are: the model should read it. */
		if (!interrupted && (stage_ok("mc-tool", *st) ||
		    (WIFEXITED(*st) && WEXITSTATUS(*st) == MC_EXIT_FAIL)))
			item = mc_json_parse(out.data ? out.data : "", out.len, err, sizeof err);
	}
	close(fds[0]);
	mc_buf_free(&in);
	mc_buf_free(&out);
	return item;
}

/* With --json: an approval event. */
static void
approval_event(struct driver *d, const char *cid, const char *name, int ok, const char *by)
{
	cJSON *ev;

	if (!d->c.json)
		return;
	ev = ev_new("approval");
	mc_json_add_str(ev, "call_id", cid ? cid : "");
	mc_json_add_str(ev, "name", name);
	mc_json_add_str(ev, "decision", ok == 1 ? "allowed" : "refused");
	mc_json_add_str(ev, "by", by);
	ev_emit(d, ev);
}

/* Run one function_call; its output joins the session. */
int
call_run(struct driver *d, const cJSON *call, struct mc_buf *touched)
{
	const char *name = mc_json_str(call, "name"), *cid = mc_json_str(call, "call_id");
	const char *why = NULL, *type, *ocid, *by;
	cJSON *item;
	int ok, st;

	if (name == NULL)
		name = "";
	announce(d, name, call);
	ok = approve(d, name, &why, &by);
	approval_event(d, cid, name, ok, by);
	if (ok <= 0) {
		if (call_output(d, call, ok == 0 ? why :
		    "error: the user interrupted before this call ran.") == -1)
			return MC_EXIT_FAIL;
		return ok == 0 ? MC_EXIT_OK : MC_EXIT_INTR;
	}
	item = mcp_has(d, name) ? mcp_call(d, call) : tool_call(call, touched, &st);
	type = mc_json_str(item, "type");
	ocid = mc_json_str(item, "call_id");
	if (item == NULL || type == NULL || strcmp(type, "function_call_output") != 0 ||
	    ocid == NULL || cid == NULL || strcmp(ocid, cid) != 0) {
		/* The history must hold an output for every call, so the model
		 * hears of the failure and the session stays valid. */
		cJSON_Delete(item);
		if (call_output(d, call, interrupted ?
		    "error: the user interrupted this call." :
		    "error: mc-tool could not run this call.") == -1)
			return MC_EXIT_FAIL;
		return interrupted ? MC_EXIT_INTR : MC_EXIT_OK;
	}
	return output_item(d, name, item) == 0 ? MC_EXIT_OK : MC_EXIT_FAIL;
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
			struct mc_buf b = {0};

			if (path == NULL || content == NULL || guide_known(d, path))
				continue;
			mc_buf_printf(&b, "<Context File=%s>\n%s%s</Context>", path, content,
			    *content && content[strlen(content) - 1] == '\n' ? "" : "\n");
			if (session_add(d, mc_item_message("user", b.data)) == -1) {
				mc_buf_free(&b);
				break;
			}
			mc_buf_free(&b);
			guide_remember(d, path, strlen(path));
		}
		cJSON_Delete(doc);
	}
	free(paths);
}
