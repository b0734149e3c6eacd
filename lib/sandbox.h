/* sandbox.h: confining this process and all it starts: Landlock for writes, TCP and signals, a seccomp filter on socket(). */
#ifndef MC_SANDBOX_H
#define MC_SANDBOX_H

#include <stddef.h>

/* What the sandbox should leave open. */
struct mc_sandbox_want {
	const char *const *writable;	/* absolute paths: directories (writable
					 * beneath) or files; NULL-terminated */
	int network;			/* 1: leave the network alone */
};

enum mc_sandbox_rule {
	MC_SANDBOX_WRITES,	/* only beneath the writable paths */
	MC_SANDBOX_TCP,		/* no TCP bind or connect */
	MC_SANDBOX_UDP,		/* no UDP, nor any socket but AF_UNIX and AF_NETLINK */
	MC_SANDBOX_SIGNALS,	/* signals only to processes inside the sandbox */
	MC_SANDBOX_NRULES
};

struct mc_sandbox {
	int abi;		/* Landlock ABI of this kernel; 0: none */
	int ruleset;		/* the Landlock ruleset ready to enforce, or -1 */
	int filter;		/* the seccomp filter is to be installed */
	int on[MC_SANDBOX_NRULES];	/* what mc_sandbox_enforce will enforce */
	char why[MC_SANDBOX_NRULES][256];	/* for each rule, one line: what and how, or why not */
	char **left_out;	/* for each writable path, why it was left out, or NULL */
	size_t npaths;
};

/*
 * Find out what this kernel can enforce of w and make it ready: the
 * Landlock ruleset is built (each writable path opened and added; why one
 * cannot be is in sb->left_out) and the rules that will be enforced
 * are set in sb->on, with sb->why saying how or why not. Nothing about this
 * process changes yet: this is what a report shows, and what
 * mc_sandbox_enforce then applies. Free sb with mc_sandbox_free.
 */
void mc_sandbox_prepare(struct mc_sandbox *sb, const struct mc_sandbox_want *w);

/*
 * Enforce what sb->on says on this process and everything it starts from
 * now on (no_new_privs, the Landlock domain, the seccomp filter): files
 * already open stay usable; only what is opened afterwards is checked.
 * There is no way back. Returns 0, or -1 with a one-line reason in err
 * (a rule could not be enforced after all; the process may then be
 * partly confined).
 */
int mc_sandbox_enforce(const struct mc_sandbox *sb, char *err, size_t errsz);

void mc_sandbox_free(struct mc_sandbox *sb);

#endif
