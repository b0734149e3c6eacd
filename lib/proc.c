/* proc.c: run a command in its own process group, with a timeout, leaving nothing behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "child.h"
#include "clock.h"
#include "fsread.h"
#include "proc.h"

#define GRACE_MS 1000		/* between SIGTERM and SIGKILL */
#define KILL_WAIT_MS 5000	/* after SIGKILL: a process stuck in the kernel is given up on */
#define DRAIN_MS 1000		/* output still arriving from escaped processes */
#define POLL_MS 50		/* between looks for orphaned descendants */

/* The signal handler can reach only globals: the write end of a self-pipe
 * that wakes the poll loop, and whether we were told to stop. */
static volatile sig_atomic_t sig_wfd = -1;
static volatile sig_atomic_t got_stop;

static const int caught[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP };
#define NCAUGHT (sizeof caught / sizeof caught[0])

static void
on_signal(int sig)
{
	int saved = errno;

	if (sig != SIGCHLD)
		got_stop = sig;
	if (sig_wfd != -1)
		(void)!write(sig_wfd, "", 1);
	errno = saved;
}

/* What is left to write to the command's stdin. */
struct feed {
	int fd;			/* the pipe's write end; -1: none, or done */
	const char *p;
	size_t n;
};

static void
feed_close(struct feed *w)
{
	if (w->fd != -1) {
		close(w->fd);
		w->fd = -1;
	}
}

/* Wait up to ms for output, room for input (w, when not NULL) or a
 * signal; collect what arrives, write what fits. */
static void
wait_io(int fds[2], struct mc_clip *clips[2], struct feed *w, int sfd, long long ms,
    const struct mc_proc_in *in)
{
	struct pollfd p[4];
	char buf[65536];
	int map[2], nr = 0, n, wi = -1, i;
	ssize_t k;

	for (i = 0; i < 2; i++)
		if (fds[i] != -1) {
			map[nr] = i;
			p[nr++] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		}
	n = nr;
	if (w != NULL && w->fd != -1) {
		wi = n;
		p[n++] = (struct pollfd){ .fd = w->fd, .events = POLLOUT };
	}
	p[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	if (ms < 0)
		ms = 0;
	if (poll(p, (nfds_t)n, ms > INT_MAX ? INT_MAX : (int)ms) <= 0)
		return;
	for (i = 0; i < nr; i++) {
		if (p[i].revents == 0)
			continue;
		k = read(p[i].fd, buf, sizeof buf);
		if (k > 0) {
			mc_clip_add(clips[map[i]], buf, (size_t)k);
			if (in != NULL && in->tap != NULL)
				in->tap(in->tap_arg, buf, (size_t)k);
		} else if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
			close(fds[map[i]]);
			fds[map[i]] = -1;
		}
	}
	if (wi != -1 && p[wi].revents != 0) {
		/* A reader that left is EPIPE here (SIGPIPE is ignored): the
		 * rest of the input is dropped. */
		k = write(w->fd, w->p, w->n < sizeof buf ? w->n : sizeof buf);
		if (k > 0) {
			w->p += k;
			w->n -= (size_t)k;
		}
		if (w->n == 0 || (k == -1 && errno != EAGAIN && errno != EINTR))
			feed_close(w);
	}
	while (read(sfd, buf, sizeof buf) > 0)
		;
}

static int
leader_done(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	/* WNOWAIT: the zombie keeps the process group id from being reused
	 * until the whole group has been signalled. */
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	    si.si_pid == pid;
}

/* Process ids, for the children we had before the command started. */
struct pids {
	pid_t *v;
	size_t n, cap;
};

static int
has_pid(const struct pids *p, pid_t pid)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (p->v[i] == pid)
			return 1;
	return 0;
}

/*
 * Call fn(pid, pgrp, arg) for each child of this process. The list comes
 * from scanning /proc: /proc/PID/task/TID/children is absent from kernels
 * built without CONFIG_PROC_CHILDREN.
 */
