/* exchange.c: mc-send's exchange of one envelope: the POST, its retries and why an attempt failed. */
#include <bsd/stdlib.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "json.h"
#include "mc-send.h"
#include "window.h"
#include "provider.h"

/* Wait ms milliseconds, spinning on a terminal; 0, or -1 when interrupted. */
static int
pause_ms(long ms, struct out *o, int wake_fd)
{
	struct pollfd pfd = { .fd = wake_fd, .events = POLLIN };
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

static void
max_time_error(struct out *o, const struct envelope *env)
{
	char line[512];

	snprintf(line, sizeof line, "no whole answer from %s in %ld seconds (--max-time)",
	    env->provider, o->sd->max_time);
	set_error(o, line, NULL, 0, 1);
}

/* Where the key a 401 refused came from, for the message: the variable,
 * the command or the file (never the key). */
static void
key_hint(const struct envelope *env, char *buf, size_t n)
{
	if (env->key_cmd != NULL)
		snprintf(buf, n, "check the key that api_key_cmd prints: %s", env->key_cmd);
	else if (env->key_file != NULL)
		snprintf(buf, n, "check the key in api_key_file %s", env->key_file);
	else if (env->key_env != NULL)
		snprintf(buf, n, "check the key in $%s", env->key_env);
	else
		snprintf(buf, n, "no key was sent: providers.%s.api_key_env is null", env->provider);
}

/* Why an attempt failed, as the one line to print; sets o's error. */
static void
attempt_error(struct out *o, const struct envelope *env, const struct mc_http_res *res, long idle)
{
	char msg[2048], code[128], line[3400], hint[1100];
	int st;

	switch (res->result) {
	case MC_HTTP_NOCONN:
		if (res->refused)
			snprintf(line, sizeof line, "cannot reach %s at %s: connection refused "
			    "(is the server running?)", env->provider, env->url);
		else
			snprintf(line, sizeof line, "cannot reach %s: %s", env->provider, res->err);
		set_error(o, line, NULL, 0, 1);
		return;
	case MC_HTTP_CUT:
		snprintf(line, sizeof line, "the answer from %s was cut: %s", env->provider, res->err);
		set_error(o, line, NULL, 0, 1);
		return;
	case MC_HTTP_IDLE:
		snprintf(line, sizeof line, "nothing from %s for %ld seconds (--idle-timeout or "
		    "providers.%s.idle_timeout_s)", env->provider, idle, env->provider);
		set_error(o, line, NULL, 0, 1);
		return;
	case MC_HTTP_TIMEOUT:
		max_time_error(o, env);
		return;
	default:
		break;
	}
	if (res->status < 200 || res->status > 299) {
		if (mc_error_parse(res->errbody.data ? res->errbody.data : "", res->errbody.len,
		    msg, sizeof msg, code, sizeof code, &st) == -1)
			snprintf(msg, sizeof msg, "%s", res->reason[0] ? res->reason : "no message");
		if (res->status == 404)	/* most often a wrong base URL: say which */
			snprintf(line, sizeof line, "HTTP 404 from %s for %s: %s", env->provider,
			    env->url, msg);
		else if (res->status == 401) {	/* the key: say where it came from */
			key_hint(env, hint, sizeof hint);
			snprintf(line, sizeof line, "HTTP 401 from %s: %s (%s)", env->provider, msg, hint);
		}
		else
			snprintf(line, sizeof line, "HTTP %ld from %s: %s", res->status, env->provider, msg);
		if (!o->failed)		/* for mc-compact's cut (SPEC 12) */
			o->told = mc_window_told(res->errbody.data, res->errbody.len, msg);
		set_error(o, line, code, (int)res->status, 0);
	}
}

/*
 * Worth another attempt: nothing of the answer came, and the failure may
 * pass. A local server's 5xx other than 503 is a permanent error (llama.cpp
 * says 500 for "tools param requires --jinja"), and a local server that
 * refuses the connection is not running. 529 is Anthropic's "overloaded",
 * worth waiting for wherever it comes from (a local proxy passes it on).
 */
static int
retryable(const struct out *o, const struct mc_http_res *res, int local)
{
	if (res->got_body)
		return 0;
	switch (res->result) {
	case MC_HTTP_NOCONN:
		return !(local && res->refused);
	case MC_HTTP_CUT:
	case MC_HTTP_IDLE:
		return 1;
	case MC_HTTP_OK:
		if (local && res->status >= 500 && res->status != 503 && res->status != 529)
			return 0;
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

static size_t
body_progress(void *arg)
{
	return mc_stream_progress(((struct out *)arg)->stream);
}

static int
on_body(const char *p, size_t n, void *arg)
{
	struct out *o = arg;
	int r = mc_stream_feed(o->stream, p, n);

	/* All the events in this piece are out; nothing waits for more. */
	if (!o->sd->broken)
		out_check(o->sd);
	if (o->sd->broken || got_sigint)
		return -1;
	return r;
}

int
answer_end(struct out *o)
{
	spin_clear(o);
	if (o->sd->mode == TEXT && o->wrote && !o->last_nl) {
		putchar('\n');
		out_check(o->sd);
	}
	if (strcmp(o->finish, "length") != 0)
		return MC_EXIT_OK;
	/* With --serve the done event says it to the program that reads them
	 * (mc words it for its own options); a note would say it twice. */
	if (!o->sd->serve)
		mc_err("the answer was cut by the output limit (finish_reason length); "
		    "--max-output-tokens raises it");
	return MC_EXIT_INCOMPLETE;
}

int
exchange(struct sender *sd, const struct envelope *env, const char *auth, struct out *o,
    int wake_fd)
{
	struct mc_http_req req = {0};
	struct mc_http_res res;
	const char *headers[5];
	long connect, idle, delay;
	int n, nh = 0, local, status = MC_EXIT_FAIL;

	/* For tests, which have only loopback servers: the rules of a remote one. */
	local = mc_http_loopback(env->url) && getenv("MC_SEND_REMOTE") == NULL;
	mc_provider_timeouts(sd->have_settings ? &sd->settings : NULL, env->provider,
	    &connect, &idle);
	if (sd->connect > 0)
		connect = sd->connect;
	if (sd->idle > 0)
		idle = sd->idle;
	if (auth != NULL)
		headers[nh++] = auth;
	if (env->api == MC_API_MESSAGES)
		headers[nh++] = "anthropic-version: 2023-06-01";
	headers[nh++] = "Content-Type: application/json";
	headers[nh++] = env->stream ? "Accept: text/event-stream" : "Accept: application/json";
	headers[nh] = NULL;
	req.url = env->url;
	req.body = env->body;
	req.len = env->body_len;
	req.headers = headers;
	req.connect_timeout = connect;
	req.idle_timeout = idle;
	if (sd->max_time > 0)
		req.deadline = mc_clock_ms() + sd->max_time * 1000LL;
	req.progress = body_progress;
	req.on_body = on_body;
	req.on_tick = spin_tick;
	req.arg = o;
	req.interrupted = &got_sigint;
	req.wake_fd = wake_fd;

	for (n = 0;; n++) {
		o->failed = 0;
		o->stream = mc_stream_new(env->api, on_event, o);
		if (mc_http_post(sd->http, &req, &res) == -1) {
			set_error(o, res.err, NULL, 0, 1);
			break;
		}
		if (res.result == MC_HTTP_INTR || got_sigint) {
			status = MC_EXIT_INTR;
		} else if (res.result == MC_HTTP_OK && res.status >= 200 && res.status <= 299) {
			mc_stream_end(o->stream);
			if (!sd->broken)
				out_check(sd);
		} else if (res.result != MC_HTTP_STOPPED) {
			attempt_error(o, env, &res, idle);
		}
		mc_stream_free(o->stream);
		o->stream = NULL;
		if (status == MC_EXIT_INTR || got_sigint || sd->broken || !o->failed ||
		    n >= sd->retries || !retryable(o, &res, local))
			break;
		delay = retry_delay(&res, n, sd->base_ms, sd->maxwait * 1000);
		/* No retry that --max-time would end before it began: the
		 * attempt's own error stands. */
		if (req.deadline > 0 && mc_clock_ms() + delay >= req.deadline)
			break;
		spin_clear(o);	/* the warning gets a line of its own */
		/* A refused connection is said once, at the end, not per attempt. */
		if (!(res.result == MC_HTTP_NOCONN && res.refused))
			mc_warn("%s; retry %d of %ld in %ld.%01ld s", o->msg, n + 1, sd->retries,
			    delay / 1000, delay % 1000 / 100);
		mc_http_res_free(&res);
		if (pause_ms(delay, o, wake_fd) == -1) {
			status = MC_EXIT_INTR;
			break;
		}
	}
	mc_http_res_free(&res);
	if (got_sigint)
		status = MC_EXIT_INTR;
	if (status == MC_EXIT_INTR) {
		spin_clear(o);
		return status;
	}
	if (sd->broken)
		return MC_EXIT_FAIL;
	if (o->failed || !o->done) {
		if (!o->failed)	/* no path leaves it unset; be sure anyway */
			set_error(o, "the answer ended early", NULL, 0, 1);
		report(o);
		return MC_EXIT_FAIL;
	}
	return answer_end(o);
}
