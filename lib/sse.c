/* sse.c: SSE framing and the chat / responses answer dialects, decoded into normalized events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "diag.h"
#include "buf.h"
#include "chunk.h"
#include "clip.h"
#include "json.h"
#include "sse.h"
#include "utf8.h"

int mc_stream_nofast;

/* ---- framing ---- */

void
mc_sse_init(struct mc_sse *x)
{
	memset(x, 0, sizeof *x);
	x->first = 1;
	x->max = MC_SSE_MAX;
}

void
mc_sse_free(struct mc_sse *x)
{
	mc_buf_free(&x->line);
	mc_buf_free(&x->event);
	mc_buf_free(&x->data);
}

static int
add(struct mc_buf *b, const char *p, size_t n, size_t max)
{
	if (b->len + n > max)
		return -2;
	mc_buf_add(b, p, n);
	return 0;
}

static int
dispatch(struct mc_sse *x, mc_sse_fn fn, void *arg, int *rc)
{
	int r = 0;

	if (x->has_data)
		r = fn(x->event.len ? x->event.data : "", x->data.len ? x->data.data : "",
		    x->data.len, arg);
	x->has_data = 0;
	x->data.len = 0;
	x->event.len = 0;
	if (r != 0) {
		*rc = r;
		return -1;
	}
	return 0;
}

/* One complete line l, n (without its terminator): in x->line, or in the
 * caller's chunk when it lay wholly inside one. */
static int
line(struct mc_sse *x, const char *l, size_t n, mc_sse_fn fn, void *arg, int *rc)
{
	const char *colon, *v;
	size_t fl, vl;
	int r = 0;

	if (x->first) {
		x->first = 0;
		if (n >= 3 && memcmp(l, "\xef\xbb\xbf", 3) == 0) {
			l += 3;
			n -= 3;
		}
	}
	if (n == 0) {
		r = dispatch(x, fn, arg, rc);
		goto out;
	}
	if (l[0] == ':')
		goto out;
	if ((colon = memchr(l, ':', n)) != NULL) {
		fl = colon - l;
		v = colon + 1;
		vl = n - fl - 1;
		if (vl > 0 && *v == ' ') {
			v++;
			vl--;
		}
	} else {
		fl = n;
		v = l + n;
		vl = 0;
	}
	if ((fl == 4 && memcmp(l, "data", 4) == 0) || (fl == 5 && memcmp(l, "error", 5) == 0)) {
		if (fl == 5) {
			x->event.len = 0;
			if ((r = add(&x->event, "error", 5, x->max)) != 0)
				goto out;
		}
		if (x->has_data && (r = add(&x->data, "\n", 1, x->max)) != 0)
			goto out;
		if ((r = add(&x->data, v, vl, x->max)) != 0)
			goto out;
		x->has_data = 1;
	} else if (fl == 5 && memcmp(l, "event", 5) == 0) {
		/* A legacy error: field wins over a later event: line. */
		if (!(x->event.len == 5 && memcmp(x->event.data, "error", 5) == 0)) {
			x->event.len = 0;
			r = add(&x->event, v, vl, x->max);
		}
	}
	/* id:, retry: and unknown fields mean nothing here. */
out:
	x->line.len = 0;
	return r;
}

int
mc_sse_feed(struct mc_sse *x, const char *p, size_t n, mc_sse_fn fn, void *arg, int *rc)
{
	const char *end = p + n, *e, *cr;
	int anycr = memchr(p, '\r', n) != NULL, r;

	while (p < end) {
		if (x->cr) {
			x->cr = 0;
			if (*p == '\n' && x->line.len == 0) {
				/* the LF of a CRLF */
				p++;
				continue;
			}
		}
		e = memchr(p, '\n', end - p);
		if (anycr && (cr = memchr(p, '\r', (e ? e : end) - p)) != NULL)
			e = cr;
		if (e == NULL)
			break;
		if (x->line.len == 0) {
			if ((size_t)(e - p) > x->max)
				return -2;
			x->cr = *e == '\r';
			r = line(x, p, e - p, fn, arg, rc);
		} else {
			if ((r = add(&x->line, p, e - p, x->max)) != 0)
				return r;
			x->cr = *e == '\r';
			r = line(x, x->line.data, x->line.len, fn, arg, rc);
		}
		if (r != 0)
			return r;
		p = e + 1;
	}
	return add(&x->line, p, end - p, x->max);
}

