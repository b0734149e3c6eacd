/* sse.h: server-sent events and the answer dialects (chat, responses, messages), decoded into normalized events. */
#ifndef MC_SSE_H
#define MC_SSE_H

#include <stddef.h>

#include "buf.h"

#define MC_SSE_MAX (64u << 20)	/* largest single event, or non-streamed answer */
#define MC_ANSWER_MAX (64u << 20)	/* an answer's text, refusal and calls together */

enum mc_api { MC_API_CHAT, MC_API_RESPONSES, MC_API_MESSAGES };

/*
 * The SSE framing alone: bytes in, (event name, data) out. CR, LF and
 * CRLF end lines (a CRLF may be split across feeds), ':' lines are
 * comments, data lines are joined with '\n', a leading BOM is skipped.
 * The legacy "error:" field of older llama.cpp servers is reported as an
 * event named "error" carrying the field's value as data.
 */
typedef int (*mc_sse_fn)(const char *event, const char *data, size_t len, void *arg);

struct mc_sse {
	struct mc_buf line, event, data;
	int has_data;
	int cr;			/* the last byte was CR */
	int first;		/* the first line is still being read (BOM) */
	size_t max;
	size_t progress;	/* bytes of lines that are not comments (keep-alives
				 * are ':' lines or empty ones), as they arrive */
};

void mc_sse_init(struct mc_sse *x);
/* Returns 0, -1 when the callback returned non-zero (its value is kept in
 * *rc), or -2 when a line or event is over x->max bytes. */
int mc_sse_feed(struct mc_sse *x, const char *p, size_t n, mc_sse_fn fn, void *arg, int *rc);
/* At end of input: an unterminated last line and event are dispatched. */
int mc_sse_finish(struct mc_sse *x, mc_sse_fn fn, void *arg, int *rc);
void mc_sse_free(struct mc_sse *x);

enum mc_event_type {
	MC_EVENT_TEXT,		/* text, len: a piece of the answer */
	MC_EVENT_REFUSAL,	/* text, len: a piece of a refusal (kept apart from text) */
	MC_EVENT_TOOL_CALL,	/* call_id, name, arguments: one whole call */
	MC_EVENT_USAGE,		/* input_tokens, output_tokens, cached_tokens,
				 * cache_write_tokens (-1: not counted) */
	MC_EVENT_DONE,		/* finish_reason */
	MC_EVENT_ERROR,		/* message, code (or NULL), status (or 0), local */
	MC_EVENT_REASONING,	/* text, len, api, data: one whole block of the
				 * model's reasoning, to be kept and sent back */
	MC_EVENT_REASONING_DELTA,	/* text, len: a piece of the model's reasoning,
				 * as it streams (never the answer's text) */
};

struct mc_event {
	enum mc_event_type type;
	const char *text;
	size_t len;
	const char *call_id, *name, *arguments;
	/* input_tokens counts the cached and written ones too */
	long long input_tokens, output_tokens, cached_tokens, cache_write_tokens;
	/* reasoning: the API it is for and its data, a JSON object's text
	 * (a thinking block's signature), or NULL */
	const char *api, *data;
	/* "stop", "tool_calls", "length" (cut by the output limit), "refusal",
	 * or the provider's own word */
	const char *finish_reason;
	/* code: the provider's error code, or its error type when it gave no
	 * code ("context_length_exceeded", "exceed_context_size_error") */
	const char *message, *code;
	int status;
	int local;	/* the error was found here (a cut, bad data), not sent */
};

/* Return 0 to go on; anything else stops the stream (mc_stream_feed
 * returns -1). */
typedef int (*mc_event_fn)(const struct mc_event *ev, void *arg);

struct mc_stream;

/*
 * A decoder for one answer of the given API. It takes the body as it
 * arrives: an SSE stream, or (when its first byte is '{') one JSON
 * document. Events come out in this order: text, refusal, reasoning
 * pieces (Chat reasoning_content or reasoning, Responses summary and
 * reasoning text deltas, Messages thinking_delta) as they come, whole
 * reasoning blocks and tool_call as they complete (Responses calls in response.output order,
 * chat calls in index order, Messages blocks as each ends), then usage (when the provider sent it), then done; or
 * an error at any point, after which nothing more is reported. A call
 * without an id gets "call_" and 24 hex digits derived from the answer
 * (mc_item_call_id: the same answer, the same ids). A UTF-16 surrogate
 * pair split across two deltas is joined; an unpaired half is U+FFFD. The
 * text, refusal and calls (names, ids, arguments, and each call's record)
 * of one answer are capped together at MC_ANSWER_MAX bytes (an error past
 * it).
 */
struct mc_stream *mc_stream_new(enum mc_api api, mc_event_fn fn, void *arg);
/* Returns 0 to go on, 1 once the answer has ended (done or error
 * reported; later bytes are ignored), -1 when the callback stopped it. */
int mc_stream_feed(struct mc_stream *s, const char *p, size_t n);
/* At end of the body: reports the end, or the error of an answer cut
 * short. Returns as mc_stream_feed. */
int mc_stream_end(struct mc_stream *s);
/* How much of the body fed so far is progress: in a stream, the bytes of
 * lines that are not comments or empty (keep-alives); else every byte.
 * A change of it is progress. */
size_t mc_stream_progress(const struct mc_stream *s);
void mc_stream_free(struct mc_stream *s);
/* Tests and fuzzing: non-zero decodes every chat chunk with cJSON, never
 * with the fast path of chunk.h, so that the two can be compared. */
extern int mc_stream_nofast;

/*
 * The provider's own message in an error body: {"error":{"message",
 * "code"}}, {"error":"text"}, {"message"}, {"detail"}, a legacy
 * {"content"}, an SSE "data:" line holding one of those, or plain text
 * (its first line). code gets a string code, else the error's "type"
 * ("" when neither), *status an HTTP-like integer code (0 when none).
 * Returns 0, or -1 when the body held no message (msg is then "").
 */
int mc_error_parse(const char *body, size_t len, char *msg, size_t msgsz,
    char *code, size_t codesz, int *status);

#endif
