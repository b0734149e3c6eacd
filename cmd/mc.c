/* mc: the driver: one-shot and interactive sessions composed from the suite's programs. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <histedit.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <bsd/stdlib.h>

#include "buf.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "pipeline.h"
#include "request.h"
#include "session.h"
#include "settings.h"
#include "term.h"
#include "utf8.h"

#define STDIN_CAP (1u << 20)		/* piped input joined to a one-shot prompt */
#define PROMPT_CAP (8u << 20)		/* the assembled system prompt, as mc-request takes it */
#define DOC_CAP (64u << 20)		/* a context document */
#define ENVELOPE_CAP (MC_SESSION_MAX + PROMPT_CAP)
#define ITEMS_CAP (64u << 20)		/* the items of one answer */
#define ARG_TEXT_MAX (64u << 10)	/* a message passed as an argument (Linux takes 128 KiB) */

static const char usage[] =
    "usage: mc [-c | --session ID] [-p NAME] [-m ID] [--agent ID] [-y] [--max-steps N]\n"
    "          [PROMPT ...]\n"
    "       mc [-c | --session ID] [-p NAME] [-m ID] [--agent ID] --dry-run PROMPT ...\n"
    "       mc prompt [-m ID] [--agent ID] [--stats]\n"
    "\n"
    "Ask the model; with no PROMPT on a terminal, start an interactive session.\n"
    "Piped standard input is appended to PROMPT as a fenced block.\n"
    "\n"
    "  -c, --continue    resume the latest session of this directory\n"
    "  --session ID      resume session ID\n"
    "  -p, --provider N  use provider N\n"
    "  -m, --model ID    use model ID\n"
    "  --agent ID        take the role of $MC_HOME/agents/ID.md\n"
    "  -y, --yes         one-shot: allow write, edit and bash without asking\n"
    "  --max-steps N     send at most N times per message (default 50)\n"
    "  --dry-run         print the request envelope instead of sending it\n"
    "  --stats           with prompt: a table of the prompt's sections\n"
    "  -h, --help        show this help\n"
    "  --version         show the version\n";

static const char help_text[] =
    "  /help         this list\n"
    "  /prompt       show the system prompt\n"
    "  /skills       list the skills\n"
    "  /context      instruction files, prompt size and session\n"
    "  /model [ID]   show or change the model\n"
    "  /new          start a new session\n"
    "  /exit         leave (or Ctrl-D)\n"
    "End a line with \\ to continue it; a line \"\"\" opens and closes a block.\n"
    "Ctrl-C cancels the answer in flight.\n";

static struct {
	const char *provider, *model, *agent, *session;
	int cont, dry, stats, yes;
	long long max_steps;
} opt = { .max_steps = 50 };

static volatile sig_atomic_t interrupted;

struct driver {
	struct mc_settings set;
	char *cwd;
	char *provider, *model;	/* NULL: left to the stages' defaults */
	struct mc_buf prompt;	/* the assembled system prompt */
	struct mc_session ses;	/* ses.fd is -1 until the session exists */
	char *tmpdir;		/* holds the items mc-send writes, the tools */
	char *items_path;
	char *touched_path;	/* the paths a tool call touched */
	char *tools_path;	/* `mc-tool list`, once per launch */
	int no_tools;		/* mc-tool is not installed */
	char **injected;	/* guides already in the session */
	size_t ninjected;
	cJSON *always;		/* tools the user allowed for the session */
	EditLine *el;		/* the interactive session's line editor */
	struct termios tio;	/* the terminal as the session found it */
	int tio_ok;
	char ask[160];		/* the prompt of a question, when one is asked */
	int tty;		/* stdout is a terminal: filter model text */
	int color;
	int more;		/* reading a continuation line */
};

/* An argument vector for a stage; the programs never change argv. */
struct args {
	char *v[24];
	int n;
};

