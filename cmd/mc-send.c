/* mc-send: send a request envelope to the provider and stream the answer out as it arrives. */
#include <bsd/stdlib.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "http.h"
#include "json.h"
#include "sse.h"

static const char usage[] =
    "usage: mc-send [-q] [--events | --items] [--items-out FILE] [--connect-timeout S]\n"
    "               [--idle-timeout S] [--retries N] [--retry-max-wait S] < ENVELOPE\n"
    "\n"
    "Send the request envelope on stdin and write the answer as it arrives.\n"
    "\n"
    "  --events             normalized JSON Lines events instead of the text\n"
    "  --items              the new conversation items (JSON Lines) at the end\n"
    "  --items-out FILE     also write those items to FILE at the end\n"
    "  --connect-timeout S  give up connecting after S seconds (default 10)\n"
    "  --idle-timeout S     give up when nothing arrives for S seconds (default 120)\n"
    "  --retries N          retry a failed request up to N times (default 3)\n"
    "  --retry-max-wait S   wait at most S seconds before a retry (default 60)\n"
    "  -q                   no warnings on stderr\n"
    "  -h, --help           show this help\n"
    "  --version            show the version\n";

enum mode { TEXT, EVENTS, ITEMS };

/* Set by the SIGINT handler; wake_pipe[1] wakes a waiting poll. */
static volatile sig_atomic_t got_sigint;
static char outbuf[1 << 16];	/* stdout's buffer when it is not a terminal */
static int wake_pipe[2] = { -1, -1 };

struct envelope {
	const char *provider, *url, *key_env;
	enum mc_api api;
	cJSON *body;
	int stream;
};

/* The state of one run: what was written and what the answer held. */
struct out {
	enum mode mode;
	int want_items;
	const char *provider;
	const char *key;	/* to keep out of messages */
	struct mc_stream *stream;
	struct mc_buf text;	/* the answer's text, when items are wanted */
	cJSON *calls;		/* function_call items */
	int wrote;		/* any byte written to stdout */
	int last_nl;		/* the text written so far ends in a newline */
	int broken;		/* stdout failed: the errno (EPIPE: stop quietly) */
	int done;
	/* the error, when there is one */
	int failed, status, local;
	char msg[2400], code[128];	/* room for a whole attempt_error line */
	/* the spinner */
	int tty, spin_on, spin_frame;
	struct timespec spin_last;
};

static void
on_sigint(int sig)
{
	int e = errno;

	(void)sig;
	got_sigint = 1;
	if (wake_pipe[1] >= 0)
		(void)!write(wake_pipe[1], "", 1);
	errno = e;
}

static void
spin_clear(struct out *o)
{
	if (o->spin_on) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		o->spin_on = 0;
	}
}

static void
spin_tick(void *arg)
{
	static const char frames[] = "|/-\\";
	struct out *o = arg;

	if (!o->tty || o->wrote || o->done || o->failed)
		return;
	if (o->spin_on && mc_ms_since(&o->spin_last) < 100)
		return;
	clock_gettime(CLOCK_MONOTONIC, &o->spin_last);
	fprintf(stderr, "\r%c waiting for %s", frames[o->spin_frame++ % 4], o->provider);
	fflush(stderr);
	o->spin_on = 1;
}

/*
 * msg with the key, should a provider echo it back, replaced; malloc'ed.
 * A message cut short upstream may end in the first part of the key.
 */
static char *
redact(const char *msg, const char *key)
{
	struct mc_buf b = {0};
	size_t kl = key ? strlen(key) : 0, ml, l;
	const char *p;

	while (kl > 0 && (p = strstr(msg, key)) != NULL) {
		mc_buf_add(&b, msg, p - msg);
		mc_buf_adds(&b, "[redacted]");
		msg = p + kl;
	}
	ml = strlen(msg);
	for (l = kl > ml + 1 ? ml : kl - (kl > 0); l >= 4; l--)
		if (strncmp(msg + ml - l, key, l) == 0) {
			ml -= l;
			break;
		}
	mc_buf_add(&b, msg, ml);
	if (ml < strlen(msg))
		mc_buf_adds(&b, "[redacted]");
	return mc_buf_steal(&b);
}

