/* turn.c: a turn: the user's message, then request, answer and tool calls until the model is done. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "diag.h"
#include "items.h"
#include "json.h"
#include "mc.h"
#include "schema.h"
#include "term.h"
#include "utf8.h"

#define MAX_PAUSES 8	/* pause_turn answers asked on in a row */

/* What one answer held, and what of it was shown. */
struct answer {
	struct mc_buf text;	/* the answer's text as it came */
	struct mc_buf refusal;	/* the model's refusal, kept apart */
	struct mc_buf thought;	/* its reasoning's text, for after_reasoning hooks */
	int thought_deltas;	/* the text came as reasoning deltas */
	struct fold fold;	/* thought.c: the reasoning folded on the terminal */
	struct mc_term term;	/* the terminal filter's state */
	struct mc_buf clean;
	cJSON *calls;		/* function_call items */
	cJSON *reasoning;	/* reasoning items (Messages' thinking blocks) */
	char finish[32];	/* the done event's finish_reason */
	struct usage used;
	int got_usage;
	int cached;		/* it came from mc-send's cache: nothing spent */
	int quiet;		/* the text waits for the end (--schema) */
	int closed;		/* stdout went away */
	char last;		/* the last byte shown */
};

/* Show a piece of the answer as it comes: an event with --json; on a
 * terminal, filtered. */
static void
stream(struct driver *d, struct answer *a, const char *type, const char *p, size_t n)
{
	struct mc_buf *keep = strcmp(type, "text") == 0 ? &a->text : &a->refusal;
	const char *w = p;
	size_t wn = n;
	cJSON *ev;

	if (keep->len < EVENT_CAP)
		mc_buf_add(keep, p, n);
	fold_clear(d, &a->fold);	/* the answer begins: its reasoning goes */
	if (d->c.json) {
		if (a->quiet && keep == &a->text)
			return;		/* schema_answer says it, compact */
		ev = ev_new(type);
		mc_json_add_str(ev, "delta", p);
		ev_emit(d, ev);
		if (ferror(stdout))
			a->closed = 1;
		return;
	}
	if (a->closed || a->quiet)
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
	if (d->c.json || a->quiet)
		return;
	a->clean.len = 0;
	if (d->t.out && !a->closed)
		mc_term_flush(&a->term, &a->clean);
	if (a->clean.len > 0) {
		fwrite(a->clean.data, 1, a->clean.len, stdout);
		a->last = a->clean.data[a->clean.len - 1];
	}
	if (a->text.len + a->refusal.len > 0 && a->last != '\n' && !a->closed)
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
	char id[MC_CALL_ID_SIZE];
	unsigned long long n = 0;

	if (cid != NULL && *cid != '\0' && !mc_session_has_call(&d->s.file, cid))
		return;
	do
		mc_item_call_id(id, n++, mc_json_str(call, "name"), mc_json_str(call, "arguments"));
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

/*
 * A --schema answer that will not do: the error (with --json an error
 * event that holds the answer too), then the answer itself on stderr as
 * it came, line by line, so that nothing the model wrote is lost.
 */
static void
schema_reject(struct driver *d, const struct answer *a, const char *msg)
{
	void (*hook)(const char *) = mc_diag_hook;
	const char *p = a->text.data ? a->text.data : "", *end = p + a->text.len, *nl;
	char said[4 * 1400 + 1], *line, *clean;
	size_t n;
	cJSON *ev;

	mc_diag_hook = NULL;	/* the event is this one, with the answer */
	mc_err("%s", msg);
	mc_diag_hook = hook;
	if (d->c.json) {
		ev = ev_new("error");
		mc_json_add_str(ev, "message", mc_sanitize(said, sizeof said, msg));
		mc_json_add_str(ev, "answer", p);
		ev_emit(d, ev);
	}
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		n = (size_t)(nl - p);
		line = mc_strndup(p, n);
		if ((clean = malloc(n * 4 + 1)) == NULL)
			mc_oom();
		fprintf(stderr, "%s\n", mc_sanitize(clean, n * 4 + 1, line));
		free(clean);
		free(line);
	}
}

