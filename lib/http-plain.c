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
#include <strings.h>
#include <unistd.h>

#include "diag.h"
#include "http-int.h"

struct http_plain {
	int fd;			/* the kept connection, or -1 */
	char host[256], port[6];	/* where it goes */
	char *buf;		/* HTTP_PIECE bytes read at a time */
};

/* How sending or reading ended. GOT: the answer is whole; NONE: not a
 * byte of it came; SENT: the request is; EARLY: stop sending, read on. */
enum { GOT, NONE, EARLY, FAILED, SENT, MORE };

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

/*
 * Wait until fd is ready for events, at most ms (-1: no limit), while
 * ticking; the wake pipe ends the wait. The events that came (0 for
 * none yet), or -1 when interrupted.
 */
static int
await(struct http_xfer *x, int fd, short events, long ms)
{
	struct pollfd pfd[2] = { { .fd = fd, .events = events },
				 { .fd = x->req->wake_fd, .events = POLLIN } };

	if (http_interrupted(x))
		return -1;
	if (x->req->on_tick)
		x->req->on_tick(x->req->arg);
	if (poll(pfd, x->req->wake_fd >= 0 ? 2 : 1, ms < 0 || ms > 100 ? 100 : (int)ms) <= 0)
		pfd[0].revents = pfd[1].revents = 0;
	if (pfd[1].revents)
		http_drain(x->req->wake_fd);
	if (http_interrupted(x))
		return -1;
	return pfd[0].revents;
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

/*
 * A connection to the address addr (numeric) and port, ready to use, or
 * -1 with the reason in *e (ETIMEDOUT when limit ms passed since start;
 * -1: no limit), or -2 when interrupted.
 */
static int
dial_one(struct http_xfer *x, const char *addr, const char *port, const struct timespec *start,
    long limit, int *e)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
	    .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	struct addrinfo *ai;
	socklen_t sl = sizeof *e;
	long left;
	int fd, r = 0;

	if (getaddrinfo(addr, port, &hints, &ai) != 0) {
		*e = EADDRNOTAVAIL;
		return -1;
	}
	if ((fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1)
		*e = errno;
	else if (connect(fd, ai->ai_addr, ai->ai_addrlen) == -1 && errno != EINPROGRESS)
		*e = errno;
	else {
		for (;;) {
			left = limit < 0 ? -1 : limit - mc_ms_since(start);
			if (limit >= 0 && left <= 0) {
				r = 0;
				break;
			}
			if ((r = await(x, fd, POLLOUT, left)) != 0)
				break;
		}
		if (r > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, e, &sl) == -1)
			*e = errno;
		else if (r > 0 && *e == 0) {
			freeaddrinfo(ai);
			return fd;
		}
		if (r == 0)
			*e = ETIMEDOUT;
	}
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	return r == -1 ? -2 : -1;
}

/*
 * Connect to u: its address, or for localhost both loopback addresses in
 * turn, as libcurl does (a server may listen on either). Nothing asks the
 * name service. 0, or -1 with res set.
 */