static void
set_error(struct out *o, const char *msg, const char *code, int status, int local)
{
	char *m;

	if (o->failed)
		return;
	o->failed = 1;
	o->status = status;
	o->local = local;
	/* One line of valid UTF-8, whatever the provider sent. */
	m = redact(msg, o->key);
	mc_sanitize(o->msg, sizeof o->msg, m);
	free(m);
	m = redact(code ? code : "", o->key);
	mc_sanitize(o->code, sizeof o->code, m);
	free(m);
}

static int
out_fail(struct out *o)
{
	o->broken = errno ? errno : EIO;
	return -1;
}

static int
out_check(struct out *o)
{
	errno = 0;
	if (fflush(stdout) == EOF || ferror(stdout))
		return out_fail(o);
	return 0;
}

/* Written, not flushed: stdout is flushed once per piece of the body. */
static int
put_json(struct out *o, cJSON *ev)
{
	int r;

	errno = 0;
	r = mc_json_write(stdout, ev, 0);
	cJSON_Delete(ev);
	o->wrote = 1;
	if (r == -1 || ferror(stdout))
		return out_fail(o);
	return 0;
}

static cJSON *
call_item(const char *type, const struct mc_event *ev)
{
	cJSON *it = mc_json_new_obj();

	mc_json_add_str(it, "type", type);
	mc_json_add_str(it, "call_id", ev->call_id);
	mc_json_add_str(it, "name", ev->name);
	mc_json_add_str(it, "arguments", ev->arguments);
	return it;
}

static int
on_event(const struct mc_event *ev, void *arg)
{
	struct out *o = arg;
	cJSON *j;

	if (got_sigint)
		return -1;
	switch (ev->type) {
	case MC_EVENT_TEXT:
		spin_clear(o);
		if (o->want_items)
			mc_buf_add(&o->text, ev->text, ev->len);
		if (o->mode == TEXT) {
			o->wrote = 1;
			o->last_nl = ev->text[ev->len - 1] == '\n';
			errno = 0;
			if (fwrite(ev->text, 1, ev->len, stdout) != ev->len)
				return out_fail(o);
			return 0;
		}
		if (o->mode == EVENTS) {
			j = mc_json_new_obj();
			mc_json_add_str(j, "type", "text");
			mc_json_add_str(j, "delta", ev->text);
			return put_json(o, j);
		}
		return 0;
	case MC_EVENT_TOOL_CALL:
		spin_clear(o);
		if (o->want_items)
			mc_json_push(o->calls, call_item("function_call", ev));
		if (o->mode == EVENTS)
			return put_json(o, call_item("tool_call", ev));
		return 0;
	case MC_EVENT_USAGE:
		if (o->mode == EVENTS) {
			j = mc_json_new_obj();
			mc_json_add_str(j, "type", "usage");
			mc_json_add_num(j, "input_tokens", (double)ev->input_tokens);
			mc_json_add_num(j, "output_tokens", (double)ev->output_tokens);
			return put_json(o, j);
		}
		return 0;
	case MC_EVENT_DONE:
		spin_clear(o);
		o->done = 1;
		if (o->mode == EVENTS) {
			j = mc_json_new_obj();
			mc_json_add_str(j, "type", "done");
			mc_json_add_str(j, "finish_reason", ev->finish_reason);
			return put_json(o, j);
		}
		return 0;
	case MC_EVENT_ERROR:
		set_error(o, ev->message, ev->code, ev->status, ev->local);
		return 0;
	}
	return 0;
}

static int
on_body(const char *p, size_t n, void *arg)
{
	struct out *o = arg;
	int r = mc_stream_feed(o->stream, p, n);

	/* All the events in this piece are out; nothing waits for more. */
	if (!o->broken)
		out_check(o);
	if (o->broken || got_sigint)
		return -1;
	return r;
}

