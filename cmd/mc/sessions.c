/* sessions.c: mc sessions: the sessions of this directory (or all), newest first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "json.h"
#include "mc.h"

/* A subagent's session names its parent in its header. */
static const char *
parent_of(const struct mc_session_info *in)
{
	return mc_json_str(in->header, "parent");
}

/* When the session was last written, local time. */
void
session_when(const struct mc_session_info *in, char *buf, size_t size)
{
	struct tm tm;

	localtime_r(&in->mtime.tv_sec, &tm);
	strftime(buf, size, "%Y-%m-%d %H:%M", &tm);
}

/* Its title, sanitized; an older session without a title line: its
 * first prompt's line, cut as a title is. */
void
session_name(const struct mc_session_info *in, char *buf, size_t size)
{
	char *t = in->title ? NULL : title_of(in->first ? in->first : "");

	mc_sanitize(buf, size, in->title ? in->title : t ? t : "");
	free(t);
}

static void
line_text(const struct mc_session_info *in, const char *cwd)
{
	const char *model = mc_json_str(in->header, "model");
	char when[32], first[256];	/* a title: 60 characters of up to 4 bytes */

	session_when(in, when, sizeof when);
	session_name(in, first, sizeof first);
	printf("%s  %s  %-16s %3lld turn%s %8lld tokens  %s%s%s%s\n", in->id, when,
	    model ? model : "-", in->turns, in->turns == 1 ? " " : "s",
	    in->input + in->output, parent_of(in) ? "[subagent] " : "", first,
	    cwd ? "  " : "", cwd ? cwd : "");
}

static void
line_json(const struct mc_session_info *in)
{
	const char *model = mc_json_str(in->header, "model");
	const char *created = mc_json_str(in->header, "created");
	cJSON *o = mc_json_new_obj();
	char when[32];
	struct tm tm;

	gmtime_r(&in->mtime.tv_sec, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	mc_json_add_str(o, "id", in->id);
	mc_json_add_str(o, "created", created);
	mc_json_add_str(o, "updated", when);
	mc_json_add_str(o, "cwd", mc_json_str(in->header, "cwd"));
	mc_json_add_str(o, "model", model);
	mc_json_add_str(o, "parent", parent_of(in));
	mc_json_add_num(o, "turns", (double)in->turns);
	mc_json_add_num(o, "input_tokens", (double)in->input);
	mc_json_add_num(o, "output_tokens", (double)in->output);
	mc_json_add_num(o, "cached_tokens", (double)in->cached);
	mc_json_add_str(o, "first", in->first);
	mc_json_add_str(o, "title", in->title);
	mc_json_write(stdout, o, 0);
	cJSON_Delete(o);
}

/* The sessions of this directory (all: of every directory), newest
 * first, in *v (mc_session_list_free): 0, or -1 after saying why. */
int
sessions_of(const struct driver *d, int all, struct mc_session_info **v, size_t *n)
{
	char err[512], *here = mc_session_cwd(d->c.cwd);
	const char *cwd;
	size_t i, k;

	if (mc_session_list(d->c.set.home, v, n, err, sizeof err) == -1) {
		mc_err("%s", err);
		free(here);
		return -1;
	}
	for (i = k = 0; i < *n; i++) {
		cwd = mc_json_str((*v)[i].header, "cwd");
		if (all || (cwd != NULL && strcmp(cwd, here) == 0))
			(*v)[k++] = (*v)[i];
		else
			mc_session_info_free(&(*v)[i]);
	}
	*n = k;
	free(here);
	return 0;
}

int
sessions_list(struct driver *d, int all)
{
	struct mc_session_info *v;
	size_t n, i;

	if (sessions_of(d, all, &v, &n) == -1)
		return MC_EXIT_FAIL;
	for (i = 0; i < n; i++) {
		if (d->c.json)
			line_json(&v[i]);
		else
			line_text(&v[i], all ? mc_json_str(v[i].header, "cwd") : NULL);
	}
	/* Said, on stderr: nothing on stdout is the answer a script reads. */
	if (n == 0 && all)
		mc_note("no sessions in %s", d->c.set.home);
	else if (n == 0) {
		char *here = mc_session_cwd(d->c.cwd);

		mc_note("no sessions of this directory (%s); mc sessions --all lists every "
		    "directory's", here);
		free(here);
	}
	mc_session_list_free(v, n);
	return MC_EXIT_OK;
}