static void
each_child(void (*fn)(pid_t, pid_t, void *), void *arg)
{
	pid_t self = getpid();
	struct dirent *d;
	char path[sizeof d->d_name + 16], buf[512], *p;
	int fd, ppid, pgrp;
	ssize_t k;
	DIR *dir;

	/* A /proc of another PID namespace would name strangers. */
	if ((k = readlink("/proc/self", buf, sizeof buf - 1)) <= 0)
		return;
	buf[k] = '\0';
	if (strtol(buf, NULL, 10) != (long)self || (dir = opendir("/proc")) == NULL)
		return;
	while ((d = readdir(dir)) != NULL) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9' ||
		    d->d_name[strspn(d->d_name, "0123456789")] != '\0')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", d->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		k = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (k <= 0)
			continue;
		buf[k] = '\0';
		/* "pid (comm) state ppid pgrp ...": comm may hold any byte but NUL. */
		if ((p = strrchr(buf, ')')) == NULL ||
		    sscanf(p + 1, " %*c %d %d", &ppid, &pgrp) != 2 || ppid != self)
			continue;
		fn((pid_t)strtol(d->d_name, NULL, 10), (pid_t)pgrp, arg);
	}
	closedir(dir);
}

static void
note_child(pid_t pid, pid_t pgrp, void *arg)
{
	struct pids *p = arg;

	(void)pgrp;
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		if ((p->v = reallocarray(p->v, p->cap, sizeof *p->v)) == NULL)
			mc_oom();
	}
	p->v[p->n++] = pid;
}

/* A member that was still running when the command ended; one that had
 * finished on its own is no leftover. */
static void
reaped(pid_t pid, pid_t w, int st, struct mc_proc *r)
{
	if (w == pid) {
		r->status = st;
		r->reaped = 1;
	} else if (WIFSIGNALED(st) && (WTERMSIG(st) == SIGTERM || WTERMSIG(st) == SIGKILL))
		r->leftovers = 1;
}

struct sweep {
	pid_t leader;
	const struct pids *before;
	struct pids termed;	/* strays sent SIGTERM */
	int killing;		/* past the grace: SIGKILL to every stray */
	size_t found;		/* strays met by this scan, reaped or not */
	struct mc_proc *r;
};

/*
 * A child that is neither the command nor one we had before it is a
 * descendant of the command orphaned to us, the subreaper: one that left
 * the group (setsid, setpgid) is beyond kill(-group). Signal it and reap
 * it once dead; its own children then come to us in turn.
 */
static void
sweep_child(pid_t pid, pid_t pgrp, void *arg)
{
	struct sweep *s = arg;
	int st;
	pid_t w;

	if ((pid == s->leader && !s->r->reaped) || has_pid(s->before, pid))
		return;
	if (s->killing)
		kill(pid, SIGKILL);
	else if (pgrp != s->leader && !has_pid(&s->termed, pid)) {
		/* Once: members of the group had the group's SIGTERM. */
		kill(pid, SIGTERM);
		note_child(pid, pgrp, &s->termed);
	}
	s->found++;
	while ((w = waitpid(pid, &st, WNOHANG)) == -1 && errno == EINTR)
		;
	if (w == pid)
		reaped(s->leader, w, st, s->r);
}

/* Stop everything the command started, in group pid or escaped from it,
 * and reap it (the leader's status into r). */
static void
stop_all(pid_t pid, const struct pids *before, int fds[2], struct mc_clip *clips[2], int sfd,
    const struct mc_proc_in *in, struct mc_proc *r)
{
	long long grace = mc_clock_ms() + GRACE_MS, giveup = grace + KILL_WAIT_MS, ms;
	struct sweep s = { .leader = pid, .before = before, .r = r };
	int group = 1, st;
	pid_t w;

	kill(-pid, SIGTERM);
	for (;;) {
		while (group && (w = waitpid(-pid, &st, WNOHANG)) != 0) {
			if (w > 0)
				reaped(pid, w, st, r);
			else if (errno != EINTR)
				group = 0;	/* ECHILD: none of the group is our child */
		}
		s.found = 0;
		each_child(sweep_child, &s);
		/* A scan that met no stray, not even one it reaped (whose
		 * children may have come to us since): nothing is left. */
		if (!group && s.found == 0)
			break;
		if (!s.killing && mc_clock_ms() >= grace) {
			/* Only while a member is our child: an emptied group's
			 * number may since be another's. */
			if (group)
				kill(-pid, SIGKILL);
			s.killing = 1;
			continue;
		}
		if (s.killing && mc_clock_ms() >= giveup)
			break;
		ms = s.killing ? POLL_MS : grace - mc_clock_ms();
		wait_io(fds, clips, NULL, sfd, ms < POLL_MS ? ms : POLL_MS, in);
	}
	free(s.termed.v);
}