int
mc_sse_finish(struct mc_sse *x, mc_sse_fn fn, void *arg, int *rc)
{
	int r;

	if (x->line.len > 0 && (r = line(x, x->line.data, x->line.len, fn, arg, rc)) != 0)
		return r;
	return dispatch(x, fn, arg, rc);
}

/* ---- provider errors ---- */

static void
copy(char *dst, size_t sz, const char *src)
{
	if (sz > 0)
		snprintf(dst, sz, "%s", src);
}

/* Fill msg/code/status from an error object; returns 0 when a message was found. */
static int
error_fields(const cJSON *v, char *msg, size_t msgsz, char *code, size_t codesz, int *status)
{
	static const char *keys[] = { "message", "detail", "content", "error_description", "msg" };
	const cJSON *e, *c, *d;
	size_t i;
	char *s;

	if (cJSON_IsString(v)) {
		copy(msg, msgsz, v->valuestring);
		return v->valuestring[0] ? 0 : -1;
	}
	if (cJSON_IsArray(v))
		return error_fields(cJSON_GetArrayItem(v, 0), msg, msgsz, code, codesz, status);
	if (!cJSON_IsObject(v))
		return -1;
	e = cJSON_GetObjectItemCaseSensitive(v, "error");
	if ((cJSON_IsObject(e) || (cJSON_IsString(e) && e->valuestring[0])) &&
	    error_fields(e, msg, msgsz, code, codesz, status) == 0) {
		/* A wrapper's own code (a number beside the message) still counts. */
		c = cJSON_GetObjectItemCaseSensitive(v, "code");
		if (*status == 0 && cJSON_IsNumber(c) && c->valueint >= 100 && c->valueint <= 599)
			*status = c->valueint;
		return 0;
	}
	c = cJSON_GetObjectItemCaseSensitive(v, "code");
	if (cJSON_IsString(c))
		copy(code, codesz, c->valuestring);
	else if (cJSON_IsNumber(c) && c->valueint >= 100 && c->valueint <= 599)
		*status = c->valueint;
	else if (cJSON_IsNumber(c) && codesz > 0)
		snprintf(code, codesz, "%d", c->valueint);
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		d = cJSON_GetObjectItemCaseSensitive(v, keys[i]);
		if (cJSON_IsString(d) && d->valuestring[0]) {
			copy(msg, msgsz, d->valuestring);
			return 0;
		}
		if (cJSON_IsArray(d) && error_fields(d, msg, msgsz, code, codesz, status) == 0)
			return 0;
	}
	if (code[0] != '\0') {
		copy(msg, msgsz, code);
		return 0;
	}
	if (cJSON_GetArraySize(v) > 0 && (s = cJSON_PrintUnformatted(v)) != NULL) {
		copy(msg, msgsz, s);
		free(s);
		return 0;
	}
	return -1;
}

static int
error_json(const cJSON *v, char *msg, size_t msgsz, char *code, size_t codesz, int *status)
{
	if (msgsz)
		msg[0] = '\0';
	if (codesz)
		code[0] = '\0';
	*status = 0;
	return error_fields(v, msg, msgsz, code, codesz, status);
}

int
mc_error_parse(const char *body, size_t len, char *msg, size_t msgsz,
    char *code, size_t codesz, int *status)
{
	const char *p = body, *end = body + len, *nl, *stop;
	cJSON *doc;
	int r;

	if (msgsz)
		msg[0] = '\0';
	if (codesz)
		code[0] = '\0';
	*status = 0;
	while (p < end && strchr(" \t\r\n", *p) != NULL && *p != '\0')
		p++;
	if (end - p >= 5 && memcmp(p, "data:", 5) == 0)
		p += 5;
	doc = mc_json_parse_doc(p, (size_t)(end - p), &stop);
	if (doc == NULL && p != body) {
		/* SSE: the JSON ends at the line's end. */
		for (nl = p; nl < end && *nl != '\n' && *nl != '\r'; nl++)
			;
		doc = mc_json_parse_doc(p, (size_t)(nl - p), &stop);
	}
	if (doc != NULL) {
		r = error_json(doc, msg, msgsz, code, codesz, status);
		cJSON_Delete(doc);
		if (r == 0)
			return 0;
	}
	/* Plain text: its first non-empty line. */
	p = body;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	for (nl = p; nl < end && *nl != '\n' && *nl != '\r'; nl++)
		;
	if (nl == p || msgsz == 0)
		return -1;
	if ((size_t)(nl - p) >= msgsz)
		nl = p + msgsz - 1;
	memcpy(msg, p, nl - p);
	msg[nl - p] = '\0';
	return 0;
}

