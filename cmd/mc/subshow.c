/* subshow.c: the subagents' progress: a status line per task on the terminal, redrawn in place; subagent events with --json. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "subagents.h"
#include "utf8.h"

/* What a task came to: done, failed, max_steps or cancelled. */
const char *
subshow_outcome(const struct task *t)
{
	if (strcmp(t->reason, "stop") == 0 || strcmp(t->reason, "refusal") == 0)
		return "done";
	if (strcmp(t->reason, "max_steps") == 0)
		return "max_steps";
	if (strcmp(t->reason, "cancelled") == 0 || (t->reason[0] == '\0' && t->killed))
		return "cancelled";
	return "failed";
}

/* With --json, a subagent event: start, step or done. */
void
subshow_event(struct run *R, struct task *t, const char *what)
{
	cJSON *ev;

	if (!R->d->c.json)
		return;
	ev = ev_new("subagent");
	mc_json_add_str(ev, "event", what);
	mc_json_add_num(ev, "task", t->n);
	mc_json_add_str(ev, "agent", t->agent);
	mc_json_add_str(ev, "session", t->session);
	if (strcmp(what, "start") == 0 && t->model)
		mc_json_add_str(ev, "model", t->model);
	if (strcmp(what, "step") == 0) {
		mc_json_add_num(ev, "step", (double)t->steps);
		if (t->tool)
			mc_json_add_str(ev, "tool", t->tool);
	}
	if (strcmp(what, "done") == 0) {
		mc_json_add_str(ev, "status", subshow_outcome(t));
		mc_json_add_num(ev, "steps", (double)t->steps);
		mc_json_add(ev, "usage", ev_usage(&t->used));
	}
	ev_emit(R->d, ev);
}

/* One status line of a task, cut to width columns (its text is ASCII
 * but for the tool's name, sanitized). */
static void
status_line(const struct run *R, const struct task *t, int width, struct mc_buf *b)
{
	char tool[128], line[512];
	size_t n;

	if (t->state == QUEUED)
		snprintf(line, sizeof line, "  subagent %d %s: queued", t->n, t->agent);
	else if (t->state == ENDED)
		snprintf(line, sizeof line, "  subagent %d %s: %s, %lld step%s, %lld tokens", t->n,
		    t->agent, subshow_outcome(t), t->steps, t->steps == 1 ? "" : "s",
		    t->used.input + t->used.output);
	else if (t->steps == 0)
		snprintf(line, sizeof line, "  subagent %d %s: starting", t->n, t->agent);
	else
		snprintf(line, sizeof line, "  subagent %d %s: step %lld%s%s", t->n, t->agent,
		    t->steps, t->tool ? ", " : "", t->tool ? mc_sanitize(tool, sizeof tool,
		    t->tool) : "");
	n = strlen(line);
	if (width > 1 && n > (size_t)width - 1)
		n = mc_utf8_floor(line, (size_t)width - 1);
	mc_buf_adds(b, "\033[2K");
	if (R->d->t.color)
		mc_buf_adds(b, "\033[2m");
	mc_buf_add(b, line, n);
	if (R->d->t.color)
		mc_buf_adds(b, "\033[0m");
	mc_buf_addc(b, '\n');
}

/* On a terminal: one line per task on stderr, redrawn in place. */
void
subshow_draw(struct run *R, int now)
{
	struct mc_buf b = {0};
	int width;
	size_t i;

	if (!R->draw || !R->dirty || (!now && mc_clock_ms() - R->drawn_at < DRAW_MS))
		return;
	width = term_width(STDERR_FILENO);
	if (R->drawn > 0)
		mc_buf_printf(&b, "\r\033[%dA", R->drawn);
	for (i = 0; i < R->n; i++)
		status_line(R, &R->t[i], width, &b);
	(void)mc_write_all(STDERR_FILENO, b.data, b.len);
	mc_buf_free(&b);
	R->drawn = (int)R->n;
	R->dirty = 0;
	R->drawn_at = mc_clock_ms();
}

