/* compact.c: long sessions: the conversation compacted by mc-compact into a new session file (SPEC 12). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "items.h"
#include "json.h"
#include "mc.h"
#include "provider.h"
#include "toolenv.h"
#include "window.h"

#define THRESHOLD_PERCENT 80	/* of a known window: compacted before sending past it */

/* The context window of the model in use, in tokens (0: unknown), and
 * the setting that says it in from. */
static long long
window_of(const struct driver *d, char *from, size_t fromsz)
{
	struct mc_provider_opts o = { .provider = d->s.provider, .model = d->s.model };
	struct mc_provider p = {0};
	char err[512];
	long long w = 0;

	from[0] = '\0';
	/* An unknown provider is mc-request's to report, when it builds the request. */
	if (mc_provider_resolve(&d->c.set, &o, &p, err, sizeof err) == 0)
		w = mc_window_size(&d->c.set, p.name, p.model, from, fromsz);
	mc_provider_free(&p);
	return w;
}

long long
compact_estimate(struct driver *d)
{
	const char *start = d->s.file.lines.data, *end = start + d->s.file.lines.len, *p, *q;
	const char *seen = start + d->s.cmp.seen;
	long long tokens;
	char err[128];
	cJSON *item;
	int r;

	/* Only the lines added since the last look: the last usage line and
	 * where it ended are kept (a session with none is not scanned whole
	 * at every step). */
	if (d->s.cmp.seen > d->s.file.lines.len)
		d->s.cmp.seen = d->s.cmp.usage_end = d->s.cmp.usage = 0;
	for (q = end; start != NULL && q > seen; q = p) {
		p = mc_session_line_before(start, q);
		if (memmem(p, (size_t)(q - p), "\"usage\"", 7) == NULL)
			continue;
		item = mc_json_parse(p, (size_t)(q - p), err, sizeof err);
		r = item != NULL ? mc_window_usage(item, &tokens, err, sizeof err) : 0;
		cJSON_Delete(item);
		if (r == 1) {
			d->s.cmp.usage = tokens;
			d->s.cmp.usage_end = (size_t)(q - start);
			break;
		}
	}
	d->s.cmp.seen = d->s.file.lines.len;
	if (d->s.cmp.usage_end > 0)
		return d->s.cmp.usage + mc_window_tokens(d->s.file.lines.len - d->s.cmp.usage_end);
	return mc_window_tokens(d->s.prompt.len + tools_offered(d)->len + d->s.file.lines.len);
}

/*
 * Whether mc-compact gave the conversation back as it came (it had
 * nothing to compact): out is then its input's lines without the
 * bookkeeping lines, byte for byte.
 */
static int
unchanged(const struct mc_buf *in, const struct mc_buf *out)
{
	const char *p = in->data, *end = p + in->len, *nl;
	size_t at = 0, n;
	char err[64];
	cJSON *item;
	int skip;

	for (; p != NULL && p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end - 1;	/* never: every line of a session ends in one */
		n = (size_t)(nl - p) + 1;
		skip = 0;
		if (mc_item_maybe_bookkeeping(p, n)) {
			item = mc_json_parse(p, n - 1, err, sizeof err);
			skip = item != NULL && mc_item_bookkeeping(item);
			cJSON_Delete(item);
		}
		if (skip)
			continue;
		if (out->len - at < n || memcmp(out->data + at, p, n) != 0)
			return 0;
		at += n;
	}
	return at == out->len;
}

/*
 * mc-compact over the session's lines, fed through a pipe: the compacted
 * items in out. Its stderr is ours: its line saying what it did, or why
 * it could not, reaches the user as it is. The provider keys go with it,
 * for the mc-send it runs. 0, or -1 after saying why.
 */
