/* mc-render/fragments.c: the prompt fragments (bundled or the user's) and the per-model overrides. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "prompts.h"
#include "settings.h"
#include "template.h"
#include "render.h"

const char *const section_names[S_N] = {
	"system", "tools", "subagents", "skills", "context", "role"
};
const char *const fragment_names[F_ALL] = { "system", "tools", "skills", "compact" };

int
fragment_index(const char *name)
{
	size_t n = strlen(name);
	int i;

	if (n > 3 && strcmp(name + n - 3, ".md") == 0)
		n -= 3;
	for (i = 0; i < F_ALL; i++)
		if (strlen(fragment_names[i]) == n && strncmp(name, fragment_names[i], n) == 0)
			return i;
	return -1;
}

static int
section_index(const char *name)
{
	int i;

	for (i = 0; i < S_N; i++)
		if (strcmp(name, section_names[i]) == 0)
			return i;
	return -1;
}

const struct mc_prompt *
bundled(int f)
{
	const struct mc_prompt *p;
	char name[32];

	snprintf(name, sizeof name, "%s.md", fragment_names[f]);
	for (p = mc_prompts; p->name != NULL; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

static int
template_error(const char *label, const struct mc_template_error *e)
{
	mc_err("%s: %s %s", label, e->what, e->token);
	return -1;
}

/* Load a fragment: the user's override, else the bundled default. */
int
load_fragment(struct render *R, int f, unsigned *used)
{
	struct fragment *F = &R->frag[f];
	const struct mc_prompt *p;
	struct mc_template_error e;
	struct mc_read r;
	char name[32], *dir, *path;
	unsigned u;

	snprintf(name, sizeof name, "%s.md", fragment_names[f]);
	if ((dir = mc_path_join(R->s.home, "prompts")) == NULL ||
	    (path = mc_path_join(dir, name)) == NULL)
		mc_oom();
	free(dir);
	mc_file_read(path, FRAGMENT_CAP, MC_LINK_REFUSE, NULL, 1, &r);
	if (r.status == MC_READ_OK) {
		F->label = path;
		F->raw = r.data;
		F->rawlen = r.len;
		F->source = "user";
	} else if (r.status == MC_READ_MISSING) {
		free(path);
		if ((p = bundled(f)) == NULL) {
			mc_err("no bundled fragment %s (a build problem)", name);
			return -1;
		}
		if (asprintf(&F->label, "prompts/%s", name) == -1 ||
		    (F->raw = strdup(p->data)) == NULL)
			mc_oom();
		F->rawlen = p->len;
		F->source = "bundled";
	} else {
		mc_err("%s: %s", path, mc_read_strerror(&r, FRAGMENT_CAP));
		free(path);
		return -1;
	}
	if (mc_template_scan(F->raw, F->rawlen, &u, &e) == -1)
		return template_error(F->label, &e);
	*used |= u;
	return 0;
}

/*
 * Check every prompt.model_overrides entry (a typo should not wait for
 * the day its model is used) and pick the first whose match is a prefix
 * of model.
 */
int
check_overrides(struct render *R, const char *model, unsigned *used)
{
	static const char key[] = "prompt.model_overrides";
	const cJSON *e, *sec;
	const char *match, *action, *content;
	struct mc_template_error te;
	char at[512];
	unsigned u;
	int i = 0, k, applies;

	R->override_index = -1;
	cJSON_ArrayForEach(e, mc_settings_get(&R->s, key)) {
		if ((match = mc_json_str(e, "match")) == NULL) {
			mc_err("%s: %s[%d].match: missing", R->s.path, key, i);
			return -1;
		}
		applies = R->override == NULL && model != NULL &&
		    strncmp(model, match, strlen(match)) == 0;
		cJSON_ArrayForEach(sec, cJSON_GetObjectItemCaseSensitive(e, "sections")) {
			snprintf(at, sizeof at, "%s: %s[%d].sections.%s", R->s.path, key, i,
			    sec->string);
			if ((k = section_index(sec->string)) == -1) {
				mc_err("%s: unknown section (expected system, tools, subagents, skills, context or role)",
				    at);
				return -1;
			}
			action = mc_json_str(sec, "action");
			content = mc_json_str(sec, "content");
			if (action == NULL) {
				mc_err("%s.action: missing", at);
				return -1;
			}
			if (strcmp(action, "remove") == 0) {
				if (k == S_CONTEXT) {
					mc_err("%s: the context section cannot be removed", at);
					return -1;
				}
				continue;
			}
			if (content == NULL) {
				mc_err("%s.content: missing", at);
				return -1;
			}
			if (mc_template_scan(content, strlen(content), &u, &te) == -1) {
				mc_err("%s.content: %s %s", at, te.what, te.token);
				return -1;
			}
			if (applies)
				*used |= u;
		}
		if (applies) {
			R->override = e;
			R->override_index = i;
		}
		i++;
	}
	return 0;
}

int
render_text(struct render *R, const char *label, const char *text, size_t len,
    struct mc_buf *out)
{
	struct mc_template_error e;

	if (mc_template_render(text, len, R->values, out, &e) == -1)
		return template_error(label, &e);
	trim(out);
	return 0;
}

int
apply_override(struct render *R)
{
	const cJSON *sec;
	const char *action, *content;
	struct mc_buf add_text = {0}, joined;
	struct section *S;
	char label[512];

	cJSON_ArrayForEach(sec, cJSON_GetObjectItemCaseSensitive(R->override, "sections")) {
		S = &R->sec[section_index(sec->string)];
		action = mc_json_str(sec, "action");
		content = mc_json_str(sec, "content");
		S->source = "override";
		if (strcmp(action, "remove") == 0) {
			mc_buf_free(&S->text);
			continue;
		}
		snprintf(label, sizeof label, "%s: prompt.model_overrides[%d].sections.%s.content",
		    R->s.path, R->override_index, sec->string);
		if (render_text(R, label, content, strlen(content), &add_text) == -1)
			return -1;
		joined = (struct mc_buf){0};
		if (strcmp(action, "prepend") == 0 && add_text.len > 0) {
			mc_buf_add(&joined, add_text.data, add_text.len);
			if (S->text.len > 0)
				mc_buf_adds(&joined, "\n");
		}
		if (strcmp(action, "replace") != 0 && S->text.len > 0)
			mc_buf_add(&joined, S->text.data, S->text.len);
		if ((strcmp(action, "append") == 0 || strcmp(action, "replace") == 0) &&
		    add_text.len > 0) {
			if (joined.len > 0)
				mc_buf_adds(&joined, "\n");
			mc_buf_add(&joined, add_text.data, add_text.len);
		}
		mc_buf_free(&S->text);
		mc_buf_free(&add_text);
		S->text = joined;
		if (S == &R->sec[S_CONTEXT] && S->text.len == 0) {
			mc_err("%s: prompt.model_overrides[%d].sections.context: the context section cannot be removed",
			    R->s.path, R->override_index);
			return -1;
		}
	}
	return 0;
}
