/* mc-compact: replace the older part of a session by a summary the model writes, keeping the recent turns verbatim. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bsd/stdlib.h>

#include "buf.h"
#include "clip.h"
#include "diag.h"
#include "fsread.h"
#include "items.h"
#include "json.h"
#include "pipeline.h"
#include "provider.h"
#include "settings.h"
#include "toolenv.h"
#include "utf8.h"
#include "window.h"

#define OUTPUT_CUT 2048		/* a tool output in the summarized part is cut to this */
#define FIT_PERCENT 90		/* of the window: the most the summary request may take */
#define PROMPT_MAX (1u << 20)	/* the rendered fragment */
#define EVENTS_MAX (16u << 20)	/* mc-send's events for the summary */
#define TOKENS_MAX 1000000000000LL

static const char usage[] =
    "usage: mc-compact [-q] [-p NAME] [-m ID] [--keep-tokens N] [--window N]\n"
    "                  [--prompt-tokens N] [--base-tokens N] [--focus TEXT]\n"
    "                  < ITEMS > COMPACTED\n"
    "\n"
    "Read a session's items on stdin and write them compacted: a summary of the\n"
    "older items, written by the model, then the recent turns as they were.\n"
    "\n"
    "  -p, --provider NAME  provider of the summary request (as for mc-request)\n"
    "  -m, --model ID       model of the summary request (as for mc-request)\n"
    "  --keep-tokens N      keep the turns of the last N tokens verbatim\n"
    "                       (default: 20% of the context window)\n"
    "  --window N           the model's context window, in tokens (default: the\n"
    "                       setting models.ID or providers.NAME .context_window)\n"
    "  --prompt-tokens N    the provider counted N tokens in a request of these\n"
    "                       items that did not fit (its context-overflow error)\n"
    "  --base-tokens N      a request holds about N tokens besides the items (its\n"
    "                       system prompt and tools), by the estimate\n"
    "  --focus TEXT         what the summary should above all keep\n"
    "  -q                   no warnings on stderr\n"
    "  -h, --help           show this help\n"
    "  --version            show the version\n";

static const char ask[] =
    "Write the summary of the conversation above now, as the system prompt says.";

/* Options. */
static struct mc_provider_opts popts;
static long long keep = -1;	/* -1: 20% of the window */
static long long window;	/* 0: unknown */
static long long told;		/* --prompt-tokens; 0: not given */
static long long base;		/* --base-tokens */
static const char *focus;

/* A conversation item as it came: its line, and the item checked. */
struct line {
	const char *p;		/* the line in the input, without its newline */
	size_t n;
	long long tokens;	/* its estimate */
	cJSON *item;		/* an element of session.items */
};

struct session {
	struct mc_buf in;	/* standard input */
	struct line *lines;	/* the conversation items, in order */
	size_t n, cap;
	cJSON *items;		/* the same, checked by mc_items_parse */
	long long usage;	/* the last usage record's count; -1: none */
	size_t usage_at;	/* the items before that record */
	long long real;		/* the provider's count: told, else usage; -1: none */
	size_t real_at;		/* the items it covers */
};

/* The summary request's answer, from mc-send's events. */
struct answer {
	struct mc_buf text;
	char finish[64];	/* "" when no done event came */
	long long tokens;	/* the answer's output tokens; 0: not said */
	int failed, status;
	char code[128], message[2048];
};

static void
add_line(struct session *S, const char *p, size_t n)
{
	struct line *l;

	if (S->n == S->cap) {
		S->cap = S->cap ? S->cap * 2 : 64;
		if ((l = reallocarray(S->lines, S->cap, sizeof *l)) == NULL)
			mc_oom();
		S->lines = l;
	}
	S->lines[S->n++] = (struct line){ p, n, mc_window_tokens(n), NULL };
}

/*
 * Read the items on stdin. The session header (line 1) and the session's
 * bookkeeping lines (usage records, model lines) are set aside and blanked
 * where they stand (they are never written out), so that mc_items_parse
 * checks the rest with the input's line numbers. Only lines that may be
 * one (they name a bookkeeping type: mc_item_maybe_bookkeeping) are parsed here.
 */
