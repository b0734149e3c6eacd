/* shell.c: unit tests for lib/shell.c on a table of hostile commands, and lib/rules.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "rules.h"
#include "shell.h"

static int failures;

#define CHECK(c, ...) do { if (!(c)) { printf("shell: " __VA_ARGS__); putchar('\n'); \
	failures++; } } while (0)

/*
 * Each command and what it splits into: the simple commands' words
 * joined by "|", commands by " ; ", then " > " and the redirection
 * targets; or "ASK:" and a word of the reason.
 */
static const struct { const char *in, *out; } table[] = {
	{ "git status", "git|status" },
	{ "  git   status  ", "git|status" },
	{ "git diff && rm -rf /", "git|diff ; rm|-rf|/" },
	{ "a || b; c | d |& e & f", "a ; b ; c ; d ; e ; f" },
	{ "a\nb\n", "a ; b" },
	{ "echo 'a; rm -rf /'", "echo|a; rm -rf /" },
	{ "echo \"a && b\" | wc", "echo|a && b ; wc" },
	{ "echo a\\;b", "echo|a;b" },
	{ "echo a\\\nb", "echo|ab" },
	{ "git \\\n status", "git|status" },
	{ "'git' \"status\"", "git|status" },
	{ "echo \"a\\\"b\\$c\\x\"", "echo|a\"b$c\\x" },
	{ "echo 'it''s'", "echo|its" },
	{ "echo $HOME ${USER} \"$1\"", "echo|$HOME|${USER}|$1" },
	{ "echo $'a\\'; b'", "echo|$'a\\'; b'" },
	{ "echo # a comment; rm x", "echo" },
	{ "echo a#b", "echo|a#b" },
	{ "FOO=1 git status", "FOO=1|git|status" },
	{ "make > out.txt 2>&1", "make > out.txt" },
	{ "make 2>/dev/null >>log &>all 1>&2 3<&- 4>&5-", "make > /dev/null log all" },
	{ "cat < in.txt <> rw >| clobber", "cat > in.txt rw clobber" },
	{ "echo hi >&file", "echo|hi > file" },
	{ "wc <<< 'here string'", "wc" },
	{ "cat <<EOF\nline; rm -rf /\n$HOME\nEOF\necho after", "cat ; echo|after" },
	{ "cat <<'EOF'\n$(rm -rf /) `x`\nEOF", "cat" },
	{ "cat <<-\tEOF\n\tbody\n\tEOF\n", "cat" },
	{ "cat <<A <<B\n1\nA\n2\nB\nls", "cat ; ls" },
	{ "git diff\n\n", "git|diff" },
	{ "a &&\nb", "a ; b" },
	{ "echo $(rm -rf /)", "ASK:substitution" },
	{ "echo `rm -rf /`", "ASK:substitution" },
	{ "echo \"$(id)\"", "ASK:substitution" },
	{ "echo \"`id`\"", "ASK:substitution" },
	{ "echo $((1+2))", "ASK:substitution" },
	{ "cat <<EOF\n$(rm -rf /)\nEOF", "ASK:substitution" },
	{ "cat <<EOF\n`id`\nEOF", "ASK:substitution" },
	{ "diff <(ls a) <(ls b)", "ASK:process substitution" },
	{ "tee >(wc)", "ASK:process substitution" },
	{ "echo ${x:-$(id)}", "ASK:operator" },
	{ "eval \"$cmd\"", "ASK:eval" },
	{ "FOO=1 eval x", "ASK:eval" },
	{ "sudo eval x", "ASK:eval" },
	{ "sh -c 'rm -rf /'", "ASK:sh -c" },
	{ "bash -ec 'x'", "ASK:sh -c" },
	{ "/bin/bash -c x", "ASK:sh -c" },
	{ "xargs sh -c 'rm $0'", "ASK:sh -c" },
	{ "find . -exec sh -c 'x' \\;", "ASK:sh -c" },
	{ "git status; eval x", "ASK:eval" },
	{ "echo 'unterminated", "ASK:parse" },
	{ "echo \"unterminated", "ASK:parse" },
	{ "echo trailing\\", "ASK:parse" },
	{ "echo $'open", "ASK:parse" },
	{ "cat <<EOF\nno end", "ASK:here-document" },
	{ "cat <<EOF", "ASK:here-document" },
	{ "&& ls", "ASK:parse" },
	{ "ls &&", "ASK:parse" },
	{ "ls | | wc", "ASK:parse" },
	{ "; ls", "ASK:parse" },
	{ "ls >", "ASK:parse" },
	{ "ls > ;", "ASK:parse" },
	{ "(cd x; rm -rf y)", "ASK:subshell" },
	{ "f() { rm -rf /; }", "ASK:subshell" },
	{ "{ rm -rf /; }", "ASK:compound" },
	{ "if true; then rm x; fi", "ASK:compound" },
	{ "for f in *; do rm $f; done", "ASK:compound" },
	{ "while :; do :; done", "ASK:compound" },
	{ "! git diff", "ASK:compound" },
	{ "echo $\\\n(id)", "ASK:substitution" },
	{ "echo \"$\\\n(id)\"", "ASK:substitution" },
	{ "echo \"$\\\n\\\n{x:-y}\"", "ASK:operator" },
	{ "echo \"$\\\n{HOME}\"", "echo|${HOME}" },
	{ "cat <<EOF\n$\\\n(id)\nEOF", "ASK:continuation" },
	{ "i\\\nf true; then x; fi", "ASK:compound" },
	{ "ev\\\nal x", "ASK:eval" },
	{ "\"if\" x", "if|x" },
	{ "echo if then", "echo|if|then" },
	{ "", "" },
};

