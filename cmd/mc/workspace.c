/* workspace.c: where the agent reads without asking (the working directory, --add-dir and tools.add_dirs, $TMPDIR) and where a read, grep or find call reads. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"

/* The tools that read, each with its one path argument. */
static const char *const readers[] = { "read", "grep", "find", NULL };

/* --add-dir DIR: a directory that exists, kept canonical. 0, or a usage
 * error said. */
int
workspace_add(struct conf *c, const char *dir)
{
	struct stat st;
	char *real;

	if (c->nadd_dir == MC_ADD_DIR_MAX)
		return mc_usage_error("--add-dir: at most %d directories", MC_ADD_DIR_MAX);
	if ((real = realpath(dir, NULL)) == NULL)
		return mc_usage_error("--add-dir: %s: %s", dir, strerror(errno));
	if (stat(real, &st) == -1 || !S_ISDIR(st.st_mode)) {
		free(real);
		return mc_usage_error("--add-dir: %s: not a directory", dir);
	}
	c->add_dir[c->nadd_dir++] = real;
	return 0;
}

static void
root_add(struct conf *c, char *dir)
{
	char **v;

	if ((v = reallocarray(c->roots, c->nroots + 1, sizeof *v)) == NULL)
		mc_oom();
	c->roots = v;
	c->roots[c->nroots++] = dir;
}

/*
 * The directories read without asking, canonical: the working directory,
 * those of --add-dir and of tools.add_dirs (one that cannot be resolved
 * is left out, with a warning), and $TMPDIR (or /tmp). After the settings
 * and the working directory are known.
 */
void
workspace_init(struct conf *c)
{
	const cJSON *e;
	const char *tmp = getenv("TMPDIR");
	char *dir;
	int i = 0;

	root_add(c, mc_strdup(c->cwd));
	for (i = 0; i < c->nadd_dir; i++)
		root_add(c, mc_strdup(c->add_dir[i]));
	i = 0;
	cJSON_ArrayForEach(e, mc_settings_get(&c->set, "tools.add_dirs")) {
		if ((dir = mc_path_resolve("/", e->valuestring)) != NULL)
			root_add(c, dir);
		else
			mc_warn("%s: tools.add_dirs[%d]: %s: %s; reads there will ask first",
			    c->set.path, i, e->valuestring, strerror(errno));
		i++;
	}
	if ((dir = mc_path_resolve(c->cwd, tmp && *tmp ? tmp : "/tmp")) != NULL)
		root_add(c, dir);
}

static void
roots_free(struct conf *c)
{
	size_t i;

	for (i = 0; i < c->nroots; i++)
		free(c->roots[i]);
	free(c->roots);
	c->roots = NULL;
	c->nroots = 0;
}

/* The working directory changed (mc acp's sessions): the directories
 * read without asking, made again around it; --add-dir stays. */
void
workspace_moved(struct conf *c)
{
	roots_free(c);
	workspace_init(c);
}

void
workspace_free(struct conf *c)
{
	int k;

	roots_free(c);
	for (k = 0; k < c->nadd_dir; k++)
		free(c->add_dir[k]);
	c->nadd_dir = 0;
}

/* Whether the canonical path canon lies in a directory read without
 * asking. */
int
workspace_has(const struct conf *c, const char *canon)
{
	size_t i;

	for (i = 0; i < c->nroots; i++)
		if (mc_path_within(canon, c->roots[i]))
			return 1;
	return 0;
}

/*
 * A read, grep or find call that reads outside the directories above:
 * the canonical path it reads, malloc'ed; else NULL. No path means the
 * working directory for grep and find; skill:// URIs are mc-skills' to
 * read, mcp:// ones mc-mcp's. Arguments mc-tool will refuse are its to refuse, and so is a
 * path that cannot be resolved (a loop, a file on the way, a directory
 * we may not search): mc-tool, as this user, cannot open it either.
 */
char *
workspace_outside(const struct conf *c, const char *name, const cJSON *call)
{
	const char *args = mc_json_str(call, "arguments"), *path;
	char err[128], *full = NULL;
	size_t i;
	cJSON *a;

	for (i = 0; readers[i] && strcmp(readers[i], name) != 0; i++)
		;
	if (readers[i] == NULL || args == NULL)
		return NULL;
	a = mc_json_parse(args, strlen(args), err, sizeof err);
	path = mc_json_str(a, "path");
	if (path != NULL && *path != '\0' &&
	    !(strcmp(name, "read") == 0 && (strncmp(path, "skill://", 8) == 0 ||
	    strncmp(path, "mcp://", 6) == 0))) {
		full = mc_path_resolve(c->cwd, path);
		if (full != NULL && workspace_has(c, full)) {
			free(full);
			full = NULL;
		}
	}
	cJSON_Delete(a);
	return full;
}
