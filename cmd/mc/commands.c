/*
 * commands.c: custom commands: Markdown prompts in $MC_HOME/commands/ and
 * the repository's .agents/commands/ (the repository's win a clash), a
 * subfolder's as DIR:NAME; run as /NAME ARGS interactively, mc /NAME ARGS
 * one-shot, listed by /help.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
#include "frontmatter.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"

#define COMMAND_CAP (256u << 10)	/* a command file */
#define COMMAND_DEPTH 4			/* subfolders below commands/ */
#define COMMAND_ARGS 9			/* $1 ... $9 */

static const char *const keys[] = { "description", "argument-hint", "model" };

/* A name is words of [A-Za-z0-9_.-] joined by ':', none starting with a
 * dot: it maps to a path below the commands folder and never above it. */
static int
name_valid(const char *s, size_t n)
{
	size_t i, start = 0;

	if (n == 0)
		return 0;
	for (i = 0; i <= n; i++) {
		if (i == n || s[i] == ':') {
			if (i == start || s[start] == '.')
				return 0;
			start = i + 1;
		} else if (!(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= 'A' && s[i] <= 'Z') &&
		    !(s[i] >= '0' && s[i] <= '9') && s[i] != '_' && s[i] != '-' && s[i] != '.') {
			return 0;
		}
	}
	return 1;
}

/* The two folders, the repository's first; either may be NULL. */
static void
folders(const struct driver *d, char *dir[2])
{
	char *agents = mc_path_join(d->c.cwd, ".agents");

	dir[0] = mc_path_join(agents, "commands");
	dir[1] = mc_path_join(d->c.set.home, "commands");
	free(agents);
}

/*
 * The frontmatter checked line by line: each line between the `---` lines
 * is blank, a # comment or `KEY: VALUE` with a known key. 0, or -1 with
 * err naming the file and line.
 */
static int
check_frontmatter(const char *path, const char *text, char *err, size_t errsz)
{
	const char *p = text, *e, *colon;
	size_t line = 1, k, n;
	int closed = 0;

	if (strncmp(p, "---", 3) != 0 || (p[3] != '\n' && strncmp(p + 3, "\r\n", 2) != 0))
		return 0;	/* no frontmatter: the whole file is the prompt */
	p = strchr(p, '\n') + 1;
	for (; *p; p = *e ? e + 1 : e) {
		line++;
		e = p + strcspn(p, "\n");
		n = (size_t)(e - p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (n == 3 && memcmp(p, "---", 3) == 0) {
			closed = 1;
			break;
		}
		if (strspn(p, " \t") >= n || p[0] == '#')
			continue;
		colon = memchr(p, ':', n);
		if (colon == NULL || colon == p || p[0] == ' ' || p[0] == '\t') {
			snprintf(err, errsz, "%s:%zu: not a `key: value` line", path, line);
			return -1;
		}
		for (k = 0; k < sizeof keys / sizeof *keys; k++)
			if (strlen(keys[k]) == (size_t)(colon - p) && memcmp(keys[k], p, (size_t)(colon - p)) == 0)
				break;
		if (k == sizeof keys / sizeof *keys) {
			snprintf(err, errsz, "%s:%zu: unknown key \"%.*s\" (description, argument-hint "
			    "or model)", path, line, (int)(colon - p), p);
			return -1;
		}
	}
	if (!closed) {
		snprintf(err, errsz, "%s:1: the frontmatter has no closing `---` line", path);
		return -1;
	}
	return 0;
}

/* Read and check the command file at path; 0 with fm parsed from r->data,
 * -1 with err. */
static int
command_read(const char *path, struct mc_read *r, struct mc_frontmatter *fm, char *err,
    size_t errsz)
{
	mc_file_read(path, COMMAND_CAP, MC_LINK_FOLLOW, NULL, 1, r);
	if (r->status != MC_READ_OK) {
		snprintf(err, errsz, "%s: %s", path, mc_read_strerror(r, COMMAND_CAP));
		return -1;
	}
	if (check_frontmatter(path, r->data, err, errsz) == -1) {
		free(r->data);
		return -1;
	}
	mc_frontmatter_parse(r->data, r->len, fm);
	return 0;
}

/* The file of command NAME (n bytes): the repository's, else the user's;
 * NULL when neither has it. */
static char *
command_path(const struct driver *d, const char *name, size_t n)
{
	char *dir[2], *rel, *path = NULL;
	struct stat st;
	size_t i;

	folders(d, dir);
	if (asprintf(&rel, "%.*s.md", (int)n, name) == -1)
		mc_oom();
	for (i = 0; i < n; i++)
		if (rel[i] == ':')
			rel[i] = '/';
	for (i = 0; i < 2 && path == NULL; i++) {
		path = mc_path_join(dir[i], rel);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(path);
			path = NULL;
		}
	}
	free(rel);
	free(dir[0]);
	free(dir[1]);
	return path;
}

