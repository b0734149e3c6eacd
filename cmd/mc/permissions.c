/* permissions.c: the settings' approval rules (permissions.allow, ask, deny) and those answered "always for PREFIX", judging a call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"
#include "rules.h"
#include "shell.h"

static const char *const lists[] = { "deny", "ask", "allow" };

/* One list of rules, as settings.c checked them. */
struct ruleset {
	struct mc_rule *v;
	char **where;		/* "permissions.allow[2]" */
	size_t n;
};

struct permissions {
	struct ruleset set[3];	/* deny, ask, allow */
	struct ruleset session;	/* "always for PREFIX", this session's */
	char *decided;		/* the last judgement's rules, as written */
	char *decided_at;	/* the same with where each stands */
};

static void
rules_add(struct ruleset *rs, struct mc_rule *r, char *where)
{
	if ((rs->v = reallocarray(rs->v, rs->n + 1, sizeof *rs->v)) == NULL ||
	    (rs->where = reallocarray(rs->where, rs->n + 1, sizeof *rs->where)) == NULL)
		mc_oom();
	rs->v[rs->n] = *r;
	rs->where[rs->n++] = where;
}

static void
rules_free(struct ruleset *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		mc_rule_free(&rs->v[i]);
		free(rs->where[i]);
	}
	free(rs->v);
	free(rs->where);
	*rs = (struct ruleset){0};
}

int
perms_load(struct driver *d)
{
	struct permissions *p = calloc(1, sizeof *p);
	struct mc_rule r;
	const cJSON *e;
	char err[512], *where;
	int k, i;

	if (p == NULL)
		mc_oom();
	d->perms = p;
	for (k = 0; k < 3; k++) {
		i = 0;
		cJSON_ArrayForEach(e, mc_json_arr(mc_settings_get(&d->c.set, "permissions"),
		    lists[k])) {
			/* settings.c has parsed each one already: a failure here is none. */
			if (!cJSON_IsString(e) || mc_rule_parse(e->valuestring, &r, err, sizeof err) == -1) {
				mc_err("%s: permissions.%s[%d]: %s", d->c.set.path, lists[k], i, err);
				mc_rule_free(&r);
				return -1;
			}
			if (asprintf(&where, "permissions.%s[%d]", lists[k], i++) == -1)
				mc_oom();
			rules_add(&p->set[k], &r, where);
		}
	}
	return 0;
}

void
perms_free(struct driver *d)
{
	int k;

	if (d->perms == NULL)
		return;
	for (k = 0; k < 3; k++)
		rules_free(&d->perms->set[k]);
	rules_free(&d->perms->session);
	free(d->perms->decided);
	free(d->perms->decided_at);
	free(d->perms);
	d->perms = NULL;
}

/* A new session: what was answered "always" for the last one goes. */
void
perms_forget(struct driver *d)
{
	if (d->perms != NULL)
		rules_free(&d->perms->session);
}

/* What decided: each rule once, as written, then where it stands. */
struct said {
	struct mc_buf rules, at;
};

static void
decided(struct said *b, const struct ruleset *rs, size_t i)
{
	struct mc_buf one = {0};

	mc_buf_printf(&one, "%s (%s)", rs->v[i].text, rs->where[i]);
	if (b->at.len == 0 || strstr(b->at.data, one.data) == NULL) {
		mc_buf_printf(&b->rules, "%s%s", b->rules.len ? ", " : "", rs->v[i].text);
		mc_buf_printf(&b->at, "%s%s", b->at.len ? ", " : "", one.data);
	}
	mc_buf_free(&one);
}

/* The first rule of rs about tool that a predicate on it accepts. */
struct subject {
	const char *tool, *server;
	const struct mc_shell_cmd *cmd;	/* bash */
	const char *rel;	/* a path tool: the path inside the working directory, or NULL */
};

static int
applies(const struct mc_rule *r, const struct subject *s)
{
	if (!mc_rule_tool(r, s->tool, s->server))
		return 0;
	if (r->kind == MC_RULE_TOOL)
		return 1;
	if (s->cmd != NULL)
		return mc_rule_command(r, s->cmd);
	return s->rel != NULL && mc_rule_path(r, s->rel);
}

static long
first(const struct ruleset *rs, const struct subject *s)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (applies(&rs->v[i], s))
			return (long)i;
	return -1;
}