/* ---- decoder ---- */

struct call {
	char *key;		/* responses: the item id */
	int index;		/* chat: the fragment index */
	char *call_id, *name;
	struct mc_buf args;
	int emitted;
};

struct mc_stream {
	enum mc_api api;
	mc_event_fn fn;
	void *arg;
	struct mc_sse sse;
	enum { UNKNOWN, SSE, JSON } mode;
	struct mc_buf json;
	int started, ended, failed, stopped;
	int at_eof;		/* an unterminated last event is being read */
	size_t ntext;		/* text events reported */
	size_t nevents;		/* SSE events seen */
	char head[81];		/* the body's first bytes, for a message */
	size_t headlen;
	struct call *calls;
	size_t ncalls, nemitted;
	char *finish;		/* chat: the provider's finish_reason */
	int have_usage;
	long long in, out;
	struct mc_buf delta;	/* the fast path's text */
	struct mc_buf fixed;	/* text repaired to valid UTF-8 */
	struct mc_buf unnul;	/* an event with its \u0000 escapes replaced */
};

struct mc_stream *
mc_stream_new(enum mc_api api, mc_event_fn fn, void *arg)
{
	struct mc_stream *s = calloc(1, sizeof *s);

	if (s == NULL)
		mc_oom();
	s->api = api;
	s->fn = fn;
	s->arg = arg;
	mc_sse_init(&s->sse);
	return s;
}

void
mc_stream_free(struct mc_stream *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->ncalls; i++) {
		free(s->calls[i].key);
		free(s->calls[i].call_id);
		free(s->calls[i].name);
		mc_buf_free(&s->calls[i].args);
	}
	free(s->calls);
	free(s->finish);
	mc_buf_free(&s->json);
	mc_buf_free(&s->delta);
	mc_buf_free(&s->fixed);
	mc_buf_free(&s->unnul);
	mc_sse_free(&s->sse);
	free(s);
}

int
mc_stream_failed(const struct mc_stream *s)
{
	return s->failed;
}

int
mc_stream_started(const struct mc_stream *s)
{
	return s->started;
}

static void
emit(struct mc_stream *s, struct mc_event *ev)
{
	if (s->stopped || s->ended)
		return;
	if (s->fn(ev, s->arg) != 0)
		s->stopped = 1;
}

static void
fail(struct mc_stream *s, const char *msg, const char *code, int status, int local)
{
	struct mc_event ev = { .type = MC_EVENT_ERROR };

	ev.local = local;
	ev.message = msg;
	ev.code = code && code[0] ? code : NULL;
	ev.status = status;
	emit(s, &ev);
	s->failed = 1;
	s->ended = 1;
}

static void
fail_json(struct mc_stream *s, const cJSON *v)
{
	char msg[2048], code[128];
	int status;

	if (error_json(v, msg, sizeof msg, code, sizeof code, &status) == -1)
		snprintf(msg, sizeof msg, "unknown error");
	fail(s, msg, code, status, 0);
}

static void
text(struct mc_stream *s, const char *t)
{
	struct mc_event ev = { .type = MC_EVENT_TEXT };

	if (t == NULL || t[0] == '\0')
		return;
	ev.text = t;
	ev.len = strlen(t);
	/* cJSON does not check UTF-8: what a provider garbles must not reach
	 * the session, where it would make every later request invalid. */
	if (!mc_utf8_valid(t, ev.len)) {
		s->fixed.len = 0;
		mc_clip_repair(&s->fixed, t, ev.len);
		ev.text = s->fixed.data;
		ev.len = s->fixed.len;
	}
	s->ntext++;
	emit(s, &ev);
}

