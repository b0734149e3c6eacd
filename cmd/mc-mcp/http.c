/* http.c: mc-mcp bridge, an MCP server over HTTP spoken to as a stdio one: Streamable HTTP, or the older HTTP+SSE transport. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "http.h"
#include "json.h"
#include "sse.h"
#include "mcp.h"

/*
 * mc-mcp starts one bridge per server with a "url", as it starts a stdio
 * server's command: the poll loop, time-outs, cancellation and stopping
 * stay one. The bridge's first line on stdin names the server (its URL
 * and its headers, expanded by mc-mcp); each line after it is one
 * JSON-RPC message to send, and each message the server sends comes out
 * on stdout as one line. A request is POSTed by a thread of its own, so
 * that a long call (its answer an event stream) does not hold back an
 * answer to a server's request, nor a cancellation. A transfer that
 * fails becomes a JSON-RPC error for its request, so mc-mcp says what
 * happened in one line naming the server.
 */

#define ERR_CODE (-32000)	/* a transport failure, as a JSON-RPC error */
#define SHOW_BODY 120		/* bytes of an unexpected body shown */

static struct {
	const char *name, *url;
	char **headers;		/* "Name: value", from settings */
	size_t nheaders;
	long timeout_s;
	pthread_mutex_t mu;	/* stdout and what follows */
	pthread_cond_t cv;
	char session[256];	/* Mcp-Session-Id, "" when none */
	char version[32];	/* the version initialize answered */
	int legacy;		/* the HTTP+SSE transport */
	char *endpoint;		/* its POST URL, once the stream named it */
	int elsewhere;		/* the stream named one on another origin */
	int stream_over;	/* its stream ended (or failed) */
	char refused[320];	/* how the first POST was refused (the older transport's cue) */
	char stream_why[512];	/* why its stream ended before it named an endpoint */
	char *init, *inited;	/* initialize and notifications/initialized, for a new session */
	int renewed;		/* a new session was made once */
	pthread_mutex_t renew;
} B = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
    .renew = PTHREAD_MUTEX_INITIALIZER };

/* One message out, as one line. Text that is not JSON goes as it is, on
 * one line, for mc-mcp to refuse. */
static void
emit(const char *p, size_t n)
{
	const char *v;
	cJSON *j;
	char *s;
	size_t i;

	pthread_mutex_lock(&B.mu);
	if ((j = mc_json_parse(p, n, NULL, 0)) != NULL) {
		if (cJSON_IsArray(j)) {
			/* A batch: each message alone, as a stdio server sends. */
			cJSON *e;

			cJSON_ArrayForEach(e, j) {
				s = mc_json_compact(e, NULL);
				printf("%s\n", s);
				free(s);
			}
		} else {
			v = mc_json_str(mc_json_obj(j, "result"), "protocolVersion");
			if (v != NULL && mc_json_obj(mc_json_obj(j, "result"), "serverInfo") != NULL)
				snprintf(B.version, sizeof B.version, "%s", v);
			s = mc_json_compact(j, NULL);
			printf("%s\n", s);
			free(s);
		}
		cJSON_Delete(j);
	} else {
		for (i = 0; i < n; i++)
			putchar(p[i] == '\n' || p[i] == '\r' ? ' ' : p[i]);
		putchar('\n');
	}
	fflush(stdout);
	pthread_mutex_unlock(&B.mu);
}

/* The JSON-RPC error answering the request whose id is id (a JSON text),
 * or a line on stderr when the message was not a request. */
