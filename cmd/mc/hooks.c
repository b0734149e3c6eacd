/* hooks.c: the settings' hooks: commands run before and after tool calls, after each answer and its reasoning, when a session starts and when the model is done; what a hook's failure does. */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "clip.h"
#include "diag.h"
#include "items.h"
#include "json.h"
#include "mc.h"
#include "proc.h"
#include "toolenv.h"
#include "utf8.h"

#define HOOK_TIMEOUT 60		/* seconds, when timeout_s is not set */
#define FEEDBACK_CAP (4u << 10)	/* a pre_tool or post_tool hook's stderr, for the model */
#define CONTEXT_CAP (16u << 10)	/* a session_start hook's stdout; a stop hook's stderr */
#define UNUSED_CAP 256		/* output nobody reads (mc_clip's least) */
#define SHOWN_MAX 200		/* bytes of a hook's message in a warning or a note */

enum kind { PRE_TOOL, POST_TOOL, AFTER_ASSISTANT, AFTER_REASONING, SESSION_START, STOP, KINDS };
static const char *const kind_names[KINDS] = { "pre_tool", "post_tool", "after_assistant",
	"after_reasoning", "session_start", "stop" };

/* on_failure: what a hook that failed (could not run, timed out, was
 * killed, or exited with a status its kind gives no meaning to) does. */
enum policy { P_WARN, P_IGNORE, P_BLOCK, P_FAIL };
static const char *const policy_names[] = { "warn", "ignore", "block", "fail", NULL };

struct hook {
	const char *command;	/* the settings' own strings */
	const char *match;	/* NULL: every tool */
	regex_t re;		/* match, compiled */
	unsigned timeout_s;
	enum policy on_failure;
};

struct hooks {
	struct hook *v[KINDS];
	size_t n[KINDS];
	char fatal[48];		/* the hook whose failure ends the run, or "" */
};

/* What a hook did. */
struct ran {
	char name[48];		/* "hooks.pre_tool[0]" */
	int status;		/* its exit status; -1: it did not exit (why says why) */
	char *out, *err;	/* its stdout and stderr, cut (malloc'ed) */
	size_t outlen, errlen;
	char why[SHOWN_MAX + 128];	/* how it failed, when it did not exit */
};

static void
hook_name(char *buf, size_t n, enum kind k, size_t i)
{
	snprintf(buf, n, "hooks.%s[%zu]", kind_names[k], i);
}

/* A hook's on_failure, checked by the settings but for `block`, which
 * only a pre_tool hook can do (it refuses the call). */
static int
policy(const struct driver *d, enum kind k, const cJSON *e, const char *name, enum policy *p)
{
	const char *s = mc_json_str(e, "on_failure");

	*p = P_WARN;
	if (s == NULL)
		return 0;
	while (policy_names[*p] != NULL && strcmp(policy_names[*p], s) != 0)
		(*p)++;
	if (*p == P_BLOCK && k != PRE_TOOL) {
		mc_err("%s: %s.on_failure: \"block\" is for pre_tool hooks only (it refuses the "
		    "call); use \"ignore\", \"warn\" or \"fail\"", d->c.set.path, name);
		return -1;
	}
	return 0;
}

/*
 * The hooks of the settings, their regular expressions compiled. The
 * settings' checks have made sure of the types and that every match
 * compiles; a hook without a command is refused here, before anything
 * runs or is sent. 0, or -1 after saying why.
 */
