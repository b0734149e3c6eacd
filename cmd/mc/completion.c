/*
 * completion.c: mc completion bash|zsh|fish: a script completing mc's
 * options, subcommands, custom slash commands and models; the scripts ask
 * `mc completion models|providers|commands` for the words that depend on
 * the settings and the directory.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "mc.h"
#include "provider.h"

/* The kind of value some of mc's options take, for the words offered
 * after them; the options themselves are options.c's table. */
static const struct {
	const char *name, *what;	/* "model", "provider", "mode", "file" */
} kinds[] = {
	{ "session", "file" }, { "provider", "provider" }, { "model", "model" },
	{ "mode", "mode" }, { "schema", "file" }, { "add-dir", "file" }, { "slots", "file" },
};

static const char *
kind_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(kinds[i].name, name) == 0)
			return kinds[i].what;
	return NULL;
}

/* An option's one-letter form, or 0. */
static int
short_of(const struct option *o)
{
	return o->val > 0 && o->val < 128 ? o->val : 0;
}

static const char subcommands[] = "prompt sessions models rewind completion acp";
static const char modes[] = "default accept-edits plan yes";

/* The options whose value is what (all with what NULL), sep between. */
static void
option_words(const char *what, const char *sep)
{
	const struct option *o;
	const char *k;
	int any = 0;

	for (o = options_table(); o->name != NULL; o++) {
		k = kind_of(o->name);
		if (what != NULL && (k == NULL || strcmp(k, what) != 0))
			continue;
		printf("%s--%s", any++ ? sep : "", o->name);
		if (short_of(o))
			printf("%s-%c", sep, short_of(o));
	}
	if (what == NULL)
		/* mc rewind's, mc sessions export's */
		fputs(" --files --conversation --list --force --markdown", stdout);
}

static void
bash_script(void)
{
	fputs("# bash completion for mc (mc completion bash)\n"
	    "_mc() {\n"
	    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} w\n"
	    "\tCOMPREPLY=()\n"
	    "\tcase $prev in\n"
	    "\t", stdout);
	option_words("model", "|");
	fputs(")\n"
	    "\t\tw=$(mc completion models 2>/dev/null) ;;\n\t", stdout);
	option_words("provider", "|");
	fputs(")\n"
	    "\t\tw=$(mc completion providers 2>/dev/null) ;;\n\t", stdout);
	option_words("mode", "|");
	printf(")\n\t\tw='%s' ;;\n\t", modes);
	option_words("file", "|");
	fputs(")\n"
	    "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	    "\t\treturn ;;\n"
	    "\tcompletion)\n"
	    "\t\tw='bash zsh fish' ;;\n"
	    "\tsessions)\n"
	    "\t\tw='export --all --json' ;;\n"
	    "\t*)\n"
	    "\t\tcase $cur in\n"
	    "\t\t-*) w='", stdout);
	option_words(NULL, " ");
	fputs("' ;;\n"
	    "\t\t/*) w=$(mc completion commands 2>/dev/null) ;;\n"
	    "\t\t*) [ \"$COMP_CWORD\" -eq 1 ] || return\n", stdout);
	printf("\t\t\tw='%s' ;;\n", subcommands);
	fputs("\t\tesac ;;\n"
	    "\tesac\n"
	    "\tCOMPREPLY=($(compgen -W \"$w\" -- \"$cur\"))\n"
	    "}\n"
	    "complete -o default -F _mc mc\n", stdout);
}

static void
zsh_script(void)
{
	fputs("#compdef mc\n"
	    "# zsh completion for mc (mc completion zsh)\n"
	    "_mc() {\n"
	    "\tlocal cur=${words[CURRENT]} prev=${words[CURRENT-1]}\n"
	    "\tcase $prev in\n"
	    "\t", stdout);
	option_words("model", "|");
	fputs(")\n"
	    "\t\tcompadd -- ${(f)\"$(mc completion models 2>/dev/null)\"}\n"
	    "\t\treturn ;;\n\t", stdout);
	option_words("provider", "|");
	fputs(")\n"
	    "\t\tcompadd -- ${(f)\"$(mc completion providers 2>/dev/null)\"}\n"
	    "\t\treturn ;;\n\t", stdout);
	option_words("mode", "|");
	printf(")\n\t\tcompadd -- %s\n\t\treturn ;;\n\t", modes);
	option_words("file", "|");
	fputs(")\n"
	    "\t\t_files\n"
	    "\t\treturn ;;\n"
	    "\tcompletion)\n"
	    "\t\tcompadd -- bash zsh fish\n"
	    "\t\treturn ;;\n"
	    "\tsessions)\n"
	    "\t\tcompadd -- export --all --json\n"
	    "\t\treturn ;;\n"
	    "\tesac\n"
	    "\tcase $cur in\n"
	    "\t-*) compadd -- ", stdout);
	option_words(NULL, " ");
	fputs(" ;;\n"
	    "\t/*) compadd -- ${(f)\"$(mc completion commands 2>/dev/null)\"} ;;\n"
	    "\t*)\n", stdout);
	printf("\t\t(( CURRENT == 2 )) && compadd -- %s\n", subcommands);
	fputs("\t\t_files ;;\n"
	    "\tesac\n"
	    "}\n"
	    "if [ \"${funcstack[1]}\" = _mc ]; then\n"
	    "\t_mc \"$@\"\n"
	    "else\n"
	    "\tcompdef _mc mc\n"
	    "fi\n", stdout);
}

