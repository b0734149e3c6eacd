/* subrun.c: the subagents' children: started in their slots, their events and stderr read, cancelled, reaped. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"
#include "diag.h"
#include "json.h"
#include "subagents.h"
#include "toolenv.h"

#define ERROR_MAX 1024			/* a child's last error event, kept */
#define CANCEL_GRACE_MS 5000		/* a cancelled child's time to end its run */
#define TICK_MS 250
#define SLOT_RETRY_MS 50		/* a queued task looks for a free slot so often */

static void
push(char ***v, size_t *n, const char *s)
{
	char **g;

	if ((g = reallocarray(*v, *n + 2, sizeof **v)) == NULL)
		mc_oom();
	g[(*n)++] = (char *)s;
	g[*n] = NULL;
	*v = g;
}

/*
 * The child's command line: mc --json, the roles (its ancestors', this
 * run's, its own), the parent session, what may run without asking, the
 * provider and model, this run's limits, then the prompt.
 */
static char **
child_argv(const struct driver *d, const struct task *t, char *steps, size_t stepsz,
    const char *slot_fd)
{
	const cJSON *e;
	char **v = NULL;
	size_t n = 0;
	int i;

	push(&v, &n, "mc");
	push(&v, &n, "--json");
	for (i = 0; i < d->c.depth; i++) {
		push(&v, &n, "--subagent");
		push(&v, &n, d->c.subagent[i]);
	}
	push(&v, &n, "--subagent");
	push(&v, &n, t->agent);
	if (d->s.file.id != NULL && !d->c.no_session) {
		push(&v, &n, "--parent");
		push(&v, &n, d->s.file.id);
	}
	/* modes.c: the mode the parent is in now, never the settings' */
	push(&v, &n, "--mode");
	push(&v, &n, mode_name(d->mode.now));
	for (i = 0; i < d->c.nadd_dir; i++) {
		push(&v, &n, "--add-dir");
		push(&v, &n, d->c.add_dir[i]);
	}
	if (d->c.slots != NULL) {
		push(&v, &n, "--slots");
		push(&v, &n, d->c.slots);
	}
	if (slot_fd != NULL) {
		push(&v, &n, "--slot-fd");
		push(&v, &n, slot_fd);
	}
	/* what this run may do without asking; past what a child takes, the
	 * rest are refused to it, never allowed */
	for (i = 0; i < d->c.nallow; i++) {
		push(&v, &n, "--allow");
		push(&v, &n, d->c.allow[i]);
	}
	cJSON_ArrayForEach(e, d->s.always) {
		if (i++ == MC_ALLOW_MAX)
			break;
		push(&v, &n, "--allow");
		push(&v, &n, e->valuestring);
	}
	if (d->s.provider) {
		push(&v, &n, "-p");
		push(&v, &n, d->s.provider);
	}
	if (t->model || d->s.model) {
		push(&v, &n, "-m");
		push(&v, &n, t->model ? t->model : d->s.model);
	}
	snprintf(steps, stepsz, "%lld", d->c.max_steps);
	push(&v, &n, "--max-steps");
	push(&v, &n, steps);
	if (d->c.max_output) {
		push(&v, &n, "--max-output-tokens");
		push(&v, &n, d->c.max_output);
	}
	if (d->c.reasoning) {
		push(&v, &n, "--reasoning");
		push(&v, &n, d->c.reasoning);
	}
	if (d->c.keep_going)
		push(&v, &n, "--keep-going");
	if (d->c.no_session)
		push(&v, &n, "--no-session");
	push(&v, &n, "--");
	push(&v, &n, t->prompt);
	return v;
}

static void
set_error(char **dst, const char *msg)
{
	free(*dst);
	*dst = mc_strndup(msg, ERROR_MAX);
}

/*
 * The slot (slots.c) the next task starts in: this run's own when no
 * other child has it, else a free one of the tree. 0 with *fd the slot
 * (-1: the tree is not bounded), or -1 when every slot is taken.
 */
static int
slot_for(struct run *R, int *fd, int *lent)
{
	*lent = R->d->c.slot_fd != -1 && !R->lent;
	*fd = *lent ? R->d->c.slot_fd : slot_take(R->d);
	if (*fd == -2)
		*fd = -1;
	return *fd == -1 && !*lent && !R->d->sub.slots_failed ? -1 : 0;
}

/*
 * Start a task's child in slot fd (-1: none): in the same directory, in
 * a process group of its own (Ctrl-C is ours to pass on), told to end
 * its run should we die, its events and its stderr read through pipes.
 * It alone of our children but mc-send gets the provider keys, for its
 * own mc-send. A slot of the tree is the child's from then on; this
 * run's own comes back when the child ends.
 */
