/* sse-responses.c: the Responses dialect: stream events (or one whole response) into the decoder's events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "json.h"
#include "sse-int.h"

static int
output_index(const cJSON *doc)
{
	const cJSON *ix = cJSON_GetObjectItemCaseSensitive(doc, "output_index");

	return cJSON_IsNumber(ix) && ix->valuedouble >= 0 && ix->valuedouble < 1e9 ?
	    ix->valueint : -1;
}

/* The call of item key (an item id), made when it is new. */
static struct call *
call_at(struct mc_stream *s, const char *key, int index)
{
	struct call *c = mc_ans_call_find(s, key), *last;

	if (c != NULL) {
		if (c->index < 0)
			c->index = index;
		return c;
	}
	last = s->ncalls ? &s->calls[s->ncalls - 1] : NULL;
	if (last != NULL && index >= 0 && last->index > index)
		s->unordered = 1;	/* then calls wait for the end */
	return mc_ans_call_new(s, key, index);
}

/*
 * Calls come out in response.output order: a closed call goes out as soon
 * as every call before it is out; one whose output_item.done never came
 * holds the later ones back until response.completed.
 */
static void
emit_ready(struct mc_stream *s)
{
	struct call *c;

	if (s->unordered)
		return;
	for (; s->next_emit < s->ncalls; s->next_emit++) {
		c = &s->calls[s->next_emit];
		if (!c->emitted && !c->closed)
			return;
		mc_ans_call_emit(s, c);
	}
}

/*
 * A reasoning output item, kept whole: its summary's texts joined are the
 * text; its id and encrypted_content (asked for by include, store being
 * false) the data, for the item to be sent back in a tool loop.
 */
static void
reasoning_item(struct mc_stream *s, const cJSON *it)
{
	struct mc_buf t = {0};
	const cJSON *p, *v;
	cJSON *d = mc_json_new_obj();

	cJSON_ArrayForEach(p, mc_json_arr(it, "summary"))
		if (mc_json_str(p, "text") != NULL) {
			if (t.len > 0)
				mc_buf_adds(&t, "\n\n");
			mc_buf_adds(&t, mc_json_str(p, "text"));
		}
	if (t.len == 0)	/* open-weight models: the reasoning text itself */
		cJSON_ArrayForEach(p, mc_json_arr(it, "content"))
			if (mc_json_str(p, "text") != NULL)
				mc_buf_adds(&t, mc_json_str(p, "text"));
	mc_buf_adds(&t, "");
	if (mc_json_str(it, "id") != NULL)
		mc_json_add_str(d, "id", mc_json_str(it, "id"));
	if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(it, "encrypted_content")))
		mc_json_add_str(d, "encrypted_content", v->valuestring);
	/* Nothing to show or send back: nothing kept. */
	if (t.len > 0 || cJSON_HasObjectItem(d, "encrypted_content"))
		mc_ans_thought_block(s, t.data, t.len, "responses", d);
	cJSON_Delete(d);
	mc_buf_free(&t);
}

/* What a completed responses answer holds that the stream did not show. */
static void
output(struct mc_stream *s, const cJSON *resp)
{
	const cJSON *it;
	int shown = s->ntext > 0 || s->nrefusal > 0, thought = s->nthought > 0;

	cJSON_ArrayForEach(it, mc_json_arr(resp, "output")) {
		const char *type = mc_json_str(it, "type"), *cid = mc_json_str(it, "call_id");
		const char *id = mc_json_str(it, "id");
		struct call *c = NULL;

		if (type == NULL)
			continue;
		if (strcmp(type, "message") == 0 && !shown)
			mc_ans_content(s, cJSON_GetObjectItemCaseSensitive(it, "content"));
		if (strcmp(type, "reasoning") == 0 && !thought)
			reasoning_item(s, it);
		if (strcmp(type, "function_call") != 0)
			continue;
		if (id != NULL)
			c = mc_ans_call_find(s, id);
		if (c == NULL && cid != NULL)
			c = mc_ans_call_by_id(s, cid);
		if (c == NULL)
			c = mc_ans_call_new(s, NULL, -1);
		if (!c->emitted) {
			/* The whole item is the truth for a call still open. */
			mc_ans_call_set_id(s, c, cid);
			mc_ans_call_name(s, c, mc_json_str(it, "name"), 0);
			mc_ans_args_set(s, c, cJSON_GetObjectItemCaseSensitive(it, "arguments"));
		}
		mc_ans_call_emit(s, c);
	}
	/* Calls announced but not in the output still count, in their order. */
	mc_ans_calls_flush(s);
}