static int
dial(struct http_plain *p, const struct http_url *u, struct http_xfer *x)
{
	const char *local[] = { "::1", "127.0.0.1" }, *one[] = { u->host }, **addr = one;
	struct mc_http_res *res = x->res;
	struct timespec start;
	size_t i, n = 1;
	long limit;
	int fd = -1, e = 0;

	if (strcasecmp(u->host, "localhost") == 0) {
		addr = local;
		n = 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	/* The first of two gets 200 ms, as libcurl gives it before it tries
	 * the other family: a dropped SYN cannot take the whole timeout. */
	for (i = 0; i < n && fd == -1; i++) {
		limit = x->req->connect_timeout > 0 ? x->req->connect_timeout * 1000 : -1;
		if (i + 1 < n && (limit < 0 || limit > 200))
			limit = 200;
		fd = dial_one(x, addr[i], u->port, &start, limit, &e);
	}
	if (fd == -2) {
		res->result = MC_HTTP_INTR;
		return -1;
	}
	if (fd == -1) {
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

/*
 * The request's head, in a buffer sized once: it holds the key, and a
 * buffer grown by realloc would leave copies of it in freed memory.
 * -1 when a header would break the request's lines.
 */
static int
request_head(struct mc_buf *b, const struct http_url *u, const struct mc_http_req *req)
{
	const char *const *hp;
	size_t need = 128 + u->target_len + strlen(u->authority) + strlen(HTTP_AGENT);

	for (hp = req->headers; hp && *hp; hp++)
		need += strlen(*hp) + 2;
	mc_buf_grow(b, need);
	mc_buf_printf(b, "%s ", req->method != NULL ? req->method : "POST");
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
	if (req->method == NULL || req->len > 0)
		mc_buf_printf(b, "Content-Length: %zu\r\n", req->len);
	mc_buf_add(b, "\r\n", 2);
	return 0;
}

/* The connection ended or failed (e: its errno, 0 for an orderly end). */
static int
ended(struct http_xfer *x, int got_any, int e)
{
	struct mc_http_res *res = x->res;

	if (e == 0 && mc_h1_eof(&x->h1))
		return GOT;
	if (!got_any) {
		/* The caller decides whether a new connection may try again. */
		snprintf(res->err, sizeof res->err, "the server closed the connection without "
		    "an answer%s%s", e ? ": " : "", e ? strerror(e) : "");
		return NONE;
	}
	res->result = res->status == 0 ? MC_HTTP_NOCONN : MC_HTTP_CUT;
	if (res->status == 0)
		snprintf(res->err, sizeof res->err, "the server closed the connection in the "
		    "answer's head%s%s", e ? ": " : "", e ? strerror(e) : "");
	else
		snprintf(res->err, sizeof res->err, "the connection ended before the answer did%s%s",
		    e ? ": " : "", e ? strerror(e) : "");
	return FAILED;
}

/* One read of the answer: MORE to come, or how it ended: GOT (whole),
 * NONE or FAILED. */
static int
read_some(struct http_plain *p, struct http_xfer *x, int *got_any)
{
	struct mc_http_res *res = x->res;
	size_t used;
	ssize_t n;
	int r;

	if ((n = recv(p->fd, p->buf, HTTP_PIECE, 0)) == -1)
		return errno == EAGAIN || errno == EINTR ? MORE : ended(x, *got_any, errno);
	if (n == 0)
		return ended(x, *got_any, 0);
	*got_any = 1;
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
	return x->h1.state == MC_H1_DONE ? GOT : MORE;
}

/*
 * Write the head and the body: SENT, or how the answer ended when it did
 * first. An answer may start before the body is all sent: a 100 Continue
 * or a 2xx head, and the sending goes on; an error status (a 401, a 413)
 * or the server hanging up, and it stops: EARLY, the answer is read on.
 * As libcurl does.
 */
static int
send_all(struct http_plain *p, struct http_xfer *x, const struct mc_buf *head, int *got_any)
{
	struct iovec iov[2] = { { head->data, head->len }, { (void *)x->req->body, x->req->len } };
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
	ssize_t n;
	long wait;
	int r = 0;

	while (msg.msg_iovlen > 0) {
		if ((n = sendmsg(p->fd, &msg, MSG_NOSIGNAL)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE || errno == ECONNRESET)
				return EARLY;
			if (errno != EAGAIN) {
				x->res->result = MC_HTTP_NOCONN;
				snprintf(x->res->err, sizeof x->res->err, "sending: %s", strerror(errno));
				return FAILED;
			}
			while ((wait = http_wait(x)) != 0 &&
			    (r = await(x, p->fd, POLLOUT | POLLIN, wait)) == 0)
				;
			if (wait == 0)
				return x->complete ? GOT : FAILED;
			if (r == -1)
				return FAILED;
			if (r & (POLLIN | POLLHUP | POLLERR)) {
				if ((r = read_some(p, x, got_any)) != MORE)
					return r;
				if (x->res->status >= 300)
					return EARLY;
			}
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
	return SENT;
}

/* Read the rest of the answer: GOT (whole, or whole enough), NONE or FAILED. */
static int
receive(struct http_plain *p, struct http_xfer *x, int *got_any)
{
	long wait;
	int r;

	for (;;) {
		/* Over: a whole answer whose tail did not come, or idle. */
		if ((wait = http_wait(x)) == 0)
			return x->complete ? GOT : FAILED;
		if ((r = await(x, p->fd, POLLIN, wait)) == -1)
			return FAILED;
		if (r != 0 && (r = read_some(p, x, got_any)) != MORE)
			return r;
	}
}

/*
 * A kept connection that the server closed meanwhile (nothing came back
 * on it) gets one more try on a new one, as libcurl does: the request is
 * then sent twice if the server took it and died before answering.
 */
int
http_plain_post(struct http_plain **pp, const struct http_url *u,
    const struct mc_http_req *req, struct mc_http_res *res)
{
	struct http_xfer x = { .req = req, .res = res };
	struct mc_buf head = {0};
	struct http_plain *p;
	int kept, got_any, sent = 0, r = -1;

	if (*pp == NULL) {
		if ((p = *pp = calloc(1, sizeof *p)) == NULL || (p->buf = malloc(HTTP_PIECE)) == NULL)
			mc_oom();
		p->fd = -1;
	}
	p = *pp;
	if (request_head(&head, u, req) == -1) {
		snprintf(res->err, sizeof res->err, "a request header holds a line break");
		goto out;
	}
	if (p->fd >= 0 && (strcmp(p->host, u->host) != 0 || strcmp(p->port, u->port) != 0 ||
	    !alive(p->fd)))
		hang_up(p);
	res->result = MC_HTTP_OK;
	for (kept = p->fd >= 0;; kept = 0) {
		r = FAILED;
		if (p->fd < 0 && dial(p, u, &x) == -1)
			break;
		mc_h1_reset(&x.h1);
		http_touch(&x);
		got_any = 0;
		r = send_all(p, &x, &head, &got_any);
		sent = r == SENT;
		if (r == SENT || r == EARLY)
			r = receive(p, &x, &got_any);
		if (r != NONE || !kept || x.intr)
			break;
		hang_up(p);
		res->err[0] = '\0';
	}
	if (r == NONE)
		res->result = MC_HTTP_NOCONN;	/* ended() said why */
	http_settle(&x);
	/* Only a whole answer to a whole request, on a clean connection, leaves
	 * it for the next. */
	if (r != GOT || !sent || x.h1.state != MC_H1_DONE || !x.h1.keep)
		hang_up(p);
	r = 0;
out:
	explicit_bzero(head.data, head.len);	/* it holds the key */
	mc_buf_free(&head);
	mc_h1_free(&x.h1);
	return r;
}
