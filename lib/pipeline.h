/* pipeline.h: running the suite's programs as child processes joined by pipes. */
#ifndef MC_PIPELINE_H
#define MC_PIPELINE_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "buf.h"

#define MC_PIPELINE_MAX 4

struct mc_pipeline {
	size_t n;			/* stages started */
	pid_t pid[MC_PIPELINE_MAX];
	const char *name[MC_PIPELINE_MAX];	/* argv[0] of each stage */
	int status[MC_PIPELINE_MAX];	/* wait status once reaped */
	char *const *envp;		/* the environment of the stages added from
					 * now on (mc_pipeline_add); NULL: ours */
};

/*
 * Start the n commands argvs[0..n-1] (each NULL-terminated, argv[0] the
 * program's name, found beside this executable or else on PATH), the
 * stdout of each connected to the stdin of the next. The first reads
 * in_fd; the last writes out_fd, or when out_fd is -1 a new pipe whose
 * read end is stored in *rd. The children get the default disposition
 * of SIGPIPE, SIGINT and the other job signals, an empty signal mask and
 * stderr as it is, and die with this process, even when it is killed
 * with SIGKILL (PR_SET_PDEATHSIG; mc_filter_start's program too), so that
 * no stage goes on alone: mc-compact's paid request, say. Returns 0, or -1 with a one-line reason in err (the
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

/*
 * More input for a filter than its stdin: p[0..n) written to a pipe whose
 * read end the program has as descriptor fd (name it to the program as
 * /dev/fd/FD). mc_feed_open makes the pipe; the filter's run closes both
 * ends.
 */
struct mc_feed {
	const char *p;
	size_t n;
	int fd;			/* the read end, as the program sees it */
	int wr;			/* the write end */
};
/* 0, or -1 with a one-line reason in err. */
int mc_feed_open(struct mc_feed *f, char *err, size_t errsz);

/*
 * Running one program as a filter: in[0..inlen) and each feed are written
 * while its stdout is read, all through poll(2), so no side can block
 * another whatever the sizes.
 */
struct mc_filter {
	const char *in;		/* fed to stdin, which is then closed */
	size_t inlen;
	struct mc_feed *feeds;	/* more inputs (made with mc_feed_open), or NULL */
	size_t nfeeds;
	/* Each chunk of stdout; returning -1 stops the program (SIGTERM)
	 * and the rest of its output is drained unread. */
	int (*out)(void *arg, const char *p, size_t n);
	/* Or, with out NULL, stdout gathered in collect; past cap bytes the
	 * program is stopped in the same way, and the length tells the caller. */
	struct mc_buf *collect;
	size_t cap;
	/* Called every tick_ms while no output arrives (NULL: never). */
	void (*tick)(void *arg);
	int tick_ms;
	void *arg;
	/* When *stop becomes non-zero, the program is sent SIGINT once. */
	volatile sig_atomic_t *stop;
	/* The program's stderr; 0 (never a sensible one): ours. */
	int err_fd;
	/* The program's environment; NULL: ours. */
	char *const *envp;
	/* set by mc_filter_start */
	pid_t pid;
	int inw, outr;
};

/*
 * Start argv as a filter; in, inlen and the feeds' data may still be set
 * until mc_filter_finish, which writes them, reads the output and reaps
 * the program (*status: its wait status). Each returns 0, or -1 with err
 * when the program could not start; after a failed start the feeds are
 * closed.
 */
int mc_filter_start(char *const argv[], struct mc_filter *f, char *err, size_t errsz);
void mc_filter_finish(struct mc_filter *f, int *status);
/* Both at once. */
int mc_filter_run(char *const argv[], struct mc_filter *f, int *status,
    char *err, size_t errsz);

#endif