int
hooks_load(struct driver *d)
{
	struct hooks *h;
	const cJSON *list, *e, *t;
	char path[32], name[48];
	struct hook *hk;
	int k, rc;
	size_t i;

	if ((h = d->hooks = calloc(1, sizeof *h)) == NULL)
		mc_oom();
	for (k = 0; k < KINDS; k++) {
		snprintf(path, sizeof path, "hooks.%s", kind_names[k]);
		if ((list = mc_settings_get(&d->c.set, path)) == NULL ||
		    cJSON_GetArraySize(list) == 0)
			continue;
		if ((h->v[k] = calloc((size_t)cJSON_GetArraySize(list), sizeof *hk)) == NULL)
			mc_oom();
		i = 0;
		cJSON_ArrayForEach(e, list) {
			hk = &h->v[k][i];
			hook_name(name, sizeof name, k, i);
			hk->command = mc_json_str(e, "command");
			if (hk->command == NULL || *hk->command == '\0') {
				mc_err("%s: %s.command: %s", d->c.set.path, name,
				    hk->command ? "empty" : "missing: a hook is a command to run");
				return -1;
			}
			if ((hk->match = mc_json_str(e, "match")) != NULL &&
			    (rc = regcomp(&hk->re, hk->match, REG_EXTENDED | REG_NOSUB)) != 0) {
				char why[128];

				regerror(rc, &hk->re, why, sizeof why);
				mc_err("%s: %s.match: %s", d->c.set.path, name, why);
				hk->match = NULL;
				return -1;
			}
			if (policy(d, k, e, name, &hk->on_failure) == -1)
				return -1;
			t = cJSON_GetObjectItemCaseSensitive(e, "timeout_s");
			hk->timeout_s = !cJSON_IsNumber(t) ? HOOK_TIMEOUT :
			    t->valuedouble >= UINT_MAX / 1000 ? UINT_MAX / 1000 :
			    (unsigned)t->valuedouble;
			h->n[k] = ++i;
		}
	}
	return 0;
}

void
hooks_free(struct driver *d)
{
	struct hooks *h = d->hooks;
	size_t i;
	int k;

	if (h == NULL)
		return;
	for (k = 0; k < KINDS; k++) {
		for (i = 0; i < h->n[k]; i++)
			if (h->v[k][i].match != NULL)
				regfree(&h->v[k][i].re);
		free(h->v[k]);
	}
	free(h);
	d->hooks = NULL;
}

static size_t
count(const struct driver *d, enum kind k)
{
	return d->hooks ? d->hooks->n[k] : 0;
}

static int
matches(const struct hook *h, const char *tool)
{
	return h->match == NULL || regexec(&h->re, tool, 0, NULL, 0) == 0;
}

static void
ran_free(struct ran *r)
{
	free(r->out);
	free(r->err);
}

/*
 * Run hook i of kind k: /bin/sh -c COMMAND in the working directory, with
 * the tool environment, in a session of its own, in as one JSON line on
 * its stdin, for at most its timeout_s. Its stdout is kept up to outcap,
 * its stderr up to errcap. A hook that could not run, timed out or was
 * killed is a warning (res->status -1); a signal that stopped it is
 * passed on to the driver's own handler, which sets `interrupted`.
 */
static void
hook_run(struct driver *d, enum kind k, size_t i, const cJSON *in, size_t outcap, size_t errcap,
    struct ran *res)
{
	const struct hook *h = &d->hooks->v[k][i];
	char *argv[] = { "sh", "-c", (char *)h->command, NULL }, **env, *text;
	struct mc_clip out, err;
	struct mc_proc r;
	size_t n;
	int rc, e;

	hook_name(res->name, sizeof res->name, k, i);
	res->status = -1;
	text = mc_json_compact(in, &n);
	text[n++] = '\n';	/* over the NUL: the command reads one line */
	env = mc_toolenv(&d->c.set, NULL);
	mc_clip_init(&out, outcap);
	mc_clip_init(&err, errcap);
	rc = mc_proc_run("/bin/sh", argv, &(struct mc_proc_in){ env, text, n }, h->timeout_s, &out,
	    &err, &r);
	e = errno;
	mc_env_free(env);
	free(text);
	res->out = mc_clip_finish(&out, &res->outlen);
	res->err = mc_clip_finish(&err, &res->errlen);
	res->why[0] = '\0';
	if (rc == -1)
		snprintf(res->why, sizeof res->why, "cannot run /bin/sh: %s", strerror(e));
	else if (r.interrupted)
		raise(r.interrupted);
	else if (r.timed_out)
		snprintf(res->why, sizeof res->why,
		    "timed out after %u s; it and every process it started were stopped", h->timeout_s);
	else if (r.reaped && WIFSIGNALED(r.status))
		snprintf(res->why, sizeof res->why, "killed by signal %d (%s)", WTERMSIG(r.status),
		    strsignal(WTERMSIG(r.status)));
	else if (r.reaped && WIFEXITED(r.status))
		res->status = WEXITSTATUS(r.status);
	else
		snprintf(res->why, sizeof res->why, "its exit status could not be had");
	if (r.leftovers && !r.interrupted)
		mc_warn("%s: processes it left running were stopped", res->name);
}