/*
 * The final answer of a --schema run must be JSON matching the schema:
 * printed compact (in a text event with --json); else the first mismatch
 * is named by its JSON pointer, and the answer shown on stderr.
 */
static int
schema_answer(struct driver *d, struct answer *a)
{
	char err[256], ptr[512], why[512], msg[1400], *s;
	cJSON *v, *ev;
	size_t n;

	if ((v = mc_json_parse(a->text.data ? a->text.data : "", a->text.len, err,
	    sizeof err)) == NULL) {
		snprintf(msg, sizeof msg, "--schema: the answer is not JSON: %s; it was:", err);
		schema_reject(d, a, msg);
		return -1;
	}
	if (d->c.schema_doc != NULL &&
	    mc_schema_check(d->c.schema_doc, v, ptr, sizeof ptr, why, sizeof why) == -1) {
		snprintf(msg, sizeof msg, "--schema: the answer does not match the schema at %s%s: "
		    "%s; it was:", ptr[0] ? ptr : "the top level", ptr[0] ? "" : " (\"\")", why);
		cJSON_Delete(v);
		schema_reject(d, a, msg);
		return -1;
	}
	s = mc_json_compact(v, &n);
	cJSON_Delete(v);
	if (d->c.json) {
		ev = ev_new("text");
		mc_json_add_str(ev, "delta", s);
		ev_emit(d, ev);
	} else {
		s[n] = '\n';
		fwrite(s, 1, n + 1, stdout);
		fflush(stdout);
	}
	free(s);
	return 0;
}

/* The answer's items into the session; its calls are copied to calls. An
 * answer cut by the output limit is marked incomplete, its calls dropped. */
static int
keep_answer(struct driver *d, struct answer *a, int cut, cJSON *calls)
{
	cJSON *m, *c, *ev;

	/* The model's reasoning first, as it came: Messages wants its
	 * thinking blocks back, unchanged, before the calls they led to. */
	if (!cut)
		cJSON_ArrayForEach(c, a->reasoning)
			if (session_add(d, cJSON_Duplicate(c, 1)) == -1)
				return -1;
	if (a->text.len > 0 || a->refusal.len > 0) {
		mc_buf_adds(&a->text, "");
		m = mc_item_message("assistant", a->text.data);
		if (a->refusal.len > 0)
			mc_json_add_str(m, "refusal", a->refusal.data);
		if (cut)
			mc_json_add_str(m, "status", "incomplete");
		if (session_add(d, m) == -1)
			return -1;
	}
	if (cut)
		return 0;
	cJSON_ArrayForEach(c, a->calls) {
		fresh_call_id(d, c);
		if (session_add(d, cJSON_Duplicate(c, 1)) == -1)
			return -1;
		if (d->c.json) {
			ev = cJSON_Duplicate(c, 1);
			cJSON_ReplaceItemInObjectCaseSensitive(ev, "type", mc_json_new_str("tool_call"));
			ev_emit(d, ev);
		}
		mc_json_push(calls, cJSON_Duplicate(c, 1));
	}
	return 0;
}

/* The answer's usage: counted, in the session as bookkeeping, an event
 * with --json. */
static void
account(struct driver *d, const struct answer *a)
{
	cJSON *ev;

	if (a->cached)
		d->s.replayed++;
	if (!a->got_usage)
		return;
	if (!a->cached)
		usage_add(&d->s.run, &a->used);
	session_usage(d, &a->used, a->cached);
	if (d->c.json) {
		ev = ev_new("usage");
		usage_put(ev, &a->used);
		if (a->cached)
			mc_json_add(ev, "cached", cJSON_CreateTrue());
		ev_emit(d, ev);
	}
}

