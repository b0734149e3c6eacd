/* t/unit/json.c: mc_json_compact writes exactly what cJSON_PrintUnformatted writes;
 * mc_json_parse_each hands out the elements and reports errors where a whole parse would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "json.h"

static const char *const docs[] = {
	"{}", "[]", "\"\"", "0", "-1", "true", "false", "null",
	"[2147483647,-2147483648,2147483648,-2147483649,4294967296]",
	"[0.1,1e300,-1.5e-7,123456789012345678,3.141592653589793,1e-320,0.30000000000000004]",
	"[-0,0.0,-0.0,-0e5,0]",
	"{\"a\":{\"b\":[1,[2,[3,{}]],\"c\"]},\"d\":null,\"e\":[true,false]}",
	"\"quote \\\" backslash \\\\ slash / tab \\t nl \\n cr \\r bs \\b ff \\f\"",
	"\"\\u0001\\u0002\\u001f\\u007f \\u00e9 \\u20ac \\ud83d\\ude00\"",
	"{\"k\\n\\u0001ey\":\"v\"}",
	"\"caf\xc3\xa9 \xf0\x9f\x99\x82\"",
	"{\"instructions\":[{\"source\":\"repo\",\"bytes\":45,\"content\":\"line\\nline\\n\"}]}",
};

/* Each element of "skills", compact, one a line; the rest of the document last. */
static const struct {
	const char *text;
	const char *want;	/* or the error, which a whole parse gives too */
} each[] = {
	{ "{\"skills\":[]}", "{\"skills\":[]}" },
	{ "{\"a\":1,\"skills\":[1,\"two\",{\"x\":[3]}],\"b\":[]}",
	  "1\n\"two\"\n{\"x\":[3]}\n{\"a\":1,\"skills\":[],\"b\":[]}" },
	{ " {\n \"skills\" :\n [ {\"n\":\"]\\\\\"} ,\n\t\"\\\"[\" ] }\n",
	  "{\"n\":\"]\\\\\"}\n\"\\\"[\"\n{\"skills\":[]}" },
	{ "{\"skills\":{\"a\":1}}", "{\"skills\":{\"a\":1}}" },
	{ "{\"other\":[1]}", "{\"other\":[1]}" },
	/* escaped and repeated keys take the whole parse: the first wins */
	{ "{\"sk\\u0069lls\":[1]}", "1\n{\"skills\":[]}" },
	{ "{\"skills\":[1],\"skills\":[2]}", "1\n{\"skills\":[],\"skills\":[2]}" },
	{ "{\"skills\":[1,]}", "invalid JSON at line 1, column 14" },
	{ "{\"skills\":[1 2]}", "invalid JSON at line 1, column 14" },
	{ "{\"skills\":[\n{\"a\":tru}]}", "invalid JSON at line 2, column 6" },
	{ "{\"skills\":[\n1],\n\"x\":nul}", "invalid JSON at line 3, column 5" },
	{ "{\"skills\":[1]} x", "invalid JSON: unexpected data after the document at line 1, column 16" },
	{ "{\"skills\":[\xef\xbb\xbf" "1]}", "invalid JSON at line 1, column 12" },
	/* the first error of the text, wherever the array is */
	{ "{\"a\":tru,\"skills\":[x]}", "invalid JSON at line 1, column 6" },
	{ "{\"skills\":[{]}}", "invalid JSON at line 1, column 14" },
	{ "{\"skills\":[{\"a\":1,]}}", "invalid JSON at line 1, column 20" },
	/* alone, a byte-order mark before an element would be skipped */
	{ "{\"skills\":[\xef\xbb\xbf" "12]}", "invalid JSON at line 1, column 12" },
	/* a \u escape needs four hex digits (cJSON would read \u0000),
	 * unless the text went wrong before it or it lies past the value */
	{ "{\"skills\":[\"\\uzzzz\"]}", "invalid JSON at line 1, column 13" },
	{ "{\"skills\":[\"a\\u00z\",1]}", "invalid JSON at line 1, column 14" },
	{ "{\"a\":\"\\u12\"}", "invalid JSON at line 1, column 7" },
	{ "{\"a\":tru,\"skills\":[\"\\uzz\"]}", "invalid JSON at line 1, column 6" },
	{ "{\"skills\":[]} \"\\uzz\"", "invalid JSON: unexpected data after the document at line 1, column 15" },
	{ "{\"skills\":[\"\\u00e9\\uD83D\\uDE00\"]}", "\"\u00e9\U0001F600\"\n{\"skills\":[]}" },
};

