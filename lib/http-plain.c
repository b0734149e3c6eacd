/* http-plain.c: the plain transport: a POST as HTTP/1.1 over a TCP connection of its own, kept for the next one to the same server. */
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "http-int.h"

struct http_plain {
	int fd;			/* the kept connection, or -1 */
	char host[256], port[6];	/* where it goes */
	char *buf;		/* HTTP_PIECE bytes read at a time */
};

enum { GOT, AGAIN, FAILED };	/* an exchange's end; AGAIN: try a new connection */

static void
hang_up(struct http_plain *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

void
http_plain_free(struct http_plain *p)
{
	if (p == NULL)
		return;
	hang_up(p);
	free(p->buf);
	free(p);
}

/* A kept connection the server has not closed (nor written to unasked). */
static int
alive(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLRDHUP };

	return poll(&pfd, 1, 0) == 0;
}

static void
drain(int fd)
{
	char b[64];

	while (fd >= 0 && read(fd, b, sizeof b) > 0)
		;
}

/*
 * Wait until fd is ready for events, at most ms (-1: no limit), while
 * ticking; the wake pipe ends the wait. 1 ready, 0 not yet, -1 interrupted.
 */
static int
await(struct http_xfer *x, int fd, short events, long ms)
{
	struct pollfd pfd[2] = { { .fd = fd, .events = events },
				 { .fd = x->req->wake_fd, .events = POLLIN } };
	int n;

	if (http_interrupted(x))
		return -1;
	if (x->req->on_tick)
		x->req->on_tick(x->req->arg);
	n = poll(pfd, x->req->wake_fd >= 0 ? 2 : 1, ms < 0 || ms > 100 ? 100 : (int)ms);
	drain(pfd[1].revents ? x->req->wake_fd : -1);
	if (http_interrupted(x))
		return -1;
	return n > 0 && pfd[0].revents != 0;
}

/* Milliseconds left of limit_s seconds since *t; -1 without a limit. */
static long
left_ms(long limit_s, const struct timespec *t)
{
	long ms;

	if (limit_s <= 0)
		return -1;
	ms = limit_s * 1000 - mc_ms_since(t);
	return ms > 0 ? ms : 0;
}

static void
tune(int fd)
{
	int on = 1, secs = 60;

	/* As libcurl does: no Nagle delay, and probes on a silent connection. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &secs, sizeof secs);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &secs, sizeof secs);
}

/* Connect to u, each of its addresses in turn. 0, or -1 with res set. */
static int
dial(struct http_plain *p, const struct http_url *u, struct http_xfer *x)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct mc_http_res *res = x->res;
	struct addrinfo *ai, *a;
	struct timespec start;
	socklen_t sl;
	int fd = -1, e = 0, r;

	if ((r = getaddrinfo(u->host, u->port, &hints, &ai)) != 0) {
		res->result = MC_HTTP_NOCONN;
		snprintf(res->err, sizeof res->err, "%s: %s", u->host, gai_strerror(r));
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (a = ai; a != NULL && fd < 0; a = a->ai_next) {
		if ((fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1) {
			e = errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) == -1 && errno != EINPROGRESS)
			e = errno;
		else {
			while ((r = await(x, fd, POLLOUT, left_ms(x->req->connect_timeout, &start))) == 0 &&
			    left_ms(x->req->connect_timeout, &start) != 0)
				;
			sl = sizeof e;
			if (r == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &sl) == 0 && e == 0)
				break;
			if (r == 0)
				e = ETIMEDOUT;
			if (r == -1) {
				close(fd);
				freeaddrinfo(ai);
				res->result = MC_HTTP_INTR;
				return -1;
			}
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		res->result = MC_HTTP_NOCONN;
		res->refused = e == ECONNREFUSED;
		if (e == ETIMEDOUT)
			snprintf(res->err, sizeof res->err, "connecting to %s port %s timed out after "
			    "%ld s", u->host, u->port, x->req->connect_timeout);
		else
			snprintf(res->err, sizeof res->err, "cannot connect to %s port %s: %s",
			    u->host, u->port, strerror(e));
		return -1;
	}
	tune(fd);
	p->fd = fd;
	snprintf(p->host, sizeof p->host, "%s", u->host);
	snprintf(p->port, sizeof p->port, "%s", u->port);
	return 0;
}

/* The request's head; -1 when a header would break the request's lines. */
static int
request_head(struct mc_buf *b, const struct http_url *u, const struct mc_http_req *req)
{
	const char *const *hp;

	mc_buf_add(b, "POST ", 5);
	if (u->target_len == 0 || u->target[0] != '/')
		mc_buf_addc(b, '/');
	mc_buf_add(b, u->target, u->target_len);
	mc_buf_printf(b, " HTTP/1.1\r\nHost: %s\r\nUser-Agent: " HTTP_AGENT "\r\n", u->authority);
	for (hp = req->headers; hp && *hp; hp++) {
		if (strpbrk(*hp, "\r\n") != NULL)
			return -1;
		mc_buf_adds(b, *hp);
		mc_buf_add(b, "\r\n", 2);
	}
	mc_buf_printf(b, "Content-Length: %zu\r\n\r\n", req->len);
	return 0;
}

/* Write the head and the body. GOT, AGAIN (the connection was dead) or FAILED. */
static int
send_all(struct http_plain *p, struct http_xfer *x, const struct mc_buf *head)
{
	struct iovec iov[2] = { { head->data, head->len }, { (void *)x->req->body, x->req->len } };
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
	ssize_t n;
	int r;

	while (msg.msg_iovlen > 0) {
		if ((n = sendmsg(p->fd, &msg, MSG_NOSIGNAL)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN) {
				if (errno == EPIPE || errno == ECONNRESET)
					return AGAIN;
				snprintf(x->res->err, sizeof x->res->err, "sending: %s", strerror(errno));
				return FAILED;
			}
			while ((r = await(x, p->fd, POLLOUT, left_ms(x->req->idle_timeout, &x->last))) == 0)
				if (left_ms(x->req->idle_timeout, &x->last) == 0) {
					x->res->result = MC_HTTP_IDLE;
					return FAILED;
				}
			if (r == -1)
				return FAILED;
			continue;
		}
		http_touch(x);
		while (msg.msg_iovlen > 0 && (size_t)n >= msg.msg_iov->iov_len) {
			n -= (ssize_t)msg.msg_iov->iov_len;
			msg.msg_iov++;
			msg.msg_iovlen--;
		}
		if (msg.msg_iovlen > 0) {
			msg.msg_iov->iov_base = (char *)msg.msg_iov->iov_base + n;
			msg.msg_iov->iov_len -= (size_t)n;
		}
	}
	return GOT;
}

/* The connection ended or failed (e: its errno, 0 for an orderly end). */
static int
ended(struct http_xfer *x, int got_any, int e)
{
	struct mc_http_res *res = x->res;

	if (e == 0 && mc_h1_eof(&x->h1))
		return GOT;
	if (!got_any)
		return AGAIN;	/* the caller decides whether a new connection may */
	res->result = x->res->status == 0 ? MC_HTTP_NOCONN : MC_HTTP_CUT;
	if (x->res->status == 0)
		snprintf(res->err, sizeof res->err, "the server closed the connection in the "
		    "answer's head%s%s", e ? ": " : "", e ? strerror(e) : "");
	else
		snprintf(res->err, sizeof res->err, "the connection ended before the answer did%s%s",
		    e ? ": " : "", e ? strerror(e) : "");
	return FAILED;
}

/* Read the answer. GOT (whole, or whole enough), AGAIN (nothing came) or FAILED. */
static int
receive(struct http_plain *p, struct http_xfer *x)
{
	struct mc_http_res *res = x->res;
	long wait;
	ssize_t n;
	size_t used;
	int got_any = 0, r;

	for (;;) {
		wait = x->complete ? HTTP_TAIL_MS - mc_ms_since(&x->ended) :
		    left_ms(x->req->idle_timeout, &x->last);
		if (x->complete && wait <= 0)
			return GOT;	/* the answer is whole; its tail did not come */
		if (!x->complete && wait == 0) {
			res->result = MC_HTTP_IDLE;
			return FAILED;
		}
		if ((r = await(x, p->fd, POLLIN, wait)) == -1)
			return FAILED;
		if (r == 0)
			continue;
		if ((n = recv(p->fd, p->buf, HTTP_PIECE, 0)) == -1) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return ended(x, got_any, errno);
		}
		if (n == 0)
			return ended(x, got_any, 0);
		got_any = 1;
		http_touch(x);
		r = mc_h1_feed(&x->h1, p->buf, (size_t)n, &used, http_piece, x);
		http_head(x);
		if (r == -1) {
			res->result = res->status == 0 ? MC_HTTP_NOCONN : MC_HTTP_CUT;
			snprintf(res->err, sizeof res->err, "%s", x->h1.err);
			return FAILED;
		}
		if (r != 0)
			return FAILED;	/* stopped or interrupted */
		if (x->h1.state == MC_H1_DONE)
			return GOT;
	}
}