/* A string of a call made valid UTF-8 in place of the original. */
static void
repair(char **p)
{
	struct mc_buf b = {0};

	if (*p == NULL || mc_utf8_valid(*p, strlen(*p)))
		return;
	mc_clip_repair(&b, *p, strlen(*p));
	free(*p);
	*p = mc_buf_steal(&b);
}

static struct call *
call_new(struct mc_stream *s)
{
	struct call *c = reallocarray(s->calls, s->ncalls + 1, sizeof *c);

	if (c == NULL)
		mc_oom();
	s->calls = c;
	c = &s->calls[s->ncalls++];
	memset(c, 0, sizeof *c);
	c->index = -1;
	return c;
}

static struct call *
call_by_key(struct mc_stream *s, const char *key)
{
	struct call *c;
	size_t i;

	for (i = 0; i < s->ncalls; i++)
		if (s->calls[i].key && strcmp(s->calls[i].key, key) == 0)
			return &s->calls[i];
	c = call_new(s);
	c->key = mc_strdup(key);
	return c;
}

static void
set_str(char **dst, const char *v)
{
	if (v == NULL || v[0] == '\0')
		return;
	free(*dst);
	*dst = mc_strdup(v);
}

static void
set_args(struct call *c, const cJSON *a)
{
	char *p;

	if (cJSON_IsString(a)) {
		c->args.len = 0;
		mc_buf_adds(&c->args, a->valuestring);
	} else if (cJSON_IsObject(a)) {
		/* Some servers send the arguments as an object. */
		if ((p = cJSON_PrintUnformatted(a)) == NULL)
			mc_oom();
		c->args.len = 0;
		mc_buf_adds(&c->args, p);
		free(p);
	}
}

static void
call_emit(struct mc_stream *s, struct call *c)
{
	struct mc_event ev = { .type = MC_EVENT_TOOL_CALL };

	if (c->emitted)
		return;
	c->emitted = 1;
	s->nemitted++;
	repair(&c->call_id);
	repair(&c->name);
	if (c->args.len && !mc_utf8_valid(c->args.data, c->args.len)) {
		struct mc_buf b = {0};

		mc_clip_repair(&b, c->args.data, c->args.len);
		mc_buf_free(&c->args);
		c->args = b;
	}
	ev.call_id = c->call_id ? c->call_id : "";
	ev.name = c->name ? c->name : "";
	ev.arguments = c->args.len ? c->args.data : "";
	emit(s, &ev);
}

/* Chat calls come out in index order once the answer says it is finished. */
static void
calls_flush(struct mc_stream *s)
{
	struct call *best;
	size_t i;

	for (;;) {
		best = NULL;
		for (i = 0; i < s->ncalls; i++)
			if (!s->calls[i].emitted && (best == NULL || s->calls[i].index < best->index))
				best = &s->calls[i];
		if (best == NULL)
			return;
		call_emit(s, best);
	}
}

static void
usage_from(struct mc_stream *s, const cJSON *u)
{
	const cJSON *i, *o;

	if (!cJSON_IsObject(u))
		return;
	i = cJSON_GetObjectItemCaseSensitive(u, "input_tokens");
	if (!cJSON_IsNumber(i))
		i = cJSON_GetObjectItemCaseSensitive(u, "prompt_tokens");
	o = cJSON_GetObjectItemCaseSensitive(u, "output_tokens");
	if (!cJSON_IsNumber(o))
		o = cJSON_GetObjectItemCaseSensitive(u, "completion_tokens");
	if (!cJSON_IsNumber(i) && !cJSON_IsNumber(o))
		return;
	s->have_usage = 1;
	s->in = cJSON_IsNumber(i) ? (long long)i->valuedouble : 0;
	s->out = cJSON_IsNumber(o) ? (long long)o->valuedouble : 0;
}