/* The length of the first line of a hook's message, for a warning or a
 * note: at most SHOWN_MAX bytes, cut where a character starts. */
static int
first_line(const struct ran *res)
{
	size_t n = strcspn(res->err, "\n");

	if (n > SHOWN_MAX)
		n = mc_utf8_floor(res->err, SHOWN_MAX);
	return (int)n;
}

/*
 * Hook i of kind k failed: it did not exit, or exited with a status its
 * kind gives no meaning to. Its on_failure policy says what follows:
 * ignore, a warning (warn), the call refused (block: the caller's), or
 * the run's end (fail: said here, and hooks_fatal names the hook from
 * now on). Returns the policy; why is filled for the model to read.
 */
static enum policy
failed(struct driver *d, enum kind k, size_t i, struct ran *res)
{
	enum policy p = d->hooks->v[k][i].on_failure;

	if (interrupted)	/* not the hook's failure: the user's stop */
		return P_IGNORE;
	if (res->status >= 0)
		snprintf(res->why, sizeof res->why, "exit status %d%s%.*s", res->status,
		    res->errlen ? ": " : "", first_line(res), res->err);
	switch (p) {
	case P_IGNORE:
		break;
	case P_WARN:
		mc_warn("%s: %s", res->name, res->why);
		break;
	case P_BLOCK:
		mc_note("%s failed (%s); on_failure \"block\" refuses the call", res->name, res->why);
		break;
	case P_FAIL:
		mc_err("%s failed (%s); on_failure \"fail\" ends the run", res->name, res->why);
		if (d->hooks->fatal[0] == '\0')
			snprintf(d->hooks->fatal, sizeof d->hooks->fatal, "%s", res->name);
		break;
	}
	return p;
}

/* The hook whose failure ends the run (on_failure "fail"), or NULL. */
const char *
hooks_fatal(const struct driver *d)
{
	return d->hooks != NULL && d->hooks->fatal[0] != '\0' ? d->hooks->fatal : NULL;
}

/*
 * Before a call, before its approval: the pre_tool hooks that match its
 * name, in order. Returns 1 to go on; 0 when one exits 2 and so denies
 * the call, *denial (malloc'ed) then being the output the model reads:
 * the hook's stderr; 0 too when one fails with on_failure "block" or
 * "fail" (the call is not run; after "fail", the run ends); -1 when the
 * user interrupted.
 */
int
hooks_pre_tool(struct driver *d, const cJSON *call, char **denial)
{
	const char *tool = mc_json_str(call, "name") ? mc_json_str(call, "name") : "";
	struct ran res;
	enum policy p;
	size_t i;

	*denial = NULL;
	for (i = 0; i < count(d, PRE_TOOL); i++) {
		if (!matches(&d->hooks->v[PRE_TOOL][i], tool))
			continue;
		if (interrupted)
			return -1;
		hook_run(d, PRE_TOOL, i, call, UNUSED_CAP, FEEDBACK_CAP, &res);
		if (interrupted) {
			ran_free(&res);
			return -1;
		}
		if (res.status == 2) {
			mc_note("%s refused %s%s%.*s", res.name, tool, res.errlen ? ": " : "",
			    first_line(&res), res.err);
			if (res.errlen > 0) {
				*denial = res.err;
				res.err = NULL;
			} else if (asprintf(denial, "error: the hook %s refused this call.",
			    res.name) == -1)
				mc_oom();
			ran_free(&res);
			return 0;
		}
		if (res.status != 0 && (p = failed(d, PRE_TOOL, i, &res)) >= P_BLOCK) {
			if (asprintf(denial, "error: not run: the hook %s failed (%s)%s.", res.name,
			    res.why, p == P_FAIL ? " and the run ends" : "") == -1)
				mc_oom();
			ran_free(&res);
			return 0;
		}
		ran_free(&res);
	}
	return 1;
}

/*
 * After a call, its output item in hand: the post_tool hooks that match
 * its name, in order, each given {"call":CALL,"output":TEXT} (the tool's
 * own output). The stderr of each that exits 2 is appended to the
 * output the model reads. One that fails (but under "ignore") says so
 * in that output too, and marks the item "target_ran": true: the tool
 * did run, whatever the hook after it did.
 */
/* b, the output the model reads once a hook adds to it, at a new line. */
static void
out_line(struct mc_buf *b, const char *output)
{
	if (b->data == NULL)
		mc_buf_adds(b, output);
	if (b->len > 0 && b->data[b->len - 1] != '\n')
		mc_buf_addc(b, '\n');
}