/* Split args into at most COMMAND_ARGS words (blanks between; '…' or "…"
 * hold blanks); the rest joins the last. Returns the count. */
static int
split_args(const char *args, char *word[COMMAND_ARGS])
{
	struct mc_buf b = {0};
	const char *p = args;
	char q;
	int n = 0;

	for (;;) {
		p += strspn(p, " \t\n");
		if (*p == '\0' || n == COMMAND_ARGS)
			break;
		b.len = 0;
		mc_buf_adds(&b, "");
		while (*p && !strchr(" \t\n", *p)) {
			if ((*p == '"' || *p == '\'') && strchr(p + 1, *p) != NULL) {
				q = *p++;
				while (*p != q)
					mc_buf_addc(&b, *p++);
				p++;
			} else {
				mc_buf_addc(&b, *p++);
			}
		}
		word[n++] = mc_strdup(b.data);
	}
	mc_buf_free(&b);
	return n;
}

/*
 * The prompt: body with $ARGUMENTS replaced by args and $1 ... $9 by the
 * words of args. A body that uses neither gets args after a blank line.
 * NULL with err when it names an argument that was not given.
 */
static char *
expand(const char *name, size_t namelen, const char *body, size_t len, const char *args,
    int *bad_args, char *err, size_t errsz)
{
	struct mc_buf b = {0};
	char *word[COMMAND_ARGS];
	int n = split_args(args, word), k, used = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (body[i] == '$' && i + 10 <= len && memcmp(body + i + 1, "ARGUMENTS", 9) == 0) {
			mc_buf_adds(&b, args);
			i += 9;
			used = 1;
		} else if (body[i] == '$' && i + 1 < len && body[i + 1] >= '1' && body[i + 1] <= '9') {
			k = body[i + 1] - '0';
			if (k > n) {
				*bad_args = 1;
				snprintf(err, errsz, "/%.*s: $%d: %d argument%s given", (int)namelen, name,
				    k, n, n == 1 ? "" : "s");
				mc_buf_free(&b);
				b.data = NULL;
				break;
			}
			mc_buf_adds(&b, word[k - 1]);
			i++;
			used = 1;
		} else {
			mc_buf_addc(&b, body[i]);
		}
	}
	if (b.data != NULL && !used && *args) {
		while (b.len > 0 && strchr(" \t\r\n", b.data[b.len - 1]))
			b.len--;
		mc_buf_adds(&b, "\n\n");
		mc_buf_adds(&b, args);
	}
	for (k = 0; k < n; k++)
		free(word[k]);
	if (b.data != NULL && b.len == 0) {
		snprintf(err, errsz, "/%.*s: the prompt is empty", (int)namelen, name);
		mc_buf_free(&b);
		return NULL;
	}
	return b.data != NULL ? mc_buf_steal(&b) : NULL;
}

int
commands_word(const char *w)
{
	return w[0] == '/' && name_valid(w + 1, strlen(w + 1));
}

/*
 * Command line ("/NAME ARGS") as a prompt: 1 with *text (and *model, the
 * file's model or NULL), 0 when no file defines NAME, -1 with err (-2
 * when the arguments do not fit it).
 */
int
commands_build(const struct driver *d, const char *line, char **text, char **model, char *err,
    size_t errsz)
{
	size_t n = strcspn(line + 1, " \t");
	const char *args = line + 1 + n, *m;
	struct mc_frontmatter fm;
	struct mc_read r;
	char *path;
	int bad_args = 0;

	*text = *model = NULL;
	if (!name_valid(line + 1, n) || (path = command_path(d, line + 1, n)) == NULL)
		return 0;
	args += strspn(args, " \t");
	if (command_read(path, &r, &fm, err, errsz) == -1) {
		free(path);
		return -1;
	}
	free(path);
	*text = expand(line + 1, n, fm.body, fm.body_len, args, &bad_args, err, errsz);
	if (*text != NULL && (m = mc_frontmatter_get(&fm, "model")) != NULL && *m)
		*model = mc_strdup(m);
	mc_frontmatter_free(&fm);
	free(r.data);
	return *text != NULL ? 1 : bad_args ? -2 : -1;
}

/* /NAME ARGS interactively: as commands_build, errors said; a model the
 * file names becomes the session's, as /model would make it. */
int
commands_slash(struct driver *d, const char *line, char **send)
{
	char err[1024], *model;
	int r = commands_build(d, line, send, &model, err, sizeof err);

	if (r < 0)
		mc_err("%s", err);
	if (r == 1 && model != NULL && (d->s.model == NULL || strcmp(d->s.model, model) != 0)) {
		free(d->s.model);
		d->s.model = model;
		d->s.tell_model = 1;
		session_record(d);
		note(d, "model: %s (from %.*s)", model, (int)strcspn(line, " \t"), line);
	} else {
		free(model);
	}
	return r;
}

static char *one_shot[2], *one_shot_model;