static void
fail(const char *id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
fail(const char *id, const char *fmt, ...)
{
	cJSON *msg, *err;
	va_list ap;
	size_t len;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		mc_oom();
	va_end(ap);
	if (id == NULL) {
		mc_err("%s: %s", B.name, s);
		free(s);
		return;
	}
	msg = mc_json_new_obj();
	mc_json_add_str(msg, "jsonrpc", "2.0");
	mc_json_add(msg, "id", cJSON_Parse(id));
	err = mc_json_new_obj();
	mc_json_add_num(err, "code", ERR_CODE);
	mc_json_add_owned(err, "message", s);
	mc_json_add(msg, "error", err);
	s = mc_json_compact(msg, &len);
	emit(s, len);
	free(s);
	cJSON_Delete(msg);
}

/* What one transfer gathers of its answer. */
struct answer {
	struct mc_http_res *res;
	int sse;		/* the body is an event stream */
	int decided;
	struct mc_sse parse;
	struct mc_buf body;	/* a JSON body, whole */
	int discard;		/* a renewal's own initialize: not passed on */
	int is_stream;		/* the GET stream: the endpoint event counts */
	int events;
};

static int
is_type(const char *ct, const char *type)
{
	size_t n = strlen(type);

	return strncasecmp(ct, type, n) == 0 && (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

/*
 * An endpoint as the stream names it, made absolute against the URL;
 * NULL when it is elsewhere: the headers (a token) go only to the
 * origin the settings name.
 */
static char *
absolute(const char *ep)
{
	const char *p = strstr(B.url, "://");
	size_t origin;
	char *s;

	p = p != NULL ? strchr(p + 3, '/') : NULL;
	origin = p != NULL ? (size_t)(p - B.url) : strlen(B.url);
	if (strstr(ep, "://") != NULL) {
		if (strncmp(ep, B.url, origin) != 0 || (ep[origin] != '/' && ep[origin] != '\0')) {
			mc_err("%s: the event stream names an endpoint elsewhere than %.*s; not used",
			    B.name, (int)origin, B.url);
			B.elsewhere = 1;
			return NULL;
		}
		return mc_strdup(ep);
	}
	if (ep[0] != '/')
		return NULL;	/* a relative path is not what servers send */
	if (asprintf(&s, "%.*s%s", (int)origin, B.url, ep) == -1)
		mc_oom();
	return s;
}

static int
on_event(const char *event, const char *data, size_t len, void *arg)
{
	struct answer *a = arg;

	a->events++;
	if (a->is_stream && strcmp(event, "endpoint") == 0) {
		pthread_mutex_lock(&B.mu);
		if (B.endpoint == NULL) {
			char *ep = mc_strndup(data, len);

			B.endpoint = absolute(ep);
			free(ep);
			pthread_cond_broadcast(&B.cv);
		}
		pthread_mutex_unlock(&B.mu);
		return 0;
	}
	if (*event != '\0' && strcmp(event, "message") != 0)
		return 0;
	if (len > 0 && !a->discard)
		emit(data, len);
	return 0;
}

static int
on_body(const char *p, size_t n, void *arg)
{
	struct answer *a = arg;
	int rc;

	if (!a->decided) {
		a->decided = 1;
		a->sse = is_type(a->res->content_type, "text/event-stream");
		mc_sse_init(&a->parse);
	}
	if (a->sse)
		return mc_sse_feed(&a->parse, p, n, on_event, a, &rc) == 0 ? 0 : -1;
	if (a->body.len + n > MCP_LINE_MAX)
		return -1;
	mc_buf_add(&a->body, p, n);
	return 0;
}

/* The request lines: settings' headers, then the protocol's. */
static const char **
head_lines(const char *accept, int body, char **own, size_t *nown)
{
	const char **h;
	size_t i, k = 0;

	if ((h = calloc(B.nheaders + 6, sizeof *h)) == NULL)
		mc_oom();
	for (i = 0; i < B.nheaders; i++)
		h[k++] = B.headers[i];
	*nown = 0;
	if (asprintf(&own[(*nown)++], "Accept: %s", accept) == -1)
		mc_oom();
	h[k++] = own[*nown - 1];
	if (body)
		h[k++] = "Content-Type: application/json";
	pthread_mutex_lock(&B.mu);
	if (B.session[0] != '\0') {
		if (asprintf(&own[(*nown)++], "Mcp-Session-Id: %s", B.session) == -1)
			mc_oom();
		h[k++] = own[*nown - 1];
	}
	if (B.version[0] != '\0') {
		if (asprintf(&own[(*nown)++], "MCP-Protocol-Version: %s", B.version) == -1)
			mc_oom();
		h[k++] = own[*nown - 1];
	}
	pthread_mutex_unlock(&B.mu);
	return h;
}

/* One transfer, its answer gathered in a (events passed on as they
 * come). Returns what mc_http_post does. */
static int
transfer(const char *method, const char *url, const char *body, struct answer *a,
    struct mc_http_res *res)
{
	struct mc_http *h = mc_http_new();
	struct mc_http_req req = {0};
	char *own[3] = {0};
	const char **lines;
	size_t i, nown;
	int rc, dummy;

	a->res = res;
	lines = head_lines(body != NULL ? "application/json, text/event-stream" :
	    "text/event-stream", body != NULL, own, &nown);
	req.method = method;
	req.url = url;
	req.body = body;
	req.len = body != NULL ? strlen(body) : 0;
	req.headers = lines;
	req.connect_timeout = B.timeout_s;
	req.on_body = on_body;
	req.arg = a;
	req.wake_fd = -1;
	/* libcurl's global set-up is made by one thread at a time. */
	pthread_mutex_lock(&B.renew);
	if (mc_http_libcurl(url))
		mc_http_preload(h);
	pthread_mutex_unlock(&B.renew);
	rc = mc_http_post(h, &req, res);
	if (a->sse)
		mc_sse_finish(&a->parse, on_event, a, &dummy);
	if (a->decided)
		mc_sse_free(&a->parse);
	mc_http_free(h);
	for (i = 0; i < nown; i++)
		free(own[i]);
	free(lines);
	return rc;
}

/* What went wrong with a transfer, in words; NULL when it went well. */
static const char *
trouble(int rc, const struct mc_http_res *res, char *buf, size_t bufsz)
{
	if (rc == -1)
		return res->err;
	if (res->result == MC_HTTP_NOCONN) {
		snprintf(buf, bufsz, "cannot connect to %s: %s", B.url,
		    res->refused ? "connection refused" : res->err);
		return buf;
	}
	if (res->result != MC_HTTP_OK) {
		snprintf(buf, bufsz, "%s: %s", B.url, res->err[0] ? res->err : "the answer broke off");
		return buf;
	}
	return NULL;
}

/* A request's id as JSON text, NULL for a notification or an answer. */
static char *
request_id(const char *line)
{
	cJSON *j = mc_json_parse(line, strlen(line), NULL, 0);
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
	char *s = NULL;

	if (mc_json_str(j, "method") != NULL && id != NULL && !cJSON_IsNull(id))
		s = cJSON_PrintUnformatted(id);
	cJSON_Delete(j);
	return s;
}

/* Make a new session after the server forgot ours: initialize again
 * (its answer not passed on) and notifications/initialized. Once. */
static int
renew(const char *stale)
{
	struct mc_http_res res;
	struct answer a = { .discard = 1 };
	int ok = 0;

	pthread_mutex_lock(&B.renew);
	pthread_mutex_lock(&B.mu);
	if (strcmp(B.session, stale) != 0) {	/* another thread did */
		pthread_mutex_unlock(&B.mu);
		pthread_mutex_unlock(&B.renew);
		return B.session[0] != '\0' ? 0 : -1;
	}
	if (B.renewed || B.init == NULL) {
		pthread_mutex_unlock(&B.mu);
		pthread_mutex_unlock(&B.renew);
		return -1;
	}
	B.renewed = 1;
	B.session[0] = '\0';
	pthread_mutex_unlock(&B.mu);
	pthread_mutex_unlock(&B.renew);
	mc_err("%s: the server forgot session %s (HTTP 404); starting a new one", B.name, stale);
	if (transfer(NULL, B.url, B.init, &a, &res) == 0 && res.result == MC_HTTP_OK &&
	    res.status / 100 == 2 && res.mcp_session[0] != '\0') {
		pthread_mutex_lock(&B.mu);
		snprintf(B.session, sizeof B.session, "%s", res.mcp_session);
		pthread_mutex_unlock(&B.mu);
		ok = 1;
	}
	mc_buf_free(&a.body);
	mc_http_res_free(&res);
	if (ok && B.inited != NULL) {
		struct answer b = { .discard = 1 };

		transfer(NULL, B.url, B.inited, &b, &res);
		mc_buf_free(&b.body);
		mc_http_res_free(&res);
	}
	return ok ? 0 : -1;
}

/* The body of a non-2xx answer or an unexpected one, short, for words. */
static void
show_body(char *out, size_t outsz, const char *p, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n && k + 1 < outsz && i < SHOW_BODY; i++)
		out[k++] = p[i] == '\n' || p[i] == '\r' || p[i] == '\t' ? ' ' : p[i];
	out[k] = '\0';
}

/*
 * POST one message. Returns 0; 1 when the server refused it with 4xx
 * and legacy is allowed (it may speak the older transport).
 */
static int
post(const char *line, int may_fall_back)
{
	char *id = request_id(line), why[512], shown[SHOW_BODY + 1];
	const char *url, *t;
	struct mc_http_res res;
	struct answer a = {0};
	char stale[256];
	int rc, tries = 0;

again:
	pthread_mutex_lock(&B.mu);
	url = B.legacy ? B.endpoint : B.url;
	snprintf(stale, sizeof stale, "%s", B.session);
	pthread_mutex_unlock(&B.mu);
	memset(&a, 0, sizeof a);
	rc = transfer(NULL, url, line, &a, &res);
	if ((t = trouble(rc, &res, why, sizeof why)) != NULL)
		fail(id, "%s", t);
	else if (res.status == 404 && stale[0] != '\0' && !B.legacy && tries++ == 0 &&
	    renew(stale) == 0) {
		mc_buf_free(&a.body);
		mc_http_res_free(&res);
		goto again;
	} else if (res.status >= 400 && res.status < 500 && may_fall_back) {
		show_body(shown, sizeof shown, res.errbody.data ? res.errbody.data : "", res.errbody.len);
		snprintf(B.refused, sizeof B.refused, "HTTP %ld%s%s%s%s%s", res.status,
		    res.reason[0] ? " " : "", res.reason, shown[0] ? " (\"" : "", shown,
		    shown[0] ? "\")" : "");
		rc = 1;
	} else if (res.status < 200 || res.status > 299) {
		show_body(shown, sizeof shown, res.errbody.data ? res.errbody.data : "", res.errbody.len);
		fail(id, "%s answered HTTP %ld%s%s%s%s", url, res.status, res.reason[0] ? " " : "",
		    res.reason, shown[0] ? ": " : "", shown);
	} else {
		if (res.mcp_session[0] != '\0' && !B.legacy) {
			pthread_mutex_lock(&B.mu);
			snprintf(B.session, sizeof B.session, "%s", res.mcp_session);
			pthread_mutex_unlock(&B.mu);
		}
		if (a.sse || B.legacy || res.status == 202 || res.status == 204)
			;	/* the messages went out as they came, or come by the stream */
		else if (a.body.len == 0) {
			if (id != NULL)
				fail(id, "%s answered HTTP %ld with an empty body", url, res.status);
		} else if (!is_type(res.content_type, "application/json")) {
			show_body(shown, sizeof shown, a.body.data, a.body.len);
			fail(id, "%s answered with %s, not JSON-RPC: \"%s%s\"", url,
			    res.content_type[0] ? res.content_type : "no Content-Type", shown,
			    a.body.len > SHOW_BODY ? "..." : "");
		} else
			emit(a.body.data, a.body.len);
		rc = 0;
	}
	if (rc != 1)
		rc = 0;
	mc_buf_free(&a.body);
	mc_http_res_free(&res);
	free(id);
	return rc;
}

static void *
post_thread(void *arg)
{
	char *line = arg;

	post(line, 0);
	free(line);
	return NULL;
}

/* The session's GET stream: the older transport's whole channel from the
 * server, or Streamable HTTP's stream for what the server asks unasked. */
static void *
stream_thread(void *arg)
{
	struct mc_http_res res;
	struct answer a = { .is_stream = 1 };
	char why[512];
	const char *t;
	int rc;

	(void)arg;
	rc = transfer("GET", B.url, NULL, &a, &res);
	if ((t = trouble(rc, &res, why, sizeof why)) == NULL && res.status / 100 != 2) {
		snprintf(why, sizeof why, "HTTP %ld%s%s", res.status, res.reason[0] ? " " : "",
		    res.reason);
		t = why;
	}
	pthread_mutex_lock(&B.mu);
	B.stream_over = 1;
	snprintf(B.stream_why, sizeof B.stream_why, "%s",
	    t != NULL ? t : "a stream that ended without naming an endpoint");
	pthread_cond_broadcast(&B.cv);
	pthread_mutex_unlock(&B.mu);
	if (B.legacy && B.endpoint != NULL) {
		/* The older transport's one channel from the server is gone:
		 * nothing more can come, which mc-mcp sees as the server's end. */
		mc_err("%s: the event stream ended: %s", B.name, t != NULL ? t : "the server closed it");
		fflush(stdout);
		_exit(1);
	}
	mc_buf_free(&a.body);
	mc_http_res_free(&res);
	return NULL;
}

static void
start_thread(void *(*fn)(void *), void *arg)
{
	pthread_attr_t at;
	pthread_t t;

	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &at, fn, arg) != 0)
		mc_oom();
	pthread_attr_destroy(&at);
}

