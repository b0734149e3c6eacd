/* turn.c: a turn: the user's message, then request, answer and tool calls until the model is done. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/stdlib.h>

#include "diag.h"
#include "items.h"
#include "json.h"
#include "mc.h"
#include "term.h"
#include "utf8.h"

/* What one answer held, and what of it was shown. */
struct answer {
	struct mc_buf text;	/* the answer's text as it came */
	struct mc_term term;	/* the terminal filter's state */
	struct mc_buf clean;
	cJSON *calls;		/* function_call items */
	const char *finish;	/* the done event's finish_reason, or NULL */
	int closed;		/* stdout went away */
	char last;		/* the last byte shown */
};

/* Show a piece of the answer as it comes; on a terminal, filtered. */
static void
stream(struct driver *d, struct answer *a, const char *p, size_t n)
{
	const char *w = p;
	size_t wn = n;

	if (a->text.len < EVENT_CAP)
		mc_buf_add(&a->text, p, n);
	if (a->closed)
		return;
	if (d->t.out) {
		a->clean.len = 0;
		mc_term_filter(&a->term, p, n, &a->clean);
		w = a->clean.data;
		wn = a->clean.len;
	}
	if (wn == 0)
		return;
	if (fwrite(w, 1, wn, stdout) != wn || fflush(stdout) == EOF) {
		a->closed = 1;
		return;
	}
	a->last = w[wn - 1];
}

/* The end of the answer's text on stdout: the filter's tail and a newline. */
static void
stream_end(struct driver *d, struct answer *a)
{
	a->clean.len = 0;
	if (d->t.out && !a->closed && mc_term_flush(&a->term, &a->clean) == 0 && a->clean.len > 0) {
		fwrite(a->clean.data, 1, a->clean.len, stdout);
		a->last = a->clean.data[a->clean.len - 1];
	}
	if (a->text.len > 0 && a->last != '\n' && !a->closed)
		putchar('\n');
	if (fflush(stdout) == EOF)
		a->closed = 1;
}

/* A provider that sends no call_id, or one the session already holds,
 * would make the history invalid: such a call gets an id of its own. */
static void
fresh_call_id(struct driver *d, cJSON *call)
{
	const char *cid = mc_json_str(call, "call_id");
	char id[32];

	if (cid != NULL && *cid != '\0' && !mc_session_has_call(&d->s.file, cid))
		return;
	do
		snprintf(id, sizeof id, "call_%08x%08x%08x", arc4random(), arc4random(),
		    arc4random());
	while (mc_session_has_call(&d->s.file, id));
	cJSON_DeleteItemFromObjectCaseSensitive(call, "call_id");
	mc_json_add_str(call, "call_id", id);
}

/*
 * The text of an answer that ended early (cancelled, or cut off by an
 * error), as the assistant message of the session: what the user saw,
 * then a line saying why it stops there, marked "status":"incomplete"
 * (the Responses API's word for an item cut short; mc-request sends only
 * role and content). Calls the answer was making are not kept.
 */
static void
keep_partial(struct driver *d, const struct mc_buf *text, const char *why)
{
	struct mc_buf b = {0};
	size_t n = 0, k;
	cJSON *m;

	/* The whole characters before any NUL: what a JSON string holds. */
	while (n < text->len && text->data[n] != '\0' &&
	    (k = mc_utf8_seqlen(text->data + n, text->len - n)) > 0)
		n += k;
	if (n == 0)
		return;
	mc_buf_add(&b, text->data, n);
	if (b.data[n - 1] != '\n')
		mc_buf_addc(&b, '\n');
	mc_buf_adds(&b, why);
	m = mc_item_message("assistant", b.data);
	mc_json_add_str(m, "status", "incomplete");
	mc_buf_free(&b);
	session_add(d, m);
}

/* The answer's items into the session; its calls are copied to calls. */
static int
keep_answer(struct driver *d, struct answer *a, cJSON *calls)
{
	cJSON *c;

	if (a->text.len > 0) {
		mc_buf_addc(&a->text, '\0');
		if (session_add(d, mc_item_message("assistant", a->text.data)) == -1)
			return -1;
	}
	cJSON_ArrayForEach(c, a->calls) {
		fresh_call_id(d, c);
		if (session_add(d, cJSON_Duplicate(c, 1)) == -1)
			return -1;
		mc_json_push(calls, cJSON_Duplicate(c, 1));
	}
	return 0;
}

/*
 * Read the answer's events from mc-send as they come: the text shown,
 * the calls gathered. Returns the run's status.
 */
