/* server.c: the MCP servers as processes: started, fed, read, timed and stopped, all through one poll loop. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "diag.h"
#include "http.h"
#include "json.h"
#include "pipeline.h"
#include "toolenv.h"
#include "mcp.h"

#define GRACE_MS 2000		/* at most, after its stdin is closed, for a server to exit */
#define TERM_MS 1000		/* between SIGTERM and SIGKILL */
#define KILL_MS 5000		/* after SIGKILL: a process stuck in the kernel is given up on */
#define ELINE_MAX 4096		/* a server's stderr is passed on in lines of at most this */

volatile sig_atomic_t mcp_got_int, mcp_got_stop;
/* The handlers wake the poll loop through this pipe. */
static volatile sig_atomic_t wake_wr = -1;
static int wake_rd = -1;

static void
on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGINT)
		mcp_got_int = 1;
	else if (sig != SIGCHLD)
		mcp_got_stop = sig;
	if (wake_wr != -1)
		(void)!write(wake_wr, "", 1);
	errno = saved;
}

void
mcp_signals(void)
{
	static const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	size_t i;
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) == -1)
		mc_oom();
	wake_rd = p[0];
	wake_wr = p[1];
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof caught / sizeof caught[0]; i++)
		sigaction(caught[i], &sa, NULL);
	/* A server that died must not take us with it when we write to it. */
	signal(SIGPIPE, SIG_IGN);
}

