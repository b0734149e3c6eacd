/* sse-stream.c: the answer decoder: body bytes in, normalized events out; what both dialects share. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/stdlib.h>
#include <cJSON.h>

#include "buf.h"
#include "chunk.h"
#include "clip.h"
#include "diag.h"
#include "items.h"
#include "json.h"
#include "strset.h"
#include "sse-int.h"
#include "utf8.h"

int mc_stream_nofast;

struct mc_stream *
mc_stream_new(enum mc_api api, mc_event_fn fn, void *arg)
{
	struct mc_stream *s = calloc(1, sizeof *s);

	if (s == NULL)
		mc_oom();
	s->api = api;
	s->fn = fn;
	s->arg = arg;
	s->cache_write = -1;
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
		mc_buf_free(&s->calls[i].name);
		mc_buf_free(&s->calls[i].args);
	}
	free(s->calls);
	mc_ans_messages_free(s);
	free(s->bykey.slot);
	free(s->bycallid.slot);
	free(s->finish);
	mc_buf_free(&s->json);
	mc_buf_free(&s->delta);
	mc_buf_free(&s->fixed);
	mc_buf_free(&s->escaped);
	mc_buf_free(&s->thought);
	mc_sse_free(&s->sse);
	free(s);
}

static void
emit(struct mc_stream *s, struct mc_event *ev)
{
	if (s->stopped || s->ended)
		return;
	if (s->fn(ev, s->arg) != 0)
		s->stopped = 1;
}

void
mc_ans_emit(struct mc_stream *s, struct mc_event *ev)
{
	emit(s, ev);
}

void
mc_ans_fail(struct mc_stream *s, const char *msg, const char *code, int status, int local)
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

void
mc_ans_fail_json(struct mc_stream *s, const cJSON *v)
{
	char msg[2048], code[128];
	int status;

	if (mc_ans_error_json(v, msg, sizeof msg, code, sizeof code, &status) == -1)
		snprintf(msg, sizeof msg, "unknown error");
	mc_ans_fail(s, msg, code, status, 0);
}

int
mc_ans_has_error(const cJSON *doc)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "error");

	return cJSON_IsObject(e) || (cJSON_IsString(e) && e->valuestring[0]) || cJSON_IsTrue(e);
}

/* Counts n more bytes of the answer; false (and the answer failed) past the cap. */
static int
room(struct mc_stream *s, size_t n)
{
	char msg[160];

	if (n <= MC_ANSWER_MAX && s->total <= MC_ANSWER_MAX - n) {
		s->total += n;
		return 1;
	}
	snprintf(msg, sizeof msg, "the answer is over the %u MiB limit on its text and "
	    "tool calls", MC_ANSWER_MAX >> 20);
	mc_ans_fail(s, msg, NULL, 0, 1);
	return 0;
}

int
mc_ans_room(struct mc_stream *s, size_t n)
{
	return room(s, n);
}

/* ---- UTF-16 halves ----
 *
 * A provider may cut a surrogate pair between two deltas ("\ud83d", then
 * "\ude00"), which no JSON parser turns into UTF-8. Before an event is
 * parsed, such a half at a string's end (high) or start (low) becomes a
 * marker: four bytes that are no UTF-8 at all, F5 80 followed by two
 * bytes that carry 0x000 + the half's offset (high) or 0x400 + offset
 * (low). No text can hold them: a byte from F5 up is never in UTF-8, and
 * where markers are made (fix_escapes) every such byte the provider sent
 * is made U+FFFD first; the text of an event that had none made
 * (s->marks 0) is never read for them. Joining a piece with the next
 * turns the markers back into the pair's character. Any other lone half
 * becomes U+FFFD. (Markers in the last private-use block, as before,
 * were taken for characters U+10F800-U+10FFFF that a provider sent.)
 */

#define MARK_BASE 0x140000u	/* put_cp of it and up: F5 80 xx xx */

