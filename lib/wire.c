/* wire.c: a provider request as text, built item by item and kept for a session. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha256.h>

#include "diag.h"
#include "json.h"
#include "wire.h"

struct span {
	size_t at, len;		/* an element in done */
};

enum api { CHAT, RESPONSES, MESSAGES };

/* Messages: the prompt cache breakpoint, put before the last "}]}" of a
 * user message's text (its last block, its content, itself). */
static const char cache_mark[] = ",\"cache_control\":{\"type\":\"ephemeral\"}";
#define MARK_AT 3

struct mc_wire {
	const struct mc_provider *p;
	enum api api;
	int chat;
	char *url;
	/* The body's members around the array, as text: head is "{...",
	 * without its closing brace; tail is ",...}" or "}", with how the
	 * answer is sent; skeleton is the body without that and with the
	 * array empty, for the key. */
	struct mc_buf head, tail, skeleton;
	struct mc_buf system;	/* chat: the system message, the array's first element */
	/* The elements no later item can change, each after a comma. */
	struct mc_buf done;
	struct span *spans;
	size_t nspans, cap;
	/* The key's state after the skeleton, the system message and the
	 * first hashed elements done: made when a key is first asked for,
	 * and kept up from there (nothing is hashed when nothing caches). */
	SHA2_CTX ctx;
	int keyed;
	size_t hashed;
	size_t items;
	/* The run of user messages not yet ended, joined by blank lines;
	 * when it carries images, its content parts too (text and images
	 * in order), or NULL; tool_images: it holds only the images of
	 * chat's tool outputs so far (later outputs do not end it). */
	struct mc_buf users;
	int nusers;
	cJSON *uparts;
	int tool_images;
	/* chat: the assistant message that the calls after it join. */
	cJSON *assistant;
	/* Messages: the message the items of its role join, and whose it is;
	 * whether the last element done is a user message. */
	cJSON *msg;
	int msg_user, done_user;
	/* Its text, when fresh: a body wrote it, and no item joined it since
	 * (a step's tool outputs are serialized once, not again at its end). */
	struct mc_buf msg_text;
	int msg_fresh;
};

static void
field(SHA2_CTX *ctx, const char *s, size_t len)
{
	uint8_t n[8];
	uint64_t v = len;
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		n[i] = (uint8_t)(v & 0xff);
	SHA256Update(ctx, n, sizeof n);
	if (len > 0)
		SHA256Update(ctx, (const uint8_t *)s, len);
}

/* The key's state brought up to the elements done: from nothing when
 * the members changed, else from the last element hashed. */
static void
rekey(struct mc_wire *w)
{
	size_t i;

	if (w->keyed) {
		for (i = w->hashed; i < w->nspans; i++)
			field(&w->ctx, w->done.data + w->spans[i].at, w->spans[i].len);
		w->hashed = w->nspans;
		return;
	}
	w->keyed = 1;
	SHA256Init(&w->ctx);
	field(&w->ctx, "mc-request cache key 3", strlen("mc-request cache key 3"));
	field(&w->ctx, w->p->name, strlen(w->p->name));
	field(&w->ctx, w->url, strlen(w->url));
	field(&w->ctx, w->skeleton.data, w->skeleton.len);
	if (w->system.len > 0)
		field(&w->ctx, w->system.data, w->system.len);
	for (i = 0; i < w->nspans; i++)
		field(&w->ctx, w->done.data + w->spans[i].at, w->spans[i].len);
	w->hashed = w->nspans;
}

/* An element no later item changes, as text: kept (hashed when a key is
 * asked for). */
static void
finish_text(struct mc_wire *w, const char *t, size_t n)
{
	struct span *s;

	if (w->nspans == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		if ((s = reallocarray(w->spans, w->cap, sizeof *s)) == NULL)
			mc_oom();
		w->spans = s;
	}
	/* Each after a comma: the elements done are one run of the body. */
	mc_buf_addc(&w->done, ',');
	w->spans[w->nspans++] = (struct span){ w->done.len, n };
	mc_buf_add(&w->done, t, n);
}