static void
arg(struct args *a, const char *s)
{
	if (a->n + 1 < (int)(sizeof a->v / sizeof a->v[0]))
		a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

static void
on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* False, after saying why when the stage could not, unless it exited 0.
 * A stage that exited non-zero has printed its own message. */
static int
stage_ok(const char *name, int status)
{
	char why[128];

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	if (interrupted)
		return 0;
	if (mc_pipeline_strstatus(status, why, sizeof why) != NULL)
		mc_err("%s: %s", name, why);
	return 0;
}

/* Write text from a file, the model or a stage: filtered on a terminal. */
static int
show(const struct driver *d, const char *p, size_t n)
{
	struct mc_term t = {0};
	struct mc_buf b = {0};
	int r;

	if (!d->tty)
		return fwrite(p, 1, n, stdout) == n ? 0 : -1;
	mc_term_filter(&t, p, n, &b);
	mc_term_flush(&t, &b);
	r = b.len && fwrite(b.data, 1, b.len, stdout) != b.len ? -1 : 0;
	mc_buf_free(&b);
	return r;
}

static void
render_args(const struct driver *d, struct args *a, int stats)
{
	arg(a, "mc-render");
	if (opt.agent) {
		arg(a, "--agent");
		arg(a, opt.agent);
	}
	if (d->model) {
		arg(a, "--model");
		arg(a, d->model);
	}
	if (stats)
		arg(a, "--stats");
}

/* The argument vectors of mc-discover, mc-skills and mc-render. */
static void
stage_args(const struct driver *d, struct args a[3], int stats)
{
	arg(&a[0], "mc-discover");
	arg(&a[0], "-q");
	arg(&a[0], "--keep-going");
	arg(&a[1], "mc-skills");
	arg(&a[1], "-q");
	arg(&a[1], "--keep-going");
	render_args(d, &a[2], stats);
}

/*
 * Start mc-discover | mc-skills [| mc-render ...] from /dev/null, into
 * out_fd or, when out_fd is -1, a pipe read from *rd. 0, or -1 after
 * saying why.
 */
static int
stages_start(struct args a[3], int render, int out_fd,
    struct mc_pipeline *p, int *rd)
{
	char *const *argvs[3] = { a[0].v, a[1].v, a[2].v };
	char err[256];
	int in, r;

	if ((in = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1) {
		mc_err("/dev/null: %s", strerror(errno));
		return -1;
	}
	r = mc_pipeline_start(p, argvs, render ? 3 : 2, in, out_fd, rd, err, sizeof err);
	close(in);
	if (r == -1)
		mc_err("%s", err);
	return r;
}

/* Reap the stages; 0 when every one succeeded, else -1 after saying why. */
static int
stages_wait(struct mc_pipeline *p)
{
	int bad;

	if ((bad = mc_pipeline_wait(p)) >= 0) {
		stage_ok(p->name[bad], p->status[bad]);
		return -1;
	}
	return 0;
}

/* Read a stage's output up to cap; -1 after saying why. */
static int
stage_output(int fd, size_t cap, const char *name, struct mc_buf *out)
{
	out->len = 0;
	if (mc_fd_slurp(fd, cap, out) == 0)
		return 0;
	mc_err("%s: output: %s", name, errno == EFBIG ? "over the size limit" : strerror(errno));
	return -1;
}

/*
 * Run mc-discover | mc-skills [| mc-render ...] from /dev/null, into out_fd
 * or, when out_fd is -1, into out. Returns 0 when every stage succeeded.
 */
static int
pipeline(const struct driver *d, int render, int stats, int out_fd, struct mc_buf *out)
{
	struct args a[3] = {0};
	struct mc_pipeline p;
	int rd = -1, slurp = 0;

	stage_args(d, a, stats);
	if (stages_start(a, render, out_fd, &p, &rd) == -1)
		return -1;
	if (out_fd == -1) {
		slurp = stage_output(rd, render ? PROMPT_CAP : DOC_CAP,
		    render ? "mc-render" : "mc-skills", out);
		if (slurp == -1)
			mc_pipeline_kill(&p, SIGTERM);
		close(rd);
	}
	if (stages_wait(&p) == -1)
		return -1;
	return slurp;
}

/* The system prompt, assembled once per session launch; on failure the
 * one in use stays. */
static int
assemble(struct driver *d)
{
	struct mc_buf b = {0};

	if (pipeline(d, 1, 0, -1, &b) == -1) {
		mc_buf_free(&b);
		return -1;
	}
	mc_buf_free(&d->prompt);
	d->prompt = b;
	return 0;
}

/* The context document (instructions and skills), parsed. */
static cJSON *
context_doc(const struct driver *d)
{
	struct mc_buf b = {0};
	char err[256];
	cJSON *doc = NULL;

	if (pipeline(d, 0, 0, -1, &b) == 0 &&
	    (doc = mc_json_parse(b.data ? b.data : "", b.len, err, sizeof err)) == NULL)
		mc_err("mc-skills: output: %s", err);
	mc_buf_free(&b);
	return doc;
}

static int
collect(void *arg, const char *p, size_t n)
{
	struct mc_buf *b = arg;

	/* Past the cap the program is stopped; the length tells the caller. */
	mc_buf_add(b, p, n);
	return b->len > ENVELOPE_CAP ? -1 : 0;
}

/* mc-request for the items, with the tools (and an extra trailing PROMPT). */
static void
request_args(const struct driver *d, const char *items, const char *tools, const char *extra,
    struct args *a)
{
	arg(a, "mc-request");
	if (d->provider) {
		arg(a, "-p");
		arg(a, d->provider);
	}
	if (d->model) {
		arg(a, "-m");
		arg(a, d->model);
	}
	if (items) {
		arg(a, "--items");
		arg(a, items);
	}
	if (tools) {
		arg(a, "--tools");
		arg(a, tools);
	}
	if (extra) {
		arg(a, "--");
		arg(a, extra);
	}
}

/* The envelope for the session's items. */
static int
request(struct driver *d, const char *items, struct mc_buf *env)
{
	struct mc_filter f = { .in = d->prompt.data, .inlen = d->prompt.len,
	    .out = collect, .arg = env, .stop = &interrupted };
	struct args a = {0};
	char err[256];
	int st;

	request_args(d, items, d->tools_path, NULL, &a);
	env->len = 0;
	if (mc_filter_run(a.v, &f, &st, err, sizeof err) == -1) {
		mc_err("%s", err);
		return -1;
	}
	if (env->len > ENVELOPE_CAP) {
		mc_err("mc-request: envelope over the %u-byte limit", (unsigned)ENVELOPE_CAP);
		return -1;
	}
	return stage_ok("mc-request", st) ? 0 : -1;
}

/* What the output of one answer needs while it streams. */
struct stream {
	struct driver *d;
	struct mc_term term;
	struct mc_buf clean;
	struct mc_buf text;	/* the answer as it came, kept should it be cancelled */
	int started;		/* the first byte arrived */
	int closed;		/* stdout went away */
	char last;		/* the last byte shown */
};

static int
stream_out(void *arg, const char *p, size_t n)
{
	struct stream *s = arg;
	const char *w = p;
	size_t wn = n;

	s->started = 1;
	if (s->text.len < ITEMS_CAP)
		mc_buf_add(&s->text, p, n < ITEMS_CAP - s->text.len ? n : ITEMS_CAP - s->text.len);
	if (s->d->tty) {
		s->clean.len = 0;
		mc_term_filter(&s->term, p, n, &s->clean);
		w = s->clean.data;
		wn = s->clean.len;
	}
	if (wn == 0)
		return 0;
	if (fwrite(w, 1, wn, stdout) != wn || fflush(stdout) == EOF) {
		s->closed = 1;
		return -1;
	}
	s->last = w[wn - 1];
	return 0;
}

/* A provider that sends no call_id, or one the session already holds,
 * would make the history invalid: such a call gets an id of its own. */
static void
fresh_call_id(struct driver *d, cJSON *call)
{
	const char *cid = mc_json_str(call, "call_id");
	char id[32];

	if (cid != NULL && *cid != '\0' && !mc_session_has_call(&d->ses, cid))
		return;
	do
		snprintf(id, sizeof id, "mc-%08x%08x", arc4random(), arc4random());
	while (mc_session_has_call(&d->ses, id));
	cJSON_DeleteItemFromObjectCaseSensitive(call, "call_id");
	mc_json_add_str(call, "call_id", id);
}

/* Append the items mc-send wrote for the answer to the session; the
 * function_calls among them are copied into calls. */
static int
keep_items(struct driver *d, cJSON *calls)
{
	char err[512], *line, *nl;
	struct mc_read r;
	size_t lineno = 0;
	const char *type;
	cJSON *item;
	int ret = 0;

	mc_file_read(d->items_path, ITEMS_CAP, MC_LINK_REFUSE, NULL, 1, &r);
	if (r.status == MC_READ_MISSING)
		return 0;
	unlink(d->items_path);
	if (r.status != MC_READ_OK) {
		mc_err("%s: %s", d->items_path, mc_read_strerror(&r, ITEMS_CAP));
		return -1;
	}
	for (line = r.data; ret == 0 && line < r.data + r.len; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(r.data + r.len - line))) == NULL)
			nl = r.data + r.len;
		lineno++;
		if (nl == line)
			continue;
		item = mc_json_parse(line, (size_t)(nl - line), err, sizeof err);
		if (item == NULL || (type = mc_json_str(item, "type")) == NULL) {
			mc_err("mc-send: items line %zu: %s", lineno,
			    item ? "not a conversation item" : err);
			ret = -1;
		} else {
			if (strcmp(type, "function_call") == 0)
				fresh_call_id(d, item);
			if (mc_session_append(&d->ses, item, err, sizeof err) == -1) {
				mc_err("%s", err);
				ret = -1;
			} else if (strcmp(type, "function_call") == 0)
				mc_json_push(calls, cJSON_Duplicate(item, 1));
		}
		cJSON_Delete(item);
	}
	free(r.data);
	return ret;
}

static int
append_item(struct driver *d, cJSON *item)
{
	char err[512];
	int r = mc_session_append(&d->ses, item, err, sizeof err);

	if (r == -1)
		mc_err("%s", err);
	cJSON_Delete(item);
	return r;
}

/*
 * The text of an answer cancelled while it streamed, as the assistant
 * message of the session: what the user saw, then a line saying it was
 * cut short, also marked "status":"incomplete" (the Responses API's word
 * for an item cut short; mc-request sends only role and content). Calls
 * the answer was making are not kept: mc-send prints only text.
 */