/* The surrogate a marker at p stands for, or 0 when p is no marker. */
static unsigned
marker(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	unsigned x;

	if (u[0] != 0xf5 || u[1] != 0x80 || (u[2] & 0xe0) != 0x80 || (u[3] & 0xc0) != 0x80)
		return 0;
	x = (unsigned)(u[2] & 0x1f) << 6 | (u[3] & 0x3f);
	return x < 0x400 ? 0xd800 + x : 0xdc00 + (x - 0x400);
}

static void
put_cp(struct mc_buf *b, unsigned cp)
{
	char u[4];

	u[0] = (char)(0xf0 | cp >> 18);
	u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	u[3] = (char)(0x80 | (cp & 0x3f));
	mc_buf_add(b, u, 4);
}

static int
needs_join(const struct mc_stream *s, const char *t, size_t n, unsigned hi)
{
	return hi != 0 || (s->marks && n >= 4 && (marker(t) != 0 || marker(t + n - 4) != 0));
}

/* Append the piece t, n to out, joined with the half *hi the previous piece
 * ended with; *hi becomes the half this one ends with (or 0). */
static void
join16(const struct mc_stream *s, struct mc_buf *out, const char *t, size_t n, unsigned *hi)
{
	unsigned m;

	if (s->marks && n >= 4 && (m = marker(t)) >= 0xdc00) {
		if (*hi)
			put_cp(out, 0x10000 + ((*hi - 0xd800) << 10) + (m - 0xdc00));
		else
			mc_buf_adds(out, "\xef\xbf\xbd");
		t += 4;
		n -= 4;
	} else if (*hi)
		mc_buf_adds(out, "\xef\xbf\xbd");
	*hi = 0;
	if (s->marks && n >= 4 && (m = marker(t + n - 4)) != 0 && m < 0xdc00) {
		*hi = m;
		n -= 4;
	}
	mc_buf_add(out, t, n);
}

const char *
mc_ans_join16(struct mc_stream *s, const char *t, size_t *n, unsigned *hi)
{
	unsigned whole = 0, *h = hi != NULL ? hi : &whole;

	if (!needs_join(s, t, *n, *h))
		return t;
	s->fixed.len = 0;
	join16(s, &s->fixed, t, *n, h);
	if (whole != 0)
		mc_buf_adds(&s->fixed, "\xef\xbf\xbd");
	mc_buf_adds(&s->fixed, "");
	*n = s->fixed.len;
	return s->fixed.data;
}

/* An event's text with every \u0000 escape made \ufffd (cJSON would cut
 * the string there), each lone surrogate escape made a marker or
 * \ufffd, as above, and each byte from F5 up made U+FFFD; NULL when none
 * needs it. s->marks says whether a marker was made. */
static const char *
fix_escapes(struct mc_stream *s, const char *p, size_t n, size_t *outn)
{
	size_t i, from = 0, start = 0;
	unsigned v, w;
	int in = 0, any = 0;

	s->escaped.len = 0;
	s->marks = 0;
	for (i = 0; i < n; i++) {
		if ((unsigned char)p[i] >= 0xf5) {
			mc_buf_add(&s->escaped, p + from, i - from);
			mc_buf_adds(&s->escaped, "\xef\xbf\xbd");
			from = i + 1;
			any = 1;
			continue;
		}
		if (p[i] == '"') {
			in = !in;
			start = i + 1;
			continue;
		}
		if (!in || p[i] != '\\')
			continue;
		if (i + 6 > n || p[i + 1] != 'u' || mc_chunk_hex4(p + i + 2, &v) == -1) {
			i++;	/* a one-letter escape */
			continue;
		}
		if (v != 0 && (v < 0xd800 || v > 0xdfff)) {
			i += 5;
			continue;
		}
		if (v >= 0xd800 && v <= 0xdbff && i + 12 <= n && p[i + 6] == '\\' &&
		    p[i + 7] == 'u' && mc_chunk_hex4(p + i + 8, &w) == 0 && w >= 0xdc00 && w <= 0xdfff) {
			i += 11;	/* a whole pair */
			continue;
		}
		mc_buf_add(&s->escaped, p + from, i - from);
		if (v >= 0xd800 && v <= 0xdbff && i + 6 < n && p[i + 6] == '"') {
			put_cp(&s->escaped, MARK_BASE + (v - 0xd800));
			s->marks = 1;
		} else if (v >= 0xdc00 && v <= 0xdfff && i == start) {
			put_cp(&s->escaped, MARK_BASE + 0x400 + (v - 0xdc00));
			s->marks = 1;
		} else
			mc_buf_adds(&s->escaped, "\\ufffd");
		i += 5;
		from = i + 1;
		any = 1;
	}
	if (!any)
		return NULL;
	mc_buf_add(&s->escaped, p + from, n - from);
	*outn = s->escaped.len;
	return s->escaped.data;
}