/* An element no later item changes: serialized, kept. */
static void
finish(struct mc_wire *w, cJSON *elem)
{
	size_t n;
	char *t;

	t = mc_json_compact(elem, &n);
	cJSON_Delete(elem);
	finish_text(w, t, n);
	free(t);
}

/* The member key of the item, moved out of it (the item is the wire's
 * to use up: a long output is not copied). */
static cJSON *
take(cJSON *it, const char *key)
{
	cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(it, key);

	return v != NULL ? v : cJSON_CreateNull();	/* never: the item was checked */
}

/* The run of user messages as one message; its parts, when it has
 * any, are lent: the element refers to them, and goes without them. */
static cJSON *
users_elem(const struct mc_wire *w)
{
	cJSON *m = mc_json_new_obj();

	if (!w->chat)
		mc_json_add_str(m, "type", "message");
	mc_json_add_str(m, "role", "user");
	if (w->uparts != NULL)
		cJSON_AddItemReferenceToObject(m, "content", w->uparts);
	else
		mc_json_add_str(m, "content", w->users.data ? w->users.data : "");
	return m;
}

static void
end_users(struct mc_wire *w)
{
	if (w->nusers == 0)
		return;
	finish(w, users_elem(w));
	w->users.len = 0;
	w->nusers = 0;
	cJSON_Delete(w->uparts);
	w->uparts = NULL;
	w->tool_images = 0;
}

static cJSON *
text_part(const struct mc_wire *w, const char *text)
{
	return mc_wire_text_part(w->p, text);
}

/* The run's parts, begun when its first image comes: what text it
 * had so far is their first. */
static cJSON *
users_parts(struct mc_wire *w)
{
	if (w->uparts == NULL) {
		w->uparts = mc_json_new_arr();
		if (w->users.len > 0)
			mc_json_push(w->uparts, text_part(w, w->users.data));
	}
	return w->uparts;
}

/* A user message's text (and its image parts, or NULL) joins the run. */
static void
users_add(struct mc_wire *w, const char *text, cJSON *parts)
{
	cJSON *p;

	if (parts != NULL)
		users_parts(w);		/* the text so far, before this one's */
	if (w->nusers++ > 0 && !w->tool_images)
		mc_buf_adds(&w->users, "\n\n");
	mc_buf_adds(&w->users, text);
	w->tool_images = 0;
	if (w->uparts == NULL)
		return;
	if (*text != '\0')
		mc_json_push(w->uparts, text_part(w, text));
	while (parts != NULL && (p = parts->child) != NULL)
		mc_json_push(w->uparts, cJSON_DetachItemViaPointer(parts, p));
	cJSON_Delete(parts);
}

/* Chat: a tool message takes text alone, so the images of an output
 * follow the outputs as a user message, each call's under a line that
 * names it (the outputs of one answer stay together before it). */
static void
users_tool_images(struct mc_wire *w, const char *call_id, cJSON *parts)
{
	struct mc_buf b = {0};
	int fresh = w->nusers == 0;
	cJSON *p;

	users_parts(w);
	mc_buf_printf(&b, "[the images of the output of call %s]", call_id);
	mc_json_push(w->uparts, text_part(w, b.data));
	mc_buf_free(&b);
	while ((p = parts->child) != NULL)
		mc_json_push(w->uparts, cJSON_DetachItemViaPointer(parts, p));
	cJSON_Delete(parts);
	w->nusers++;
	if (fresh)
		w->tool_images = 1;
}

static void
end_assistant(struct mc_wire *w)
{
	if (w->assistant == NULL)
		return;
	finish(w, w->assistant);
	w->assistant = NULL;
}

struct mc_wire *
mc_wire_new(const struct mc_provider *p)
{
	struct mc_wire *w;

	if ((w = calloc(1, sizeof *w)) == NULL)
		mc_oom();
	w->p = p;
	w->api = strcmp(p->api, "chat") == 0 ? CHAT : strcmp(p->api, "messages") == 0 ? MESSAGES :
	    RESPONSES;
	w->chat = w->api == CHAT;
	if (asprintf(&w->url, "%s/%s", p->base_url, w->chat ? "chat/completions" :
	    w->api == MESSAGES ? "messages" : "responses") == -1)
		mc_oom();
	return w;
}