static void
keep_partial(struct driver *d, const struct mc_buf *text)
{
	static const char cut[] = "(cancelled by the user)";
	struct mc_buf b = {0};
	size_t n = 0, k;
	cJSON *m;

	/* The whole characters before any NUL: what a JSON string holds. */
	while (n < text->len && text->data[n] != '\0' &&
	    (k = mc_utf8_seqlen(text->data + n, text->len - n)) > 0)
		n += k;
	if (n == 0)
		return;
	mc_buf_add(&b, text->data, n);
	if (b.data[n - 1] != '\n')
		mc_buf_addc(&b, '\n');
	mc_buf_adds(&b, cut);
	mc_buf_addc(&b, '\0');
	m = mc_json_new_obj();
	mc_json_add_str(m, "type", "message");
	mc_json_add_str(m, "role", "assistant");
	mc_json_add_str(m, "content", b.data);
	mc_json_add_str(m, "status", "incomplete");
	mc_buf_free(&b);
	append_item(d, m);
}

/* Send the session once; the answer streams to stdout. */
static int
exchange(struct driver *d, cJSON *calls)
{
	struct stream s = { .d = d };
	/* mc-send shows its own spinner while it waits. */
	struct mc_filter f = { .out = stream_out, .arg = &s, .stop = &interrupted };
	struct mc_buf env = {0};
	struct args a = {0};
	char err[256];
	int st, ret, r;

	if (request(d, d->ses.path, &env) == -1) {
		mc_buf_free(&env);
		return interrupted ? MC_EXIT_INTR : MC_EXIT_FAIL;
	}
	arg(&a, "mc-send");
	arg(&a, "--items-out");
	arg(&a, d->items_path);
	f.in = env.data;
	f.inlen = env.len;
	unlink(d->items_path);
	ret = mc_filter_run(a.v, &f, &st, err, sizeof err);
	s.clean.len = 0;
	if (d->tty && !s.closed)
		mc_term_flush(&s.term, &s.clean);
	if (d->tty && !s.closed && s.clean.len > 0) {
		fwrite(s.clean.data, 1, s.clean.len, stdout);
		s.last = s.clean.data[s.clean.len - 1];
	}
	mc_buf_free(&s.clean);
	mc_buf_free(&env);
	if (d->tty && s.started && s.last != '\n' && !s.closed)
		putchar('\n');
	fflush(stdout);
	r = MC_EXIT_FAIL;
	if (ret == -1)
		mc_err("%s", err);
	else if (s.closed)	/* the reader of our stdout left: stop quietly */
		r = MC_EXIT_OK;
	else if (interrupted || (WIFEXITED(st) && WEXITSTATUS(st) == MC_EXIT_INTR)) {
		keep_partial(d, &s.text);
		r = MC_EXIT_INTR;
	} else if (stage_ok("mc-send", st))
		r = keep_items(d, calls) == 0 ? MC_EXIT_OK : MC_EXIT_FAIL;
	mc_buf_free(&s.text);
	return r;
}

static const char *
pick(const char *option, const char *env, const cJSON *header, const char *key,
    const struct mc_settings *s)
{
	const char *v;

	if (option)
		return option;
	if ((v = getenv(env)) != NULL && *v)
		return v;
	if (header && (v = mc_json_str(header, key)) != NULL)
		return v;
	return mc_json_str(s->root, key);
}

static void
set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = NULL;
	if (v && (*dst = strdup(v)) == NULL)
		mc_oom();
}

/* Provider and model: options, environment, the session, settings. */
static void
resolve(struct driver *d, const cJSON *header)
{
	set_str(&d->provider, pick(opt.provider, "MC_PROVIDER", header, "provider", &d->set));
	set_str(&d->model, pick(opt.model, "MC_MODEL", header, "model", &d->set));
}

static int
ensure_tmpdir(struct driver *d)
{
	const char *t = getenv("TMPDIR");
	char *tmpl;

	if (d->tmpdir)
		return 0;
	if (asprintf(&tmpl, "%s/mc.XXXXXX", t && *t ? t : "/tmp") == -1)
		mc_oom();
	if (mkdtemp(tmpl) == NULL) {
		mc_err("%s: %s", tmpl, strerror(errno));
		free(tmpl);
		return -1;
	}
	d->tmpdir = tmpl;
	if ((d->items_path = mc_path_join(tmpl, "items.jsonl")) == NULL ||
	    (d->touched_path = mc_path_join(tmpl, "touched")) == NULL)
		mc_oom();
	return 0;
}

/* The session the next message goes to, created on first use. */
static int
ensure_session(struct driver *d)
{
	char err[512];

	if (d->ses.fd != -1)
		return 0;
	if (mc_session_create(&d->ses, d->set.home, d->cwd, d->provider, d->model,
	    err, sizeof err) == -1) {
		mc_err("%s", err);
		return -1;
	}
	return 0;
}

static int
injected(const struct driver *d, const char *path)
{
	size_t i;

	for (i = 0; i < d->ninjected; i++)
		if (strcmp(d->injected[i], path) == 0)
			return 1;
	return 0;
}

static void
remember_guide(struct driver *d, const char *path, size_t n)
{
	char **p;

	if ((p = reallocarray(d->injected, d->ninjected + 1, sizeof *p)) == NULL ||
	    (p[d->ninjected] = strndup(path, n)) == NULL)
		mc_oom();
	d->injected = p;
	d->ninjected++;
}

/* The guides a resumed session already holds, so none is injected twice. */
static void
recall_guides(struct driver *d)
{
	static const char tag[] = "<Context File=";
	const char *content, *end;
	char *line, *nl, err[64];
	struct mc_read r;
	cJSON *item;

	mc_file_read(d->ses.path, MC_SESSION_MAX, MC_LINK_REFUSE, NULL, 1, &r);
	if (r.status != MC_READ_OK)
		return;
	for (line = r.data; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		*nl = '\0';
		if (strstr(line, "\"content\":\"<Context File=") == NULL ||
		    (item = mc_json_parse(line, (size_t)(nl - line), err, sizeof err)) == NULL)
			continue;
		content = mc_json_str(item, "content");
		if (content && strncmp(content, tag, sizeof tag - 1) == 0 &&
		    (end = strchr(content, '>')) != NULL)
			remember_guide(d, content + sizeof tag - 1,
			    (size_t)(end - content - (sizeof tag - 1)));
		cJSON_Delete(item);
	}
	free(r.data);
}

/* Resume -c or --session ID; returns 0, or -1 after saying why. */
static int
resume(struct driver *d)
{
	char err[512], *id = NULL;
	int r;

	if (opt.cont) {
		r = mc_session_latest(d->set.home, d->cwd, &id, err, sizeof err);
		if (r == -1) {
			mc_err("%s", err);
			return -1;
		}
		if (r == 1) {
			mc_err("no session to continue in %s", d->cwd);
			return -1;
		}
	} else if ((id = strdup(opt.session)) == NULL)
		mc_oom();
	r = mc_session_open(&d->ses, d->set.home, id, err, sizeof err);
	free(id);
	if (r == -1) {
		mc_err("%s", err);
		return -1;
	}
	if (d->ses.dropped)
		mc_warn("%s: removed a torn last line of %zu bytes", d->ses.path, d->ses.dropped);
	if (d->ses.repaired)
		mc_warn("%s: %zu interrupted tool call(s) marked as such", d->ses.path,
		    d->ses.repaired);
	recall_guides(d);
	return 0;
}