/* The reasoning's text, kept (up to a cap) for after_reasoning hooks. */
static void
thought(struct answer *a, const char *text)
{
	if (a->thought.len < EVENT_CAP)
		mc_buf_adds(&a->thought, text);
}

/*
 * Read the answer's events from mc-send as they come: the text shown,
 * the calls gathered, the usage noted. Returns 0 at its done event, -1
 * when it failed (mc-send has said why; with --json its error event is
 * passed on) or was interrupted, or when the reader of our stdout went
 * away: then the request is cancelled at once (mc-send ended, its
 * connection with it) rather than read to its end for no one.
 */
static int
answer(struct driver *d, struct answer *a)
{
	const char *type, *delta, *fr;
	cJSON *ev;
	int r = 1;

	while (r == 1 && !a->closed && (ev = send_event(d)) != NULL) {
		sandbox_ask(d);		/* the request is on the wire by now */
		type = mc_json_str(ev, "type");
		delta = mc_json_str(ev, "delta");
		if ((strcmp(type, "text") == 0 || strcmp(type, "refusal") == 0) && delta != NULL)
			stream(d, a, type, delta, strlen(delta));
		else if (strcmp(type, "reasoning") == 0 && delta != NULL) {
			a->thought_deltas = 1;
			thought(a, delta);
			fold_add(d, &a->fold, delta);
			if (d->c.json) {	/* passed on as it came */
				ev_emit(d, ev);
				ev = NULL;
			}
		}
		else if (strcmp(type, "tool_call") == 0)
			mc_json_push(a->calls, mc_item_call(mc_json_str(ev, "call_id") ?
			    mc_json_str(ev, "call_id") : "", mc_json_str(ev, "name") ?
			    mc_json_str(ev, "name") : "", mc_json_str(ev, "arguments") ?
			    mc_json_str(ev, "arguments") : ""));
		else if (strcmp(type, "reasoning_item") == 0) {
			if (!a->thought_deltas)	/* the whole block is the text */
				thought(a, mc_json_str(ev, "text") ? mc_json_str(ev, "text") : "");
			mc_json_push(a->reasoning, mc_item_reasoning(mc_json_str(ev, "text") ?
			    mc_json_str(ev, "text") : "", mc_json_str(ev, "api"),
			    mc_json_obj(ev, "data")));
		} else if (strcmp(type, "usage") == 0) {
			a->used = usage_of(ev);
			a->got_usage = 1;
			a->cached |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "cached"));
		} else if (strcmp(type, "done") == 0) {
			a->cached |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "cached"));
			fr = mc_json_str(ev, "finish_reason");
			snprintf(a->finish, sizeof a->finish, "%s", fr ? fr : "stop");
			r = 0;
		} else if (strcmp(type, "error") == 0) {
			compact_seen_error(d, ev);	/* compact2: an overflow? */
			reasoning_refused(d, ev);	/* thought.c: a level refused? */
			if (d->c.json) {
				ev_emit(d, ev);
				ev = NULL;
			}
			r = -1;
		}
		cJSON_Delete(ev);
	}
	if (r == 1 && a->closed)
		send_stop(d, 1);
	return r == 1 ? -1 : r;
}

/* hooks.c: an answer's after_reasoning hooks, when it reasoned, then its
 * after_assistant hooks, when it said something. -1 when one of them
 * ends the run. */
static int
after_hooks(struct driver *d, struct answer *a)
{
	if (a->thought.len > 0 && hooks_after_reasoning(d, a->thought.data) == -1)
		return -1;
	return a->text.len > 0 ? hooks_after_assistant(d, a->text.data) : 0;
}

/*
 * One step: the session's request from mc-request, sent through mc-send,
 * its answer shown and kept; the calls it asks for in calls. A dry run
 * prints the envelope instead and stops there. Returns how the step
 * ended (OUT_STOP also when calls follow); *paused is set when the
 * provider paused the answer (Messages' pause_turn), to be asked again.
 */