void
mc_wire_free(struct mc_wire *w)
{
	if (w == NULL)
		return;
	mc_buf_free(&w->head);
	mc_buf_free(&w->tail);
	mc_buf_free(&w->skeleton);
	mc_buf_free(&w->system);
	mc_buf_free(&w->done);
	mc_buf_free(&w->users);
	cJSON_Delete(w->uparts);
	cJSON_Delete(w->assistant);
	cJSON_Delete(w->msg);
	mc_buf_free(&w->msg_text);
	free(w->spans);
	free(w->url);
	free(w);
}

/* An object's compact text without its closing brace ("{" for {}). */
static void
open_text(struct mc_buf *b, const cJSON *o)
{
	size_t n;
	char *t = mc_json_compact(o, &n);

	mc_buf_add(b, t, n - 1);
	free(t);
}

/* What follows the array: ",MEMBERS}" or "}". */
static void
close_text(struct mc_buf *b, const cJSON *o)
{
	size_t n;
	char *t = mc_json_compact(o, &n);

	if (n > 2) {
		mc_buf_addc(b, ',');
		mc_buf_add(b, t + 1, n - 1);
	} else
		mc_buf_addc(b, '}');
	free(t);
}

static const char *
array_key(const struct mc_wire *w)
{
	return w->api != RESPONSES ? ",\"messages\":[" : ",\"input\":[";
}

void
mc_wire_set(struct mc_wire *w, const struct mc_request *r)
{
	cJSON *head, *tail, *m;
	char *t;
	size_t n;

	w->head.len = w->tail.len = w->skeleton.len = w->system.len = 0;
	mc_request_members(w->p, r, 1, &head, &tail);
	open_text(&w->head, head);
	close_text(&w->tail, tail);
	cJSON_Delete(tail);
	mc_request_members(w->p, r, 0, &m, &tail);
	cJSON_Delete(m);
	mc_buf_add(&w->skeleton, w->head.data, w->head.len);
	mc_buf_adds(&w->skeleton, array_key(w));
	mc_buf_addc(&w->skeleton, ']');
	close_text(&w->skeleton, tail);
	cJSON_Delete(tail);
	cJSON_Delete(head);
	if (w->chat && r->system != NULL && *r->system != '\0') {
		m = mc_json_new_obj();
		mc_json_add_str(m, "role", w->p->system_role);
		mc_json_add_str(m, "content", r->system);
		t = mc_json_compact(m, &n);
		mc_buf_add(&w->system, t, n);
		free(t);
		cJSON_Delete(m);
	}
	w->keyed = 0;	/* from nothing, at the next key */
}

/* A message that held only a refusal: not sent (its text is not the
 * assistant's words, and an empty assistant turn breaks some templates). */
static int
refusal_only(const cJSON *it)
{
	return cJSON_HasObjectItem(it, "refusal") && mc_json_str(it, "content")[0] == '\0';
}

/* Chat: calls join the assistant message they follow (one without text
 * when there is none); an output is a message of role "tool". */
static void
chat_add(struct mc_wire *w, cJSON *it, const char *type)
{
	cJSON *m, *c, *f, *parts;

	if (!(w->tool_images && strcmp(type, "function_call_output") == 0))
		end_users(w);
	if (strcmp(type, "message") == 0) {
		end_assistant(w);
		m = w->assistant = mc_json_new_obj();
		mc_json_add(m, "role", take(it, "role"));
		mc_json_add(m, "content", take(it, "content"));
	} else if (strcmp(type, "function_call") == 0) {
		if (w->assistant == NULL) {
			w->assistant = mc_json_new_obj();
			mc_json_add_str(w->assistant, "role", "assistant");
			mc_json_add(w->assistant, "content", cJSON_CreateNull());
		}
		c = mc_json_push(mc_json_arr_ensure(w->assistant, "tool_calls"), mc_json_new_obj());
		mc_json_add(c, "id", take(it, "call_id"));
		mc_json_add_str(c, "type", "function");
		f = mc_json_add(c, "function", mc_json_new_obj());
		mc_json_add(f, "name", take(it, "name"));
		mc_json_add(f, "arguments", take(it, "arguments"));
	} else {
		end_assistant(w);
		parts = mc_wire_images(w->p, it, "output");
		m = mc_json_new_obj();
		mc_json_add_str(m, "role", "tool");
		mc_json_add(m, "tool_call_id", take(it, "call_id"));
		mc_json_add(m, "content", take(it, "output"));
		if (parts != NULL)
			users_tool_images(w, mc_json_str(m, "tool_call_id"), parts);
		finish(w, m);
	}
}