static void
collect(cJSON *e, size_t i, void *arg)
{
	struct mc_buf *b = arg;
	char *t = mc_json_compact(e, NULL);

	(void)i;
	mc_buf_adds(b, t);
	mc_buf_adds(b, "\n");
	free(t);
	cJSON_Delete(e);
}

static int
check_each(void)
{
	struct mc_buf got;
	char err[128], whole[128], *text, *rest;
	const char *result;
	size_t i;
	cJSON *doc;
	int fail = 0;

	for (i = 0; i < sizeof each / sizeof each[0]; i++) {
		got = (struct mc_buf){0};
		text = mc_strdup(each[i].text);
		doc = mc_json_parse_each(text, strlen(text), "skills", collect, &got, err, sizeof err);
		if (doc != NULL) {
			rest = mc_json_compact(doc, NULL);
			mc_buf_adds(&got, rest);
			free(rest);
			cJSON_Delete(doc);
			result = got.data;
		} else {
			result = err;
			cJSON_Delete(mc_json_parse(each[i].text, strlen(each[i].text), whole, sizeof whole));
			if (strcmp(whole, err) != 0) {
				printf("json: each case %zu: a whole parse says %s, not %s\n", i, whole, err);
				fail = 1;
			}
		}
		if (strcmp(result, each[i].want) != 0) {
			printf("json: each case %zu:\n  want: %s\n  got:  %s\n", i, each[i].want, result);
			fail = 1;
		}
		mc_buf_free(&got);
		free(text);
	}
	return fail;
}

/* Every byte that needs care, at every position of a string long enough
 * for the writer's sixteen-byte steps, is written as cJSON writes it. */
static int
check_positions(void)
{
	static const unsigned char special[] = { 0x01, 0x08, 0x0a, 0x1f, '"', '\\', '/',
		0x7f, 0x80, 0xc3, 0xff, ' ', '!', '#', '[', ']' };
	char text[48], *want, *got;
	size_t i, pos;
	cJSON *v;
	int fail = 0;

	for (i = 0; i < sizeof special; i++)
		for (pos = 0; pos < sizeof text - 1; pos++) {
			memset(text, 'a', sizeof text - 1);
			text[sizeof text - 1] = '\0';
			text[pos] = (char)special[i];
			if ((v = cJSON_CreateString(text)) == NULL)
				return 1;
			want = cJSON_PrintUnformatted(v);
			got = mc_json_compact(v, NULL);
			if (want == NULL || got == NULL || strcmp(want, got) != 0) {
				printf("json: byte 0x%02x at %zu: cJSON %s, ours %s\n", special[i], pos,
				    want, got);
				fail = 1;
			}
			free(want);
			free(got);
			cJSON_Delete(v);
		}
	return fail;
}

/* mc_json_check: every document above is JSON; these are not, and it
 * says where each goes wrong (the offset); mc_json_member finds a member
 * without parsing. */