static void
render(const struct mc_shell *sh, struct mc_buf *b)
{
	size_t i, k;

	if (sh->ask != NULL) {
		mc_buf_printf(b, "ASK:%s", sh->ask);
		return;
	}
	for (i = 0; i < sh->ncmds; i++)
		for (k = 0; k < sh->cmds[i].n; k++)
			mc_buf_printf(b, "%s%s", k ? "|" : i ? " ; " : "", sh->cmds[i].words[k]);
	for (i = 0; i < sh->ntargets; i++)
		mc_buf_printf(b, "%s%s", i ? " " : " > ", sh->targets[i]);
}

static void
test_table(void)
{
	struct mc_shell sh;
	struct mc_buf b;
	size_t i;
	int ok;

	for (i = 0; i < sizeof table / sizeof table[0]; i++) {
		b = (struct mc_buf){0};
		mc_shell_parse(table[i].in, &sh);
		render(&sh, &b);
		if (strncmp(table[i].out, "ASK:", 4) == 0)
			ok = sh.ask != NULL && strstr(sh.ask, table[i].out + 4) != NULL;
		else
			ok = strcmp(b.data ? b.data : "", table[i].out) == 0;
		CHECK(ok, "[%zu] %s: got \"%s\", want \"%s\"", i, table[i].in, b.data ? b.data : "",
		    table[i].out);
		mc_buf_free(&b);
		mc_shell_free(&sh);
	}
}

/* Rule r, which must parse. */
static int
parsed(const char *r, struct mc_rule *rule)
{
	char err[256];

	if (mc_rule_parse(r, rule, err, sizeof err) == -1) {
		printf("shell: %s: %s\n", r, err);
		failures++;
		return -1;
	}
	return 0;
}

/* Rule r (which must parse) against command cmd (which must split into one). */
static int
command_matches(const char *r, const char *cmd)
{
	struct mc_rule rule;
	struct mc_shell sh;
	int m;

	if (parsed(r, &rule) == -1)
		return -1;
	mc_shell_parse(cmd, &sh);
	m = sh.ncmds == 1 && mc_rule_command(&rule, &sh.cmds[0]);
	mc_shell_free(&sh);
	mc_rule_free(&rule);
	return m;
}

static int
path_matches(const char *r, const char *rel)
{
	struct mc_rule rule;
	int m;

	if (parsed(r, &rule) == -1)
		return -1;
	m = mc_rule_path(&rule, rel);
	mc_rule_free(&rule);
	return m;
}

