/* child.h: starting a child process, the one way the suite does it. */
#ifndef MC_CHILD_H
#define MC_CHILD_H

#include <stddef.h>
#include <sys/types.h>

enum {
	MC_CHILD_PGROUP = 1 << 0,	/* a process group of its own */
	MC_CHILD_SETSID = 1 << 1,	/* a session of its own (no controlling terminal) */
	MC_CHILD_PDEATH = 1 << 2,	/* SIGKILL when the process that started it dies */
	MC_CHILD_SUITE = 1 << 3,	/* argv[0] is one of the suite's programs: found
					 * beside this executable first, then on PATH */
	MC_CHILD_CLOSE = 1 << 4,	/* every descriptor from 3 up is closed in the
					 * child, close-on-exec or not, except keep */
	MC_CHILD_PDEATH_TERM = 1 << 5,	/* SIGTERM, not SIGKILL, when the process that
					 * started it dies: it has children to end */
};

/* A resource limit set in the child before it runs the program (soft and
 * hard alike); a list of them ends with resource -1. */
struct mc_child_limit {
	int resource;		/* RLIMIT_AS, ... */
	unsigned long long value;
};

struct mc_child {
	const char *path;	/* the program; NULL: argv[0] looked up on PATH
				 * (or beside us, with MC_CHILD_SUITE) */
	char *const *argv;
	char *const *envp;	/* NULL: this process's environment */
	int fd[3];		/* the child's stdin, stdout, stderr; -1: as they are here */
	const int *keep;	/* more descriptors the child keeps open under their
				 * own numbers, ended by -1; NULL: none */
	const struct mc_child_limit *limits;	/* NULL: none */
	int flags;
};

/*
 * Start a child as sp says. It gets the default disposition of every
 * signal this suite catches or ignores (the reset list in child.c) and an empty
 * signal mask; every other descriptor of ours marked close-on-exec stays
 * out of it. Returns the child's pid, or -1 with errno set (ENOENT when
 * the program is not found) and a one-line reason in err ("NAME: not
 * found beside mc or on PATH", "NAME: cannot run: ...").
 */
pid_t mc_child_start(const struct mc_child *sp, char *err, size_t errsz);

/* Start sp (its fd[0] and fd[1] are set here) talking through two new
 * pipes: *wr is its stdin, *rd its stdout, both close-on-exec here. As
 * mc_child_start otherwise. */
pid_t mc_child_start_piped(struct mc_child *sp, int *wr, int *rd, char *err, size_t errsz);

/* Reap pid, going on after EINTR. Returns its wait status (127 << 8
 * when it cannot be had). */
int mc_child_wait(pid_t pid);

#endif
