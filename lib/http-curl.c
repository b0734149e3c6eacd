/* http-curl.c: the libcurl transport, over its multi interface (so that a signal or an idle stream ends a POST at once), loaded when first needed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plain declarations: the calls go through the pointers below (gcc's
 * checks of setopt's argument types wrap the name a pointer replaces). */
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <dlfcn.h>

#include "diag.h"
#include "http-int.h"

/*
 * libcurl is opened when first needed, not when the program starts:
 * loading it and the libraries it brings costs about 4 ms, which a local
 * provider or an answer from the cache does not need. Each function is
 * called through a pointer of its own type, set once for the process.
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
	X(curl_easy_cleanup) X(curl_easy_init) X(curl_easy_getinfo) X(curl_easy_reset) \
	X(curl_easy_setopt) X(curl_easy_strerror) X(curl_global_init) \
	X(curl_multi_add_handle) X(curl_multi_cleanup) X(curl_multi_info_read) \
	X(curl_multi_init) X(curl_multi_perform) X(curl_multi_poll) \
	X(curl_multi_remove_handle) X(curl_slist_append) X(curl_slist_free_all)
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

struct http_curl {
	CURLM *m;		/* holds the connection between transfers */
	CURL *h;
};

/* The answer's head, line by line, read as the plain transport reads it. */
static size_t
on_header(char *p, size_t size, size_t n, void *arg)
{
	struct http_xfer *x = arg;
	size_t len = size * n, used;

	http_touch(x);
	if (http_interrupted(x))
		return 0;
	x->h1.any_version = 1;
	/* Another head (after a proxy's CONNECT answer, say) starts over. */
	if (len >= 5 && memcmp(p, "HTTP/", 5) == 0 && x->h1.state != MC_H1_HEAD)
		mc_h1_reset(&x->h1);
	if (x->h1.state == MC_H1_HEAD)
		(void)mc_h1_feed(&x->h1, p, len, &used, http_piece, x);
	return len;
}

/* The transfer: the shared part first, so that it is the callbacks' arg. */
struct curl_xfer {
	struct http_xfer x;
	CURL *h;
};

static size_t
on_write(char *p, size_t size, size_t n, void *arg)
{
	struct curl_xfer *cx = arg;

	/* A head libcurl took that h1 did not: its status all the same. */
	if (cx->x.h1.status == 0)
		curl_easy_getinfo(cx->h, CURLINFO_RESPONSE_CODE, &cx->x.h1.status);
	return http_piece(p, size * n, &cx->x) ? 0 : size * n;
}

static int
on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)dt, (void)dn, (void)ut, (void)un;
	return http_interrupted(arg);
}

struct http_curl *
http_curl_new(char *err, size_t errsz)
{
	struct http_curl *c;

	if (curl_load(err, errsz) == -1)
		return NULL;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(err, errsz, "cannot start libcurl");
		return NULL;
	}
	if ((c = calloc(1, sizeof *c)) == NULL)
		mc_oom();
	if ((c->m = curl_multi_init()) == NULL || (c->h = curl_easy_init()) == NULL) {
		http_curl_free(c);
		snprintf(err, errsz, "cannot start libcurl");
		return NULL;
	}
	return c;
}

void
http_curl_free(struct http_curl *c)
{
	if (c == NULL)
		return;
	if (c->h != NULL)
		curl_easy_cleanup(c->h);
	if (c->m != NULL)
		curl_multi_cleanup(c->m);
	free(c);
}

/* Run the transfer until it ends; returns libcurl's result for it. */
static CURLcode
run(struct http_xfer *x, CURLM *m)
{
	struct curl_waitfd wake = { .events = CURL_WAIT_POLLIN };
	long wait, most;
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
		if (!running || x->stopped || http_interrupted(x) || (wait = http_wait(x)) == 0)
			break;
		if (x->req->on_tick)
			x->req->on_tick(x->req->arg);
		most = x->complete ? 10 : 100;
		if (wait < 0 || wait > most)
			wait = most;
		if (curl_multi_poll(m, wake.fd >= 0 ? &wake : NULL, wake.fd >= 0 ? 1 : 0,
		    (int)wait, NULL) != CURLM_OK)
			return CURLE_FAILED_INIT;
		if (wake.fd >= 0)
			http_drain(wake.fd);
	}
	return rc;
}

static void
set_options(struct http_xfer *x, CURL *h, struct curl_slist *hl, char *errbuf)
{
	const struct mc_http_req *req = x->req;
	const char *ca;

	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, req->url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	if (req->method == NULL) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, req->body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->len);
	} else if (strcmp(req->method, "GET") == 0)
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	else
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req->method);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
	curl_easy_setopt(h, CURLOPT_USERAGENT, HTTP_AGENT);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, req->connect_timeout);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, x);	/* the start of a curl_xfer */
	curl_easy_setopt(h, CURLOPT_BUFFERSIZE, (long)HTTP_PIECE);
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
http_curl_post(struct http_curl *c, const struct mc_http_req *req, struct mc_http_res *res)
{
	struct curl_slist *hl = NULL, *n, *e;
	struct curl_xfer cx = { .x = { .req = req, .res = res } };
	struct http_xfer *x = &cx.x;
	char errbuf[CURL_ERROR_SIZE] = "";
	const char *const *hp;
	long oserr = 0;
	CURLcode rc;
	CURL *h;

	h = cx.h = c->h;
	for (hp = req->headers; hp && *hp; hp++) {
		if ((n = curl_slist_append(hl, *hp)) == NULL)
			mc_oom();
		hl = n;
	}
	/* No 100-continue round trip. */
	if ((n = curl_slist_append(hl, "Expect:")) == NULL)
		mc_oom();
	hl = n;
	set_options(x, h, hl, errbuf);
	if (curl_multi_add_handle(c->m, h) != CURLM_OK) {
		curl_slist_free_all(hl);
		snprintf(res->err, sizeof res->err, "cannot start libcurl");
		return -1;
	}
	http_touch(x);
	res->result = MC_HTTP_OK;
	rc = run(x, c->m);
	if (x->h1.status == 0)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &x->h1.status);
	http_head(x);
	if (!http_settle(x) && res->result != MC_HTTP_IDLE &&
	    res->result != MC_HTTP_TIMEOUT && rc != CURLE_OK) {
		res->result = res->status == 0 ? MC_HTTP_NOCONN : MC_HTTP_CUT;
		curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &oserr);
		res->refused = rc == CURLE_COULDNT_CONNECT && oserr == ECONNREFUSED;
		snprintf(res->err, sizeof res->err, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
	}
	/* A transfer stopped early loses its connection; a whole one keeps it. */
	curl_multi_remove_handle(c->m, h);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	/* The headers may hold a key: wipe libcurl's copies before freeing them. */
	for (e = hl; e != NULL; e = e->next)
		explicit_bzero(e->data, strlen(e->data));
	curl_slist_free_all(hl);
	mc_h1_free(&x->h1);
	return 0;
}
