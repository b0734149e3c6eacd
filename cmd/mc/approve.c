/* approve.c: before write, edit, bash and reads outside the workspace: the question (preview.c shows what the call will do), and the user's answer. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <unistd.h>

#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"

#define ANSWER_MAX 64

/* In enum guard's order (mc.h). */
static const char *const guarded_tools[] = { "write", "edit", "bash", NULL };

/* The index of a call that asks first, or -1: write, edit, bash, an MCP
 * tool unless its server says "approve": false, and a read, grep or find
 * outside the workspace (workspace.c), the path it reads in *where. */
static int
guarded(const struct driver *d, const char *name, const cJSON *call, char **where)
{
	int i;

	*where = NULL;
	if (mcp_has(d, name))
		return mcp_guarded(d, name) ? GUARD_MCP : -1;
	for (i = 0; guarded_tools[i]; i++)
		if (strcmp(name, guarded_tools[i]) == 0)
			return i;
	if ((*where = workspace_outside(&d->c, name, call)) != NULL)
		return GUARD_READ;
	return -1;
}

/*
 * Read one line of answer from the terminal fd, in canonical mode with
 * echo. 0 with the line in buf (cut to its size), or -1 at its end or
 * when interrupted.
 */
static int
read_answer(int fd, char *buf, size_t size)
{
	size_t len = 0;
	char c[256];
	ssize_t n, i;

	for (;;) {
		n = read(fd, c, sizeof c);
		if (n == -1 && errno == EINTR && !interrupted)
			continue;
		if (n <= 0)
			return -1;
		for (i = 0; i < n; i++) {
			if (c[i] == '\n') {
				buf[len] = '\0';
				return 0;
			}
			if (len + 1 < size)
				buf[len++] = c[i];
		}
	}
}

/* y, yes, n, no, a, always, and with prefixes to offer p, prefix, in any
 * case, blanks around them ignored: 1 yes, 0 no, 2 always, 3 always for
 * the prefixes, -1 anything else. */
static int
answer_of(char *s, int prefixes)
{
	static const struct { const char *word; int r; } words[] = {
		{ "y", 1 }, { "yes", 1 }, { "n", 0 }, { "no", 0 }, { "a", 2 }, { "always", 2 },
		{ "p", 3 }, { "prefix", 3 },
	};
	size_t i, n;

	s += strspn(s, " \t\r");
	for (n = strlen(s); n > 0 && strchr(" \t\r", s[n - 1]); n--)
		;
	s[n] = '\0';
	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcasecmp(s, words[i].word) == 0 && (words[i].r != 3 || prefixes))
			return words[i].r;
	return -1;
}

/* The question's choices: "always for `git diff`, `make`" where there are
 * prefixes to offer. */
static void
choices(struct mc_buf *b, char **pre, size_t npre)
{
	size_t i;

	mc_buf_adds(b, "[y]es, [n]o, ");
	if (npre > 0) {
		mc_buf_adds(b, "[p] always for ");
		for (i = 0; i < npre; i++)
			mc_buf_printf(b, "%s`%s`", i ? ", " : "", pre[i]);
		mc_buf_adds(b, ", [a]lways for this tool:");
	} else
		mc_buf_adds(b, "[a]lways this session:");
}

/* The question, wrapped between words to the terminal's width, the
 * answer to be typed after its last row. */
static void
question(const struct driver *d, struct mc_buf *out, int width, const char *name, int outside,
    char **pre, size_t npre)
{
	struct mc_buf q = {0};

	mc_buf_printf(&q, "allow %s%s? ", name, outside ? " outside the working directory" : "");
	choices(&q, pre, npre);
	show_words(d, out, "", "", q.data, q.len, width);
	out->data[out->len - 1] = ' ';	/* not a newline: the answer follows */
	mc_buf_free(&q);
}

/*
 * Ask on the terminal itself (/dev/tty), whatever standard error is: the
 * preview, then the question, after discarding what was typed ahead
 * while the model worked, until one of the answers answer_of knows
 * comes. 1 yes, 0 no, 2 always, 3 always for the prefixes pre, -1
 * interrupted, -2 no terminal to ask on.
 */
