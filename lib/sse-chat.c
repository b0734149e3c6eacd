/* sse-chat.c: the Chat Completions dialect: chunks (or one whole completion) into the decoder's events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "diag.h"
#include "json.h"
#include "sse-int.h"

/* One entry of delta.tool_calls: a piece of the call at its index. */
static void
tool_fragment(struct mc_stream *s, const cJSON *f)
{
	const cJSON *ix = cJSON_GetObjectItemCaseSensitive(f, "index");
	const cJSON *fn = cJSON_GetObjectItemCaseSensitive(f, "function");
	const char *id = mc_json_str(f, "id"), *name = mc_json_str(fn, "name");
	struct call *last = s->ncalls ? &s->calls[s->ncalls - 1] : NULL, *c;
	char key[32];
	int index;

	if (cJSON_IsNumber(ix))
		index = ix->valueint;
	else if (last == NULL || (id && id[0] && last->call_id && strcmp(id, last->call_id) != 0))
		index = (int)s->ncalls;	/* no index: a new id starts a new call */
	else
		index = last->index;
	snprintf(key, sizeof key, "#%d", index);
	if ((c = mc_ans_call_find(s, key)) == NULL)
		c = mc_ans_call_new(s, key, index);
	if (id && id[0] && c->call_id == NULL)
		mc_ans_call_set_id(s, c, id);
	/* A name is repeated whole in each fragment, or streamed in pieces. */
	if (name && name[0])
		mc_ans_call_name(s, c, name, c->name.len > 0 && strcmp(c->name.data, name) != 0);
	fn = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
	if (cJSON_IsString(fn))
		mc_ans_args_add(s, c, fn->valuestring);
	else if (cJSON_IsObject(fn))
		mc_ans_args_set(s, c, fn);
}

/* The reasoning the deltas gave, one block kept (Chat takes none back). */
static void
thought_done(struct mc_stream *s)
{
	mc_ans_thought_end(s, &s->thought);
	if (s->thought.len == 0)
		return;
	mc_ans_thought_block(s, s->thought.data, s->thought.len, "chat", NULL);
	s->thought.len = 0;
}

/* One chat chunk, or (whole) a non-streamed chat completion. */
void
mc_ans_chat_doc(struct mc_stream *s, const cJSON *doc, int whole)
{
	const cJSON *choices, *ch, *d, *f, *fr;
	const char *r;

	if (mc_ans_has_error(doc)) {
		mc_ans_fail_json(s, doc);
		return;
	}
	choices = mc_json_arr(doc, "choices");
	ch = cJSON_GetArrayItem(choices, 0);
	/* Several choices (n > 1) are not asked for; keep the first. */
	cJSON_ArrayForEach(d, choices) {
		const cJSON *ix = cJSON_GetObjectItemCaseSensitive(d, "index");

		if (cJSON_IsNumber(ix) && ix->valueint == 0) {
			ch = d;
			break;
		}
	}
	if (ch != NULL) {
		d = mc_json_obj(ch, whole ? "message" : "delta");
		if (d == NULL && whole)
			d = mc_json_obj(ch, "delta");
		/* Reasoning is not the answer: reasoning_content (llama.cpp,
		 * vLLM) or reasoning (OpenRouter), never both counted. */
		r = mc_json_str(d, "reasoning_content") ? mc_json_str(d, "reasoning_content") :
		    mc_json_str(d, "reasoning");
		if (!whole)
			mc_ans_thought(s, r, &s->thought);
		else if (r != NULL && mc_ans_room(s, strlen(r)))
			mc_buf_adds(&s->thought, r);	/* whole: the block alone */
		mc_ans_content(s, cJSON_GetObjectItemCaseSensitive(d, "content"));
		mc_ans_text(s, mc_json_str(d, "refusal"), 1);
		cJSON_ArrayForEach(f, mc_json_arr(d, "tool_calls"))
			tool_fragment(s, f);
		fr = cJSON_GetObjectItemCaseSensitive(ch, "finish_reason");
		if (cJSON_IsString(fr) && fr->valuestring[0]) {
			mc_ans_set_str(&s->finish, fr->valuestring);
			thought_done(s);
			mc_ans_calls_flush(s);
		}
	}
	mc_ans_usage(s, cJSON_GetObjectItemCaseSensitive(doc, "usage"));
	if (whole) {
		thought_done(s);
		mc_ans_finish(s, s->finish);
	}
}