void
mc_ans_responses_end(struct mc_stream *s, const cJSON *resp, const char *status)
{
	const char *reason = NULL;
	const cJSON *e;

	e = cJSON_GetObjectItemCaseSensitive(resp, "error");
	if ((status && strcmp(status, "failed") == 0) || cJSON_IsObject(e)) {
		if (cJSON_IsObject(e))
			mc_ans_fail_json(s, e);
		else
			mc_ans_fail(s, "the response failed", NULL, 0, 0);
		return;
	}
	output(s, resp);
	mc_ans_usage(s, cJSON_GetObjectItemCaseSensitive(resp, "usage"));
	if (status && strcmp(status, "incomplete") == 0) {
		reason = mc_json_str(mc_json_obj(resp, "incomplete_details"), "reason");
		if (reason == NULL)
			reason = "incomplete";
	}
	mc_ans_finish(s, reason);
}

static void
item_event(struct mc_stream *s, const cJSON *doc, int done)
{
	const cJSON *item = mc_json_obj(doc, "item"), *args;
	const char *key;
	struct call *c;

	if (done && mc_json_str(item, "type") && strcmp(mc_json_str(item, "type"), "reasoning") == 0) {
		reasoning_item(s, item);
		return;
	}
	if (!mc_json_str(item, "type") || strcmp(mc_json_str(item, "type"), "function_call") != 0)
		return;
	args = cJSON_GetObjectItemCaseSensitive(item, "arguments");
	key = mc_json_str(item, "id") ? mc_json_str(item, "id") :
	    mc_json_str(item, "call_id") ? mc_json_str(item, "call_id") : "";
	c = call_at(s, key, output_index(doc));
	mc_ans_call_set_id(s, c, mc_json_str(item, "call_id"));
	mc_ans_call_name(s, c, mc_json_str(item, "name"), 0);
	/* The item as added has empty arguments; as done, the whole of them. */
	if (done || (cJSON_IsString(args) && args->valuestring[0]) || cJSON_IsObject(args))
		mc_ans_args_set(s, c, args);
	if (done) {
		c->closed = 1;
		emit_ready(s);
	}
}

void
mc_ans_responses_event(struct mc_stream *s, const char *name, const cJSON *doc)
{
	const char *type = mc_json_str(doc, "type"), *item_id = mc_json_str(doc, "item_id");
	const cJSON *ix;
	struct call *c;

	if (type == NULL)
		type = name;
	if (strcmp(type, "response.output_text.delta") == 0) {
		mc_ans_text(s, mc_json_str(doc, "delta"), 0);
	} else if (strcmp(type, "response.reasoning_summary_text.delta") == 0 ||
	    strcmp(type, "response.reasoning_text.delta") == 0) {
		mc_ans_thought(s, mc_json_str(doc, "delta"), NULL);
	} else if (strcmp(type, "response.reasoning_summary_part.added") == 0) {
		/* A summary's parts are paragraphs apart, as the item joins them. */
		ix = cJSON_GetObjectItemCaseSensitive(doc, "summary_index");
		if (cJSON_IsNumber(ix) && ix->valueint > 0)
			mc_ans_thought(s, "\n\n", NULL);
	} else if (strcmp(type, "response.refusal.delta") == 0) {
		mc_ans_text(s, mc_json_str(doc, "delta"), 1);
	} else if (strcmp(type, "response.output_item.added") == 0) {
		item_event(s, doc, 0);
	} else if (strcmp(type, "response.output_item.done") == 0) {
		item_event(s, doc, 1);
	} else if (strcmp(type, "response.function_call_arguments.delta") == 0) {
		if (item_id == NULL || mc_json_str(doc, "delta") == NULL)
			return;
		c = call_at(s, item_id, output_index(doc));
		mc_ans_args_add(s, c, mc_json_str(doc, "delta"));
	} else if (strcmp(type, "response.function_call_arguments.done") == 0) {
		if (item_id == NULL)
			return;
		c = call_at(s, item_id, output_index(doc));
		mc_ans_call_name(s, c, mc_json_str(doc, "name"), 0);
		mc_ans_args_set(s, c, cJSON_GetObjectItemCaseSensitive(doc, "arguments"));
	} else if (strcmp(type, "response.completed") == 0 ||
	    strcmp(type, "response.incomplete") == 0 || strcmp(type, "response.failed") == 0) {
		mc_ans_responses_end(s, mc_json_obj(doc, "response"), type + 9);
	} else if (strcmp(type, "error") == 0) {
		mc_ans_fail_json(s, doc);
	}
}
