/* shell.h: a POSIX shell command line split into its simple commands, for approval rules. */
#ifndef MC_SHELL_H
#define MC_SHELL_H

#include <stddef.h>

/* A simple command: its words after quote removal, assignments
 * (NAME=value) included, in order. Expansions ($NAME, globs, ~) are
 * kept as written: a rule matches what was written. */
struct mc_shell_cmd {
	char **words;
	size_t n;
};

struct mc_shell {
	struct mc_shell_cmd *cmds;	/* split at &&, ||, ;, |, |&, & and newlines */
	size_t ncmds;
	char **targets;		/* the files of <, >, >>, >|, <>, &>, &>>, N>&FILE, as written */
	size_t ntargets;
	/* Why no rule may allow the command, or NULL: command or process
	 * substitution, eval, sh -c, a compound command (if, for, while,
	 * case, a subshell, braces, a function), or something that does not
	 * parse (an unterminated quote, a here-document not ended). A
	 * static string. */
	const char *ask;
};

/*
 * Split the command line s as sh(1) would parse it, without expanding
 * anything. Never fails: what it cannot follow sets sh->ask, and what
 * was split before stays. Free with mc_shell_free.
 */
void mc_shell_parse(const char *s, struct mc_shell *sh);
void mc_shell_free(struct mc_shell *sh);

#endif