/* ---- text ---- */

static void
flush_half(struct mc_stream *s, int refusal)
{
	unsigned *hi = refusal ? &s->hi_refusal : &s->hi_text;
	struct mc_event ev = { .type = refusal ? MC_EVENT_REFUSAL : MC_EVENT_TEXT };

	if (*hi == 0)
		return;
	*hi = 0;
	if (!room(s, 3))
		return;
	ev.text = "\xef\xbf\xbd";
	ev.len = 3;
	emit(s, &ev);
}

void
mc_ans_text(struct mc_stream *s, const char *t, int refusal)
{
	struct mc_event ev = { .type = refusal ? MC_EVENT_REFUSAL : MC_EVENT_TEXT };
	unsigned *hi = refusal ? &s->hi_refusal : &s->hi_text;
	struct mc_buf tmp = {0};

	if (t == NULL || t[0] == '\0' || s->ended)
		return;
	ev.text = t;
	ev.len = strlen(t);
	/* The markers first: they are no UTF-8, and a repair would take them. */
	ev.text = mc_ans_join16(s, ev.text, &ev.len, hi);
	/* cJSON does not check UTF-8: what a provider garbles must not reach
	 * the session, where it would make every later request invalid. */
	if (!mc_utf8_valid(ev.text, ev.len)) {
		mc_clip_repair(&tmp, ev.text, ev.len);
		ev.text = tmp.data;
		ev.len = tmp.len;
	}
	if (ev.len > 0 && room(s, ev.len)) {
		if (refusal)
			s->nrefusal++;
		else
			s->ntext++;
		emit(s, &ev);
	}
	mc_buf_free(&tmp);
}

/* Message content as a string, or as an array of text and refusal parts. */
void
mc_ans_content(struct mc_stream *s, const cJSON *c)
{
	const cJSON *p;

	if (cJSON_IsString(c)) {
		mc_ans_text(s, c->valuestring, 0);
		return;
	}
	cJSON_ArrayForEach(p, c) {
		const char *t = mc_json_str(p, "type");

		if (t != NULL && strcmp(t, "refusal") == 0)
			mc_ans_text(s, mc_json_str(p, "refusal"), 1);
		else if (t == NULL || strcmp(t, "text") == 0 || strcmp(t, "output_text") == 0)
			mc_ans_text(s, mc_json_str(p, "text"), 0);
	}
}

/* ---- calls ---- */

static const char *
tab_field(const struct mc_stream *s, const struct calltab *t, size_t i)
{
	return t == &s->bykey ? s->calls[i].key : s->calls[i].call_id;
}

static void
tab_put(struct mc_stream *s, struct calltab *t, size_t i)
{
	size_t j, k, m;

	if ((t->used + 1) * 2 > t->size) {
		free(t->slot);
		t->size = t->size ? t->size * 2 : 64;
		if ((t->slot = calloc(t->size, sizeof *t->slot)) == NULL)
			mc_oom();
		t->used = 0;
		for (k = 0; k < s->ncalls; k++)
			if (k != i && tab_field(s, t, k) != NULL)
				tab_put(s, t, k);
	}
	m = t->size - 1;
	for (j = mc_strhash(tab_field(s, t, i)) & m; t->slot[j] != 0; j = (j + 1) & m)
		;
	t->slot[j] = i + 1;
	t->used++;
}