static int
write_items(struct out *o, FILE *fp)
{
	cJSON *it;

	if (o->text.len > 0) {
		it = mc_json_new_obj();
		mc_json_add_str(it, "type", "message");
		mc_json_add_str(it, "role", "assistant");
		mc_json_add_str(it, "content", o->text.data);
		if (mc_json_write(fp, it, 0) == -1) {
			cJSON_Delete(it);
			return -1;
		}
		cJSON_Delete(it);
	}
	cJSON_ArrayForEach(it, o->calls)
		if (mc_json_write(fp, it, 0) == -1)
			return -1;
	return fflush(fp) == EOF || ferror(fp) ? -1 : 0;
}

static int
bad_field(const char *field, const char *why)
{
	mc_err("envelope: %s: %s", field, why);
	return -1;
}

static int
valid_env_name(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

static int
read_envelope(cJSON *doc, struct envelope *e)
{
	const cJSON *v;
	const char *s;

	if (!cJSON_IsObject(doc))
		return bad_field("(document)", "not a JSON object");
	v = cJSON_GetObjectItemCaseSensitive(doc, "version");
	if (v == NULL)
		return bad_field("version", "missing");
	if (!cJSON_IsNumber(v) || v->valuedouble != 1)
		return bad_field("version", "must be 1");
	if ((v = cJSON_GetObjectItemCaseSensitive(doc, "provider")) == NULL)
		return bad_field("provider", "missing");
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
		return bad_field("provider", "must be a non-empty string");
	e->provider = v->valuestring;
	if ((v = cJSON_GetObjectItemCaseSensitive(doc, "api")) == NULL)
		return bad_field("api", "missing");
	if (cJSON_IsString(v) && strcmp(v->valuestring, "chat") == 0)
		e->api = MC_API_CHAT;
	else if (cJSON_IsString(v) && strcmp(v->valuestring, "responses") == 0)
		e->api = MC_API_RESPONSES;
	else
		return bad_field("api", "must be \"chat\" or \"responses\"");
	if ((v = cJSON_GetObjectItemCaseSensitive(doc, "url")) == NULL)
		return bad_field("url", "missing");
	if (!cJSON_IsString(v) || (strncmp(v->valuestring, "http://", 7) != 0 &&
	    strncmp(v->valuestring, "https://", 8) != 0))
		return bad_field("url", "must be an http:// or https:// URL");
	for (s = v->valuestring; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return bad_field("url", "contains a space or control character");
	e->url = v->valuestring;
	if ((v = cJSON_GetObjectItemCaseSensitive(doc, "api_key_env")) == NULL)
		return bad_field("api_key_env", "missing (null for no key)");
	if (cJSON_IsNull(v))
		e->key_env = NULL;
	else if (cJSON_IsString(v) && valid_env_name(v->valuestring))
		e->key_env = v->valuestring;
	else
		return bad_field("api_key_env", "must be an environment variable name or null");
	if ((v = cJSON_GetObjectItemCaseSensitive(doc, "cache_key")) == NULL)
		return bad_field("cache_key", "missing");
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0' ||
	    strspn(v->valuestring, "0123456789abcdefABCDEF") != strlen(v->valuestring))
		return bad_field("cache_key", "must be a hex string");
	if ((v = cJSON_GetObjectItemCaseSensitive(doc, "body")) == NULL)
		return bad_field("body", "missing");
	if (!cJSON_IsObject(v))
		return bad_field("body", "must be an object");
	e->body = (cJSON *)v;
	v = cJSON_GetObjectItemCaseSensitive(e->body, "stream");
	if (v != NULL && !cJSON_IsBool(v) && !cJSON_IsNull(v))
		return bad_field("body.stream", "must be true or false");
	e->stream = cJSON_IsTrue(v);
	return 0;
}

/* Wait ms milliseconds, spinning on a terminal; 0, or -1 when interrupted. */
static int
pause_ms(long ms, struct out *o)
{
	struct pollfd pfd = { .fd = wake_pipe[0], .events = POLLIN };
	struct timespec start;
	long left;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		if (got_sigint)
			return -1;
		if ((left = ms - mc_ms_since(&start)) <= 0)
			return 0;
		spin_tick(o);
		(void)poll(&pfd, 1, left > 100 ? 100 : (int)left);
	}
}

