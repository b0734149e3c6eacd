/* sandbox.h: confining this process and all it starts: Landlock, a seccomp filter, namespaces and limits. */
#ifndef MC_SANDBOX_H
#define MC_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

#include "child.h"

/* What the sandbox should leave open. */
struct mc_sandbox_want {
	const char *const *writable;	/* absolute paths: directories (writable
					 * beneath) or files; NULL-terminated */
	int network;			/* 1: leave the network alone */
	const char *git;		/* the repository's .git (directory or file),
					 * to be read-only; NULL: none */
	long processes;			/* at most this many at once; 0: no limit */
	long memory_mb;			/* address space per process, MiB; 0: none */
	long file_mb;			/* size of a file written, MiB; 0: none */
};

enum mc_sandbox_rule {
	MC_SANDBOX_WRITES,	/* only beneath the writable paths */
	MC_SANDBOX_TCP,		/* no TCP bind or connect */
	MC_SANDBOX_UDP,		/* no UDP, nor any socket but AF_UNIX and AF_NETLINK */
	MC_SANDBOX_UNIX,	/* no AF_UNIX connection out of the sandbox */
	MC_SANDBOX_TERMINALS,	/* no terminal of the user's: none opened, none typed into */
	MC_SANDBOX_PROC,	/* no other process's /proc entries */
	MC_SANDBOX_GIT,		/* the repository's .git is read-only */
	MC_SANDBOX_PROCESSES,	/* tools.sandbox.limits.processes */
	MC_SANDBOX_MEMORY,	/* tools.sandbox.limits.memory_mb */
	MC_SANDBOX_FILE,	/* tools.sandbox.limits.file_mb */
	MC_SANDBOX_SIGNALS,	/* signals only to processes inside the sandbox */
	MC_SANDBOX_NRULES
};

struct mc_sandbox {
	int abi;		/* Landlock ABI of this kernel; 0: none */
	int ruleset;		/* the Landlock ruleset ready to enforce, or -1 */
	int filter;		/* the seccomp filter is to be installed */
	int ns;			/* the namespaces are to be made */
	long nproc;		/* RLIMIT_NPROC for the command, or 0 */
	int on[MC_SANDBOX_NRULES];	/* what mc_sandbox_enforce will enforce */
	char why[MC_SANDBOX_NRULES][256];	/* for each rule, one line: what and how, or why not */
	char **left_out;	/* for each writable path, why it was left out, or NULL */
	size_t npaths;
	struct mc_sandbox_want w;	/* as prepared; the strings are borrowed */
};

/*
 * Find out what this kernel can enforce of w and make it ready: the
 * Landlock ruleset is built (each writable path opened and added; why one
 * cannot be is in sb->left_out) and the rules that will be enforced
 * are set in sb->on, with sb->why saying how or why not. Nothing about this
 * process changes yet. The rules that rest on namespaces (terminals,
 * /proc, .git, processes) are taken to hold until mc_sandbox_probe or
 * mc_sandbox_enter tries them. Free sb with mc_sandbox_free; w's strings
 * must outlive it.
 */
void mc_sandbox_prepare(struct mc_sandbox *sb, const struct mc_sandbox_want *w);

/*
 * Try the namespaces as mc_sandbox_enter would, in a child that then
 * exits, and set sb->on and sb->why of the rules that rest on them from
 * what it found: what a report shows. Costs a few milliseconds.
 */
void mc_sandbox_probe(struct mc_sandbox *sb);

/*
 * Move this process into new user, mount and PID namespaces, where the
 * command's rules hold (see mc_sandbox_probe). The process forks: in the
 * child, PID 1 of the namespace, this returns 0, and the caller goes on
 * with its work there (mounts made, limits set; sb->on and sb->why say
 * what holds of the rules that rest on namespaces). In the parent it
 * returns the child's pid: the caller then waits with mc_sandbox_wait and
 * ends with the child's status, doing nothing else. Where no namespace
 * can be made it returns 0 in this same process, with those rules off and
 * why in sb->why. Standard streams are flushed first. -1 with errno when
 * fork fails.
 */
pid_t mc_sandbox_enter(struct mc_sandbox *sb);

/* In the parent of mc_sandbox_enter: pass SIGINT, SIGTERM and SIGHUP on to
 * child, wait for it, and return its wait status. */
int mc_sandbox_wait(pid_t child);

/*
 * Enforce the rest of what sb->on says on this process and everything it
 * starts from now on (no_new_privs, the Landlock domain, the seccomp
 * filter): files already open stay usable; only what is opened afterwards
 * is checked. There is no way back. Returns 0, or -1 with a one-line
 * reason in err (a rule could not be enforced after all; the process may
 * then be partly confined).
 */
int mc_sandbox_enforce(const struct mc_sandbox *sb, char *err, size_t errsz);

/* The limits of sb for the command itself, set as it starts (not in
 * this process: a sanitizer build of it reserves terabytes of address
 * space): RLIMIT_AS, RLIMIT_FSIZE and, where the PID namespace cannot
 * bound processes, RLIMIT_NPROC; ended by resource -1. */
void mc_sandbox_limits(const struct mc_sandbox *sb, struct mc_child_limit out[4]);

/* For sandbox-ns.c: path (mounted since mc_sandbox_prepare) is writable
 * too. 0, or -1 with errno. */
int mc_sandbox_allow(const struct mc_sandbox *sb, const char *path);

void mc_sandbox_free(struct mc_sandbox *sb);

#endif
