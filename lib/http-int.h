/* http-int.h: what lib/http.c shares with its two transports, libcurl's and the plain HTTP/1.1 one. */
#ifndef MC_HTTP_INT_H
#define MC_HTTP_INT_H

#include <time.h>

#include "h1.h"
#include "http.h"

#define HTTP_AGENT "mc-send/" MC_VERSION
/* Bytes read at a time: fewer, larger pieces, as each costs a poll, a
 * read and a flush downstream. */
#define HTTP_PIECE (256u << 10)

/* How long the rest of a body is awaited after its answer ended. */
#define HTTP_TAIL_MS 250

/* One POST under way, either transport's. */
struct http_xfer {
	const struct mc_http_req *req;
	struct mc_http_res *res;
	struct mc_h1 h1;	/* the answer's head (and, for the plain transport, its body) */
	struct timespec last;	/* when the last progress came: a byte, or in a
				 * 2xx body a change of req->progress */
	int in_body;		/* a 2xx body has begun */
	size_t seen;		/* req->progress there, when last looked at */
	struct timespec ended;	/* when on_body said the answer is whole */
	int complete;		/* on_body said the answer is whole */
	int stopped;		/* on_body said abort */
	int intr;		/* *req->interrupted was seen */
};

/* A byte came: progress, until a 2xx body begins (then http_piece says). */
void http_touch(struct http_xfer *x);
/* True (and x->intr set) once the request's interrupt flag is. */
int http_interrupted(struct http_xfer *x);
/* The head parsed so far into x->res: status, reason, Retry-After. */
void http_head(struct http_xfer *x);
/* A piece of the body (an mc_h1_feed callback): to on_body for a 2xx
 * answer, else into res->errbody. 1 when the transfer is to stop. */
int http_piece(const char *p, size_t n, void *x);

/*
 * How long more of the answer is awaited: milliseconds, -1 without a
 * limit, or 0 when the wait is over: the body's tail had its time after
 * a whole answer (x->complete), or nothing came for the idle timeout
 * (res->result is then MC_HTTP_IDLE) or the deadline passed
 * (MC_HTTP_TIMEOUT).
 */
long http_wait(struct http_xfer *x);
/* The result where the transports agree, once the transfer ended: an
 * interrupt, a stop, or an answer whole before its body was. 0 when it
 * is none of these and the transport's own reading stands. */
int http_settle(struct http_xfer *x);
/* Read all there is from the (non-blocking) wake pipe. */
void http_drain(int fd);

/* A URL taken apart; the strings point into it or into the arrays. */
struct http_url {
	char scheme[8];		/* lower case */
	char host[256];		/* without an IPv6 literal's brackets */
	char port[6];		/* the scheme's when the URL has none */
	char authority[272];	/* host[:port] as written, for Host: */
	const char *target;	/* path and query ("" for none), no fragment */
	size_t target_len;
	int userinfo;		/* a user (and password) before the host */
};

/* 0, or -1 when url is not scheme://host[:port][/...]. */
int http_url_split(const char *url, struct http_url *u);

/* The plain transport: plain HTTP to a numeric or localhost host, without
 * a proxy. The connection is kept in *p between calls. */
struct http_plain;
int http_plain_post(struct http_plain **p, const struct http_url *u,
    const struct mc_http_req *req, struct mc_http_res *res);
void http_plain_free(struct http_plain *p);

/* libcurl's, for the rest: http_curl_new loads it (dlopen), NULL with the
 * reason in err when it cannot be loaded or set up. */
struct http_curl;
struct http_curl *http_curl_new(char *err, size_t errsz);
int http_curl_post(struct http_curl *c, const struct mc_http_req *req, struct mc_http_res *res);
void http_curl_free(struct http_curl *c);

#endif