static int
read_session(struct session *S)
{
	char err[1024], *p, *end, *nl;
	size_t lineno = 0, n, i;
	long long tokens;
	cJSON *doc, *it;
	int r;

	S->usage = -1;
	if (mc_fd_slurp(STDIN_FILENO, MC_ITEMS_MAX, &S->in) == -1) {
		if (errno == EFBIG)
			mc_err("stdin: over the %u-byte limit", MC_ITEMS_MAX);
		else
			mc_err("stdin: %s", strerror(errno));
		return -1;
	}
	mc_buf_add(&S->in, "", 0);	/* data is never NULL */
	end = S->in.data + S->in.len;
	for (p = S->in.data; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		n = (size_t)(nl - p);
		lineno++;
		if (strspn(p, " \t\r") >= n)
			continue;	/* blank, as mc_items_parse has it */
		if (lineno != 1 && !mc_item_maybe_bookkeeping(p, n)) {
			add_line(S, p, n);
			continue;
		}
		/* Bad JSON is left for mc_items_parse to name. */
		doc = mc_json_parse(p, n, err, sizeof err);
		if (lineno == 1 && doc != NULL && mc_json_str(doc, "type") != NULL &&
		    strcmp(mc_json_str(doc, "type"), "session") == 0)
			r = 1;
		else if ((r = mc_window_usage(doc, &tokens, err, sizeof err)) == 1) {
			S->usage = tokens;
			S->usage_at = S->n;
		} else if (r == 0 && mc_item_bookkeeping(doc))
			r = 1;
		cJSON_Delete(doc);
		if (r == -1) {
			mc_err("stdin:%zu: %s", lineno, err);
			return -1;
		}
		if (r == 1)
			memset(p, ' ', n);
		else
			add_line(S, p, n);
	}
	S->items = mc_items_parse("stdin", S->in.data, S->in.len, err, sizeof err);
	if (S->items == NULL) {
		mc_err("%s", err);
		return -1;
	}
	if ((size_t)cJSON_GetArraySize(S->items) != S->n) {
		mc_err("stdin: %d items checked, %zu lines read (a bug)",
		    cJSON_GetArraySize(S->items), S->n);
		return -1;
	}
	i = 0;
	cJSON_ArrayForEach(it, S->items)
		S->lines[i++].item = it;
	return 0;
}

static const char *
type_of(const struct line *l)
{
	return mc_json_str(l->item, "type");
}

static int
is_user(const struct line *l)
{
	return strcmp(type_of(l), "message") == 0 &&
	    strcmp(mc_json_str(l->item, "role"), "user") == 0;
}

struct ref {
	const char *id;
	size_t at;
};

static int
cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	return c != 0 ? c : x->at < y->at ? -1 : x->at > y->at;
}

/* Where the tail may start, from best to worst. */
enum { NO_START, START_STEP, START_TURN };

/*
 * Where the tail may start: where no call before it waits for an output
 * after it, at a user message (START_TURN, a turn begins), or else at an
 * assistant message or a function_call (START_STEP, a step of the agent
 * begins: an answer, or the first call of a group whose outputs follow);
 * never at an output. A call and its output share a call_id, which is
 * used once (mc_items_parse checked it): sorted by id, each output follows
 * its call, and the items between them are marked.
 */
static char *
boundaries(const struct session *S)
{
	struct ref *refs;
	const char *type;
	char *ok;
	size_t i, k = 0;
	long depth = 0;
	long *span;

	if ((refs = calloc(S->n + 1, sizeof *refs)) == NULL ||
	    (span = calloc(S->n + 1, sizeof *span)) == NULL ||
	    (ok = calloc(S->n + 1, 1)) == NULL)
		mc_oom();
	for (i = 0; i < S->n; i++)	/* calls and outputs: messages and reasoning have no id */
		if (mc_json_str(S->lines[i].item, "call_id") != NULL)
			refs[k++] = (struct ref){ mc_json_str(S->lines[i].item, "call_id"), i };
	qsort(refs, k, sizeof *refs, cmp_ref);
	for (i = 0; i + 1 < k; i++)
		if (strcmp(refs[i].id, refs[i + 1].id) == 0) {
			span[refs[i].at + 1]++;
			span[refs[i + 1].at + 1]--;
		}
	for (i = 0; i < S->n; i++) {
		depth += span[i];
		type = type_of(&S->lines[i]);
		/* nor after a reasoning item: Messages wants the thinking
		 * block before the tool_use it led to */
		if (depth != 0 || strcmp(type, "function_call_output") == 0 ||
		    (i > 0 && strcmp(type_of(&S->lines[i - 1]), "reasoning") == 0))
			ok[i] = NO_START;
		else
			ok[i] = is_user(&S->lines[i]) ? START_TURN : START_STEP;
	}
	free(refs);
	free(span);
	return ok;
}