static struct call *
tab_get(struct mc_stream *s, struct calltab *t, const char *k)
{
	size_t j, m;
	const char *f;

	if (t->size == 0 || k == NULL)
		return NULL;
	m = t->size - 1;
	for (j = mc_strhash(k) & m; t->slot[j] != 0; j = (j + 1) & m)
		if ((f = tab_field(s, t, t->slot[j] - 1)) != NULL && strcmp(f, k) == 0)
			return &s->calls[t->slot[j] - 1];
	return NULL;
}


/* A new call, found later by key (may be NULL). */
struct call *
mc_ans_call_new(struct mc_stream *s, const char *key, int index)
{
	struct call *c;

	if (s->ncalls == s->ncap) {
		s->ncap = s->ncap ? s->ncap * 2 : 8;
		if ((c = reallocarray(s->calls, s->ncap, sizeof *c)) == NULL)
			mc_oom();
		s->calls = c;
	}
	/* A call's record and key count too: an endless stream of new
	 * calls is no cheaper than one of text. */
	room(s, sizeof *c + (key != NULL ? strlen(key) : 0));
	c = &s->calls[s->ncalls++];
	memset(c, 0, sizeof *c);
	c->index = index;
	c->seq = s->ncalls - 1;
	if (key != NULL) {
		c->key = mc_strdup(key);
		tab_put(s, &s->bykey, c->seq);
	}
	return c;
}

struct call *
mc_ans_call_find(struct mc_stream *s, const char *key)
{
	return tab_get(s, &s->bykey, key);
}

struct call *
mc_ans_call_by_id(struct mc_stream *s, const char *call_id)
{
	return tab_get(s, &s->bycallid, call_id);
}

void
mc_ans_set_str(char **dst, const char *v)
{
	if (v == NULL || v[0] == '\0')
		return;
	free(*dst);
	*dst = mc_strdup(v);
}

void
mc_ans_call_set_id(struct mc_stream *s, struct call *c, const char *call_id)
{
	size_t n, had;

	if (call_id == NULL || call_id[0] == '\0' || (c->call_id && strcmp(c->call_id, call_id) == 0))
		return;
	n = strlen(call_id);
	had = c->call_id ? strlen(c->call_id) : 0;
	if (n > had && !room(s, n - had))
		return;
	mc_ans_set_str(&c->call_id, call_id);
	tab_put(s, &s->bycallid, (size_t)(c - s->calls));
}

static void
args_put(const struct mc_stream *s, struct call *c, const char *piece)
{
	size_t n = strlen(piece);

	if (!needs_join(s, piece, n, c->hi))
		mc_buf_add(&c->args, piece, n);
	else
		join16(s, &c->args, piece, n, &c->hi);
}

void
mc_ans_call_name(struct mc_stream *s, struct call *c, const char *name, int piece)
{
	size_t n;

	if (name == NULL || name[0] == '\0')
		return;
	n = strlen(name);
	/* Only growth counts, as with the arguments. */
	if (!room(s, piece ? n : n > c->name.len ? n - c->name.len : 0))
		return;
	if (!piece)
		c->name.len = 0;
	mc_buf_add(&c->name, name, n);
}

void
mc_ans_args_add(struct mc_stream *s, struct call *c, const char *piece)
{
	size_t before = c->args.len;

	args_put(s, c, piece);
	room(s, c->args.len - before);
}

/* The whole arguments, replacing the pieces: a string, or (some servers)
 * an object. */
