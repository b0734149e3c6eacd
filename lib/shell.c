/* shell.c: a shell command line split into simple commands, as sh(1) parses it, nothing expanded. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "shell.h"

#define NOT_PARSED "it does not parse as a shell command"
#define SUBST "it has a command substitution"

/* A here-document whose body follows the next newline. */
struct heredoc {
	char *delim;
	int quoted;		/* the body is not expanded: no substitution in it */
	int strip;		/* <<-: leading tabs of its lines go */
};

struct parser {
	const char *p;
	struct mc_shell *sh;
	struct mc_shell_cmd cur;
	int used;		/* cur has words or redirections */
	int need;		/* after &&, || or |: a command must follow */
	struct heredoc *hd;
	size_t nhd;
};

/* Stop with why (the first reason kept). -1, for the callers' return. */
static int
stop(struct parser *P, const char *why)
{
	if (P->sh->ask == NULL)
		P->sh->ask = why;
	return -1;
}

/* Room for element n of v, of size each: doubled when n is a power of
 * two (the count is the only size kept), so growth is amortized O(1). */
static void *
room(void *v, size_t n, size_t size)
{
	if (n == 0 || (n & (n - 1)) == 0)
		if ((v = reallocarray(v, n ? 2 * n : 1, size)) == NULL)
			mc_oom();
	return v;
}

static void
push(char ***v, size_t *n, char *s)
{
	*v = room(*v, *n, sizeof **v);
	(*v)[(*n)++] = s;
}

static int
meta(char c)
{
	return c == '\0' || strchr(" \t\n;&|<>()", c) != NULL;
}

/* Past any line continuations (backslash, newline) at s: sh removes them
 * before it reads what they join ("$\<newline>(" is "$("). */
static const char *
joined(const char *s)
{
	while (s[0] == '\\' && s[1] == '\n')
		s += 2;
	return s;
}

/* ${NAME} or ${N} kept as written (b is at the brace); any operator or
 * line continuation inside asks. */
static int
braced(struct parser *P, struct mc_buf *w, const char *b)
{
	const char *s = b + 1, *e = s;

	while (isalnum((unsigned char)*e) || *e == '_')
		e++;
	if (e == s && *e != '\0' && strchr("@*#?$!-", *e))
		e++;
	if (e == s || *e != '}')
		return stop(P, "it has a ${...} expansion with an operator");
	mc_buf_addc(w, '$');
	mc_buf_add(w, b, (size_t)(e + 1 - b));
	P->p = e + 1;
	return 0;
}

/* A $ in a word (dq: inside double quotes). Substitutions ask; the rest is
 * kept as written. */
static int
dollar(struct parser *P, struct mc_buf *w, int dq)
{
	const char *s, *n = joined(P->p + 1);

	if (*n == '(')
		return stop(P, SUBST);
	if (*n == '{')
		return braced(P, w, n);
	if (!dq && *n == '\'') {
		/* $'...' (ANSI-C quoting): kept whole, escapes and all. */
		for (s = n + 1; *s && *s != '\''; s++)
			if (*s == '\\' && s[1] != '\0')
				s++;
		if (*s == '\0')
			return stop(P, NOT_PARSED);
		mc_buf_addc(w, '$');
		mc_buf_add(w, n, (size_t)(s + 1 - n));
		P->p = s + 1;
		return 0;
	}
	if (!dq && *n == '"') {	/* $"..." is "..." */
		P->p = n;
		return 0;
	}
	mc_buf_addc(w, '$');
	P->p++;
	return 0;
}

/* "...": backslash escapes only $ ` " \ and newline. */
static int
dquoted(struct parser *P, struct mc_buf *w)
{
	P->p++;
	for (;;) {
		switch (*P->p) {
		case '\0':
			return stop(P, NOT_PARSED);
		case '"':
			P->p++;
			return 0;
		case '`':
			return stop(P, SUBST);
		case '$':
			if (dollar(P, w, 1) == -1)
				return -1;
			continue;
		case '\\':
			if (P->p[1] != '\0' && strchr("$`\"\\\n", P->p[1])) {
				if (P->p[1] != '\n')
					mc_buf_addc(w, P->p[1]);
				P->p += 2;
				continue;
			}
			break;
		}
		mc_buf_addc(w, *P->p++);
	}
}

/* One word, its quotes removed, into w; *quoted set when it had any. */
static int
word(struct parser *P, struct mc_buf *w, int *quoted)
{
	const char *e;

	*quoted = 0;
	while (!meta(*P->p)) {
		switch (*P->p) {
		case '\\':
			if (P->p[1] == '\0')
				return stop(P, NOT_PARSED);
			if (P->p[1] != '\n') {	/* a continuation quotes nothing */
				mc_buf_addc(w, P->p[1]);
				*quoted = 1;
			}
			P->p += 2;
			break;
		case '\'':
			if ((e = strchr(P->p + 1, '\'')) == NULL)
				return stop(P, NOT_PARSED);
			mc_buf_add(w, P->p + 1, (size_t)(e - P->p - 1));
			*quoted = 1;
			P->p = e + 1;
			break;
		case '"':
			*quoted = 1;
			if (dquoted(P, w) == -1)
				return -1;
			break;
		case '`':
			return stop(P, SUBST);
		case '$':
			if (dollar(P, w, 0) == -1)
				return -1;
			break;
		default:
			mc_buf_addc(w, *P->p++);
		}
	}
	return 0;
}

