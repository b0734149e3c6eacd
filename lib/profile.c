/* profile.c: agent and subagent profiles: the one reader mc-render and mc share. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "frontmatter.h"
#include "fsread.h"
#include "profile.h"

/* "agents" or "subagents": the directory under $MC_HOME. */
static const char *
kind_dir(enum mc_profile_kind k)
{
	return k == MC_PROFILE_SUBAGENT ? "subagents" : "agents";
}

int
mc_profile_id_valid(enum mc_profile_kind k, const char *id, size_t n)
{
	size_t i;
	char c;

	if (n == 0 || n > MC_PROFILE_ID_MAX || id[0] == '.')
		return 0;
	for (i = 0; i < n; i++) {
		c = id[i];
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')
			continue;
		if (k == MC_PROFILE_AGENT && ((c >= 'A' && c <= 'Z') || c == '.' || c == '_'))
			continue;
		return 0;
	}
	return 1;
}

const char *
mc_profile_id_rule(enum mc_profile_kind k)
{
	return k == MC_PROFILE_SUBAGENT ?
	    "1 to 64 lower-case letters, digits and '-'" :
	    "1 to 64 letters, digits, '.', '_' and '-', not starting with '.'";
}

/* The profile directory, followed when it is a link; -1 with errno. */
static int
open_dir(const char *home, enum mc_profile_kind k, char **dir)
{
	*dir = mc_path_join(home, kind_dir(k));
	return open(*dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static char *
value(const struct mc_frontmatter *fm, const char *key)
{
	const char *v = mc_frontmatter_get(fm, key);

	return v != NULL && *v != '\0' ? mc_strdup(v) : NULL;
}

/* One name of disabled_tools, its blanks trimmed; an empty one is left out. */
static void
add_tool(struct mc_profile *p, const char *a, const char *b)
{
	char **v;

	while (a < b && (*a == ' ' || *a == '\t'))
		a++;
	while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	if (b == a)
		return;
	if ((v = reallocarray(p->disabled_tools, p->ndisabled + 1, sizeof *v)) == NULL)
		mc_oom();
	v[p->ndisabled] = mc_strndup(a, (size_t)(b - a));
	p->disabled_tools = v;
	p->ndisabled++;
}

/* "a, b" (or "[a, b]"): the names. */
static void
split_tools(struct mc_profile *p, const char *s)
{
	const char *end = s + strlen(s), *comma;

	if (end - s >= 2 && s[0] == '[' && end[-1] == ']') {
		s++;
		end--;
	}
	for (; s < end; s = comma + 1) {
		if ((comma = memchr(s, ',', (size_t)(end - s))) == NULL)
			comma = end;
		add_tool(p, s, comma);
	}
}

/*
 * Read ID.md in the directory dfd into p (path names it). 0; 1 when it
 * is missing; -1 otherwise; why says what is wrong, without the path.
 */
static int
load_at(int dfd, const char *path, const char *id, struct mc_profile *p, char *why,
    size_t whysz)
{
	struct mc_frontmatter fm;
	struct mc_read r;
	char file[MC_PROFILE_ID_MAX + 4];
	const char *tools;

	memset(p, 0, sizeof *p);
	snprintf(file, sizeof file, "%s.md", id);
	mc_file_readat(dfd, file, MC_PROFILE_CAP, 1, &r);
	if (r.status != MC_READ_OK) {
		snprintf(why, whysz, "%s", r.status == MC_READ_SYMLINK ?
		    "symbolic link refused (a profile is never read through a link)" :
		    mc_read_strerror(&r, MC_PROFILE_CAP));
		free(r.data);
		return r.status == MC_READ_MISSING ? 1 : -1;
	}
	mc_frontmatter_parse(r.data, r.len, &fm);
	if (fm.present && !fm.terminated) {
		snprintf(why, whysz, "unterminated frontmatter (no closing --- line)");
		mc_frontmatter_free(&fm);
		free(r.data);
		return -1;
	}
	p->text = r.data;
	p->id = mc_strdup(id);
	p->path = mc_strdup(path);
	p->name = value(&fm, "name");
	p->description = value(&fm, "description");
	p->model = value(&fm, "model");
	if ((tools = mc_frontmatter_get(&fm, "disabled_tools")) != NULL)
		split_tools(p, tools);
	p->body = fm.body;
	p->body_len = fm.body_len;
	mc_frontmatter_free(&fm);
	return 0;
}

/* DIR/ID.md, malloc'ed. */
static char *
profile_path(const char *dir, const char *id)
{
	char *path;

	if (asprintf(&path, "%s/%s.md", dir, id) == -1)
		mc_oom();
	return path;
}

int
mc_profile_load(const char *home, enum mc_profile_kind k, const char *id,
    struct mc_profile *p, char *err, size_t errsz)
{
	char *dir, *path, why[512];
	int dfd, r;

	memset(p, 0, sizeof *p);
	if (!mc_profile_id_valid(k, id, strlen(id))) {
		snprintf(err, errsz, "invalid profile id \"%s\" (%s)", id, mc_profile_id_rule(k));
		return -1;
	}
	dfd = open_dir(home, k, &dir);
	path = profile_path(dir, id);
	if (dfd == -1) {
		r = errno == ENOENT || errno == ENOTDIR ? 1 : -1;
		snprintf(why, sizeof why, "%s", strerror(errno));
	} else {
		r = load_at(dfd, path, id, p, why, sizeof why);
		close(dfd);
	}
	if (r == 1)
		snprintf(err, errsz, "no such profile: %s", path);
	else if (r == -1)
		snprintf(err, errsz, "%s: %s", dfd == -1 ? dir : path, why);
	free(path);
	free(dir);
	return r;
}

static int
cmp_ids(const void *a, const void *b)
{
	return strcmp(((const struct mc_profile *)a)->id, ((const struct mc_profile *)b)->id);
}

void
mc_profile_list(const char *home, enum mc_profile_kind k, struct mc_profile **v,
    size_t *n, mc_profile_warn_fn *warn, void *arg)
{
	struct mc_profile p, *grown;
	struct dirent *de;
	char *dir, *path, id[MC_PROFILE_ID_MAX + 1], err[1024];
	size_t len;
	DIR *dp;
	int dfd;

	*v = NULL;
	*n = 0;
	if ((dfd = open_dir(home, k, &dir)) == -1 || (dp = fdopendir(dfd)) == NULL) {
		if (errno != ENOENT && errno != ENOTDIR && warn != NULL)
			warn(arg, dir, strerror(errno));
		if (dfd != -1)
			close(dfd);
		free(dir);
		return;
	}
	while ((de = readdir(dp)) != NULL) {
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len <= 3 || strcmp(de->d_name + len - 3, ".md") != 0)
			continue;
		if (!mc_profile_id_valid(k, de->d_name, len - 3)) {
			if (warn != NULL) {
				path = mc_path_join(dir, de->d_name);
				snprintf(err, sizeof err, "not a valid profile id (%s)",
				    mc_profile_id_rule(k));
				warn(arg, path, err);
				free(path);
			}
			continue;
		}
		memcpy(id, de->d_name, len - 3);
		id[len - 3] = '\0';
		path = profile_path(dir, id);
		if (load_at(dirfd(dp), path, id, &p, err, sizeof err) != 0) {
			if (warn != NULL)
				warn(arg, path, err);
			free(path);
			continue;
		}
		free(path);
		if ((grown = reallocarray(*v, *n + 1, sizeof **v)) == NULL)
			mc_oom();
		*v = grown;
		(*v)[(*n)++] = p;
	}
	closedir(dp);
	free(dir);
	if (*n > 1)
		qsort(*v, *n, sizeof **v, cmp_ids);
}

void
mc_profile_free(struct mc_profile *p)
{
	size_t i;

	for (i = 0; i < p->ndisabled; i++)
		free(p->disabled_tools[i]);
	free(p->disabled_tools);
	free(p->id);
	free(p->path);
	free(p->name);
	free(p->description);
	free(p->model);
	free(p->text);
	memset(p, 0, sizeof *p);
}

void
mc_profile_list_free(struct mc_profile *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		mc_profile_free(&v[i]);
	free(v);
}