/*
 * The first item of the tail: the earliest user message from which the
 * rest fits in keep tokens; when none does (a long last turn: an agent at
 * work on one request), the earliest step from which it fits; when none
 * does either, the last turn kept whole. S->n when there is no user
 * message to start at.
 */
static size_t
tail_start(const struct session *S)
{
	char *ok = boundaries(S);
	size_t i, turn = S->n, step = S->n, last = S->n;
	long long rest = 0;

	for (i = S->n; i-- > 0;) {
		rest += S->lines[i].tokens;
		if (ok[i] == NO_START)
			continue;
		if (rest <= keep)
			step = i;
		if (ok[i] != START_TURN)
			continue;
		if (last == S->n)
			last = i;
		if (rest <= keep)
			turn = i;
	}
	free(ok);
	return turn != S->n ? turn : step != S->n ? step : last;
}

static long long
tokens_of(const struct session *S, size_t from, size_t to)
{
	long long t = 0;

	for (; from < to; from++)
		t += S->lines[from].tokens;
	return t;
}

/*
 * The provider's count is the truth (SPEC 12): the request that did not
 * fit (--prompt-tokens: all the items), else the last usage record (the
 * items before it). When it is more than the estimate of what it covers
 * (those items, and the system prompt and tools: --base-tokens), each of
 * those items' estimates is scaled by the same factor, so that the tail
 * is cut by real tokens; items the provider has not counted yet keep the
 * estimate. Without --base-tokens the whole count is the items': more is
 * summarized, never less. A count below the estimate changes nothing.
 */
static void
trust_provider(struct session *S)
{
	long double f;
	long long est;
	size_t i;

	S->real = told > 0 ? told : S->usage;
	S->real_at = told > 0 ? S->n : S->usage_at;
	if (S->real <= 0 || (est = tokens_of(S, 0, S->real_at)) <= 0 || S->real <= est + base)
		return;
	f = (long double)S->real / (long double)(est + base);
	for (i = 0; i < S->real_at; i++)
		S->lines[i].tokens = (long long)(S->lines[i].tokens * f + 0.999L);
}

/* The lines from..n-1 as they came, on stdout. */
static void
write_lines(const struct session *S, size_t from)
{
	for (; from < S->n; from++) {
		fwrite(S->lines[from].p, 1, S->lines[from].n, stdout);
		putchar('\n');
	}
}

/*
 * The items of the summary request: those before cut, each tool output
 * over OUTPUT_CUT bytes cut to its head and tail with a line saying how
 * much went, then the question.
 */
static void
request_items(const struct session *S, size_t cut, struct mc_buf *out, size_t *ncut)
{
	const char *o;
	char *s, *q;
	size_t i, len;
	cJSON *it;

	*ncut = 0;
	for (i = 0; i < cut; i++) {
		it = S->lines[i].item;
		o = mc_json_str(it, "output");
		if (o != NULL && strlen(o) > OUTPUT_CUT) {
			if ((s = mc_clip_text(o, strlen(o), OUTPUT_CUT, &len)) == NULL)
				mc_oom();
			cJSON_ReplaceItemInObjectCaseSensitive(it, "output", mc_json_new_owned(s));
			(*ncut)++;
		}
		s = mc_json_compact(it, &len);
		mc_buf_add(out, s, len);
		mc_buf_add(out, "\n", 1);
		free(s);
	}
	if (asprintf(&q, "%s%s%s", ask, focus ? "\n\nFocus the summary on: " : "",
	    focus ? focus : "") == -1)
		mc_oom();
	it = mc_item_message("user", q);
	free(q);
	s = mc_json_compact(it, &len);
	mc_buf_add(out, s, len);
	mc_buf_add(out, "\n", 1);
	free(s);
	cJSON_Delete(it);
}

/* Whether a stage ended well; one that exited non-zero has said why. */
static int
stage_ok(const char *name, int status)
{
	char why[128];
	const char *s;

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	if ((s = mc_pipeline_strstatus(status, why, sizeof why)) != NULL)
		mc_err("%s: %s", name, s);
	return 0;
}