static void
test_rules(void)
{
	static const char *const bad[] = { "bash(", "bash()", "bash(git status", "ba sh",
		"(git)", "bash(a && b)", "bash(a > f)", "bash($(x):*)", "bash(:*)",
		"foo(bar)", "edit(../x)", "edit(a/../../x)", "read()", "edit(/)", "mcp__a__*", "",
		NULL };
	struct mc_rule r;
	char err[256], *p;
	struct mc_shell sh;
	int i;

	for (i = 0; bad[i]; i++) {
		CHECK(mc_rule_parse(bad[i], &r, err, sizeof err) == -1, "rule \"%s\" parsed", bad[i]);
		mc_rule_free(&r);
	}
	CHECK(command_matches("bash(git status)", "git status") == 1, "exact");
	CHECK(command_matches("Bash(git status)", "git  'status'") == 1, "exact, quoted, any case");
	CHECK(command_matches("bash(git status)", "git status -s") == 0, "exact matched more");
	CHECK(command_matches("bash(git diff:*)", "git diff --stat") == 1, "prefix");
	CHECK(command_matches("bash(git diff:*)", "git diff") == 1, "prefix alone");
	CHECK(command_matches("bash(git diff:*)", "git diffx") == 0, "prefix not at a word boundary");
	CHECK(command_matches("bash(git diff:*)", "git") == 0, "prefix longer than the command");
	CHECK(command_matches("bash(npm test:*)", "FOO=1 npm test") == 0, "an assignment before");
	CHECK(command_matches("bash(git commit -m \"a b\")", "git commit -m 'a b'") == 1,
	    "a quoted word in a rule");
	CHECK(command_matches("bash", "rm -rf /") == 1, "the tool alone");
	CHECK(path_matches("edit(src/**)", "src/a/b.c") == 1, "src/** below");
	CHECK(path_matches("edit(src/**)", "src") == 0, "src/** is not src");
	CHECK(path_matches("edit(src/**)", "lib/src/a.c") == 0, "anchored glob at depth");
	CHECK(path_matches("edit(/src)", "src/x.c") == 1, "a directory covers what is in it");
	CHECK(path_matches("read(.env)", ".env") == 1, ".env");
	CHECK(path_matches("read(.env)", "a/b/.env") == 1, "a name at any depth");
	CHECK(path_matches("read(.env)", "a/.env.local") == 0, "a longer name");
	CHECK(path_matches("read(*.key)", "k/server.key") == 1, "a name glob at depth");
	CHECK(path_matches("read(*.key)", ".key") == 1, "* takes a leading dot (gitignore)");
	CHECK(path_matches("read(secrets/)", "secrets/a") == 1, "a trailing slash");
	CHECK(path_matches("write(./docs/*.md)", "docs/a.md") == 1, "./ at the start");
	CHECK(path_matches("write(docs/*.md)", "docs/x/a.md") == 0, "* does not cross /");
	CHECK(path_matches("write(**/*.md)", "x/y/a.md") == 1, "**/ at the start");
	CHECK(path_matches("write", "anything") == 1, "the tool alone, for paths");
	mc_rule_parse("mcp__srv__echo", &r, err, sizeof err);
	CHECK(mc_rule_tool(&r, "srv__echo", "srv") && !mc_rule_tool(&r, "srv__other", "srv") &&
	    !mc_rule_tool(&r, "bash", NULL), "mcp__SERVER__TOOL");
	mc_rule_free(&r);
	mc_rule_parse("mcp__srv", &r, err, sizeof err);
	CHECK(mc_rule_tool(&r, "srv__echo", "srv") && !mc_rule_tool(&r, "srv2__echo", "srv2"),
	    "mcp__SERVER");
	mc_rule_free(&r);
	mc_rule_parse("BASH", &r, err, sizeof err);
	CHECK(mc_rule_tool(&r, "bash", NULL), "a built-in tool in any case");
	mc_rule_free(&r);
	mc_shell_parse("git diff --stat", &sh);
	p = mc_rule_prefix_of(&sh.cmds[0]);
	CHECK(p && strcmp(p, "git diff") == 0, "prefix of git diff --stat: %s", p);
	free(p);
	mc_shell_free(&sh);
	mc_shell_parse("ls -l src", &sh);
	p = mc_rule_prefix_of(&sh.cmds[0]);
	CHECK(p && strcmp(p, "ls") == 0, "prefix of ls -l: %s", p);
	free(p);
	mc_shell_free(&sh);
	mc_shell_parse("./build.sh x", &sh);
	p = mc_rule_prefix_of(&sh.cmds[0]);
	CHECK(p && strcmp(p, "./build.sh x") == 0, "prefix of ./build.sh x: %s", p);
	free(p);
	mc_shell_free(&sh);
	mc_shell_parse("echo aaaaaaaaaaaaaaaaaaaaa", &sh);
	p = mc_rule_prefix_of(&sh.cmds[0]);
	CHECK(p && strcmp(p, "echo") == 0, "a long second word is no subcommand: %s", p);
	free(p);
	mc_shell_free(&sh);
	mc_shell_parse("'a b' c", &sh);
	CHECK(mc_rule_prefix_of(&sh.cmds[0]) == NULL, "a word with a space has no prefix");
	mc_shell_free(&sh);
}

int
main(void)
{
	test_table();
	test_rules();
	if (failures == 0)
		puts("shell: ok");
	return failures != 0;
}