static int
reserved(const char *s)
{
	static const char *const words[] = { "if", "then", "else", "elif", "fi", "do", "done",
		"case", "esac", "while", "until", "for", "in", "function", "select", "time",
		"coproc", "{", "}", "!", "[[", "]]", NULL };
	int i;

	for (i = 0; words[i]; i++)
		if (strcmp(s, words[i]) == 0)
			return 1;
	return 0;
}

/* The word at P->p into the current command. */
static int
add_word(struct parser *P)
{
	struct mc_buf w = {0};
	int quoted;

	if (word(P, &w, &quoted) == -1) {
		mc_buf_free(&w);
		return -1;
	}
	if (P->cur.n == 0 && !quoted && reserved(w.data ? w.data : ""))
		return mc_buf_free(&w), stop(P, "it is a compound command (if, for, while, case, "
		    "braces)");
	push(&P->cur.words, &P->cur.n, mc_buf_steal(&w));
	P->used = 1;
	P->need = 0;
	return 0;
}

static void
skip_blanks(struct parser *P)
{
	for (;;) {
		if (*P->p == ' ' || *P->p == '\t')
			P->p++;
		else if (P->p[0] == '\\' && P->p[1] == '\n')
			P->p += 2;
		else
			return;
	}
}

/* The word after a redirection operator, malloc'ed, or NULL (asked). */
static char *
operand(struct parser *P, int *quoted)
{
	struct mc_buf w = {0};

	skip_blanks(P);
	if (meta(*P->p)) {
		stop(P, NOT_PARSED);
		return NULL;
	}
	if (word(P, &w, quoted) == -1) {
		mc_buf_free(&w);
		return NULL;
	}
	return mc_buf_steal(&w);
}

/* A redirection at P->p (after its fd digits, if any). */
static int
redirect(struct parser *P)
{
	const char *s = P->p;
	struct heredoc *h;
	char *t;
	int quoted, dup = 0, here = 0, strip = 0;

	P->used = 1;
	P->need = 0;
	if ((s[0] == '<' || s[0] == '>') && s[1] == '(')
		return stop(P, "it has a process substitution");
	if (strncmp(s, "<<<", 3) == 0)
		s += 3, here = 2;
	else if (strncmp(s, "<<-", 3) == 0)
		s += 3, here = 1, strip = 1;
	else if (strncmp(s, "<<", 2) == 0)
		s += 2, here = 1;
	else if (strncmp(s, "&>>", 3) == 0)
		s += 3;
	else if (strncmp(s, ">>", 2) == 0 || strncmp(s, ">|", 2) == 0 || strncmp(s, "<>", 2) == 0 ||
	    strncmp(s, "&>", 2) == 0)
		s += 2;
	else if (strncmp(s, ">&", 2) == 0 || strncmp(s, "<&", 2) == 0)
		s += 2, dup = 1;
	else
		s += 1;
	P->p = s;
	if ((t = operand(P, &quoted)) == NULL)
		return -1;
	if (here == 1) {
		P->hd = room(P->hd, P->nhd, sizeof *P->hd);
		h = &P->hd[P->nhd++];
		*h = (struct heredoc){ t, quoted, strip };
		return 0;
	}
	/* >&2, <&0, >&-, 2>&1-: descriptors, not files. */
	if (here == 2 || (dup && t[strspn(t, "0123456789")] == '\0') || (dup && strcmp(t, "-") == 0) ||
	    (dup && t[0] != '\0' && strcmp(t + strspn(t, "0123456789"), "-") == 0)) {
		free(t);
		return 0;
	}
	push(&P->sh->targets, &P->sh->ntargets, t);
	return 0;
}

/* The here-documents' bodies, after the newline that ends their line. */
static int
bodies(struct parser *P)
{
	const char *line, *nl, *c;
	size_t i, n;

	for (i = 0; i < P->nhd; i++) {
		for (;;) {
			line = P->p;
			if (*line == '\0')
				return stop(P, "it has a here-document that is not ended");
			nl = strchrnul(line, '\n');
			c = line;
			if (P->hd[i].strip)
				while (*c == '\t')
					c++;
			n = strlen(P->hd[i].delim);
			P->p = *nl ? nl + 1 : nl;
			if ((size_t)(nl - c) == n && strncmp(c, P->hd[i].delim, n) == 0)
				break;
			for (; !P->hd[i].quoted && c < nl; c++) {
				if (*c == '\\' && c + 1 == nl && *nl == '\n')
					return stop(P, "it has a here-document with a line continuation");
				if (*c == '\\' && c + 1 < nl)
					c++;
				else if (*c == '`' || (c[0] == '$' && c + 1 < nl && c[1] == '('))
					return stop(P, SUBST);
			}
		}
	}
	for (i = 0; i < P->nhd; i++)
		free(P->hd[i].delim);
	P->nhd = 0;
	return 0;
}

