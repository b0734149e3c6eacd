/* http.c: HTTP POSTs over libcurl's multi interface (so that a signal or an idle stream ends one at once), one connection kept across them. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* Plain declarations: the calls go through the pointers below (gcc's
 * checks of setopt's argument types wrap the name a pointer replaces). */
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <dlfcn.h>

#include "diag.h"
#include "buf.h"
#include "http.h"
#include "json.h"

/*
 * libcurl is opened when first needed, not when the program starts:
 * loading it and the libraries it brings costs about 4 ms, which an
 * answer from the cache does not need. Each function is called through
 * a pointer of its own type, set once for the process.
 *
 * Debian's GnuTLS build first: it brings the same thirty libraries but
 * libssl, and skips OpenSSL's start (its configuration file), which
 * makes it about 1 ms quicker to be ready here (5.0 -> 3.9 ms, with
 * curl_global_init). The OpenSSL build is the one the -dev package
 * installs, so it is there when the other is not. Same API, same ABI.
 */
#ifndef MC_LIBCURL
#define MC_LIBCURL "libcurl-gnutls.so.4", "libcurl.so.4"
#endif
#define CURL_FUNCS(X) \
	X(curl_easy_cleanup) X(curl_easy_getinfo) X(curl_easy_init) X(curl_easy_reset) \
	X(curl_easy_setopt) X(curl_easy_strerror) X(curl_free) X(curl_getdate) \
	X(curl_global_init) X(curl_multi_add_handle) X(curl_multi_cleanup) \
	X(curl_multi_info_read) X(curl_multi_init) X(curl_multi_perform) X(curl_multi_poll) \
	X(curl_multi_remove_handle) X(curl_slist_append) X(curl_slist_free_all) X(curl_url) \
	X(curl_url_cleanup) X(curl_url_get) X(curl_url_set)
#define CURL_PTR(f) static __typeof__(f) *p_##f;
CURL_FUNCS(CURL_PTR)

/* 0 once libcurl is there; -1 with the reason in err. */
static int
curl_load(char *err, size_t errsz)
{
	static const char *const names[] = { MC_LIBCURL };
	static int loaded;
	void *lib = NULL;
	size_t i;

	if (loaded)
		return 0;
	for (i = 0; lib == NULL && i < sizeof names / sizeof names[0]; i++)
		lib = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
	if (lib == NULL) {	/* the last one's reason */
		snprintf(err, errsz, "cannot load libcurl: %s", dlerror());
		return -1;
	}
#define CURL_SYM(f) if ((*(void **)&p_##f = dlsym(lib, #f)) == NULL) goto bad;
	CURL_FUNCS(CURL_SYM)
	loaded = 1;
	return 0;
bad:
	snprintf(err, errsz, "cannot load libcurl: %s", dlerror());
	dlclose(lib);
	return -1;
}

#undef curl_easy_getinfo	/* curl.h's own pass-through macros */
#undef curl_easy_setopt
#define curl_easy_cleanup (*p_curl_easy_cleanup)
#define curl_easy_getinfo (*p_curl_easy_getinfo)
#define curl_easy_init (*p_curl_easy_init)
#define curl_easy_reset (*p_curl_easy_reset)
#define curl_easy_setopt (*p_curl_easy_setopt)
#define curl_easy_strerror (*p_curl_easy_strerror)
#define curl_free (*p_curl_free)
#define curl_getdate (*p_curl_getdate)
#define curl_global_init (*p_curl_global_init)
#define curl_multi_add_handle (*p_curl_multi_add_handle)
#define curl_multi_cleanup (*p_curl_multi_cleanup)
#define curl_multi_info_read (*p_curl_multi_info_read)
#define curl_multi_init (*p_curl_multi_init)
#define curl_multi_perform (*p_curl_multi_perform)
#define curl_multi_poll (*p_curl_multi_poll)
#define curl_multi_remove_handle (*p_curl_multi_remove_handle)
#define curl_slist_append (*p_curl_slist_append)
#define curl_slist_free_all (*p_curl_slist_free_all)
#define curl_url (*p_curl_url)
#define curl_url_cleanup (*p_curl_url_cleanup)
#define curl_url_get (*p_curl_url_get)
#define curl_url_set (*p_curl_url_set)

/* How long the rest of a body is awaited after its answer ended. */
#define TAIL_MS 250

struct mc_http {
	CURLM *m;		/* holds the connection between transfers */
	CURL *h;
};

struct xfer {
	const struct mc_http_req *req;
	struct mc_http_res *res;
	CURL *h;
	struct timespec last;	/* when the last byte arrived */
	struct timespec ended;	/* when on_body said the answer is whole */
	int complete;		/* on_body said the answer is whole */
	int stopped;		/* on_body said abort */
	int intr;
};

static void
touch(struct xfer *x)
{
	clock_gettime(CLOCK_MONOTONIC, &x->last);
}

static int
interrupted(const struct xfer *x)
{
	return x->req->interrupted != NULL && *x->req->interrupted;
}