/*
 * Start `mc-tool list` into a file, read by every request: 1 when it
 * runs in *p, 0 when the tools are listed already or missing, -1 after
 * saying why.
 */
static int
tools_start(struct driver *d, struct mc_pipeline *p)
{
	char *argv[] = { "mc-tool", "list", NULL }, *const *argvs[] = { argv }, err[256];
	int fd, in, r;

	if (ensure_tmpdir(d) == -1)
		return -1;
	if (d->tools_path || d->no_tools)
		return 0;
	if ((d->tools_path = mc_path_join(d->tmpdir, "tools.json")) == NULL)
		mc_oom();
	fd = open(d->tools_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1) {
		mc_err("%s: %s", d->tools_path, strerror(errno));
		return -1;
	}
	if ((in = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1) {
		mc_err("/dev/null: %s", strerror(errno));
		close(fd);
		return -1;
	}
	r = mc_pipeline_start(p, argvs, 1, in, fd, NULL, err, sizeof err);
	close(in);
	close(fd);
	if (r == -1) {
		/* The suite without its tools still answers questions. */
		mc_warn("%s; no tools this session", err);
		unlink(d->tools_path);
		free(d->tools_path);
		d->tools_path = NULL;
		d->no_tools = 1;
		return 0;
	}
	return 1;
}

/*
 * A launch: the tool definitions are listed while the system prompt is
 * assembled.
 */
static int
launch(struct driver *d)
{
	struct mc_pipeline p;
	int listing, r;

	if ((listing = tools_start(d, &p)) == -1)
		return -1;
	r = assemble(d);
	if (listing && stages_wait(&p) == -1)
		return -1;
	return r;
}

static int
append_output(struct driver *d, const char *call_id, const char *output)
{
	cJSON *o = mc_json_new_obj();

	mc_json_add_str(o, "type", "function_call_output");
	mc_json_add_str(o, "call_id", call_id ? call_id : "");
	mc_json_add_str(o, "output", output);
	return append_item(d, o);
}

/* On a terminal, one dim line on stderr saying what a call does. */
static void
announce(const struct driver *d, const char *name, const cJSON *call)
{
	static const char *const keys[] = { "path", "command", "pattern", "glob", NULL };
	const char *args = mc_json_str(call, "arguments"), *v = NULL;
	char clean[128], cname[128], err[64];
	cJSON *a;
	int i;

	if (!isatty(STDERR_FILENO))
		return;
	if ((a = mc_json_parse(args ? args : "", args ? strlen(args) : 0, err, sizeof err)) != NULL)
		for (i = 0; keys[i] && v == NULL; i++)
			v = mc_json_str(a, keys[i]);
	mc_sanitize(clean, sizeof clean, v ? v : "");
	mc_sanitize(cname, sizeof cname, name);
	fprintf(stderr, "%s> %s %s%s\n", d->color ? "\033[2m" : "", cname, clean,
	    d->color ? "\033[0m" : "");
	cJSON_Delete(a);
}

static int
guarded(const char *name)
{
	return strcmp(name, "write") == 0 || strcmp(name, "edit") == 0 ||
	    strcmp(name, "bash") == 0;
}

/*
 * May this call run? 1 yes; 0 no, with *why the output the model gets;
 * -1 when the user interrupted the question.
 */
static int
approve(struct driver *d, const char *name, const char **why)
{
	struct termios quiet;
	const char *line;
	const cJSON *e;
	int n, r = -1;

	if (!guarded(name))
		return 1;
	cJSON_ArrayForEach(e, d->always)
		if (strcmp(e->valuestring, name) == 0)
			return 1;
	if (d->el == NULL) {
		if (opt.yes)
			return 1;
		*why = "refused: this one-shot run of mc may not write, edit or run "
		    "commands unless it is given --yes. Say what you would do instead, "
		    "or ask the user to run it again with --yes.";
		return 0;
	}
	snprintf(d->ask, sizeof d->ask, "allow %s? [y]es, [n]o, [a]lways this session: ", name);
	while (r == -1) {
		if (d->tio_ok)
			tcsetattr(STDIN_FILENO, TCSANOW, &d->tio);
		line = el_gets(d->el, &n);
		if (d->tio_ok) {
			quiet = d->tio;
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
			if (d->always == NULL)
				d->always = mc_json_new_arr();
			mc_json_push(d->always, mc_json_new_str(name));
			r = 1;
			break;
		case 'n':
			*why = "refused: the user did not allow this call.";
			r = 0;
			break;
		}
	}
	d->ask[0] = '\0';
	return r;
}

/* Run one function_call through `mc-tool call`; its output joins the session. */
static int
run_call(struct driver *d, const cJSON *call, struct mc_buf *touched)
{
	const char *name = mc_json_str(call, "name"), *cid = mc_json_str(call, "call_id");
	char *argv[] = { "mc-tool", "call", "--touched-out", d->touched_path, NULL };
	const char *why = NULL, *type, *ocid;
	struct mc_buf out = {0}, in = {0};
	struct mc_filter f = { .out = collect, .arg = &out, .stop = &interrupted };
	char err[256], *text;
	struct mc_read r;
	cJSON *item;
	int ok, st;

	if (name == NULL)
		name = "";
	announce(d, name, call);
	if ((ok = approve(d, name, &why)) <= 0) {
		if (append_output(d, cid, ok == 0 ? why :
		    "error: the user interrupted before this call ran.") == -1)
			return MC_EXIT_FAIL;
		return ok == 0 ? MC_EXIT_OK : MC_EXIT_INTR;
	}
	if ((text = cJSON_PrintUnformatted(call)) == NULL)
		mc_oom();
	mc_buf_adds(&in, text);
	mc_buf_addc(&in, '\n');
	free(text);
	f.in = in.data;
	f.inlen = in.len;
	unlink(d->touched_path);
	if (mc_filter_run(argv, &f, &st, err, sizeof err) == -1) {
		mc_err("%s", err);
		mc_buf_free(&in);
		return MC_EXIT_FAIL;
	}
	mc_buf_free(&in);
	item = NULL;
	/* An unknown or disabled tool is mc-tool's exit 1, with an output
	 * naming the tools there are: the model should read that. */
	if (!interrupted && (stage_ok("mc-tool", st) ||
	    (WIFEXITED(st) && WEXITSTATUS(st) == MC_EXIT_FAIL)))
		item = mc_json_parse(out.data ? out.data : "", out.len, err, sizeof err);
	mc_buf_free(&out);
	type = mc_json_str(item, "type");
	ocid = mc_json_str(item, "call_id");
	if (item == NULL || type == NULL || strcmp(type, "function_call_output") != 0 ||
	    ocid == NULL || cid == NULL || strcmp(ocid, cid) != 0) {
		/* The history must hold an output for every call, so the model
		 * hears of the failure and the session stays valid. */
		cJSON_Delete(item);
		if (append_output(d, cid, interrupted ?
		    "error: the user interrupted this call." :
		    "error: mc-tool could not run this call.") == -1)
			return MC_EXIT_FAIL;
		return interrupted ? MC_EXIT_INTR : MC_EXIT_OK;
	}
	if (append_item(d, item) == -1)
		return MC_EXIT_FAIL;
	mc_file_read(d->touched_path, 1u << 20, MC_LINK_REFUSE, NULL, 1, &r);
	if (r.status == MC_READ_OK)
		mc_buf_add(touched, r.data, r.len);
	free(r.data);
	unlink(d->touched_path);
	return MC_EXIT_OK;
}

/*
 * The AGENTS.md guides of the directories the calls touched, from
 * `mc-discover --touched`, each appended once per session as a user message.
 */
static void
inject_guides(struct driver *d, struct mc_buf *touched)
{
	struct mc_filter f = {0};
	struct mc_buf doc = {0};
	char **argv, *line, *nl, err[256];
	size_t n = 0, cap = 8, i;
	const cJSON *e;
	cJSON *j, *m;
	int st;

	if ((argv = calloc(cap, sizeof *argv)) == NULL)
		mc_oom();
	argv[n++] = "mc-discover";
	argv[n++] = "-q";
	argv[n++] = "--keep-going";
	argv[n++] = "--touched";
	argv[n++] = "--";	/* a file named -C.. is a path, not an option */
	for (line = touched->data; line && line < touched->data + touched->len; line = nl + 1) {
		if ((nl = strchr(line, '\n')) == NULL)
			nl = line + strlen(line);
		*nl = '\0';
		if (*line == '\0')
			continue;
		for (i = 5; i < n && strcmp(argv[i], line) != 0; i++)
			;
		if (i < n)
			continue;
		if (n + 2 > cap) {
			char **p = reallocarray(argv, cap *= 2, sizeof *argv);

			if (p == NULL)
				mc_oom();
			argv = p;
		}
		argv[n++] = line;
	}
	argv[n] = NULL;
	if (n == 5) {
		free(argv);
		return;
	}
	f.out = collect;
	f.arg = &doc;
	if (mc_filter_run(argv, &f, &st, err, sizeof err) == -1)
		mc_err("%s", err);
	else if (stage_ok("mc-discover", st) &&
	    (j = mc_json_parse(doc.data ? doc.data : "", doc.len, err, sizeof err)) != NULL) {
		cJSON_ArrayForEach(e, mc_json_arr(j, "instructions")) {
			const char *path = mc_json_str(e, "path"), *content = mc_json_str(e, "content");
			struct mc_buf b = {0};

			if (path == NULL || content == NULL || injected(d, path))
				continue;
			mc_buf_printf(&b, "<Context File=%s>\n%s%s</Context>", path, content,
			    *content && content[strlen(content) - 1] == '\n' ? "" : "\n");
			m = mc_json_new_obj();
			mc_json_add_str(m, "type", "message");
			mc_json_add_str(m, "role", "user");
			mc_json_add_str(m, "content", b.data);
			mc_buf_free(&b);
			if (append_item(d, m) == -1)
				break;
			remember_guide(d, path, strlen(path));
		}
		cJSON_Delete(j);
	}
	mc_buf_free(&doc);
	free(argv);
}

/*
 * One user message: appended to the session before anything is sent, so
 * a failed turn keeps what was typed. Then the agent loop: while the answer
 * asks for tools, run them, append their outputs and send again, at most
 * --max-steps times. Returns an exit status.
 */
static int
turn(struct driver *d, const char *text)
{
	struct mc_buf touched = {0};
	long long step;
	cJSON *m, *calls, *c;
	int r;

	if (ensure_session(d) == -1)
		return MC_EXIT_FAIL;
	m = mc_json_new_obj();
	mc_json_add_str(m, "type", "message");
	mc_json_add_str(m, "role", "user");
	mc_json_add_str(m, "content", text);
	if (append_item(d, m) == -1)
		return MC_EXIT_FAIL;
	calls = mc_json_new_arr();
	r = exchange(d, calls);
	for (step = 1; r == MC_EXIT_OK && cJSON_GetArraySize(calls) > 0; step++) {
		touched.len = 0;
		cJSON_ArrayForEach(c, calls) {
			if (r == MC_EXIT_OK)
				r = run_call(d, c, &touched);
			else if (r == MC_EXIT_INTR &&
			    append_output(d, mc_json_str(c, "call_id"),
			    "error: not run: the user interrupted an earlier call.") == -1)
				r = MC_EXIT_FAIL;
		}
		cJSON_Delete(calls);
		calls = mc_json_new_arr();
		if (r != MC_EXIT_OK)
			break;
		if (touched.len > 0)
			inject_guides(d, &touched);
		if (step >= opt.max_steps) {
			mc_err("stopped after %lld steps (--max-steps); `mc -c` goes on", step);
			r = MC_EXIT_FAIL;
			break;
		}
		r = exchange(d, calls);
	}
	cJSON_Delete(calls);
	mc_buf_free(&touched);
	return r;
}

/* The longest run of backticks in s, to pick a fence that holds it. */
static size_t
longest_backticks(const char *s)
{
	size_t best = 0, run = 0;

	for (; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

/* The one-shot message: PROMPT words, then piped stdin as a fenced block. */
static char *
one_shot_text(int argc, char *argv[], int *status)
{
	struct mc_buf b = {0}, in = {0};
	size_t fence, i;
	int k;

	*status = MC_EXIT_OK;
	for (k = 0; k < argc; k++) {
		if (k)
			mc_buf_addc(&b, ' ');
		mc_buf_adds(&b, argv[k]);
	}
	if (b.len > 0 && !mc_utf8_valid(b.data, b.len)) {
		mc_err("PROMPT: not UTF-8 text");
		*status = MC_EXIT_FAIL;
		mc_buf_free(&b);
		return NULL;
	}
	if (!isatty(STDIN_FILENO)) {
		if (mc_fd_slurp(STDIN_FILENO, STDIN_CAP, &in) == -1) {
			if (errno == EFBIG)
				mc_err("standard input: over the %u-byte limit for piped input",
				    STDIN_CAP);
			else
				mc_err("standard input: %s", strerror(errno));
			*status = MC_EXIT_FAIL;
		} else if (!mc_utf8_valid(in.data ? in.data : "", in.len) ||
		    memchr(in.data ? in.data : "", '\0', in.len) != NULL) {
			mc_err("standard input: not UTF-8 text");
			*status = MC_EXIT_FAIL;
		}
		if (*status != MC_EXIT_OK) {
			mc_buf_free(&in);
			mc_buf_free(&b);
			return NULL;
		}
	}
	if (in.len > 0 && b.len == 0) {
		mc_buf_free(&b);
		return mc_buf_steal(&in);
	}
	if (in.len > 0) {
		fence = longest_backticks(in.data) + 1;
		if (fence < 3)
			fence = 3;
		mc_buf_adds(&b, "\n\n");
		for (i = 0; i < fence; i++)
			mc_buf_addc(&b, '`');
		mc_buf_addc(&b, '\n');
		mc_buf_add(&b, in.data, in.len);
		if (in.data[in.len - 1] != '\n')
			mc_buf_addc(&b, '\n');
		for (i = 0; i < fence; i++)
			mc_buf_addc(&b, '`');
	}
	mc_buf_free(&in);
	if (b.len == 0) {
		mc_buf_free(&b);
		*status = mc_usage_error("nothing to ask: give a PROMPT, pipe one in, or run on a terminal");
		return NULL;
	}
	return mc_buf_steal(&b);
}

/*
 * The message of a dry run, as the items file mc-request reads: a copy of
 * the session with the message added. The session is read, never written.
 */
static int
dry_items(struct driver *d, const char *text)
{
	struct mc_buf items = {0};
	struct mc_read r = {0};
	cJSON *msg;
	char *line;
	int ret = -1, fd;

	if (ensure_tmpdir(d) == -1)
		return -1;
	if (d->ses.path != NULL) {
		mc_file_read(d->ses.path, MC_SESSION_MAX, MC_LINK_REFUSE, NULL, 0, &r);
		if (r.status != MC_READ_OK) {
			mc_err("%s: %s", d->ses.path, mc_read_strerror(&r, MC_SESSION_MAX));
			return -1;
		}
		mc_buf_add(&items, r.data, r.len);
		free(r.data);
	}
	msg = mc_json_new_obj();
	mc_json_add_str(msg, "type", "message");
	mc_json_add_str(msg, "role", "user");
	mc_json_add_str(msg, "content", text);
	if ((line = cJSON_PrintUnformatted(msg)) == NULL)
		mc_oom();
	mc_buf_adds(&items, line);
	mc_buf_addc(&items, '\n');
	free(line);
	cJSON_Delete(msg);
	fd = open(d->items_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd == -1 || mc_write_all(fd, items.data, items.len) == -1)
		mc_err("%s: %s", d->items_path, strerror(errno));
	else
		ret = 0;
	if (fd != -1)
		close(fd);
	mc_buf_free(&items);
	return ret;
}

/*
 * The tool list, passed on from `mc-tool list` (read from rd) to mc-request
 * (which reads wr) once mc-tool has succeeded, so that its failure is the
 * only message. 0, or -1 after saying why.
 */
static int
relay_tools(struct mc_pipeline *tp, int rd, int wr)
{
	struct mc_buf b = {0};
	int r;

	r = stage_output(rd, MC_TOOLS_MAX, "mc-tool", &b);
	close(rd);
	if (r == -1)
		mc_pipeline_kill(tp, SIGTERM);
	if (stages_wait(tp) == -1)
		r = -1;
	/* EPIPE: mc-request stopped early; its status says why. */
	if (r == 0 && b.len > 0)
		mc_write_all(wr, b.data, b.len);
	mc_buf_free(&b);
	return r;
}

/*
 * A dry run is one pass down mc-discover | mc-skills | mc-render |
 * mc-request, started together so that each program starts up while the
 * one before it works; the prompt goes straight from mc-render to
 * mc-request, the tool list through a pipe. A message short enough to be
 * an argument goes as mc-request's PROMPT and the session (if any) as its
 * items: nothing is written to disk.
 */
static int
dry_run(struct driver *d, const char *text)
{
	char *tool_argv[] = { "mc-tool", "list", NULL }, err[256], tools[32];
	const char *items = d->ses.path, *extra = text;
	struct mc_pipeline p, tp = {0};
	struct mc_buf env = {0};
	struct args a[4] = {0};
	int rd = -1, out = -1, trd = -1, tpipe[2] = { -1, -1 }, r, ret = -1, in;

	if (strlen(text) > ARG_TEXT_MAX) {
		if (dry_items(d, text) == -1)
			return MC_EXIT_FAIL;
		items = d->items_path;
		extra = NULL;
	}
	if ((in = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1 ||
	    mc_pipeline_add(&tp, tool_argv, in, -1, &trd, err, sizeof err) == -1) {
		/* The suite without its tools still answers questions. */
		mc_warn("%s; no tools this session", in == -1 ? "/dev/null" : err);
		trd = -1;
	}
	if (in != -1)
		close(in);
	stage_args(d, a, 0);
	if (stages_start(a, 1, -1, &p, &rd) == -1) {
		if (trd != -1) {
			close(trd);
			mc_pipeline_wait(&tp);
		}
		return MC_EXIT_FAIL;
	}
	/* mc-request reads the tools as a file: the read end of a pipe that
	 * it inherits, named through /dev/fd. */
	if (trd != -1 && pipe2(tpipe, O_CLOEXEC) == -1) {
		mc_err("pipe: %s", strerror(errno));
		r = -1;
	} else {
		if (trd != -1) {
			fcntl(tpipe[0], F_SETFD, 0);
			snprintf(tools, sizeof tools, "/dev/fd/%d", tpipe[0]);
		}
		request_args(d, items, trd != -1 ? tools : NULL, extra, &a[3]);
		if ((r = mc_pipeline_add(&p, a[3].v, rd, -1, &out, err, sizeof err)) == -1)
			mc_err("%s", err);
	}
	close(rd);
	if (tpipe[0] != -1)
		close(tpipe[0]);
	if (trd != -1) {
		if (r == 0)
			r = relay_tools(&tp, trd, tpipe[1]);
		else {
			close(trd);
			mc_pipeline_wait(&tp);
		}
	}
	if (r == -1) {
		/* Stopped before mc-request sees its tools end, so that it has
		 * nothing to say about them. */
		mc_pipeline_kill(&p, SIGTERM);
		if (tpipe[1] != -1)
			close(tpipe[1]);
		mc_pipeline_wait(&p);
		if (out != -1)
			close(out);
		return MC_EXIT_FAIL;
	}
	if (tpipe[1] != -1)
		close(tpipe[1]);
	if ((r = stage_output(out, ENVELOPE_CAP, "mc-request", &env)) == -1)
		mc_pipeline_kill(&p, SIGTERM);
	close(out);
	/* Printed only when every stage succeeded: a stage that failed
	 * early leaves mc-request a prompt cut short. */
	if (stages_wait(&p) == 0 && r == 0 &&
	    (env.len == 0 || fwrite(env.data, 1, env.len, stdout) == env.len))
		ret = 0;
	mc_buf_free(&env);
	return ret == 0 ? MC_EXIT_OK : MC_EXIT_FAIL;
}

/* --- the interactive session --- */

static char *
el_prompt(EditLine *el)
{
	struct driver *d;

	el_get(el, EL_CLIENTDATA, &d);
	if (d->ask[0])
		return d->ask;
	if (d->more)
		return "... ";
	return d->color ? "\1\033[1m\1mc>\1\033[0m\1 " : "mc> ";
}

static void
note(const struct driver *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line of the driver's own on stdout, dim when colour is on. */
static void
note(const struct driver *d, const char *fmt, ...)
{
	va_list ap;

	if (d->color)
		fputs("\033[2m", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (d->color)
		fputs("\033[0m", stdout);
	putchar('\n');
	fflush(stdout);
}

/*
 * One entry: a line, lines joined by a trailing backslash, or a block
 * between two lines """. NULL at the end of input (Ctrl-D).
 */
static char *
read_entry(struct driver *d, EditLine *el)
{
	struct mc_buf b = {0};
	const char *line;
	int n, block = 0;
	size_t len;

	for (;;) {
		d->more = b.len > 0 || block;
		interrupted = 0;
		line = el_gets(el, &n);
		if (interrupted) {	/* Ctrl-C: drop what was typed */
			fputs("^C\n", stdout);
			fflush(stdout);
			b.len = 0;
			block = 0;
			continue;
		}
		if (line == NULL || n <= 0) {
			if (n == -1 && errno == EINTR)
				continue;
			mc_buf_free(&b);
			putchar('\n');
			return NULL;
		}
		len = strlen(line);
		if (len && line[len - 1] == '\n')
			len--;
		if (block) {
			if (len == 3 && memcmp(line, "\"\"\"", 3) == 0)
				break;
			mc_buf_add(&b, line, len);
			mc_buf_addc(&b, '\n');
			continue;
		}
		if (b.len == 0 && len == 3 && memcmp(line, "\"\"\"", 3) == 0) {
			block = 1;
			continue;
		}
		if (len && line[len - 1] == '\\') {
			mc_buf_add(&b, line, len - 1);
			mc_buf_addc(&b, '\n');
			continue;
		}
		mc_buf_add(&b, line, len);
		break;
	}
	if (b.data == NULL)
		mc_buf_adds(&b, "");
	return mc_buf_steal(&b);
}

static void
list_skills(const struct driver *d)
{
	const cJSON *sk, *e;
	const char *desc;
	cJSON *doc;
	int n = 0;

	if ((doc = context_doc(d)) == NULL)
		return;
	sk = mc_json_arr(doc, "skills");
	cJSON_ArrayForEach(e, sk) {
		struct mc_buf b = {0};
		int on = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "enabled"));

		desc = mc_json_str(e, "description");
		mc_buf_printf(&b, "  %s%s%s%s\n", mc_json_str(e, "name") ? mc_json_str(e, "name") : "?",
		    desc && *desc ? ": " : "", desc ? desc : "", on ? "" : " (disabled)");
		show(d, b.data, b.len);
		mc_buf_free(&b);
		n++;
	}
	if (n == 0)
		note(d, "no skills (see mc-skills(1) for where they are found)");
	cJSON_Delete(doc);
}

static void
show_context(const struct driver *d)
{
	struct mc_filter f = {0};
	struct args a = {0};
	struct mc_buf b = {0}, stats = {0};
	const cJSON *e;
	cJSON *doc;
	char err[256];
	int st;

	if ((doc = context_doc(d)) == NULL)
		return;
	cJSON_ArrayForEach(e, mc_json_arr(doc, "instructions")) {
		mc_buf_printf(&b, "  %s (%s, %.0f bytes)\n", mc_json_str(e, "path"),
		    mc_json_str(e, "source"),
		    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "bytes")));
	}
	if (b.len == 0)
		mc_buf_adds(&b, "  no AGENTS.md instruction files\n");
	cJSON_ArrayForEach(e, mc_json_arr(doc, "diagnostics"))
		mc_buf_printf(&b, "  %s: %s: %s\n", mc_json_str(e, "severity"),
		    mc_json_str(e, "path") ? mc_json_str(e, "path") : "-",
		    mc_json_str(e, "message"));
	show(d, b.data, b.len);
	mc_buf_free(&b);

	/* The section table, by the same program that renders the prompt. */
	b.data = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	if (b.data == NULL)
		mc_oom();
	render_args(d, &a, 1);
	f.in = b.data;
	f.inlen = strlen(b.data);
	f.out = collect;
	f.arg = &stats;
	if (mc_filter_run(a.v, &f, &st, err, sizeof err) == -1)
		mc_err("%s", err);
	else if (stage_ok("mc-render", st))
		show(d, stats.data, stats.len);
	free(b.data);
	mc_buf_free(&stats);
	note(d, "prompt: %zu bytes (about %zu tokens); model: %s; provider: %s",
	    d->prompt.len, d->prompt.len / 4, d->model ? d->model : "default",
	    d->provider ? d->provider : "default");
	if (d->ses.fd != -1)
		note(d, "session %s: %zu items, %zu bytes", d->ses.id, d->ses.items, d->ses.bytes);
	else
		note(d, "session: none yet (created with the first message)");
}

static void
forget_session(struct driver *d)
{
	size_t i;

	for (i = 0; i < d->ninjected; i++)
		free(d->injected[i]);
	free(d->injected);
	d->injected = NULL;
	d->ninjected = 0;
	cJSON_Delete(d->always);
	d->always = NULL;
}

/* A slash command. Returns 1 to leave the session. */
static int
command(struct driver *d, const char *line)
{
	const char *argp = line + strcspn(line, " \t");
	size_t n = (size_t)(argp - line);

	argp += strspn(argp, " \t");
#define IS(s) (n == sizeof(s) - 1 && memcmp(line, s, n) == 0)
	if (IS("/exit") || IS("/quit"))
		return 1;
	if (IS("/help")) {
		fputs(help_text, stdout);
	} else if (IS("/prompt")) {
		show(d, d->prompt.data ? d->prompt.data : "", d->prompt.len);
	} else if (IS("/skills")) {
		list_skills(d);
	} else if (IS("/context")) {
		show_context(d);
	} else if (IS("/model")) {
		if (*argp == '\0') {
			note(d, "model: %s", d->model ? d->model : "default");
		} else if (strcspn(argp, " \t") != strlen(argp)) {
			mc_err("/model takes one ID");
		} else {
			char *old = d->model;

			d->model = NULL;
			set_str(&d->model, argp);
			/* Per-model overrides may change the prompt. */
			if (assemble(d) == -1) {
				free(d->model);
				d->model = old;
			} else {
				free(old);
				note(d, "model: %s", d->model);
			}
		}
	} else if (IS("/new")) {
		/* Guides and approvals belong to the session they were given in. */
		mc_session_close(&d->ses);
		forget_session(d);
		if (assemble(d) == 0)
			note(d, "new session");
	} else {
		mc_err("unknown command %.*s; /help lists them", (int)n, line);
	}
#undef IS
	fflush(stdout);
	return 0;
}

static char *
history_path(const struct driver *d)
{
	char *p = mc_path_join(d->set.home, "history");

	if (p == NULL)
		mc_oom();
	return p;
}

static void
history_save(const struct driver *d, History *h)
{
	char *path = history_path(d);
	HistEvent ev;
	int fd;

	/* Create it private first: the history holds what the user typed. */
	mkdir(d->set.home, 0700);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) != -1) {
		fchmod(fd, 0600);
		close(fd);
		history(h, &ev, H_SAVE, path);
	}
	free(path);
}

