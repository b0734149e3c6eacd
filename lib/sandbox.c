/* sandbox.c: Landlock (writes, TCP, signals, abstract sockets), a seccomp filter (sockets, terminal ioctls) and rlimits. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>

#include "diag.h"
#include "json.h"
#include "sandbox.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

/* Newer than some kernel headers: the ruleset of ABI 6, TCP rules (ABI 4)
 * and scoping (ABI 6), from the stable Landlock ABI. */
struct ruleset_attr {
	__u64 handled_access_fs;
	__u64 handled_access_net;
	__u64 scoped;
};
#define NET_BIND_TCP (1ULL << 0)
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

/* What a rule on a file, not a directory, may grant of the writes. */
#define FILE_RIGHTS (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE)

/* Every right that changes the file system, as far as ABI abi knows it;
 * reading and executing are left alone. */
static __u64
write_rights(int abi)
{
	__u64 r = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
	    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
	    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
	    LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
	    LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;

	if (abi >= 2)
		r |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		r |= LANDLOCK_ACCESS_FS_TRUNCATE;
	return r;
}

/*
 * The seccomp filter, for each architecture a process here can run as
 * (any other is killed): no ioctl TIOCSTI or TIOCLINUX (typing into a
 * terminal), no io_uring (whose requests make sockets and files where no
 * filter sees them); with the network off, socket() only for AF_NETLINK:
 * no IP socket, and no AF_UNIX one, so no connection to a socket outside
 * (socketpair(2) stays: it connects only the caller's own two ends).
 * Refused calls fail with EACCES, as Landlock's refusals do.
 */
#define DENY (SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA))
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ARG_LOW(i) (offsetof(struct seccomp_data, args[i]) + 4)
#else
#define ARG_LOW(i) offsetof(struct seccomp_data, args[i])
#endif
#define LOAD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define JUMP(op, k, t, f) BPF_JUMP(BPF_JMP | (op) | BPF_K, (k), (t), (f))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
/* No system call has this number: a rule left out of the filter. */
#define NONE 0xfffffffeU
/* Fourteen instructions; "extra" (compared by op) is refused outright. */
#define ARCH_RULES(audit_arch, op, extra, nr_socket, nr_ioctl, nr_io_uring_setup)	\
	LOAD(offsetof(struct seccomp_data, arch)),				\
	JUMP(BPF_JEQ, (audit_arch), 0, 12),	/* not this one: the next */	\
	LOAD(offsetof(struct seccomp_data, nr)),				\
	JUMP((op), (extra), 8, 0),		/* refuse */			\
	JUMP(BPF_JEQ, (nr_io_uring_setup), 7, 0),	/* refuse */		\
	JUMP(BPF_JEQ, (nr_ioctl), 0, 3),					\
	LOAD(ARG_LOW(1)),		/* the request: an unsigned int */	\
	JUMP(BPF_JEQ, TIOCSTI, 4, 0),		/* refuse */			\
	JUMP(BPF_JEQ, TIOCLINUX, 3, 4),		/* refuse; else allow */	\
	JUMP(BPF_JEQ, (nr_socket), 0, 3),	/* allow anything else */	\
	LOAD(ARG_LOW(0)),							\
	JUMP(BPF_JEQ, AF_NETLINK, 1, 0),					\
	RET(DENY),								\
	RET(SECCOMP_RET_ALLOW)

#if defined(__x86_64__)
#define HAVE_FILTER 1
/* x32 system calls (bit 30) are refused: none of them is needed. i386
 * programs: socketcall(2) hides its arguments in memory, so with the
 * network off it is refused. */
