/* output.c: mc-send's output of one answer: text, events or items, the error line, the spinner; events kept and read back for the cache. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "items.h"
#include "json.h"
#include "mc-send.h"
#include "window.h"

/* A key shorter than this is a placeholder ("x", "none" for a local
 * server), and redacting it would garble every word holding it. */
#define KEY_SECRET_MIN 8

void
out_init(struct out *o, struct sender *sd, const char *provider, const char *key)
{
	memset(o, 0, sizeof *o);
	o->sd = sd;
	o->provider = provider;
	o->key = key != NULL && strlen(key) >= KEY_SECRET_MIN ? key : NULL;
	o->want_items = sd->mode == ITEMS || sd->items_out != NULL;
	o->calls = mc_json_new_arr();
	o->reasoning = mc_json_new_arr();
}

void
out_free(struct out *o)
{
	mc_stream_free(o->stream);
	o->stream = NULL;
	cJSON_Delete(o->calls);
	o->calls = NULL;
	cJSON_Delete(o->reasoning);
	o->reasoning = NULL;
	mc_buf_free(&o->record);
	mc_buf_free(&o->line.b);
	mc_buf_free(&o->text);
	mc_buf_free(&o->refusal);
}

/* The spinner is on the terminal: what a SIGTERM clears (main.c). */
volatile sig_atomic_t spin_shown;

void
spin_clear(struct out *o)
{
	if (o->spin_on) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		o->spin_on = 0;
		spin_shown = 0;
	}
}

void
spin_tick(void *arg)
{
	static const char frames[] = "|/-\\";
	struct out *o = arg;

	if (!o->sd->tty || o->wrote || o->done || o->failed)
		return;
	if (o->spin_on && mc_ms_since(&o->spin_last) < 100)
		return;
	clock_gettime(CLOCK_MONOTONIC, &o->spin_last);
	fprintf(stderr, "\r%c waiting for %s", frames[o->spin_frame++ % 4], o->provider);
	fflush(stderr);
	o->spin_on = 1;
	spin_shown = 1;
}

/*
 * msg with the key, should a provider echo it back, replaced; malloc'ed.
 * A message cut short upstream may end in the first part of the key.
 */
static char *
redact(const char *msg, const char *key)
{
	struct mc_buf b = {0};
	size_t kl = key ? strlen(key) : 0, ml, l;
	const char *p;

	while (kl > 0 && (p = strstr(msg, key)) != NULL) {
		mc_buf_add(&b, msg, p - msg);
		mc_buf_adds(&b, "[redacted]");
		msg = p + kl;
	}
	ml = strlen(msg);
	for (l = kl > ml + 1 ? ml : kl - (kl > 0); l >= 4; l--)
		if (strncmp(msg + ml - l, key, l) == 0) {
			ml -= l;
			break;
		}
	mc_buf_add(&b, msg, ml);
	if (ml < strlen(msg))
		mc_buf_adds(&b, "[redacted]");
	mc_buf_grow(&b, 0);
	return mc_buf_steal(&b);
}

void
set_error(struct out *o, const char *msg, const char *code, int status, int local)
{
	char *m;

	if (o->failed)
		return;
	o->failed = 1;
	o->status = status;
	o->local = local;
	/* One line of valid UTF-8, whatever the provider sent. */
	m = redact(msg, o->key);
	mc_sanitize(o->msg, sizeof o->msg, m);
	free(m);
	m = redact(code ? code : "", o->key);
	mc_sanitize(o->code, sizeof o->code, m);
	free(m);
}

static int
out_fail(struct sender *sd)
{
	sd->broken = errno ? errno : EIO;
	return -1;
}

int
out_check(struct sender *sd)
{
	errno = 0;
	if (fflush(stdout) == EOF || ferror(stdout))
		return out_fail(sd);
	return 0;
}

/* The reasoning item of the event. */
static cJSON *
reasoning_item(const struct mc_event *ev)
{
	cJSON *d = ev->data ? cJSON_Parse(ev->data) : NULL, *it;

	it = mc_item_reasoning(ev->text, ev->api, d);
	cJSON_Delete(d);
	return it;
}