/* The older transport: its stream, and the endpoint it names. 0 or -1. */
static int
legacy(const char *id)
{
	struct timespec until;
	char why[sizeof B.stream_why];
	int over;

	B.legacy = 1;
	start_thread(stream_thread, NULL);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += B.timeout_s;
	pthread_mutex_lock(&B.mu);
	while (B.endpoint == NULL && !B.stream_over && !B.elsewhere)
		if (pthread_cond_timedwait(&B.cv, &B.mu, &until) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&B.mu);
	if (B.endpoint == NULL) {
		/* Neither transport: how each was refused (emit takes B.mu). */
		pthread_mutex_lock(&B.mu);
		over = B.stream_over;
		snprintf(why, sizeof why, "%s", B.stream_why);
		pthread_mutex_unlock(&B.mu);
		if (B.elsewhere)
			fail(id, "%s answered the POST with %s, and its event stream (the older "
			    "HTTP+SSE transport) named an endpoint on another origin", B.url, B.refused);
		else if (over)
			fail(id, "%s answered the POST with %s, and the GET of the older HTTP+SSE "
			    "transport with %s", B.url, B.refused, why);
		else
			fail(id, "%s answered the POST with %s, and its event stream (the older "
			    "HTTP+SSE transport) named no endpoint within %ld s", B.url, B.refused,
			    B.timeout_s);
		return -1;
	}
	return 0;
}