void
mc_ans_args_set(struct mc_stream *s, struct call *c, const cJSON *a)
{
	size_t before = c->args.len;
	char *p;

	if (cJSON_IsString(a)) {
		c->args.len = 0;
		c->hi = 0;
		args_put(s, c, a->valuestring);
	} else if (cJSON_IsObject(a)) {
		if ((p = cJSON_PrintUnformatted(a)) == NULL)
			mc_oom();
		c->args.len = 0;
		mc_buf_adds(&c->args, p);
		free(p);
	} else
		return;
	/* Only growth counts: the pieces were counted as they came. */
	if (c->args.len > before)
		room(s, c->args.len - before);
}

/* A piece of a call made valid UTF-8 in place of the original. */
static void
repair_buf(struct mc_buf *b)
{
	struct mc_buf r = {0};

	if (b->len == 0 || mc_utf8_valid(b->data, b->len))
		return;
	mc_clip_repair(&r, b->data, b->len);
	mc_buf_free(b);
	*b = r;
}

static void
repair(char **p)
{
	struct mc_buf b;

	if (*p == NULL)
		return;
	b = (struct mc_buf){ .data = *p, .len = strlen(*p), .cap = strlen(*p) + 1 };
	repair_buf(&b);
	*p = mc_buf_steal(&b);
}

/* An id for a call the provider sent without one (an empty call_id
 * breaks the next request), derived from the answer (mc_item_call_id)
 * so that decoding it again gives the same id; unlike any other call's
 * id in this answer. */
static void
new_call_id(struct mc_stream *s, struct call *c)
{
	char id[MC_CALL_ID_SIZE];
	unsigned long long n = s->nemitted;
	struct call *o;

	for (;; n += s->ncalls + 1) {
		mc_item_call_id(id, n, c->name.len ? c->name.data : "", c->args.len ? c->args.data : "");
		if ((o = mc_ans_call_by_id(s, id)) == NULL || o == c)
			break;
	}
	c->call_id = mc_strdup(id);
	tab_put(s, &s->bycallid, (size_t)(c - s->calls));
}

void
mc_ans_call_emit(struct mc_stream *s, struct call *c)
{
	struct mc_event ev = { .type = MC_EVENT_TOOL_CALL };

	if (c->emitted || s->ended)
		return;
	c->emitted = 1;
	s->nemitted++;
	/* A call with no name runs nothing the model meant: never dispatched. */
	if (c->name.len == 0) {
		s->ndropped++;
		repair_buf(&c->args);
		mc_warn("the answer holds a tool call without a name (arguments: %.*s%s); "
		    "it is dropped", (int)(c->args.len > 100 ? 100 : c->args.len),
		    c->args.len ? c->args.data : "", c->args.len > 100 ? "..." : "");
		return;
	}
	repair(&c->call_id);
	repair_buf(&c->name);
	if (c->hi) {
		mc_buf_adds(&c->args, "\xef\xbf\xbd");
		c->hi = 0;
	}
	repair_buf(&c->args);
	if (c->call_id == NULL || c->call_id[0] == '\0') {
		free(c->call_id);
		c->call_id = NULL;
		new_call_id(s, c);
	}
	ev.call_id = c->call_id;
	ev.name = c->name.len ? c->name.data : "";
	ev.arguments = c->args.len ? c->args.data : "";
	emit(s, &ev);
}