static int
run_compact(struct driver *d, const struct mc_buf *in, long long window, long long told,
    const char *focus, struct mc_buf *out)
{
	char *argv[20], keep[32], win[32], tok[32], base[32], err[256], **env;
	struct mc_filter f = { .in = in->data, .inlen = in->len,
	    .collect = out, .cap = MC_SESSION_MAX, .stop = &interrupted };
	size_t k = 0;
	int st, r;

	argv[k++] = "mc-compact";
	argv[k++] = "-q";	/* the driver has said what the settings lack */
	k += told_args(d, argv + k);
	if (window > 0) {
		snprintf(win, sizeof win, "%lld", window);
		argv[k++] = "--window";
		argv[k++] = win;
	} else {
		/* No window known: the last fifth of the conversation is kept,
		 * as the provider counted it when it said. */
		snprintf(keep, sizeof keep, "%lld", (told > 0 ? told : mc_window_tokens(in->len)) / 5);
		argv[k++] = "--keep-tokens";
		argv[k++] = keep;
	}
	if (told > 0) {
		/* The provider's count beats the estimate (mc-compact scales by it). */
		snprintf(tok, sizeof tok, "%lld", told);
		argv[k++] = "--prompt-tokens";
		argv[k++] = tok;
	}
	/* What a count holds besides the items, so that it is not all put on them. */
	snprintf(base, sizeof base, "%lld", mc_window_tokens(d->s.prompt.len + tools_offered(d)->len));
	argv[k++] = "--base-tokens";
	argv[k++] = base;
	if (focus != NULL) {
		argv[k++] = "--focus";
		argv[k++] = (char *)focus;
	}
	argv[k] = NULL;
	f.envp = env = mc_env_merge(NULL, d->c.keys);
	r = mc_filter_run(argv, &f, &st, err, sizeof err);
	mc_env_free(env);
	if (r == -1) {
		mc_err("%s", err);
		return -1;
	}
	if (out->len > MC_SESSION_MAX) {
		mc_err("mc-compact: output over the %u-byte limit", MC_SESSION_MAX);
		return -1;
	}
	return stage_ok("mc-compact", st) ? 0 : -1;
}

/*
 * What the user is told: on stderr, after mc-compact's own line (what it
 * summarized and kept, the tokens before and after), why it ran and
 * where the session goes on; with --json, a compaction event.
 */
static void
tell(struct driver *d, enum compact_why why, const char *old, long long window,
    const char *from, long long before, long long after)
{
	char where[256];
	cJSON *ev;

	if (old != NULL)
		snprintf(where, sizeof where, "session %s goes on in %s (the old file is kept as "
		    "it was)", old, d->s.file.id);
	else
		snprintf(where, sizeof where, "the session goes on in memory (--no-session)");
	if (why == COMPACT_THRESHOLD)
		mc_note("the conversation reached about %lld tokens, over %d%% of the %lld-token "
		    "context window (%s), and was compacted; %s", before, THRESHOLD_PERCENT, window,
		    from, where);
	else if (why == COMPACT_OVERFLOW)
		mc_note("the request did not fit the model's context window: the conversation was "
		    "compacted and the request is sent once more; %s", where);
	else
		mc_note("%s", where);
	if (!d->c.json)
		return;
	ev = ev_new("compaction");
	mc_json_add_str(ev, "from", old);
	mc_json_add_str(ev, "to", d->s.file.id);
	mc_json_add_num(ev, "tokens_before", (double)before);
	mc_json_add_num(ev, "tokens_after", (double)after);
	ev_emit(d, ev);
}

/* What mc-compact reads: the session's lines, and the message about to
 * be added when there is one (in *own, which the caller frees, or the
 * session's own lines as they are). */
static const struct mc_buf *
compact_input(const struct driver *d, const cJSON *pending, struct mc_buf *own)
{
	char *s;
	size_t n;

	if (pending == NULL)
		return &d->s.file.lines;
	mc_buf_add(own, d->s.file.lines.data ? d->s.file.lines.data : "", d->s.file.lines.len);
	s = mc_json_compact(pending, &n);
	mc_buf_add(own, s, n);
	mc_buf_addc(own, '\n');
	free(s);
	return own;
}

