/* cache.c: mc-send's answer cache: a whole answer kept as its events, and replayed through the output of a live one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "mc-send.h"

int
cache_setup(struct sender *sd, enum caching opt)
{
	const char *v = getenv("MC_CACHE");
	const cJSON *max;

	/* Options, then the environment, then the settings. */
	sd->caching = opt;
	if (opt == CACHE_OFF && v != NULL && v[0] != '\0') {
		if (strcmp(v, "1") != 0 && strcmp(v, "0") != 0) {
			mc_err("MC_CACHE: %s is not 0 or 1", v);
			return -1;
		}
		sd->caching = v[0] == '1' ? CACHE_ON : CACHE_OFF;
	} else if (opt == CACHE_OFF && sd->have_settings &&
	    cJSON_IsTrue(mc_settings_get(&sd->settings, "cache.enabled")))
		sd->caching = CACHE_ON;
	if (sd->caching == CACHE_OFF || !sd->have_settings)
		return 0;
	max = mc_settings_get(&sd->settings, "cache.max_bytes");
	mc_cache_init(&sd->cache, sd->settings.home, cJSON_IsNumber(max) ?
	    (unsigned long long)max->valuedouble : MC_CACHE_MAX_DEFAULT);
	return 0;
}

/* Whether env's answer can be cached; why not, said once. */
static int
usable(struct sender *sd, const struct envelope *env)
{
	const char *why = NULL;

	if (sd->caching == CACHE_OFF)
		return 0;
	if (sd->cache.dir == NULL)
		why = "neither MC_HOME nor HOME is set: answers are not cached";
	else if (env->cache_key == NULL)
		why = "envelope: no cache_key: the answer is not cached";
	else if (!mc_cache_key_valid(env->cache_key))
		why = "envelope: cache_key: not 64 lowercase hex digits: the answer is not cached";
	if (why == NULL)
		return 1;
	if (!sd->cache_said)
		mc_warn("%s", why);
	sd->cache_said = 1;
	return 0;
}

/* An answer worth keeping, or replaying, ends for one of these reasons. */
static int
whole(const char *finish)
{
	return strcmp(finish, "stop") == 0 || strcmp(finish, "tool_calls") == 0;
}

/* The events of an entry, each line one, ending with the done event of
 * a whole answer; NULL with "line N: why" in err. */
static cJSON *
entry_events(char *s, size_t len, char *err, size_t errsz)
{
	cJSON *events = mc_json_new_arr(), *j = NULL;
	struct mc_event ev = { .type = MC_EVENT_TEXT };
	char why[512], *nl;
	size_t line = 0;
	int done = 0;

	while (len > 0) {
		line++;
		if ((nl = memchr(s, '\n', len)) == NULL) {
			snprintf(why, sizeof why, "cut short");
			goto bad;
		}
		if (done) {
			snprintf(why, sizeof why, "an event after done");
			goto bad;
		}
		if ((j = mc_json_parse(s, (size_t)(nl - s), why, sizeof why)) == NULL ||
		    event_read(j, &ev, why, sizeof why) == -1)
			goto bad;
		done = ev.type == MC_EVENT_DONE;
		mc_json_push(events, j);
		len -= (size_t)(nl + 1 - s);
		s = nl + 1;
	}
	if (done && whole(ev.finish_reason))
		return events;
	snprintf(err, errsz, "%s", done ? "not a whole answer" : "no done event");
	cJSON_Delete(events);
	return NULL;
bad:
	snprintf(err, errsz, "line %zu: %s", line, why);
	cJSON_Delete(j);
	cJSON_Delete(events);
	return NULL;
}

int
cache_find(struct sender *sd, const struct envelope *env, cJSON **events)
{
	struct mc_buf b = {0};
	char err[1024];
	int r;

	*events = NULL;
	if (!usable(sd, env))
		return -1;
	if (sd->caching == CACHE_REFRESH)
		return 0;
	if ((r = mc_cache_get(&sd->cache, env->cache_key, &b, err, sizeof err)) == -1)
		mc_warn("cache: %s; asking %s", err, env->provider);
	if (r == 1 && (*events = entry_events(b.data, b.len, err, sizeof err)) == NULL) {
		mc_warn("cache: %s/%s: %s; asking %s again", sd->cache.dir, env->cache_key, err,
		    env->provider);
		/* Of no use: gone, so that it is said once even when the new
		 * answer is not kept. */
		if (mc_cache_drop(&sd->cache, env->cache_key, err, sizeof err) == -1)
			mc_warn("cache: %s", err);
	}
	mc_buf_free(&b);
	return *events != NULL;
}

int
cache_replay(struct out *o, const cJSON *events)
{
	struct mc_event ev;
	const cJSON *j;
	char err[512], *data;
	size_t n;
	int r;

	o->replay = 1;
	cJSON_ArrayForEach(j, events) {
		(void)event_read(j, &ev, err, sizeof err);	/* checked by cache_find */
		/* A reasoning block's data is text in the event, an object here. */
		data = ev.type == MC_EVENT_REASONING && mc_json_obj(j, "data") ?
		    mc_json_compact(mc_json_obj(j, "data"), &n) : NULL;
		ev.data = data;
		r = on_event(&ev, o);
		free(data);
		if (r != 0 || o->sd->broken)
			break;
	}
	if (got_sigint)
		return MC_EXIT_INTR;
	if (!o->sd->broken)
		out_check(o->sd);
	return o->sd->broken ? MC_EXIT_FAIL : answer_end(o);
}

void
cache_keep(struct sender *sd, const struct envelope *env, struct out *o, int status)
{
	char err[1200];
	int r;

	if (status != MC_EXIT_OK || !o->done || o->failed || sd->broken || got_sigint ||
	    !whole(o->finish))
		return;
	r = mc_cache_put(&sd->cache, env->cache_key, o->record.data, o->record.len, err,
	    sizeof err);
	if (r == -1)
		mc_warn("cache: %s; the answer is not kept", err);
	else if (r == 1)
		mc_warn("cache: the answer's %zu bytes are over cache.max_bytes (%llu); "
		    "it is not kept", o->record.len, sd->cache.max);
}