/* The system prompt: mc-render --fragment compact. */
static int
render_prompt(struct mc_buf *prompt)
{
	char *argv[] = { "mc-render", "--fragment", "compact", mc_quiet ? "-q" : NULL, NULL };
	struct mc_filter f = { .collect = prompt, .cap = PROMPT_MAX };
	char err[256];
	int st;

	if (mc_filter_run(argv, &f, &st, err, sizeof err) == -1) {
		mc_err("%s", err);
		return -1;
	}
	if (prompt->len > PROMPT_MAX) {
		mc_err("mc-render: the compact fragment is over %u bytes", PROMPT_MAX);
		return -1;
	}
	return stage_ok("mc-render", st) ? 0 : -1;
}

/* A pipe written while others are: the rest of p[0..len). */
struct feed {
	int fd;
	const char *p;
	size_t len;
};

/*
 * Write each feed and read rd into out until rd ends, all at once
 * through poll(2), so that no program waits on another whatever it reads
 * first. A reader that goes away ends its feed (its status says why).
 * Past cap the pipeline is stopped. Returns 0, or -1 when over cap.
 */
static int
pump(struct mc_pipeline *P, struct feed *f, size_t nf, int rd, struct mc_buf *out, size_t cap)
{
	struct pollfd pfd[4];
	struct feed *w;
	size_t i, k, who[4];
	char buf[16384];
	ssize_t n;
	int over = 0;

	for (i = 0; i < nf; i++)
		fcntl(f[i].fd, F_SETFL, O_NONBLOCK);
	while (rd != -1) {
		for (i = k = 0; i < nf; i++)
			if (f[i].fd != -1) {
				who[k] = i;
				pfd[k++] = (struct pollfd){ .fd = f[i].fd, .events = POLLOUT };
			}
		pfd[k++] = (struct pollfd){ .fd = rd, .events = POLLIN };
		if (poll(pfd, k, -1) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i + 1 < k; i++) {
			if (pfd[i].revents == 0)
				continue;
			w = &f[who[i]];
			n = write(w->fd, w->p, w->len);
			if (n > 0) {
				w->p += n;
				w->len -= (size_t)n;
			}
			if (w->len == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
				close(w->fd);
				w->fd = -1;
			}
		}
		if (pfd[k - 1].revents == 0)
			continue;
		n = read(rd, buf, sizeof buf);
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		if (!over && out->len + (size_t)n > cap) {
			over = 1;
			mc_pipeline_kill(P, SIGTERM);
		}
		if (!over)
			mc_buf_add(out, buf, (size_t)n);
	}
	for (i = 0; i < nf; i++)
		if (f[i].fd != -1)
			close(f[i].fd);
	close(rd);
	return over ? -1 : 0;
}

/*
 * mc-request (the prompt on its stdin, the items through a pipe it reads
 * as /dev/fd/N) | mc-send --events, whose events go into events. The
 * provider keys (keys) go to mc-send alone.
 */
static int
run_request(const struct mc_buf *prompt, const struct mc_buf *items, char **keys,
    struct mc_buf *events)
{
	struct mc_pipeline P = {0};
	struct feed f[2];
	char *req[10], *send[] = { "mc-send", "--events", mc_quiet ? "-q" : NULL, NULL };
	char path[32], err[256], **env;
	int pp[2], ip[2], rd = -1, out = -1, r, ok;
	size_t k = 0;

