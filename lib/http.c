/* http.c: HTTP POSTs with one connection kept across them: plain HTTP to a local server by the suite's own client, the rest by libcurl. */
#include <arpa/inet.h>
#include <bsd/stdlib.h>
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "http-int.h"

/*
 * Two transports. libcurl does everything (TLS, proxies, names through
 * DNS) but loading it and the thirty libraries it brings takes about
 * 5 ms, longer than the driver takes to assemble a prompt (SPEC §8's
 * second round). A local provider (llama.cpp, ollama, vLLM) is plain
 * HTTP on a numeric address or localhost: the plain transport (http-
 * plain.c and h1.c) speaks that, and libcurl is loaded only for what
 * needs it.
 */
struct mc_http {
	struct http_plain *plain;
	struct http_curl *curl;
};

struct mc_http *
mc_http_new(void)
{
	struct mc_http *h;

	if ((h = calloc(1, sizeof *h)) == NULL)
		mc_oom();
	return h;
}

void
mc_http_free(struct mc_http *h)
{
	if (h == NULL)
		return;
	http_plain_free(h->plain);
	http_curl_free(h->curl);
	free(h);
}

void
mc_http_res_free(struct mc_http_res *res)
{
	mc_buf_free(&res->errbody);
}

/* A host given as an address, or localhost: nothing to ask DNS. */
static int
numeric_host(const char *host)
{
	struct in6_addr a6;
	struct in_addr a4;

	return inet_pton(AF_INET, host, &a4) == 1 || inet_pton(AF_INET6, host, &a6) == 1 ||
	    strcasecmp(host, "localhost") == 0;
}

/*
 * host is in a no_proxy list: "*", or an entry that names it exactly
 * (a leading dot and an IPv6 literal's brackets aside). libcurl takes
 * more (domains, CIDR); what this does not take is left to it.
 */
static int
no_proxy(const char *list, const char *host)
{
	const char *t;
	size_t n, hn = strlen(host);

	while (*list != '\0') {
		list += strspn(list, ", \t");
		t = list;
		n = strcspn(list, ", \t");
		list += n;
		if (n > 0 && t[0] == '.')
			t++, n--;
		if (n > 1 && t[0] == '[' && t[n - 1] == ']')
			t++, n -= 2;
		if ((n == 1 && t[0] == '*') || (n == hn && strncasecmp(t, host, n) == 0))
			return 1;
	}
	return 0;
}

/* A proxy libcurl would use for a plain http:// URL to host: one of the
 * variables it reads is set, and no_proxy does not say host. */
static int
proxied(const char *host)
{
	static const char *const vars[] = { "http_proxy", "all_proxy", "ALL_PROXY" };
	const char *v, *np;
	size_t i;

	for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if ((v = getenv(vars[i])) != NULL && v[0] != '\0')
			break;
	if (i == sizeof vars / sizeof vars[0])
		return 0;
	if ((np = getenv("no_proxy")) == NULL || np[0] == '\0')
		np = getenv("NO_PROXY");
	return np == NULL || !no_proxy(np, host);
}

/* A URL for the plain transport (taken apart in u). */
static int
plain(const char *url, struct http_url *u)
{
	return http_url_split(url, u) == 0 && strcmp(u->scheme, "http") == 0 && !u->userinfo &&
	    numeric_host(u->host) && !proxied(u->host);
}

int
mc_http_libcurl(const char *url)
{
	struct http_url u;

	return !plain(url, &u);
}

void
mc_http_preload(struct mc_http *h)
{
	char err[320];

	if (h->curl == NULL)
		h->curl = http_curl_new(err, sizeof err);	/* else the POST says why */
}

int
mc_http_post(struct mc_http *h, const struct mc_http_req *req, struct mc_http_res *res)
{
	struct http_url u;

	memset(res, 0, sizeof *res);
	if (plain(req->url, &u))
		return http_plain_post(&h->plain, &u, req, res);
	if (h->curl == NULL && (h->curl = http_curl_new(res->err, sizeof res->err)) == NULL)
		return -1;
	return http_curl_post(h->curl, req, res);
}

