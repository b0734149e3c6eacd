/* pipeline.h: running the suite's programs as child processes joined by pipes. */
#ifndef MC_PIPELINE_H
#define MC_PIPELINE_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#define MC_PIPELINE_MAX 4

struct mc_pipeline {
	size_t n;			/* stages started */
	pid_t pid[MC_PIPELINE_MAX];
	const char *name[MC_PIPELINE_MAX];	/* argv[0] of each stage */
	int status[MC_PIPELINE_MAX];	/* wait status once reaped */
};

/*
 * Start the n commands argvs[0..n-1] (each NULL-terminated, argv[0] the
 * program's name, found beside this executable or else on PATH), the
 * stdout of each connected to the stdin of the next. The first reads
 * in_fd; the last writes out_fd, or when out_fd is -1 a new pipe whose
 * read end is stored in *rd. The children get the default disposition
 * of SIGPIPE, SIGINT and the other job signals, an empty signal mask and
 * stderr as it is. Returns 0, or -1 with a one-line reason in err (the
 * stages already started are then reaped).
 */
int mc_pipeline_start(struct mc_pipeline *p, char *const *const argvs[], size_t n,
    int in_fd, int out_fd, int *rd, char *err, size_t errsz);

/*
 * Start one more stage of p (zeroed before the first), reading in_fd and
 * writing out_fd, or when out_fd is -1 a new pipe whose read end is stored
 * in *rd. The caller's fds stay open. Returns 0, or -1 with a one-line
 * reason in err (the stages already started keep running).
 */
int mc_pipeline_add(struct mc_pipeline *p, char *const argv[], int in_fd, int out_fd, int *rd,
    char *err, size_t errsz);

/* Send sig to every stage still running. */
void mc_pipeline_kill(struct mc_pipeline *p, int sig);

/*
 * Reap every stage. Returns the index of the first stage that did not
 * exit 0 (its wait status in p->status), or -1 when all succeeded.
 */
int mc_pipeline_wait(struct mc_pipeline *p);

/*
 * A one-line reason for a stage that ended without printing its own
 * message (killed by a signal), else NULL: a stage that exited non-zero
 * has already said why on stderr.
 */
const char *mc_pipeline_strstatus(int status, char *buf, size_t bufsz);

#endif

/*
 * Running one program as a filter: in[0..inlen) is written to its stdin
 * while its stdout is read, both through poll(2), so neither side can
 * block the other whatever the sizes.
 */
struct mc_filter {
	const char *in;		/* fed to stdin, which is then closed */
	size_t inlen;
	/* Each chunk of stdout; returning -1 stops the program (SIGTERM)
	 * and the rest of its output is drained unread. */
	int (*out)(void *arg, const char *p, size_t n);
	/* Called every tick_ms while no output arrives (NULL: never). */
	void (*tick)(void *arg);
	int tick_ms;
	void *arg;
	/* When *stop becomes non-zero, the program is sent SIGINT once. */
	volatile sig_atomic_t *stop;
	/* The program's stderr; 0 (never a sensible one): ours. */
	int err_fd;
};

/*
 * Run argv as a filter. *status is the program's wait status. Returns 0
 * when it ran (whatever its status), -1 with err when it could not start.
 */
int mc_filter_run(char *const argv[], const struct mc_filter *f, int *status,
    char *err, size_t errsz);