int
mcp_busy(const struct server *sv)
{
	return sv->st == SV_INIT || sv->st == SV_LIST || sv->st == SV_CALL;
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Say why sv failed; with -q, what it last wrote on stderr after it,
 * since that is often the reason (a package npx could not fetch). */
static void
say_failed(struct server *sv)
{
	if (sv->last_err.len > 0)
		mc_err("server \"%s\": %s; its last line on stderr: %.*s", sv->name, sv->why,
		    (int)sv->last_err.len, sv->last_err.data);
	else
		mc_err("server \"%s\": %s", sv->name, sv->why);
}

void
mcp_fail(struct server *sv, int status, const char *fmt, ...)
{
	va_list ap;

	/* The first reason is the one that counts. */
	if (sv->why == NULL) {
		va_start(ap, fmt);
		if (vasprintf(&sv->why, fmt, ap) == -1)
			mc_oom();
		va_end(ap);
		sv->said_status = status;
		if (!status)
			say_failed(sv);
	}
	mcp_stop(sv, 1);
}

/* sv could not be started: said, once, naming it. Returns -1. */
static int
start_failed(struct server *sv, const char *why)
{
	free(sv->why);
	sv->why = mc_strdup(why);
	sv->said_status = 0;
	mc_err("server \"%s\": %s", sv->name, why);
	sv->st = SV_OFF;
	return -1;
}

int
mcp_start(struct mcp *m, struct server *sv)
{
	const char *cmd = mc_json_str(sv->conf, "command");
	const cJSON *a, *args = mc_json_arr(sv->conf, "args");
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
	char why[512], **argv, **envp, *remote = NULL, self[PATH_MAX];
	struct mc_child c = {0};
	size_t n = 0;
	ssize_t k;
	pid_t pid;

	/* A remote server is spoken to through mc-mcp bridge, this program. */
	if (mc_json_str(sv->conf, "url") != NULL) {
		if ((remote = mcp_remote_config(sv, why, sizeof why)) == NULL)
			return start_failed(sv, why);
		if ((k = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0) {
			free(remote);
			return start_failed(sv, "cannot find mc-mcp itself (/proc/self/exe)");
		}
		self[k] = '\0';
		cmd = self;
		args = NULL;
	}
	if ((argv = calloc((size_t)cJSON_GetArraySize(args) + 2, sizeof *argv)) == NULL)
		mc_oom();
	if ((argv = reallocarray(argv, (size_t)cJSON_GetArraySize(args) + 3, sizeof *argv)) == NULL)
		mc_oom();
	argv[n++] = (char *)cmd;
	if (remote != NULL)
		argv[n++] = "bridge";
	cJSON_ArrayForEach(a, args)
		argv[n++] = a->valuestring;
	argv[n] = NULL;
	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1 || pipe2(err, O_CLOEXEC) == -1) {
		snprintf(why, sizeof why, "pipe: %s", strerror(errno));
		pid = -1;
	} else {
		envp = mc_toolenv(m->s, mc_json_obj(sv->conf, "env"));
		/* A name with a slash is a path (relative to the working
		 * directory), as a shell would take it. */
		c.path = strchr(cmd, '/') != NULL ? cmd : NULL;
		c.argv = argv;
		c.envp = envp;
		c.fd[0] = in[0];
		c.fd[1] = out[1];
		c.fd[2] = err[1];
		c.flags = MC_CHILD_PGROUP | MC_CHILD_PDEATH;
		pid = mc_child_start(&c, why, sizeof why);
		mc_env_free(envp);
	}
	free(argv);
	close_fd(&in[0]);
	close_fd(&out[1]);
	close_fd(&err[1]);
	if (pid == -1) {
		close_fd(&in[1]);
		close_fd(&out[0]);
		close_fd(&err[0]);
		free(remote);
		return start_failed(sv, why);
	}
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	sv->pid = pid;
	sv->in = in[1];
	sv->out = out[0];
	sv->err = err[0];
	sv->wq.len = sv->woff = 0;
	sv->line.len = sv->eline.len = sv->last_err.len = 0;
	sv->closing = sv->stop_step = 0;
	sv->id = sv->next_id = 0;
	sv->nignored = 0;
	free(sv->why);
	sv->why = NULL;
	sv->said_status = 0;
	if (remote != NULL) {
		mc_buf_adds(&sv->wq, remote);
		mc_buf_addc(&sv->wq, '\n');
		explicit_bzero(remote, strlen(remote));
		free(remote);
	}
	mcp_initialize(sv);
	return 0;
}

void
mcp_stop(struct server *sv, int gentle)
{
	if (sv->pid == 0)
		sv->st = SV_OFF;
	if (sv->st == SV_OFF || sv->st == SV_STOPPING)
		return;
	sv->st = SV_STOPPING;
	sv->id = 0;
	/* Closing its stdin is how a stdio server is asked to exit; what is
	 * still queued for it (a cancellation) goes first. */
	sv->closing = 1;
	if (sv->woff == sv->wq.len)
		close_fd(&sv->in);
	if (gentle) {
		sv->stop_step = 0;
		sv->deadline = mc_clock_ms() + (sv->timeout_s < GRACE_MS / 1000 ? sv->timeout_s * 1000LL : GRACE_MS);
	} else {
		kill(-sv->pid, SIGTERM);
		sv->stop_step = 1;
		sv->deadline = mc_clock_ms() + TERM_MS;
	}
}

/* Pass on what the server wrote to its stderr, a line at a time. */
static void
err_line(struct server *sv, const char *p, size_t n)
{
	if (!mc_quiet)
		mc_err("%s: %.*s", sv->name, (int)n, p);
	else if (n > 0) {	/* kept, to say with its failure */
		sv->last_err.len = 0;
		mc_buf_add(&sv->last_err, p, n);
	}
}


/* Read what is there of its stderr. Returns 1 when something was read,
 * 0 when nothing is there now, -1 at its end. */
static int
read_err(struct server *sv)
{
	char buf[ELINE_MAX], *nl;
	size_t off;
	ssize_t k;

	if ((k = read(sv->err, buf, sizeof buf)) == 0 || (k < 0 && errno != EAGAIN && errno != EINTR)) {
		if (sv->eline.len > 0)
			err_line(sv, sv->eline.data, sv->eline.len);
		sv->eline.len = 0;
		close_fd(&sv->err);
		return -1;
	}
	if (k < 0)
		return 0;
	mc_buf_add(&sv->eline, buf, (size_t)k);
	for (off = 0; (nl = memchr(sv->eline.data + off, '\n', sv->eline.len - off)) != NULL;
	    off = (size_t)(nl - sv->eline.data) + 1)
		err_line(sv, sv->eline.data + off, (size_t)(nl - sv->eline.data) - off);
	/* A line too long for one message goes out in pieces. */
	if (sv->eline.len - off >= ELINE_MAX) {
		err_line(sv, sv->eline.data + off, sv->eline.len - off);
		off = sv->eline.len;
	}
	memmove(sv->eline.data, sv->eline.data + off, sv->eline.len - off);
	sv->eline.len -= off;
	return 1;
}

/* Read what is there of its stdout and act on each whole line. Returns as
 * read_err does. */
static int
read_out(struct server *sv)
{
	char buf[65536], *nl;
	size_t off, from = sv->line.len;
	ssize_t k;

	if ((k = read(sv->out, buf, sizeof buf)) == 0 || (k < 0 && errno != EAGAIN && errno != EINTR)) {
		close_fd(&sv->out);
		return -1;
	}
	if (k < 0)
		return 0;
	mc_buf_add(&sv->line, buf, (size_t)k);
	for (off = 0; (nl = memchr(sv->line.data + from, '\n', sv->line.len - from)) != NULL;
	    off = from = (size_t)(nl - sv->line.data) + 1) {
		*nl = '\0';
		mcp_message(sv, sv->line.data + off, (size_t)(nl - sv->line.data) - off);
	}
	memmove(sv->line.data, sv->line.data + off, sv->line.len - off);
	sv->line.len -= off;
	if (sv->line.len > MCP_LINE_MAX) {
		sv->line.len = 0;
		mcp_fail(sv, 0, "sent a message over the %u-byte limit", MCP_LINE_MAX);
	}
	return 1;
}

static void
write_in(struct server *sv)
{
	ssize_t k;

	while (sv->in >= 0 && sv->woff < sv->wq.len) {
		k = write(sv->in, sv->wq.data + sv->woff, sv->wq.len - sv->woff);
		if (k < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			/* It closed its stdin: it is ending, which its
			 * stdout or its exit will tell. */
			sv->woff = sv->wq.len;
			close_fd(&sv->in);
			break;
		}
		sv->woff += (size_t)k;
	}
	if (sv->woff == sv->wq.len) {
		sv->woff = sv->wq.len = 0;
		if (sv->closing)
			close_fd(&sv->in);
	}
}

static int
leader_done(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	/* WNOWAIT: the zombie keeps its process group's id from being
	 * reused until the rest of the group has been killed. */
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* What was left in its group dies with it; then it is reaped. */
static void
reap(struct server *sv)
{
	char buf[128], *full;
	const char *how;
	int st;

	kill(-sv->pid, SIGKILL);
	st = mc_child_wait(sv->pid);
	sv->pid = 0;
	while (sv->out >= 0 && read_out(sv) > 0)
		;
	while (sv->err >= 0 && read_err(sv) > 0)
		;
	close_fd(&sv->in);
	close_fd(&sv->out);
	close_fd(&sv->err);
	sv->wq.len = sv->woff = 0;
	sv->st = SV_OFF;
	if (sv->said_status && sv->why != NULL) {
		if ((how = mc_pipeline_strstatus(st, buf, sizeof buf)) == NULL) {
			snprintf(buf, sizeof buf, "exited with status %d", WEXITSTATUS(st));
			how = buf;
		}
		if (asprintf(&full, "%s%s%s", how, *sv->why ? " " : "", sv->why) == -1)
			mc_oom();
		free(sv->why);
		sv->why = full;
		sv->said_status = 0;
		say_failed(sv);
	}
}

/* The words after "exited with status N" for a server that ends now. */
static const char *
ending(const struct server *sv)
{
	switch (sv->st) {
	case SV_INIT:
		return "before answering initialize";
	case SV_LIST:
		return "before answering tools/list";
	case SV_CALL:
		return "during tools/call";
	default:
		return "";
	}
}

static void
check_stopping(struct server *sv, long long now)
{
	if (leader_done(sv->pid)) {
		reap(sv);
		return;
	}
	if (now < sv->deadline)
		return;
	switch (sv->stop_step) {
	case 0:
		kill(-sv->pid, SIGTERM);
		sv->deadline = now + TERM_MS;
		break;
	case 1:
		kill(-sv->pid, SIGKILL);
		sv->deadline = now + KILL_MS;
		break;
	default:
		mc_err("server \"%s\": process %ld did not end after SIGKILL; left to the system",
		    sv->name, (long)sv->pid);
		sv->pid = 0;
		close_fd(&sv->in);
		close_fd(&sv->out);
		close_fd(&sv->err);
		sv->st = SV_OFF;
		return;
	}
	sv->stop_step++;
}

static void
check(struct server *sv, long long now)
{
	if (sv->pid == 0)
		return;
	if (sv->st == SV_STOPPING) {
		check_stopping(sv, now);
		return;
	}
	if (leader_done(sv->pid) || sv->out < 0) {
		/* Its last words first: an answer written just before exit. */
		while (sv->out >= 0 && read_out(sv) > 0)
			;
		if (sv->st != SV_STOPPING)
			mcp_fail(sv, 1, "%s", ending(sv));
		check_stopping(sv, now);
		return;
	}
	if (!mcp_busy(sv) || now < sv->deadline)
		return;
	if (sv->st == SV_CALL) {
		mc_err("server \"%s\": did not answer tools/call within %u s; cancelled", sv->name,
		    sv->timeout_s);
		mcp_cancel(sv, "timed out");
		sv->timed_out = 1;
		return;
	}
	mcp_stop(sv, 0);
	mcp_fail(sv, 0, "did not answer %s within %u s", sv->method, sv->timeout_s);
}

int
mcp_pump(struct mcp *m, int in, long long ms)
{
	struct pollfd *p;
	struct server *sv;
	long long now = mc_clock_ms(), next = -1;
	size_t i, k = 0, *who;
	int ready = 0;
	char drain[64];

	if ((p = calloc(m->n * 3 + 2, sizeof *p)) == NULL || (who = calloc(m->n * 3 + 2, sizeof *who)) == NULL)
		mc_oom();
	p[k++] = (struct pollfd){ .fd = wake_rd, .events = POLLIN };
	if (in >= 0)
		p[k++] = (struct pollfd){ .fd = in, .events = POLLIN };
	for (i = 0; i < m->n; i++) {
		sv = &m->sv[i];
		if (sv->pid != 0 && (mcp_busy(sv) || sv->st == SV_STOPPING) &&
		    (next == -1 || sv->deadline < next))
			next = sv->deadline;
		if (sv->out >= 0)
			who[k] = i, p[k++] = (struct pollfd){ .fd = sv->out, .events = POLLIN };
		if (sv->err >= 0)
			who[k] = i, p[k++] = (struct pollfd){ .fd = sv->err, .events = POLLIN };
		if (sv->in >= 0 && sv->woff < sv->wq.len)
			who[k] = i, p[k++] = (struct pollfd){ .fd = sv->in, .events = POLLOUT };
	}
	if (next != -1 && (ms < 0 || next - now < ms))
		ms = next > now ? next - now : 0;
	if (poll(p, (nfds_t)k, ms < 0 ? -1 : ms > INT_MAX ? INT_MAX : (int)ms) > 0) {
		while (read(wake_rd, drain, sizeof drain) > 0)
			;
		for (i = 1; i < k; i++) {
			if (p[i].revents == 0)
				continue;
			if (in >= 0 && i == 1) {
				ready = 1;
				continue;
			}
			sv = &m->sv[who[i]];
			if (p[i].fd == sv->out)
				read_out(sv);
			else if (p[i].fd == sv->err)
				read_err(sv);
			else if (p[i].fd == sv->in)
				write_in(sv);
		}
	}
	free(p);
	free(who);
	now = mc_clock_ms();
	for (i = 0; i < m->n; i++) {
		write_in(&m->sv[i]);
		check(&m->sv[i], now);
	}
	return ready;
}

void
mcp_stop_all(struct mcp *m)
{
	size_t i;
	int live;

	/* One still busy (starting, when a signal came) is not waited for. */
	for (i = 0; i < m->n; i++)
		mcp_stop(&m->sv[i], !mcp_busy(&m->sv[i]));
	for (;;) {
		for (i = 0, live = 0; i < m->n; i++)
			live |= m->sv[i].st != SV_OFF;
		if (!live)
			break;
		mcp_pump(m, -1, -1);
	}
}

void
mcp_free(struct mcp *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		mc_buf_free(&m->sv[i].wq);
		mc_buf_free(&m->sv[i].line);
		mc_buf_free(&m->sv[i].eline);
		mc_buf_free(&m->sv[i].last_err);
		cJSON_Delete(m->sv[i].tools);
		cJSON_Delete(m->sv[i].resources);
		cJSON_Delete(m->sv[i].templates);
		cJSON_Delete(m->sv[i].prompts);
		cJSON_Delete(m->sv[i].caps);
		cJSON_Delete(m->sv[i].progress);
		mc_buf_free(&m->sv[i].logs);
		free(m->sv[i].task_id);
		cJSON_Delete(m->sv[i].answer);
		free(m->sv[i].cursor);
		free(m->sv[i].why);
	}
	free(m->sv);
	free(m->refs);
	mc_strset_free(&m->names);
	cJSON_Delete(m->list);
}