/*
 * mc /NAME ARGS: argv (*argc words, the first "/NAME") becomes the one
 * word of the command's prompt, and its model the run's unless -m said
 * one. 0; MC_EXIT_USAGE for an unknown command or arguments that do not
 * fit it, MC_EXIT_FAIL for a file that cannot be used (said).
 */
int
commands_one_shot(struct driver *d, int *argc, char ***argv)
{
	struct mc_buf line = {0};
	char err[1024];
	int k, r;

	for (k = 0; k < *argc; k++) {
		if (k)
			mc_buf_addc(&line, ' ');
		mc_buf_adds(&line, (*argv)[k]);
	}
	r = commands_build(d, line.data, &one_shot[0], &one_shot_model, err, sizeof err);
	if (r == 0)
		mc_err("unknown command %s: no %s.md in .agents/commands/ or %s/commands/ "
		    "(mc -- %s asks about the word)", (*argv)[0], (*argv)[0] + 1, d->c.set.home,
		    (*argv)[0]);
	else if (r < 0)
		mc_err("%s", err);
	mc_buf_free(&line);
	if (r != 1)
		return r == -1 ? MC_EXIT_FAIL : MC_EXIT_USAGE;
	if (d->c.model == NULL)
		d->c.model = one_shot_model;
	*argv = one_shot;
	*argc = 1;
	return 0;
}

void
commands_free(void)
{
	free(one_shot[0]);
	free(one_shot_model);
	one_shot[0] = one_shot_model = NULL;
}

/* The commands below dir (prefix: their DIR: so far), into names and
 * descriptions; a name already there (the repository's) is kept. */
static void
scan(const char *dir, const char *prefix, int depth, struct mc_strset *seen, cJSON *list)
{
	struct dirent **ent;
	struct mc_frontmatter fm;
	struct mc_read r;
	struct stat st;
	char *path, *name, err[512];
	const char *desc, *hint;
	size_t len;
	cJSON *o;
	int n, i;

	if ((n = scandir(dir, &ent, NULL, alphasort)) == -1)
		return;
	for (i = 0; i < n; i++) {
		len = strlen(ent[i]->d_name);
		path = mc_path_join(dir, ent[i]->d_name);
		if (asprintf(&name, "%s%s:", prefix, ent[i]->d_name) == -1)
			mc_oom();
		name[strlen(name) - 1] = '\0';	/* the ':' is room for a folder's */
		if (ent[i]->d_name[0] == '.' || stat(path, &st) != 0) {
			;
		} else if (S_ISDIR(st.st_mode) && depth < COMMAND_DEPTH) {
			strcat(name, ":");
			scan(path, name, depth + 1, seen, list);
		} else if (S_ISREG(st.st_mode) && len > 3 && strcmp(ent[i]->d_name + len - 3, ".md") == 0) {
			name[strlen(name) - 3] = '\0';
			if (name_valid(name, strlen(name)) && mc_strset_find(seen, name) == NULL) {
				mc_strset_add(seen, name, 0, NULL);
				o = mc_json_new_obj();
				mc_json_add_str(o, "name", name);
				if (command_read(path, &r, &fm, err, sizeof err) == -1) {
					mc_json_add_str(o, "error", err);
				} else {
					desc = mc_frontmatter_get(&fm, "description");
					hint = mc_frontmatter_get(&fm, "argument-hint");
					mc_json_add_str(o, "description", desc);
					mc_json_add_str(o, "argument-hint", hint);
					mc_frontmatter_free(&fm);
					free(r.data);
				}
				cJSON_AddItemToArray(list, o);
			}
		}
		free(name);
		free(path);
		free(ent[i]);
	}
	free(ent);
}

/* Every command: [{"name","description","argument-hint"} or {"name","error"}]. */
cJSON *
commands_list(const struct driver *d)
{
	struct mc_strset seen = {0};
	cJSON *list = mc_json_new_arr();
	char *dir[2];

	folders(d, dir);
	scan(dir[0], "", 0, &seen, list);
	scan(dir[1], "", 0, &seen, list);
	mc_strset_free(&seen);
	free(dir[0]);
	free(dir[1]);
	return list;
}

/* /help's part: the custom commands and what they say of themselves. */
void
commands_help(const struct driver *d)
{
	cJSON *list = commands_list(d), *e;
	const char *v;
	char buf[512];
	int any = 0;

	cJSON_ArrayForEach(e, list) {
		if (!any++)
			fputs("Custom commands:\n", stdout);
		printf("  /%s", mc_sanitize(buf, sizeof buf, mc_json_str(e, "name")));
		if ((v = mc_json_str(e, "argument-hint")) != NULL)
			printf(" %s", mc_sanitize(buf, sizeof buf, v));
		if ((v = mc_json_str(e, "error")) != NULL)
			printf("\n                (unusable: %s)", mc_sanitize(buf, sizeof buf, v));
		else if ((v = mc_json_str(e, "description")) != NULL)
			printf("\n                %s", mc_sanitize(buf, sizeof buf, v));
		putchar('\n');
	}
	cJSON_Delete(list);
}