static int
ask(struct driver *d, int tool, const char *where, const char *name, const cJSON *call,
    char **pre, size_t npre)
{
	struct termios saved, line;
	struct mc_buf b = {0};
	char answer[ANSWER_MAX];
	const char *hint;
	int fd, width, r = -1, modes;

	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1) {
		mc_err("/dev/tty: %s: cannot ask whether %s may run; refused", strerror(errno), name);
		return -2;
	}
	width = term_width(fd);
	preview(d, &b, width, tool, where, name, call);
	/* The driver's own terminal modes (no echo while the model works)
	 * give way to a plain line with echo while the user answers. */
	if ((modes = tcgetattr(fd, &saved) == 0)) {
		line = saved;
		line.c_lflag |= ICANON | ECHO | ECHOE | ECHOK | ISIG;
		line.c_iflag |= ICRNL;
		tcsetattr(fd, TCSANOW, &line);
	}
	while (r == -1 && !interrupted) {
		question(d, &b, width, name, tool == GUARD_READ, pre, npre);
		tcflush(fd, TCIFLUSH);
		if (mc_write_all(fd, b.data, b.len) == -1 ||
		    read_answer(fd, answer, sizeof answer) == -1)
			break;
		b.len = 0;
		hint = npre > 0 ? "(answer y or yes, n or no, p or prefix, a or always)" :
		    "(answer y or yes, n or no, a or always)";
		if ((r = answer_of(answer, npre > 0)) == -1)
			show_words(d, &b, "  ", "  ", hint, strlen(hint), width);
	}
	if (r == -1 && !interrupted)
		mc_write_all(fd, "\n", 1);
	if (modes)
		tcsetattr(fd, TCSANOW, &saved);
	close(fd);
	mc_buf_free(&b);
	return r;
}

/* Allowed without asking: answered "always" in this session, or granted
 * beforehand with --allow (for a subagent, by its parent). */
static int
granted(const struct driver *d, const char *name)
{
	const cJSON *e;
	int i;

	cJSON_ArrayForEach(e, d->s.always)
		if (strcmp(e->valuestring, name) == 0)
			return 1;
	for (i = 0; i < d->c.nallow; i++)
		if (strcmp(d->c.allow[i], name) == 0)
			return 1;
	return 0;
}

/* Refused without asking: answered "always reject" in this session (mc acp). */
static int
barred(const struct driver *d, const char *name)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, d->s.never)
		if (strcmp(e->valuestring, name) == 0)
			return 1;
	return 0;
}

/* Whether there is someone to ask: the terminal's user, or an editor's
 * (mc acp); never for a subagent. */
static int
asker(const struct driver *d)
{
	return d->c.depth == 0 && (d->t.el != NULL || d->front != NULL);
}

/* write or edit of a path inside the working directory: what
 * accept-edits allows. */
static int
edit_inside(const struct driver *d, int tool, const cJSON *call)
{
	const char *args = mc_json_str(call, "arguments"), *path;
	char err[64], *full;
	cJSON *a;
	int in = 0;

	if (tool != GUARD_WRITE && tool != GUARD_EDIT)
		return 0;
	a = mc_json_parse(args ? args : "", args ? strlen(args) : 0, err, sizeof err);
	if ((path = mc_json_str(a, "path")) != NULL && *path != '\0' &&
	    (full = mc_path_resolve(d->c.cwd, path)) != NULL) {
		in = mc_path_within(full, d->c.cwd);
		free(full);
	}
	cJSON_Delete(a);
	return in;
}

/* Refused before any question: by a deny rule, or by plan mode. */
static int
refuse(struct driver *d, const char *name, const cJSON *call, char **why, const char *rule)
{
	announce(d, name, call);
	if (rule != NULL) {
		mc_note("refused %s: the rule %s denies it", name, perms_where(d));
		if (asprintf(why, "refused: the user's settings deny this call (the rule %s). Do "
		    "without it, and say what you would have done.", rule) == -1)
			mc_oom();
	} else {
		mc_note("refused %s: plan mode offers only read, grep, find and read-only MCP "
		    "tools", name);
		*why = mc_strdup("refused: this is plan mode, where only read-only tools may run. "
		    "Answer with the plan; the user will have it carried out.");
	}
	return 0;
}

/* An answer that goes beyond the call: "always" for the tool, or for
 * the command's prefixes; "never" for the tool. */
static void
remember(struct driver *d, const char *name, int r, char **pre, size_t npre)
{
	size_t i;

	if (r == 4) {
		if (d->s.never == NULL)
			d->s.never = mc_json_new_arr();
		mc_json_push(d->s.never, mc_json_new_str(name));
		return;
	}
	if (r == 3) {
		for (i = 0; i < npre; i++)
			perms_allow_prefix(d, pre[i]);
		return;
	}
	if (d->s.always == NULL)
		d->s.always = mc_json_new_arr();
	mc_json_push(d->s.always, mc_json_new_str(name));
}

/*
 * May this call run? 1 yes; 0 no, with *why the output the model gets
 * (malloc'ed); -1 when the user interrupted the question. *by says who
 * decided: "policy" (a call that needs no asking, or a one-shot run or
 * subagent without leave), "rule" (permissions.deny or allow), "mode"
 * (plan refuses, accept-edits allows), "yes", "always" (answered so, or
 * --allow) or "user"; *rule names the rule or mode that decided or made
 * it ask, or is NULL. Deny beats ask beats allow. Every call is announced
 * on the way, unless its question shows it whole.
 */