static void
finish(struct mc_stream *s, const char *reason)
{
	struct mc_event ev = { .type = MC_EVENT_USAGE };
	static const char *map[][2] = {
		{ "function_call", "tool_calls" }, { "tool_use", "tool_calls" },
		{ "end_turn", "stop" }, { "max_tokens", "length" },
		{ "max_output_tokens", "length" },
	};
	size_t i;

	if (s->api == MC_API_CHAT)
		calls_flush(s);
	if (s->have_usage) {
		ev.input_tokens = s->in;
		ev.output_tokens = s->out;
		emit(s, &ev);
	}
	if (reason == NULL || reason[0] == '\0' || strcmp(reason, "stop") == 0)
		reason = s->nemitted ? "tool_calls" : "stop";
	for (i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(reason, map[i][0]) == 0)
			reason = map[i][1];
	memset(&ev, 0, sizeof ev);
	ev.type = MC_EVENT_DONE;
	ev.finish_reason = reason;
	emit(s, &ev);
	s->ended = 1;
}

static int
has_error(const cJSON *doc)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "error");

	return cJSON_IsObject(e) || (cJSON_IsString(e) && e->valuestring[0]);
}

static void
chat_tool_fragment(struct mc_stream *s, const cJSON *f)
{
	const cJSON *ix = cJSON_GetObjectItemCaseSensitive(f, "index");
	const cJSON *fn = cJSON_GetObjectItemCaseSensitive(f, "function");
	const char *id = mc_json_str(f, "id"), *name = mc_json_str(fn, "name");
	struct call *c = NULL;
	size_t i;
	int index;

	if (cJSON_IsNumber(ix))
		index = ix->valueint;
	else if (s->ncalls == 0 || (id && id[0] && s->calls[s->ncalls - 1].call_id &&
	    strcmp(id, s->calls[s->ncalls - 1].call_id) != 0))
		index = (int)s->ncalls;	/* no index: a new id starts a new call */
	else
		index = s->calls[s->ncalls - 1].index;
	for (i = 0; i < s->ncalls; i++)
		if (s->calls[i].index == index)
			c = &s->calls[i];
	if (c == NULL) {
		c = call_new(s);
		c->index = index;
	}
	if (id && id[0] && c->call_id == NULL)
		c->call_id = mc_strdup(id);
	if (name && name[0]) {
		if (c->name == NULL)
			c->name = mc_strdup(name);
		else if (strcmp(c->name, name) != 0) {
			/* a name streamed in pieces */
			char *n;

			if (asprintf(&n, "%s%s", c->name, name) == -1)
				mc_oom();
			free(c->name);
			c->name = n;
		}
	}
	fn = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
	if (cJSON_IsString(fn)) {
		mc_buf_adds(&c->args, fn->valuestring);
	} else if (cJSON_IsObject(fn))
		set_args(c, fn);
}

/* Message content as a string, or as an array of text parts. */
static void
content_text(struct mc_stream *s, const cJSON *c)
{
	const cJSON *p;

	if (cJSON_IsString(c)) {
		text(s, c->valuestring);
		return;
	}
	cJSON_ArrayForEach(p, c) {
		const char *t = mc_json_str(p, "type");

		if (t == NULL || strcmp(t, "text") == 0 || strcmp(t, "output_text") == 0 ||
		    strcmp(t, "refusal") == 0) {
			if (mc_json_str(p, "text"))
				text(s, mc_json_str(p, "text"));
			else
				text(s, mc_json_str(p, "refusal"));
		}
	}
}

