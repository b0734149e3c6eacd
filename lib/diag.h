/* diag.h: diagnostics, exit statuses and process start-up shared by every program. */
#ifndef MC_DIAG_H
#define MC_DIAG_H

#include <stdarg.h>
#include <stddef.h>

enum {
	MC_EXIT_OK = 0,
	MC_EXIT_FAIL = 1,	/* runtime failure: I/O, network, bad input */
	MC_EXIT_USAGE = 2,	/* bad flags or arguments, before any side effect */
	MC_EXIT_INCOMPLETE = 3,	/* mc: the answer or the run stopped short (SPEC §10) */
	MC_EXIT_TIMEOUT = 124,	/* mc: the run took over --timeout (as timeout(1)) */
	MC_EXIT_INTR = 130,	/* interrupted by SIGINT */
};

extern const char *mc_progname;
extern int mc_quiet;		/* -q: no warnings on stderr */

/* Set the program name (argv[0] too, which getopt names in its messages,
 * so they read "PROG: ..." however the program was started), make sure fds
 * 0-2 are open, and make SIGPIPE end the program quietly with status 0 (a
 * handler: exec restores the default; a program that writes to pipes other
 * than stdout sets SIG_IGN itself). */
void mc_init(const char *progname, char *argv[]);

/* "PROG: message" on stderr; control characters in the message are shown
 * escaped, since parts of it may come from files or the network. */
void mc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PROG: warning: message", unless mc_quiet. */
void mc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "PROG: message": something the user should know that is neither an
 * error nor a warning of the program (mc: a refused call). */
void mc_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* When set, called with each message mc_err prints (as printed,
 * sanitized): mc --json mirrors the errors of its run as events. Warnings,
 * notes and usage errors stay on stderr alone. */
extern void (*mc_diag_hook)(const char *msg);

/* Copy src into dst (size dstsz) with control characters and invalid
 * UTF-8 replaced: for text shown on a terminal. Returns dst. */
char *mc_sanitize(char *dst, size_t dstsz, const char *src);

/* Print "PROG: --help for usage" style error and return MC_EXIT_USAGE. */
int mc_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The value of a numeric option, from lo to hi; anything else is a usage
 * error said here ("NAME: ARG is too large (LO to HI)"), and *bad is set. */
long long mc_opt_num(const char *name, const char *arg, long long lo, long long hi, int *bad);

/* getopt_long value of every program's --version. */
#define MC_OPT_VERSION 0x7f00

/* The end of every program's option switch: -h prints the usage on stdout,
 * --version the version (both status 0); anything else is a bad option,
 * already named by getopt_long (status 2). Returns the status to exit with. */
int mc_opt_exit(int c, const char *usage);

/* The one answer to running out of memory: "PROG: out of memory" and
 * exit status 1. Allocating functions of lib/ call it, so their callers
 * never check for failure. */
void mc_oom(void) __attribute__((noreturn));

/* strdup, or mc_oom; NULL for NULL. */
char *mc_strdup(const char *s);
/* strndup, or mc_oom. */
char *mc_strndup(const char *s, size_t n);

/* Flush and close stdout; report a failed write. A reader that went away
 * (EPIPE) is not an error. Returns the status to exit with. */
int mc_finish(int status);

#endif