static void
fish_script(void)
{
	const struct option *o;
	const char *values, *k;

	fputs("# fish completion for mc (mc completion fish)\n"
	    "complete -c mc -e\n", stdout);
	printf("complete -c mc -n __fish_use_subcommand -f -a '%s'\n", subcommands);
	fputs("complete -c mc -n '__fish_seen_subcommand_from completion' -f -a 'bash zsh fish'\n"
	    "complete -c mc -n '__fish_seen_subcommand_from sessions' -f -a export\n"
	    "complete -c mc -n __fish_use_subcommand -f -a '(mc completion commands 2>/dev/null)'\n",
	    stdout);
	for (o = options_table(); o->name != NULL; o++) {
		printf("complete -c mc -l %s", o->name);
		if (short_of(o))
			printf(" -s %c", short_of(o));
		k = kind_of(o->name);
		values = k == NULL ? NULL : strcmp(k, "model") == 0 ?
		    "(mc completion models 2>/dev/null)" : strcmp(k, "provider") == 0 ?
		    "(mc completion providers 2>/dev/null)" : strcmp(k, "mode") == 0 ?
		    modes : NULL;
		if (values != NULL)
			printf(" -x -a '%s'", values);
		else if (o->has_arg == required_argument)
			fputs(" -r", stdout);
		putchar('\n');
	}
}

/* The words that depend on the settings and the directory. */
static int
words(const char *kind)
{
	struct driver d = {0};
	char err[1024];
	const cJSON *e;
	cJSON *list;
	const char *m;
	size_t i;

	if (mc_settings_load(&d.c.set, err, sizeof err) == -1) {
		mc_err("%s", err);
		return MC_EXIT_FAIL;
	}
	if (strcmp(kind, "models") == 0) {
		e = mc_settings_get(&d.c.set, "model");
		if ((m = cJSON_IsString(e) ? e->valuestring : NULL) != NULL)
			printf("%s\n", m);
		cJSON_ArrayForEach(e, mc_settings_get(&d.c.set, "models"))
			if (strcmp(e->string, "*") != 0 && (m == NULL || strcmp(e->string, m) != 0))
				printf("%s\n", e->string);
	} else if (strcmp(kind, "providers") == 0) {
		for (i = 0; mc_provider_builtin(i) != NULL; i++)
			printf("%s\n", mc_provider_builtin(i));
		cJSON_ArrayForEach(e, mc_settings_get(&d.c.set, "providers"))
			printf("%s\n", e->string);
	} else {
		if ((d.c.cwd = realpath(".", NULL)) != NULL) {
			list = commands_list(&d);
			cJSON_ArrayForEach(e, list)
				printf("/%s\n", mc_json_str(e, "name"));
			cJSON_Delete(list);
		}
		free(d.c.cwd);
	}
	mc_settings_free(&d.c.set);
	return mc_finish(MC_EXIT_OK);
}

int
completion_main(int argc, char *argv[])
{
	const char *w = argc == 2 ? argv[1] : "";

	if (strcmp(w, "bash") == 0)
		bash_script();
	else if (strcmp(w, "zsh") == 0)
		zsh_script();
	else if (strcmp(w, "fish") == 0)
		fish_script();
	else if (strcmp(w, "models") == 0 || strcmp(w, "providers") == 0 ||
	    strcmp(w, "commands") == 0)
		return words(w);
	else
		return mc_usage_error("usage: mc completion bash|zsh|fish");
	return mc_finish(MC_EXIT_OK);
}
