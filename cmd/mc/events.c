/* events.c: mc --json: the run as JSON Lines events on stdout, each line written and flushed whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "mc.h"

#define EVENTS_VERSION 1	/* of the event set: mc-formats(5) */

/* The driver, for the diagnostics hook (which takes no argument). */
static struct driver *json_driver;

cJSON *
ev_new(const char *type)
{
	cJSON *ev = mc_json_new_obj();

	mc_json_add_str(ev, "type", type);
	return ev;
}

/* One event, one line, one write: a reader of the pipe never sees half
 * of one, and sees each as it happens. */
static void
emit(cJSON *ev)
{
	size_t n;
	char *s;

	s = mc_json_compact(ev, &n);
	s[n] = '\n';	/* over the NUL: the text is one line */
	fwrite(s, 1, n + 1, stdout);
	fflush(stdout);
	free(s);
	cJSON_Delete(ev);
}

/* The session event comes first, whatever is said before the run knows
 * its session; nothing comes after done (an error then is on stderr
 * alone). */
void
ev_emit(struct driver *d, cJSON *ev)
{
	if (d->ev.done) {
		cJSON_Delete(ev);
		return;
	}
	if (d->front != NULL) {	/* mc acp: the front end's, not stdout's */
		d->front->event(d, ev);
		return;
	}
	ev_session(d);
	emit(ev);
}

static void
on_diag(const char *msg)
{
	cJSON *ev = ev_new("error");

	mc_json_add_str(ev, "message", msg);
	ev_emit(json_driver, ev);
}

/* A stage that failed has said why on stderr, which a reader of the
 * events may not see: an error event says which and where to look. */
void
ev_stage_failed(const char *name, int status)
{
	char msg[160];

	if (json_driver == NULL)
		return;
	snprintf(msg, sizeof msg, "%s failed (exit status %d); its message is on stderr",
	    name, status);
	on_diag(msg);
}

/* From now on the driver's errors are events too (its warnings stay on
 * stderr alone). */
void
ev_json_mode(struct driver *d)
{
	json_driver = d;
	mc_diag_hook = on_diag;
}

/* Token counts as they travel: input_tokens, output_tokens and
 * cached_tokens of an event, a session's usage line or done. */
struct usage
usage_of(const cJSON *o)
{
	return (struct usage){ mc_json_count(o, "input_tokens"),
	    mc_json_count(o, "output_tokens"), mc_json_count(o, "cached_tokens"),
	    mc_json_count(o, "cache_write_tokens") };
}

void
usage_put(cJSON *o, const struct usage *u)
{
	mc_json_add_num(o, "input_tokens", (double)u->input);
	mc_json_add_num(o, "output_tokens", (double)u->output);
	mc_json_add_num(o, "cached_tokens", (double)u->cached);
	/* Only a provider that counts them (Messages) writes to a cache. */
	if (u->written > 0)
		mc_json_add_num(o, "cache_write_tokens", (double)u->written);
}

void
usage_add(struct usage *to, const struct usage *u)
{
	to->input += u->input;
	to->output += u->output;
	to->cached += u->cached;
	to->written += u->written;
}

/* {input_tokens, output_tokens, cached_tokens}: the done event's, a
 * subagent's (subshow.c). */
cJSON *
ev_usage(const struct usage *u)
{
	cJSON *o = mc_json_new_obj();

	usage_put(o, u);
	return o;
}

/* Once, first: what is known of the session, null for what is not (a run
 * that failed before it began). */
void
ev_session(struct driver *d)
{
	cJSON *ev;

	if (d->ev.session)
		return;
	d->ev.session = 1;
	ev = ev_new("session");
	mc_json_add_num(ev, "version", EVENTS_VERSION);
	mc_json_add_str(ev, "id", d->s.file.id);
	mc_json_add_str(ev, "provider", d->s.provider);
	mc_json_add_str(ev, "model", d->s.model);
	mc_json_add_str(ev, "cwd", d->c.cwd);
	if (d->c.fork && mc_json_str(d->s.file.header, "forked_from") != NULL)
		mc_json_add_str(ev, "forked_from", mc_json_str(d->s.file.header, "forked_from"));
	emit(ev);
}

/* Once, last; nothing unless the run is events. */
void
ev_done(struct driver *d, enum outcome o)
{
	static const char *const reasons[] = {
		[OUT_STOP] = "stop", [OUT_MAX_STEPS] = "max_steps", [OUT_LENGTH] = "length",
		[OUT_REFUSAL] = "refusal", [OUT_ERROR] = "error", [OUT_CANCELLED] = "cancelled",
		[OUT_TIMEOUT] = "timeout",
	};
	cJSON *ev;

	if (json_driver != d)
		return;
	ev = ev_new("done");
	mc_json_add_str(ev, "reason", reasons[o]);
	mc_json_add_num(ev, "steps", (double)d->s.steps);
	mc_json_add(ev, "usage", ev_usage(&d->s.run));
	/* Every answer of the run came from mc-send's cache. */
	if (d->s.steps > 0 && d->s.replayed == d->s.steps)
		mc_json_add(ev, "cached", cJSON_CreateTrue());
	ev_emit(d, ev);
	d->ev.done = 1;
}