static size_t
on_header(char *p, size_t size, size_t n, void *arg)
{
	struct xfer *x = arg;
	struct mc_http_res *res = x->res;
	size_t len = size * n, i, vl;
	const char *v;
	char *sp;

	touch(x);
	if (interrupted(x)) {
		x->intr = 1;
		return 0;
	}
	while (len > 0 && (p[len - 1] == '\n' || p[len - 1] == '\r'))
		len--;
	if (len >= 5 && memcmp(p, "HTTP/", 5) == 0) {
		/* A new status line (after 100 Continue, say) starts over. */
		res->reason[0] = res->retry_after[0] = res->retry_after_ms[0] = '\0';
		sp = memchr(p, ' ', len);
		if (sp != NULL && (sp = memchr(sp + 1, ' ', len - (sp + 1 - p))) != NULL) {
			vl = len - (sp + 1 - p);
			if (vl >= sizeof res->reason)
				vl = sizeof res->reason - 1;
			memcpy(res->reason, sp + 1, vl);
			res->reason[vl] = '\0';
		}
		return size * n;
	}
	for (i = 0; i < len && p[i] != ':'; i++)
		;
	if (i == len)
		return size * n;
	v = p + i + 1;
	vl = len - i - 1;
	while (vl > 0 && (*v == ' ' || *v == '\t')) {
		v++;
		vl--;
	}
	if (i == 11 && strncasecmp(p, "retry-after", 11) == 0 && vl < sizeof res->retry_after) {
		memcpy(res->retry_after, v, vl);
		res->retry_after[vl] = '\0';
	} else if (i == 14 && strncasecmp(p, "retry-after-ms", 14) == 0 && vl < sizeof res->retry_after_ms) {
		memcpy(res->retry_after_ms, v, vl);
		res->retry_after_ms[vl] = '\0';
	}
	return size * n;
}

static size_t
on_write(char *p, size_t size, size_t n, void *arg)
{
	struct xfer *x = arg;
	struct mc_http_res *res = x->res;
	size_t len = size * n, keep;
	int r;

	touch(x);
	if (interrupted(x)) {
		x->intr = 1;
		return 0;
	}
	if (x->complete)
		return len;	/* the body's tail, after the answer: read to keep the connection */
	if (x->stopped)
		return 0;
	if (res->status == 0)
		curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &res->status);
	if (res->status < 200 || res->status > 299) {
		keep = MC_HTTP_ERRBODY_MAX - res->errbody.len;
		if (keep > len)
			keep = len;
		if (keep > 0)
			mc_buf_add(&res->errbody, p, keep);
		return len;
	}
	res->got_body = 1;
	r = x->req->on_body(p, len, x->req->arg);
	if (interrupted(x)) {
		x->intr = 1;
		return 0;
	}
	if (r > 0) {
		x->complete = 1;
		clock_gettime(CLOCK_MONOTONIC, &x->ended);
		return len;
	}
	if (r < 0) {
		x->stopped = 1;
		return 0;
	}
	return len;
}

static int
on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct xfer *x = arg;

	(void)dt, (void)dn, (void)ut, (void)un;
	if (interrupted(x)) {
		x->intr = 1;
		return 1;
	}
	return 0;
}

struct mc_http *
mc_http_new(char *err, size_t errsz)
{
	struct mc_http *h;

	if (curl_load(err, errsz) == -1)
		return NULL;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(err, errsz, "cannot start libcurl");
		return NULL;
	}
	if ((h = calloc(1, sizeof *h)) == NULL)
		mc_oom();
	if ((h->m = curl_multi_init()) == NULL || (h->h = curl_easy_init()) == NULL) {
		mc_http_free(h);
		snprintf(err, errsz, "cannot start libcurl");
		return NULL;
	}
	return h;
}

void
mc_http_free(struct mc_http *h)
{
	if (h == NULL)
		return;
	if (h->h != NULL)
		curl_easy_cleanup(h->h);
	if (h->m != NULL)
		curl_multi_cleanup(h->m);
	free(h);
}

void
mc_http_res_free(struct mc_http_res *res)
{
	mc_buf_free(&res->errbody);
}

static void
drain(int fd)
{
	char b[64];

	while (read(fd, b, sizeof b) > 0)
		;
}

/* Run the transfer until it ends; returns libcurl's result for it. */
static CURLcode
run(struct xfer *x, CURLM *m)
{
	struct curl_waitfd wake = { .events = CURL_WAIT_POLLIN };
	long idle_ms = x->req->idle_timeout * 1000L, wait;
	CURLcode rc = CURLE_OK;
	CURLMsg *msg;
	int running = 1, left;

	wake.fd = x->req->wake_fd;
	while (running) {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			return CURLE_FAILED_INIT;
		while ((msg = curl_multi_info_read(m, &left)) != NULL)
			if (msg->msg == CURLMSG_DONE)
				rc = msg->data.result;
		if (!running || x->stopped || (x->complete && mc_ms_since(&x->ended) >= TAIL_MS))
			break;
		if (interrupted(x)) {
			x->intr = 1;
			break;
		}
		if (!x->complete && idle_ms > 0 && mc_ms_since(&x->last) >= idle_ms) {
			x->res->result = MC_HTTP_IDLE;
			break;
		}
		if (x->req->on_tick)
			x->req->on_tick(x->req->arg);
		wait = x->complete ? 10 : 100;
		if (idle_ms > 0 && idle_ms - mc_ms_since(&x->last) < wait)
			wait = idle_ms - mc_ms_since(&x->last) + 1;
		if (wait < 1)
			wait = 1;
		if (curl_multi_poll(m, wake.fd >= 0 ? &wake : NULL, wake.fd >= 0 ? 1 : 0,
		    (int)wait, NULL) != CURLM_OK)
			return CURLE_FAILED_INIT;
		if (wake.fd >= 0)
			drain(wake.fd);
	}
	return rc;
}

