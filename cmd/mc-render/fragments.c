/* mc-render/fragments.c: the prompt fragments (bundled or the user's) and the per-model overrides. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "models.h"
#include "prompts.h"
#include "settings.h"
#include "template.h"
#include "render.h"

const char *const section_names[S_N] = {
	"system", "tools", "subagents", "skills", "context", "role"
};
const char *const fragment_names[F_ALL] = { "system", "tools", "skills", "compact", "plan" };

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
	dir = mc_path_join(R->s.home, "prompts");
	path = mc_path_join(dir, name);
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
		if (asprintf(&F->label, "prompts/%s", name) == -1)
			mc_oom();
		F->raw = mc_strdup(p->data);
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
 * Whether an entry's match applies to model. As the VS Code host matches
 * its model families (seed 003): a GPT or OpenAI family prefix (gpt...,
 * openai..., o1, o3, o4...) matches whatever the case, so "gpt-5" applies
 * to GPT-5; any other match is an exact, case-sensitive prefix. "*" is
 * not a prefix: check_overrides makes it the entry for every model.
 */
static int
matches(const char *match, const char *model)
{
	size_t n = strlen(match);
	int openai = strncasecmp(match, "gpt", 3) == 0 || strncasecmp(match, "openai", 6) == 0 ||
	    ((match[0] == 'o' || match[0] == 'O') && match[1] != '\0' && strchr("134", match[1]));

	if (model == NULL)
		return 0;
	return openai ? strncasecmp(model, match, n) == 0 : strncmp(model, match, n) == 0;
}

/* Whether match applies to the model or to a family of it
 * (models.ID.family, SPEC 26): a family's overrides are its models'. */
static int
matches_family(const struct render *R, const char *match, const char *model)
{
	const char *chain[MC_FAMILY_DEPTH];
	size_t n = mc_model_chain(&R->s, model, chain), i;

	for (i = 0; i < n; i++)
		if (matches(match, chain[i]))
			return 1;
	return 0;
}

/* One section of an entry, checked; at names it for messages. */
static int
check_section(const cJSON *sec, const char *at, unsigned *u)
{
	struct mc_template_error te;
	const char *action = mc_json_str(sec, "action"), *content = mc_json_str(sec, "content");
	int k = section_index(sec->string);

	*u = 0;
	if (k == -1) {
		mc_err("%s: unknown section (expected system, tools, subagents, skills, context or role)",
		    at);
		return -1;
	}
	if (action == NULL) {
		mc_err("%s.action: missing", at);
		return -1;
	}
	/* The wrapper and the files stay: an override only adds around them. */
	if (k == S_CONTEXT && (strcmp(action, "remove") == 0 || strcmp(action, "replace") == 0)) {
		mc_err("%s: %s is not allowed on the context section (it would drop the instruction files); use append or prepend",
		    at, action);
		return -1;
	}
	if (strcmp(action, "remove") == 0)
		return 0;
	if (content == NULL) {
		mc_err("%s.content: missing", at);
		return -1;
	}
	if (mc_template_scan(content, strlen(content), u, &te) == -1) {
		mc_err("%s.content: %s %s", at, te.what, te.token);
		return -1;
	}
	return 0;
}

/*
 * Check every prompt.model_overrides entry (a typo should not wait for
 * the day its model is used) and pick the entries that apply: the first
 * whose match is "*", for every model (and when there is none), and the
 * first other one that matches the model, which wins over the "*" entry
 * section by section.
 */
int
check_overrides(struct render *R, const char *model, unsigned *used)
{
	static const char key[] = "prompt.model_overrides";
	const cJSON *e, *sec;
	const char *match;
	char at[512];
	unsigned u;
	int i = 0, every, applies;

	R->override_index = R->every_index = -1;
	cJSON_ArrayForEach(e, mc_settings_get(&R->s, key)) {
		if ((match = mc_json_str(e, "match")) == NULL) {
			mc_err("%s: %s[%d].match: missing", R->s.path, key, i);
			return -1;
		}
		every = strcmp(match, "*") == 0;
		if (every && R->every != NULL) {
			mc_err("%s: %s[%d].match: a second \"*\" entry (%s[%d] already applies to every model)",
			    R->s.path, key, i, key, R->every_index);
			return -1;
		}
		applies = every || (R->override == NULL && matches_family(R, match, model));
		cJSON_ArrayForEach(sec, cJSON_GetObjectItemCaseSensitive(e, "sections")) {
			snprintf(at, sizeof at, "%s: %s[%d].sections.%s", R->s.path, key, i,
			    sec->string);
			if (check_section(sec, at, &u) == -1)
				return -1;
			if (applies)
				*used |= u;
		}
		if (every) {
			R->every = e;
			R->every_index = i;
		} else if (applies) {
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

/* Apply one section of an override entry (index i) to its section k. */
static int
apply_section(struct render *R, int k, const cJSON *sec, int i)
{
	const char *action = mc_json_str(sec, "action"), *content = mc_json_str(sec, "content");
	struct mc_buf add_text = {0}, joined = {0};
	struct section *S = &R->sec[k];
	char label[512];

	S->source = "override";
	if (strcmp(action, "remove") == 0) {
		mc_buf_free(&S->text);
		return 0;
	}
	snprintf(label, sizeof label, "%s: prompt.model_overrides[%d].sections.%s.content",
	    R->s.path, i, section_names[k]);
	if (render_text(R, label, content, strlen(content), &add_text) == -1)
		return -1;
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
	return 0;
}

/* Section k of an override entry (NULL when it has none, or no entry). */
static const cJSON *
entry_section(const cJSON *entry, int k)
{
	return cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(entry, "sections"), section_names[k]);
}

/* Each section from the entry for the model when it names the section,
 * else from the "*" entry. */
int
apply_override(struct render *R)
{
	const cJSON *sec;
	int k, i;

	for (k = 0; k < S_N; k++) {
		sec = entry_section(R->override, k);
		i = R->override_index;
		if (sec == NULL) {
			sec = entry_section(R->every, k);
			i = R->every_index;
		}
		if (sec != NULL && apply_section(R, k, sec, i) == -1)
			return -1;
	}
	return 0;
}