	if (pipe2(pp, O_CLOEXEC) == -1) {
		mc_err("pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(ip, O_CLOEXEC) == -1) {
		mc_err("pipe: %s", strerror(errno));
		close(pp[0]);
		close(pp[1]);
		return -1;
	}
	snprintf(path, sizeof path, "/dev/fd/%d", ip[0]);
	/* Its warnings are the settings' own, which this program gave. */
	req[k++] = "mc-request";
	req[k++] = "-q";
	if (popts.provider != NULL) {
		req[k++] = "-p";
		req[k++] = (char *)popts.provider;
	}
	if (popts.model != NULL) {
		req[k++] = "-m";
		req[k++] = (char *)popts.model;
	}
	req[k++] = "--items";
	req[k++] = path;
	req[k] = NULL;
	/* Only mc-request inherits the items' read end: when it ends early,
	 * the write fails at once instead of waiting on the other stages. */
	fcntl(ip[0], F_SETFD, 0);
	r = mc_pipeline_add(&P, req, pp[0], -1, &rd, err, sizeof err);
	close(ip[0]);
	close(pp[0]);
	if (r == 0) {
		P.envp = env = mc_env_merge(NULL, keys);
		r = mc_pipeline_add(&P, send, rd, -1, &out, err, sizeof err);
		mc_env_free(env);
		close(rd);
	}
	if (r == -1) {
		mc_err("%s", err);
		close(pp[1]);
		close(ip[1]);
		mc_pipeline_wait(&P);
		return -1;
	}
	f[0] = (struct feed){ ip[1], items->data, items->len };
	f[1] = (struct feed){ pp[1], prompt->data ? prompt->data : "", prompt->len };
	if (pump(&P, f, 2, out, events, EVENTS_MAX) == -1) {
		mc_pipeline_wait(&P);
		mc_err("mc-send: the answer is over %u bytes of events", EVENTS_MAX);
		return -1;
	}
	r = mc_pipeline_wait(&P);
	ok = r == -1 || stage_ok(P.name[r], P.status[r]);
	return ok ? 0 : -1;
}

static void
copy(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
}

/* The answer in mc-send's events: text, usage, done and error lines. */
static void
read_answer(const struct mc_buf *events, struct answer *A)
{
	const char *p = events->data, *end = p + events->len, *nl, *type;
	const cJSON *v;
	char why[128];
	cJSON *ev;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((ev = mc_json_parse(p, (size_t)(nl - p), why, sizeof why)) == NULL ||
		    (type = mc_json_str(ev, "type")) == NULL) {
			cJSON_Delete(ev);
			continue;
		}
		if (strcmp(type, "text") == 0 && mc_json_str(ev, "delta") != NULL) {
			mc_buf_adds(&A->text, mc_json_str(ev, "delta"));
		} else if (strcmp(type, "usage") == 0) {
			v = cJSON_GetObjectItemCaseSensitive(ev, "output_tokens");
			if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e15)
				A->tokens = (long long)v->valuedouble;
		} else if (strcmp(type, "done") == 0) {
			copy(A->finish, sizeof A->finish, mc_json_str(ev, "finish_reason"));
		} else if (strcmp(type, "error") == 0 && !A->failed) {
			A->failed = 1;
			v = cJSON_GetObjectItemCaseSensitive(ev, "status");
			A->status = cJSON_IsNumber(v) ? v->valueint : 0;
			copy(A->code, sizeof A->code, mc_json_str(ev, "code"));
			copy(A->message, sizeof A->message, mc_json_str(ev, "message"));
		}
		cJSON_Delete(ev);
	}
}

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The summary's text: trimmed, without tags the model may have added
 * itself, valid UTF-8 without NUL. NULL when nothing is left. */
static char *
summary_text(const struct mc_buf *t)
{
	static const char open[] = "<Conversation-Summary>", close[] = "</Conversation-Summary>";
	const char *p = t->data ? t->data : "", *e = p + t->len;
	struct mc_buf out = {0};

	while (p < e && is_space(*p))
		p++;
	while (e > p && is_space(e[-1]))
		e--;
	if ((size_t)(e - p) >= sizeof open + sizeof close - 2 &&
	    memcmp(p, open, sizeof open - 1) == 0 &&
	    memcmp(e - (sizeof close - 1), close, sizeof close - 1) == 0) {
		p += sizeof open - 1;
		e -= sizeof close - 1;
		while (p < e && is_space(*p))
			p++;
		while (e > p && is_space(e[-1]))
			e--;
	}
	if (p == e)
		return NULL;
	mc_clip_repair(&out, p, (size_t)(e - p));
	return mc_buf_steal(&out);
}

/* Why the answer is no summary, said on stderr; 0 when it is one. */
static int
check_answer(const struct answer *A, int ran)
{
	if (A->failed && mc_window_overflow(A->status, A->code, A->message)) {
		mc_err("the summary request does not fit the model's context window, even with "
		    "old tool outputs cut (the provider said: %s); nothing written", A->message);
		return -1;
	}
	if (A->failed || !ran)
		return -1;	/* mc-send said why */
	if (strcmp(A->finish, "length") == 0) {
		mc_err("the summary was cut by the output limit (finish reason \"length\"); "
		    "nothing written");
		return -1;
	}
	if (strcmp(A->finish, "stop") != 0) {
		mc_err("the summary did not finish (finish reason \"%s\"); nothing written",
		    A->finish[0] ? A->finish : "none");
		return -1;
	}
	return 0;
}