/* The event as --events writes it, and as the cache keeps it. */
static cJSON *
event_json(const struct mc_event *ev)
{
	cJSON *j = mc_json_new_obj();

	switch (ev->type) {
	case MC_EVENT_TEXT:
	case MC_EVENT_REFUSAL:
		mc_json_add_str(j, "type", ev->type == MC_EVENT_TEXT ? "text" : "refusal");
		mc_json_add_str(j, "delta", ev->text);
		break;
	case MC_EVENT_REASONING_DELTA:
		mc_json_add_str(j, "type", "reasoning");
		mc_json_add_str(j, "delta", ev->text);
		break;
	case MC_EVENT_TOOL_CALL:
		mc_json_add_str(j, "type", "tool_call");
		mc_json_add_str(j, "call_id", ev->call_id);
		mc_json_add_str(j, "name", ev->name);
		mc_json_add_str(j, "arguments", ev->arguments);
		break;
	case MC_EVENT_USAGE:
		mc_json_add_str(j, "type", "usage");
		mc_json_add_num(j, "input_tokens", (double)ev->input_tokens);
		mc_json_add_num(j, "output_tokens", (double)ev->output_tokens);
		mc_json_add_num(j, "cached_tokens", (double)ev->cached_tokens);
		if (ev->cache_write_tokens >= 0)
			mc_json_add_num(j, "cache_write_tokens", (double)ev->cache_write_tokens);
		break;
	case MC_EVENT_REASONING:
		cJSON_Delete(j);
		j = reasoning_item(ev);
		cJSON_ReplaceItemInObjectCaseSensitive(j, "type", mc_json_new_str("reasoning_item"));
		break;
	case MC_EVENT_DONE:
		mc_json_add_str(j, "type", "done");
		mc_json_add_str(j, "finish_reason", ev->finish_reason);
		break;
	case MC_EVENT_ERROR:	/* written by put_error, never kept */
		break;
	}
	return j;
}

static int
bad_event(char *err, size_t errsz, const char *what)
{
	snprintf(err, errsz, "%s", what);
	return -1;
}

/* A whole number of tokens in j's member key. */
static int
tokens(const cJSON *j, const char *key, long long *n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);

	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e15 ||
	    v->valuedouble != (double)(long long)v->valuedouble)
		return -1;
	*n = (long long)v->valuedouble;
	return 0;
}

int
event_read(const cJSON *j, struct mc_event *ev, char *err, size_t errsz)
{
	const char *type = mc_json_str(j, "type");

	*ev = (struct mc_event){0};
	if (type == NULL)
		return bad_event(err, errsz, "not an event");
	if (strcmp(type, "text") == 0 || strcmp(type, "refusal") == 0 ||
	    strcmp(type, "reasoning") == 0) {
		ev->type = type[0] == 't' ? MC_EVENT_TEXT : type[2] == 'f' ? MC_EVENT_REFUSAL :
		    MC_EVENT_REASONING_DELTA;
		if ((ev->text = mc_json_str(j, "delta")) == NULL || ev->text[0] == '\0')
			return bad_event(err, errsz, "delta: expected a non-empty string");
		ev->len = strlen(ev->text);
	} else if (strcmp(type, "tool_call") == 0) {
		ev->type = MC_EVENT_TOOL_CALL;
		if ((ev->call_id = mc_json_str(j, "call_id")) == NULL ||
		    (ev->name = mc_json_str(j, "name")) == NULL ||
		    (ev->arguments = mc_json_str(j, "arguments")) == NULL)
			return bad_event(err, errsz, "tool_call: call_id, name and arguments "
			    "must be strings");
	} else if (strcmp(type, "usage") == 0) {
		ev->type = MC_EVENT_USAGE;
		ev->cache_write_tokens = -1;
		if (tokens(j, "input_tokens", &ev->input_tokens) == -1 ||
		    tokens(j, "output_tokens", &ev->output_tokens) == -1 ||
		    tokens(j, "cached_tokens", &ev->cached_tokens) == -1 ||
		    (cJSON_HasObjectItem(j, "cache_write_tokens") &&
		    tokens(j, "cache_write_tokens", &ev->cache_write_tokens) == -1))
			return bad_event(err, errsz, "usage: token counts must be whole numbers");
	} else if (strcmp(type, "reasoning_item") == 0) {
		ev->type = MC_EVENT_REASONING;
		ev->api = mc_json_str(j, "api");
		if ((ev->text = mc_json_str(j, "text")) == NULL ||
		    (cJSON_HasObjectItem(j, "data") && !mc_json_obj(j, "data")))
			return bad_event(err, errsz, "reasoning_item: text must be a string, "
			    "data an object");
		ev->len = strlen(ev->text);
	} else if (strcmp(type, "done") == 0) {
		ev->type = MC_EVENT_DONE;
		if ((ev->finish_reason = mc_json_str(j, "finish_reason")) == NULL)
			return bad_event(err, errsz, "done: finish_reason must be a string");
	} else
		return bad_event(err, errsz, "not an event of a whole answer");
	return 0;
}

