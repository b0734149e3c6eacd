/* pager.c: long text for the terminal (/prompt) through $PAGER, or less, so that it does not scroll past. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "diag.h"
#include "fsread.h"
#include "mc.h"
#include "proc.h"
#include "term.h"

/*
 * Show p (n bytes) through the pager when stdout is a terminal: $PAGER
 * run by the shell, else less when it is installed; otherwise, or when
 * the pager cannot start, as show() does. The text is filtered for the
 * terminal first, as show() filters it: it comes from files.
 */
void
page(struct driver *d, const char *p, size_t n)
{
	const char *pager = getenv("PAGER");
	char *argv[] = { "sh", "-c", (char *)pager, NULL }, *less = NULL, err[256];
	struct mc_child c = { .argv = argv, .fd = { -1, -1, -1 } };
	struct mc_term t = {0};
	struct mc_buf b = {0};
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	int fds[2];
	pid_t pid;

	if (!d->t.out || ((pager == NULL || *pager == '\0') && (less = mc_proc_which("less")) == NULL)) {
		show(d, p, n);
		return;
	}
	if (less != NULL) {
		c.path = less;
		argv[0] = "less";
		argv[1] = NULL;
	}
	mc_term_filter(&t, p, n, &b);
	mc_term_flush(&t, &b);
	fflush(stdout);
	if (pipe2(fds, O_CLOEXEC) == -1) {
		mc_err("pipe: %s", strerror(errno));
		mc_buf_free(&b);
		free(less);
		return;
	}
	c.fd[0] = fds[0];
	if ((pid = mc_child_start(&c, err, sizeof err)) == -1) {
		mc_err("%s", err);
		close(fds[0]);
		close(fds[1]);
		fwrite(b.data, 1, b.len, stdout);
	} else {
		close(fds[0]);
		/* A pager left before the end (q) is no error. */
		sigaction(SIGPIPE, &ign, &old);
		if (b.len > 0)
			(void)mc_write_all(fds[1], b.data, b.len);
		close(fds[1]);
		mc_child_wait(pid);
		sigaction(SIGPIPE, &old, NULL);
	}
	mc_buf_free(&b);
	free(less);
}