void
hooks_post_tool(struct driver *d, const cJSON *call, cJSON *item)
{
	const char *tool = mc_json_str(call, "name") ? mc_json_str(call, "name") : "";
	const char *output = mc_json_str(item, "output") ? mc_json_str(item, "output") : "";
	struct mc_buf b = {0};	/* the output and what the hooks add, once one does */
	struct ran res;
	cJSON *in = NULL;
	size_t i;

	for (i = 0; i < count(d, POST_TOOL) && !interrupted; i++) {
		if (!matches(&d->hooks->v[POST_TOOL][i], tool))
			continue;
		if (in == NULL) {
			/* References: the call and its output are not copied. */
			in = mc_json_new_obj();
			if (!cJSON_AddItemReferenceToObject(in, "call", (cJSON *)call) ||
			    !cJSON_AddItemToObject(in, "output", cJSON_CreateStringReference(output)))
				mc_oom();
		}
		hook_run(d, POST_TOOL, i, in, UNUSED_CAP, FEEDBACK_CAP, &res);
		if (res.status == 2 && res.errlen > 0) {
			out_line(&b, output);
			mc_buf_add(&b, res.err, res.errlen);
		} else if (res.status != 0 && res.status != 2 &&
		    failed(d, POST_TOOL, i, &res) != P_IGNORE) {
			out_line(&b, output);
			mc_buf_printf(&b, "(the hook %s failed after the tool ran: %s; target_ran: true)",
			    res.name, res.why);
			if (!cJSON_HasObjectItem(item, "target_ran") &&
			    cJSON_AddTrueToObject(item, "target_ran") == NULL)
				mc_oom();
		}
		ran_free(&res);
	}
	cJSON_Delete(in);
	if (b.data != NULL)
		cJSON_ReplaceItemInObjectCaseSensitive(item, "output",
		    mc_json_new_owned(mc_buf_steal(&b)));
}

static cJSON *
session_in(const struct driver *d)
{
	cJSON *in = mc_json_new_obj();

	mc_json_add_str(in, "session", d->s.file.id);
	return in;
}

/*
 * Once per session, before its first message: the session_start hooks,
 * each given {"session":ID,"cwd":DIR}; the stdout of each that exits 0
 * joins the session as a user message <Context File=hook:N>. A session
 * that already holds items (one resumed, or past its first message) has
 * had them. -1 when the session could not be written.
 */
int
hooks_session_start(struct driver *d)
{
	struct ran res;
	char file[32];
	cJSON *in;
	size_t i;
	int r = 0;

	if (count(d, SESSION_START) == 0 || d->s.file.items > 0)
		return 0;
	in = session_in(d);
	mc_json_add_str(in, "cwd", d->c.cwd);
	for (i = 0; i < count(d, SESSION_START) && !interrupted && r == 0; i++) {
		hook_run(d, SESSION_START, i, in, CONTEXT_CAP, FEEDBACK_CAP, &res);
		if (res.status == 0 && strspn(res.out, " \t\r\n") < res.outlen) {
			snprintf(file, sizeof file, "hook:%zu", i);
			r = context_add(d, file, res.out);
		} else if (res.status != 0 && failed(d, SESSION_START, i, &res) == P_FAIL)
			r = -1;
		ran_free(&res);
	}
	cJSON_Delete(in);
	return r;
}

/*
 * After an answer of the model: the hooks of kind k (after_assistant,
 * given the answer's text; after_reasoning, given its reasoning), each
 * given {"session":ID,"text":TEXT}. What they print is not read; they
 * run for their effects. -1 when one failed with on_failure "fail".
 */
static int
after(struct driver *d, enum kind k, const char *text)
{
	struct ran res;
	cJSON *in;
	size_t i;
	int r = 0;

	if (count(d, k) == 0)
		return 0;
	in = session_in(d);
	if (!cJSON_AddItemToObject(in, "text", cJSON_CreateStringReference(text)))
		mc_oom();
	for (i = 0; i < count(d, k) && !interrupted && r == 0; i++) {
		hook_run(d, k, i, in, UNUSED_CAP, FEEDBACK_CAP, &res);
		if (res.status != 0 && !interrupted && failed(d, k, i, &res) == P_FAIL)
			r = -1;
		ran_free(&res);
	}
	cJSON_Delete(in);
	return r;
}