static const struct {
	const char *text;
	int at;		/* -1: valid */
} grammar[] = {
	{ "{\"a\":tru}", 5 }, { "{\"a\":01}", 6 }, { "{\"a\":[1,]}", 8 },
	{ "{\"a\":\"\\x\"}", 7 }, { "\"\\u12\"", 5 }, { "{\"a\" 1}", 5 },
	{ "{,}", 1 }, { "[1 2]", 3 }, { "1.", 2 }, { "+1", 0 }, { "\"a\nb\"", 2 },
	{ "", 0 }, { "{} x", 3 }, { "[\"\\/\", -0.5E+2, 1e9, {}]", -1 }, { " null ", -1 },
	/* white space wherever the grammar has it */
	{ " { \"a\" : 1 ,\n\t\"b\" : [ 1 , { } ] , \"c\":{ \"d\" : null } } ", -1 },
	{ "{ \"a\" : 1 , }", 12 }, { "[ 1 , ]", 6 },
	/* UTF-16 halves only in pairs, as cJSON takes them */
	{ "\"\\ud83d\\ude00\"", -1 }, { "\"\\ud800x\"", 1 }, { "\"\\udc00\"", 1 },
	{ "\"\\ud800\\u0041\"", 1 }, { "\"\\ue83d\\ude00\"", 7 },
};

static int
member(const char *s, const char *key, const char **vs, const char **ve)
{
	return mc_json_member(s, strlen(s), key, vs, ve);
}

static int
check_grammar(void)
{
	const char *at, *vs, *ve;
	size_t i;
	int fail = 0;

	for (i = 0; i < sizeof docs / sizeof docs[0]; i++)
		if ((at = mc_json_check(docs[i], strlen(docs[i]))) != NULL) {
			printf("json: check: %s refused at %zu\n", docs[i], (size_t)(at - docs[i]));
			fail = 1;
		}
	for (i = 0; i < sizeof grammar / sizeof grammar[0]; i++) {
		at = mc_json_check(grammar[i].text, strlen(grammar[i].text));
		if (grammar[i].at == -1 ? at != NULL : at != grammar[i].text + grammar[i].at) {
			printf("json: check: %s: want %d, got %ld\n", grammar[i].text, grammar[i].at,
			    at ? (long)(at - grammar[i].text) : -1L);
			fail = 1;
		}
	}
	if (member("{\"x\":[1,{}], \"body\" : {\"b\":\"}\"} }", "body", &vs, &ve) != 1 ||
	    strncmp(vs, "{\"b\":\"}\"}", (size_t)(ve - vs)) != 0 ||
	    member("{\"x\":1}", "body", &vs, &ve) != 0 ||
	    member("{\"body\":1,\"body\":2}", "body", &vs, &ve) != -1 ||
	    member("{\"b\\u006fdy\":1}", "body", &vs, &ve) != -1 ||
	    member("[1]", "body", &vs, &ve) != -1) {
		printf("json: mc_json_member\n");
		fail = 1;
	}
	return fail;
}

int
main(void)
{
	char err[128], *want, *got, ctl[40];
	size_t i, n;
	cJSON *doc;
	int fail = check_each() | check_positions() | check_grammar();

	for (i = 0; i < sizeof docs / sizeof docs[0] + 1; i++) {
		if (i < sizeof docs / sizeof docs[0])
			doc = mc_json_parse(docs[i], strlen(docs[i]), err, sizeof err);
		else {
			/* every control character, raw in a string */
			for (n = 0; n < 31; n++)
				ctl[n] = (char)(n + 1);
			ctl[31] = '\0';
			doc = cJSON_CreateString(ctl);
		}
		if (doc == NULL) {
			printf("json: case %zu does not parse: %s\n", i, err);
			fail = 1;
			continue;
		}
		want = cJSON_PrintUnformatted(doc);
		got = mc_json_compact(doc, &n);
		if (want == NULL || got == NULL || strcmp(want, got) != 0 || n != strlen(want)) {
			printf("json: case %zu:\n  cJSON: %s\n  ours:  %s\n", i, want, got);
			fail = 1;
		}
		free(want);
		free(got);
		cJSON_Delete(doc);
	}
	return fail;
}
