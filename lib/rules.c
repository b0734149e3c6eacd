/* rules.c: approval rules parsed from their settings' text, and matched against a call. */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "glob.h"
#include "rules.h"

#define PREFIX_WORD_MAX 20	/* the longest second word of a prefix */

/* Tools whose rules may name a path, and the one that names commands. */
static const char *const path_tools[] = { "read", "write", "edit", "grep", "find", NULL };
static const char *const builtin_tools[] = { "bash", "read", "write", "edit", "grep", "find",
	"subagents", NULL };

static int
listed(const char *const *v, const char *s)
{
	for (; *v; v++)
		if (strcmp(*v, s) == 0)
			return 1;
	return 0;
}

static int
bad(char *err, size_t errsz, const char *text, const char *what)
{
	snprintf(err, errsz, "\"%s\": %s", text, what);
	return -1;
}

/* bash(...): one simple command, nothing the tokenizer would ask about. */
static int
parse_command(struct mc_rule *r, const char *arg, char *err, size_t errsz)
{
	struct mc_shell sh;
	size_t n = strlen(arg);
	char *cmd;

	if (n >= 2 && strcmp(arg + n - 2, ":*") == 0) {
		r->kind = MC_RULE_PREFIX;
		n -= 2;
	} else
		r->kind = MC_RULE_EXACT;
	cmd = mc_strndup(arg, n);
	mc_shell_parse(cmd, &sh);
	free(cmd);
	if (sh.ask != NULL || sh.ncmds != 1 || sh.ntargets != 0 || sh.cmds[0].n == 0) {
		mc_shell_free(&sh);
		return bad(err, errsz, r->text, "a bash rule names one simple command, "
		    "\"tool(command)\" or \"tool(prefix:*)\", with no operator, redirection or "
		    "substitution");
	}
	r->words = sh.cmds[0].words;
	r->nwords = sh.cmds[0].n;
	sh.cmds[0] = (struct mc_shell_cmd){0};
	mc_shell_free(&sh);
	return 0;
}

/* read(...), edit(...): a glob relative to the working directory. */
static int
parse_path(struct mc_rule *r, const char *arg, char *err, size_t errsz)
{
	const char *s = arg;
	size_t n;

	r->kind = MC_RULE_PATH;
	while (strncmp(s, "./", 2) == 0)
		s += 2;
	if (*s == '/') {
		r->anchored = 1;
		s++;
	}
	n = strlen(s);
	while (n > 0 && s[n - 1] == '/')
		n--;
	r->glob = mc_strndup(s, n);
	if (strchr(r->glob, '/') != NULL)
		r->anchored = 1;
	if (n == 0 || strcmp(r->glob, "..") == 0 || strncmp(r->glob, "../", 3) == 0 ||
	    strstr(r->glob, "/../") != NULL || (n >= 3 && strcmp(r->glob + n - 3, "/..") == 0))
		return bad(err, errsz, r->text, "a path rule is a glob inside the working "
		    "directory (e.g. \"edit(src/**)\", \"read(.env)\")");
	return 0;
}