static void
task_start(struct run *R, struct task *t, int fd, int lent)
{
	struct mc_child c = { .fd = { -1, -1, -1 },
	    .flags = MC_CHILD_SUITE | MC_CHILD_PGROUP | MC_CHILD_PDEATH_TERM | MC_CHILD_CLOSE };
	char steps[24], err[256], slot[24], **argv, **env;
	int out[2] = { -1, -1 }, errp[2] = { -1, -1 }, in, keep[2] = { fd, -1 };

	t->state = ENDED;
	R->dirty = 1;
	snprintf(slot, sizeof slot, "%d", fd);
	if ((in = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1 ||
	    pipe2(out, O_CLOEXEC) == -1 || pipe2(errp, O_CLOEXEC) == -1) {
		snprintf(err, sizeof err, "cannot start: %s", strerror(errno));
		set_error(&t->error, err);
		if (in != -1)
			close(in);
		if (out[0] != -1) {
			close(out[0]);
			close(out[1]);
		}
		if (fd != -1 && !lent)
			close(fd);
		return;
	}
	argv = child_argv(R->d, t, steps, sizeof steps, fd != -1 ? slot : NULL);
	env = mc_env_merge(NULL, R->d->c.keys);
	c.argv = argv;
	c.envp = env;
	c.keep = keep;
	c.fd[0] = in;
	c.fd[1] = out[1];
	c.fd[2] = errp[1];
	t->pid = mc_child_start(&c, err, sizeof err);
	mc_env_free(env);
	free(argv);
	close(in);
	close(out[1]);
	close(errp[1]);
	if (fd != -1 && !lent)
		close(fd);
	t->lent = lent && t->pid != -1;
	R->lent |= t->lent;
	if (t->pid == -1) {
		set_error(&t->error, err);
		close(out[0]);
		close(errp[0]);
		return;
	}
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(errp[0], F_SETFL, O_NONBLOCK);
	t->out.fd = out[0];
	t->errfd = errp[0];
	t->state = RUNNING;
	R->running++;
}

/* A new step of the child when an answer begins: said, unless a tool
 * call, which says it, begins it. */
static void
step_seen(struct run *R, struct task *t, int say)
{
	if (t->in_answer)
		return;
	t->in_answer = 1;
	t->steps++;
	R->dirty = 1;
	if (say)
		subshow_event(R, t, "step");
}

/* The answer's text as it comes: the head kept, the length counted. */
static void
answer_text(struct task *t, const char *delta)
{
	size_t n = strlen(delta), room;

	if (t->fresh) {
		t->answer.len = 0;
		t->answer_len = 0;
		t->fresh = 0;
	}
	room = t->answer.len < TASK_OUTPUT_MAX ? TASK_OUTPUT_MAX - t->answer.len : 0;
	mc_buf_add(&t->answer, delta, n < room ? n : room);
	t->answer_len += n;
}

/* One event of a child's run. */
static void
task_event(struct run *R, struct task *t, const cJSON *ev)
{
	const char *type = mc_json_str(ev, "type"), *s;
	const cJSON *u;
	struct usage step;

	if (type == NULL)
		return;
	if (strcmp(type, "session") == 0) {
		if ((s = mc_json_str(ev, "id")) != NULL && t->session == NULL)
			t->session = mc_strdup(s);
		t->started = 1;
		subshow_event(R, t, "start");
	} else if (strcmp(type, "text") == 0 || strcmp(type, "refusal") == 0) {
		step_seen(R, t, 1);
		if (strcmp(type, "text") == 0 && (s = mc_json_str(ev, "delta")) != NULL)
			answer_text(t, s);
	} else if (strcmp(type, "tool_call") == 0) {
		step_seen(R, t, 0);
		free(t->tool);
		t->tool = mc_strdup((s = mc_json_str(ev, "name")) ? s : "?");
		t->fresh = 1;
		R->dirty = 1;
		subshow_event(R, t, "step");
	} else if (strcmp(type, "usage") == 0) {
		step = usage_of(ev);
		usage_add(&t->used, &step);
		t->in_answer = 0;
		t->fresh = 1;
	} else if (strcmp(type, "tool_output") == 0 || strcmp(type, "approval") == 0) {
		t->in_answer = 0;
		t->fresh = 1;
	} else if (strcmp(type, "error") == 0 && (s = mc_json_str(ev, "message")) != NULL) {
		set_error(&t->error, s);
	} else if (strcmp(type, "done") == 0) {
		snprintf(t->reason, sizeof t->reason, "%s",
		    (s = mc_json_str(ev, "reason")) ? s : "error");
		t->steps = mc_json_count(ev, "steps");
		/* its own answers' and its children's */
		if ((u = mc_json_obj(ev, "usage")) != NULL)
			t->used = usage_of(u);
	}
}

/* What the child wrote on stderr: its last ERR_TAIL bytes kept. */
static void
read_err(struct task *t)
{
	char buf[4096];
	ssize_t n;

	while (t->errfd != -1) {
		if ((n = read(t->errfd, buf, sizeof buf)) > 0) {
			mc_buf_add(&t->errtail, buf, (size_t)n);
			if (t->errtail.len > ERR_TAIL) {
				memmove(t->errtail.data, t->errtail.data + t->errtail.len - ERR_TAIL,
				    ERR_TAIL);
				t->errtail.len = ERR_TAIL;
				t->errtail.data[ERR_TAIL] = '\0';
			}
		} else if (n == -1 && errno == EINTR)
			continue;
		else {
			if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
				close(t->errfd);
				t->errfd = -1;
			}
			return;
		}
	}
}