static enum outcome
step(struct driver *d, cJSON *calls, int *paused)
{
	struct answer a = { .quiet = d->c.schema != NULL };
	enum outcome o = OUT_STOP;
	size_t len;
	int st;

	*paused = 0;
	mcp_sync(d);	/* mcp.c: a server's changed tools first */
	if (build_request(d, &len) == -1)
		return interrupted ? OUT_CANCELLED : OUT_ERROR;
	if (d->c.dry) {
		st = fflush(stdout) != EOF && build_pass(d, STDOUT_FILENO, len) == 0;
		return st ? OUT_STOP : OUT_ERROR;
	}
	if (send_envelope(d, len) == -1)
		return interrupted ? OUT_CANCELLED : OUT_ERROR;
	d->s.steps++;
	a.calls = mc_json_new_arr();
	a.reasoning = mc_json_new_arr();
	st = answer(d, &a);
	fold_clear(d, &a.fold);
	fold_free(&a.fold);
	if (a.thought.len > 0)
		reasoning_keep(d, a.thought.data, a.thought.len);
	stream_end(d, &a);
	sandbox_told(d);
	if (st == 0) {
		*paused = strcmp(a.finish, "pause_turn") == 0;
		if (strcmp(a.finish, "length") == 0)
			o = OUT_LENGTH;
		else if (strcmp(a.finish, "refusal") == 0)
			o = OUT_REFUSAL;
		if (keep_answer(d, &a, o == OUT_LENGTH, calls) == -1)
			o = OUT_ERROR;
		account(d, &a);
		if (o != OUT_ERROR && after_hooks(d, &a) == -1)
			o = OUT_ERROR;
		if (a.cached && !d->c.json)
			cached_line(d);
		if (a.quiet && o == OUT_STOP && cJSON_GetArraySize(calls) == 0 &&
		    schema_answer(d, &a) == -1)
			o = OUT_ERROR;
	} else if (a.closed) {
		keep_partial(d, &a.text, "(stopped: the reader of the output went away)");
	} else {
		o = interrupted ? OUT_CANCELLED : OUT_ERROR;
		keep_partial(d, &a.text, o != OUT_CANCELLED ? "(cut short by an error)" :
		    timed_out ? "(stopped by the run's --timeout)" : "(cancelled by the user)");
	}
	if (a.closed) {		/* the reader of our stdout left: stop quietly */
		d->t.gone = 1;
		o = OUT_STOP;
	}
	cJSON_Delete(a.calls);
	cJSON_Delete(a.reasoning);
	mc_buf_free(&a.text);
	mc_buf_free(&a.refusal);
	mc_buf_free(&a.thought);
	mc_buf_free(&a.clean);
	return o;
}

/*
 * compact2 (SPEC 12, compact.c): one step, the session compacted first
 * when the request would pass 80% of a known window (unless the caller
 * has just seen to it: due 0); when the provider answers that it does
 * not fit, compacted once and sent once more, never again.
 */
static enum outcome
step_fitted(struct driver *d, cJSON *calls, int due)
{
	enum outcome o;
	int paused, pauses = 0;

	if (due && compact_due(d, NULL) == -1)
		return interrupted ? OUT_CANCELLED : OUT_ERROR;
	d->s.cmp.overflowed = 0;
	o = step(d, calls, &paused);
	/* A paused answer is in the session, ending it: the same request
	 * with it sent again lets the model go on, as the API asks. */
	while (o == OUT_STOP && paused && cJSON_GetArraySize(calls) == 0 && pauses++ < MAX_PAUSES)
		o = step(d, calls, &paused);
	if (o == OUT_ERROR && compact_overflowed(d)) {
		o = step(d, calls, &paused);
		if (o == OUT_ERROR && d->s.cmp.overflowed)
			mc_err("the request does not fit the model's context window even compacted; "
			    "it is not sent again");
	} else if (o == OUT_ERROR && interrupted)
		o = OUT_CANCELLED;	/* while compacting */
	return o;
}