int
mc_rule_parse(const char *text, struct mc_rule *r, char *err, size_t errsz)
{
	const char *open = strchr(text, '('), *p;
	size_t n = open ? (size_t)(open - text) : strlen(text), i;
	char *arg;
	int rc;

	*r = (struct mc_rule){ .text = mc_strdup(text) };
	for (p = text; p < text + n; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return bad(err, errsz, text, "expected TOOL, TOOL(ARGUMENT) or "
			    "mcp__SERVER__TOOL (a tool's name is letters, digits, _ and -)");
	if (n == 0)
		return bad(err, errsz, text, "no tool named (expected TOOL or TOOL(ARGUMENT))");
	r->tool = mc_strndup(text, n);
	for (i = 0; i < n; i++)
		r->tool[i] = (char)tolower((unsigned char)r->tool[i]);
	if (!listed(builtin_tools, r->tool))
		memcpy(r->tool, text, n);	/* only built-in names ignore case */
	if (open == NULL) {
		r->kind = MC_RULE_TOOL;
		return 0;
	}
	n = strlen(open);
	if (open[n - 1] != ')')
		return bad(err, errsz, text, "no closing parenthesis at the end");
	if (n == 2)
		return bad(err, errsz, text, "empty parentheses (write the tool alone for all its "
		    "calls)");
	arg = mc_strndup(open + 1, n - 2);
	if (strcmp(r->tool, "bash") == 0)
		rc = parse_command(r, arg, err, errsz);
	else if (listed(path_tools, r->tool))
		rc = parse_path(r, arg, err, errsz);
	else
		rc = bad(err, errsz, text, "only bash (a command) and read, write, edit, grep and "
		    "find (a path) take an argument");
	free(arg);
	return rc;
}

void
mc_rule_free(struct mc_rule *r)
{
	size_t i;

	for (i = 0; i < r->nwords; i++)
		free(r->words[i]);
	free(r->words);
	free(r->text);
	free(r->tool);
	free(r->glob);
	*r = (struct mc_rule){0};
}

int
mc_rule_tool(const struct mc_rule *r, const char *tool, const char *server)
{
	const char *rest;
	size_t n;

	if (server == NULL)
		return strcmp(r->tool, tool) == 0;
	if (strncmp(r->tool, "mcp__", 5) != 0)
		return 0;
	rest = r->tool + 5;
	if (strcmp(rest, tool) == 0 || strcmp(rest, server) == 0)
		return 1;
	/* mcp__SERVER__* would not parse: "*" is no name character. */
	n = strlen(server);
	return strncmp(rest, server, n) == 0 && strcmp(rest + n, "__") == 0;
}

int
mc_rule_command(const struct mc_rule *r, const struct mc_shell_cmd *c)
{
	size_t i;

	if (r->kind == MC_RULE_TOOL)
		return 1;
	if (r->kind != MC_RULE_EXACT && r->kind != MC_RULE_PREFIX)
		return 0;
	if (c->n < r->nwords || (r->kind == MC_RULE_EXACT && c->n != r->nwords))
		return 0;
	for (i = 0; i < r->nwords; i++)
		if (strcmp(c->words[i], r->words[i]) != 0)
			return 0;
	return 1;
}

int
mc_rule_path(const struct mc_rule *r, const char *rel)
{
	char *p, *end, *seg;
	int hit = 0;

	if (r->kind == MC_RULE_TOOL)
		return 1;
	if (r->kind != MC_RULE_PATH || *rel == '\0')
		return 0;
	p = mc_strdup(rel);
	/* rel, then each directory above it, cut at its slashes. */
	for (end = p + strlen(p); !hit && end > p; ) {
		*end = '\0';
		if (r->anchored)
			hit = mc_glob_match(r->glob, p);
		else {
			seg = strrchr(p, '/');
			hit = fnmatch(r->glob, seg ? seg + 1 : p, 0) == 0;
		}
		if ((end = strrchr(p, '/')) == NULL)
			break;
	}
	free(p);
	return hit;
}

/* A word that reads the same in a rule: no quote, space or operator. */
static int
plain(const char *w)
{
	return *w != '\0' && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_./+,:@%=-") == strlen(w);
}

char *
mc_rule_prefix_of(const struct mc_shell_cmd *c)
{
	const char *second;
	char *s;

	if (c->n == 0 || !plain(c->words[0]))
		return NULL;
	second = c->n > 1 ? c->words[1] : NULL;
	/* A subcommand (diff, test, run) is a short word; a long one is data. */
	if (second != NULL && islower((unsigned char)second[0]) && plain(second) &&
	    strpbrk(second, "./=:@%") == NULL && strlen(second) <= PREFIX_WORD_MAX) {
		if (asprintf(&s, "%s %s", c->words[0], second) == -1)
			mc_oom();
		return s;
	}
	return mc_strdup(c->words[0]);
}