/* The current command ends (at an operator, a newline, the end). */
static void
end_command(struct parser *P)
{
	if (P->used) {
		P->sh->cmds = room(P->sh->cmds, P->sh->ncmds, sizeof *P->sh->cmds);
		P->sh->cmds[P->sh->ncmds++] = P->cur;
	}
	P->cur = (struct mc_shell_cmd){0};
	P->used = 0;
}

/* An operator at P->p: &&, ||, |&, |, ;, &, or ( ) ;; which ask. */
static int
operator(struct parser *P)
{
	const char *s = P->p;
	int binary = 0;

	if (*s == '(' || *s == ')')
		return stop(P, "it has a subshell or a function");
	if (strncmp(s, ";;", 2) == 0)
		return stop(P, "it is a compound command (if, for, while, case, braces)");
	if (strncmp(s, "&&", 2) == 0 || strncmp(s, "||", 2) == 0 || strncmp(s, "|&", 2) == 0)
		P->p += 2, binary = 1;
	else if (*s == '|')
		P->p++, binary = 1;
	else
		P->p++;		/* ; or & */
	if (!P->used || P->need)
		return stop(P, NOT_PARSED);
	end_command(P);
	P->need = binary;
	return 0;
}

static int
step(struct parser *P)
{
	const char *q;

	skip_blanks(P);
	if (*P->p == '\0')
		return 0;
	if (*P->p == '#') {
		P->p = strchrnul(P->p, '\n');
		return 0;
	}
	if (*P->p == '\n') {
		P->p++;
		end_command(P);
		return bodies(P);
	}
	for (q = P->p; isdigit((unsigned char)*q); q++)
		;
	if (*q == '<' || *q == '>') {
		P->p = q;
		return redirect(P);
	}
	if (q == P->p && q[0] == '&' && q[1] == '>')
		return redirect(P);
	if (strchr(";&|()", *P->p))
		return operator(P);
	return add_word(P);
}

/* The shell a word names, when it is one (by its last path segment). */
static int
shell_named(const char *w)
{
	static const char *const shells[] = { "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash",
		"yash", "fish", "busybox", NULL };
	const char *b = strrchr(w, '/');
	int i;

	b = b ? b + 1 : w;
	for (i = 0; shells[i]; i++)
		if (strcmp(b, shells[i]) == 0)
			return 1;
	return 0;
}

/* -c, -ec, -xc...: a shell's option to run its argument. */
static int
dash_c(const char *w)
{
	return w[0] == '-' && w[1] != '-' && strchr(w, 'c') != NULL &&
	    strspn(w + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == strlen(w + 1);
}

/* A word a command runs another command through (env, sudo, xargs...). */
static int
wrapper(const char *w)
{
	static const char *const words[] = { "env", "command", "builtin", "exec", "nice", "nohup",
		"timeout", "xargs", "sudo", "doas", "stdbuf", "setsid", "ionice", "chrt", "time",
		NULL };
	int i;

	for (i = 0; words[i]; i++)
		if (strcmp(w, words[i]) == 0)
			return 1;
	return 0;
}

/* A simple command that runs text as a command: eval, or sh -c. */
static const char *
runs_text(const struct mc_shell_cmd *c)
{
	size_t i = 0, k;

	/* The command word: past assignments, wrappers and their options. */
	while (i < c->n && (strchr(c->words[i], '=') != NULL || c->words[i][0] == '-' ||
	    wrapper(c->words[i]) || (i > 0 && isdigit((unsigned char)c->words[i][0]))))
		i++;
	if (i < c->n && strcmp(c->words[i], "eval") == 0)
		return "it runs text as a command (eval)";
	for (i = 0; i < c->n; i++)
		if (shell_named(c->words[i]))
			for (k = i + 1; k < c->n; k++)
				if (dash_c(c->words[k]))
					return "it runs text as a command (sh -c)";
	return NULL;
}

void
mc_shell_parse(const char *s, struct mc_shell *sh)
{
	struct parser P = { .p = s, .sh = sh };
	size_t i;

	*sh = (struct mc_shell){0};
	while (*P.p != '\0')
		if (step(&P) == -1)
			break;
	if (sh->ask == NULL && P.need)
		stop(&P, NOT_PARSED);
	if (sh->ask == NULL && P.nhd > 0)
		stop(&P, "it has a here-document that is not ended");
	end_command(&P);
	for (i = 0; i < P.nhd; i++)
		free(P.hd[i].delim);
	free(P.hd);
	for (i = 0; sh->ask == NULL && i < sh->ncmds; i++)
		sh->ask = runs_text(&sh->cmds[i]);
}

void
mc_shell_free(struct mc_shell *sh)
{
	size_t i, k;

	for (i = 0; i < sh->ncmds; i++) {
		for (k = 0; k < sh->cmds[i].n; k++)
			free(sh->cmds[i].words[k]);
		free(sh->cmds[i].words);
	}
	free(sh->cmds);
	for (i = 0; i < sh->ntargets; i++)
		free(sh->targets[i]);
	free(sh->targets);
	*sh = (struct mc_shell){0};
}