static int
by_index(const void *a, const void *b)
{
	const struct call *x = *(struct call *const *)a, *y = *(struct call *const *)b;

	/* A call without an index (-1) goes after those with one. */
	if (x->index != y->index)
		return (unsigned)x->index < (unsigned)y->index ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Every call not yet out, in index order (creation order among equals). */
void
mc_ans_calls_flush(struct mc_stream *s)
{
	struct call **v;
	size_t i, n = 0;

	if (s->nemitted == s->ncalls)
		return;
	if ((v = reallocarray(NULL, s->ncalls - s->nemitted, sizeof *v)) == NULL)
		mc_oom();
	for (i = 0; i < s->ncalls; i++)
		if (!s->calls[i].emitted)
			v[n++] = &s->calls[i];
	qsort(v, n, sizeof *v, by_index);
	for (i = 0; i < n; i++)
		mc_ans_call_emit(s, v[i]);
	free(v);
}

/* ---- the end ---- */

void
mc_ans_usage(struct mc_stream *s, const cJSON *u)
{
	const cJSON *i, *o, *c;

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
	c = cJSON_GetObjectItemCaseSensitive(mc_json_obj(u, "input_tokens_details"), "cached_tokens");
	if (!cJSON_IsNumber(c))
		c = cJSON_GetObjectItemCaseSensitive(mc_json_obj(u, "prompt_tokens_details"),
		    "cached_tokens");
	s->have_usage = 1;
	s->in = cJSON_IsNumber(i) ? (long long)i->valuedouble : 0;
	s->out = cJSON_IsNumber(o) ? (long long)o->valuedouble : 0;
	s->cached = cJSON_IsNumber(c) ? (long long)c->valuedouble : 0;
}

void
mc_ans_finish(struct mc_stream *s, const char *reason)
{
	struct mc_event ev = { .type = MC_EVENT_USAGE };
	static const char *map[][2] = {
		{ "function_call", "tool_calls" }, { "tool_use", "tool_calls" },
		{ "end_turn", "stop" }, { "max_tokens", "length" },
		{ "max_output_tokens", "length" },
	};
	size_t i;

	mc_ans_thought_end(s, NULL);
	flush_half(s, 0);
	flush_half(s, 1);
	mc_ans_calls_flush(s);
	if (s->ended)
		return;
	if (s->have_usage) {
		ev.input_tokens = s->in;
		ev.output_tokens = s->out;
		ev.cached_tokens = s->cached;
		ev.cache_write_tokens = s->cache_write;
		emit(s, &ev);
	}
	if (reason == NULL || reason[0] == '\0')
		reason = "stop";
	for (i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(reason, map[i][0]) == 0)
			reason = map[i][1];
	if (strcmp(reason, "stop") == 0 && s->nemitted > s->ndropped)
		reason = "tool_calls";
	else if (strcmp(reason, "tool_calls") == 0 && s->nemitted == s->ndropped)
		reason = "stop";	/* its calls were dropped: none to run */
	else if (strcmp(reason, "stop") == 0 && s->nrefusal)
		reason = "refusal";
	memset(&ev, 0, sizeof ev);
	ev.type = MC_EVENT_DONE;
	ev.finish_reason = reason;
	emit(s, &ev);
	s->ended = 1;
}

/* ---- feeding ---- */

/* data: [DONE], with any white space around it. */
static int
is_done(const char *p, size_t n)
{
	while (n > 0 && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	return n == 6 && memcmp(p, "[DONE]", 6) == 0;
}

static int
on_sse(const char *event, const char *data, size_t len, void *arg)
{
	struct mc_stream *s = arg;
	char err[256], msg[512];
	const char *fixed;
	size_t n;
	cJSON *doc;

	s->nevents++;
	if (s->ended)
		return 0;
	if (s->api == MC_API_CHAT && is_done(data, len)) {
		mc_ans_finish(s, s->finish);
		return 0;
	}
	/* Some servers end a Responses stream as a chat one: no JSON, and no
	 * answer without response.completed. */
	if (s->api == MC_API_RESPONSES && is_done(data, len)) {
		mc_ans_fail(s, "the stream ended with [DONE] before its last event, "
		    "response.completed", NULL, 0, 1);
		return 0;
	}
	/* Most chunks are a plain text delta: no tree for those. */
	if (s->api == MC_API_CHAT && !mc_stream_nofast && strcmp(event, "error") != 0 &&
	    mc_chunk_text(data, len, &s->delta) == 1) {
		s->marks = 0;
		mc_ans_text(s, s->delta.data, 0);
		return 0;
	}
	if ((fixed = fix_escapes(s, data, len, &n)) != NULL) {
		data = fixed;
		len = n;
	}
	if ((doc = mc_json_parse(data, len, err, sizeof err)) == NULL) {
		if (s->at_eof)
			return 0;	/* cut mid-event: reported as a cut below */
		if (strcmp(event, "error") == 0) {
			/* a legacy error: field may hold plain text */
			snprintf(msg, sizeof msg, "%.*s", (int)(len < 500 ? len : 500), data);
			mc_ans_fail(s, msg, NULL, 0, 0);
		} else {
			snprintf(msg, sizeof msg, "bad event in the stream: %s", err);
			mc_ans_fail(s, msg, NULL, 0, 1);
		}
		return 0;
	}
	if (strcmp(event, "error") == 0)
		mc_ans_fail_json(s, doc);
	else if (s->api == MC_API_CHAT)
		mc_ans_chat_doc(s, doc, 0);
	else if (s->api == MC_API_MESSAGES)
		mc_ans_messages_event(s, event, doc);
	else if (mc_ans_has_error(doc) && mc_json_str(doc, "type") == NULL)
		mc_ans_fail_json(s, doc);
	else
		mc_ans_responses_event(s, event, doc);
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
		mc_ans_fail(s, msg, NULL, 0, 1);
	}
	return status_of(s);
}

size_t
mc_stream_progress(const struct mc_stream *s)
{
	return s->mode == SSE ? s->sse.progress : s->fed;
}

int
mc_stream_feed(struct mc_stream *s, const char *p, size_t n)
{
	size_t i;

	if (s->ended || s->stopped)
		return status_of(s);
	if (n > 0)
		s->started = 1;
	s->fed += n;
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
				mc_ans_fail(s, "the answer is only white space", NULL, 0, 1);
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
		mc_ans_fail(s, "the answer is over the size limit", NULL, 0, 1);
		return status_of(s);
	}
	mc_buf_add(&s->json, p, n);
	return 0;
}

