/* toolenv.c: provider keys taken out of the environment; the tool environment. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include <bsd/string.h>

#include "diag.h"
#include "json.h"
#include "provider.h"
#include "toolenv.h"

extern char **environ;

const char *const mc_toolenv_exclude_default[] = {
	"*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*", "*_SOCK", NULL
};

/* A growing NULL-terminated array of malloc'ed strings. */
struct vec {
	char **v;
	size_t n, cap;
};

static void
push(struct vec *a, char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		if ((a->v = reallocarray(a->v, a->cap, sizeof *a->v)) == NULL)
			mc_oom();
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

/* The array, empty rather than NULL when nothing was pushed. */
static char **
done(struct vec *a)
{
	if (a->v == NULL && (a->v = calloc(1, sizeof *a->v)) == NULL)
		mc_oom();
	return a->v;
}

/* Length of the name of "NAME=value". */
static size_t
namelen(const char *s)
{
	const char *eq = strchr(s, '=');

	return eq ? (size_t)(eq - s) : strlen(s);
}

static int
named(const char *var, const char *name)
{
	size_t n = strlen(name);

	return strncmp(var, name, n) == 0 && var[n] == '=';
}

/* Take NAME out of the environment: "NAME=value", or NULL when unset. */
static char *
take(const char *name)
{
	char **e, *kv;

	for (e = environ; e != NULL && *e != NULL; e++)
		if (named(*e, name))
			break;
	if (e == NULL || *e == NULL)
		return NULL;
	kv = mc_strdup(*e);
	/* The initial environment is what /proc/PID/environ shows. */
	explicit_bzero(*e + strlen(name) + 1, strlen(*e + strlen(name) + 1));
	unsetenv(name);
	return kv;
}

char **
mc_keys_take(const struct mc_settings *s)
{
	const char **names = mc_provider_key_vars(s);
	struct vec out = {0};
	char *kv;
	size_t i;

	for (i = 0; names[i] != NULL; i++)
		if ((kv = take(names[i])) != NULL)
			push(&out, kv);
	free(names);
	return done(&out);
}

char **
mc_keys_keep(const struct mc_settings *s)
{
	/* Not dumpable: /proc/PID/environ and mem are the owner's no more
	 * (root's still, hence the wiping). Reset by execve for children. */
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	return mc_keys_take(s);
}

const char *
mc_keys_get(char ***keys, const char *name)
{
	struct vec a = { .v = *keys };
	char *kv;

	for (a.n = 0; a.v != NULL && a.v[a.n] != NULL; a.n++)
		if (named(a.v[a.n], name))
			return a.v[a.n] + strlen(name) + 1;
	if ((kv = take(name)) == NULL)
		return NULL;
	a.cap = a.n + 1;	/* as allocated, at least */
	push(&a, kv);
	*keys = a.v;
	return kv + strlen(name) + 1;
}

char **
mc_env_merge(char *const *base, char *const *add)
{
	struct vec out = {0};
	char *const *e;
	size_t i, k;

	for (e = base ? base : environ; e != NULL && *e != NULL; e++)
		push(&out, mc_strdup(*e));
	done(&out);
	for (i = 0; add != NULL && add[i] != NULL; i++) {
		for (k = 0; k < out.n; k++)
			if (namelen(out.v[k]) == namelen(add[i]) &&
			    strncmp(out.v[k], add[i], namelen(add[i])) == 0)
				break;
		if (k < out.n) {
			free(out.v[k]);
			out.v[k] = mc_strdup(add[i]);
		} else
			push(&out, mc_strdup(add[i]));
	}
	return out.v;
}

static int
excluded(const char *var, const char **keys, const cJSON *globs)
{
	char name[512];
	const cJSON *g;
	size_t i;

	strlcpy(name, var, namelen(var) + 1 < sizeof name ? namelen(var) + 1 : sizeof name);
	for (i = 0; keys[i] != NULL; i++)
		if (strcmp(name, keys[i]) == 0)
			return 1;
	if (globs == NULL) {
		for (i = 0; mc_toolenv_exclude_default[i] != NULL; i++)
			if (fnmatch(mc_toolenv_exclude_default[i], name, FNM_CASEFOLD) == 0)
				return 1;
		return 0;
	}
	cJSON_ArrayForEach(g, globs)
		if (cJSON_IsString(g) && fnmatch(g->valuestring, name, FNM_CASEFOLD) == 0)
			return 1;
	return 0;
}

/* "NAME=value" for each string member of obj, as an add list. */
static char **
pairs(const cJSON *obj)
{
	struct vec out = {0};
	const cJSON *e;
	char *s;

	cJSON_ArrayForEach(e, obj) {
		if (!cJSON_IsString(e) || e->string == NULL)
			continue;
		if (asprintf(&s, "%s=%s", e->string, e->valuestring) == -1)
			mc_oom();
		push(&out, s);
	}
	return done(&out);
}

char **
mc_toolenv(const struct mc_settings *s, const cJSON *extra)
{
	const char **keys = mc_provider_key_vars(s);
	const cJSON *globs = mc_settings_get(s, "tools.env.exclude");
	struct vec kept = {0};
	char **e, **set, **more, **a, **b;

	for (e = environ; e != NULL && *e != NULL; e++)
		if (!excluded(*e, keys, globs))
			push(&kept, mc_strdup(*e));
	free(keys);
	done(&kept);
	set = pairs(mc_settings_get(s, "tools.env.set"));
	more = pairs(extra);
	a = mc_env_merge(kept.v, set);
	b = mc_env_merge(a, more);
	mc_env_free(kept.v);
	mc_env_free(set);
	mc_env_free(more);
	mc_env_free(a);
	return b;
}

void
mc_env_free(char **envp)
{
	size_t i;

	for (i = 0; envp != NULL && envp[i] != NULL; i++) {
		explicit_bzero(envp[i], strlen(envp[i]));
		free(envp[i]);
	}
	free(envp);
}