int
compact_run(struct driver *d, enum compact_why why, const char *focus, const cJSON *pending)
{
	struct mc_buf out = {0}, own = {0};
	const struct mc_buf *in;
	long long window, before;
	char from[512], *old = NULL;
	cJSON *more, *g;
	size_t i;
	int r = -1;

	if (!d->s.open || d->s.file.items == 0) {
		mc_note("nothing to compact: the session holds no conversation yet");
		return 0;
	}
	window = window_of(d, from, sizeof from);
	before = compact_estimate(d);
	in = compact_input(d, pending, &own);
	if (pending != NULL)
		before += mc_window_tokens(own.len - d->s.file.lines.len);
	if (run_compact(d, in, window, why == COMPACT_OVERFLOW ? d->s.cmp.told : 0, focus,
	    &out) == -1)
		goto out;
	if (unchanged(in, &out)) {
		r = 0;		/* mc-compact said so */
		goto out;
	}
	/* The guides injected so far, which the summary stands for (so
	 * that `mc -c` does not inject them again). */
	more = mc_json_new_obj();
	if (d->s.nguides > 0) {
		g = mc_json_add(more, "guides", mc_json_new_arr());
		for (i = 0; i < d->s.nguides; i++)
			mc_json_push(g, mc_json_new_str(d->s.guides[i]));
	}
	old = mc_strdup(d->s.file.id);
	r = session_branch(d, "compacted_from", more, out.data, out.len);
	cJSON_Delete(more);
	if (r == -1)
		goto out;
	tell(d, why, old, window, from, before, compact_estimate(d));
	r = 1;
out:
	free(old);
	mc_buf_free(&out);
	mc_buf_free(&own);
	return r;
}

/* The estimate of the message not yet in the session. */
static long long
pending_tokens(const cJSON *pending)
{
	size_t n = 0;

	if (pending != NULL)
		free(mc_json_compact(pending, &n));
	return mc_window_tokens(n);
}

int
compact_due(struct driver *d, const cJSON *pending)
{
	long long window, tokens;
	char from[512];
	int r;

	if (!d->s.open || d->s.cmp.stuck || d->s.file.items == d->s.cmp.futile ||
	    (window = window_of(d, from, sizeof from)) == 0)
		return 0;
	tokens = compact_estimate(d) + pending_tokens(pending);
	if (tokens * 100 <= window * THRESHOLD_PERCENT)
		return 0;
	if (d->c.dry) {
		mc_note("the conversation is about %lld tokens, over %d%% of the %lld-token context "
		    "window (%s): a run that sends would compact it first", tokens,
		    THRESHOLD_PERCENT, window, from);
		return 0;
	}
	if ((r = compact_run(d, COMPACT_THRESHOLD, NULL, pending)) == -1) {
		if (!interrupted)
			mc_err("the conversation could not be compacted; nothing was sent");
		return -1;
	}
	if (r == 0) {
		/* Nothing to compact: sent as it is, not tried again until it
		 * grows (past the message the caller adds). */
		d->s.cmp.futile = d->s.file.items + (pending != NULL);
		return 0;
	}
	if ((tokens = compact_estimate(d)) * 100 > window * THRESHOLD_PERCENT) {
		mc_warn("the compacted conversation is still about %lld tokens, over %d%% of the "
		    "%lld-token context window (%s): no more automatic compaction in this session",
		    tokens, THRESHOLD_PERCENT, window, from);
		d->s.cmp.stuck = 1;
	}
	return 1;
}

void
compact_seen_error(struct driver *d, const cJSON *ev)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(ev, "status");

	d->s.cmp.overflowed = mc_window_overflow(cJSON_IsNumber(st) ? st->valueint : 0,
	    mc_json_str(ev, "code"), mc_json_str(ev, "message"));
	d->s.cmp.told = d->s.cmp.overflowed ? mc_json_count(ev, "prompt_tokens") : 0;
}

int
compact_overflowed(struct driver *d)
{
	int r;

	if (!d->s.cmp.overflowed || interrupted || d->c.dry)
		return 0;
	d->s.cmp.overflowed = 0;
	if ((r = compact_run(d, COMPACT_OVERFLOW, NULL, NULL)) == 0)
		mc_err("the request does not fit the model's context window, and there is "
		    "nothing to compact");
	else if (r == -1 && !interrupted)
		mc_err("the conversation could not be compacted; the request is not sent again");
	return r == 1;
}
