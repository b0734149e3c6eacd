/* stages.c: the programs that build what the model sees, started together. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"
#include "request.h"

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
render_args(const struct driver *d, struct args *a, int stats)
{
	int i;

	arg(a, "mc-render");
	if (d->c.agent) {
		arg(a, "--agent");
		arg(a, d->c.agent);
	}
	for (i = 0; i < d->c.depth; i++) {	/* a subagent: its roles, ancestors first */
		arg(a, "--subagent");
		arg(a, d->c.subagent[i]);
	}
	if (d->s.model && d->s.tell_model) {
		arg(a, "--model");
		arg(a, d->s.model);
	}
	if (stats)
		arg(a, "--stats");
}

/*
 * Start mc-discover | mc-skills [| mc-render ...] from /dev/null, into
 * out_fd or, when out_fd is -1, a pipe read from *rd. An instruction file
 * mc-discover refuses stops it (and so the stages) unless keep_going.
 * 0, or -1 after saying why.
 */
static int
context_start(const struct driver *d, int render, int stats, int keep_going, int out_fd,
    struct mc_pipeline *p, int *rd)
{
	struct args a[3] = {0};
	char *const *argvs[3] = { a[0].v, a[1].v, a[2].v };
	char err[256];
	int in, r;

	arg(&a[0], "mc-discover");
	arg(&a[0], "-q");
	if (keep_going)
		arg(&a[0], "--keep-going");
	arg(&a[1], "mc-skills");
	arg(&a[1], "-q");
	arg(&a[1], "--keep-going");
	render_args(d, &a[2], stats);
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

/* Reap the stages; 0 when every one succeeded, else -1 after saying why.
 * Without keep_going, mc-discover's exit 1 is a refused instruction file
 * (it said which): the way on is named. */
static int
stages_wait(struct mc_pipeline *p, int keep_going)
{
	int bad;

	if ((bad = mc_pipeline_wait(p)) >= 0) {
		if (!stage_ok(p->name[bad], p->status[bad]) && !keep_going && !interrupted && strcmp(p->name[bad], "mc-discover") == 0 &&
		    WIFEXITED(p->status[bad]) && WEXITSTATUS(p->status[bad]) == MC_EXIT_FAIL)
			mc_err("stopped: an instruction file was refused (above); fix it, or run "
			    "mc --keep-going to go on without it");
		return -1;
	}
	return 0;
}

/* Read a stage's output up to cap, then close fd; -1 after saying why. */
static int
stage_output(int fd, size_t cap, const char *name, struct mc_buf *out)
{
	int r = 0;

	out->len = 0;
	if (mc_fd_slurp(fd, cap, out) == -1) {
		mc_err("%s: output: %s", name,
		    errno == EFBIG ? "over the size limit" : strerror(errno));
		r = -1;
	}
	close(fd);
	return r;
}

/*
 * With --stats, the rows after mc-render's table: the tool schemas that
 * travel beside the prompt in every request and are often most of its
 * bytes, a row for each source that has any: mc-tool's, the MCP servers'
 * (their mc-mcp started and ended for it) and the subagents tool, as a
 * session would send them (without the tools the settings disable, and
 * through offered.c's filters: per model, tool search).
 */
static int
tool_stats(struct driver *d)
{
	static const char *const source[] = { "mc-tool", "mcp", "subagents" };
	char *argv[] = { "mc-tool", "-q", "list", NULL }, err[256], *text;
	struct mc_filter f = { .collect = &d->s.tools, .cap = ENVELOPE_CAP };
	cJSON *all, *t, *rows[3];
	const char *name;
	size_t len;
	int st, i, n;

	if (mc_filter_run(argv, &f, &st, err, sizeof err) == -1) {
		mc_err("%s", err);
		return -1;
	}
	if (!stage_ok("mc-tool", st) || tools_start(d) == -1 || tools_gather(d) == -1 ||
	    (all = tools_get(d)) == NULL)
		return -1;
	mcp_stop(d);
	/* offered.c's filters, as a request would have them */
	if (model_tools_active(d))
		model_tools_filter(d, all, 0);
	toolsearch_filter(d, all);
	for (i = 0; i < 3; i++)
		rows[i] = mc_json_new_arr();
	while ((t = cJSON_DetachItemFromArray(all, 0)) != NULL) {
		name = mc_json_str(t, "name");
		if (name != NULL && mc_settings_listed(&d->c.set, "tools.disabled", name)) {
			cJSON_Delete(t);
			continue;
		}
		switch (name == NULL ? OWN_TOOL : tool_owner(d, name, NULL)) {	/* tools.c */
		case OWN_MCP:
			mc_json_push(rows[1], t);
			break;
		case OWN_SUBAGENTS:
			mc_json_push(rows[2], t);
			break;
		default:
			mc_json_push(rows[0], t);
		}
	}
	cJSON_Delete(all);
	for (i = 0; i < 3; i++) {
		if ((n = cJSON_GetArraySize(rows[i])) > 0 || i == 0) {
			text = mc_json_compact(rows[i], &len);
			printf("%-10s %-12s %6zu %6zu   sent beside the prompt: %d tool schema%s\n",
			    "schemas", source[i], len, len / 4, n, n == 1 ? "" : "s");
			free(text);
		}
		cJSON_Delete(rows[i]);
	}
	return 0;
}

/* The prompt into out_fd, or out when out_fd is -1; an instruction file
 * mc-discover refuses stops it unless keep_going. 0, or -1 after saying
 * why. */
int
stages_prompt(struct driver *d, int stats, int keep_going, int out_fd, struct mc_buf *out)
{
	struct mc_pipeline p;
	int rd = -1, r = 0;

	if (context_start(d, 1, stats, keep_going, out_fd, &p, &rd) == -1)
		return -1;
	if (out_fd == -1 && (r = stage_output(rd, PROMPT_CAP, "mc-render", out)) == -1)
		mc_pipeline_kill(&p, SIGTERM);
	if (stages_wait(&p, keep_going) == -1)
		return -1;
	if (stats && r == 0) {
		fflush(stdout);
		r = tool_stats(d);
	}
	return r;
}

cJSON *
stages_context(struct driver *d)
{
	struct mc_pipeline p;
	struct mc_buf b = {0};
	char err[256];
	cJSON *doc = NULL;
	int rd, r;

	if (context_start(d, 0, 0, 1, -1, &p, &rd) == -1)
		return NULL;
	if ((r = stage_output(rd, DOC_CAP, "mc-skills", &b)) == -1)
		mc_pipeline_kill(&p, SIGTERM);
	if (stages_wait(&p, 1) == 0 && r == 0 &&
	    (doc = mc_json_parse(b.data ? b.data : "", b.len, err, sizeof err)) == NULL)
		mc_err("mc-skills: output: %s", err);
	mc_buf_free(&b);
	return doc;
}


/*
 * Whether bash will run sandboxed, asked of `mc-tool sandbox` once a
 * session, when its first answer begins (not while the request is on its
 * way, to take no CPU from it),
 * when the settings leave it to "auto" (the default): where it cannot,
 * the session says so once (SPEC 17), never silently. Its stderr (the
 * settings' warnings, said once by the driver) goes to /dev/null.
 */
void
sandbox_ask(struct driver *d)
{
	static char *argv[] = { "mc-tool", "sandbox", NULL };
	const char *mode = mc_json_str(mc_settings_get(&d->c.set, "tools.sandbox"), "mode");
	char err[256];
	int null;

	if (d->sandbox.asked || d->c.dry)
		return;
	d->sandbox.asked = 1;
	if ((mode != NULL && strcmp(mode, "auto") != 0) ||
	    mc_settings_listed(&d->c.set, "tools.disabled", "bash") ||
	    (null = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1)
		return;
	d->sandbox.f = (struct mc_filter){ .collect = &d->sandbox.out, .cap = 1u << 16,
	    .err_fd = null };
	d->sandbox.running = mc_filter_start(argv, &d->sandbox.f, err, sizeof err) == 0;
	close(null);
}

/* The answer of sandbox_ask, said when bash runs unsandboxed. */
void
sandbox_told(struct driver *d)
{
	char *line;
	int st;

	if (!d->sandbox.running)
		return;
	d->sandbox.running = 0;
	mc_filter_finish(&d->sandbox.f, &st);
	/* Status 1: bash runs unsandboxed; the last line says why. */
	if (WIFEXITED(st) && WEXITSTATUS(st) == 1 && d->sandbox.out.data != NULL &&
	    (line = strstr(d->sandbox.out.data, "\nbash: ")) != NULL) {
		line += strlen("\nbash: ");
		line[strcspn(line, "\n")] = '\0';
		mc_warn("bash %s", line);
	}
	mc_buf_free(&d->sandbox.out);
}

/*
 * A launch: everything a session needs is started at once, so that each
 * program starts up while the others work: the tool list, the prompt's
 * stages, mc-send (whose libcurl loads meanwhile) and the session's
 * mc-request. The prompt and the tools are then read. 0, or -1 after
 * saying why.
 */
int
stages_launch(struct driver *d)
{
	char *tool_argv[] = { "mc-tool", "-q", "list", NULL }, err[256];
	struct mc_pipeline p, tp = {0};
	int rd = -1, trd = -1, in, r;

	if ((!d->c.dry && send_start(d) == -1) || build_start(d) == -1 || tools_start(d) == -1)
		return -1;
	if ((in = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1 ||
	    mc_pipeline_add(&tp, tool_argv, in, -1, &trd, err, sizeof err) == -1) {
		/* The suite without its tools still answers questions. */
		mc_warn("%s; no tools this session", in == -1 ? "/dev/null" : err);
		trd = -1;
	}
	if (in != -1)
		close(in);
	if (context_start(d, 1, 0, d->c.keep_going, -1, &p, &rd) == -1) {
		if (trd != -1) {
			close(trd);
			mc_pipeline_wait(&tp);
		}
		return -1;
	}
	r = stage_output(rd, PROMPT_CAP, "mc-render", &d->s.prompt);
	if (r == -1)
		mc_pipeline_kill(&p, SIGTERM);
	if (stages_wait(&p, d->c.keep_going) == -1)
		r = -1;
	if (trd != -1) {
		if (stage_output(trd, MC_TOOLS_MAX, "mc-tool", &d->s.tools) == -1)
			mc_pipeline_kill(&tp, SIGTERM);
		if (stages_wait(&tp, 1) == -1)
			r = -1;
	}
	if (r == 0 && tools_gather(d) == -1)	/* tools.c: after mc-tool's */
		r = -1;
	return r;
}

/* The guides of the paths a tool call touched, from mc-discover --touched. */
cJSON *
stages_guides(char **paths, size_t n)
{
	struct mc_filter f = {0};
	struct mc_buf doc = {0};
	char **argv, err[256];
	cJSON *j = NULL;
	size_t i;
	int st;

	if ((argv = calloc(n + 6, sizeof *argv)) == NULL)
		mc_oom();
	argv[0] = "mc-discover";
	argv[1] = "-q";
	argv[2] = "--keep-going";
	argv[3] = "--touched";
	argv[4] = "--";		/* a file named -C.. is a path, not an option */
	for (i = 0; i < n; i++)
		argv[5 + i] = paths[i];
	f.collect = &doc;
	f.cap = ENVELOPE_CAP;
	if (mc_filter_run(argv, &f, &st, err, sizeof err) == -1)
		mc_err("%s", err);
	else if (stage_ok("mc-discover", st) &&
	    (j = mc_json_parse(doc.data ? doc.data : "", doc.len, err, sizeof err)) == NULL)
		mc_err("mc-discover: output: %s", err);
	mc_buf_free(&doc);
	free(argv);
	return j;
}

/* mc-render --stats over a context document: the prompt's section table. */
int
stages_stats(struct driver *d, const char *doc, struct mc_buf *out)
{
	struct mc_filter f = { .in = doc, .inlen = strlen(doc), .collect = out,
	    .cap = ENVELOPE_CAP };
	struct args a = {0};
	char err[256];
	int st;

	render_args(d, &a, 1);
	if (mc_filter_run(a.v, &f, &st, err, sizeof err) == -1) {
		mc_err("%s", err);
		return -1;
	}
	return stage_ok("mc-render", st) ? 0 : -1;
}
