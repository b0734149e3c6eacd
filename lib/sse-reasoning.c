/* sse-reasoning.c: the model's reasoning, as the dialects report it: pieces as they stream, whole blocks to keep. */
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "clip.h"
#include "json.h"
#include "sse-int.h"
#include "utf8.h"

void
mc_ans_thought(struct mc_stream *s, const char *t, struct mc_buf *keep)
{
	struct mc_event ev = { .type = MC_EVENT_REASONING_DELTA };
	struct mc_buf fixed = {0};

	if (t == NULL || t[0] == '\0' || s->ended)
		return;
	ev.len = strlen(t);
	/* A pair cut between two pieces, as the text's (sse-stream.c). */
	ev.text = mc_ans_join16(s, t, &ev.len, &s->hi_thought);
	/* The session must stay valid UTF-8, whatever came. */
	if (!mc_utf8_valid(ev.text, ev.len)) {
		mc_clip_repair(&fixed, ev.text, ev.len);
		mc_buf_adds(&fixed, "");
		ev.text = fixed.data;
		ev.len = fixed.len;
	}
	if (ev.len > 0 && mc_ans_room(s, keep ? 2 * ev.len : ev.len)) {
		if (keep)
			mc_buf_add(keep, ev.text, ev.len);
		mc_ans_emit(s, &ev);
	}
	mc_buf_free(&fixed);
}

void
mc_ans_thought_end(struct mc_stream *s, struct mc_buf *keep)
{
	if (s->hi_thought == 0)
		return;
	s->hi_thought = 0;
	mc_ans_thought(s, "\xef\xbf\xbd", keep);
}

void
mc_ans_thought_block(struct mc_stream *s, const char *text, size_t len, const char *api,
    const cJSON *data)
{
	struct mc_event ev = { .type = MC_EVENT_REASONING, .api = api };
	struct mc_buf fixed = {0};
	size_t n = 0;
	char *d = data != NULL ? mc_json_compact(data, &n) : NULL;

	if (s->ended) {
		free(d);
		return;
	}
	/* Whole: a lone half at either end is U+FFFD. */
	ev.len = len;
	ev.text = mc_ans_join16(s, text, &ev.len, NULL);
	if (!mc_utf8_valid(ev.text, ev.len)) {
		mc_clip_repair(&fixed, ev.text, ev.len);
		mc_buf_adds(&fixed, "");
		ev.text = fixed.data;
		ev.len = fixed.len;
	}
	ev.data = d;
	if (mc_ans_room(s, n)) {
		s->nthought++;
		mc_ans_emit(s, &ev);
	}
	free(d);
	mc_buf_free(&fixed);
}