/* The first line: {"name", "url", "headers": ["Name: value", ...], "timeout_s"}. */
static int
configure(char *line, size_t len)
{
	cJSON *c = mc_json_parse(line, len, NULL, 0), *h;
	const cJSON *t;

	explicit_bzero(line, len);
	if (c == NULL || mc_json_str(c, "url") == NULL)
		return -1;
	B.name = mc_strdup(mc_json_str(c, "name") ? mc_json_str(c, "name") : "?");
	B.url = mc_strdup(mc_json_str(c, "url"));
	t = cJSON_GetObjectItemCaseSensitive(c, "timeout_s");
	B.timeout_s = cJSON_IsNumber(t) && t->valuedouble >= 1 ? (long)t->valuedouble : MCP_TIMEOUT;
	if ((B.headers = calloc((size_t)cJSON_GetArraySize(mc_json_arr(c, "headers")) + 1,
	    sizeof *B.headers)) == NULL)
		mc_oom();
	cJSON_ArrayForEach(h, mc_json_arr(c, "headers"))
		if (cJSON_IsString(h)) {
			B.headers[B.nheaders++] = mc_strdup(h->valuestring);
			explicit_bzero(h->valuestring, strlen(h->valuestring));
		}
	cJSON_Delete(c);
	return 0;
}