static long
num_opt(const char *name, const char *arg, long lo, long hi, int *bad)
{
	const char *e = NULL;
	long v = (long)strtonum(arg, lo, hi, &e);

	if (e != NULL) {
		mc_usage_error("%s: %s is %s (%ld to %ld)", name, arg, e, lo, hi);
		*bad = 1;
	}
	return v;
}

/* Why an attempt failed, as the one line to print; sets o's error. */
static void
attempt_error(struct out *o, const struct envelope *env, const struct mc_http_res *res, long idle)
{
	char msg[2048], code[128], line[2300];
	int st;

	switch (res->result) {
	case MC_HTTP_NOCONN:
		snprintf(line, sizeof line, "cannot reach %s: %s", env->provider, res->err);
		set_error(o, line, NULL, 0, 1);
		return;
	case MC_HTTP_CUT:
		snprintf(line, sizeof line, "the answer from %s was cut: %s", env->provider, res->err);
		set_error(o, line, NULL, 0, 1);
		return;
	case MC_HTTP_IDLE:
		snprintf(line, sizeof line, "nothing from %s for %ld seconds (--idle-timeout)",
		    env->provider, idle);
		set_error(o, line, NULL, 0, 1);
		return;
	default:
		break;
	}
	if (res->status < 200 || res->status > 299) {
		if (mc_error_parse(res->errbody.data ? res->errbody.data : "", res->errbody.len,
		    msg, sizeof msg, code, sizeof code, &st) == -1)
			snprintf(msg, sizeof msg, "%s", res->reason[0] ? res->reason : "no message");
		snprintf(line, sizeof line, "HTTP %ld from %s: %s", res->status, env->provider, msg);
		set_error(o, line, code, (int)res->status, 0);
	}
}

static int
retryable(const struct out *o, const struct mc_http_res *res)
{
	if (res->got_body)
		return 0;
	switch (res->result) {
	case MC_HTTP_NOCONN:
	case MC_HTTP_CUT:
	case MC_HTTP_IDLE:
		return 1;
	case MC_HTTP_OK:
		return o->failed && mc_http_retryable(res->status);
	default:
		return 0;
	}
}

static long
retry_delay(const struct mc_http_res *res, int n, long base_ms, long max_ms)
{
	const char *e = NULL;
	long ms = -1;

	if (res->retry_after_ms[0] != '\0') {
		ms = (long)strtonum(res->retry_after_ms, 0, 86400000, &e);
		if (e != NULL)
			ms = -1;
	}
	if (ms < 0 && res->retry_after[0] != '\0')
		ms = mc_http_retry_after(res->retry_after, time(NULL));
	if (ms < 0)
		ms = mc_http_backoff(n, base_ms, max_ms);
	return ms > max_ms ? max_ms : ms;
}

/* Print the error line (and the error event); the run's status is 1. */
static void
report(struct out *o, const struct envelope *env)
{
	cJSON *j;

	spin_clear(o);
	if (o->mode == TEXT && o->wrote && !o->last_nl && !o->broken) {
		putchar('\n');
		out_check(o);
	}
	if (o->mode == EVENTS && !o->broken) {
		j = mc_json_new_obj();
		mc_json_add_str(j, "type", "error");
		if (o->status)
			mc_json_add_num(j, "status", o->status);
		if (o->code[0])
			mc_json_add_str(j, "code", o->code);
		mc_json_add_str(j, "message", o->msg);
		if (put_json(o, j) == 0)
			out_check(o);
	}
	if (strncmp(o->msg, "HTTP ", 5) == 0 || o->local)
		mc_err("%s", o->msg);
	else
		mc_err("error from %s: %s", env->provider, o->msg);
}