/* The summary item, then the tail as it came. */
static int
write_compacted(const struct session *S, size_t cut, const char *summary)
{
	cJSON *it;
	char *content;
	int r;

	if (asprintf(&content, "<Conversation-Summary>\n%s\n</Conversation-Summary>", summary) == -1)
		mc_oom();
	it = mc_item_message("user", content);
	free(content);
	r = mc_json_write(stdout, it, 0);
	cJSON_Delete(it);
	write_lines(S, cut);
	return r == -1 || fflush(stdout) == EOF || ferror(stdout) ? -1 : 0;
}

/* Summarize the items before cut and write the result. */
static int
compact(struct session *S, size_t cut, const char *from, char **keys)
{
	struct mc_buf prompt = {0}, items = {0}, events = {0};
	struct answer A = {0};
	long long est, t1, t2, t3, before, after;
	size_t ncut;
	char *summary = NULL;
	int ran, ret = -1;

	request_items(S, cut, &items, &ncut);
	if (render_prompt(&prompt) == -1)
		goto out;
	est = mc_window_tokens(prompt.len + items.len);
	if (window > 0 && est * 100 > window * FIT_PERCENT) {
		mc_err("the summary request would be about %lld tokens, over %d%% of the "
		    "%lld-token context window (%s), even with %zu old tool output%s cut; "
		    "nothing sent, nothing written", est, FIT_PERCENT, window, from, ncut,
		    ncut == 1 ? "" : "s");
		goto out;
	}
	ran = run_request(&prompt, &items, keys, &events) == 0;
	read_answer(&events, &A);
	if (check_answer(&A, ran) == -1)
		goto out;
	if ((summary = summary_text(&A.text)) == NULL) {
		mc_err("the model's summary is empty; nothing written");
		goto out;
	}
	if (write_compacted(S, cut, summary) == -1)
		goto out;	/* mc_finish names the error */
	t1 = tokens_of(S, 0, cut);
	t3 = tokens_of(S, cut, S->n);
	t2 = A.tokens > 0 ? A.tokens : mc_window_tokens(strlen(summary));
	before = S->real >= 0 ? S->real + tokens_of(S, S->real_at, S->n) : t1 + t3;
	after = before - t1 + t2 < t2 + t3 ? t2 + t3 : before - t1 + t2;
	fprintf(stderr, "mc-compact: compacted %zu item%s (about %lld tokens) into a summary of "
	    "about %lld tokens; kept %zu item%s (about %lld tokens); about %lld tokens before, "
	    "about %lld after\n", cut, cut == 1 ? "" : "s", t1, t2, S->n - cut,
	    S->n - cut == 1 ? "" : "s", t3, before, after);
	ret = 0;
out:
	free(summary);
	mc_buf_free(&A.text);
	mc_buf_free(&prompt);
	mc_buf_free(&items);
	mc_buf_free(&events);
	return ret;
}

/* Nothing before the tail: the items go out as they came. */
static int
unchanged(const struct session *S, size_t cut)
{
	long long t = tokens_of(S, 0, S->n);

	write_lines(S, 0);
	if (S->n == 0)
		fprintf(stderr, "mc-compact: nothing to compact: no conversation items\n");
	else if (cut == S->n)
		fprintf(stderr, "mc-compact: nothing to compact: no user message to start the "
		    "kept turns at\n");
	else if (t <= keep)
		fprintf(stderr, "mc-compact: nothing to compact: the %zu item%s (about %lld tokens) "
		    "fit in the %lld tokens kept\n", S->n, S->n == 1 ? "" : "s", t, keep);
	else
		fprintf(stderr, "mc-compact: nothing to compact: the %zu item%s (about %lld tokens) "
		    "are one turn, which is kept whole\n", S->n, S->n == 1 ? "" : "s", t);
	return 0;
}

/* Keeping a whole window is no compaction. */
static int
keep_too_big(const char *from)
{
	if (window == 0 || keep < window)
		return 0;
	mc_usage_error("--keep-tokens %lld: not less than the %lld-token context window (%s)",
	    keep, window, from);
	return 1;
}

