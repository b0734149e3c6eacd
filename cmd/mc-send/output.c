/* output.c: mc-send's output of one answer: text, events or items, the error line, the spinner. */
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
}

void
out_free(struct out *o)
{
	mc_stream_free(o->stream);
	o->stream = NULL;
	cJSON_Delete(o->calls);
	o->calls = NULL;
	mc_buf_free(&o->text);
	mc_buf_free(&o->refusal);
}

void
spin_clear(struct out *o)
{
	if (o->spin_on) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		o->spin_on = 0;
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

/* Written, not flushed: stdout is flushed once per piece of the body. */
static int
put_json(struct out *o, cJSON *ev)
{
	int r;

	errno = 0;
	r = mc_json_write(stdout, ev, 0);
	cJSON_Delete(ev);
	if (o != NULL)
		o->wrote = 1;
	if (r == -1 || ferror(stdout))
		return o != NULL ? out_fail(o->sd) : -1;
	return 0;
}

static cJSON *
call_event(const struct mc_event *ev)
{
	cJSON *it = mc_json_new_obj();

	mc_json_add_str(it, "type", "tool_call");
	mc_json_add_str(it, "call_id", ev->call_id);
	mc_json_add_str(it, "name", ev->name);
	mc_json_add_str(it, "arguments", ev->arguments);
	return it;
}

/* A piece of text or refusal: kept for the items, shown in text mode, an
 * event in --events. A refusal is shown as text is: the user reads it. */
static int
on_piece(struct out *o, const struct mc_event *ev, const char *type, struct mc_buf *keep)
{
	cJSON *j;

	spin_clear(o);
	if (o->want_items)
		mc_buf_add(keep, ev->text, ev->len);
	if (o->sd->mode == TEXT) {
		o->wrote = 1;
		o->last_nl = ev->text[ev->len - 1] == '\n';
		errno = 0;
		if (fwrite(ev->text, 1, ev->len, stdout) != ev->len)
			return out_fail(o->sd);
		return 0;
	}
	if (o->sd->mode != EVENTS)
		return 0;
	j = mc_json_new_obj();
	mc_json_add_str(j, "type", type);
	mc_json_add_str(j, "delta", ev->text);
	return put_json(o, j);
}

int
on_event(const struct mc_event *ev, void *arg)
{
	struct out *o = arg;
	cJSON *j;

	if (got_sigint)
		return -1;
	switch (ev->type) {
	case MC_EVENT_TEXT:
		return on_piece(o, ev, "text", &o->text);
	case MC_EVENT_REFUSAL:
		return on_piece(o, ev, "refusal", &o->refusal);
	case MC_EVENT_TOOL_CALL:
		spin_clear(o);
		if (o->want_items)
			mc_json_push(o->calls, mc_item_call(ev->call_id, ev->name, ev->arguments));
		if (o->sd->mode == EVENTS)
			return put_json(o, call_event(ev));
		return 0;
	case MC_EVENT_USAGE:
		if (o->sd->mode == EVENTS) {
			j = mc_json_new_obj();
			mc_json_add_str(j, "type", "usage");
			mc_json_add_num(j, "input_tokens", (double)ev->input_tokens);
			mc_json_add_num(j, "output_tokens", (double)ev->output_tokens);
			mc_json_add_num(j, "cached_tokens", (double)ev->cached_tokens);
			return put_json(o, j);
		}
		return 0;
	case MC_EVENT_DONE:
		spin_clear(o);
		o->done = 1;
		snprintf(o->finish, sizeof o->finish, "%s", ev->finish_reason);
		if (o->sd->mode == EVENTS) {
			j = mc_json_new_obj();
			mc_json_add_str(j, "type", "done");
			mc_json_add_str(j, "finish_reason", ev->finish_reason);
			return put_json(o, j);
		}
		return 0;
	case MC_EVENT_ERROR:
		set_error(o, ev->message, ev->code, ev->status, ev->local);
		return 0;
	}
	return 0;
}

void
put_error(struct sender *sd, const char *msg, const char *code, int status)
{
	cJSON *j;

	if (sd->mode != EVENTS || sd->broken)
		return;
	j = mc_json_new_obj();
	mc_json_add_str(j, "type", "error");
	if (status)
		mc_json_add_num(j, "status", status);
	if (code != NULL && code[0])
		mc_json_add_str(j, "code", code);
	mc_json_add_str(j, "message", msg);
	errno = 0;
	if (put_json(NULL, j) == -1)
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
	put_error(o->sd, o->msg, o->code, o->status);
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

	if (msg != NULL && mc_json_write(fp, msg, 0) == -1)
		return -1;
	if (whole)
		cJSON_ArrayForEach(it, o->calls)
			if (mc_json_write(fp, it, 0) == -1)
				return -1;
	return fflush(fp) == EOF || ferror(fp) ? -1 : 0;
}