/* Whether a redirection's target is outside the working directory (and
 * $TMPDIR, and the null-like devices); one that names an expansion is. */
static int
outside(const struct driver *d, const char *t)
{
	static const char *const devices[] = { "/dev/null", "/dev/stdin", "/dev/stdout",
		"/dev/stderr", NULL };
	const char *tmp = getenv("TMPDIR");
	char *full, *tdir;
	int i, out;

	for (i = 0; devices[i]; i++)
		if (strcmp(t, devices[i]) == 0)
			return 0;
	if (strpbrk(t, "$`~*?[{") != NULL || (full = mc_path_resolve(d->c.cwd, t)) == NULL)
		return 1;
	out = !mc_path_within(full, d->c.cwd);
	if (out && (tdir = mc_path_resolve("/", tmp && *tmp ? tmp : "/tmp")) != NULL) {
		out = !mc_path_within(full, tdir);
		free(tdir);
	}
	free(full);
	return out;
}

/* Whether a simple command of sh changes directory: a relative
 * redirection after it is relative to somewhere else. */
static int
moves(const struct mc_shell *sh)
{
	static const char *const words[] = { "cd", "pushd", "popd", NULL };
	size_t i;
	int k;

	for (i = 0; i < sh->ncmds; i++)
		for (k = 0; sh->cmds[i].n > 0 && words[k]; k++)
			if (strcmp(sh->cmds[i].words[0], words[k]) == 0)
				return 1;
	return 0;
}

/* bash: deny if any simple command is denied; ask if any must be; allow
 * when every one is allowed (by the settings or this session). */
static enum verdict
judge_bash(struct driver *d, const char *command, struct said *why, const char **must_ask)
{
	struct permissions *p = d->perms;
	struct subject s = { .tool = "bash" };
	struct mc_shell sh;
	enum verdict v = V_ALLOW;
	size_t i, whole = 0;
	long k;
	int lk;

	mc_shell_parse(command, &sh);
	for (lk = 0; lk < 2 && why->at.len == 0; lk++)
		for (i = 0; i < sh.ncmds && why->at.len == 0; i++) {
			s.cmd = &sh.cmds[i];
			if ((k = first(&p->set[lk], &s)) != -1) {
				decided(why, &p->set[lk], (size_t)k);
				v = lk == 0 ? V_DENY : V_ASK;
			}
		}
	if (v == V_ALLOW && (*must_ask = sh.ask) == NULL)
		for (i = 0; i < sh.ntargets && *must_ask == NULL; i++)
			if (outside(d, sh.targets[i]) || (sh.targets[i][0] != '/' && moves(&sh)))
				*must_ask = "it redirects to a file outside the working directory";
	for (i = 0; v == V_ALLOW && i < sh.ncmds; i++) {
		s.cmd = &sh.cmds[i];
		if ((k = first(&p->set[2], &s)) != -1) {
			decided(why, &p->set[2], (size_t)k);
			whole += p->set[2].v[k].kind == MC_RULE_TOOL;
		} else if ((k = first(&p->session, &s)) != -1)
			decided(why, &p->session, (size_t)k);
		else
			v = V_NONE;
	}
	if (v == V_NONE || sh.ncmds == 0)
		why->rules.len = why->at.len = 0, v = V_NONE;
	/* "bash" alone allows every command, whatever it holds. */
	if (v == V_ALLOW && whole == sh.ncmds)
		*must_ask = NULL;
	mc_shell_free(&sh);
	return v;
}

/* The path a read, write, edit, grep or find call names, inside the
 * working directory: relative to it, malloc'ed ("" for the directory),
 * or NULL (outside it, or no path). */
static char *
rel_path(const struct driver *d, const char *name, const cJSON *a)
{
	const char *path = mc_json_str(a, "path");
	char *full, *rel = NULL;
	size_t n = strlen(d->c.cwd);

	if (path == NULL || *path == '\0')
		return strcmp(name, "grep") == 0 || strcmp(name, "find") == 0 ? mc_strdup("") : NULL;
	if (strncmp(path, "skill://", 8) == 0)	/* mc-skills' to read, not a path here */
		return NULL;
	if ((full = mc_path_resolve(d->c.cwd, path)) == NULL)
		return NULL;
	if (mc_path_within(full, d->c.cwd))
		rel = mc_strdup(full[n] == '/' ? full + n + 1 : "");
	free(full);
	return rel;
}

