/* session.c: the session: created on first use or resumed, appended to, its guides remembered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bsd/stdlib.h>

#include "context.h"
#include "diag.h"
#include "items.h"
#include "json.h"
#include "mc.h"
#include "provider.h"

/* Where a provider or model came from. */
enum from { FROM_OPTION, FROM_ENV, FROM_SESSION, FROM_SETTINGS };

/* The value of option > environment > the session > settings, and where
 * it came from. */
static const char *
pick(const char *option, const char *env, const cJSON *header, const char *key,
    const struct mc_settings *s, enum from *from)
{
	const char *v;

	*from = FROM_OPTION;
	if (option)
		return option;
	*from = FROM_ENV;
	if ((v = getenv(env)) != NULL && *v)
		return v;
	*from = FROM_SESSION;
	if (header && (v = mc_json_str(header, key)) != NULL)
		return v;
	*from = FROM_SETTINGS;
	return mc_json_str(s->root, key);
}

static void
set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = mc_strdup(v);
}

/* Remember what the session file names, from its header or a model line. */
static void
recorded_set(struct driver *d, const cJSON *from)
{
	static const char *const keys[] = { "provider", "model", NULL };
	int i;

	cJSON_Delete(d->s.recorded);
	d->s.recorded = mc_json_new_obj();
	for (i = 0; keys[i]; i++)
		mc_json_add_str(d->s.recorded, keys[i], mc_json_str(from, keys[i]));
}