/* Responses: the neutral items are its input items, but for the members
 * (refusal, status) that are the session's own. 1 when it became an
 * element itself. */
static int
responses_add(struct mc_wire *w, cJSON *it, const char *type)
{
	cJSON *m, *parts;

	end_users(w);
	if (strcmp(type, "message") == 0) {
		m = mc_json_new_obj();
		mc_json_add_str(m, "type", "message");
		mc_json_add(m, "role", take(it, "role"));
		mc_json_add(m, "content", take(it, "content"));
		finish(w, m);
		return 0;
	}
	/* An output's images: its output is then a list, its text first. */
	if (strcmp(type, "function_call_output") == 0 &&
	    (parts = mc_wire_images(w->p, it, "output")) != NULL) {
		m = cJSON_CreateArray();
		mc_json_push(m, text_part(w, mc_json_str(it, "output")));
		while (parts->child != NULL)
			mc_json_push(m, cJSON_DetachItemViaPointer(parts, parts->child));
		cJSON_Delete(parts);
		cJSON_ReplaceItemInObjectCaseSensitive(it, "output", m);
	}
	finish(w, it);
	return 1;
}

/*
 * A Responses reasoning item goes back (store being false, the server
 * keeps nothing) as the element it came as: its summary and its
 * encrypted_content, before the calls it led to; its id is not sent (it
 * names nothing stored). One without encrypted_content, or of another
 * API, is not sent. Takes it; the element, or NULL.
 */
static cJSON *
responses_reasoning(cJSON *it)
{
	const cJSON *d = mc_json_obj(it, "data");
	const char *api = mc_json_str(it, "api"), *text = mc_json_str(it, "text");
	cJSON *r = NULL, *p;

	if (api != NULL && strcmp(api, "responses") == 0 && mc_json_str(d, "encrypted_content")) {
		r = mc_json_new_obj();
		mc_json_add_str(r, "type", "reasoning");
		p = mc_json_add(r, "summary", mc_json_new_arr());
		if (text != NULL && text[0] != '\0') {
			p = mc_json_push(p, mc_json_new_obj());
			mc_json_add_str(p, "type", "summary_text");
			mc_json_add_str(p, "text", text);
		}
		mc_json_add_str(r, "encrypted_content", mc_json_str(d, "encrypted_content"));
	}
	cJSON_Delete(it);
	return r;
}

static void
end_msg(struct mc_wire *w)
{
	if (w->msg == NULL)
		return;
	w->done_user = w->msg_user;
	if (w->msg_fresh) {
		finish_text(w, w->msg_text.data, w->msg_text.len);
		cJSON_Delete(w->msg);
	} else
		finish(w, w->msg);
	w->msg = NULL;
	w->msg_fresh = 0;
}

/* Messages: the item's block joins the open message when it is of that
 * role, else ends it and opens one. */
static void
messages_add(struct mc_wire *w, cJSON *it)
{
	int output = strcmp(mc_json_str(it, "type"), "function_call_output") == 0;
	cJSON *b, *parts = NULL, *c, *p;
	int user;

	if (cJSON_HasObjectItem(it, "images"))
		parts = mc_wire_images(w->p, it, output ? "output" : "content");
	b = mc_wire_messages_block(it, &user);
	cJSON_Delete(it);
	if (parts != NULL)
		user = 1;	/* only a user message or an output has images */
	if (b != NULL && parts != NULL && output) {
		/* A tool_result's images are in its content, after its text. */
		c = cJSON_DetachItemFromObjectCaseSensitive(b, "content");
		if (c != NULL) {
			p = mc_json_new_obj();
			mc_json_add_str(p, "type", "text");
			mc_json_add(p, "text", c);
			cJSON_InsertItemInArray(parts, 0, p);
		}
		mc_json_add(b, "content", parts);
		parts = NULL;
	}
	if (b == NULL && parts == NULL)
		return;
	if (w->msg != NULL && w->msg_user != user)
		end_msg(w);
	if (w->msg == NULL) {
		w->msg = mc_json_new_obj();
		mc_json_add_str(w->msg, "role", user ? "user" : "assistant");
		mc_json_add(w->msg, "content", mc_json_new_arr());
		w->msg_user = user;
	}
	if (b != NULL)
		mc_json_push(mc_json_arr(w->msg, "content"), b);
	while (parts != NULL && (p = parts->child) != NULL)
		mc_json_push(mc_json_arr(w->msg, "content"), cJSON_DetachItemViaPointer(parts, p));
	cJSON_Delete(parts);
	w->msg_fresh = 0;
}

