/* fuzz/sse.c: libFuzzer target for the SSE parser and both answer dialects. */
#include <stdint.h>
#include <string.h>

#include "sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	size_t events;
	int done;
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
	return 0;
}

/* The first byte picks the dialect and the split point; the rest is the
 * body, fed in two pieces so that events cross feeds. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tally t = {0};
	struct mc_stream *s;
	size_t cut;
	char msg[256], code[64];
	int status;

	if (size < 1)
		return 0;
	s = mc_stream_new(data[0] & 1 ? MC_API_RESPONSES : MC_API_CHAT, count, &t);
	if (s == NULL)
		return 0;
	data++;
	size--;
	cut = size ? (data[-1] >> 1) % (size + 1) : 0;
	if (mc_stream_feed(s, (const char *)data, cut) == 0)
		if (mc_stream_feed(s, (const char *)data + cut, size - cut) == 0)
			mc_stream_end(s);
	mc_stream_free(s);
	mc_error_parse((const char *)data, size, msg, sizeof msg, code, sizeof code, &status);
	return 0;
}
