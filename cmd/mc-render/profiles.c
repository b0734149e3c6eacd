/* mc-render/profiles.c: agent and subagent profiles (lib/profile.c): the subagents section and the role wrappers. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "context.h"
#include "diag.h"
#include "profile.h"
#include "render.h"

/* A frontmatter value for one line of the prompt, or NULL. */
static char *
fm_line(const char *v)
{
	return v != NULL ? one_line(v, DESC_MAX) : NULL;
}

/* A profile that is not one: a warning of the document, and skipped. */
static void
skipped(void *arg, const char *path, const char *reason)
{
	struct render *R = arg;

	mc_context_diag(R->doc, "warning", path, "%s; skipped", reason);
}

/* <Subagent-Identities>: one line per valid $MC_HOME/subagents/ID.md, by id. */
void
build_subagents(struct render *R)
{
	struct section *S = &R->sec[S_SUBAGENTS];
	struct mc_profile *v;
	char *name, *desc;
	size_t n, i;

	S->source = "generated";
	mc_profile_list(R->s.home, MC_PROFILE_SUBAGENT, &v, &n, skipped, R);
	for (i = 0; i < n; i++) {
		name = fm_line(v[i].name);
		desc = fm_line(v[i].description);
		if (S->text.len == 0)
			mc_buf_adds(&S->text, "<Subagent-Identities>\n");
		mc_buf_printf(&S->text, "- %s", v[i].id);
		if (name != NULL)
			mc_buf_printf(&S->text, " (%s)", name);
		if (desc != NULL)
			mc_buf_printf(&S->text, ": %s", desc);
		mc_buf_adds(&S->text, "\n");
		free(name);
		free(desc);
	}
	if (S->text.len > 0)
		mc_buf_adds(&S->text, "</Subagent-Identities>");
	mc_profile_list_free(v, n);
}

/* One <Your-Role> wrapper for profile id of kind k (opt names the option). */
int
add_role(struct render *R, enum mc_profile_kind k, const char *opt, const char *id)
{
	struct section *S = &R->sec[S_ROLE];
	struct mc_profile p;
	struct mc_buf body = {0};
	char err[1024], *name;
	int r;

	if ((r = mc_profile_load(R->s.home, k, id, &p, err, sizeof err)) != 0) {
		if (r == 1)
			mc_err("%s %s: %s", opt, id, err);
		else
			mc_err("%s", err);
		return -1;
	}
	name = fm_line(p.name);
	mc_buf_add(&body, p.body, p.body_len);
	trim(&body);
	if (S->text.len > 0)
		mc_buf_adds(&S->text, "\n");
	mc_buf_printf(&S->text, "<Your-Role Persona=%s>\n", name != NULL ? name : id);
	if (body.len > 0) {
		mc_buf_add(&S->text, body.data, body.len);
		mc_buf_adds(&S->text, "\n");
	}
	mc_buf_adds(&S->text, "</Your-Role>");
	S->source = "generated";
	mc_buf_free(&body);
	free(name);
	mc_profile_free(&p);
	return 0;
}