/*
 * The event's line in o->line, byte for byte as mc_json_write writes
 * event_json(ev). A piece of text, the most frequent event by far, is
 * written straight from its string, with no object built, printed and
 * freed for each delta.
 */
static void
event_line(struct out *o, const struct mc_event *ev)
{
	static const char text[] = "{\"type\":\"text\",\"delta\":",
	    refusal[] = "{\"type\":\"refusal\",\"delta\":";
	size_t n;
	cJSON *j;
	char *s;

	o->line.b.len = 0;
	if (ev->type == MC_EVENT_TEXT || ev->type == MC_EVENT_REFUSAL) {
		if (ev->type == MC_EVENT_TEXT)
			mc_jw_raw(&o->line, text, sizeof text - 1);
		else
			mc_jw_raw(&o->line, refusal, sizeof refusal - 1);
		mc_jw_str(&o->line, ev->text);
		mc_jw_raw(&o->line, "}\n", 2);
		return;
	}
	j = event_json(ev);
	/* A kept answer costs nothing: its usage and done say so. */
	if (o->replay && (ev->type == MC_EVENT_USAGE || ev->type == MC_EVENT_DONE))
		mc_json_add(j, "cached", cJSON_CreateTrue());
	s = mc_json_compact(j, &n);
	cJSON_Delete(j);
	mc_jw_raw(&o->line, s, n);
	mc_jw_raw(&o->line, "\n", 1);
	free(s);
}

/*
 * The event out: on stdout in --events, and into the record when the
 * answer is being kept; the same bytes in both. Written, not flushed:
 * stdout is flushed once per piece of the body (exchange.c).
 */
static int
emit(struct out *o, const struct mc_event *ev)
{
	if (!o->recording && o->sd->mode != EVENTS)
		return 0;
	event_line(o, ev);
	if (o->recording)
		mc_buf_add(&o->record, o->line.b.data, o->line.b.len);
	if (o->sd->mode != EVENTS)
		return 0;
	o->wrote = 1;
	errno = 0;
	if (fwrite(o->line.b.data, 1, o->line.b.len, stdout) != o->line.b.len)
		return out_fail(o->sd);
	return 0;
}

/* A piece of text or refusal: kept for the items, shown in text mode, an
 * event in --events. A refusal is shown as text is: the user reads it. */
static int
on_piece(struct out *o, const struct mc_event *ev, struct mc_buf *keep)
{
	spin_clear(o);
	if (o->want_items)
		mc_buf_add(keep, ev->text, ev->len);
	if (o->sd->mode == TEXT) {
		o->wrote = 1;
		o->last_nl = ev->text[ev->len - 1] == '\n';
		errno = 0;
		if (fwrite(ev->text, 1, ev->len, stdout) != ev->len)
			return out_fail(o->sd);
	}
	return emit(o, ev);
}