/* The child's events have ended: it is reaped. */
static void
task_end(struct run *R, struct task *t)
{
	close(t->out.fd);
	t->out.fd = -1;
	read_err(t);
	if (t->errfd != -1) {
		close(t->errfd);
		t->errfd = -1;
	}
	t->wstatus = mc_child_wait(t->pid);
	t->state = ENDED;
	if (t->lent)
		R->lent = 0;	/* back with this run */
	R->running--;
	R->dirty = 1;
	if (!t->started)
		subshow_event(R, t, "start");
	subshow_event(R, t, "done");
}

/* The events a child has written so far. */
static void
read_out(struct run *R, struct task *t)
{
	char err[256], *line;
	size_t len;
	cJSON *ev;
	int r;

	for (;;) {
		r = mc_lines_next(&t->out, &line, &len);
		if (r == 1) {
			if ((ev = mc_json_parse(line, len, err, sizeof err)) != NULL)
				task_event(R, t, ev);
			cJSON_Delete(ev);
			continue;
		}
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (r == -1) {
			snprintf(err, sizeof err, "its events: %s",
			    errno == EFBIG ? "a line over the size limit" : strerror(errno));
			set_error(&t->error, err);
			kill(-t->pid, SIGKILL);
		}
		task_end(R, t);
		return;
	}
}

/*
 * Ctrl-C (or SIGTERM, SIGHUP): every running child is told to stop, as
 * the user would tell it, and those queued never start. A child that
 * has not ended its run after CANCEL_GRACE_MS is killed.
 */
static void
cancel(struct run *R)
{
	size_t i;

	if (!R->cancelled) {
		R->cancelled = 1;
		R->cancel_at = mc_clock_ms() + CANCEL_GRACE_MS;
		for (i = 0; i < R->n; i++) {
			if (R->t[i].state == RUNNING) {
				kill(R->t[i].pid, terminated ? SIGTERM : SIGINT);
				R->t[i].killed = 1;
			} else if (R->t[i].state == QUEUED) {
				R->t[i].state = ENDED;
				R->t[i].killed = 1;
				subshow_event(R, &R->t[i], "done");
			}
		}
		R->next = R->n;
		R->dirty = 1;
	} else if (mc_clock_ms() >= R->cancel_at) {
		for (i = 0; i < R->n; i++)
			if (R->t[i].state == RUNNING)
				kill(-R->t[i].pid, SIGKILL);
	}
}

/* Run the tasks, at most R->max at once and each in a slot of the
 * tree, until every one has ended. */
void
subrun_all(struct run *R)
{
	struct pollfd fds[2 * MAX_SUBAGENT_TASKS];
	struct task *who[2 * MAX_SUBAGENT_TASKS];
	size_t i, k;
	int r, fd, lent;

	for (;;) {
		if (interrupted)
			cancel(R);
		R->no_slot = 0;
		while (!R->cancelled && R->running < R->max && R->next < R->n &&
		    !(R->no_slot = slot_for(R, &fd, &lent) == -1))
			task_start(R, &R->t[R->next++], fd, lent);
		subshow_draw(R, 0);
		if (R->running == 0 && R->next == R->n)
			break;
		for (i = k = 0; i < R->n; i++) {
			if (R->t[i].state != RUNNING)
				continue;
			fds[k] = (struct pollfd){ .fd = R->t[i].out.fd, .events = POLLIN };
			who[k++] = &R->t[i];
			if (R->t[i].errfd != -1) {
				fds[k] = (struct pollfd){ .fd = R->t[i].errfd, .events = POLLIN };
				who[k++] = &R->t[i];
			}
		}
		/* Bounded, so that a signal just before it is seen. */
		if ((r = poll(fds, k, R->no_slot ? SLOT_RETRY_MS : R->draw && R->dirty ? DRAW_MS :
		    TICK_MS)) == -1) {
			if (errno != EINTR) {
				mc_err("poll: %s", strerror(errno));
				interrupted = 1;	/* nothing more can be read: end them */
			}
			continue;
		}
		for (i = 0; i < k && r > 0; i++) {
			if (fds[i].revents == 0 || who[i]->state != RUNNING)
				continue;
			if (fds[i].fd == who[i]->errfd)
				read_err(who[i]);
			else
				read_out(R, who[i]);
		}
	}
	subshow_draw(R, 1);
}