int
http_plain_post(struct http_plain **pp, const struct http_url *u,
    const struct mc_http_req *req, struct mc_http_res *res)
{
	struct http_xfer x = { .req = req, .res = res };
	struct mc_buf head = {0};
	struct http_plain *p;
	int kept, r = FAILED;

	if (*pp == NULL) {
		if ((p = *pp = calloc(1, sizeof *p)) == NULL || (p->buf = malloc(HTTP_PIECE)) == NULL)
			mc_oom();
		p->fd = -1;
	}
	p = *pp;
	if (request_head(&head, u, req) == -1) {
		res->result = MC_HTTP_NOCONN;
		snprintf(res->err, sizeof res->err, "a request header holds a line break");
		goto out;
	}
	if (p->fd >= 0 && (strcmp(p->host, u->host) != 0 || strcmp(p->port, u->port) != 0 ||
	    !alive(p->fd)))
		hang_up(p);
	res->result = MC_HTTP_OK;
	/* A kept connection the server closed meanwhile gets one more try. */
	for (kept = p->fd >= 0;; kept = 0) {
		if (p->fd < 0 && dial(p, u, &x) == -1)
			break;
		mc_h1_reset(&x.h1);
		http_touch(&x);
		if ((r = send_all(p, &x, &head)) == GOT)
			r = receive(p, &x);
		if (r == AGAIN && kept && !x.intr) {
			hang_up(p);
			continue;
		}
		break;
	}
	if (r == AGAIN) {
		res->result = MC_HTTP_NOCONN;
		snprintf(res->err, sizeof res->err, "the server closed the connection without "
		    "an answer");
	}
	if (http_interrupted(&x))
		res->result = MC_HTTP_INTR;
	else if (x.stopped)
		res->result = MC_HTTP_STOPPED;
	else if (x.complete && res->result != MC_HTTP_OK && res->result != MC_HTTP_IDLE)
		res->result = MC_HTTP_OK;	/* the answer was whole before its body was */
	/* Only a whole answer on a clean connection leaves it for the next. */
	if (r != GOT || x.h1.state != MC_H1_DONE || !x.h1.keep)
		hang_up(p);
out:
	explicit_bzero(head.data, head.len);	/* it may hold a key */
	mc_buf_free(&head);
	mc_h1_free(&x.h1);
	return 0;
}
