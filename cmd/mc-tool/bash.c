/* bash.c: the bash tool: /bin/sh -c in its own process group, with the tool environment, in the sandbox. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "clip.h"
#include "json.h"
#include "mc-tool.h"
#include "proc.h"
#include "toolenv.h"

/* A chunk of the command's output, to --progress-out: what the pipe has
 * no room for now is dropped there (the output itself keeps it). */
static void
progress(void *arg, const char *p, size_t n)
{
	const struct call *c = arg;

	if (c->progress != -1)
		(void)!write(c->progress, p, n);
}

void
tool_bash(struct call *c)
{
	const char *cmd = arg_str(c, "command");
	long timeout = arg_int(c, "timeout_s", TOOL_TIMEOUT);
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	struct mc_child_limit limits[4];
	struct mc_clip out;
	struct mc_proc r;
	char **env, *text;
	size_t len;
	int rc;

	env = mc_toolenv(c->s, NULL);
	if (sandbox_enter(c, env, limits) == -1) {
		mc_env_free(env);
		return;
	}
	mc_clip_init(&out, MC_CLIP_MAX - 512);
	rc = mc_proc_run("/bin/sh", argv, &(struct mc_proc_in){ .envp = env, .limits = limits,
	    .tap = progress, .tap_arg = c }, (unsigned)timeout,
	    &out, NULL, &r);
	mc_env_free(env);
	if (rc == -1) {
		mc_clip_free(&out);
		if (errno == E2BIG)
			say(c, "error: the command is %zu bytes, over the system's limit for one argument; "
			    "use write to put long text or a script in a file, then run that\n", strlen(cmd));
		else
			say(c, "error: cannot run /bin/sh: %s\n", strerror(errno));
		return;
	}
	text = mc_clip_finish(&out, &len);
	if (len == 0)
		say(c, "(no output)\n");
	else {
		mc_buf_add(&c->out, text, len);
		if (text[len - 1] != '\n')
			mc_buf_addc(&c->out, '\n');
	}
	/* Before the status line, which stays last. */
	if (r.reaped)
		sandbox_explain(c, text != NULL ? text : "", r.status);
	if (r.timed_out)
		say(c, "[timed out after %ld s: the command and every process it started were killed]\n", timeout);
	else if (r.interrupted) {
		say(c, "[interrupted by the user: the command and every process it started were killed]\n");
		c->interrupted = 1;
	} else if (r.reaped && WIFEXITED(r.status))
		say(c, "[exit status %d]\n", WEXITSTATUS(r.status));
	else if (r.reaped && WIFSIGNALED(r.status))
		say(c, "[killed by signal %d (%s)]\n", WTERMSIG(r.status), strsignal(WTERMSIG(r.status)));
	if (r.leftovers)
		say(c, "[processes still running in the background when the command ended were stopped]\n");
	free(text);
}
