/* sandbox-ns.c: the command's own user, mount and PID namespaces: its /proc and /dev/pts, .git read-only, pid_max. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/mount.h>

#include "fsread.h"
#include "sandbox.h"

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif

/* Once a PID namespace has used its pids up to pid_max, the kernel
 * reuses none below this (RESERVED_PIDS): so many more are given. */
#define RESERVED 300
/* Processes of the namespace that are not the command's: mc-tool there
 * (PID 1) and the guard of lib/proc.c; in the user namespace, also the
 * parent that waits. */
#define OURS 2

/* The rules that rest on the namespaces. */
static const enum mc_sandbox_rule ns_rules[] = {
	MC_SANDBOX_TERMINALS, MC_SANDBOX_PROC, MC_SANDBOX_GIT, MC_SANDBOX_PROCESSES,
};
#define NNS (sizeof ns_rules / sizeof ns_rules[0])

static void
why(struct mc_sandbox *sb, enum mc_sandbox_rule r, int on, const char *fmt, const char *arg)
{
	sb->on[r] = on;
	snprintf(sb->why[r], sizeof sb->why[r], fmt, arg);
}

/* Each rule that rests on the namespaces and was to hold: off, because of
 * what (why no namespace could be made). */
static void
ns_failed(struct mc_sandbox *sb, const char *what)
{
	size_t i;

	sb->ns = 0;
	for (i = 0; i < NNS; i++)
		if (sb->on[ns_rules[i]])
			why(sb, ns_rules[i], 0, "%s", what);
	/* Terminals wanted the filter as well: say so if that is missing. */
	if (!sb->filter)
		why(sb, MC_SANDBOX_TERMINALS, 0, "%s; and no seccomp filter", what);
}

static int
put(const char *path, const char *text)
{
	size_t n = strlen(text);
	int fd, rc = 0;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	if (mc_write_all(fd, text, n) == -1)
		rc = -1;
	if (close(fd) == -1)
		rc = -1;
	return rc;
}

/* Into new user, mount and PID namespaces (the PID one for the children
 * to come), our user and group ids mapped to themselves. */
static int
unshare_all(char *err, size_t errsz)
{
	unsigned u = (unsigned)geteuid(), g = (unsigned)getegid();
	char map[64];

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) == -1) {
		snprintf(err, errsz, "no user namespace can be made here (unshare: %s)", strerror(errno));
		return -1;
	}
	snprintf(map, sizeof map, "%u %u 1\n", u, u);
	if (put("/proc/self/uid_map", map) == -1 || put("/proc/self/setgroups", "deny\n") == -1 ||
	    (snprintf(map, sizeof map, "%u %u 1\n", g, g), put("/proc/self/gid_map", map)) == -1) {
		snprintf(err, errsz, "cannot map the ids of a user namespace: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* pid_max belongs to each PID namespace from Linux 6.14; before, it is
 * the system's, and must not be touched. */
static int
pid_max_per_ns(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	return uname(&u) == 0 && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
	    (major > 6 || (major == 6 && minor >= 14));
}

static void
setup_processes(struct mc_sandbox *sb, int proc_ok)
{
	long n = sb->w.processes, max = RESERVED + OURS + n;
	char text[64];

	if (!sb->on[MC_SANDBOX_PROCESSES])
		return;
	if (!proc_ok) {
		why(sb, MC_SANDBOX_PROCESSES, 0, "%s", sb->why[MC_SANDBOX_PROC]);
		return;
	}
	if (!pid_max_per_ns()) {
		/* Counted in the user namespace: the command's processes and
		 * ours, but not for root, whom the kernel never holds to it. */
		if (geteuid() == 0) {
			why(sb, MC_SANDBOX_PROCESSES, 0, "a PID namespace's own pid_max needs Linux 6.14, "
			    "and RLIMIT_NPROC does not hold root%s", "");
			return;
		}
		sb->nproc = n + OURS + 1;
		snprintf(text, sizeof text, "%ld", n);
		why(sb, MC_SANDBOX_PROCESSES, 1, "at most %s at once, by RLIMIT_NPROC in the user namespace",
		    text);
		return;
	}
	snprintf(text, sizeof text, "%ld\n", max);
	if (put("/proc/sys/kernel/pid_max", text) == -1) {
		why(sb, MC_SANDBOX_PROCESSES, 0, "cannot set the PID namespace's pid_max: %s", strerror(errno));
		return;
	}
	/* Pids 1 to max - 1: before they wrap, N + 299 for the command;
	 * after, those from 300 up and the lower ones still alive. */
	snprintf(text, sizeof text, "at least %ld and at most %ld", n, n + RESERVED - 1);
	why(sb, MC_SANDBOX_PROCESSES, 1, "%s at once, by the PID namespace's pid_max", text);
}

/* Bind path over itself, read-only. */
static int
read_only(const char *path)
{
	struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY };

	if (mount(path, path, "none", MS_BIND, NULL) == -1)
		return -1;
	/* Only the read-only flag: a remount would have to repeat the
	 * flags (nosuid, nodev) the mount below has locked. */
	return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, 0, &a, sizeof a);
}