static int
same(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/*
 * When the provider or the model in use is not the one the session file
 * names last (a resumed session given -p or -m, or /model), a line
 * {"type":"model","provider","model"} says so, so that `mc -c` goes on
 * with them. mc-request skips it: it is bookkeeping, not conversation.
 */
void
session_record(struct driver *d)
{
	cJSON *line;

	if (!d->s.open || d->c.dry ||
	    (same(d->s.provider, mc_json_str(d->s.recorded, "provider")) &&
	    same(d->s.model, mc_json_str(d->s.recorded, "model"))))
		return;
	line = mc_json_new_obj();
	mc_json_add_str(line, "type", "model");
	mc_json_add_str(line, "provider", d->s.provider);
	mc_json_add_str(line, "model", d->s.model);
	if (session_add(d, cJSON_Duplicate(line, 1)) == 0)
		recorded_set(d, line);
	cJSON_Delete(line);
}

/*
 * Provider and model: options, environment, the session (its last model
 * line, else its header), settings. What the option or the session gives
 * is told to the stages (-p, -m); the environment and the settings they
 * read themselves, and naming those as -p would make their messages
 * blame the wrong place. Then the provider and model the stages will
 * use, found as mc-request finds them, so that the session records what
 * was used (not null for a default or MC_BASE_URL's openai-compatible,
 * which a later `mc -c` would not find again). A provider the session
 * names that will not do is said here, naming the session file: 0, or -1
 * after saying why.
 */
static int resolve(struct driver *d, const cJSON *h, int say);

int
session_resolve(struct driver *d)
{
	return resolve(d, d->s.open ? d->s.recorded : NULL, 1);
}

/* The same while a session is read, saying nothing: from what its lines
 * so far name. */
int
session_resolve_quiet(struct driver *d)
{
	return resolve(d, d->s.recorded, 0);
}

static int
resolve(struct driver *d, const cJSON *h, int say)
{
	struct mc_provider_opts o = {0};
	struct mc_provider p = {0};
	char err[1024], from[600];
	enum from pf, mf;
	int r = 0;

	set_str(&d->s.provider, pick(d->c.provider, "MC_PROVIDER", h, "provider", &d->c.set, &pf));
	set_str(&d->s.model, pick(d->c.model, "MC_MODEL", h, "model", &d->c.set, &mf));
	d->s.tell_provider = pf == FROM_OPTION || pf == FROM_SESSION;
	d->s.tell_model = mf == FROM_OPTION || mf == FROM_SESSION;
	if (d->s.tell_provider)
		o.provider = d->s.provider;
	if (d->s.tell_model)
		o.model = d->s.model;
	if (pf == FROM_SESSION) {
		snprintf(from, sizeof from, "%s: provider", d->s.file.path);
		o.provider_from = from;
	}
	if (mc_provider_resolve(&d->c.set, &o, &p, err, sizeof err) == 0) {
		set_str(&d->s.provider, p.name);
		set_str(&d->s.model, p.model);
	} else if (pf == FROM_SESSION) {
		if (say)
			mc_err("%s", err);
		r = -1;
	}	/* else mc-request says why, when it builds the request */
	mc_provider_free(&p);
	return r;
}

/* The session the next message goes to, created on first use; a dry run
 * keeps it in memory. */
int
session_begin(struct driver *d)
{
	char err[512];
	cJSON *more = NULL;
	int r = 0;

	if (d->s.open) {
		session_record(d);
		return 0;
	}
	/* A subagent's session names its parent's and its own profile. */
	if (d->c.depth > 0) {
		more = mc_json_new_obj();
		if (d->c.parent)
			mc_json_add_str(more, "parent", d->c.parent);
		mc_json_add_str(more, "agent", d->c.subagent[d->c.depth - 1]);
	}
	more = title_header(d, more);	/* title.c */
	if (d->c.dry || d->c.no_session)
		mc_session_memory(&d->s.file);
	else if ((r = mc_session_create(&d->s.file, d->c.set.home, d->c.cwd, d->s.provider,
	    d->s.model, more, err, sizeof err)) == -1)
		mc_err("%s", err);
	cJSON_Delete(more);
	if (r == -1)
		return -1;
	d->s.open = 1;
	recorded_set(d, d->s.file.header);
	return 0;
}

int
session_add(struct driver *d, cJSON *item)
{
	char err[512];
	int r = mc_session_append(&d->s.file, item, err, sizeof err);

	if (r == -1)
		mc_err("%s", err);
	cJSON_Delete(item);
	return r;
}

/*
 * Guides are remembered by their path as the session writes it in the
 * <Context File=PATH> tag (mc_context_path: < and > as &lt; and &gt;,
 * control characters as ?), which is all a resumed session has of them,
 * and looked up so written. Written twice, a path is as written once.
 */
static char *
tag_path(const char *path, size_t n)
{
	struct mc_buf b = {0};
	char *raw = mc_strndup(path, n);

	mc_context_path(&b, raw);
	free(raw);
	return mc_buf_steal(&b);
}

int
guide_known(const struct driver *d, const char *path)
{
	char *p = tag_path(path, strlen(path));
	size_t i;

	for (i = 0; i < d->s.nguides && strcmp(d->s.guides[i], p) != 0; i++)
		;
	free(p);
	return i < d->s.nguides;
}

void
guide_remember(struct driver *d, const char *path, size_t n)
{
	char **p;

	if ((p = reallocarray(d->s.guides, d->s.nguides + 1, sizeof *p)) == NULL)
		mc_oom();
	p[d->s.nguides] = tag_path(path, n);
	d->s.guides = p;
	d->s.nguides++;
}

static const char guide_tag[] = "<Context File=";

/* The guides a header names (a compacted session's: its summary stands
 * for them). */
static void
header_guides(struct driver *d, const cJSON *header)
{
	const cJSON *g;

	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(header, "guides"))
		if (cJSON_IsString(g) && !guide_known(d, g->valuestring))
			guide_remember(d, g->valuestring, strlen(g->valuestring));
}

/* The guide an item is, if it is one: a user message that is a
 * <Context File=PATH> block. */
static void
item_guide(struct driver *d, const cJSON *item)
{
	const char *type = mc_json_str(item, "type"), *role = mc_json_str(item, "role");
	const char *content = mc_json_str(item, "content"), *end;

	if (type && role && content && strcmp(type, "message") == 0 &&
	    strcmp(role, "user") == 0 && strncmp(content, guide_tag, sizeof guide_tag - 1) == 0 &&
	    (end = strchr(content, '>')) != NULL)
		guide_remember(d, content + sizeof guide_tag - 1,
		    (size_t)(end - content - (sizeof guide_tag - 1)));
}

static void
guides_free(struct driver *d)
{
	size_t i;

	for (i = 0; i < d->s.nguides; i++)
		free(d->s.guides[i]);
	free(d->s.guides);
	d->s.guides = NULL;
	d->s.nguides = 0;
}

