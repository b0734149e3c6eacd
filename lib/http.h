/* http.h: HTTP POSTs over one connection kept for the process, with an idle timeout, interruption and retry timing. */
#ifndef MC_HTTP_H
#define MC_HTTP_H

#include <signal.h>
#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "clock.h"

#define MC_HTTP_ERRBODY_MAX (1u << 20)	/* kept of an error status's body */

struct mc_http_req {
	const char *method;		/* "GET", "DELETE"; NULL: POST */
	const char *url;
	const char *body;
	size_t len;
	const char *const *headers;	/* NULL-terminated "Name: value" lines */
	long connect_timeout;		/* seconds */
	long idle_timeout;		/* seconds without progress (below) */
	long long deadline;		/* mc_clock_ms() by which the transfer is
					 * over, whole or not (MC_HTTP_TIMEOUT); 0: none */
	/*
	 * How much of a 2xx answer's body counts as progress so far (say, its
	 * bytes outside SSE comments and keep-alives): once the body has
	 * begun, only a change of it resets the idle timer. NULL: every byte
	 * does.
	 */
	size_t (*progress)(void *arg);
	/*
	 * Called with the body of a 2xx answer as it arrives. Return 0 to go
	 * on, 1 when the answer is complete (the transfer ends there), -1 to
	 * abort it.
	 */
	int (*on_body)(const char *p, size_t n, void *arg);
	/* Called about ten times a second while waiting (may be NULL). */
	void (*on_tick)(void *arg);
	void *arg;
	/* Set by a signal handler: the transfer stops at once. wake_fd (or -1)
	 * is the read end of a pipe the handler writes to, so a wait ends. */
	volatile sig_atomic_t *interrupted;
	int wake_fd;
};

enum mc_http_result {
	MC_HTTP_OK,		/* a whole answer, any status */
	MC_HTTP_NOCONN,		/* no answer at all: connection, DNS, TLS, timeout */
	MC_HTTP_CUT,		/* the answer broke off (see got_body) */
	MC_HTTP_IDLE,		/* no progress for idle_timeout seconds */
	MC_HTTP_TIMEOUT,	/* the deadline passed */
	MC_HTTP_STOPPED,	/* on_body returned -1 */
	MC_HTTP_INTR,		/* *interrupted was set */
};

struct mc_http_res {
	enum mc_http_result result;
	long status;			/* 0 when no status line came */
	char reason[128];		/* the status line's reason phrase */
	char retry_after[128];		/* Retry-After header, "" when none */
	char retry_after_ms[32];	/* retry-after-ms header (OpenAI) */
	char content_type[128];		/* Content-Type, "" when none */
	char mcp_session[256];		/* Mcp-Session-Id (MCP), "" when none */
	struct mc_buf errbody;		/* body of a non-2xx answer (bounded) */
	int got_body;			/* on_body was called */
	char err[320];			/* the reason for a failure */
	int refused;			/* MC_HTTP_NOCONN: the connection was refused */
};

/*
 * A client for a series of POSTs: the connection (TCP and TLS) made for
 * one is kept for the next to the same server while the server keeps it
 * open. An answer that ends before its body does (the stream's last event
 * came) is followed a short while for the body's end, so that the
 * connection stays usable; a server that does not end the body then loses
 * it. Plain HTTP to an address or localhost, without a proxy, goes by
 * the suite's own HTTP/1.1 client; the rest by libcurl, loaded (dlopen)
 * by the first POST that needs it.
 */
struct mc_http;
struct mc_http *mc_http_new(void);
void mc_http_free(struct mc_http *h);
/* True when a POST to url goes by libcurl: https, a proxy, a host name
 * to look up. */
int mc_http_libcurl(const char *url);
/* Load libcurl now, not by the first POST that needs it (a failure is
 * said by that POST). */
void mc_http_preload(struct mc_http *h);
/* POST req->body to req->url (or req->method without a body). The result is in res (free with
 * mc_http_res_free). Returns -1, with the reason in res->err, only when
 * the request cannot be made at all, whatever a retry would do: libcurl
 * could not be loaded or set up, or a header would break its lines. */
int mc_http_post(struct mc_http *h, const struct mc_http_req *req, struct mc_http_res *res);
void mc_http_res_free(struct mc_http_res *res);

/* True when url's host is a loopback one: 127.0.0.0/8, ::1 or localhost. */
int mc_http_loopback(const char *url);

/* True for statuses worth another attempt: 408, 409, 429 and 5xx. */
int mc_http_retryable(long status);
/* A Retry-After value (delay-seconds or HTTP-date) as milliseconds from
 * now, or -1 when it is not one. A date in the past is 0. */
long mc_http_retry_after(const char *value, time_t now);
/* Exponential backoff with jitter for retry number n (0 = first): a
 * random delay between half and all of base_ms * 2^n, at most cap_ms. */
long mc_http_backoff(int n, long base_ms, long cap_ms);

#endif