/*
 * What the command will run with: no capability. It runs as root of the
 * user namespace, and with none there it can undo no mount; and since
 * this process keeps all of them, the kernel lets the command neither
 * read its memory nor its /proc/1/environ (ptrace access needs the
 * target's capabilities). Not PR_SET_DUMPABLE: that would also stop a
 * sanitizer's leak check here, which ptraces its own threads.
 */
static void
drop_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	int c;

	for (c = 0; prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0 || errno != EINVAL; c++)
		;
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capget, &h, d) == 0) {
		d[0].inheritable = d[1].inheritable = 0;
		(void)syscall(SYS_capset, &h, d);
	}
}

/* In PID 1 of the namespaces: the mounts and limits; sb says what held. */
static void
ns_setup(struct mc_sandbox *sb)
{
	int proc_ok = 0;

	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1)
		why(sb, MC_SANDBOX_PROC, 0, "cannot mount a /proc of its own: %s", strerror(errno));
	else {
		proc_ok = 1;
		why(sb, MC_SANDBOX_PROC, 1, "user, PID and mount namespaces, and a /proc of its own%s", "");
	}
	/* A devpts of its own: the user's terminals are not there, and the
	 * command may still make ptys of its own. */
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
	    "newinstance,ptmxmode=0666,mode=0620") == -1 ||
	    mount("/dev/pts/ptmx", "/dev/ptmx", "none", MS_BIND, NULL) == -1 ||
	    mc_sandbox_allow(sb, "/dev/pts") == -1 || mc_sandbox_allow(sb, "/dev/ptmx") == -1)
		why(sb, MC_SANDBOX_TERMINALS, 0, "cannot mount a /dev/pts of its own: %s", strerror(errno));
	else if (sb->filter)
		why(sb, MC_SANDBOX_TERMINALS, 1, "a session of its own, a /dev/pts of its own "
		    "in a mount namespace, and the seccomp filter%s", "");
	if (sb->on[MC_SANDBOX_GIT]) {
		if (read_only(sb->w.git) == -1)
			why(sb, MC_SANDBOX_GIT, 0, "cannot bind .git read-only: %s", strerror(errno));
		else
			why(sb, MC_SANDBOX_GIT, 1, "a read-only bind mount%s", "");
	}
	setup_processes(sb, proc_ok);
	drop_caps();
}

static int
read_all(int fd, void *p, size_t n)
{
	ssize_t k;
	size_t got = 0;

	while (got < n) {
		k = read(fd, (char *)p + got, n - got);
		if (k == -1 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return 0;
}

void
mc_sandbox_probe(struct mc_sandbox *sb)
{
	char err[200];
	int p[2], st;
	pid_t pid, inner;

	if (!sb->ns)
		return;
	if (pipe2(p, O_CLOEXEC) == -1) {
		ns_failed(sb, strerror(errno));
		return;
	}
	fflush(NULL);
	if ((pid = fork()) == 0) {
		close(p[0]);
		if (unshare_all(err, sizeof err) == -1)
			ns_failed(sb, err);
		else if ((inner = fork()) == 0) {
			ns_setup(sb);
			(void)mc_write_all(p[1], sb->on, sizeof sb->on);
			(void)mc_write_all(p[1], sb->why, sizeof sb->why);
			_exit(0);
		} else if (inner == -1)
			ns_failed(sb, strerror(errno));
		else {
			waitpid(inner, &st, 0);
			_exit(0);
		}
		(void)mc_write_all(p[1], sb->on, sizeof sb->on);
		(void)mc_write_all(p[1], sb->why, sizeof sb->why);
		_exit(0);
	}
	close(p[1]);
	if (pid == -1 || read_all(p[0], sb->on, sizeof sb->on) == -1 ||
	    read_all(p[0], sb->why, sizeof sb->why) == -1)
		ns_failed(sb, "the probe of the namespaces failed");
	sb->ns = sb->on[MC_SANDBOX_PROC];
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
}

pid_t
mc_sandbox_enter(struct mc_sandbox *sb)
{
	struct pollfd pf;
	char err[200];
	int alive[2];
	pid_t pid;

	if (!sb->ns)
		return 0;
	if (pipe2(alive, O_CLOEXEC) == -1) {
		ns_failed(sb, strerror(errno));
		return 0;
	}
	if (unshare_all(err, sizeof err) == -1) {
		close(alive[0]);
		close(alive[1]);
		ns_failed(sb, err);
		return 0;
	}
	fflush(NULL);
	if ((pid = fork()) != 0) {
		close(alive[0]);
		/* alive[1] stays open here as long as this process lives. */
		return pid;
	}
	close(alive[1]);
	/* PID 1: dies with the parent, and the kernel then ends everything
	 * in the namespace. Should the parent have died already, its end of
	 * the pipe is closed. */
	pf = (struct pollfd){ .fd = alive[0], .events = POLLIN };
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || poll(&pf, 1, 0) != 0)
		_exit(127);
	close(alive[0]);
	ns_setup(sb);
	return 0;
}

static volatile sig_atomic_t forward_to;

static void
forward(int sig)
{
	int saved = errno;

	if (forward_to > 0)
		kill((pid_t)forward_to, sig);
	errno = saved;
}

int
mc_sandbox_wait(pid_t child)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = forward };
	size_t i;
	int st;

	forward_to = child;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
	while (waitpid(child, &st, 0) == -1)
		if (errno != EINTR)
			return 127 << 8;
	return st;
}