/* One chat chunk, or (whole) a non-streamed chat completion. */
static void
chat_doc(struct mc_stream *s, const cJSON *doc, int whole)
{
	const cJSON *choices, *ch, *d, *tc, *f, *fr;

	if (has_error(doc)) {
		fail_json(s, doc);
		return;
	}
	choices = mc_json_arr(doc, "choices");
	ch = cJSON_GetArrayItem(choices, 0);
	/* Several choices (n > 1) are not asked for; keep the first. */
	cJSON_ArrayForEach(d, choices) {
		const cJSON *ix = cJSON_GetObjectItemCaseSensitive(d, "index");

		if (cJSON_IsNumber(ix) && ix->valueint == 0) {
			ch = d;
			break;
		}
	}
	if (ch != NULL) {
		d = mc_json_obj(ch, whole ? "message" : "delta");
		if (d == NULL && whole)
			d = mc_json_obj(ch, "delta");
		/* reasoning / reasoning_content are not the answer */
		content_text(s, cJSON_GetObjectItemCaseSensitive(d, "content"));
		if (mc_json_str(d, "refusal"))
			text(s, mc_json_str(d, "refusal"));
		tc = mc_json_arr(d, "tool_calls");
		cJSON_ArrayForEach(f, tc)
			chat_tool_fragment(s, f);
		fr = cJSON_GetObjectItemCaseSensitive(ch, "finish_reason");
		if (cJSON_IsString(fr) && fr->valuestring[0]) {
			set_str(&s->finish, fr->valuestring);
			calls_flush(s);
		}
	}
	usage_from(s, cJSON_GetObjectItemCaseSensitive(doc, "usage"));
	if (whole)
		finish(s, s->finish);
}

/* What a completed responses answer holds that the stream did not show. */
static void
responses_output(struct mc_stream *s, const cJSON *resp)
{
	const cJSON *it;
	int text_seen = s->ntext > 0;
	size_t i;

	cJSON_ArrayForEach(it, mc_json_arr(resp, "output")) {
		const char *type = mc_json_str(it, "type"), *cid;
		struct call *c = NULL;

		if (type == NULL)
			continue;
		if (strcmp(type, "message") == 0 && !text_seen)
			content_text(s, cJSON_GetObjectItemCaseSensitive(it, "content"));
		if (strcmp(type, "function_call") != 0)
			continue;
		cid = mc_json_str(it, "call_id");
		for (i = 0; i < s->ncalls; i++)
			if ((cid && s->calls[i].call_id && strcmp(s->calls[i].call_id, cid) == 0) ||
			    (mc_json_str(it, "id") && s->calls[i].key &&
			    strcmp(s->calls[i].key, mc_json_str(it, "id")) == 0))
				c = &s->calls[i];
		if (c == NULL) {
			c = call_new(s);
			set_str(&c->call_id, cid);
			set_str(&c->name, mc_json_str(it, "name"));
			set_args(c, cJSON_GetObjectItemCaseSensitive(it, "arguments"));
		}
		call_emit(s, c);
	}
	/* Calls announced but never closed still count, in their order. */
	for (i = 0; i < s->ncalls; i++)
		call_emit(s, &s->calls[i]);
}

static void
responses_end(struct mc_stream *s, const cJSON *resp, const char *status)
{
	const char *reason = NULL;
	const cJSON *e;

	e = cJSON_GetObjectItemCaseSensitive(resp, "error");
	if ((status && strcmp(status, "failed") == 0) || cJSON_IsObject(e)) {
		if (cJSON_IsObject(e))
			fail_json(s, e);
		else
			fail(s, "the response failed", NULL, 0, 0);
		return;
	}
	responses_output(s, resp);
	usage_from(s, cJSON_GetObjectItemCaseSensitive(resp, "usage"));
	if (status && strcmp(status, "incomplete") == 0) {
		reason = mc_json_str(mc_json_obj(resp, "incomplete_details"), "reason");
		if (reason == NULL)
			reason = "incomplete";
	}
	finish(s, reason);
}