void
http_touch(struct http_xfer *x)
{
	if (!x->in_body)
		clock_gettime(CLOCK_MONOTONIC, &x->last);
}

int
http_interrupted(struct http_xfer *x)
{
	if (x->req->interrupted != NULL && *x->req->interrupted)
		x->intr = 1;
	return x->intr;
}

void
http_head(struct http_xfer *x)
{
	struct mc_http_res *res = x->res;

	if (x->h1.status == 0 || res->status == x->h1.status)
		return;
	res->status = x->h1.status;
	memcpy(res->reason, x->h1.reason, sizeof res->reason);
	memcpy(res->retry_after, x->h1.retry_after, sizeof res->retry_after);
	memcpy(res->retry_after_ms, x->h1.retry_after_ms, sizeof res->retry_after_ms);
	memcpy(res->content_type, x->h1.content_type, sizeof res->content_type);
	memcpy(res->mcp_session, x->h1.mcp_session, sizeof res->mcp_session);
}

int
http_piece(const char *p, size_t n, void *arg)
{
	struct http_xfer *x = arg;
	struct mc_http_res *res = x->res;
	size_t keep;
	int r;

	/* The head is in res before on_body sees the body (the two may
	 * come in one read). */
	http_head(x);
	http_touch(x);
	if (http_interrupted(x))
		return 1;
	if (x->complete)
		return 0;	/* the body's tail, after the answer: read to keep the connection */
	if (x->stopped)
		return 1;
	if (x->h1.status < 200 || x->h1.status > 299) {
		keep = MC_HTTP_ERRBODY_MAX - res->errbody.len;
		if (keep > n)
			keep = n;
		if (keep > 0)
			mc_buf_add(&res->errbody, p, keep);
		return 0;
	}
	res->got_body = 1;
	x->in_body = 1;
	r = x->req->on_body(p, n, x->req->arg);
	if (http_interrupted(x))
		return 1;
	if (x->req->progress == NULL || x->req->progress(x->req->arg) != x->seen) {
		if (x->req->progress != NULL)
			x->seen = x->req->progress(x->req->arg);
		clock_gettime(CLOCK_MONOTONIC, &x->last);
	}
	if (r > 0) {
		x->complete = 1;
		clock_gettime(CLOCK_MONOTONIC, &x->ended);
	} else if (r < 0)
		x->stopped = 1;
	return r < 0;
}

long
http_wait(struct http_xfer *x)
{
	long ms;

	long long left = -1;

	if (x->complete)
		return (ms = HTTP_TAIL_MS - mc_ms_since(&x->ended)) > 0 ? ms : 0;
	if (x->req->deadline > 0 && (left = x->req->deadline - mc_clock_ms()) <= 0) {
		x->res->result = MC_HTTP_TIMEOUT;
		return 0;
	}
	if (x->req->idle_timeout <= 0)
		return left < 0 ? -1 : left > LONG_MAX ? LONG_MAX : (long)left;
	if ((ms = x->req->idle_timeout * 1000 - mc_ms_since(&x->last)) <= 0) {
		x->res->result = MC_HTTP_IDLE;
		return 0;
	}
	return left >= 0 && left < ms ? (long)left : ms;
}

int
http_settle(struct http_xfer *x)
{
	if (http_interrupted(x))
		x->res->result = MC_HTTP_INTR;
	else if (x->stopped)
		x->res->result = MC_HTTP_STOPPED;
	else if (x->complete)
		x->res->result = MC_HTTP_OK;	/* whole, even if its body's end did not come */
	else
		return 0;
	return 1;
}

void
http_drain(int fd)
{
	char b[64];

	while (read(fd, b, sizeof b) > 0)
		;
}

