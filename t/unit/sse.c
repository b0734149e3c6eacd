/* t/unit/sse.c: the SSE decoder gives the same events however the bytes are split. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "fsread.h"
#include "sse.h"

static int failures;

#define FAIL(...) do { printf("sse: " __VA_ARGS__); putchar('\n'); failures++; } while (0)

struct log {
	struct mc_buf all;	/* one line per event */
	struct mc_buf text;	/* the text joined */
};

static int
record(const struct mc_event *ev, void *arg)
{
	struct log *l = arg;

	switch (ev->type) {
	case MC_EVENT_TEXT:
		mc_buf_adds(&l->all, "text:");
		mc_buf_add(&l->all, ev->text, ev->len);
		mc_buf_add(&l->text, ev->text, ev->len);
		break;
	case MC_EVENT_REFUSAL:
		mc_buf_adds(&l->all, "refusal:");
		mc_buf_add(&l->all, ev->text, ev->len);
		break;
	case MC_EVENT_TOOL_CALL:
		mc_buf_printf(&l->all, "call:%s %s %s", ev->call_id, ev->name, ev->arguments);
		break;
	case MC_EVENT_USAGE:
		mc_buf_printf(&l->all, "usage:%lld %lld", ev->input_tokens, ev->output_tokens);
		if (ev->cached_tokens)
			mc_buf_printf(&l->all, " cached %lld", ev->cached_tokens);
		if (ev->cache_write_tokens >= 0)
			mc_buf_printf(&l->all, " written %lld", ev->cache_write_tokens);
		break;
	case MC_EVENT_REASONING:
		mc_buf_printf(&l->all, "reasoning:%s %.*s %s", ev->api, (int)ev->len, ev->text,
		    ev->data);
		break;
	case MC_EVENT_REASONING_DELTA:
		mc_buf_printf(&l->all, "think:%.*s", (int)ev->len, ev->text);
		break;
	case MC_EVENT_DONE:
		mc_buf_printf(&l->all, "done:%s", ev->finish_reason);
		break;
	case MC_EVENT_ERROR:
		mc_buf_printf(&l->all, "error:%d %s %s", ev->status, ev->code ? ev->code : "-",
		    ev->message);
		break;
	}
	mc_buf_addc(&l->all, '|');
	return 0;
}

/* Decode p[0..n) fed in pieces cut at the offsets in cuts (ascending). */
static char *
decode(enum mc_api api, const char *p, size_t n, const size_t *cuts, size_t ncuts, char **text)
{
	struct log l = {0};
	struct mc_stream *s = mc_stream_new(api, record, &l);
	size_t i, at = 0;

	for (i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : n;

		mc_stream_feed(s, p + at, to - at);
		at = to;
	}
	mc_stream_end(s);
	mc_stream_free(s);
	mc_buf_addc(&l.all, '\0');
	mc_buf_addc(&l.text, '\0');
	if (text)
		*text = mc_buf_steal(&l.text);
	else
		mc_buf_free(&l.text);
	return mc_buf_steal(&l.all);
}

/* Every split into two pieces (or, unless every, a sample of them), and
 * one byte at a time, gives `want`. */
static void
splits(const char *what, enum mc_api api, const char *p, size_t n, const char *want, int every)
{
	size_t k, *cuts;
	char *got;

	for (k = 0; k <= n; k += every ? 1 : 1 + n / 50) {
		got = decode(api, p, n, &k, 1, NULL);
		if (strcmp(got, want) != 0) {
			FAIL("%s: split at byte %zu gives\n  %s\nnot\n  %s", what, k, got, want);
			free(got);
			return;
		}
		free(got);
	}
	if ((cuts = calloc(n + 1, sizeof *cuts)) == NULL)
		abort();
	for (k = 0; k < n; k++)
		cuts[k] = k;
	got = decode(api, p, n, cuts, n, NULL);
	if (strcmp(got, want) != 0)
		FAIL("%s: one byte at a time gives\n  %s\nnot\n  %s", what, got, want);
	free(got);
	free(cuts);
}

/* The same bytes with each LF turned into `nl`. */
static char *
renewline(const char *p, size_t n, const char *nl, size_t *outn)
{
	struct mc_buf b = {0};
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] == '\n')
			mc_buf_adds(&b, nl);
		else
			mc_buf_addc(&b, p[i]);
	mc_buf_addc(&b, '\0');
	*outn = b.len - 1;
	return mc_buf_steal(&b);
}