static void
responses_event(struct mc_stream *s, const char *name, const cJSON *doc)
{
	const char *type = mc_json_str(doc, "type");
	const cJSON *item, *resp, *args;
	struct call *c;
	int done;

	if (type == NULL)
		type = name;
	if (strcmp(type, "response.output_text.delta") == 0 ||
	    strcmp(type, "response.refusal.delta") == 0) {
		text(s, mc_json_str(doc, "delta"));
	} else if (strcmp(type, "response.output_item.added") == 0 ||
	    strcmp(type, "response.output_item.done") == 0) {
		item = mc_json_obj(doc, "item");
		if (!mc_json_str(item, "type") || strcmp(mc_json_str(item, "type"), "function_call") != 0)
			return;
		done = strcmp(type, "response.output_item.done") == 0;
		args = cJSON_GetObjectItemCaseSensitive(item, "arguments");
		c = call_by_key(s, mc_json_str(item, "id") ? mc_json_str(item, "id") :
		    mc_json_str(item, "call_id") ? mc_json_str(item, "call_id") : "");
		set_str(&c->call_id, mc_json_str(item, "call_id"));
		set_str(&c->name, mc_json_str(item, "name"));
		/* The item as added has empty arguments; as done, the whole of them. */
		if (done || (cJSON_IsString(args) && args->valuestring[0]) || cJSON_IsObject(args))
			set_args(c, args);
		if (done)
			call_emit(s, c);
	} else if (strcmp(type, "response.function_call_arguments.delta") == 0) {
		if (mc_json_str(doc, "item_id") == NULL || mc_json_str(doc, "delta") == NULL)
			return;
		c = call_by_key(s, mc_json_str(doc, "item_id"));
		mc_buf_adds(&c->args, mc_json_str(doc, "delta"));
	} else if (strcmp(type, "response.function_call_arguments.done") == 0) {
		if (mc_json_str(doc, "item_id") == NULL)
			return;
		c = call_by_key(s, mc_json_str(doc, "item_id"));
		set_str(&c->name, mc_json_str(doc, "name"));
		set_args(c, cJSON_GetObjectItemCaseSensitive(doc, "arguments"));
	} else if (strcmp(type, "response.completed") == 0 ||
	    strcmp(type, "response.incomplete") == 0 || strcmp(type, "response.failed") == 0) {
		resp = mc_json_obj(doc, "response");
		responses_end(s, resp, type + 9);
	} else if (strcmp(type, "error") == 0) {
		fail_json(s, doc);
	}
}

static int
on_sse(const char *event, const char *data, size_t len, void *arg)
{
	struct mc_stream *s = arg;
	char err[256], msg[512];
	cJSON *doc;

	s->nevents++;
	if (s->ended)
		return 0;
	if (s->api == MC_API_CHAT && len == 6 && memcmp(data, "[DONE]", 6) == 0) {
		finish(s, s->finish);
		return 0;
	}
	/* Most chunks are a plain text delta: no tree for those. */
	if (s->api == MC_API_CHAT && !mc_stream_nofast && strcmp(event, "error") != 0 &&
	    mc_chunk_text(data, len, &s->delta) == 1) {
		text(s, s->delta.data);
		return 0;
	}
	if (mc_json_nul_escape(data, len) != NULL) {
		/* cJSON would end the string there and lose the rest: a NUL
		 * becomes U+FFFD, as in tool outputs (both escapes are 6 bytes). */
		char *p;

		s->unnul.len = 0;
		mc_buf_add(&s->unnul, data, len);
		while ((p = (char *)mc_json_nul_escape(s->unnul.data, s->unnul.len)) != NULL)
			memcpy(p, "\\ufffd", 6);
		data = s->unnul.data;
	}
	if ((doc = mc_json_parse(data, len, err, sizeof err)) == NULL) {
		if (s->at_eof)
			return 0;	/* cut mid-event: reported as a cut below */
		if (strcmp(event, "error") == 0) {
			/* a legacy error: field may hold plain text */
			snprintf(msg, sizeof msg, "%.*s", (int)(len < 500 ? len : 500), data);
			fail(s, msg, NULL, 0, 0);
		} else {
			snprintf(msg, sizeof msg, "bad event in the stream: %s", err);
			fail(s, msg, NULL, 0, 1);
		}
		return 0;
	}
	if (strcmp(event, "error") == 0)
		fail_json(s, doc);
	else if (s->api == MC_API_CHAT)
		chat_doc(s, doc, 0);
	else if (has_error(doc) && mc_json_str(doc, "type") == NULL)
		fail_json(s, doc);
	else
		responses_event(s, event, doc);
	cJSON_Delete(doc);
	return 0;
}

static int
status_of(struct mc_stream *s)
{
	if (s->stopped)
		return -1;
	return s->ended ? 1 : 0;
}

static int
sse_feed(struct mc_stream *s, const char *p, size_t n)
{
	int rc = 0, r;
	char msg[128];

	r = mc_sse_feed(&s->sse, p, n, on_sse, s, &rc);
	if (r == -2 && !s->ended) {
		snprintf(msg, sizeof msg, "an event in the stream is over %u bytes", MC_SSE_MAX);
		fail(s, msg, NULL, 0, 1);
	}
	return status_of(s);
}