/* An interactive turn's tokens, its steps' summed: one dim line when it
 * ends, if the provider counted any. */
static void
turn_usage(const struct driver *d, const struct usage *before)
{
	struct usage u = {
		.input = d->s.run.input - before->input,
		.output = d->s.run.output - before->output,
		.cached = d->s.run.cached - before->cached,
		.written = d->s.run.written - before->written,
	};

	if (u.input > 0 || u.output > 0)
		usage_line(d, &u);
}

int
outcome_status(enum outcome o)
{
	switch (o) {
	case OUT_STOP:
	case OUT_REFUSAL:
		return MC_EXIT_OK;
	case OUT_MAX_STEPS:
	case OUT_LENGTH:
		return MC_EXIT_INCOMPLETE;
	case OUT_CANCELLED:
		return MC_EXIT_INTR;
	case OUT_TIMEOUT:
		return MC_EXIT_TIMEOUT;
	default:
		return MC_EXIT_FAIL;
	}
}

/* How a run stopped short goes on: in the interactive session, a next
 * prompt; a one-shot run, `mc -c`; one without a session, again with a
 * larger option. */
static const char *
go_on(const struct driver *d, const char *option)
{
	static char again[64];

	if (d->t.el != NULL)
		return "a new prompt (\"go on\") goes on";
	if (!d->c.no_session)
		return "`mc -c` goes on";
	snprintf(again, sizeof again, "run it again with a larger %s", option);
	return again;
}

/* A call not run since a hook's failure (on_failure "fail") ends the run:
 * its output says so, for the session to stay whole. */
static int
not_run(struct driver *d, const cJSON *call)
{
	char msg[128];

	snprintf(msg, sizeof msg, "error: not run: the hook %s failed and ended the run.",
	    hooks_fatal(d));
	return call_output(d, call, msg) == -1 ? MC_EXIT_FAIL : MC_EXIT_OK;
}

/*
 * One user message: appended to the session before anything is sent, so
 * a failed turn keeps what was typed. Then the agent loop: while the
 * answer asks for tools, run them, append their outputs and send again,
 * at most --max-steps times. Returns how the turn ended.
 */
/* Whether the session ends in a message the user typed that got no
 * answer (its turn failed): it goes to the model again with the next
 * one, which the user should know. Bookkeeping lines are passed over. */
static int
unanswered(const struct driver *d)
{
	const char *data = d->s.file.lines.data, *end = data + d->s.file.lines.len, *p;
	char err[64];
	cJSON *item;
	int r = 0;

	while (end > data) {
		for (p = end - 1; p > data && p[-1] != '\n'; p--)
			;
		if ((item = mc_json_parse(p, (size_t)(end - p), err, sizeof err)) == NULL)
			return 0;
		if (mc_item_bookkeeping(item)) {	/* items.c: usage, model, title, tools_loaded */
			cJSON_Delete(item);
			end = p;
			continue;
		}
		r = mc_session_is_turn(item);
		cJSON_Delete(item);
		break;
	}
	return r;
}