static void
contains(const char *what, const char *log, const char *needle)
{
	if (strstr(log, needle) == NULL)
		FAIL("%s: no %s in\n  %s", what, needle, log);
}

static void
fixture(const char *name, enum mc_api api, const char *text, const char *const *need)
{
	char path[256], *want, *got, *p;
	struct mc_read r;
	size_t n;

	snprintf(path, sizeof path, "t/fixtures/api/%s", name);
	mc_file_read(path, 1 << 20, MC_LINK_REFUSE, NULL, 1, &r);
	if (r.status != MC_READ_OK) {
		FAIL("%s: cannot read", path);
		return;
	}
	want = decode(api, r.data, r.len, NULL, 0, &got);
	if (strcmp(got, text) != 0)
		FAIL("%s: text is\n  %s\nnot\n  %s", name, got, text);
	free(got);
	for (; *need; need++)
		contains(name, want, *need);
	if (strstr(want, "error:") != NULL)
		FAIL("%s: an error: %s", name, want);
	splits(name, api, r.data, r.len, want, 1);
	p = renewline(r.data, r.len, "\r\n", &n);
	splits(name, api, p, n, want, 0);
	free(p);
	p = renewline(r.data, r.len, "\r", &n);
	splits(name, api, p, n, want, 0);
	free(p);
	free(want);
	free(r.data);
}

struct tcase {
	const char *what;
	enum mc_api api;
	const char *in;
	const char *want;
};

