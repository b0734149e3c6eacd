/* fuzz/sse.c: libFuzzer target for the SSE parser and the answer dialects; the chat fast path must agree with cJSON. */
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "chunk.h"
#include "json.h"
#include "sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	size_t events;
	int done;
	struct mc_buf log;	/* every event, to compare the two decodings */
};

static int
count(const struct mc_event *ev, void *arg)
{
	struct tally *t = arg;

	/* Nothing may follow done or error. */
	if (t->done)
		__builtin_trap();
	if (ev->type == MC_EVENT_DONE || ev->type == MC_EVENT_ERROR)
		t->done = 1;
	if (ev->type == MC_EVENT_TEXT && ev->len && ev->text == NULL)
		__builtin_trap();
	t->events++;
	mc_buf_printf(&t->log, "%d|", (int)ev->type);
	if (ev->type == MC_EVENT_TEXT)
		mc_buf_add(&t->log, ev->text, ev->len);
	else
		mc_buf_printf(&t->log, "%s|%s|%s|%lld|%lld|%s|%s|%s|%d|%d", ev->call_id ? ev->call_id : "",
		    ev->name ? ev->name : "", ev->arguments ? ev->arguments : "",
		    ev->input_tokens, ev->output_tokens, ev->finish_reason ? ev->finish_reason : "",
		    ev->message ? ev->message : "", ev->code ? ev->code : "", ev->status, ev->local);
	mc_buf_addc(&t->log, '\n');
	return 0;
}

static void
decode(const uint8_t *data, size_t size, int nofast, int messages, struct tally *t)
{
	struct mc_stream *s;
	size_t cut;

	mc_stream_nofast = nofast;
	s = mc_stream_new(messages ? MC_API_MESSAGES : data[0] & 1 ? MC_API_RESPONSES : MC_API_CHAT,
	    count, t);
	data++;
	size--;
	cut = size ? (data[-1] >> 1) % (size + 1) : 0;
	if (mc_stream_feed(s, (const char *)data, cut) == 0)
		if (mc_stream_feed(s, (const char *)data + cut, size - cut) == 0)
			mc_stream_end(s);
	mc_stream_free(s);
	mc_stream_nofast = 0;
}

/* The first byte picks the dialect and the split point; the rest is the
 * body, fed in two pieces so that events cross feeds. It is decoded with
 * and without the fast path: the events must be the same; and as a
 * Messages answer too (the corpus's meaning of the first byte kept). */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tally fast = {0}, slow = {0}, msgs = {0};
	struct mc_buf text = {0};
	char msg[256], code[64];
	cJSON *doc;
	int status;

	if (size < 1)
		return 0;
	decode(data, size, 0, 0, &fast);
	decode(data, size, 1, 0, &slow);
	decode(data, size, 0, 1, &msgs);
	mc_buf_free(&msgs.log);
	if (fast.events != slow.events || fast.log.len != slow.log.len ||
	    (fast.log.len && memcmp(fast.log.data, slow.log.data, fast.log.len) != 0))
		__builtin_trap();
	mc_buf_free(&fast.log);
	mc_buf_free(&slow.log);
	data++;
	size--;
	/* The whole body as one chunk: what the fast path takes, cJSON takes. */
	if (mc_chunk_text((const char *)data, size, &text) == 1) {
		if ((doc = mc_json_parse((const char *)data, size, msg, sizeof msg)) == NULL)
			__builtin_trap();
		cJSON_Delete(doc);
	}
	mc_buf_free(&text);
	mc_error_parse((const char *)data, size, msg, sizeof msg, code, sizeof code, &status);
	return 0;
}