int
approve(struct driver *d, const char *name, const cJSON *call, char **why, const char **by,
    const char **rule)
{
	struct mc_buf msg = {0};
	char *where, **pre = NULL;
	const char *must;
	int tool = guarded(d, name, call, &where), r;
	enum verdict v = perms_judge(d, name, call, rule, &must);
	size_t npre = 0, i;

	*by = "rule";
	if (v == V_DENY)
		return free(where), refuse(d, name, call, why, *rule);
	if (barred(d, name)) {
		*by = "always";
		announce(d, name, call);
		*why = mc_strdup("refused: the user refused this tool for the rest of the session. "
		    "Do without it, and say what you would have done.");
		return free(where), 0;
	}
	if (d->mode.now == MODE_PLAN && !plan_offers(d, name)) {
		*by = "mode";
		*rule = "mode plan";
		return free(where), refuse(d, name, call, why, NULL);
	}
	if (v == V_ASK) {
		tool = tool == -1 || tool == GUARD_READ ? GUARD_RULE : tool;
		mc_note("%s: the rule %s asks first", name, perms_where(d));
	} else {
		*by = tool == -1 ? "policy" : "yes";
		if (tool == -1 || d->mode.now == MODE_YES || (*by = "always", granted(d, name)) ||
		    (*by = "rule", v == V_ALLOW && must == NULL) ||
		    (*by = "mode", d->mode.now == MODE_ACCEPT_EDITS && edit_inside(d, tool, call))) {
			if (strcmp(*by, "rule") == 0)
				mc_note("%s: allowed by the rule %s", name, perms_where(d));
			else if (strcmp(*by, "mode") == 0)
				*rule = "mode accept-edits";
			else if (strcmp(*by, "yes") == 0)
				*rule = "mode yes";
			else
				*rule = NULL;
			announce(d, name, call);
			free(where);
			return 1;
		}
		if (must != NULL && asker(d))
			mc_note("%s: no rule may allow this command: %s", name, must);
		*rule = NULL;
	}
	*by = "policy";
	r = 0;
	if (v == V_ASK && !asker(d)) {
		*by = "rule";
		announce(d, name, call);
		mc_note("refused %s: the rule %s asks first, and this run has no one to ask", name,
		    perms_where(d));
		mc_buf_printf(&msg, "refused: the user's settings ask before this call (the rule "
		    "%s), and this run of mc cannot ask. Do without it, and say what you would "
		    "have done.", *rule);
	} else if (d->c.depth > 0) {
		/* A subagent never asks: the parent did not allow it. */
		announce(d, name, call);
		if (tool == GUARD_READ)
			mc_buf_printf(&msg, "refused: %s of %s is outside the working directory; a "
			    "subagent may read outside it only where its parent session could "
			    "without asking (mc --yes or --add-dir, or \"always\" answered for the "
			    "tool), and this one may not. Do without it, and say in your answer "
			    "what you would have done.", name, where);
		else
			*why = mc_strdup("refused: a subagent may run write, edit, bash and MCP "
			    "tools only where its parent session would without asking (mc --yes, "
			    "or \"always\" answered for the tool), and this one may not. Do "
			    "without it, and say in your answer what you would have done.");
	} else if (!asker(d)) {
		announce(d, name, call);
		/* Said, not an error of the run: the model reads why. */
		if (!(d->s.refused & 1u << tool) && tool == GUARD_READ)
			mc_note("refused %s of %s (outside the working directory: one-shot runs need "
			    "--yes or --add-dir to read there)", name, where);
		else if (!(d->s.refused & 1u << tool))
			mc_note("refused %s (one-shot runs need --yes to run write, edit%s or bash)",
			    name, tool == GUARD_MCP ? ", MCP tools" : "");
		d->s.refused |= 1u << tool;
		if (tool == GUARD_READ)
			mc_buf_printf(&msg, "refused: %s of %s is outside the working directory; "
			    "one-shot runs need --yes or --add-dir. Do without it, or ask the user "
			    "to run mc again with --yes or --add-dir DIR.", name, where);
		else
			mc_buf_printf(&msg, "refused: this one-shot run of mc may not write, edit or "
			    "run commands unless it is given --yes%s%s%s. Say what you would do "
			    "instead, or ask the user to run it again with --yes.",
			    must ? " (and no rule of the user's may allow this command: " : "",
			    must ? must : "", must ? ")" : "");
	} else {
		*by = "user";
		if (tool == GUARD_BASH && must == NULL && v != V_ASK)
			pre = perms_prefixes(d, call, &npre);
		/* mc acp: the editor's user, through the front end */
		r = d->front != NULL ? d->front->asks(d, name, call, pre, npre) :
		    ask(d, tool, where, name, call, pre, npre);
		if (r >= 2)
			remember(d, name, r, pre, npre);
		if (r == 0)
			*why = mc_strdup("refused: the user did not allow this call.");
		else if (r == 4)
			*why = mc_strdup("refused: the user did not allow this call, nor this tool "
			    "for the rest of the session.");
		else if (r == -2)
			*why = mc_strdup("refused: mc had no terminal to ask the user on.");
		r = r == 4 || r == -2 ? 0 : r >= 2 ? 1 : r;
	}
	if (msg.len > 0)
		*why = mc_buf_steal(&msg);
	for (i = 0; i < npre; i++)
		free(pre[i]);
	free(pre);
	free(where);
	return r;
}