static void
set_options(struct xfer *x, struct curl_slist *hl, char *errbuf)
{
	const struct mc_http_req *req = x->req;
	CURL *h = x->h;
	const char *ca;

	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, req->url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_POST, 1L);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, req->body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->len);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "mc-send/" MC_VERSION);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, req->connect_timeout);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
	/* Fewer, larger pieces: each costs a poll, a recv and a flush downstream. */
	curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 256L * 1024);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, x);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	/* libcurl reads the proxy variables itself, but not these: do as the
	 * curl tool does. */
	if ((ca = getenv("CURL_CA_BUNDLE")) != NULL && ca[0] != '\0')
		curl_easy_setopt(h, CURLOPT_CAINFO, ca);
	else if ((ca = getenv("SSL_CERT_FILE")) != NULL && ca[0] != '\0')
		curl_easy_setopt(h, CURLOPT_CAINFO, ca);
	if ((ca = getenv("SSL_CERT_DIR")) != NULL && ca[0] != '\0')
		curl_easy_setopt(h, CURLOPT_CAPATH, ca);
}

int
mc_http_post(struct mc_http *http, const struct mc_http_req *req, struct mc_http_res *res)
{
	struct curl_slist *hl = NULL, *n, *e;
	struct xfer x = { .req = req, .res = res, .h = http->h };
	char errbuf[CURL_ERROR_SIZE] = "";
	const char *const *hp;
	long oserr = 0;
	CURLcode rc;

	memset(res, 0, sizeof *res);
	for (hp = req->headers; hp && *hp; hp++) {
		if ((n = curl_slist_append(hl, *hp)) == NULL)
			mc_oom();
		hl = n;
	}
	set_options(&x, hl, errbuf);
	if (curl_multi_add_handle(http->m, x.h) != CURLM_OK) {
		curl_slist_free_all(hl);
		return -1;
	}
	touch(&x);
	res->result = MC_HTTP_OK;
	rc = run(&x, http->m);
	if (res->status == 0)
		curl_easy_getinfo(x.h, CURLINFO_RESPONSE_CODE, &res->status);
	if (x.intr || interrupted(&x))
		res->result = MC_HTTP_INTR;
	else if (x.stopped)
		res->result = MC_HTTP_STOPPED;
	else if (x.complete || res->result == MC_HTTP_IDLE)
		;
	else if (rc != CURLE_OK) {
		res->result = res->status == 0 ? MC_HTTP_NOCONN : MC_HTTP_CUT;
		curl_easy_getinfo(x.h, CURLINFO_OS_ERRNO, &oserr);
		res->refused = rc == CURLE_COULDNT_CONNECT && oserr == ECONNREFUSED;
		snprintf(res->err, sizeof res->err, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
	}
	/* A transfer stopped early loses its connection; a whole one keeps it. */
	curl_multi_remove_handle(http->m, x.h);
	curl_easy_setopt(x.h, CURLOPT_ERRORBUFFER, NULL);
	curl_easy_setopt(x.h, CURLOPT_HTTPHEADER, NULL);
	/* The headers may hold a key: wipe libcurl's copies before freeing them. */
	for (e = hl; e != NULL; e = e->next)
		explicit_bzero(e->data, strlen(e->data));
	curl_slist_free_all(hl);
	return 0;
}

int
mc_http_loopback(const char *url)
{
	struct in_addr a4;
	struct in6_addr a6;
	char *host = NULL, v6[INET6_ADDRSTRLEN + 8], err[512];
	CURLU *u;
	int r = 0;

	if (curl_load(err, sizeof err) == -1)
		return 0;	/* nothing is sent without it anyway */
	if ((u = curl_url()) == NULL)
		mc_oom();
	if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK)
		r = (inet_pton(AF_INET, host, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127) ||
		    (host[0] == '[' && strlen(host) < sizeof v6 + 2 &&
		    snprintf(v6, sizeof v6, "%.*s", (int)strlen(host) - 2, host + 1) > 0 &&
		    inet_pton(AF_INET6, v6, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6)) ||
		    strcasecmp(host, "localhost") == 0;
	curl_free(host);
	curl_url_cleanup(u);
	return r;
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
	char err[512];
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
	if (curl_load(err, sizeof err) == -1 || (t = curl_getdate(v, NULL)) == -1)
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