static const struct tcase cases[] = {
	{ "messages stop_reason end_turn", MC_API_MESSAGES,
	  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"t\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	  "text:t|usage:10 5 written 0|done:stop|" },
	{ "messages stop_reason stop_sequence", MC_API_MESSAGES,
	  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"t\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"stop_sequence\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	  "text:t|usage:10 5 written 0|done:stop|" },
	{ "messages stop_reason max_tokens", MC_API_MESSAGES,
	  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"t\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	  "text:t|usage:10 5 written 0|done:length|" },
	{ "messages stop_reason refusal", MC_API_MESSAGES,
	  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"t\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"refusal\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	  "text:t|usage:10 5 written 0|done:refusal|" },
	{ "messages stop_reason pause_turn", MC_API_MESSAGES,
	  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"t\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"pause_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	  "text:t|usage:10 5 written 0|done:pause_turn|" },
	{ "messages stop_reason model_context_window_exceeded", MC_API_MESSAGES,
	  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"t\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"model_context_window_exceeded\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	  "text:t|usage:10 5 written 0|done:length|" },
	{ "messages tool_use", MC_API_MESSAGES,
	  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"f\",\"input\":{}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\": 1}\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	  "call:toolu_1 f {\"a\": 1}|usage:10 5 written 0|done:tool_calls|" },
	{ "messages usage: message_delta's counts win, cache ones added to input", MC_API_MESSAGES,
	  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1,\"cache_read_input_tokens\":100,\"cache_creation_input_tokens\":7}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"t\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":9,\"input_tokens\":12,\"cache_read_input_tokens\":200}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	  "text:t|usage:219 9 cached 200 written 7|done:stop|" },
	{ "messages ping, and unknown event and delta types, ignored", MC_API_MESSAGES,
	  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\nevent: ping\ndata: {\"type\":\"ping\"}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"citations_delta\",\"citation\":{}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: future_event\ndata: {\"type\":\"future_event\",\"x\":1}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\",\"name\":\"web_search\",\"input\":{}}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	  "text:a|usage:10 5 written 0|done:stop|" },
	{ "messages error event mid-stream", MC_API_MESSAGES,
	  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"part\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"more\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
	  "text:part|error:0 overloaded_error Overloaded|" },
	{ "messages: no message_stop is a cut", MC_API_MESSAGES,
	  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"t\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\n",
	  "text:t|error:0 - the stream ended before message_stop|" },
	{ "messages tool input not JSON when joined", MC_API_MESSAGES,
	  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"t\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"f\",\"input\":{}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
	  "text:t|error:0 - the input of tool call f is not valid JSON: invalid JSON at line 1, column 5|" },
	{ "messages blocks without their stop end at message_stop", MC_API_MESSAGES,
	  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"S\"}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"g\",\"input\":{}}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	  "think:hm|reasoning:messages hm {\"type\":\"thinking\",\"signature\":\"S\"}|call:toolu_2 g {}|usage:10 5 written 0|done:tool_calls|" },
	{ "messages non-streamed answer", MC_API_MESSAGES,
	  "{\"id\": \"msg_1\", \"type\": \"message\", \"role\": \"assistant\", \"content\": [{\"type\": \"thinking\", \"thinking\": \"why\", \"signature\": \"S1\"}, {\"type\": \"redacted_thinking\", \"data\": \"R\"}, {\"type\": \"text\", \"text\": \"hey\"}, {\"type\": \"tool_use\", \"id\": \"toolu_3\", \"name\": \"f\", \"input\": {\"a\": 2}}], \"stop_reason\": \"tool_use\", \"usage\": {\"input_tokens\": 7, \"output_tokens\": 8, \"cache_read_input_tokens\": 3, \"cache_creation_input_tokens\": 0}}",
	  "reasoning:messages why {\"type\":\"thinking\",\"signature\":\"S1\"}|reasoning:messages  {\"type\":\"redacted_thinking\",\"data\":\"R\"}|text:hey|call:toolu_3 f {\"a\":2}|usage:10 8 cached 3 written 0|done:tool_calls|" },
	{ "messages error body with status 200", MC_API_MESSAGES,
	  "{\"type\": \"error\", \"error\": {\"type\": \"invalid_request_error\", \"message\": \"prompt is too long: 208163 tokens > 200000 maximum\"}}",
	  "error:0 invalid_request_error prompt is too long: 208163 tokens > 200000 maximum|" },
	{ "comments and a multi-line data field", MC_API_CHAT,
	  ": keep-alive\n\n:another\ndata: {\"choices\":[{\"index\":0,\ndata: \"delta\":{\"content\":\"hi\"}}]}\n\n"
	  ": OPENROUTER PROCESSING\n\ndata: [DONE]\n\n",
	  "text:hi|done:stop|" },
	{ "field without a space, id and retry lines", MC_API_CHAT,
	  "retry: 100\nid: 7\ndata:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a b\"}}]}\n\ndata:[DONE]\n\n",
	  "text:a b|done:stop|" },
	{ "BOM and CRLF", MC_API_CHAT,
	  "\xef\xbb\xbf" "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\r\n\r\ndata: [DONE]\r\n\r\n",
	  "text:x|done:stop|" },
	{ "reasoning never in the text", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"think\",\"content\":null}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"more\",\"content\":\"\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n"
	  "data: [DONE]\n\n",
	  "think:think|think:more|text:ok|reasoning:chat thinkmore (null)|done:stop|" },
	{ "parallel calls in interleaved fragments", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"c2\",\"type\":\"function\",\"function\":{\"name\":\"b\",\"arguments\":\"\"}}]}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"a\",\"arguments\":\"{\\\"x\"}}]}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"{}\"}}]}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\":1}\"}}]}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
	  "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":6}}\n\n"
	  "data: [DONE]\n\n",
	  "call:c1 a {\"x\":1}|call:c2 b {}|usage:5 6|done:tool_calls|" },
	{ "a call in one chunk without index", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":{\"a\":1}}}]},\"finish_reason\":\"stop\"}]}\n\n"
	  "data: [DONE]\n\n",
	  "call:c1 f {\"a\":1}|done:tool_calls|" },
	{ "length", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t\"},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n",
	  "text:t|done:length|" },
	{ "provider's own finish reason", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"eos\"}]}\n\ndata: [DONE]\n\n",
	  "done:eos|" },
	{ "[DONE] without the last blank line", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t\"}}]}\n\ndata: [DONE]",
	  "text:t|done:stop|" },
	{ "no [DONE]: a cut", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t\"}}]}\n\n",
	  "text:t|error:0 - the stream ended before [DONE]|" },
	{ "cut inside an event", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t\"}}]}\n\ndata: {\"choi",
	  "text:t|error:0 - the stream ended before [DONE]|" },
	{ "empty body", MC_API_CHAT, "", "error:0 - empty answer|" },
	{ "white space only", MC_API_CHAT, " \r\n\n", "error:0 - empty answer|" },
	{ "an HTML page", MC_API_CHAT, "<html>\n<body>Login</body></html>\n",
	  "error:0 - the answer is neither JSON nor an event stream: <html>|" },
	{ "OpenAI error object in a 200 stream", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
	  "data: {\"error\":{\"message\":\"boom\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]}\n\n",
	  "text:a|error:0 server_error boom|" },
	{ "OpenRouter error chunk", MC_API_CHAT,
	  "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"provider\":\"p\",\"error\":{\"code\":502,\"message\":\"Provider disconnected\"},"
	  "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":\"error\"}]}\n\n",
	  "error:502 - Provider disconnected|" },
	{ "legacy error: field", MC_API_CHAT,
	  "error: {\"code\":500,\"message\":\"slot unavailable\",\"type\":\"server_error\"}\n\n",
	  "error:500 server_error slot unavailable|" },
	{ "legacy error: field with content", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\nerror: {\"content\":\"context full\"}\n\n",
	  "text:a|error:0 - context full|" },
	{ "legacy error: field, plain text", MC_API_CHAT,
	  "error: it broke\n\n", "error:0 - it broke|" },
	{ "event: error with a chat answer", MC_API_CHAT,
	  "event: error\ndata: {\"error\":{\"message\":\"m\",\"code\":\"c\"}}\n\n", "error:0 c m|" },
	{ "non-streamed chat answer", MC_API_CHAT,
	  "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"hello\",\"reasoning_content\":\"hmm\","
	  "\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},"
	  "\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}\n",
	  "text:hello|reasoning:chat hmm (null)|call:c1 f {}|usage:3 4|done:tool_calls|" },
	{ "non-streamed chat reasoning with lone halves at its ends", MC_API_CHAT,
	  "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"hi\",\"reasoning_content\":\"\\ude00a\\ud83d\"},"
	  "\"finish_reason\":\"stop\"}]}\n",
	  "text:hi|reasoning:chat \xef\xbf\xbd" "a\xef\xbf\xbd (null)|done:stop|" },
	{ "JSON error body with status 200", MC_API_CHAT,
	  "  {\"error\":{\"message\":\"nope\",\"code\":\"bad\"}}", "error:0 bad nope|" },
	{ "bad JSON answer", MC_API_CHAT, "{\"choices\":", "error:0 - bad answer: invalid JSON at line 1, column 11|" },
	{ "bad event", MC_API_CHAT, "data: {x}\n\ndata: [DONE]\n\n",
	  "error:0 - bad event in the stream: invalid JSON at line 1, column 3|" },
	{ "responses without event: lines", MC_API_RESPONSES,
	  "data: {\"type\":\"response.output_text.delta\",\"delta\":\"hi\"}\n\n"
	  "data: {\"type\":\"response.reasoning_summary_text.delta\",\"delta\":\"secret\"}\n\n"
	  "data: {\"type\":\"response.reasoning_text.delta\",\"delta\":\"secret\"}\n\n"
	  "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":2}}}\n\n",
	  "text:hi|think:secret|think:secret|usage:1 2|done:stop|" },
	{ "responses error event", MC_API_RESPONSES,
	  "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"a\"}\n\n"
	  "event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"slow down\",\"param\":null}\n\n",
	  "text:a|error:0 rate_limit_exceeded slow down|" },
	{ "responses error event, nested", MC_API_RESPONSES,
	  "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"code\":\"x\",\"message\":\"bad\"}}\n\n",
	  "error:0 x bad|" },
	{ "response.failed", MC_API_RESPONSES,
	  "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"oops\"}}}\n\n",
	  "error:0 server_error oops|" },
	{ "response.incomplete", MC_API_RESPONSES,
	  "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"a\"}\n\n"
	  "event: response.incomplete\ndata: {\"type\":\"response.incomplete\",\"response\":{\"status\":\"incomplete\","
	  "\"incomplete_details\":{\"reason\":\"max_output_tokens\"},\"output\":[]}}\n\n",
	  "text:a|done:length|" },
	{ "responses cut", MC_API_RESPONSES,
	  "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"a\"}\n\n",
	  "text:a|error:0 - the stream ended before response.completed|" },
	{ "responses call only in response.completed", MC_API_RESPONSES,
	  "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":["
	  "{\"type\":\"message\",\"content\":[{\"type\":\"output_text\",\"text\":\"t\"}]},"
	  "{\"type\":\"function_call\",\"id\":\"fc\",\"call_id\":\"c9\",\"name\":\"g\",\"arguments\":\"{}\"}]}}\n\n",
	  "text:t|call:c9 g {}|done:tool_calls|" },
	{ "non-streamed responses answer", MC_API_RESPONSES,
	  "{\"object\":\"response\",\"status\":\"completed\",\"output\":[{\"type\":\"reasoning\",\"summary\":[]},"
	  "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"hey\"}]},"
	  "{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"f\",\"arguments\":\"{\\\"a\\\":2}\"}],"
	  "\"usage\":{\"input_tokens\":7,\"output_tokens\":8}}",
	  "text:hey|call:c1 f {\"a\":2}|usage:7 8|done:tool_calls|" },
	{ "chat refusal kept apart from text", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"refusal\":\"\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"I can't \"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"help.\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
	  "refusal:I can't |refusal:help.|done:refusal|" },
	{ "non-streamed chat refusal", MC_API_CHAT,
	  "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,\"refusal\":\"No.\"},"
	  "\"finish_reason\":\"stop\"}]}",
	  "refusal:No.|done:refusal|" },
	{ "responses refusal", MC_API_RESPONSES,
	  "event: response.refusal.delta\ndata: {\"type\":\"response.refusal.delta\",\"delta\":\"Sorry\"}\n\n"
	  "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\","
	  "\"output\":[{\"type\":\"message\",\"content\":[{\"type\":\"refusal\",\"refusal\":\"Sorry\"}]}]}}\n\n",
	  "refusal:Sorry|done:refusal|" },
	{ "non-streamed responses refusal", MC_API_RESPONSES,
	  "{\"status\":\"completed\",\"output\":[{\"type\":\"message\",\"content\":[{\"type\":\"refusal\",\"refusal\":\"No.\"}]}]}",
	  "refusal:No.|done:refusal|" },
	{ "end_turn with calls is tool_calls", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"end_turn\"}]}\n\ndata: [DONE]\n\n",
	  "call:c1 f {}|done:tool_calls|" },
	{ "[DONE] with white space after it", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t\"}}]}\n\ndata: [DONE] \t\n\n",
	  "text:t|done:stop|" },
	{ "a surrogate pair split across two deltas", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\\ud83d\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\ude00b\"}}]}\n\ndata: [DONE]\n\n",
	  "text:a|text:\xf0\x9f\x98\x80" "b|done:stop|" },
	{ "unpaired surrogate halves", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\\ud83dy\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\ude00z\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"q\\ud800\"}}]}\n\ndata: [DONE]\n\n",
	  "text:x\xef\xbf\xbdy|text:\xef\xbf\xbdz|text:q|text:\xef\xbf\xbd|done:stop|" },
	/* The reasoning's deltas are joined as the text's are: the pieces as
	 * they stream, and the whole block. */
	{ "a surrogate pair split across two reasoning deltas", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"a\\ud83d\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"\\ude00b\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n"
	  "data: [DONE]\n\n",
	  "think:a|think:\xf0\x9f\x98\x80" "b|text:ok|reasoning:chat a\xf0\x9f\x98\x80" "b (null)|done:stop|" },
	{ "unpaired halves in reasoning deltas, a high one ending the reasoning", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"x\\ud83dy\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"\\ude00z\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"q\\ud800\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n"
	  "data: [DONE]\n\n",
	  "think:x\xef\xbf\xbdy|think:\xef\xbf\xbdz|think:q|text:ok|think:\xef\xbf\xbd|"
	  "reasoning:chat x\xef\xbf\xbdy\xef\xbf\xbdzq\xef\xbf\xbd (null)|done:stop|" },
	{ "a high half of reasoning is not joined with the text's low half", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"r\\ud83d\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\ude00t\"},\"finish_reason\":\"stop\"}]}\n\n"
	  "data: [DONE]\n\n",
	  "think:r|text:\xef\xbf\xbdt|think:\xef\xbf\xbd|reasoning:chat r\xef\xbf\xbd (null)|done:stop|" },
	{ "a surrogate pair split across two responses reasoning deltas", MC_API_RESPONSES,
	  "data: {\"type\":\"response.reasoning_summary_text.delta\",\"delta\":\"a\\ud83d\"}\n\n"
	  "data: {\"type\":\"response.reasoning_summary_text.delta\",\"delta\":\"\\ude00b\"}\n\n"
	  "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n",
	  "think:a|think:\xf0\x9f\x98\x80" "b|done:stop|" },
	{ "a surrogate pair split across two thinking deltas", MC_API_MESSAGES,
	  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n"
	  "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n\n"
	  "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"a\\ud83d\"}}\n\n"
	  "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"\\ude00b\"}}\n\n"
	  "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"S\"}}\n\n"
	  "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
	  "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\n"
	  "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	  "think:a|think:\xf0\x9f\x98\x80" "b|reasoning:messages a\xf0\x9f\x98\x80" "b {\"type\":\"thinking\",\"signature\":\"S\"}|usage:10 5 written 0|done:stop|" },
	{ "a surrogate pair split in call arguments", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"e\\\":\\\"\\ud83d\"}}]}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\ude00\\\"}\"}}]}}]}\n\n"
	  "data: [DONE]\n\n",
	  "call:c1 f {\"e\":\"\xf0\x9f\x98\x80\"}|done:tool_calls|" },
	/* issue 37: characters of the last private-use block are text, at a
	 * delta's edge too (the markers for split halves are no UTF-8) */
	{ "U+10FFFD alone in a chat delta", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xf4\x8f\xbf\xbd\"}}]}\n\ndata: [DONE]\n\n",
	  "text:\xf4\x8f\xbf\xbd|done:stop|" },
	{ "U+10F800 ending a delta, U+10FC00 starting one, beside a split pair", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\udbfe\\udc00\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\udbff\\udc00" "b\\ud83d\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\ude00\"}}]}\n\ndata: [DONE]\n\n",
	  "text:\xf4\x8f\xa0\x80|text:\xf4\x8f\xb0\x80" "b|text:\xf0\x9f\x98\x80|done:stop|" },
	{ "U+10FFFD at the edges of responses deltas", MC_API_RESPONSES,
	  "data: {\"type\":\"response.output_text.delta\",\"delta\":\"\xf4\x8f\xbf\xbd\"}\n\n"
	  "data: {\"type\":\"response.output_text.delta\",\"delta\":\"\xf4\x8f\xa0\x80x\xf4\x8f\xbf\xbd\"}\n\n"
	  "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n",
	  "text:\xf4\x8f\xbf\xbd|text:\xf4\x8f\xa0\x80x\xf4\x8f\xbf\xbd|done:stop|" },
	{ "a byte that looks like a marker, sent raw beside a split pair, is no half", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\ude00z\xf5\x80\x80\x80\"}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\ude00\"}}]}\n\ndata: [DONE]\n\n",
	  "text:\xef\xbf\xbdz\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|text:\xef\xbf\xbd|done:stop|" },
	{ "data: {\"error\":true} is an error", MC_API_CHAT,
	  "data: {\"error\":true}\n\n",
	  "error:0 - {\"error\":true}|" },
	{ "a tool-call fragment with no index, id, name or type is not a call", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"{}\"}}]}}]}\n\n"
	  "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n",
	  "done:stop|" },
	{ "a nameless call beside a named one: only the named one", MC_API_CHAT,
	  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{}\"}},"
	  "{\"index\":1,\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\ndata: [DONE]\n\n",
	  "call:c1 f {}|done:tool_calls|" },
	{ "a responses stream that ends in [DONE] without response.completed", MC_API_RESPONSES,
	  "data: {\"type\":\"response.output_text.delta\",\"delta\":\"a\"}\n\ndata: [DONE]\n\n",
	  "text:a|error:0 - the stream ended with [DONE] before its last event, response.completed|" },
	{ "responses calls in output order, a done event missing", MC_API_RESPONSES,
	  "data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"fa\",\"type\":\"function_call\",\"call_id\":\"ca\",\"name\":\"a\",\"arguments\":\"\"}}\n\n"
	  "data: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fa\",\"output_index\":0,\"delta\":\"{}\"}\n\n"
	  "data: {\"type\":\"response.output_item.added\",\"output_index\":1,\"item\":{\"id\":\"fb\",\"type\":\"function_call\",\"call_id\":\"cb\",\"name\":\"b\",\"arguments\":\"\"}}\n\n"
	  "data: {\"type\":\"response.output_item.done\",\"output_index\":1,\"item\":{\"id\":\"fb\",\"type\":\"function_call\",\"call_id\":\"cb\",\"name\":\"b\",\"arguments\":\"{\\\"x\\\":1}\"}}\n\n"
	  "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":["
	  "{\"id\":\"fa\",\"type\":\"function_call\",\"call_id\":\"ca\",\"name\":\"a\",\"arguments\":\"{}\"},"
	  "{\"id\":\"fb\",\"type\":\"function_call\",\"call_id\":\"cb\",\"name\":\"b\",\"arguments\":\"{\\\"x\\\":1}\"}]}}\n\n",
	  "call:ca a {}|call:cb b {\"x\":1}|done:tool_calls|" },
	{ "responses done events in reverse order", MC_API_RESPONSES,
	  "data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"id\":\"fa\",\"type\":\"function_call\",\"call_id\":\"ca\",\"name\":\"a\",\"arguments\":\"\"}}\n\n"
	  "data: {\"type\":\"response.output_item.added\",\"output_index\":1,\"item\":{\"id\":\"fb\",\"type\":\"function_call\",\"call_id\":\"cb\",\"name\":\"b\",\"arguments\":\"\"}}\n\n"
	  "data: {\"type\":\"response.output_item.done\",\"output_index\":1,\"item\":{\"id\":\"fb\",\"type\":\"function_call\",\"call_id\":\"cb\",\"name\":\"b\",\"arguments\":\"{}\"}}\n\n"
	  "data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"id\":\"fa\",\"type\":\"function_call\",\"call_id\":\"ca\",\"name\":\"a\",\"arguments\":\"{}\"}}\n\n"
	  "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n",
	  "call:ca a {}|call:cb b {}|done:tool_calls|" },
	{ "cached tokens, chat", MC_API_CHAT,
	  "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":8}}}\n\ndata: [DONE]\n\n",
	  "usage:9 2 cached 8|done:stop|" },
	{ "cached tokens, responses", MC_API_RESPONSES,
	  "data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[],"
	  "\"usage\":{\"input_tokens\":9,\"output_tokens\":2,\"input_tokens_details\":{\"cached_tokens\":7}}}}\n\n",
	  "usage:9 2 cached 7|done:stop|" },
	{ "llama.cpp's context error keeps its type as the code", MC_API_CHAT,
	  "error: {\"code\":400,\"message\":\"the request exceeds the available context size\",\"type\":\"exceed_context_size_error\",\"n_prompt_tokens\":9000,\"n_ctx\":4096}\n\n",
	  "error:400 exceed_context_size_error the request exceeds the available context size|" },
};

static void
table(void)
{
	size_t i;
	char *got;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct tcase *c = &cases[i];

		got = decode(c->api, c->in, strlen(c->in), NULL, 0, NULL);
		if (strcmp(got, c->want) != 0)
			FAIL("%s: gives\n  %s\nnot\n  %s", c->what, got, c->want);
		else
			splits(c->what, c->api, c->in, strlen(c->in), c->want, 1);
		free(got);
	}
}

struct ecase {
	const char *body, *msg, *code;
	int status;
};

static const struct ecase ecases[] = {
	{ "{\"error\":{\"message\":\"Incorrect API key\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}",
	  "Incorrect API key", "invalid_api_key", 0 },
	{ "{\"error\":{\"message\":\"Rate limited\",\"code\":429}}", "Rate limited", "", 429 },
	{ "{\"error\":{\"message\":\"m\",\"code\":null}}", "m", "", 0 },
	{ "{\"message\":\"no wrapper\",\"code\":\"x\"}", "no wrapper", "x", 0 },
	{ "{\"error\":\"just a string\"}", "just a string", "", 0 },
	{ "{\"detail\":\"Not Found\"}", "Not Found", "", 0 },
	{ "{\"detail\":[{\"loc\":[\"body\"],\"msg\":\"field required\"}]}", "field required", "", 0 },
	{ "[{\"error\":{\"code\":429,\"message\":\"quota\",\"status\":\"RESOURCE_EXHAUSTED\"}}]", "quota", "", 429 },
	{ "{\"error\":{\"message\":\"m\"},\"code\":503}", "m", "", 503 },
	{ "data: {\"error\":{\"message\":\"in sse\"}}\n\n", "in sse", "", 0 },
	{ "\n<html>Bad Gateway</html>\nmore", "<html>Bad Gateway</html>", "", 0 },
	{ "", "", "", 0 },
};

static void
errors(void)
{
	char msg[256], code[64];
	size_t i;
	int status, r;

	for (i = 0; i < sizeof ecases / sizeof ecases[0]; i++) {
		const struct ecase *e = &ecases[i];

		r = mc_error_parse(e->body, strlen(e->body), msg, sizeof msg, code, sizeof code, &status);
		if (strcmp(msg, e->msg) != 0 || strcmp(code, e->code) != 0 || status != e->status ||
		    r != (e->msg[0] ? 0 : -1))
			FAIL("error body %zu: gives %d \"%s\" \"%s\" %d", i, r, msg, code, status);
	}
}

int
main(void)
{
	static const char *const chat_text[] = { "usage:412 21|done:stop|", NULL };
	static const char *const chat_calls[] = {
		"call:call_Vb3kQ9xLm2TzR7pYw4NcA1sE read_file {\"path\":\"README.md\",\"max_bytes\":40000}|"
		"call:call_Hq8Zt1uWd5KfJ3oXn6GbP0yC read_file {\"path\":\"Makefile\",\"max_bytes\":8000}|"
		"usage:388 52 cached 256|done:tool_calls|", NULL };
	static const char *const resp_text[] = { "|usage:436 19 cached 384|done:stop|", NULL };
	static const char *const resp_calls[] = {
		"call:call_Vb3kQ9xLm2TzR7pYw4NcA1sE read_file {\"path\":\"README.md\",\"max_bytes\":40000}|"
		"call:call_Hq8Zt1uWd5KfJ3oXn6GbP0yC read_file {\"path\":\"Makefile\",\"max_bytes\":8000}|usage:", NULL };

	/* Messages: input counts what was read from the cache and written to it. */
	static const char *const msg_text[] = { "|usage:2520 21 cached 2048 written 0|done:stop|", NULL };
	static const char *const msg_calls[] = {
		"reasoning:messages The user wants the tests. I should read the README first. "
		"{\"type\":\"thinking\",\"signature\":\"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds0jjPsiLK7ZwoNyoTq0A1ee4Y1dd4Wm1WPVzwTQLDtqa5a62mP2hOw5SNMY2Ixr4oYDV0X7mGtRdG6rWpQ==\"}|"
		"text:Let me read the README.|"
		"call:toolu_01T1x1fJ34qAmk2tNTrN7Up6 read_file {\"path\": \"README.md\", \"max_bytes\": 40000}|"
		"call:toolu_01Hq8Zt1uWd5KfJ3oXn6GbP0 list_files {}|"
		"usage:1972 89 written 1500|done:tool_calls|", NULL };
	static const char *const msg_redacted[] = {
		"reasoning:messages  {\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pLmN9kXyaTJwbvr4HkQ\"}|"
		"text:Done.|usage:30 7 written 0|done:stop|", NULL };
	mc_quiet = 1;	/* the warning of a dropped call */

	fixture("chat-stream-text.sse", MC_API_CHAT,
	    "The project builds with `make`; run `make test` to execute the suite.\n\nTests live in `tests/`.",
	    chat_text);
	fixture("chat-stream-toolcall.sse", MC_API_CHAT, "", chat_calls);
	fixture("responses-stream-text.sse", MC_API_RESPONSES,
	    "Run `make test` from the project root; it builds and runs every test in `tests/`.", resp_text);
	fixture("responses-stream-toolcall.sse", MC_API_RESPONSES, "", resp_calls);
	fixture("messages-stream-text.sse", MC_API_MESSAGES,
	    "Run `make test` from the project root; it builds and runs every test in `tests/`.", msg_text);
	fixture("messages-stream-toolcall.sse", MC_API_MESSAGES, "Let me read the README.", msg_calls);
	fixture("messages-stream-redacted.sse", MC_API_MESSAGES, "Done.", msg_redacted);
	table();
	errors();
	return failures ? 1 : 0;
}
