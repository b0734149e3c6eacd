/* proc.h: run a command in its own process group with a timeout, output collected. */
#ifndef MC_PROC_H
#define MC_PROC_H

#include "child.h"
#include "clip.h"

struct mc_proc {
	int status;		/* wait status of the command, when reaped */
	int reaped;		/* status is valid */
	int timed_out;		/* the timeout expired; the group was killed */
	int interrupted;	/* the signal, SIGINT, SIGTERM or SIGHUP, that reached
				 * us (0: none); the group was killed */
	int leftovers;		/* processes left when the command ended were stopped */
	int exec_err;		/* errno of a failed exec (0: it ran) */
};

/* What a command gets besides its arguments. */
struct mc_proc_in {
	char *const *envp;	/* its environment; NULL: this process's */
	const char *data;	/* written to its stdin, which is then closed;
				 * NULL: stdin is /dev/null */
	size_t len;
	const struct mc_child_limit *limits;	/* set in the command; NULL: none */
	/* Given each chunk of output as it is read, besides the collectors
	 * (NULL: nothing is). */
	void (*tap)(void *arg, const char *p, size_t n);
	void *tap_arg;
};

/*
 * Run the program at path (no PATH search, no shell) with arguments argv
 * (argv[0] is the name it sees), the environment and stdin of in (NULL:
 * ours, and /dev/null; data the command does not read is dropped when it
 * ends, SIGPIPE ignored meanwhile), in a new session
 * (so a new process group, and no controlling terminal), its signal
 * dispositions reset to the defaults.
 * stdout goes to out; stderr to err, or to out as well when err is NULL.
 * When the command ends, or after timeout_s seconds, or on SIGINT, SIGTERM
 * or SIGHUP to this process, everything it started gets SIGTERM and, after
 * a short grace, SIGKILL, and is reaped: nothing is left behind. That
 * includes processes that left the group or session: this process becomes
 * a child subreaper, so they are orphaned to it as their parents die.
 * Should this process be killed with SIGKILL meanwhile, a guard process
 * ends the command's group (not what escaped it). Children this process
 * had before are left alone. Returns 0, or -1 with
 * errno when the command could not be started at all.
 */
int mc_proc_run(const char *path, char *const argv[], const struct mc_proc_in *in,
    unsigned timeout_s, struct mc_clip *out, struct mc_clip *err, struct mc_proc *r);

/* The first executable NAME in an absolute entry of $PATH (an empty or
 * relative one is skipped), malloc'ed, or NULL. */
char *mc_proc_which(const char *name);

/* NAME in the directory of this process's own executable when it is
 * executable there, else the first on $PATH; malloc'ed, or NULL. */
char *mc_proc_sibling(const char *name);

#endif