void
session_guides_again(struct driver *d)
{
	const char *line, *nl, *data = d->s.file.lines.data, *end;
	char perr[64];
	cJSON *item;

	guides_free(d);
	header_guides(d, d->s.file.header);
	end = data + d->s.file.lines.len;
	for (line = data; line != NULL && line < end; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			break;
		if (memmem(line, (size_t)(nl - line), guide_tag, sizeof guide_tag - 1) == NULL ||
		    (item = mc_json_parse(line, (size_t)(nl - line), perr, sizeof perr)) == NULL)
			continue;
		item_guide(d, item);
		cJSON_Delete(item);
	}
}

/* What a resumed session already holds, noted line by line as the file
 * is read: its guides, so none is injected twice (its user messages that
 * are a <Context File=PATH> block, and those a compacted session's header
 * names: the summary stands for them), the provider and model it names
 * last, and the tokens of its usage lines. */
static void
recall(const cJSON *item, const char *line, size_t len, void *arg)
{
	const char *type;
	struct driver *d = arg;
	struct usage u;

	type = mc_json_str(item, "type");
	title_recall(d, item);	/* title.c */
	toolsearch_recall(d, item);	/* toolsearch.c: the tools it had loaded */
	if (type && strcmp(type, "session") == 0) {
		recorded_set(d, item);
		header_guides(d, item);
		/* request.c: the session's mc-request builds while the file
		 * is read, each line given it as it comes. */
		if (session_resolve_quiet(d) == 0)
			build_preload(d, item, NULL, 0);
		return;
	}
	build_preload(d, item, line, len);
	if (type && strcmp(type, "model") == 0)
		recorded_set(d, item);
	if (type && strcmp(type, "usage") == 0) {
		/* A count missing (an older line) is 0, never NaN made a number;
		 * an answer from the cache cost nothing. */
		u = usage_of(item);
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(item, "cached")))
			usage_add(&d->s.used, &u);
	} else
		item_guide(d, item);
}

/* Resume -c or --session ID (-r's too: main.c found it; read only, for
 * a dry run), in a fork of it with --fork; returns 0, or -1 after saying
 * why. */
int
session_resume(struct driver *d)
{
	char err[512], *id = NULL;
	int r;

	if (d->c.cont) {
		r = mc_session_latest(d->c.set.home, d->c.cwd, &id, err, sizeof err);
		if (r == -1) {
			mc_err("%s", err);
			return -1;
		}
		if (r == 1) {
			mc_err("no session to continue in %s", d->c.cwd);
			return -1;
		}
	} else
		id = mc_strdup(d->c.session);
	/* --fork reads the old file as it is and goes on in a copy. */
	r = mc_session_load(&d->s.file, d->c.set.home, id, !d->c.dry && !d->c.fork, recall, d,
	    err, sizeof err);
	free(id);
	if (r == -1) {
		mc_err("%s", err);
		return -1;
	}
	d->s.open = 1;
	if (d->s.file.dropped && !d->c.dry)
		mc_warn("%s: removed a torn last line of %zu bytes", d->s.file.path,
		    d->s.file.dropped);
	if (d->s.file.repaired && !d->c.dry)
		mc_warn("%s: %zu interrupted tool call(s) marked as such", d->s.file.path,
		    d->s.file.repaired);
	return d->c.fork && !d->c.dry ? session_fork(d) : 0;
}

/* Leave the session: the next message starts a new one. Guides and
 * approvals belong to the session they were given in. */
void
session_forget(struct driver *d)
{
	mc_session_close(&d->s.file);
	d->s.gen++;
	d->s.open = 0;
	guides_free(d);
	cJSON_Delete(d->s.always);
	d->s.always = NULL;
	cJSON_Delete(d->s.never);
	d->s.never = NULL;
	perms_forget(d);	/* "always for PREFIX" too */
	memset(&d->s.used, 0, sizeof d->s.used);
	cJSON_Delete(d->s.recorded);
	d->s.recorded = NULL;
	memset(&d->s.cmp, 0, sizeof d->s.cmp);	/* compact.c's state */
	title_forget(d);
}

