/* proc.c: unit tests for lib/proc.c: the command starts through mc_child_start with what mc_proc_run promises. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clip.h"
#include "proc.h"

static int failures;

/* Run sh -c script; its stdout (stderr to err when err_too). */
static char *
run(const char *script, int err_too, char **err, struct mc_proc *r)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	struct mc_clip out, e;
	char *text;

	mc_clip_init(&out, 4096);
	mc_clip_init(&e, 4096);
	if (mc_proc_run("/bin/sh", argv, NULL, 10, &out, err_too ? &e : NULL, r) == -1) {
		printf("proc: %s: could not run: %s\n", script, strerror(errno));
		failures++;
	}
	text = mc_clip_finish(&out, NULL);
	if (err != NULL)
		*err = mc_clip_finish(&e, NULL);
	mc_clip_free(&e);
	return text;
}

static void
expect(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) != 0) {
		printf("proc: %s: got \"%s\", want \"%s\"\n", what, got, want);
		failures++;
	}
}

int
main(void)
{
	struct mc_proc r;
	struct mc_clip c;
	char *argv[] = { "missing", NULL }, *out, *err;
	int fd;

	/* A descriptor we hold without close-on-exec stays out of the command. */
	if ((fd = open("/dev/null", O_RDONLY)) == -1 || dup2(fd, 9) == -1) {
		printf("proc: cannot set up descriptor 9\n");
		return 1;
	}
	out = run("if [ -e /proc/self/fd/9 ]; then echo open; else echo closed; fi", 0, NULL, &r);
	expect("inherited descriptor 9", out, "closed\n");
	free(out);
	close(9);
	close(fd);

	/* stdin is /dev/null, never ours. */
	out = run("cat; echo end", 0, NULL, &r);
	expect("stdin", out, "end\n");
	free(out);

	/* A session of its own: the command leads it. */
	out = run("set -- $(cut -d' ' -f1,6 /proc/$$/stat); [ \"$1\" = \"$2\" ] && echo leader", 0,
	    NULL, &r);
	expect("own session", out, "leader\n");
	free(out);

	/* stdout and stderr apart, or both into out; the exit status kept. */
	out = run("echo out; echo err >&2; exit 3", 1, &err, &r);
	expect("stdout", out, "out\n");
	expect("stderr", err, "err\n");
	if (!r.reaped || !WIFEXITED(r.status) || WEXITSTATUS(r.status) != 3) {
		printf("proc: exit status: not 3\n");
		failures++;
	}
	free(out);
	free(err);
	out = run("echo out; echo err >&2", 0, NULL, &r);
	expect("merged", out, "out\nerr\n");
	free(out);

	/* The environment and stdin given: a whole MiB read back, more than a
	 * pipe holds, so it is written while the output is read. */
	{
		char *envp[] = { "ONLY=this", NULL }, *sh[] = { "sh", "-c", NULL, NULL }, want[64];
		struct mc_buf big = {0};
		size_t k;

		for (k = 0; k < (1u << 20) / 16; k++)
			mc_buf_adds(&big, "0123456789abcde\n");
		sh[2] = "echo \"$ONLY ${HOME:-nohome}\"; wc -c";
		mc_clip_init(&c, 4096);
		if (mc_proc_run("/bin/sh", sh, &(struct mc_proc_in){ envp, big.data, big.len }, 10,
		    &c, NULL, &r) == -1)
			failures++;
		out = mc_clip_finish(&c, NULL);
		snprintf(want, sizeof want, "this nohome\n%zu\n", big.len);
		expect("envp and a MiB of stdin", out, want);
		free(out);

		/* A command that reads none of it ends at once, and the rest
		 * is dropped: no SIGPIPE here, no hang. */
		sh[2] = "exit 2";
		mc_clip_init(&c, 4096);
		if (mc_proc_run("/bin/sh", sh, &(struct mc_proc_in){ NULL, big.data, big.len }, 10,
		    &c, NULL, &r) == -1 || !r.reaped || !WIFEXITED(r.status) ||
		    WEXITSTATUS(r.status) != 2 || r.timed_out) {
			printf("proc: unread stdin: not exit 2 in time\n");
			failures++;
		}
		mc_clip_free(&c);
		mc_buf_free(&big);

		/* Empty data: stdin is at its end. */
		sh[2] = "cat; echo end";
		mc_clip_init(&c, 4096);
		if (mc_proc_run("/bin/sh", sh, &(struct mc_proc_in){ NULL, "", 0 }, 10, &c, NULL,
		    &r) == -1)
			failures++;
		out = mc_clip_finish(&c, NULL);
		expect("empty stdin", out, "end\n");
		free(out);
	}

	/* A program that cannot be run: -1 with errno, and exec_err. */
	mc_clip_init(&c, 4096);
	if (mc_proc_run("/nonexistent/missing", argv, NULL, 10, &c, NULL, &r) != -1 ||
	    errno != ENOENT || r.exec_err != ENOENT) {
		printf("proc: a missing program: not -1 with ENOENT\n");
		failures++;
	}
	mc_clip_free(&c);
	return failures != 0;
}
