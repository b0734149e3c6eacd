/* toolsearch.c: tool search: past tools.defer_after tool definitions the MCP tools wait to be asked for through a tool_search tool; one filter of offered.c, and that tool's calls. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "mc.h"

#define DEFER_AFTER 64		/* tools.defer_after when not set */
#define FOUND_MAX 10		/* tools one search loads, when it does not say */
#define FOUND_CAP 50		/* and at most */
#define NAME_WORD 10		/* a query word that is a word of a tool's name */
#define NAME_PART 3		/* one found inside its name */
#define DESC_WORD 1		/* a word of its description */

static const char tool_def[] =
    "{\"name\":\"tool_search\",\"description\":\"Find and load tools that are not loaded yet "
    "(this session has more tools than are sent at once: the MCP servers' tools wait here). "
    "Give a few words of what you need; the best matches by name and description are listed "
    "with their descriptions and can be called from your next step on.\",\"parameters\":"
    "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\",\"description\":"
    "\"words of the tool's name or of what it does\"},\"limit\":{\"type\":\"integer\","
    "\"description\":\"how many tools to load at most (default 10, at most 50)\"}},"
    "\"required\":[\"query\"]}}";

static size_t
defer_after(const struct driver *d)
{
	const cJSON *v = mc_settings_get(&d->c.set, "tools.defer_after");

	return cJSON_IsNumber(v) ? (size_t)v->valuedouble : DEFER_AFTER;
}

static int
deferred(const struct driver *d, const char *name)
{
	return mcp_has(d, name) && mc_strset_find(&d->search.loaded, name) == NULL;
}

/* name loaded; saved, the session's next tools_loaded line names it. */
static void
load(struct driver *d, const char *name, int saved)
{
	int added;

	mc_strset_add(&d->search.loaded, name, d->search.loaded.n, &added);
	if (!added || saved)
		return;
	if (d->search.unsaved == NULL)
		d->search.unsaved = mc_json_new_arr();
	mc_json_push(d->search.unsaved, mc_json_new_str(name));
}

/* Past defer_after definitions: the MCP tools not loaded leave all, and
 * tool_search joins it. */
void
toolsearch_filter(struct driver *d, cJSON *all)
{
	cJSON *e, *next, *t;
	char err[128];
	const char *n;

	d->search.on = (size_t)cJSON_GetArraySize(all) > defer_after(d);
	if (!d->search.on)
		return;
	for (e = all->child; e != NULL; e = next) {
		next = e->next;
		if ((n = mc_json_str(e, "name")) != NULL && deferred(d, n))
			cJSON_Delete(cJSON_DetachItemViaPointer(all, e));
	}
	if ((t = mc_json_parse(tool_def, sizeof tool_def - 1, err, sizeof err)) == NULL)
		mc_oom();	/* never: the definition is ours */
	mc_json_push(all, t);
}

int
toolsearch_has(const struct driver *d, const char *name)
{
	return d->search.on && strcmp(name, "tool_search") == 0;
}

/* The query's words, lower case, NUL-separated in one buffer. */
static size_t
words(const char *s, struct mc_buf *out)
{
	size_t n = 0;

	while (*s) {
		while (*s && !isalnum((unsigned char)*s))
			s++;
		if (!*s)
			break;
		while (isalnum((unsigned char)*s))
			mc_buf_addc(out, (char)tolower((unsigned char)*s++));
		mc_buf_addc(out, '\0');
		n++;
	}
	return n;
}

/* Whether w (lower case) is a whole word of s, or (part) inside s. */
static int
has_word(const char *s, const char *w, int part)
{
	size_t k = strlen(w), i;
	const char *p;

	for (p = s; *p; p++) {
		for (i = 0; i < k && p[i] && tolower((unsigned char)p[i]) == w[i]; i++)
			;
		if (i < k)
			continue;
		if (part || ((p == s || !isalnum((unsigned char)p[-1])) &&
		    !isalnum((unsigned char)p[k])))
			return 1;
	}
	return 0;
}

static int
score(const char *name, const char *desc, const struct mc_buf *q, size_t nq)
{
	const char *w = q->data;
	size_t i;
	int s = 0;

	for (i = 0; i < nq; i++, w += strlen(w) + 1)
		s += (has_word(name, w, 0) ? NAME_WORD : has_word(name, w, 1) ? NAME_PART : 0) +
		    (desc != NULL && has_word(desc, w, 0) ? DESC_WORD : 0);
	return s;
}

struct hit {
	const cJSON *tool;
	int score;
	size_t at;		/* its place in the list: ties go in order */
};

static int
by_score(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->score != y->score)
		return y->score - x->score;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* The search's output: the tools found, each loaded. */