void
mc_wire_add(struct mc_wire *w, cJSON *it)
{
	const char *type = mc_json_str(it, "type");
	cJSON *parts;

	w->items++;
	if (w->api == MESSAGES) {
		messages_add(w, it);
		return;
	}
	if (strcmp(type, "reasoning") == 0) {
		/* Chat takes no reasoning back; Responses its own, encrypted. */
		if (w->chat)
			cJSON_Delete(it);
		else if ((it = responses_reasoning(it)) != NULL) {
			end_users(w);
			finish(w, it);
		}
		return;
	}
	if (strcmp(type, "message") == 0 && strcmp(mc_json_str(it, "role"), "user") == 0) {
		/* Consecutive user messages (a failed turn left one behind)
		 * are sent as one: chat templates that require alternating
		 * roles reject two in a row. */
		end_assistant(w);
		parts = mc_wire_images(w->p, it, "content");	/* first: it may add to the text */
		users_add(w, mc_json_str(it, "content"), parts);
	} else if (strcmp(type, "message") == 0 && refusal_only(it))
		end_assistant(w);
	else if (w->chat)
		chat_add(w, it, type);
	else if (responses_add(w, it, type))
		return;		/* an element now, gone with it */
	cJSON_Delete(it);
}

void
mc_wire_clear(struct mc_wire *w)
{
	w->done.len = 0;
	w->nspans = 0;
	w->items = 0;
	w->users.len = 0;
	w->nusers = 0;
	cJSON_Delete(w->uparts);
	w->uparts = NULL;
	w->tool_images = 0;
	cJSON_Delete(w->assistant);
	w->assistant = NULL;
	cJSON_Delete(w->msg);
	w->msg = NULL;
	w->msg_fresh = 0;
	w->done_user = 0;
	w->keyed = 0;
}

size_t
mc_wire_items(const struct mc_wire *w)
{
	return w->items;
}

/* Whether the body's last user message gets the prompt cache mark. */
static int
marking(const struct mc_wire *w)
{
	return w->api == MESSAGES && w->p->prompt_cache;
}

/* The element still open (a run of user messages, chat's assistant
 * message taking calls, or Messages' open message; never two), as text
 * in b, its span in *s: 1, or 0 when there is none. With mark, an open
 * user message of Messages carries the cache mark. */
static int
open_elem(struct mc_wire *w, struct mc_buf *b, struct span *s, int mark)
{
	cJSON *m = w->nusers > 0 ? users_elem(w) : NULL;
	const cJSON *o = m ? m : w->assistant ? w->assistant : w->msg;
	size_t len;
	char *t;

	if (o == NULL)
		return 0;
	if (o == w->msg) {
		if (!w->msg_fresh) {
			w->msg_text.len = 0;
			t = mc_json_compact(o, &len);
			mc_buf_add(&w->msg_text, t, len);
			free(t);
			w->msg_fresh = 1;
		}
		t = NULL;
		len = w->msg_text.len;
	} else
		t = mc_json_compact(o, &len);
	*s = (struct span){ b->len, len };
	if (o == w->msg) {
		if (mark && w->msg_user && len > MARK_AT) {
			mc_buf_add(b, w->msg_text.data, len - MARK_AT);
			mc_buf_adds(b, cache_mark);
			mc_buf_add(b, w->msg_text.data + len - MARK_AT, MARK_AT);
			s->len = b->len - s->at;
		} else
			mc_buf_add(b, w->msg_text.data, len);
	} else
		mc_buf_add(b, t, len);
	free(t);
	cJSON_Delete(m);
	return 1;
}