/* The context window and the tokens kept, from the options and settings. */
static int
resolve_window(const struct mc_settings *s, const struct mc_provider *p, char *from,
    size_t fromsz)
{
	if (window > 0)
		snprintf(from, fromsz, "--window");
	else
		window = mc_window_size(s, p->name, p->model, from, fromsz);
	if (window == 0 && keep < 0)
		return mc_usage_error("the context window of %s (provider %s) is unknown: "
		    "give --keep-tokens N or --window N, or set models.%s.context_window in %s",
		    p->model, p->name, p->model, s->path);
	if (keep_too_big(from))
		return MC_EXIT_USAGE;
	if (keep < 0)
		keep = window / 5;
	return 0;
}


int
main(int argc, char *argv[])
{
	enum { OPT_KEEP = 256, OPT_WINDOW, OPT_FOCUS, OPT_TOLD, OPT_BASE };
	static const struct option longopts[] = {
		{ "provider", required_argument, NULL, 'p' },
		{ "model", required_argument, NULL, 'm' },
		{ "keep-tokens", required_argument, NULL, OPT_KEEP },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "focus", required_argument, NULL, OPT_FOCUS },
		{ "prompt-tokens", required_argument, NULL, OPT_TOLD },
		{ "base-tokens", required_argument, NULL, OPT_BASE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, MC_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct mc_settings s = {0};
	struct mc_provider p = {0};
	struct session S = {0};
	char err[1024], from[512], **keys = NULL;
	int c, bad = 0, status = MC_EXIT_FAIL;
	size_t cut;

	mc_init("mc-compact", argv);
	while ((c = getopt_long(argc, argv, "+hm:p:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			popts.provider = optarg;
			break;
		case 'm':
			popts.model = optarg;
			break;
		case 'q':
			mc_quiet = 1;
			break;
		case OPT_KEEP:
			keep = mc_opt_num("--keep-tokens", optarg, 0, TOKENS_MAX, &bad);
			break;
		case OPT_WINDOW:
			window = mc_opt_num("--window", optarg, 1, TOKENS_MAX, &bad);
			break;
		case OPT_FOCUS:
			focus = optarg;
			break;
		case OPT_TOLD:
			told = mc_opt_num("--prompt-tokens", optarg, 1, TOKENS_MAX, &bad);
			break;
		case OPT_BASE:
			base = mc_opt_num("--base-tokens", optarg, 0, TOKENS_MAX, &bad);
			break;
		default:	/* -h, --version or a bad option */
			return mc_opt_exit(c, usage);
		}
		if (bad)
			return MC_EXIT_USAGE;
	}
	if (optind < argc)
		return mc_usage_error("unexpected argument: %s", argv[optind]);
	if (focus != NULL && (*focus == '\0' || !mc_utf8_valid(focus, strlen(focus))))
		return mc_usage_error("--focus: %s", *focus ? "not valid UTF-8" : "empty");
	if (keep_too_big("--window"))
		return MC_EXIT_USAGE;
	/* The items go to mc-request through a pipe: a write to one that
	 * closed early is an error to report, not a reason to stop. */
	signal(SIGPIPE, SIG_IGN);

	if (mc_settings_load(&s, err, sizeof err) == -1) {
		mc_err("%s", err);
		goto out;
	}
	mc_settings_warn(&s);
	/* No stage but mc-send holds a key, nor this process's environ. */
	keys = mc_keys_keep(&s);
	if (mc_provider_resolve(&s, &popts, &p, err, sizeof err) == -1) {
		mc_err("%s", err);
		goto out;
	}
	if (resolve_window(&s, &p, from, sizeof from) != 0) {
		status = MC_EXIT_USAGE;
		goto out;
	}
	if (read_session(&S) == -1)
		goto out;
	trust_provider(&S);
	cut = tail_start(&S);
	if (cut == 0 || cut == S.n)
		status = unchanged(&S, cut) == 0 ? MC_EXIT_OK : MC_EXIT_FAIL;
	else
		status = compact(&S, cut, from, keys) == 0 ? MC_EXIT_OK : MC_EXIT_FAIL;
out:
	cJSON_Delete(S.items);
	free(S.lines);
	mc_buf_free(&S.in);
	mc_env_free(keys);
	mc_provider_free(&p);
	mc_settings_free(&s);
	return mc_finish(status);
}