int
http_url_split(const char *url, struct http_url *u)
{
	const char *p = url, *auth, *end, *at, *colon, *h, *he, *e;
	size_t n;

	memset(u, 0, sizeof *u);
	for (n = 0; isalpha((unsigned char)p[n]) && n < sizeof u->scheme - 1; n++)
		u->scheme[n] = (char)tolower((unsigned char)p[n]);
	if (n == 0 || strncmp(p + n, "://", 3) != 0)
		return -1;
	auth = p + n + 3;
	end = auth + strcspn(auth, "/?#");
	u->target = end;
	u->target_len = strcspn(end, "#");
	if ((at = memrchr(auth, '@', (size_t)(end - auth))) != NULL) {
		u->userinfo = 1;
		auth = at + 1;
	}
	if (*auth == '[') {
		h = auth + 1;
		if ((he = memchr(h, ']', (size_t)(end - h))) == NULL)
			return -1;
		colon = he + 1 < end ? he + 1 : NULL;
		if (colon != NULL && *colon != ':')
			return -1;
	} else {
		h = auth;
		colon = memchr(auth, ':', (size_t)(end - auth));
		he = colon != NULL ? colon : end;
	}
	if (he == h || (size_t)(he - h) >= sizeof u->host ||
	    (size_t)(end - auth) >= sizeof u->authority)
		return -1;
	memcpy(u->host, h, (size_t)(he - h));
	memcpy(u->authority, auth, (size_t)(end - auth));
	if (colon != NULL && colon + 1 < end) {
		if ((size_t)(end - colon - 1) >= sizeof u->port)
			return -1;
		memcpy(u->port, colon + 1, (size_t)(end - colon - 1));
		if (strspn(u->port, "0123456789") != strlen(u->port) ||
		    strtonum(u->port, 1, 65535, &e) == 0)
			return -1;
	} else
		snprintf(u->port, sizeof u->port, "%s", strcmp(u->scheme, "https") == 0 ? "443" : "80");
	return 0;
}

int
mc_http_loopback(const char *url)
{
	struct http_url u;
	struct in_addr a4;
	struct in6_addr a6;

	if (http_url_split(url, &u) == -1)
		return 0;
	return (inet_pton(AF_INET, u.host, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127) ||
	    (inet_pton(AF_INET6, u.host, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6)) ||
	    strcasecmp(u.host, "localhost") == 0;
}

/* An HTTP-date in any of its three forms (RFC 9110 §5.6.7) as seconds
 * since the epoch, -1 when it is not one. LC_TIME is never set here: the
 * names are English. */
static time_t
http_date(const char *v)
{
	static const char *const forms[] = {
		"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %d %H:%M:%S %Y",
	};
	const char *end;
	struct tm tm;
	size_t i;

	for (i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		memset(&tm, 0, sizeof tm);
		if ((end = strptime(v, forms[i], &tm)) == NULL)
			continue;
		end += strspn(end, " \t");
		if (*end == '\0')
			return timegm(&tm);
	}
	return -1;
}

int
mc_http_retryable(long status)
{
	return status == 408 || status == 409 || status == 429 || (status >= 500 && status <= 599);
}

long
mc_http_retry_after(const char *v, time_t now)
{
	const char *p;
	long long secs = 0;
	time_t t;

	while (*v == ' ' || *v == '\t')
		v++;
	if (*v == '\0')
		return -1;
	if (isdigit((unsigned char)*v)) {
		for (p = v; isdigit((unsigned char)*p); p++)
			if ((secs = secs * 10 + (*p - '0')) > 86400 * 365)
				secs = 86400 * 365;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '\0')
			return -1;
		return (long)(secs * 1000);
	}
	if ((t = http_date(v)) == -1)
		return -1;
	if (t <= now)
		return 0;
	if (t - now > 86400 * 365)
		return 86400L * 365 * 1000;
	return (long)(t - now) * 1000;
}

long
mc_http_backoff(int n, long base_ms, long cap_ms)
{
	long d = base_ms;

	if (n < 0)
		n = 0;
	while (n-- > 0 && d < cap_ms)
		d = d > LONG_MAX / 2 ? LONG_MAX : d * 2;
	if (d > cap_ms)
		d = cap_ms;
	if (d <= 1)
		return d;
	/* Jitter spreads the retries of many clients hit by one outage. */
	return d / 2 + (long)arc4random_uniform((uint32_t)(d - d / 2 + 1 > (long)UINT32_MAX ?
	    UINT32_MAX : d - d / 2 + 1));
}