/* Go on in the session to (compact.c: the compacted one), which names
 * the provider and model in use. The old file is closed as it is;
 * guides, approvals and the session's totals stay: the conversation goes
 * on. */
void
session_switch(struct driver *d, struct mc_session *to)
{
	mc_session_close(&d->s.file);
	d->s.file = *to;
	d->s.gen++;
	memset(&d->s.cmp, 0, sizeof d->s.cmp);
	recorded_set(d, d->s.file.header);
}

/*
 * `mc -c` takes the session of this directory written last: the new
 * file must be newer than the old one, even within the file system's
 * clock tick.
 */
static void
newer_than(const struct mc_session *to, const char *old_path)
{
	struct stat os, ns;
	struct timespec t[2];

	if (old_path == NULL || to->fd == -1 || stat(old_path, &os) == -1 ||
	    fstat(to->fd, &ns) == -1)
		return;
	if (ns.st_mtim.tv_sec > os.st_mtim.tv_sec || (ns.st_mtim.tv_sec == os.st_mtim.tv_sec &&
	    ns.st_mtim.tv_nsec > os.st_mtim.tv_nsec))
		return;
	t[0] = ns.st_atim;
	t[1] = os.st_mtim;
	if (++t[1].tv_nsec == 1000000000) {
		t[1].tv_sec++;
		t[1].tv_nsec = 0;
	}
	futimens(to->fd, t);
}

int
session_branch(struct driver *d, const char *key, const cJSON *more, const char *items,
    size_t len)
{
	struct mc_session to;
	char err[512];
	const cJSON *e;
	cJSON *m = mc_session_more(d->s.file.header, key, d->s.file.id);
	int r;

	cJSON_ArrayForEach(e, more) {
		cJSON_DeleteItemFromObjectCaseSensitive(m, e->string);
		mc_json_add(m, e->string, cJSON_Duplicate(e, 1));
	}
	m = title_header(d, m);	/* title.c: the title goes on */
	m = toolsearch_header(d, m);	/* toolsearch.c: so do the tools loaded */
	r = mc_session_create_items(&to, d->s.file.id == NULL || d->c.dry ? NULL : d->c.set.home,
	    d->c.cwd, d->s.provider, d->s.model, m, items ? items : "", len, err, sizeof err);
	cJSON_Delete(m);
	if (r == -1) {
		mc_err("%s; the session goes on as it was", err);
		return -1;
	}
	newer_than(&to, d->s.file.path);
	/* checkpoint.c: a turn's record closed in the old file's log; a
	 * change after this takes a checkpoint in the new one */
	checkpoint_after(d);
	session_switch(d, &to);
	return 0;
}

int
session_fork(struct driver *d)
{
	char *old;
	int r;

	if (!d->s.open || d->s.file.id == NULL) {
		mc_err("nothing to fork: no session yet (it begins with the first message)");
		return -1;
	}
	old = mc_strdup(d->s.file.id);
	if ((r = session_branch(d, "forked_from", NULL, d->s.file.lines.data,
	    d->s.file.lines.len)) == 0 && !d->c.json)
		mc_note("session %s goes on as %s, forked from it (%s is left as it was)", old,
		    d->s.file.id, old);
	free(old);
	return r;
}

/* An answer's usage: a bookkeeping line of the session (mc-request skips
 * it) and the session's totals. */
void
session_usage(struct driver *d, const struct usage *u, int cached)
{
	cJSON *l = mc_json_new_obj();

	mc_json_add_str(l, "type", "usage");
	usage_put(l, u);
	mc_json_add_str(l, "provider", d->s.provider);
	mc_json_add_str(l, "model", d->s.model);
	if (cached)
		mc_json_add(l, "cached", cJSON_CreateTrue());
	session_add(d, l);
	if (!cached)
		usage_add(&d->s.used, u);
}

/* A user message <Context File=FILE>CONTENT</Context> into the session:
 * a guide, or what a session_start hook said (FILE hook:N). */
int
context_add(struct driver *d, const char *file, const char *content)
{
	struct mc_buf b = {0};
	int r;

	mc_context_block(&b, file, content);
	b.data[--b.len] = '\0';	/* the message ends at the closing tag */
	r = session_add(d, mc_item_message("user", b.data));
	mc_buf_free(&b);
	return r;
}