/*
 * A guard for the command's group, against this process's death by
 * SIGKILL, which no handler sees: a forked copy of this process that keeps
 * nothing but the read end of a pipe from us (a fork, not a program: all
 * it does is read, kill and exit). It reads the group's number, then
 * waits: a byte means the command was stopped and reaped here; the end of
 * the pipe without one means we died, and it ends the group as stop_all
 * would (SIGTERM, SIGKILL after the grace). Returns its pid, with the
 * pipe's write end in *wr, or -1 (the command then runs unguarded).
 */
static pid_t
guard_start(int *wr)
{
	const struct timespec tick = { 0, POLL_MS * 1000000L };
	sigset_t all, old;
	int p[2], i;
	ssize_t k;
	pid_t pid, pg;
	char c;

	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	if ((pid = fork()) == 0) {
		/* Signals stay blocked: the guard ends by its pipe alone. */
		if (p[0] > 0)
			(void)close_range(0, (unsigned)p[0] - 1, 0);
		(void)close_range((unsigned)p[0] + 1, ~0U, 0);
		while ((k = read(p[0], &pg, sizeof pg)) == -1 && errno == EINTR)
			;
		if (k != (ssize_t)sizeof pg)
			_exit(0);
		while ((k = read(p[0], &c, 1)) == -1 && errno == EINTR)
			;
		if (k == 1 || kill(-pg, SIGTERM) == -1)
			_exit(0);
		for (i = 0; i < GRACE_MS / POLL_MS && kill(-pg, 0) == 0; i++)
			nanosleep(&tick, NULL);
		kill(-pg, SIGKILL);
		_exit(0);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(p[0]);
	if (pid == -1) {
		close(p[1]);
		return -1;
	}
	*wr = p[1];
	return pid;
}

/* The command is reaped, or never ran: the guard goes, and is reaped. */
static void
guard_stop(pid_t guard, int wr)
{
	if (guard == -1)
		return;
	(void)!write(wr, "", 1);
	close(wr);
	mc_child_wait(guard);
}

int
mc_proc_run(const char *path, char *const argv[], const struct mc_proc_in *in,
    unsigned timeout_s, struct mc_clip *out, struct mc_clip *err, struct mc_proc *r)
{
	int op[2] = { -1, -1 }, ep[2] = { -1, -1 }, sp[2] = { -1, -1 }, ip[2] = { -1, -1 };
	int null = -1;
	struct sigaction sa, old[NCAUGHT], oldpipe, ign = { .sa_handler = SIG_IGN };
	struct feed w = { .fd = -1 };
	struct mc_clip *clips[2] = { out, err };
	/* A session of its own: a new process group, and no controlling
	 * terminal, so a command that asks the terminal for a password fails
	 * at once instead of stopping until the timeout. */
	struct mc_child c = { .path = path, .argv = argv, .envp = in ? in->envp : NULL,
	    .limits = in ? in->limits : NULL, .flags = MC_CHILD_SETSID | MC_CHILD_CLOSE };
	struct pids before = {0};
	int fds[2], saved, stopped, gw = -1;
	pid_t guard;
	long long deadline;
	char why[256];
	size_t i;
	pid_t pid;

	*r = (struct mc_proc){0};
	/* Orphans of the command are reparented to us, so they can be reaped. */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (pipe2(op, O_CLOEXEC) == -1 || (err && pipe2(ep, O_CLOEXEC) == -1) ||
	    pipe2(sp, O_CLOEXEC | O_NONBLOCK) == -1 ||
	    (in && in->data && pipe2(ip, O_CLOEXEC) == -1) ||
	    (null = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		goto fail;
	got_stop = 0;
	sig_wfd = sp[1];
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	for (i = 0; i < NCAUGHT; i++)
		sigaction(caught[i], &sa, &old[i]);
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &oldpipe);
	guard = guard_start(&gw);
	/* Children we already have (inherited across exec, say; the guard)
	 * are not the command's; unreaped, their pids cannot be reused. */
	each_child(note_child, &before);

	c.fd[0] = ip[0] != -1 ? ip[0] : null;
	c.fd[1] = op[1];
	c.fd[2] = err ? ep[1] : op[1];
	/* Back from the start, the command has its group (or never ran). */
	if ((pid = mc_child_start(&c, why, sizeof why)) == -1) {
		saved = errno;
		r->exec_err = saved;
		guard_stop(guard, gw);
		goto restore;
	}
	if (guard != -1)
		(void)!write(gw, &pid, sizeof pid);
	close(op[1]);
	op[1] = -1;
	if (ep[1] != -1) {
		close(ep[1]);
		ep[1] = -1;
	}
	if (ip[0] != -1) {
		close(ip[0]);
		ip[0] = -1;
		w = (struct feed){ .fd = ip[1], .p = in->data, .n = in->len };
		ip[1] = -1;
		fcntl(w.fd, F_SETFL, fcntl(w.fd, F_GETFL) | O_NONBLOCK);
		if (w.n == 0)
			feed_close(&w);
	}
	fds[0] = op[0];
	fds[1] = ep[0];
	for (i = 0; i < 2; i++)
		if (fds[i] != -1)
			fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);

	deadline = mc_clock_ms() + (long long)timeout_s * 1000;
	for (;;) {
		if (leader_done(pid))
			break;
		if (got_stop) {
			r->interrupted = got_stop;
			break;
		}
		if (mc_clock_ms() >= deadline) {
			r->timed_out = 1;
			break;
		}
		wait_io(fds, clips, &w, sp[0], deadline - mc_clock_ms(), in);
	}
	feed_close(&w);
	stopped = r->interrupted || r->timed_out;
	stop_all(pid, &before, fds, clips, sp[0], in, r);
	guard_stop(guard, gw);
	if (stopped)
		r->leftovers = 0;
	deadline = mc_clock_ms() + DRAIN_MS;
	while ((fds[0] != -1 || fds[1] != -1) && mc_clock_ms() < deadline)
		wait_io(fds, clips, NULL, sp[0], deadline - mc_clock_ms(), in);
	for (i = 0; i < 2; i++)
		if (fds[i] != -1)
			close(fds[i]);
	op[0] = ep[0] = -1;
	saved = 0;
restore:
	for (i = 0; i < NCAUGHT; i++)
		sigaction(caught[i], &old[i], NULL);
	sigaction(SIGPIPE, &oldpipe, NULL);
	sig_wfd = -1;
	free(before.v);
	goto close;
fail:
	saved = errno;
close:
	for (i = 0; i < 2; i++) {
		if (op[i] != -1)
			close(op[i]);
		if (ep[i] != -1)
			close(ep[i]);
		if (sp[i] != -1)
			close(sp[i]);
		if (ip[i] != -1)
			close(ip[i]);
	}
	if (null != -1)
		close(null);
	if (saved) {
		errno = saved;
		return -1;
	}
	return 0;
}

static int
executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *
mc_proc_which(const char *name)
{
	const char *path = getenv("PATH"), *p, *colon;
	char *dir, *full;

	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = colon + 1) {
		colon = strchr(p, ':');
		if (colon == NULL)
			colon = p + strlen(p);
		/* An empty entry means the working directory to a shell, and
		 * "." or "bin" a directory under it; here a relative entry
		 * means nothing: a repository's ./rg must not run. */
		if (colon == p || *p != '/') {
			if (*colon == '\0')
				return NULL;
			continue;
		}
		dir = mc_strndup(p, (size_t)(colon - p));
		full = mc_path_join(dir, name);
		free(dir);
		if (executable(full))
			return full;
		free(full);
		if (*colon == '\0')
			return NULL;
	}
}

char *
mc_proc_sibling(const char *name)
{
	char self[PATH_MAX], *slash, *full;
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			full = mc_path_join(*self ? self : "/", name);
			if (executable(full))
				return full;
			free(full);
		}
	}
	return mc_proc_which(name);
}