/* The end of the session: DELETE, when the server gave one. */
static void
end_session(void)
{
	struct mc_http_res res;
	struct answer a = {0};

	if (B.legacy || B.session[0] == '\0')
		return;
	transfer("DELETE", B.url, NULL, &a, &res);
	mc_buf_free(&a.body);
	mc_http_res_free(&res);
}

int
mcp_bridge(void)
{
	char *line = NULL, *id, *copy;
	size_t cap = 0;
	ssize_t n;
	int first = 1;

	signal(SIGPIPE, SIG_IGN);
	if ((n = getline(&line, &cap, stdin)) <= 0 || configure(line, (size_t)n) == -1) {
		mc_err("stdin: expected the server's settings as the first line");
		free(line);
		return MC_EXIT_USAGE;
	}
	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (n == 0)
			continue;
		copy = mc_strdup(line);
		id = request_id(line);
		if (first) {
			/* initialize: by this thread, and the transport is
			 * found by it. */
			first = 0;
			B.init = mc_strdup(line);
			if (post(line, 1) == 1) {
				if (legacy(id) == -1) {
					free(copy);
					free(id);
					break;	/* said: nothing more can be sent */
				}
				post(line, 0);
			} else if (!B.legacy && B.session[0] != '\0')
				start_thread(stream_thread, NULL);
			free(copy);
		} else if (id == NULL) {
			/* Notifications and answers in order, at once. */
			if (B.inited == NULL && strstr(line, "notifications/initialized") != NULL)
				B.inited = mc_strdup(line);
			post(copy, 0);
			free(copy);
		} else
			start_thread(post_thread, copy);
		free(id);
	}
	free(line);
	end_session();
	return MC_EXIT_OK;
}
