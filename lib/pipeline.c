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
 * (-1: ours) as its stdin, stdout and stderr. */
static int
spawn_one(pid_t *pid, char *const argv[], int in, int out, int errfd, char *err, size_t errsz)
{
	struct mc_child sp = { .argv = argv, .fd = { in, out, errfd }, .flags = MC_CHILD_SUITE };

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
	if (spawn_one(&p->pid[p->n], argv, in_fd, out_fd, -1, err, errsz) == -1) {
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
mc_filter_run(char *const argv[], const struct mc_filter *f, int *status,
    char *err, size_t errsz)
{
	int inp[2], outp[2], stopped = 0, killed = 0, nfds, r;
	struct pollfd pfd[2];
	size_t off = 0;
	char buf[16384];
	ssize_t n;
	pid_t pid;

	if (pipe2(inp, O_CLOEXEC) == -1) {
		snprintf(err, errsz, "pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(outp, O_CLOEXEC) == -1) {
		snprintf(err, errsz, "pipe: %s", strerror(errno));
		close(inp[0]);
		close(inp[1]);
		return -1;
	}
	r = spawn_one(&pid, argv, inp[0], outp[1], f->err_fd > 0 ? f->err_fd : -1, err, errsz);
	close(inp[0]);
	close(outp[1]);
	if (r == -1) {
		close(inp[1]);
		close(outp[0]);
		return -1;
	}
	fcntl(inp[1], F_SETFL, O_NONBLOCK);
	if (f->inlen == 0) {
		close(inp[1]);
		inp[1] = -1;
	}
	for (;;) {
		nfds = 0;
		pfd[nfds++] = (struct pollfd){ .fd = outp[0], .events = POLLIN };
		if (inp[1] != -1)
			pfd[nfds++] = (struct pollfd){ .fd = inp[1], .events = POLLOUT };
		if (f->stop != NULL && *f->stop && !stopped) {
			kill(pid, SIGINT);
			stopped = 1;
		}
		r = poll(pfd, (nfds_t)nfds, f->tick ? f->tick_ms : -1);
		if (r == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (r == 0) {
			f->tick(f->arg);
			continue;
		}
		if (nfds == 2 && pfd[1].revents) {
			n = write(inp[1], f->in + off, f->inlen - off);
			if (n > 0)
				off += (size_t)n;
			/* EPIPE: the program stopped reading; its status says why. */
			if ((n == -1 && errno != EAGAIN && errno != EINTR) || off == f->inlen) {
				close(inp[1]);
				inp[1] = -1;
			}
		}
		if (pfd[0].revents) {
			n = read(outp[0], buf, sizeof buf);
			if (n == -1 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0)
				break;
			if (!killed && f->out != NULL && f->out(f->arg, buf, (size_t)n) == -1) {
				kill(pid, SIGTERM);
				killed = 1;
			}
		}
	}
	if (inp[1] != -1)
		close(inp[1]);
	close(outp[0]);
	while (waitpid(pid, status, 0) == -1)
		if (errno != EINTR) {
			*status = 127 << 8;
			break;
		}
	return 0;
}
