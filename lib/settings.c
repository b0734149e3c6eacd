/* settings.c: MC_HOME resolution and a checked load of settings.json. */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "rules.h"
#include "models.h"
#include "reasoning.h"
#include "settings.h"

/* K_UINT: a whole number from 1 up; K_STRMAP: an object of strings;
 * K_ERE: a string that is a POSIX extended regular expression;
 * K_ABS_PATHS: an array of absolute paths; K_RULES: an array of approval
 * rules (rules.h). */
enum kind { K_STR, K_STR_NULL, K_BOOL, K_NUM, K_UINT, K_STRS, K_STRMAP, K_ENUM, K_OBJ, K_MAP,
	K_LIST, K_ERE, K_ABS_PATHS, K_RULES };

struct field {
	const char *key;
	enum kind kind;
	const struct field *sub;	/* K_OBJ fields; K_MAP, K_LIST element fields */
	const char *const *choices;	/* K_ENUM */
	const struct field *also;	/* K_MAP: fields that may stand beside its entries */
};

static const char *const apis[] = { "chat", "responses", "messages", NULL };
static const char *const roles[] = { "system", "developer", NULL };
static const char *const actions[] = { "replace", "append", "prepend", "remove", NULL };

static const struct field provider_fields[] = {
	{ "base_url", K_STR, NULL, NULL },
	{ "api", K_ENUM, NULL, apis },
	{ "api_key_env", K_STR_NULL, NULL, NULL },
	{ "api_key_cmd", K_STR, NULL, NULL },
	{ "api_key_file", K_STR, NULL, NULL },
	{ "system_role", K_ENUM, NULL, roles },
	{ "connect_timeout_s", K_UINT, NULL, NULL },
	{ "idle_timeout_s", K_UINT, NULL, NULL },
	{ "context_window", K_UINT, NULL, NULL },
	{ "prompt_cache", K_BOOL, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field model_tools_fields[] = {
	{ "include", K_STRS, NULL, NULL },
	{ "exclude", K_STRS, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field model_fields[] = {
	{ "context_window", K_UINT, NULL, NULL },
	{ "max_output_tokens", K_UINT, NULL, NULL },
	{ "family", K_STR, NULL, NULL },	/* its cycles: models.c */
	{ "reasoning", K_ENUM, NULL, mc_reasoning_levels },
	{ "images", K_BOOL, NULL, NULL },
	{ "tools", K_OBJ, model_tools_fields, NULL },
	{ "tool_descriptions", K_STRMAP, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field instructions_fields[] = {
	{ "additional_markdown_paths", K_STRS, NULL, NULL },
	{ "walk_up", K_BOOL, NULL, NULL },
	{ "file_names", K_STRS, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field skills_fields[] = {
	{ "additional_paths", K_STRS, NULL, NULL },
	{ "disabled", K_STRS, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field knowledge_fields[] = {
	{ "instructions", K_OBJ, instructions_fields, NULL },
	{ "skills", K_OBJ, skills_fields, NULL },
	{ NULL, 0, NULL, NULL }
};
static const char *const sandbox_modes[] = { "auto", "require", "off", NULL };
static const struct field sandbox_limits_fields[] = {
	{ "processes", K_NUM, NULL, NULL },	/* whole, from 0: mc-tool checks */
	{ "memory_mb", K_NUM, NULL, NULL },
	{ "file_mb", K_NUM, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field sandbox_fields[] = {
	{ "mode", K_ENUM, NULL, sandbox_modes },
	{ "writable", K_STRS, NULL, NULL },
	{ "network", K_BOOL, NULL, NULL },
	{ "limits", K_OBJ, sandbox_limits_fields, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field env_fields[] = {
	{ "exclude", K_STRS, NULL, NULL },
	{ "set", K_STRMAP, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field tools_fields[] = {
	{ "disabled", K_STRS, NULL, NULL },
	{ "add_dirs", K_ABS_PATHS, NULL, NULL },
	{ "env", K_OBJ, env_fields, NULL },
	{ "sandbox", K_OBJ, sandbox_fields, NULL },
	{ "defer_after", K_UINT, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const char *const hook_policies[] = { "ignore", "warn", "block", "fail", NULL };
static const struct field hook_fields[] = {
	{ "match", K_ERE, NULL, NULL },
	{ "command", K_STR, NULL, NULL },
	{ "timeout_s", K_UINT, NULL, NULL },
	{ "on_failure", K_ENUM, NULL, hook_policies },	/* block: pre_tool only (the driver) */
	{ NULL, 0, NULL, NULL }
};
static const struct field hooks_fields[] = {
	{ "pre_tool", K_LIST, hook_fields, NULL },
	{ "post_tool", K_LIST, hook_fields, NULL },
	{ "after_assistant", K_LIST, hook_fields, NULL },
	{ "after_reasoning", K_LIST, hook_fields, NULL },
	{ "session_start", K_LIST, hook_fields, NULL },
	{ "stop", K_LIST, hook_fields, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field mcp_server_fields[] = {
	{ "command", K_STR, NULL, NULL },
	{ "args", K_STRS, NULL, NULL },
	{ "env", K_STRMAP, NULL, NULL },
	{ "url", K_STR, NULL, NULL },
	{ "headers", K_STRMAP, NULL, NULL },
	{ "timeout_s", K_UINT, NULL, NULL },
	{ "enabled", K_BOOL, NULL, NULL },
	{ "approve", K_BOOL, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field lsp_server_fields[] = {
	{ "command", K_STR, NULL, NULL },
	{ "args", K_STRS, NULL, NULL },
	{ "extensions", K_STRS, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field lsp_also[] = {	/* beside the servers, by language */
	{ "wait_ms", K_UINT, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field cache_fields[] = {
	{ "enabled", K_BOOL, NULL, NULL },
	{ "max_bytes", K_UINT, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field checkpoints_fields[] = {
	{ "enabled", K_BOOL, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field subagents_fields[] = {
	{ "max_parallel", K_UINT, NULL, NULL },
	{ "max_total", K_UINT, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field section_fields[] = {
	{ "action", K_ENUM, NULL, actions },
	{ "content", K_STR, NULL, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field override_fields[] = {
	{ "match", K_STR, NULL, NULL },
	{ "sections", K_MAP, section_fields, NULL },
	{ NULL, 0, NULL, NULL }
};
static const struct field prompt_fields[] = {
	{ "model_overrides", K_LIST, override_fields, NULL },
	{ NULL, 0, NULL, NULL }
};
static const char *const modes[] = { "default", "accept-edits", "plan", "yes", NULL };
static const struct field permissions_fields[] = {
	{ "allow", K_RULES, NULL, NULL },
	{ "ask", K_RULES, NULL, NULL },
	{ "deny", K_RULES, NULL, NULL },
	{ "mode", K_ENUM, NULL, modes },
	{ NULL, 0, NULL, NULL }
};
static const struct field top_fields[] = {
	{ "provider", K_STR, NULL, NULL },
	{ "model", K_STR, NULL, NULL },
	{ "providers", K_MAP, provider_fields, NULL },
	{ "knowledge", K_OBJ, knowledge_fields, NULL },
	{ "tools", K_OBJ, tools_fields, NULL },
	{ "prompt", K_OBJ, prompt_fields, NULL },
	{ "models", K_MAP, model_fields, NULL },
	{ "hooks", K_OBJ, hooks_fields, NULL },
	{ "mcp_servers", K_MAP, mcp_server_fields, NULL },
	{ "cache", K_OBJ, cache_fields, NULL },
	{ "subagents", K_OBJ, subagents_fields, NULL },
	{ "permissions", K_OBJ, permissions_fields, NULL },
	{ "checkpoints", K_OBJ, checkpoints_fields, NULL },
	{ "lsp", K_MAP, lsp_server_fields, NULL, lsp_also },
	{ NULL, 0, NULL, NULL }
};

struct check {
	struct mc_settings *s;
	char *err;
	size_t errsz;
};

static int
fail(struct check *c, const char *at, const char *what)
{
	snprintf(c->err, c->errsz, "%s: %s: %s", c->s->path, at, what);
	return -1;
}

static int check_fields(struct check *, const cJSON *, const struct field *, const char *);

/* at + ".key" or at + "[i]" into sub; an absurdly deep path is cut short. */
static void
subpath(char *sub, size_t n, const char *at, const char *key, int i)
{
	int w;

	if (key != NULL)
		w = snprintf(sub, n, "%s%s%s", at, *at ? "." : "", key);
	else
		w = snprintf(sub, n, "%s[%d]", at, i);
	if (w < 0 || (size_t)w >= n)
		sub[n - 1] = '\0';
}

/* As the driver compiles it. */
static int
check_rule(struct check *c, const char *text, const char *at)
{
	struct mc_rule r;
	char msg[512];
	int rc = mc_rule_parse(text, &r, msg, sizeof msg);

	mc_rule_free(&r);
	return rc == 0 ? 0 : fail(c, at, msg);
}

static int
check_value(struct check *c, const cJSON *v, const struct field *f, const char *at)
{
	char sub[512], msg[256];
	const cJSON *e;
	int i = 0, k;
	regex_t re;

	switch (f->kind) {
	case K_STR:
		return cJSON_IsString(v) ? 0 : fail(c, at, "expected a string");
	case K_ERE:
		if (!cJSON_IsString(v))
			return fail(c, at, "expected a string");
		/* As the driver compiles it (hooks' match, on a tool's name). */
		if ((k = regcomp(&re, v->valuestring, REG_EXTENDED | REG_NOSUB)) != 0) {
			snprintf(msg, sizeof msg, "not a regular expression (POSIX ERE): ");
			regerror(k, &re, msg + strlen(msg), sizeof msg - strlen(msg));
			return fail(c, at, msg);
		}
		regfree(&re);
		return 0;
	case K_STR_NULL:
		return cJSON_IsString(v) || cJSON_IsNull(v) ? 0 :
		    fail(c, at, "expected a string or null");
	case K_BOOL:
		return cJSON_IsBool(v) ? 0 : fail(c, at, "expected true or false");
	case K_NUM:
		return cJSON_IsNumber(v) ? 0 : fail(c, at, "expected a number");
	case K_UINT:
		return cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble <= 1e15 &&
		    v->valuedouble == (double)(long long)v->valuedouble ? 0 :
		    fail(c, at, "expected a whole number from 1");
	case K_ENUM:
		if (cJSON_IsString(v))
			for (k = 0; f->choices[k]; k++)
				if (strcmp(v->valuestring, f->choices[k]) == 0)
					return 0;
		snprintf(msg, sizeof msg, "expected one of");
		for (k = 0; f->choices[k]; k++)
			snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s \"%s\"",
			    k ? (f->choices[k + 1] ? "," : " or") : "", f->choices[k]);
		return fail(c, at, msg);
	case K_STRS:
	case K_ABS_PATHS:
	case K_RULES:
		if (!cJSON_IsArray(v))
			return fail(c, at, f->kind == K_ABS_PATHS ? "expected an array of absolute "
			    "paths" : f->kind == K_RULES ? "expected an array of rules" :
			    "expected an array of strings");
		cJSON_ArrayForEach(e, v) {
			subpath(sub, sizeof sub, at, NULL, i++);
			if (!cJSON_IsString(e))
				return fail(c, sub, f->kind == K_RULES ? "expected a rule (a string)" :
				    "expected a string");
			if (f->kind == K_ABS_PATHS && e->valuestring[0] != '/')
				return fail(c, sub, "path must be absolute");
			if (f->kind == K_RULES && check_rule(c, e->valuestring, sub) == -1)
				return -1;
		}
		return 0;
	case K_STRMAP:
		if (!cJSON_IsObject(v))
			return fail(c, at, "expected an object of strings");
		cJSON_ArrayForEach(e, v) {
			subpath(sub, sizeof sub, at, e->string, 0);
			if (!cJSON_IsString(e))
				return fail(c, sub, "expected a string");
		}
		return 0;
	case K_OBJ:
		if (!cJSON_IsObject(v))
			return fail(c, at, "expected an object");
		return check_fields(c, v, f->sub, at);
	case K_MAP:
		if (!cJSON_IsObject(v))
			return fail(c, at, "expected an object");
		cJSON_ArrayForEach(e, v) {
			const struct field *a;

			subpath(sub, sizeof sub, at, e->string, 0);
			for (a = f->also; a != NULL && a->key != NULL && strcmp(a->key, e->string); a++)
				;
			if (a != NULL && a->key != NULL) {
				if (check_value(c, e, a, sub) == -1)
					return -1;
				continue;
			}
			if (!cJSON_IsObject(e))
				return fail(c, sub, "expected an object");
			if (check_fields(c, e, f->sub, sub) == -1)
				return -1;
		}
		return 0;
	case K_LIST:
		if (!cJSON_IsArray(v))
			return fail(c, at, "expected an array");
		cJSON_ArrayForEach(e, v) {
			subpath(sub, sizeof sub, at, NULL, i++);
			if (!cJSON_IsObject(e))
				return fail(c, sub, "expected an object");
			if (check_fields(c, e, f->sub, sub) == -1)
				return -1;
		}
		return 0;
	}
	return 0;
}

static int
check_fields(struct check *c, const cJSON *obj, const struct field *fields, const char *at)
{
	const struct field *f;
	const cJSON *e;
	char sub[512];

	cJSON_ArrayForEach(e, obj) {
		if (*at)
			subpath(sub, sizeof sub, at, e->string, 0);
		else
			snprintf(sub, sizeof sub, "%s", e->string);
		for (f = fields; f->key; f++)
			if (strcmp(f->key, e->string) == 0)
				break;
		if (f->key == NULL) {
			char w[600];

			snprintf(w, sizeof w, "unknown setting %s", sub);
			mc_json_push(c->s->warnings, mc_json_new_str(w));
			continue;
		}
		if (check_value(c, e, f, sub) == -1)
			return -1;
	}
	return 0;
}

/* MC_HOME, else $HOME/.magi-code, made absolute. NULL with err filled when
 * neither is set. The caller frees. */
static char *
home_resolve(char *err, size_t errsz)
{
	const char *h = getenv("MC_HOME");
	char cwd[PATH_MAX], *p;

	if (h != NULL && *h != '\0') {
		if (h[0] == '/')
			p = mc_strdup(h);
		else if (getcwd(cwd, sizeof cwd) == NULL) {
			snprintf(err, errsz, "MC_HOME: cannot resolve %s: %s", h, strerror(errno));
			return NULL;
		} else
			p = mc_path_join(cwd, h);
	} else if ((h = getenv("HOME")) != NULL && h[0] == '/') {
		p = mc_path_join(h, ".magi-code");
	} else {
		snprintf(err, errsz, "neither MC_HOME nor an absolute HOME is set");
		return NULL;
	}
	return p;
}

static int load(struct mc_settings *, char *, size_t);

int
mc_settings_load(struct mc_settings *s, char *err, size_t errsz)
{
	if (load(s, err, errsz) == -1) {
		mc_settings_free(s);
		return -1;
	}
	return 0;
}

static int
load(struct mc_settings *s, char *err, size_t errsz)
{
	struct mc_read r;
	int rc;

	*s = (struct mc_settings){0};
	if ((s->home = home_resolve(err, errsz)) == NULL)
		return -1;
	s->path = mc_path_join(s->home, "settings.json");
	mc_file_read(s->path, MC_SETTINGS_MAX, MC_LINK_FOLLOW, NULL, 1, &r);
	if (r.status == MC_READ_MISSING) {
		s->root = mc_json_new_obj();
		s->warnings = mc_json_new_arr();
		return 0;
	}
	if (r.status != MC_READ_OK) {
		snprintf(err, errsz, "%s: %s", s->path, mc_read_strerror(&r, MC_SETTINGS_MAX));
		return -1;
	}
	rc = mc_settings_parse(s, r.data, r.len, err, errsz);
	free(r.data);
	return rc;
}

int
mc_settings_parse(struct mc_settings *s, const char *text, size_t len, char *err, size_t errsz)
{
	struct check c = { s, err, errsz };
	char why[256];

	size_t i;

	if (s->warnings == NULL)
		s->warnings = mc_json_new_arr();
	for (i = 0; i < len && strchr(" \t\r\n", text[i]) != NULL && text[i] != '\0'; i++)
		;
	if (i == len) {
		snprintf(err, errsz, "%s: the file is empty%s: settings are one JSON object, {} "
		    "for none (see mc-formats(5))", s->path, len > 0 ? " (only white space)" : "");
		return -1;
	}
	s->root = mc_json_parse(text, len, why, sizeof why);
	if (s->root == NULL) {
		snprintf(err, errsz, "%s: %s", s->path, why);
		return -1;
	}
	if (!cJSON_IsObject(s->root)) {
		snprintf(err, errsz, "%s: expected a JSON object", s->path);
		return -1;
	}
	if (check_fields(&c, s->root, top_fields, "") == -1)
		return -1;
	return mc_models_check(s, err, errsz);
}

void
mc_settings_warn(const struct mc_settings *s)
{
	const cJSON *w;

	cJSON_ArrayForEach(w, s->warnings)
		mc_warn("%s: %s", s->path, w->valuestring);
}

void
mc_settings_free(struct mc_settings *s)
{
	free(s->home);
	free(s->path);
	cJSON_Delete(s->root);
	cJSON_Delete(s->warnings);
	*s = (struct mc_settings){0};
}

cJSON *
mc_settings_get(const struct mc_settings *s, const char *dotted)
{
	char key[128];
	const char *p = dotted, *dot;
	cJSON *v = s->root;

	while (v != NULL && *p) {
		dot = strchr(p, '.');
		if (dot == NULL)
			dot = p + strlen(p);
		if ((size_t)(dot - p) >= sizeof key)
			return NULL;
		memcpy(key, p, (size_t)(dot - p));
		key[dot - p] = '\0';
		v = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, key) : NULL;
		p = *dot ? dot + 1 : dot;
	}
	return v;
}

int
mc_settings_listed(const struct mc_settings *s, const char *dotted, const char *name)
{
	const cJSON *e, *a = mc_settings_get(s, dotted);

	cJSON_ArrayForEach(e, a)
		if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0)
			return 1;
	return 0;
}