#define FILTER(net_socket, i386_socketcall, i386_socket) {			\
	ARCH_RULES(AUDIT_ARCH_X86_64, BPF_JGE, 0x40000000, net_socket, SYS_ioctl, 425), \
	ARCH_RULES(AUDIT_ARCH_I386, BPF_JEQ, i386_socketcall, i386_socket, 54, 425), \
	RET(SECCOMP_RET_KILL_PROCESS),						\
}
static const struct sock_filter filter_offline[] = FILTER(SYS_socket, 102, 359);
static const struct sock_filter filter_online[] = FILTER(NONE, NONE, NONE);
#elif defined(__aarch64__)
#define HAVE_FILTER 1
#define FILTER(net_socket) {							\
	ARCH_RULES(AUDIT_ARCH_AARCH64, BPF_JEQ, NONE, net_socket, SYS_ioctl, 425), \
	RET(SECCOMP_RET_KILL_PROCESS),						\
}
static const struct sock_filter filter_offline[] = FILTER(SYS_socket);
static const struct sock_filter filter_online[] = FILTER(NONE);
#else
#define HAVE_FILTER 0
#endif

static int
install_filter(int network)
{
#if HAVE_FILTER
	struct sock_fprog prog = {
		.len = sizeof filter_offline / sizeof filter_offline[0],
		.filter = (struct sock_filter *)(network ? filter_online : filter_offline),
	};

	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
#else
	(void)network;
	errno = ENOSYS;
	return -1;
#endif
}

/* Can the filter be installed here? If not, why not, into why. */
static int
filter_ok(char *why, size_t whysz)
{
#if HAVE_FILTER
	__u32 action = SECCOMP_RET_ERRNO;

	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0)
		return 1;
	snprintf(why, whysz, "seccomp filters are not available (seccomp: %s)", strerror(errno));
#else
	snprintf(why, whysz, "no seccomp filter is written for this architecture");
#endif
	return 0;
}

/* Landlock's ABI version, or 0 with why. */
static int
landlock_abi(char *why, size_t whysz)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	if (v > 0)
		return (int)v;
	if (errno == EOPNOTSUPP)
		snprintf(why, whysz, "Landlock is not enabled in this kernel "
		    "(it is missing from the lsm= boot parameter)");
	else if (errno == ENOSYS)
		snprintf(why, whysz, "this kernel has no Landlock");
	else
		snprintf(why, whysz, "landlock_create_ruleset: %s", strerror(errno));
	return 0;
}

/* path writable (beneath it, for a directory) in ruleset: NULL, or why not. */
static const char *
add_rule(int ruleset, const char *path, __u64 rights)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = rights };
	const char *what = NULL;
	struct stat st;

	if ((pb.parent_fd = open(path, O_PATH | O_CLOEXEC)) == -1 || fstat(pb.parent_fd, &st) == -1) {
		what = strerror(errno);
	} else {
		if (!S_ISDIR(st.st_mode))
			pb.allowed_access &= FILE_RIGHTS;
		if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == -1)
			what = strerror(errno);
	}
	if (pb.parent_fd != -1)
		close(pb.parent_fd);
	return what;
}

/* Path i of w, writable; why not, if not. */
static void
add_path(struct mc_sandbox *sb, const struct mc_sandbox_want *w, size_t i, __u64 rights)
{
	sb->left_out[i] = mc_strdup(add_rule(sb->ruleset, w->writable[i], rights));
}

int
mc_sandbox_allow(const struct mc_sandbox *sb, const char *path)
{
	if (sb->ruleset == -1)
		return 0;
	return add_rule(sb->ruleset, path, write_rights(sb->abi)) == NULL ? 0 : -1;
}

/* The ruleset into sb->ruleset, or -1 with why. */
static void
make_ruleset(struct mc_sandbox *sb, const struct mc_sandbox_want *w, char *why, size_t whysz)
{
	struct ruleset_attr a = { .handled_access_fs = write_rights(sb->abi) };
	size_t size = offsetof(struct ruleset_attr, handled_access_net);
	size_t i;

	if (!w->network && sb->abi >= 4) {
		a.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
		size = offsetof(struct ruleset_attr, scoped);
	}
	if (sb->abi >= 6) {
		a.scoped = SCOPE_SIGNAL | (w->network ? 0 : SCOPE_ABSTRACT_UNIX);
		size = sizeof a;
	}
	sb->ruleset = (int)syscall(SYS_landlock_create_ruleset, &a, size, 0);
	if (sb->ruleset == -1) {
		snprintf(why, whysz, "landlock_create_ruleset: %s", strerror(errno));
		return;
	}
	for (i = 0; i < sb->npaths; i++)
		add_path(sb, w, i, a.handled_access_fs);
}