int
main(int argc, char *argv[])
{
	enum { OPT_EVENTS = 256, OPT_ITEMS, OPT_ITEMS_OUT, OPT_CONNECT, OPT_IDLE, OPT_RETRIES,
	    OPT_MAXWAIT };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "events", no_argument, NULL, OPT_EVENTS },
		{ "items", no_argument, NULL, OPT_ITEMS },
		{ "items-out", required_argument, NULL, OPT_ITEMS_OUT },
		{ "connect-timeout", required_argument, NULL, OPT_CONNECT },
		{ "idle-timeout", required_argument, NULL, OPT_IDLE },
		{ "retries", required_argument, NULL, OPT_RETRIES },
		{ "retry-max-wait", required_argument, NULL, OPT_MAXWAIT },
		{ "version", no_argument, NULL, MC_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct out o = { .mode = TEXT };
	struct envelope env = {0};
	struct mc_http_req req = {0};
	struct mc_http_res res;
	struct sigaction sa = {0};
	const char *items_out = NULL, *headers[5], *k, *e = NULL;
	long connect = 10, idle = 120, retries = 3, maxwait = 60, base_ms = 500, delay;
	char err[512], *body = NULL, *auth = NULL;
	FILE *itf = NULL;
	cJSON *doc;
	int c, bad = 0, empty, n, status = MC_EXIT_FAIL, nh = 0;

	mc_init("mc-send", argv);
	while ((c = getopt_long(argc, argv, "+hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			mc_quiet = 1;
			break;
		case OPT_EVENTS:
		case OPT_ITEMS:
			if (o.mode != TEXT && o.mode != (c == OPT_EVENTS ? EVENTS : ITEMS))
				return mc_usage_error("--events and --items cannot be used together");
			o.mode = c == OPT_EVENTS ? EVENTS : ITEMS;
			break;
		case OPT_ITEMS_OUT:
			if (optarg[0] == '\0')
				return mc_usage_error("--items-out needs a file name");
			items_out = optarg;
			break;
		case OPT_CONNECT:
			connect = num_opt("--connect-timeout", optarg, 1, 86400, &bad);
			break;
		case OPT_IDLE:
			idle = num_opt("--idle-timeout", optarg, 1, 86400, &bad);
			break;
		case OPT_RETRIES:
			retries = num_opt("--retries", optarg, 0, 100, &bad);
			break;
		case OPT_MAXWAIT:
			maxwait = num_opt("--retry-max-wait", optarg, 0, 3600, &bad);
			break;
		default:	/* -h, --version or a bad option */
			return mc_opt_exit(c, usage);
		}
		if (bad)
			return MC_EXIT_USAGE;
	}
	if (optind < argc)
		return mc_usage_error("unexpected argument: %s", argv[optind]);

	/* For tests: a short backoff between retries. */
	if ((k = getenv("MC_RETRY_BASE_MS")) != NULL && k[0] != '\0') {
		base_ms = (long)strtonum(k, 0, 60000, &e);
		if (e != NULL) {
			mc_err("MC_RETRY_BASE_MS: %s is %s (0 to 60000)", k, e);
			return MC_EXIT_FAIL;
		}
	}

	/* Room for a whole piece of the body's text: one write(2) per flush
	 * (glibc ignores the size when it allocates the buffer itself). */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);

	if ((doc = mc_json_read_fd(STDIN_FILENO, &empty, err, sizeof err)) == NULL) {
		if (empty)
			mc_err("no envelope on stdin");
		else
			mc_err("envelope: %s", err);
		return mc_finish(MC_EXIT_FAIL);
	}
	if (read_envelope(doc, &env) == -1)
		goto out;
	o.provider = env.provider;
	o.want_items = o.mode == ITEMS || items_out != NULL;
	o.calls = mc_json_new_arr();
	o.tty = isatty(STDERR_FILENO);

	if (env.key_env != NULL) {
		k = getenv(env.key_env);
		if (k == NULL || k[0] == '\0') {
			mc_err("%s is not set (the envelope's api_key_env)", env.key_env);
			goto out;
		}
		for (e = k; *e; e++)
			if ((unsigned char)*e < ' ' || *e == 0x7f) {
				mc_err("%s holds a control character", env.key_env);
				goto out;
			}
		if (asprintf(&auth, "Authorization: Bearer %s", k) == -1)
			mc_oom();
		o.key = auth + strlen("Authorization: Bearer ");
		headers[nh++] = auth;
	}
	headers[nh++] = "Content-Type: application/json";
	headers[nh++] = "Expect:";	/* no 100-continue round trip */
	headers[nh++] = env.stream ? "Accept: text/event-stream" : "Accept: application/json";
	headers[nh] = NULL;

	if (items_out != NULL && (itf = fopen(items_out, "w")) == NULL) {
		mc_err("%s: %s", items_out, strerror(errno));
		goto out;
	}
	if ((body = cJSON_PrintUnformatted(env.body)) == NULL)
		mc_oom();
	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) == -1) {
		mc_err("pipe: %s", strerror(errno));
		goto out;
	}
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	if (mc_http_init() == -1) {
		mc_err("cannot start libcurl");
		goto out;
	}

	req.url = env.url;
	req.body = body;
	req.len = strlen(body);
	req.headers = headers;
	req.connect_timeout = connect;
	req.idle_timeout = idle;
	req.on_body = on_body;
	req.on_tick = spin_tick;
	req.arg = &o;
	req.interrupted = &got_sigint;
	req.wake_fd = wake_pipe[0];

	for (n = 0;; n++) {
		o.failed = 0;
		o.stream = mc_stream_new(env.api, on_event, &o);
		if (mc_http_post(&req, &res) == -1) {
			mc_err("cannot start libcurl");
			mc_stream_free(o.stream);
			goto out;
		}
		if (res.result == MC_HTTP_INTR || got_sigint) {
			status = MC_EXIT_INTR;
		} else if (res.result == MC_HTTP_OK && res.status >= 200 && res.status <= 299) {
			mc_stream_end(o.stream);
			if (!o.broken)
				out_check(&o);
		} else if (res.result != MC_HTTP_STOPPED) {
			attempt_error(&o, &env, &res, idle);
		}
		mc_stream_free(o.stream);
		o.stream = NULL;
		if (status == MC_EXIT_INTR || got_sigint || o.broken || !o.failed ||
		    n >= retries || !retryable(&o, &res))
			break;
		delay = retry_delay(&res, n, base_ms, maxwait * 1000);
		spin_clear(&o);	/* the warning gets a line of its own */
		mc_warn("%s; retry %d of %ld in %ld.%01ld s", o.msg, n + 1, retries,
		    delay / 1000, delay % 1000 / 100);
		mc_http_res_free(&res);
		if (pause_ms(delay, &o) == -1) {
			status = MC_EXIT_INTR;
			goto out;
		}
	}
	mc_http_res_free(&res);
	if (got_sigint)
		status = MC_EXIT_INTR;
	if (status == MC_EXIT_INTR) {
		spin_clear(&o);
		goto out;
	}
	if (o.broken)
		goto out;
	if (o.failed || !o.done) {
		if (!o.failed)	/* no path leaves it unset; be sure anyway */
			set_error(&o, "the answer ended early", NULL, 0, 1);
		report(&o, &env);
		goto out;
	}
	spin_clear(&o);
	status = MC_EXIT_OK;
	if (o.mode == TEXT && o.wrote && !o.last_nl) {
		putchar('\n');
		out_check(&o);
	}
	errno = 0;
	if (o.mode == ITEMS && write_items(&o, stdout) == -1)
		out_fail(&o);
	if (itf != NULL && write_items(&o, itf) == -1) {
		mc_err("%s: %s", items_out, strerror(errno));
		status = MC_EXIT_FAIL;
	}
out:
	if (itf != NULL && fclose(itf) == EOF && status == MC_EXIT_OK) {
		mc_err("%s: %s", items_out, strerror(errno));
		status = MC_EXIT_FAIL;
	}
	if (auth != NULL) {
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	free(body);
	cJSON_Delete(o.calls);
	mc_buf_free(&o.text);
	cJSON_Delete(doc);
	if (status == MC_EXIT_INTR) {
		/* Nothing more is printed: leave without flushing stdout. */
		_exit(MC_EXIT_INTR);
	}
	if (o.broken == EPIPE) {
		/* A reader that went away ends the run quietly (SPEC §0). */
		clearerr(stdout);
		return mc_finish(MC_EXIT_OK);
	}
	if (o.broken) {
		mc_err("stdout: %s", strerror(o.broken));
		clearerr(stdout);
		mc_finish(MC_EXIT_FAIL);
		return MC_EXIT_FAIL;
	}
	return mc_finish(status);
}