static void envelope_open(struct mc_wire *w, int key, struct mc_buf *out);

/*
 * The body, or the envelope around it, as pieces to be written one after
 * another: iov, pointing into w and into s (scratch the caller frees),
 * valid until w changes. Returns how many (at most MC_WIRE_PIECES).
 * Messages' last user message, when it is done (an assistant message is
 * open after it), gets its cache mark as a piece of its own.
 */
size_t
mc_wire_pieces(struct mc_wire *w, int envelope, int key, struct mc_buf s[2], struct iovec *iov)
{
	struct span o;
	size_t n = 0, skip, cut;
	int open;

	s[0].len = s[1].len = 0;
	if (envelope)
		envelope_open(w, key, &s[0]);
	mc_buf_add(&s[0], w->head.data, w->head.len);
	mc_buf_adds(&s[0], array_key(w));
	iov[n++] = (struct iovec){ s[0].data, s[0].len };
	if (w->system.len > 0)
		iov[n++] = (struct iovec){ w->system.data, w->system.len };
	/* The elements done, without the first comma when nothing is before. */
	skip = w->system.len == 0 && w->nspans > 0;
	if (w->nspans > 0 && marking(w) && w->done_user && !(w->msg && w->msg_user) &&
	    w->spans[w->nspans - 1].len > MARK_AT) {
		cut = w->spans[w->nspans - 1].at + w->spans[w->nspans - 1].len - MARK_AT;
		iov[n++] = (struct iovec){ w->done.data + skip, cut - skip };
		iov[n++] = (struct iovec){ (void *)cache_mark, sizeof cache_mark - 1 };
		iov[n++] = (struct iovec){ w->done.data + cut, w->done.len - cut };
	} else if (w->nspans > 0)
		iov[n++] = (struct iovec){ w->done.data + skip, w->done.len - skip };
	if (w->system.len > 0 || w->nspans > 0)
		mc_buf_addc(&s[1], ',');
	if ((open = open_elem(w, &s[1], &o, marking(w))) == 0)
		s[1].len = 0;
	mc_buf_addc(&s[1], ']');
	mc_buf_add(&s[1], w->tail.data, w->tail.len);
	if (envelope)
		mc_buf_addc(&s[1], '}');
	iov[n++] = (struct iovec){ s[1].data, s[1].len };
	return n;
}

/* The pieces one after another, appended to out. */
static void
join(struct mc_wire *w, int envelope, int key, struct mc_buf *out)
{
	struct iovec iov[MC_WIRE_PIECES];
	struct mc_buf s[2] = {{0}};
	size_t n, i, len = 0;

	n = mc_wire_pieces(w, envelope, key, s, iov);
	for (i = 0; i < n; i++)
		len += iov[i].iov_len;
	mc_buf_grow(out, len);
	for (i = 0; i < n; i++)
		mc_buf_add(out, iov[i].iov_base, iov[i].iov_len);
	mc_buf_free(&s[0]);
	mc_buf_free(&s[1]);
}

void
mc_wire_body(struct mc_wire *w, struct mc_buf *out)
{
	join(w, 0, 0, out);
}

void
mc_wire_key(struct mc_wire *w, char hex[65])
{
	SHA2_CTX ctx;
	struct mc_buf o = {0};
	struct span s;

	rekey(w);
	ctx = w->ctx;
	if (open_elem(w, &o, &s, 0))
		field(&ctx, o.data, s.len);
	SHA256End(&ctx, hex);
	mc_buf_free(&o);
}

/* The envelope up to its body's first byte. */
static void
envelope_open(struct mc_wire *w, int key, struct mc_buf *out)
{
	cJSON *e = mc_provider_envelope(w->p, w->url);
	char hex[65];

	if (key) {
		mc_wire_key(w, hex);
		mc_json_add_str(e, "cache_key", hex);
	}
	open_text(out, e);
	cJSON_Delete(e);
	mc_buf_adds(out, ",\"body\":");
}

void
mc_wire_envelope(struct mc_wire *w, int key, struct mc_buf *out)
{
	join(w, 1, key, out);
}