/* The rules that rest on the seccomp filter and Landlock's TCP rules:
 * TCP, UDP, unix sockets and terminals. */
static void
prepare_filtered(struct mc_sandbox *sb, const struct mc_sandbox_want *w, const char *lwhy,
    const char *fwhy)
{
	const size_t n = sizeof sb->why[0];
	int ll = sb->ruleset != -1, tcp;
	char nowhy[120];

	if (!w->network) {
		tcp = ll && sb->abi >= 4;
		if (ll)
			snprintf(nowhy, sizeof nowhy, "Landlock's TCP rules need ABI 4, this kernel has %d",
			    sb->abi);
		else
			snprintf(nowhy, sizeof nowhy, "%s", lwhy);
		sb->on[MC_SANDBOX_TCP] = sb->filter || tcp;
		if (tcp)
			snprintf(sb->why[MC_SANDBOX_TCP], n, "Landlock ABI %d TCP rules%s", sb->abi,
			    sb->filter ? " and the seccomp filter on socket()" : "");
		else if (sb->filter)
			snprintf(sb->why[MC_SANDBOX_TCP], n, "the seccomp filter on socket() alone: %s", nowhy);
		else
			snprintf(sb->why[MC_SANDBOX_TCP], n, "%s; %s", fwhy, nowhy);
		sb->on[MC_SANDBOX_UDP] = sb->filter;
		snprintf(sb->why[MC_SANDBOX_UDP], n, "%s", sb->filter ?
		    "the seccomp filter on socket(): AF_NETLINK only" : fwhy);
		/* Without a socket of its own, a command reaches no socket,
		 * path or abstract; the scope is for one passed to it. */
		sb->on[MC_SANDBOX_UNIX] = sb->filter;
		if (sb->filter)
			snprintf(sb->why[MC_SANDBOX_UNIX], n, "the seccomp filter: no socket(AF_UNIX), "
			    "socketpair(2) allowed%s", ll && sb->abi >= 6 ?
			    "; Landlock's abstract socket scoping" : "");
		else
			snprintf(sb->why[MC_SANDBOX_UNIX], n, "%s", fwhy);
	}
	/* A session of its own keeps /dev/tty from naming mc's terminal; the
	 * filter keeps any other from being typed into, and the mount
	 * namespace puts a /dev/pts of its own over the user's. */
	sb->on[MC_SANDBOX_TERMINALS] = sb->filter && sb->ns;
	if (!sb->filter)
		snprintf(sb->why[MC_SANDBOX_TERMINALS], n, "%s", fwhy);
}

/* The limits: rlimits, but processes (the PID namespace's pid_max). */
static void
prepare_limits(struct mc_sandbox *sb, const struct mc_sandbox_want *w)
{
	const size_t n = sizeof sb->why[0];

	if ((sb->on[MC_SANDBOX_MEMORY] = w->memory_mb > 0))
		snprintf(sb->why[MC_SANDBOX_MEMORY], n, "RLIMIT_AS");
	else
		snprintf(sb->why[MC_SANDBOX_MEMORY], n, "tools.sandbox.limits.memory_mb is 0");
	if ((sb->on[MC_SANDBOX_FILE] = w->file_mb > 0))
		snprintf(sb->why[MC_SANDBOX_FILE], n, "RLIMIT_FSIZE");
	else
		snprintf(sb->why[MC_SANDBOX_FILE], n, "tools.sandbox.limits.file_mb is 0");
	if (w->processes <= 0)
		snprintf(sb->why[MC_SANDBOX_PROCESSES], n, "tools.sandbox.limits.processes is 0");
	sb->on[MC_SANDBOX_PROCESSES] = w->processes > 0 && sb->ns;
}