int
on_event(const struct mc_event *ev, void *arg)
{
	struct out *o = arg;

	if (got_sigint)
		return -1;
	switch (ev->type) {
	case MC_EVENT_TEXT:
		return on_piece(o, ev, &o->text);
	case MC_EVENT_REFUSAL:
		return on_piece(o, ev, &o->refusal);
	case MC_EVENT_TOOL_CALL:
		spin_clear(o);
		if (o->want_items)
			mc_json_push(o->calls, mc_item_call(ev->call_id, ev->name, ev->arguments));
		return emit(o, ev);
	case MC_EVENT_USAGE:
		return emit(o, ev);
	case MC_EVENT_REASONING_DELTA:
		/* Never in the answer's text; kept whole by its block. */
		spin_clear(o);
		return emit(o, ev);
	case MC_EVENT_REASONING:
		spin_clear(o);
		if (o->want_items)
			mc_json_push(o->reasoning, reasoning_item(ev));
		return emit(o, ev);
	case MC_EVENT_DONE:
		spin_clear(o);
		o->done = 1;
		snprintf(o->finish, sizeof o->finish, "%s", ev->finish_reason);
		return emit(o, ev);
	case MC_EVENT_ERROR:
		if (!o->failed)
			o->told = mc_window_told(NULL, 0, ev->message);
		set_error(o, ev->message, ev->code, ev->status, ev->local);
		return 0;
	}
	return 0;
}

void
put_error(struct sender *sd, const char *msg, const char *code, int status, long long told)
{
	cJSON *j;
	int r;

	if (sd->mode != EVENTS || sd->broken)
		return;
	j = mc_json_new_obj();
	mc_json_add_str(j, "type", "error");
	if (status)
		mc_json_add_num(j, "status", status);
	if (code != NULL && code[0])
		mc_json_add_str(j, "code", code);
	mc_json_add_str(j, "message", msg);
	if (told > 0)
		mc_json_add_num(j, "prompt_tokens", (double)told);
	errno = 0;
	r = mc_json_write(stdout, j, 0);
	cJSON_Delete(j);
	if (r == -1 || ferror(stdout))
		out_fail(sd);
	else
		out_check(sd);
}

/* Print the error line (and the error event). */
void
report(struct out *o)
{
	spin_clear(o);
	if (o->sd->mode == TEXT && o->wrote && !o->last_nl && !o->sd->broken) {
		putchar('\n');
		out_check(o->sd);
	}
	put_error(o->sd, o->msg, o->code, o->status, o->told);
	if (strncmp(o->msg, "HTTP ", 5) == 0 || o->local)
		mc_err("%s", o->msg);
	else
		mc_err("error from %s: %s", o->provider, o->msg);
}

cJSON *
answer_message(struct out *o, int whole)
{
	cJSON *it;

	if (o->text.len == 0 && o->refusal.len == 0)
		return NULL;
	it = mc_item_message("assistant", o->text.len ? o->text.data : "");
	if (o->refusal.len > 0)
		mc_json_add_str(it, "refusal", o->refusal.data);
	if (!whole || strcmp(o->finish, "length") == 0)
		mc_json_add_str(it, "status", "incomplete");
	/* Its copy of the text is the one kept. */
	mc_buf_free(&o->text);
	return it;
}

int
write_items(struct out *o, const cJSON *msg, FILE *fp, int whole)
{
	cJSON *it;

	/* The reasoning before the text and calls it led to, as it came. */
	if (whole)
		cJSON_ArrayForEach(it, o->reasoning)
			if (mc_json_write(fp, it, 0) == -1)
				return -1;
	if (msg != NULL && mc_json_write(fp, msg, 0) == -1)
		return -1;
	if (whole)
		cJSON_ArrayForEach(it, o->calls)
			if (mc_json_write(fp, it, 0) == -1)
				return -1;
	return fflush(fp) == EOF || ferror(fp) ? -1 : 0;
}