static int
answer(struct driver *d, struct answer *a)
{
	const char *type, *delta;
	cJSON *ev;
	int r = -1;

	while (r == -1 && (ev = send_event(d)) != NULL) {
		type = mc_json_str(ev, "type");
		delta = mc_json_str(ev, "delta");
		if (strcmp(type, "text") == 0 && delta != NULL)
			stream(d, a, delta, strlen(delta));
		else if (strcmp(type, "tool_call") == 0)
			mc_json_push(a->calls, mc_item_call(mc_json_str(ev, "call_id") ?
			    mc_json_str(ev, "call_id") : "", mc_json_str(ev, "name") ?
			    mc_json_str(ev, "name") : "", mc_json_str(ev, "arguments") ?
			    mc_json_str(ev, "arguments") : ""));
		else if (strcmp(type, "done") == 0)
			r = MC_EXIT_OK;
		else if (strcmp(type, "error") == 0)
			r = MC_EXIT_FAIL;	/* mc-send has said why */
		cJSON_Delete(ev);
	}
	if (r == -1)
		r = interrupted ? MC_EXIT_INTR : MC_EXIT_FAIL;
	return r;
}

/*
 * One step: the session's request from mc-request (r, when started
 * already), sent through mc-send, its answer shown and kept. A dry run
 * prints the envelope instead and stops there. Returns the run's status.
 */
static int
step(struct driver *d, struct request *r, cJSON *calls)
{
	struct answer a = {0};
	int st;

	if (!r->started && request_start(d, r, d->s.tools.len > 0) == -1)
		return MC_EXIT_FAIL;
	if (request_finish(d, r) == -1) {
		request_free(r);
		return interrupted ? MC_EXIT_INTR : MC_EXIT_FAIL;
	}
	if (d->c.dry) {
		st = r->env.len == 0 || fwrite(r->env.data, 1, r->env.len, stdout) == r->env.len ?
		    MC_EXIT_OK : MC_EXIT_FAIL;
		request_free(r);
		return st;
	}
	st = send_envelope(d, r->env.data, r->env.len);
	request_free(r);
	if (st == -1)
		return interrupted ? MC_EXIT_INTR : MC_EXIT_FAIL;
	a.calls = mc_json_new_arr();
	st = answer(d, &a);
	stream_end(d, &a);
	if (a.closed)		/* the reader of our stdout left: stop quietly */
		st = MC_EXIT_OK;
	else if (st == MC_EXIT_OK)
		st = keep_answer(d, &a, calls) == 0 ? MC_EXIT_OK : MC_EXIT_FAIL;
	else
		keep_partial(d, &a.text, st == MC_EXIT_INTR ? "(cancelled by the user)" :
		    "(cut short by an error)");
	cJSON_Delete(a.calls);
	mc_buf_free(&a.text);
	mc_buf_free(&a.clean);
	return st;
}

/*
 * One user message: appended to the session before anything is sent, so
 * a failed turn keeps what was typed. Then the agent loop: while the
 * answer asks for tools, run them, append their outputs and send again,
 * at most --max-steps times. first, when not NULL, is the first request,
 * started already. Returns the run's status.
 */
int
turn(struct driver *d, const char *text, struct request *first)
{
	struct mc_buf touched = {0};
	struct request r = {0};
	long long n;
	cJSON *calls, *c;
	int st;

	if (session_begin(d) == -1 || session_add(d, mc_item_message("user", text)) == -1) {
		if (first != NULL)
			request_free(first);
		return MC_EXIT_FAIL;
	}
	calls = mc_json_new_arr();
	st = step(d, first ? first : &r, calls);
	for (n = 1; st == MC_EXIT_OK && cJSON_GetArraySize(calls) > 0; n++) {
		touched.len = 0;
		cJSON_ArrayForEach(c, calls) {
			if (st == MC_EXIT_OK)
				st = call_run(d, c, &touched);
			else if (st == MC_EXIT_INTR &&
			    call_output(d, mc_json_str(c, "call_id"),
			    "error: not run: the user interrupted an earlier call.") == -1)
				st = MC_EXIT_FAIL;
		}
		cJSON_Delete(calls);
		calls = mc_json_new_arr();
		if (st != MC_EXIT_OK)
			break;
		if (touched.len > 0)
			guides_inject(d, &touched);
		if (n >= d->c.max_steps) {
			mc_err("stopped after %lld step%s (--max-steps); `mc -c` goes on", n,
			    n == 1 ? "" : "s");
			st = MC_EXIT_FAIL;
			break;
		}
		st = step(d, &r, calls);
	}
	cJSON_Delete(calls);
	mc_buf_free(&touched);
	return st;
}