static int
interactive(struct driver *d)
{
	struct sigaction sa = { .sa_handler = on_sigint };
	struct termios quiet;
	EditLine *el;
	History *h;
	HistEvent ev;
	char *line, *path;
	int r;

	sigemptyset(&sa.sa_mask);
	h = history_init();
	history(h, &ev, H_SETSIZE, 1000);
	history(h, &ev, H_SETUNIQUE, 1);
	path = history_path(d);
	history(h, &ev, H_LOAD, path);
	free(path);
	d->el = el = el_init("mc", stdin, stdout, stderr);
	el_set(el, EL_CLIENTDATA, d);
	el_set(el, EL_EDITOR, "emacs");
	el_set(el, EL_SIGNAL, 1);
	el_set(el, EL_HIST, history, h);
	el_set(el, EL_PROMPT_ESC, el_prompt, '\1');
	el_source(el, NULL);
	/* Without SA_RESTART, Ctrl-C interrupts the read of the line or the
	 * answer; the stages get it from the terminal too. */
	sigaction(SIGINT, &sa, NULL);

	note(d, "mc %s, model %s%s%s. /help for commands, Ctrl-D to leave.", MC_VERSION,
	    d->model ? d->model : "default", d->ses.fd != -1 ? ", session " : "",
	    d->ses.fd != -1 ? d->ses.id : "");
	while ((line = read_entry(d, el)) != NULL) {
		if (line[strspn(line, " \t\n")] == '\0') {
			free(line);
			continue;
		}
		history(h, &ev, H_ENTER, line);
		history_save(d, h);
		if (line[0] == '/' && line[1] != '/') {
			r = command(d, line);
			free(line);
			if (r)
				break;
			continue;
		}
		interrupted = 0;
		/* Keys typed while the answer streams are not echoed into it;
		 * they wait, and the next prompt reads them. */
		if ((d->tio_ok = tcgetattr(STDIN_FILENO, &d->tio) == 0)) {
			quiet = d->tio;
			quiet.c_lflag &= ~(tcflag_t)ECHO;
			tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
		}
		/* "//..." sends a message that starts with one slash. */
		r = turn(d, line[0] == '/' ? line + 1 : line);
		if (d->tio_ok)
			tcsetattr(STDIN_FILENO, TCSANOW, &d->tio);
		if (r == MC_EXIT_INTR)
			note(d, "(cancelled)");
		interrupted = 0;
		free(line);
	}
	el_end(el);
	d->el = NULL;
	history_end(h);
	return MC_EXIT_OK;
}

