/* mc-render/profiles.c: agent and subagent profiles: the subagents section and the role wrappers. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "context.h"
#include "diag.h"
#include "frontmatter.h"
#include "fsread.h"
#include "settings.h"
#include "render.h"

/* Read a profile and split it; warns about an unterminated frontmatter. */
static int
read_profile(struct render *R, const char *path, struct mc_read *r,
    struct mc_frontmatter *fm)
{
	mc_file_read(path, PROFILE_CAP, MC_LINK_REFUSE, NULL, 1, r);
	if (r->status != MC_READ_OK)
		return -1;
	mc_frontmatter_parse(r->data, r->len, fm);
	if (fm->present && !fm->terminated)
		mc_context_diag(R->doc, "warning", path, "unterminated frontmatter");
	return 0;
}

/* A frontmatter value for one line of the prompt, or NULL. */
static char *
fm_line(const struct mc_frontmatter *fm, const char *key)
{
	const char *v = mc_frontmatter_get(fm, key);

	return v != NULL ? one_line(v, DESC_MAX) : NULL;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* <Subagent-Identities>: one line per $MC_HOME/subagents/ID.md, by id. */
void
build_subagents(struct render *R)
{
	struct section *S = &R->sec[S_SUBAGENTS];
	struct mc_frontmatter fm;
	struct dirent *de;
	struct mc_read r;
	struct stat st;
	char **ids = NULL, **p, *dir, *path, *name, *desc;
	size_t nids = 0, i, n;
	DIR *dp;
	int fd;

	S->source = "generated";
	if ((dir = mc_path_join(R->s.home, "subagents")) == NULL)
		mc_oom();
	/* A symlinked directory is not scanned (SPEC §0); O_NOFOLLOW keeps
	 * it so between the lstat and the open. */
	if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)) {
		mc_context_diag(R->doc, "warning", dir, "symbolic link to a directory, not scanned");
		free(dir);
		return;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1) {
		if (errno != ENOENT && errno != ENOTDIR)
			mc_context_diag(R->doc, "warning", dir, "%s", strerror(errno));
		free(dir);
		return;
	}
	if ((dp = fdopendir(fd)) == NULL) {
		mc_context_diag(R->doc, "warning", dir, "%s", strerror(errno));
		close(fd);
		free(dir);
		return;
	}
	while ((de = readdir(dp)) != NULL) {
		n = strlen(de->d_name);
		if (de->d_name[0] == '.' || n <= 3 || strcmp(de->d_name + n - 3, ".md") != 0)
			continue;
		if (!safe_id(de->d_name, n - 3)) {
			if ((path = mc_path_join(dir, de->d_name)) == NULL)
				mc_oom();
			mc_context_diag(R->doc, "warning", path,
			    "not a valid profile id (letters, digits, '.', '_' and '-'); skipped");
			free(path);
			continue;
		}
		if ((p = reallocarray(ids, nids + 1, sizeof *ids)) == NULL ||
		    (p[nids] = strndup(de->d_name, n - 3)) == NULL)
			mc_oom();
		ids = p;
		nids++;
	}
	closedir(dp);
	if (nids > 0)
		qsort(ids, nids, sizeof *ids, cmp_names);

	for (i = 0; i < nids; i++) {
		char file[ID_MAX + 4];

		snprintf(file, sizeof file, "%s.md", ids[i]);
		if ((path = mc_path_join(dir, file)) == NULL)
			mc_oom();
		if (read_profile(R, path, &r, &fm) == -1) {
			mc_context_diag(R->doc, "warning", path, "%s; skipped",
			    mc_read_strerror(&r, PROFILE_CAP));
			free(r.data);
			free(path);
			continue;
		}
		name = fm_line(&fm, "name");
		desc = fm_line(&fm, "description");
		if (S->text.len == 0)
			mc_buf_adds(&S->text, "<Subagent-Identities>\n");
		mc_buf_adds(&S->text, "- ");
		mc_buf_adds(&S->text, ids[i]);
		if (name != NULL) {
			mc_buf_adds(&S->text, " (");
			mc_buf_adds(&S->text, name);
			mc_buf_adds(&S->text, ")");
		}
		if (desc != NULL) {
			mc_buf_adds(&S->text, ": ");
			mc_buf_adds(&S->text, desc);
		}
		mc_buf_adds(&S->text, "\n");
		free(name);
		free(desc);
		mc_frontmatter_free(&fm);
		free(r.data);
		free(path);
	}
	if (S->text.len > 0)
		mc_buf_adds(&S->text, "</Subagent-Identities>");
	for (i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
	free(dir);
}

/* One <Your-Role> wrapper for the profile DIR/ID.md. */
int
add_role(struct render *R, const char *dirname, const char *opt, const char *id)
{
	struct section *S = &R->sec[S_ROLE];
	struct mc_frontmatter fm;
	struct mc_buf body = {0};
	struct mc_read r;
	char *dir, *path, file[ID_MAX + 4], *name;

	snprintf(file, sizeof file, "%s.md", id);
	if ((dir = mc_path_join(R->s.home, dirname)) == NULL ||
	    (path = mc_path_join(dir, file)) == NULL)
		mc_oom();
	free(dir);
	if (read_profile(R, path, &r, &fm) == -1) {
		if (r.status == MC_READ_MISSING)
			mc_err("%s %s: no such profile: %s", opt, id, path);
		else
			mc_err("%s: %s", path, mc_read_strerror(&r, PROFILE_CAP));
		free(r.data);
		free(path);
		return -1;
	}
	name = fm_line(&fm, "name");
	mc_buf_add(&body, fm.body, fm.body_len);
	trim(&body);
	if (S->text.len > 0)
		mc_buf_adds(&S->text, "\n");
	mc_buf_adds(&S->text, "<Your-Role Persona=");
	mc_buf_adds(&S->text, name != NULL ? name : id);
	mc_buf_adds(&S->text, ">\n");
	if (body.len > 0) {
		mc_buf_add(&S->text, body.data, body.len);
		mc_buf_adds(&S->text, "\n");
	}
	mc_buf_adds(&S->text, "</Your-Role>");
	S->source = "generated";
	mc_buf_free(&body);
	free(name);
	mc_frontmatter_free(&fm);
	free(r.data);
	free(path);
	return 0;
}
