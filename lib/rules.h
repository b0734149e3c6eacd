/* rules.h: approval rules (bash(git diff:*), edit(src/...), mcp__srv__tool): parsed and matched. */
#ifndef MC_RULES_H
#define MC_RULES_H

#include <stddef.h>

#include "shell.h"

enum mc_rule_kind {
	MC_RULE_TOOL,		/* "bash": every call of the tool */
	MC_RULE_EXACT,		/* "bash(git status)": that simple command, word for word */
	MC_RULE_PREFIX,		/* "bash(git diff:*)": the command's first words */
	MC_RULE_PATH		/* "edit(*.md)": a gitignore-style glob */
};

struct mc_rule {
	char *text;		/* as written */
	char *tool;		/* a built-in tool's name in lower case, else as written */
	enum mc_rule_kind kind;
	char **words;		/* EXACT, PREFIX: the command's words */
	size_t nwords;
	char *glob;		/* PATH: without its leading "/" or "./" and trailing "/" */
	int anchored;		/* PATH: the glob has a "/": it starts at the working directory */
};

/*
 * Parse text as a rule. 0, or -1 with a reason in err (what is wrong,
 * not where: the caller names the setting). Free with mc_rule_free.
 */
int mc_rule_parse(const char *text, struct mc_rule *r, char *err, size_t errsz);
void mc_rule_free(struct mc_rule *r);

/* Whether r is about tool: the name, or for an MCP tool (server non-NULL,
 * its name in the settings) "mcp__" and the tool's name, or "mcp__SERVER"
 * for all of a server's tools. */
int mc_rule_tool(const struct mc_rule *r, const char *tool, const char *server);

/* A bash rule against one simple command (words at a word boundary). */
int mc_rule_command(const struct mc_rule *r, const struct mc_shell_cmd *c);

/* A path rule against rel, a path relative to the working directory and
 * inside it ("" for the directory itself): the glob matches rel or one of
 * the directories above it, as in .gitignore. */
int mc_rule_path(const struct mc_rule *r, const char *rel);

/* The first word or two of c ("git diff", "make"), malloc'ed, or NULL for
 * a command with no words or a first word that needs quoting: what
 * "always for PREFIX" allows. The second word is taken when it reads as
 * a subcommand: a short lower-case word, no option or path. */
char *mc_rule_prefix_of(const struct mc_shell_cmd *c);

#endif
