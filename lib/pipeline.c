/* pipeline.c: spawn pipelines of the suite's programs without a shell. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "pipeline.h"
#include "child.h"

/* Start argv[0], one of the suite's programs, with in, out and errfd
 * (-1: ours) as its stdin, stdout and stderr, and envp (NULL: ours). */
static int
spawn_one(pid_t *pid, char *const argv[], char *const envp[], int in, int out, int errfd,
    char *err, size_t errsz)
{
	struct mc_child sp = { .argv = argv, .envp = envp, .fd = { in, out, errfd },
	    .flags = MC_CHILD_SUITE | MC_CHILD_PDEATH };

	return (*pid = mc_child_start(&sp, err, errsz)) == -1 ? -1 : 0;
}

int
mc_pipeline_add(struct mc_pipeline *p, char *const argv[], int in_fd, int out_fd, int *rd,
    char *err, size_t errsz)
{
	int fds[2] = { -1, -1 };

	if (p->n == MC_PIPELINE_MAX) {
		snprintf(err, errsz, "pipeline of more than %d stages", MC_PIPELINE_MAX);
		return -1;
	}
	if (out_fd == -1) {
		if (pipe2(fds, O_CLOEXEC) == -1) {
			snprintf(err, errsz, "pipe: %s", strerror(errno));
			return -1;
		}
		out_fd = fds[1];
	}
	if (spawn_one(&p->pid[p->n], argv, p->envp, in_fd, out_fd, -1, err, errsz) == -1) {
		if (fds[0] != -1) {
			close(fds[0]);
			close(fds[1]);
		}
		return -1;
	}
	p->name[p->n++] = argv[0];
	if (fds[0] != -1) {
		close(fds[1]);
		*rd = fds[0];
	}
	return 0;
}

int
mc_pipeline_start(struct mc_pipeline *p, char *const *const argvs[], size_t n,
    int in_fd, int out_fd, int *rd, char *err, size_t errsz)
{
	int in = in_fd, next, ret = 0;
	size_t i;

	memset(p, 0, sizeof *p);
	if (n == 0 || n > MC_PIPELINE_MAX) {
		snprintf(err, errsz, "pipeline of %zu stages", n);
		return -1;
	}
	for (i = 0; i < n && ret == 0; i++) {
		ret = mc_pipeline_add(p, argvs[i], in, i + 1 < n ? -1 : out_fd, &next, err, errsz);
		if (in != in_fd)
			close(in);
		in = ret == 0 && (i + 1 < n || out_fd == -1) ? next : in_fd;
	}
	if (ret == -1) {
		/* The stages already running see end of input and finish. */
		mc_pipeline_wait(p);
		return -1;
	}
	if (out_fd == -1)
		*rd = in;
	return 0;
}

void
mc_pipeline_kill(struct mc_pipeline *p, int sig)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->pid[i] > 0)
			kill(p->pid[i], sig);
}

int
mc_pipeline_wait(struct mc_pipeline *p)
{
	int first = -1, st;
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (p->pid[i] <= 0)
			continue;
		while (waitpid(p->pid[i], &st, 0) == -1)
			if (errno != EINTR) {
				st = 127 << 8;
				break;
			}
		p->status[i] = st;
		p->pid[i] = 0;
	}
	/* A stage killed by SIGPIPE only followed a later stage that failed. */
	for (i = 0; i < p->n; i++) {
		st = p->status[i];
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			continue;
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE) {
			if (first == -1)
				first = (int)i;
			continue;
		}
		return (int)i;
	}
	return first;
}

const char *
mc_pipeline_strstatus(int status, char *buf, size_t bufsz)
{
	if (WIFSIGNALED(status)) {
		snprintf(buf, bufsz, "killed by signal %d (%s)", WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
		return buf;
	}
	return NULL;
}

int
mc_feed_open(struct mc_feed *f, char *err, size_t errsz)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) == -1) {
		snprintf(err, errsz, "pipe: %s", strerror(errno));
		return -1;
	}
	f->fd = fds[0];
	f->wr = fds[1];
	return 0;
}

static void
feeds_close(struct mc_filter *f, int rd)
{
	size_t i;

	for (i = 0; i < f->nfeeds; i++) {
		if (rd && f->feeds[i].fd != -1)
			close(f->feeds[i].fd);
		if (!rd && f->feeds[i].wr != -1)
			close(f->feeds[i].wr);
		if (rd)
			f->feeds[i].fd = -1;
		else
			f->feeds[i].wr = -1;
	}
}