int
mc_stream_feed(struct mc_stream *s, const char *p, size_t n)
{
	size_t i;

	if (s->ended || s->stopped)
		return status_of(s);
	if (n > 0)
		s->started = 1;
	if (s->headlen < sizeof s->head - 1) {
		size_t k = sizeof s->head - 1 - s->headlen;

		if (k > n)
			k = n;
		memcpy(s->head + s->headlen, p, k);
		s->headlen += k;
		s->head[s->headlen] = '\0';
	}
	if (s->mode == UNKNOWN) {
		/* White space and a BOM may come before the first real byte. */
		for (i = 0; i < n; i++) {
			unsigned char c = p[i];

			if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0xef || c == 0xbb || c == 0xbf)
				continue;
			s->mode = c == '{' || c == '[' ? JSON : SSE;
			break;
		}
		if (s->mode == UNKNOWN) {
			if (s->json.len + n > MC_SSE_MAX) {
				fail(s, "the answer is only white space", NULL, 0, 1);
				return status_of(s);
			}
			mc_buf_add(&s->json, p, n);
			return 0;
		}
		if (s->json.len > 0) {
			/* replay what was held back */
			struct mc_buf held = s->json;

			memset(&s->json, 0, sizeof s->json);
			if (s->mode == JSON) {
				s->json = held;
			} else {
				sse_feed(s, held.data, held.len);
				mc_buf_free(&held);
				if (s->ended || s->stopped)
					return status_of(s);
			}
		}
	}
	if (s->mode == SSE)
		return sse_feed(s, p, n);
	if (s->json.len + n > MC_SSE_MAX) {
		fail(s, "the answer is over the size limit", NULL, 0, 1);
		return status_of(s);
	}
	mc_buf_add(&s->json, p, n);
	return 0;
}

static void
json_end(struct mc_stream *s)
{
	const char *p = s->json.data;
	size_t n = s->json.len;
	char err[256], msg[400];
	cJSON *doc;

	if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
		p += 3;
		n -= 3;
	}
	if ((doc = mc_json_parse(p, n, err, sizeof err)) == NULL) {
		snprintf(msg, sizeof msg, "bad answer: %s", err);
		fail(s, msg, NULL, 0, 1);
		return;
	}
	if (has_error(doc))
		fail_json(s, doc);
	else if (s->api == MC_API_CHAT)
		chat_doc(s, doc, 1);
	else if (mc_json_obj(doc, "response") && !mc_json_arr(doc, "output"))
		responses_end(s, mc_json_obj(doc, "response"), mc_json_str(mc_json_obj(doc, "response"), "status"));
	else
		responses_end(s, doc, mc_json_str(doc, "status"));
	cJSON_Delete(doc);
}

/* A body that is neither JSON nor SSE (an HTML page from a proxy, say). */
static void
not_an_answer(struct mc_stream *s)
{
	char msg[160];
	size_t i;

	for (i = 0; i < s->headlen && s->head[i] != '\n' && s->head[i] != '\r'; i++)
		;
	snprintf(msg, sizeof msg, "the answer is neither JSON nor an event stream: %.*s",
	    (int)i, s->head);
	fail(s, msg, NULL, 0, 1);
}

int
mc_stream_end(struct mc_stream *s)
{
	int rc = 0;

	if (s->ended || s->stopped)
		return status_of(s);
	if (s->mode == JSON) {
		json_end(s);
		return status_of(s);
	}
	s->at_eof = 1;
	if (s->mode == SSE && mc_sse_finish(&s->sse, on_sse, s, &rc) == -2)
		fail(s, "an event in the stream is too long", NULL, 0, 1);
	if (s->ended || s->stopped)
		return status_of(s);
	if (!s->started || s->mode == UNKNOWN)
		fail(s, "empty answer", NULL, 0, 1);
	else if (s->nevents == 0)
		not_an_answer(s);
	else
		fail(s, s->api == MC_API_CHAT ? "the stream ended before [DONE]" :
		    "the stream ended before response.completed", NULL, 0, 1);
	return status_of(s);
}