static void
cleanup(struct driver *d)
{
	if (d->items_path)
		unlink(d->items_path);
	if (d->touched_path)
		unlink(d->touched_path);
	if (d->tools_path)
		unlink(d->tools_path);
	if (d->tmpdir)
		rmdir(d->tmpdir);
	free(d->items_path);
	free(d->touched_path);
	free(d->tools_path);
	forget_session(d);
	free(d->tmpdir);
	mc_session_close(&d->ses);
	mc_buf_free(&d->prompt);
	free(d->provider);
	free(d->model);
	free(d->cwd);
	mc_settings_free(&d->set);
}

int
main(int argc, char *argv[])
{
	enum { OPT_SESSION = 256, OPT_AGENT, OPT_DRY, OPT_STATS, OPT_MAX_STEPS };
	static const struct option longopts[] = {
		{ "continue", no_argument, NULL, 'c' },
		{ "session", required_argument, NULL, OPT_SESSION },
		{ "provider", required_argument, NULL, 'p' },
		{ "model", required_argument, NULL, 'm' },
		{ "agent", required_argument, NULL, OPT_AGENT },
		{ "dry-run", no_argument, NULL, OPT_DRY },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "max-steps", required_argument, NULL, OPT_MAX_STEPS },
		{ "yes", no_argument, NULL, 'y' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, MC_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct driver d = { .ses = { .fd = -1 } };
	int c, status, prompt_cmd = 0, steps_set = 0;
	char err[1024], *text;
	const char *nc, *errstr;

	mc_init("mc", argv);
	/* A stage that dies early closes the pipe the driver writes to; that
	 * is its failure to report, not a reason to end the session. The
	 * stages get SIGPIPE's default back when they start. */
	signal(SIGPIPE, SIG_IGN);
	while ((c = getopt_long(argc, argv, "cp:m:yh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			opt.cont = 1;
			break;
		case OPT_SESSION:
			opt.session = optarg;
			break;
		case 'p':
			opt.provider = optarg;
			break;
		case 'm':
			opt.model = optarg;
			break;
		case OPT_AGENT:
			opt.agent = optarg;
			break;
		case OPT_DRY:
			opt.dry = 1;
			break;
		case OPT_STATS:
			opt.stats = 1;
			break;
		case OPT_MAX_STEPS:
			opt.max_steps = strtonum(optarg, 1, 10000, &errstr);
			if (errstr != NULL)
				return mc_usage_error("--max-steps: %s is %s", optarg, errstr);
			steps_set = 1;
			break;
		case 'y':
			opt.yes = 1;
			break;
		default:	/* -h, --version or a bad option */
			return mc_opt_exit(c, usage);
		}
	}
	/* `mc prompt`, unless written `mc -- prompt` to ask about the word. */
	if (argc - optind == 1 && strcmp(argv[optind], "prompt") == 0 &&
	    strcmp(argv[optind - 1], "--") != 0)
		prompt_cmd = 1;
	argc -= optind;
	argv += optind;
	if (opt.cont && opt.session)
		return mc_usage_error("-c and --session cannot be used together");
	if (opt.session && !mc_session_id_valid(opt.session))
		return mc_usage_error("--session: not a session id: %s", opt.session);
	if (opt.stats && !prompt_cmd)
		return mc_usage_error("--stats goes with `mc prompt`");
	if (prompt_cmd && (opt.cont || opt.session || opt.dry || opt.provider || opt.yes ||
	    steps_set))
		return mc_usage_error("`mc prompt` takes only -m, --agent and --stats");
	if (opt.dry && argc == 0 && isatty(STDIN_FILENO))
		return mc_usage_error("--dry-run needs a PROMPT");

	if (mc_settings_load(&d.set, err, sizeof err) == -1) {
		mc_err("%s", err);
		return MC_EXIT_FAIL;
	}
	if ((d.cwd = realpath(".", NULL)) == NULL) {
		mc_err(".: %s", strerror(errno));
		cleanup(&d);
		return MC_EXIT_FAIL;
	}
	d.tty = isatty(STDOUT_FILENO);
	nc = getenv("NO_COLOR");
	d.color = d.tty && (nc == NULL || *nc == '\0') &&
	    !(getenv("TERM") && strcmp(getenv("TERM"), "dumb") == 0);

	if (prompt_cmd) {
		resolve(&d, NULL);
		fflush(stdout);
		status = pipeline(&d, 1, opt.stats, STDOUT_FILENO, NULL) == 0 ?
		    MC_EXIT_OK : MC_EXIT_FAIL;
		cleanup(&d);
		return mc_finish(status);
	}

	if (argc == 0 && isatty(STDIN_FILENO) && !opt.dry) {
		status = MC_EXIT_OK;
		if ((opt.cont || opt.session) && resume(&d) == -1)
			status = MC_EXIT_FAIL;
		if (status == MC_EXIT_OK) {
			resolve(&d, d.ses.header);
			if (launch(&d) == -1)
				status = MC_EXIT_FAIL;
			else
				status = interactive(&d);
		}
		cleanup(&d);
		return mc_finish(status);
	}

	if ((text = one_shot_text(argc, argv, &status)) == NULL) {
		cleanup(&d);
		return status;
	}
	if (opt.cont || opt.session) {
		if (opt.dry) {
			/* Find it without opening: a dry run writes nothing. */
			char *id = NULL;

			if (opt.cont && mc_session_latest(d.set.home, d.cwd, &id, err, sizeof err) != 0) {
				mc_err("no session to continue in %s", d.cwd);
				status = MC_EXIT_FAIL;
			} else if (mc_session_peek(&d.ses, d.set.home, id ? id : opt.session,
			    err, sizeof err) == -1) {
				mc_err("%s", err);
				status = MC_EXIT_FAIL;
			}
			free(id);
		} else if (resume(&d) == -1)
			status = MC_EXIT_FAIL;
	}
	if (status == MC_EXIT_OK) {
		struct sigaction sa = { .sa_handler = on_sigint };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		resolve(&d, d.ses.header);
		if (opt.dry)
			status = dry_run(&d, text);
		else if (launch(&d) == -1)
			status = MC_EXIT_FAIL;
		else
			status = turn(&d, text);
	}
	free(text);
	cleanup(&d);
	return mc_finish(status);
}