void
mc_sandbox_prepare(struct mc_sandbox *sb, const struct mc_sandbox_want *w)
{
	char lwhy[120] = "", fwhy[80] = "";
	const size_t n = sizeof sb->why[0];
	int ll;

	*sb = (struct mc_sandbox){ .ruleset = -1, .w = *w, .ns = 1 };
	while (w->writable != NULL && w->writable[sb->npaths] != NULL)
		sb->npaths++;
	if ((sb->left_out = calloc(sb->npaths + 1, sizeof *sb->left_out)) == NULL)
		mc_oom();
	if ((sb->abi = landlock_abi(lwhy, sizeof lwhy)) > 0)
		make_ruleset(sb, w, lwhy, sizeof lwhy);
	ll = sb->ruleset != -1;
	sb->filter = filter_ok(fwhy, sizeof fwhy);

	if ((sb->on[MC_SANDBOX_WRITES] = ll))
		snprintf(sb->why[MC_SANDBOX_WRITES], n, "Landlock ABI %d%s", sb->abi, sb->abi < 3 ?
		    "; truncate(2) by path is not restricted before ABI 3" : "");
	else
		snprintf(sb->why[MC_SANDBOX_WRITES], n, "%s", lwhy);
	prepare_filtered(sb, w, lwhy, fwhy);
	/* Until tried: mc_sandbox_probe and mc_sandbox_enter say. */
	sb->on[MC_SANDBOX_PROC] = 1;
	sb->on[MC_SANDBOX_GIT] = w->git != NULL;
	if (w->git == NULL)
		snprintf(sb->why[MC_SANDBOX_GIT], n, "no .git in or above the working directory");
	prepare_limits(sb, w);

	if ((sb->on[MC_SANDBOX_SIGNALS] = ll && sb->abi >= 6))
		snprintf(sb->why[MC_SANDBOX_SIGNALS], n, "Landlock ABI %d scoping", sb->abi);
	else if (ll)
		snprintf(sb->why[MC_SANDBOX_SIGNALS], n, "Landlock's scoping needs ABI 6, this kernel has %d",
		    sb->abi);
	else
		snprintf(sb->why[MC_SANDBOX_SIGNALS], n, "%s", lwhy);
}

void
mc_sandbox_limits(const struct mc_sandbox *sb, struct mc_child_limit out[4])
{
	int n = 0;

	if (sb->on[MC_SANDBOX_MEMORY])
		out[n++] = (struct mc_child_limit){ RLIMIT_AS, (unsigned long long)sb->w.memory_mb << 20 };
	if (sb->on[MC_SANDBOX_FILE])
		out[n++] = (struct mc_child_limit){ RLIMIT_FSIZE, (unsigned long long)sb->w.file_mb << 20 };
	if (sb->on[MC_SANDBOX_PROCESSES] && sb->nproc > 0)
		out[n++] = (struct mc_child_limit){ RLIMIT_NPROC, (unsigned long long)sb->nproc };
	out[n].resource = -1;
}

int
mc_sandbox_enforce(const struct mc_sandbox *sb, char *err, size_t errsz)
{
	if (sb->ruleset == -1 && !sb->filter)
		return 0;
	/* Needed by both, and what an unprivileged process must promise:
	 * no set-user-ID program it runs gains privileges. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		snprintf(err, errsz, "prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(errno));
		return -1;
	}
	if (sb->ruleset != -1 && syscall(SYS_landlock_restrict_self, sb->ruleset, 0) == -1) {
		snprintf(err, errsz, "landlock_restrict_self: %s", strerror(errno));
		return -1;
	}
	if (sb->filter && install_filter(sb->w.network) == -1) {
		snprintf(err, errsz, "seccomp: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void
mc_sandbox_free(struct mc_sandbox *sb)
{
	size_t i;

	if (sb->ruleset != -1)
		close(sb->ruleset);
	for (i = 0; i < sb->npaths; i++)
		free(sb->left_out[i]);
	free(sb->left_out);
	*sb = (struct mc_sandbox){ .ruleset = -1 };
}
