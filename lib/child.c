/* child.c: start a child process with vfork and exec, signals reset, descriptors placed. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "proc.h"
#include "child.h"

extern char **environ;

/* The signals a child gets back at their defaults: exec keeps ignored
 * signals ignored (a filter must die of a closed pipe, SIGPIPE), and the
 * programs of the suite catch the job signals. One list for every spawn. */
static const int reset[] = {
	SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGTSTP, SIGTTIN, SIGTTOU,
	SIGUSR1, SIGUSR2, SIGALRM, SIGWINCH,
};

/*
 * Not posix_spawn: glibc's resets each of the 64 signals in the child,
 * two system calls apiece while the parent waits, and checks each dup2
 * with two getrlimit calls. vfork shares our memory until the exec, so
 * the child only makes system calls; with every signal blocked meanwhile,
 * no handler of ours can run in it, and exec resets the handlers it
 * leaves. The descriptor table is the child's own (no CLONE_FILES).
 */
pid_t
mc_child_start(const struct mc_child *sp, char *err, size_t errsz)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	const struct mc_child_limit *l;
	struct rlimit rl;
	volatile int e = 0;	/* the child's errno, through the shared memory */
	char *const *envp = sp->envp ? sp->envp : environ;
	char *path;
	sigset_t all, old;
	pid_t p, parent = getpid();
	size_t i;
	int fd;

	if (sp->path != NULL)
		path = mc_strdup(sp->path);
	else if (sp->flags & MC_CHILD_SUITE)
		path = mc_proc_sibling(sp->argv[0]);
	else
		path = mc_proc_which(sp->argv[0]);
	if (path == NULL) {
		snprintf(err, errsz, "%s: not found%s%s on PATH", sp->argv[0],
		    sp->flags & MC_CHILD_SUITE ? " beside " : "",
		    sp->flags & MC_CHILD_SUITE ? mc_progname : "");
		errno = ENOENT;
		return -1;
	}
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	if ((p = vfork()) == 0) {
		for (i = 0; i < sizeof reset / sizeof reset[0]; i++)
			sigaction(reset[i], &dfl, NULL);
		if (sp->flags & MC_CHILD_SETSID)
			setsid();
		else if (sp->flags & MC_CHILD_PGROUP)
			setpgid(0, 0);
		if ((sp->flags & (MC_CHILD_PDEATH | MC_CHILD_PDEATH_TERM)) &&
		    (prctl(PR_SET_PDEATHSIG, sp->flags & MC_CHILD_PDEATH_TERM ? SIGTERM : SIGKILL) == -1 ||
		    getppid() != parent))
			_exit(127);
		for (i = 0; i < 3; i++) {
			fd = sp->fd[i];
			if (fd < 0)
				continue;
			/* dup2 onto itself would leave close-on-exec set. */
			if (fd == (int)i ? fcntl(fd, F_SETFD, 0) == -1 : dup2(fd, (int)i) == -1)
				goto fail;
		}
		/* Descriptors inherited from whoever started us stay out
		 * (a kernel without close_range leaves them as they are). */
		if (sp->flags & MC_CHILD_CLOSE)
			(void)close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
		for (i = 0; sp->keep != NULL && sp->keep[i] >= 0; i++)
			if (fcntl(sp->keep[i], F_SETFD, 0) == -1)
				goto fail;
		for (l = sp->limits; l != NULL && l->resource >= 0; l++) {
			rl.rlim_cur = rl.rlim_max = (rlim_t)l->value;
			if (setrlimit(l->resource, &rl) == -1)
				goto fail;
		}
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		execve(path, sp->argv, envp);
fail:
		e = errno;
		_exit(127);
	}
	if (p == -1)
		e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(path);
	if (p != -1 && e != 0)
		mc_child_wait(p);
	if (e != 0) {
		snprintf(err, errsz, "%s: cannot run: %s", sp->argv[0], strerror(e));
		errno = e;
		return -1;
	}
	return p;
}

int
mc_child_wait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return 127 << 8;
	return st;
}

pid_t
mc_child_start_piped(struct mc_child *sp, int *wr, int *rd, char *err, size_t errsz)
{
	int in[2], out[2], e;
	pid_t p;

	if (pipe2(in, O_CLOEXEC) == -1) {
		snprintf(err, errsz, "pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(out, O_CLOEXEC) == -1) {
		e = errno;
		close(in[0]);
		close(in[1]);
		snprintf(err, errsz, "pipe: %s", strerror(e));
		return -1;
	}
	/* A session's request is a megabyte: in a few writes, not in
	 * sixteen 64 KiB turns of the scheduler. As large as the system lets
	 * it be (pipe-max-size), or as it is. */
	(void)fcntl(in[1], F_SETPIPE_SZ, 1 << 20);
	(void)fcntl(out[1], F_SETPIPE_SZ, 1 << 20);
	sp->fd[0] = in[0];
	sp->fd[1] = out[1];
	p = mc_child_start(sp, err, errsz);
	close(in[0]);
	close(out[1]);
	if (p == -1) {
		close(in[1]);
		close(out[0]);
		return -1;
	}
	*wr = in[1];
	*rd = out[0];
	return p;
}