static void
search(struct driver *d, const char *query, size_t limit, struct mc_buf *out)
{
	struct mc_buf q = {0};
	struct hit *hits = NULL;
	size_t nq = words(query, &q), n = 0, at = 0, i;
	const char *name, *desc;
	const cJSON *t;
	cJSON *all = tools_get(d);
	int sc;

	if (all != NULL)
		model_tools_filter(d, all, 0);	/* none the model may not call */
	cJSON_ArrayForEach(t, all) {
		at++;
		if ((name = mc_json_str(t, "name")) == NULL || !deferred(d, name))
			continue;
		desc = mc_json_str(t, "description");
		if (nq == 0 || (sc = score(name, desc, &q, nq)) == 0)
			continue;
		if ((hits = reallocarray(hits, n + 1, sizeof *hits)) == NULL)
			mc_oom();
		hits[n++] = (struct hit){ t, sc, at };
	}
	if (n > 1)
		qsort(hits, n, sizeof *hits, by_score);
	if (n == 0)
		mc_buf_printf(out, "No tool not loaded yet matches \"%s\"; try other words.", query);
	else
		mc_buf_printf(out, "Loaded %zu tool%s, callable from your next step:", n < limit ?
		    n : limit, (n < limit ? n : limit) == 1 ? "" : "s");
	for (i = 0; i < n && i < limit; i++) {
		name = mc_json_str(hits[i].tool, "name");
		desc = mc_json_str(hits[i].tool, "description");
		mc_buf_printf(out, "\n- %s: %s", name, desc ? desc : "(no description)");
		load(d, name, 0);
	}
	if (n > limit)
		mc_buf_printf(out, "\n(%zu more match; search again with more words)", n - limit);
	if (i > 0)
		d->search.gen++;	/* offered.c: the next step's list has them */
	free(hits);
	mc_buf_free(&q);
	cJSON_Delete(all);
}

/* A tool_search call: its output (malloc'ed; tools.c makes it the
 * call's, which joins the session like any tool's). */
char *
toolsearch_call(struct driver *d, const cJSON *call)
{
	const char *a = mc_json_str(call, "arguments") ? mc_json_str(call, "arguments") : "";
	struct mc_buf out = {0};
	const cJSON *l;
	const char *query;
	size_t limit = FOUND_MAX;
	char err[128];
	cJSON *args;

	args = mc_json_parse(a, strlen(a), err, sizeof err);
	if ((query = mc_json_str(args, "query")) == NULL)
		mc_buf_adds(&out, "error: tool_search takes {\"query\": \"words\"}.");
	else {
		l = cJSON_GetObjectItemCaseSensitive(args, "limit");
		if (cJSON_IsNumber(l) && l->valuedouble >= 1)
			limit = l->valuedouble > FOUND_CAP ? FOUND_CAP : (size_t)l->valuedouble;
		search(d, query, limit, &out);
	}
	cJSON_Delete(args);
	return mc_buf_steal(&out);
}

/* A call to a deferred tool the model knew of (from a resumed session's
 * history, say) runs, and loads it like a search. */
void
toolsearch_used(struct driver *d, const char *name)
{
	if (d->search.on && deferred(d, name)) {
		load(d, name, 0);
		d->search.gen++;
	}
}

/* The session's bookkeeping line of the tools loaded since the last
 * one, {"type":"tools_loaded","names":[...]} (calls.c adds it after the
 * call's output), or NULL when none was. */
cJSON *
toolsearch_line(struct driver *d)
{
	cJSON *l;

	if (d->search.unsaved == NULL)
		return NULL;
	l = mc_json_new_obj();
	mc_json_add_str(l, "type", "tools_loaded");
	mc_json_add(l, "names", d->search.unsaved);
	d->search.unsaved = NULL;
	return l;
}

/* A line of a session being resumed (session.c): the tools its
 * tools_loaded lines, or a compacted session's header, name are loaded
 * again, from its first request on. */
void
toolsearch_recall(struct driver *d, const cJSON *item)
{
	const char *type = mc_json_str(item, "type");
	const cJSON *names, *e;

	if (type == NULL)
		return;
	if (strcmp(type, "tools_loaded") == 0)
		names = mc_json_arr(item, "names");
	else if (strcmp(type, "session") == 0)
		names = mc_json_arr(item, "tools_loaded");
	else
		return;
	cJSON_ArrayForEach(e, names)
		if (cJSON_IsString(e))
			load(d, e->valuestring, 1);
	d->search.gen++;
}

/* A compacted or forked session's header (session_branch):
 * "tools_loaded", the tools loaded so far in the order they were, when
 * there are any. */
cJSON *
toolsearch_header(const struct driver *d, cJSON *more)
{
	const struct mc_strset *set = &d->search.loaded;
	const char **v;
	cJSON *a;
	size_t i;

	if (set->n == 0)
		return more;
	if ((v = calloc(set->n, sizeof *v)) == NULL)
		mc_oom();
	for (i = 0; i < set->cap; i++)
		if (set->v[i].key != NULL && set->v[i].val < set->n)
			v[set->v[i].val] = set->v[i].key;
	a = mc_json_add(more, "tools_loaded", mc_json_new_arr());
	for (i = 0; i < set->n; i++)
		if (v[i] != NULL)
			mc_json_push(a, mc_json_new_str(v[i]));
	free(v);
	return more;
}

/* The tools loaded are forgotten: a new session (/new) starts with none;
 * the session file keeps them for a resumed one. */
void
toolsearch_forget(struct driver *d)
{
	mc_strset_free(&d->search.loaded);
	cJSON_Delete(d->search.unsaved);
	d->search.unsaved = NULL;
	d->search.gen++;
}
