/* sse-int.h: the answer decoder's state, shared by lib/sse-*.c only (the public API is sse.h). */
#ifndef MC_SSE_INT_H
#define MC_SSE_INT_H

#include <stddef.h>

#include <cJSON.h>

#include "buf.h"
#include "sse.h"

/* One tool call being assembled from its pieces. */
struct call {
	char *key;		/* lookup key: the item id (responses), "#index" (chat) */
	int index;		/* chat: the fragment index; responses: output_index; -1: none */
	size_t seq;		/* creation order */
	char *call_id;
	struct mc_buf name;	/* chat may stream it in pieces */
	struct mc_buf args;
	unsigned hi;		/* a surrogate half the last argument piece ended with */
	int closed;		/* responses: its output_item.done came */
	int emitted;
};

/* An open-addressing index of calls (slot = call number + 1; 0 is free),
 * so that an answer of many calls is decoded in linear time. */
struct calltab {
	size_t *slot;
	size_t size;		/* a power of two, at least twice the entries */
	size_t used;
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
	size_t nrefusal;	/* refusal events reported */
	size_t nevents;		/* SSE events seen */
	size_t fed;		/* bytes fed */
	size_t total;		/* bytes of text, refusal and calls (MC_ANSWER_MAX) */
	char head[81];		/* the body's first bytes, for a message */
	size_t headlen;
	struct call *calls;
	size_t ncalls, ncap, nemitted;
	size_t ndropped;	/* calls without a name: not reported (a warning) */
	struct calltab bykey, bycallid;
	size_t next_emit;	/* responses: calls before this one are out */
	int unordered;		/* responses: a call came with a lower output_index */
	char *finish;		/* chat: the provider's finish_reason */
	int have_usage;
	long long in, out, cached;
	unsigned hi_text, hi_refusal, hi_thought;	/* a surrogate half the last delta ended with */
	int marks;		/* the event being read holds surrogate markers */
	struct mc_buf delta;	/* the fast path's text */
	struct mc_buf fixed;	/* text repaired to valid UTF-8, or joined */
	struct mc_buf escaped;	/* an event with its \u0000 and lone surrogate escapes fixed */
	long long cache_write;	/* -1: the provider does not count it */
	struct mc_messages *msg;	/* the Messages dialect's state (sse-messages.c) */
	struct mc_buf thought;	/* chat: the reasoning so far, for its whole block */
	size_t nthought;	/* whole reasoning blocks reported */
};

/* sse-stream.c: what the dialects share */
int mc_ans_room(struct mc_stream *s, size_t n);
void mc_ans_emit(struct mc_stream *s, struct mc_event *ev);
void mc_ans_text(struct mc_stream *s, const char *t, int refusal);
/* The piece t, *n joined with the surrogate half *hi the last piece of
 * its kind ended with; *hi becomes the half this one ends with, or 0.
 * hi NULL: the piece is whole, a lone half at either end is U+FFFD.
 * Returns t, or the joined text (in s->fixed, *n its length). */
const char *mc_ans_join16(struct mc_stream *s, const char *t, size_t *n, unsigned *hi);
void mc_ans_content(struct mc_stream *s, const cJSON *c);
void mc_ans_fail(struct mc_stream *s, const char *msg, const char *code, int status, int local);
void mc_ans_fail_json(struct mc_stream *s, const cJSON *v);
int mc_ans_has_error(const cJSON *doc);
struct call *mc_ans_call_new(struct mc_stream *s, const char *key, int index);
struct call *mc_ans_call_find(struct mc_stream *s, const char *key);
struct call *mc_ans_call_by_id(struct mc_stream *s, const char *call_id);
void mc_ans_call_set_id(struct mc_stream *s, struct call *c, const char *call_id);
void mc_ans_set_str(char **dst, const char *v);
void mc_ans_call_name(struct mc_stream *s, struct call *c, const char *name, int piece);
void mc_ans_args_add(struct mc_stream *s, struct call *c, const char *piece);
void mc_ans_args_set(struct mc_stream *s, struct call *c, const cJSON *a);
void mc_ans_call_emit(struct mc_stream *s, struct call *c);
void mc_ans_calls_flush(struct mc_stream *s);
void mc_ans_usage(struct mc_stream *s, const cJSON *u);
void mc_ans_finish(struct mc_stream *s, const char *reason);

/* sse-reasoning.c */
/* A piece of reasoning (t NUL-terminated; NULL or "" is nothing), joined
 * with a surrogate half the last piece ended with and repaired to valid
 * UTF-8; also added to keep (the whole block's text) unless NULL. */
void mc_ans_thought(struct mc_stream *s, const char *t, struct mc_buf *keep);
/* The reasoning's pieces have ended: a half the last one ended with is
 * U+FFFD, a piece of its own (added to keep unless NULL). */
void mc_ans_thought_end(struct mc_stream *s, struct mc_buf *keep);
/* One whole reasoning block: text, len of it, for api, data (or NULL). */
void mc_ans_thought_block(struct mc_stream *s, const char *text, size_t len, const char *api,
    const cJSON *data);

/* sse-chat.c */
void mc_ans_chat_doc(struct mc_stream *s, const cJSON *doc, int whole);

/* sse-responses.c */
void mc_ans_responses_event(struct mc_stream *s, const char *name, const cJSON *doc);
void mc_ans_responses_end(struct mc_stream *s, const cJSON *resp, const char *status);

/* sse-messages.c */
void mc_ans_messages_event(struct mc_stream *s, const char *name, const cJSON *doc);
void mc_ans_messages_doc(struct mc_stream *s, const cJSON *doc);
void mc_ans_messages_free(struct mc_stream *s);

/* sse-error.c */
int mc_ans_error_json(const cJSON *v, char *msg, size_t msgsz, char *code, size_t codesz,
    int *status);

#endif