static void
json_end(struct mc_stream *s)
{
	const char *p = s->json.data, *fixed;
	size_t n = s->json.len, m;
	char err[256], msg[400];
	cJSON *doc;

	if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
		p += 3;
		n -= 3;
	}
	if ((fixed = fix_escapes(s, p, n, &m)) != NULL) {
		p = fixed;
		n = m;
	}
	if ((doc = mc_json_parse(p, n, err, sizeof err)) == NULL) {
		snprintf(msg, sizeof msg, "bad answer: %s", err);
		mc_ans_fail(s, msg, NULL, 0, 1);
		return;
	}
	if (mc_ans_has_error(doc))
		mc_ans_fail_json(s, doc);
	else if (s->api == MC_API_CHAT)
		mc_ans_chat_doc(s, doc, 1);
	else if (s->api == MC_API_MESSAGES)
		mc_ans_messages_doc(s, doc);
	else if (mc_json_obj(doc, "response") && !mc_json_arr(doc, "output"))
		mc_ans_responses_end(s, mc_json_obj(doc, "response"),
		    mc_json_str(mc_json_obj(doc, "response"), "status"));
	else
		mc_ans_responses_end(s, doc, mc_json_str(doc, "status"));
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
	mc_ans_fail(s, msg, NULL, 0, 1);
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
		mc_ans_fail(s, "an event in the stream is too long", NULL, 0, 1);
	if (s->ended || s->stopped)
		return status_of(s);
	if (!s->started || s->mode == UNKNOWN)
		mc_ans_fail(s, "empty answer", NULL, 0, 1);
	else if (s->nevents == 0)
		not_an_answer(s);
	else
		mc_ans_fail(s, s->api == MC_API_CHAT ? "the stream ended before [DONE]" :
		    s->api == MC_API_MESSAGES ? "the stream ended before message_stop" :
		    "the stream ended before response.completed", NULL, 0, 1);
	return status_of(s);
}