int
mc_filter_start(char *const argv[], struct mc_filter *f, char *err, size_t errsz)
{
	int inp[2], outp[2], keep[9];
	struct mc_child c = { .argv = argv, .envp = f->envp,
	    .flags = MC_CHILD_SUITE | MC_CHILD_PDEATH, .keep = keep };
	size_t i;

	f->pid = -1;
	f->inw = f->outr = -1;
	if (f->nfeeds > sizeof keep / sizeof keep[0] - 1) {
		snprintf(err, errsz, "%s: more than 8 inputs", argv[0]);
		goto fail;
	}
	for (i = 0; i < f->nfeeds; i++)
		keep[i] = f->feeds[i].fd;
	keep[i] = -1;
	if (pipe2(inp, O_CLOEXEC) == -1) {
		snprintf(err, errsz, "pipe: %s", strerror(errno));
		goto fail;
	}
	if (pipe2(outp, O_CLOEXEC) == -1) {
		snprintf(err, errsz, "pipe: %s", strerror(errno));
		close(inp[0]);
		close(inp[1]);
		goto fail;
	}
	c.fd[0] = inp[0];
	c.fd[1] = outp[1];
	c.fd[2] = f->err_fd > 0 ? f->err_fd : -1;
	f->pid = mc_child_start(&c, err, errsz);
	close(inp[0]);
	close(outp[1]);
	feeds_close(f, 1);
	if (f->pid == -1) {
		close(inp[1]);
		close(outp[0]);
		feeds_close(f, 0);
		return -1;
	}
	f->inw = inp[1];
	f->outr = outp[0];
	fcntl(f->inw, F_SETFL, O_NONBLOCK);
	for (i = 0; i < f->nfeeds; i++)
		fcntl(f->feeds[i].wr, F_SETFL, O_NONBLOCK);
	return 0;
fail:
	feeds_close(f, 1);
	feeds_close(f, 0);
	return -1;
}

/* Write more of p[0..n) (done so far: *off) to fd, closed once all is out
 * or the program stopped reading (its status says why). */
static void
feed_more(int *fd, const char *p, size_t n, size_t *off)
{
	ssize_t w = n > *off ? write(*fd, p + *off, n - *off) : 0;

	if (w > 0)
		*off += (size_t)w;
	if ((w == -1 && errno != EAGAIN && errno != EINTR) || *off == n) {
		close(*fd);
		*fd = -1;
	}
}

/* A chunk of stdout to f's callback or buffer: -1 to stop the program. */
static int
keep(struct mc_filter *f, const char *p, size_t n)
{
	if (f->out != NULL)
		return f->out(f->arg, p, n);
	if (f->collect == NULL)
		return 0;
	mc_buf_add(f->collect, p, n);
	return f->collect->len > f->cap ? -1 : 0;
}

void
mc_filter_finish(struct mc_filter *f, int *status)
{
	/* Writer 0 is stdin, writer 1 + i feed i. */
	size_t nw = 1 + f->nfeeds, off[9] = {0}, at[10], i;
	int stopped = 0, killed = 0, r;
	struct pollfd pfd[10];
	char buf[16384];
	nfds_t nfds, k;
	ssize_t n;
	int *fd;

	for (;;) {
		nfds = 0;
		pfd[nfds++] = (struct pollfd){ .fd = f->outr, .events = POLLIN };
		for (i = 0; i < nw; i++) {
			fd = i == 0 ? &f->inw : &f->feeds[i - 1].wr;
			if (*fd == -1)
				continue;
			at[nfds] = i;
			pfd[nfds++] = (struct pollfd){ .fd = *fd, .events = POLLOUT };
		}
		if (f->stop != NULL && *f->stop && !stopped) {
			kill(f->pid, SIGINT);
			stopped = 1;
		}
		r = poll(pfd, nfds, f->tick ? f->tick_ms : -1);
		if (r == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (r == 0) {
			f->tick(f->arg);
			continue;
		}
		for (k = 1; k < nfds; k++) {
			if (pfd[k].revents == 0)
				continue;
			i = at[k];
			if (i == 0)
				feed_more(&f->inw, f->in, f->inlen, &off[0]);
			else
				feed_more(&f->feeds[i - 1].wr, f->feeds[i - 1].p, f->feeds[i - 1].n,
				    &off[i]);
		}
		if (pfd[0].revents) {
			n = read(f->outr, buf, sizeof buf);
			if (n == -1 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0)
				break;
			if (!killed && keep(f, buf, (size_t)n) == -1) {
				kill(f->pid, SIGTERM);
				killed = 1;
			}
		}
	}
	if (f->inw != -1)
		close(f->inw);
	feeds_close(f, 0);
	close(f->outr);
	f->inw = f->outr = -1;
	*status = mc_child_wait(f->pid);
}

int
mc_filter_run(char *const argv[], struct mc_filter *f, int *status,
    char *err, size_t errsz)
{
	if (mc_filter_start(argv, f, err, errsz) == -1)
		return -1;
	mc_filter_finish(f, status);
	return 0;
}