enum outcome
turn(struct driver *d, const char *text)
{
	struct mc_buf touched = {0};
	struct usage before = d->s.run;
	enum outcome o;
	long long n;
	cJSON *calls, *c, *msg, *plan, *mentioned, *title;
	int st;

	if (d->s.open && unanswered(d))
		mc_note("the last message got no answer (its turn failed or was cancelled); "
		    "it is sent again, before this one");
	/* mentions.c: the resources the message names (@SERVER:URI), read
	 * before anything of the turn is kept: one that cannot be read
	 * stops the turn, nothing sent */
	if (mentions_read(d, text, &mentioned) == -1)
		return OUT_ERROR;
	title = title_first(d, text);	/* title.c: a new session's, for its header */
	if (title != NULL && session_add(d, title) == -1) {
		cJSON_Delete(mentioned);
		return OUT_ERROR;
	}
	/* hooks.c: a new session's session_start hooks, before its first
	 * message; modes.c: plan mode's fragment before the message.
	 * compact2: a compaction the message makes due takes it as its last
	 * item, so that it goes to the new file only (SPEC 12: the old one
	 * is left as it was); when none happens, or it fails, the message
	 * goes to the session as it is (nothing typed is lost). */
	if (session_begin(d) == -1 || hooks_session_start(d) == -1 || mode_turn(d, &plan) == -1 ||
	    (plan != NULL && session_add(d, plan) == -1)) {
		cJSON_Delete(mentioned);
		return OUT_ERROR;
	}
	if (mentions_attach(d, mentioned) == -1)
		return OUT_ERROR;
	/* mc acp: the prompt's embedded resources, after the hooks' context
	 * as a mention's */
	mentioned = d->context;
	d->context = NULL;
	if (mentions_attach(d, mentioned) == -1)
		return OUT_ERROR;
	msg = mc_item_message("user", text);
	attach_put(d, msg);	/* attach.c: mc -a's images, and those queued */
	if ((st = compact_due(d, msg)) == 1)
		cJSON_Delete(msg);	/* in the new file, as the compaction's last item */
	else if (session_add(d, msg) == -1)
		return OUT_ERROR;
	if (st == -1)
		return interrupted ? OUT_CANCELLED : OUT_ERROR;
	calls = mc_json_new_arr();
	o = step_fitted(d, calls, 0);
	/* An answer without calls ends the loop, unless a stop hook (hooks.c)
	 * sends the model back to work: then the loop runs no call and sends
	 * again, a step like any other. */
	for (n = 1; o == OUT_STOP && !d->t.gone &&
	    (cJSON_GetArraySize(calls) > 0 || hooks_stop(d, &o) == 1);
	    n++) {
		touched.len = 0;
		st = MC_EXIT_OK;
		cJSON_ArrayForEach(c, calls) {
			if (st == MC_EXIT_OK && !hooks_fatal(d))
				st = call_run(d, c, &touched);
			else if (st == MC_EXIT_OK)
				st = not_run(d, c);
			else if (st == MC_EXIT_INTR &&
			    call_output(d, c,
			    timed_out ? "error: not run: the run's --timeout came during an earlier call." :
			    "error: not run: the user interrupted an earlier call.") == -1)
				st = MC_EXIT_FAIL;
		}
		cJSON_Delete(calls);
		calls = mc_json_new_arr();
		if (st == MC_EXIT_OK && hooks_fatal(d))
			st = MC_EXIT_FAIL;
		if (st != MC_EXIT_OK) {
			o = st == MC_EXIT_INTR ? OUT_CANCELLED : OUT_ERROR;
			break;
		}
		if (touched.len > 0)
			guides_inject(d, &touched);
		if (n >= d->c.max_steps) {
			o = OUT_MAX_STEPS;
			break;
		}
		o = step_fitted(d, calls, 1);	/* compact2 */
	}
	checkpoint_after(d);	/* checkpoint.c: what the turn changed */
	cJSON_ArrayForEach(c, calls)	/* an answer after which a hook ended the run */
		if (hooks_fatal(d) && not_run(d, c) != MC_EXIT_OK)
			break;
	if (d->t.el != NULL)
		turn_usage(d, &before);
	/* Not errors: the run stopped short, and how to go on. */
	if (o == OUT_MAX_STEPS)
		mc_note("stopped after %lld step%s (--max-steps); %s", n, n == 1 ? "" : "s",
		    go_on(d, "--max-steps"));
	else if (o == OUT_LENGTH)
		mc_note("the answer was cut by the output limit (--max-output-tokens); %s",
		    go_on(d, "--max-output-tokens"));
	cJSON_Delete(calls);
	mc_buf_free(&touched);
	return o;
}