enum verdict
perms_judge(struct driver *d, const char *name, const cJSON *call, const char **rule,
    const char **must_ask)
{
	struct permissions *p = d->perms;
	const char *args = mc_json_str(call, "arguments"), *cmd;
	struct subject s = { .tool = name, .server = mcp_server_of(d, name) };
	struct said why = {0};
	enum verdict v = V_NONE;
	char err[64], *rel = NULL;
	cJSON *a;
	long k;
	int lk;

	*rule = *must_ask = NULL;
	if (p == NULL)
		return V_NONE;
	a = mc_json_parse(args ? args : "", args ? strlen(args) : 0, err, sizeof err);
	if (s.server == NULL && strcmp(name, "bash") == 0 && (cmd = mc_json_str(a, "command")))
		v = judge_bash(d, cmd, &why, must_ask);
	else {
		if (s.server == NULL)
			s.rel = rel = rel_path(d, name, a);
		for (lk = 0; lk < 3 && v == V_NONE; lk++)
			if ((k = first(&p->set[lk], &s)) != -1) {
				decided(&why, &p->set[lk], (size_t)k);
				v = lk == 0 ? V_DENY : lk == 1 ? V_ASK : V_ALLOW;
			}
	}
	free(rel);
	cJSON_Delete(a);
	free(p->decided);
	free(p->decided_at);
	p->decided = why.rules.len > 0 ? mc_buf_steal(&why.rules) : NULL;
	p->decided_at = why.at.len > 0 ? mc_buf_steal(&why.at) : NULL;
	mc_buf_free(&why.rules);
	mc_buf_free(&why.at);
	*rule = p->decided;
	return v;
}

/* The rules of the last judgement with where each stands, for stderr. */
const char *
perms_where(const struct driver *d)
{
	return d->perms != NULL && d->perms->decided_at != NULL ? d->perms->decided_at : "";
}

/* The first word or two of each simple command of a bash call that no
 * rule allows, distinct, for "always for PREFIX"; NULL when there is
 * none to offer (the command must be asked about whatever the rules). */
char **
perms_prefixes(struct driver *d, const cJSON *call, size_t *n)
{
	const char *args = mc_json_str(call, "arguments"), *cmd;
	struct subject s = { .tool = "bash" };
	struct mc_shell sh;
	char err[64], **v = NULL, *pre;
	size_t i, j;
	cJSON *a;

	*n = 0;
	a = mc_json_parse(args ? args : "", args ? strlen(args) : 0, err, sizeof err);
	if ((cmd = mc_json_str(a, "command")) == NULL || d->perms == NULL) {
		cJSON_Delete(a);
		return NULL;
	}
	mc_shell_parse(cmd, &sh);
	for (i = 0; sh.ask == NULL && i < sh.ncmds; i++) {
		s.cmd = &sh.cmds[i];
		if (first(&d->perms->set[2], &s) != -1 || first(&d->perms->session, &s) != -1)
			continue;
		if ((pre = mc_rule_prefix_of(&sh.cmds[i])) == NULL) {
			for (j = 0; j < *n; j++)
				free(v[j]);
			free(v);
			v = NULL;
			*n = 0;
			break;
		}
		for (j = 0; j < *n && strcmp(v[j], pre) != 0; j++)
			;
		if (j < *n) {
			free(pre);
			continue;
		}
		if ((v = reallocarray(v, *n + 1, sizeof *v)) == NULL)
			mc_oom();
		v[(*n)++] = pre;
	}
	mc_shell_free(&sh);
	cJSON_Delete(a);
	return v;
}

/* "always for PREFIX": bash(PREFIX:*) allowed for the rest of the session. */
void
perms_allow_prefix(struct driver *d, const char *prefix)
{
	struct mc_rule r;
	char err[256], *text;

	if (asprintf(&text, "bash(%s:*)", prefix) == -1)
		mc_oom();
	if (mc_rule_parse(text, &r, err, sizeof err) == 0)
		rules_add(&d->perms->session, &r, mc_strdup("answered always"));
	else
		mc_rule_free(&r);
	free(text);
}