int
hooks_after_assistant(struct driver *d, const char *text)
{
	return after(d, AFTER_ASSISTANT, text);
}

int
hooks_after_reasoning(struct driver *d, const char *text)
{
	return after(d, AFTER_REASONING, text);
}

/* The text of the session's last answer: its last assistant message, or
 * "" when the last message is not one. */
static const char *
last_answer(const struct driver *d, cJSON **keep)
{
	const char *start = d->s.file.lines.data, *end, *line, *type, *role, *text = "";
	char err[64];
	cJSON *item;

	*keep = NULL;
	if (start == NULL)
		return text;
	/* From the last line back, past usage and model lines. */
	for (end = start + d->s.file.lines.len; end > start; end = line) {
		for (line = end - 1; line > start && line[-1] != '\n'; line--)
			;
		if ((item = mc_json_parse(line, (size_t)(end - line), err, sizeof err)) == NULL)
			continue;
		type = mc_json_str(item, "type");
		if (type == NULL || strcmp(type, "message") != 0) {
			cJSON_Delete(item);
			continue;
		}
		role = mc_json_str(item, "role");
		if (role != NULL && strcmp(role, "assistant") == 0 && mc_json_str(item, "content")) {
			text = mc_json_str(item, "content");
			*keep = item;
		} else
			cJSON_Delete(item);
		break;
	}
	return text;
}

/*
 * The model is done (an answer without tool calls): the stop hooks, in
 * order, each given {"session":ID,"answer":TEXT}. The first that exits 2
 * sends the model back to work: its stderr joins the session as a user
 * message and 1 is returned, for the agent loop to go on. Otherwise 0,
 * with *o set when the user interrupted or the session could not be
 * written.
 */
int
hooks_stop(struct driver *d, enum outcome *o)
{
	struct ran res;
	cJSON *in, *keep;
	size_t i;
	int r = 0;
	char *msg;

	if (count(d, STOP) == 0 || d->c.dry)
		return 0;
	in = session_in(d);
	if (!cJSON_AddItemToObject(in, "answer", cJSON_CreateStringReference(last_answer(d, &keep))))
		mc_oom();
	for (i = 0; i < count(d, STOP) && !interrupted; i++) {
		hook_run(d, STOP, i, in, UNUSED_CAP, CONTEXT_CAP, &res);
		if (res.status == 2) {
			mc_note("%s sends the model back to work%s%.*s", res.name,
			    res.errlen ? ": " : "", first_line(&res), res.err);
			if (res.errlen > 0)
				msg = res.err;
			else if (asprintf(&msg, "The hook %s says the work is not done yet.",
			    res.name) == -1)
				mc_oom();
			r = session_add(d, mc_item_hook_message(res.name, msg)) == 0 ? 1 : 0;
			if (r == 0)
				*o = OUT_ERROR;
			if (msg != res.err)
				free(msg);
			ran_free(&res);
			break;
		}
		if (res.status != 0 && failed(d, STOP, i, &res) == P_FAIL) {
			*o = OUT_ERROR;
			ran_free(&res);
			break;
		}
		ran_free(&res);
	}
	if (interrupted && r == 0)
		*o = OUT_CANCELLED;
	cJSON_Delete(in);
	cJSON_Delete(keep);
	return r;
}

/* For /context: the hooks, one line each. */
void
hooks_show(const struct driver *d, struct mc_buf *out)
{
	const struct hook *h;
	char name[48];
	size_t i, n = 0;
	int k;

	for (k = 0; k < KINDS; k++)
		for (i = 0; i < count(d, k); i++, n++) {
			h = &d->hooks->v[k][i];
			hook_name(name, sizeof name, k, i);
			mc_buf_printf(out, "  %s (%s%s%s%u s%s%s): %s\n", name,
			    h->match && k <= POST_TOOL ? "match " : "",
			    h->match && k <= POST_TOOL ? h->match : "",
			    h->match && k <= POST_TOOL ? ", " : "", h->timeout_s,
			    h->on_failure != P_WARN ? ", on_failure " : "",
			    h->on_failure != P_WARN ? policy_names[h->on_failure] : "", h->command);
		}
	if (n == 0)
		mc_buf_adds(out, "  no hooks\n");
}
