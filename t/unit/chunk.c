/* t/unit/chunk.c: the chat fast path takes only plain text deltas, and decodes them as cJSON would. */
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "chunk.h"
#include "json.h"
#include "sse.h"

static int failures;

#define FAIL(...) do { printf("chunk: " __VA_ARGS__); putchar('\n'); failures++; } while (0)

struct c {
	const char *in;
	int want;		/* mc_chunk_text's answer */
	const char *text;	/* the text when it is 1 */
};

#define CH(d) "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0," d "}]}"
#define DELTA(v) CH("\"delta\":{\"content\":" v "},\"finish_reason\":null")

static const struct c cases[] = {
	{ DELTA("\"lorem ipsum \""), 1, "lorem ipsum " },
	{ DELTA("\"a\\n\\t\\r\\b\\f\\\"\\\\\\/z\""), 1, "a\n\t\r\b\f\"\\/z" },
	{ DELTA("\"caf\\u00e9 \\u20AC \\ud83d\\ude00 \\u0041\""), 1, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 A" },
	{ DELTA("\"raw \xc3\xa9 and bad \xff bytes\""), 1, "raw \xc3\xa9 and bad \xff bytes" },
	{ DELTA("\"\""), 1, "" },
	{ DELTA("null"), 1, "" },
	{ CH("\"delta\":{}"), 1, "" },
	/* reasoning is not the answer's text: for cJSON, which reports it */
	{ CH("\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"hm\"}"), 0, "" },
	{ CH("\"delta\":{\"reasoning\":\"hm\",\"content\":\"x\"}"), 0, "" },
	{ CH("\"delta\":{\"reasoning_content\":null,\"content\":\"x\"}"), 1, "x" },
	{ CH("\"finish_reason\":null"), 1, "" },
	{ "{}", 1, "" },
	{ " \r\n\t" DELTA("\"x\"") " \n", 1, "x" },
	{ "{\"created\":1.5e+3,\"a\":-0,\"b\":[true,false,null,{},[]],\"c\":0.25E-2,"
	  "\"choices\":[{\"delta\":{\"content\":\"n\"}}],\"usage\":null}", 1, "n" },
	{ "{\"x\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]],\"choices\":[{\"delta\":{\"content\":\"d\"}}]}", 1, "d" },
	/* valid, but cJSON's to decode */
	{ DELTA("\"x\\u0000y\""), 0, NULL },
	{ DELTA("[{\"type\":\"text\",\"text\":\"p\"}]"), 0, NULL },
	{ CH("\"delta\":{\"content\":\"a\",\"content\":\"b\"}"), 0, NULL },
	{ CH("\"delta\":{\"\\u0063ontent\":\"a\"}"), 0, NULL },
	{ CH("\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\""), 0, NULL },
	{ CH("\"delta\":{\"refusal\":\"no\"}"), 0, NULL },
	{ CH("\"delta\":{\"tool_calls\":[{\"index\":0}]}"), 0, NULL },
	{ CH("\"delta\":\"text\""), 0, NULL },
	{ "{\"choices\":[{\"delta\":{\"content\":\"a\"}},{\"delta\":{\"content\":\"b\"}}]}", 0, NULL },
	{ "{\"choices\":[]}", 0, NULL },
	{ "{\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"choices\":[]}", 0, NULL },
	{ "{\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"usage\":{\"prompt_tokens\":1}}", 0, NULL },
	{ "{\"error\":{\"message\":\"bad\"}}", 0, NULL },
	{ "{\"error\":null,\"choices\":[{\"delta\":{\"content\":\"a\"}}]}", 0, NULL },
	{ "\xef\xbb\xbf{}", 0, NULL },
	{ "[]", 0, NULL },
	{ "\"text\"", 0, NULL },
	{ "{\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]"
	  "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}", 0, NULL },
	{ "{\"n\":1234567890123456789012345678901234567890123456789012345678901234567890}", 0, NULL },
	/* not JSON: cJSON says why */
	{ DELTA("\"\\ud83d\""), 0, NULL },
	{ DELTA("\"\\ude00\""), 0, NULL },
	{ DELTA("\"\\ud83dx\""), 0, NULL },
	{ DELTA("\"\\uzzzz\""), 0, NULL },
	{ DELTA("\"\\x\""), 0, NULL },
	{ DELTA("\"tab\there\""), 0, NULL },
	{ DELTA("\"cut"), 0, NULL },
	{ "{\"choices\":[{\"delta\":{\"content\":\"a\"}}],}", 0, NULL },
	{ "{\"choices\":[{\"delta\":{\"content\":\"a\"}}]} x", 0, NULL },
	{ "{\"choices\":[{\"delta\":{\"content\":\"a\"}}]", 0, NULL },
	{ "{\"a\":01}", 0, NULL },
	{ "{\"a\":+1}", 0, NULL },
	{ "{\"a\":.5}", 0, NULL },
	{ "{\"a\":1.}", 0, NULL },
	{ "{\"a\":1e}", 0, NULL },
	{ "{\"a\":tru}", 0, NULL },
	{ "{\"a\" 1}", 0, NULL },
	{ "{a:1}", 0, NULL },
	{ "", 0, NULL },
};

/* The events of "data: IN" as the stream decodes it, with or without the fast path. */
static void
events(const char *in, size_t n, int nofast, struct mc_buf *log);

static int
rec(const struct mc_event *ev, void *arg)
{
	struct mc_buf *log = arg;

	if (ev->type == MC_EVENT_TEXT) {
		mc_buf_adds(log, "text:");
		mc_buf_add(log, ev->text, ev->len);
	} else if (ev->type == MC_EVENT_ERROR)
		mc_buf_printf(log, "error:%s", ev->message);
	else
		mc_buf_printf(log, "event:%d", (int)ev->type);
	mc_buf_addc(log, '\n');
	return 0;
}

static void
events(const char *in, size_t n, int nofast, struct mc_buf *log)
{
	struct mc_stream *s;

	mc_stream_nofast = nofast;
	s = mc_stream_new(MC_API_CHAT, rec, log);
	mc_stream_feed(s, "data: ", 6);
	mc_stream_feed(s, in, n);
	mc_stream_feed(s, "\n\ndata: [DONE]\n\n", 16);
	mc_stream_end(s);
	mc_stream_free(s);
	mc_stream_nofast = 0;
}

int
main(void)
{
	struct mc_buf out = {0}, fast = {0}, slow = {0};
	const char *text;
	size_t i, n;
	char err[256];
	cJSON *doc;
	int r;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		n = strlen(cases[i].in);
		r = mc_chunk_text(cases[i].in, n, &out);
		text = out.data ? out.data : "";
		if (r != cases[i].want)
			FAIL("case %zu: %d, want %d: %s", i, r, cases[i].want, cases[i].in);
		else if (r == 1 && strcmp(text, cases[i].text) != 0)
			FAIL("case %zu: text \"%s\", want \"%s\"", i, text, cases[i].text);
		/* What the fast path takes, cJSON takes; the stream says the same either way. */
		doc = mc_json_parse(cases[i].in, n, err, sizeof err);
		if (r == 1 && doc == NULL)
			FAIL("case %zu: taken, but cJSON says %s", i, err);
		cJSON_Delete(doc);
		fast.len = slow.len = 0;
		events(cases[i].in, n, 0, &fast);
		events(cases[i].in, n, 1, &slow);
		if (fast.len != slow.len || memcmp(fast.data, slow.data, fast.len) != 0)
			FAIL("case %zu: fast path events\n%s differ from cJSON's\n%s", i, fast.data, slow.data);
	}
	/* A NUL inside: the length counts, and cJSON's path reports it. */
	if (mc_chunk_text("{\"a\":\"x\0\"}", 10, &out) != 0)
		FAIL("a NUL byte was taken");
	/* Reused buffer: a later empty delta leaves no old text behind. */
	mc_chunk_text(DELTA("\"old\""), strlen(DELTA("\"old\"")), &out);
	if (mc_chunk_text("{}", 2, &out) != 1 || out.data[0] != '\0' || out.len != 0)
		FAIL("an empty delta kept the old text");
	mc_buf_free(&out);
	mc_buf_free(&fast);
	mc_buf_free(&slow);
	return failures != 0;
}
