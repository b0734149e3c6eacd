/* sse-messages.c: the Messages dialect (Anthropic): stream events (or one whole message) into the decoder's events. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "clip.h"
#include "diag.h"
#include "json.h"
#include "sse-int.h"
#include "utf8.h"

/* One content block of the answer, from its start to its stop. */
struct block {
	int index;
	enum { B_TEXT, B_THINKING, B_REDACTED, B_TOOL, B_OTHER } kind;
	struct mc_buf text;	/* thinking: its text */
	char *sig;		/* thinking: its signature */
	cJSON *whole;		/* redacted_thinking: the block as it came; tool_use: its input */
	size_t call;		/* tool_use: its call (a number: calls move) */
	int stopped;
};

struct mc_messages {
	struct block *b;
	size_t n, cap;
	/* usage: message_start's, each member updated by message_delta */
	long long in, out, read, write;
	int have_usage;
	char *stop;		/* stop_reason */
};

static struct mc_messages *
state(struct mc_stream *s)
{
	if (s->msg == NULL && (s->msg = calloc(1, sizeof *s->msg)) == NULL)
		mc_oom();
	return s->msg;
}

void
mc_ans_messages_free(struct mc_stream *s)
{
	struct mc_messages *m = s->msg;
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++) {
		mc_buf_free(&m->b[i].text);
		free(m->b[i].sig);
		cJSON_Delete(m->b[i].whole);
	}
	free(m->b);
	free(m->stop);
	free(m);
	s->msg = NULL;
}

static int
index_of(const cJSON *doc)
{
	const cJSON *ix = cJSON_GetObjectItemCaseSensitive(doc, "index");

	return cJSON_IsNumber(ix) && ix->valuedouble >= 0 && ix->valuedouble < 1e9 ?
	    ix->valueint : -1;
}

/* The block of that index, the latest one when two share it (blocks are
 * few and come in order: looked for from the end). */
static struct block *
find(struct mc_messages *m, int index)
{
	size_t i;

	for (i = m->n; i > 0; i--)
		if (m->b[i - 1].index == index)
			return &m->b[i - 1];
	return NULL;
}

static struct block *
block_new(struct mc_stream *s, int index, int kind)
{
	struct mc_messages *m = state(s);
	struct block *b;

	if (!mc_ans_room(s, sizeof *b))
		return NULL;
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 8;
		if ((b = reallocarray(m->b, m->cap, sizeof *b)) == NULL)
			mc_oom();
		m->b = b;
	}
	b = &m->b[m->n++];
	memset(b, 0, sizeof *b);
	b->index = index;
	b->kind = kind;
	return b;
}

static void
thinking_done(struct mc_stream *s, struct block *b)
{
	cJSON *d = mc_json_new_obj();

	mc_json_add_str(d, "type", "thinking");
	mc_json_add_str(d, "signature", b->sig ? b->sig : "");
	mc_ans_thought_end(s, &b->text);
	mc_buf_adds(&b->text, "");
	/* The data: the block without its text. */
	mc_ans_thought_block(s, b->text.data, b->text.len, "messages", d);
	cJSON_Delete(d);
}

/* A tool call's input: its pieces joined, which must be JSON; none: the
 * input its start gave. */
static void
tool_done(struct mc_stream *s, struct block *b)
{
	struct call *c = &s->calls[b->call];
	char err[256], msg[600];
	cJSON *v;

	if (c->args.len == 0) {
		mc_ans_args_set(s, c, cJSON_IsObject(b->whole) ? b->whole : NULL);
	} else if ((v = mc_json_parse(c->args.data, c->args.len, err, sizeof err)) == NULL) {
		snprintf(msg, sizeof msg, "the input of tool call %.*s is not valid JSON: %s",
		    (int)(c->name.len < 100 ? c->name.len : 100), c->name.data ? c->name.data : "",
		    err);
		mc_ans_fail(s, msg, NULL, 0, 1);
		return;
	} else
		cJSON_Delete(v);
	mc_ans_call_emit(s, c);
}

static void
block_stop(struct mc_stream *s, struct block *b)
{
	if (b == NULL || b->stopped || s->ended)
		return;
	b->stopped = 1;
	if (b->kind == B_THINKING)
		thinking_done(s, b);
	else if (b->kind == B_REDACTED)
		mc_ans_thought_block(s, "", 0, "messages", b->whole);
	else if (b->kind == B_TOOL)
		tool_done(s, b);
}

static void
block_start(struct mc_stream *s, int index, const cJSON *cb)
{
	const char *type = mc_json_str(cb, "type");
	struct block *b;
	struct call *c;

	if (type == NULL)
		return;
	if (strcmp(type, "text") == 0) {
		if ((b = block_new(s, index, B_TEXT)) != NULL)
			mc_ans_text(s, mc_json_str(cb, "text"), 0);
	} else if (strcmp(type, "thinking") == 0) {
		if ((b = block_new(s, index, B_THINKING)) == NULL)
			return;
		mc_buf_adds(&b->text, mc_json_str(cb, "thinking") ? mc_json_str(cb, "thinking") : "");
		mc_ans_set_str(&b->sig, mc_json_str(cb, "signature"));
	} else if (strcmp(type, "redacted_thinking") == 0) {
		if ((b = block_new(s, index, B_REDACTED)) != NULL)
			b->whole = cJSON_Duplicate(cb, 1);
	} else if (strcmp(type, "tool_use") == 0) {
		if ((b = block_new(s, index, B_TOOL)) == NULL)
			return;
		c = mc_ans_call_new(s, NULL, index);
		b->call = (size_t)(c - s->calls);
		mc_ans_call_set_id(s, c, mc_json_str(cb, "id"));
		mc_ans_call_name(s, c, mc_json_str(cb, "name"), 0);
		b->whole = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(cb, "input"), 1);
	} else
		block_new(s, index, B_OTHER);	/* a server tool's block: nothing of mc's */
}

static void
block_delta(struct mc_stream *s, struct block *b, const cJSON *d)
{
	const char *type = mc_json_str(d, "type"), *v;

	if (b == NULL || b->stopped || type == NULL)
		return;
	if (strcmp(type, "text_delta") == 0 && b->kind == B_TEXT) {
		mc_ans_text(s, mc_json_str(d, "text"), 0);
	} else if (strcmp(type, "input_json_delta") == 0 && b->kind == B_TOOL) {
		if ((v = mc_json_str(d, "partial_json")) != NULL)
			mc_ans_args_add(s, &s->calls[b->call], v);
	} else if (strcmp(type, "thinking_delta") == 0 && b->kind == B_THINKING) {
		mc_ans_thought(s, mc_json_str(d, "thinking"), &b->text);
	} else if (strcmp(type, "signature_delta") == 0 && b->kind == B_THINKING) {
		/* The whole signature, as the SDK takes it (not a piece). */
		if ((v = mc_json_str(d, "signature")) != NULL && mc_ans_room(s, strlen(v)))
			mc_ans_set_str(&b->sig, v);
	}
	/* citations_delta and deltas of types to come: nothing to keep. */
}

/* The counts a usage object gives, over those known so far. */
static void
usage(struct mc_messages *m, const cJSON *u)
{
	static const struct { const char *key; size_t off; } f[] = {
		{ "input_tokens", offsetof(struct mc_messages, in) },
		{ "output_tokens", offsetof(struct mc_messages, out) },
		{ "cache_read_input_tokens", offsetof(struct mc_messages, read) },
		{ "cache_creation_input_tokens", offsetof(struct mc_messages, write) },
	};
	const cJSON *v;
	size_t i;

	if (!cJSON_IsObject(u))
		return;
	for (i = 0; i < sizeof f / sizeof f[0]; i++)
		if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(u, f[i].key)) &&
		    v->valuedouble >= 0 && v->valuedouble < 1e15) {
			*(long long *)((char *)m + f[i].off) = (long long)v->valuedouble;
			m->have_usage = 1;
		}
}

/* stop_reason in mc's words: stop, tool_calls, length, refusal, or the
 * API's own (pause_turn: the driver sends the request again). */
static const char *
reason(const char *r)
{
	static const char *map[][2] = {
		{ "end_turn", "stop" }, { "stop_sequence", "stop" }, { "tool_use", "tool_calls" },
		{ "max_tokens", "length" }, { "model_context_window_exceeded", "length" },
	};
	size_t i;

	if (r == NULL || r[0] == '\0')
		return "stop";
	for (i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(r, map[i][0]) == 0)
			return map[i][1];
	return r;
}

/* The end: blocks left open are closed, the usage is the API's counts
 * (input is what was read anew, from the cache and into it). */
static void
finish(struct mc_stream *s)
{
	struct mc_messages *m = state(s);
	size_t i;

	for (i = 0; i < m->n && !s->ended; i++)
		block_stop(s, &m->b[i]);
	if (s->ended)
		return;
	if (m->have_usage) {
		s->have_usage = 1;
		s->in = m->in + m->read + m->write;
		s->out = m->out;
		s->cached = m->read;
		s->cache_write = m->write;
	}
	mc_ans_finish(s, reason(m->stop));
}

void
mc_ans_messages_event(struct mc_stream *s, const char *name, const cJSON *doc)
{
	struct mc_messages *m = state(s);
	const char *type = mc_json_str(doc, "type");
	const cJSON *d;

	if (type == NULL)
		type = name;
	if (strcmp(type, "message_start") == 0) {
		usage(m, cJSON_GetObjectItemCaseSensitive(mc_json_obj(doc, "message"), "usage"));
	} else if (strcmp(type, "content_block_start") == 0) {
		block_start(s, index_of(doc), mc_json_obj(doc, "content_block"));
	} else if (strcmp(type, "content_block_delta") == 0) {
		block_delta(s, find(m, index_of(doc)), mc_json_obj(doc, "delta"));
	} else if (strcmp(type, "content_block_stop") == 0) {
		block_stop(s, find(m, index_of(doc)));
	} else if (strcmp(type, "message_delta") == 0) {
		d = mc_json_obj(doc, "delta");
		mc_ans_set_str(&m->stop, mc_json_str(d, "stop_reason"));
		usage(m, cJSON_GetObjectItemCaseSensitive(doc, "usage"));
	} else if (strcmp(type, "message_stop") == 0) {
		finish(s);
	} else if (strcmp(type, "error") == 0) {
		mc_ans_fail_json(s, doc);
	}
	/* ping, and event types to come, are ignored, as the API asks. */
}

/* A whole message (no stream): its blocks in order, then its end. */
void
mc_ans_messages_doc(struct mc_stream *s, const cJSON *doc)
{
	struct mc_messages *m = state(s);
	const cJSON *cb;
	struct block *b;
	int i = 0;

	if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "content"))) {
		mc_ans_fail(s, "bad answer: a message without \"content\"", NULL, 0, 1);
		return;
	}
	cJSON_ArrayForEach(cb, cJSON_GetObjectItemCaseSensitive(doc, "content")) {
		block_start(s, i, cb);
		if ((b = find(m, i++)) == NULL)
			continue;
		if (b->kind == B_TOOL && cJSON_IsObject(b->whole))
			mc_ans_args_set(s, &s->calls[b->call], b->whole);
		block_stop(s, b);
	}
	mc_ans_set_str(&m->stop, mc_json_str(doc, "stop_reason"));
	usage(m, cJSON_GetObjectItemCaseSensitive(doc, "usage"));
	finish(s);
}
