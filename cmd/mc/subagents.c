/* subagents.c: the subagents tool: child mc runs in parallel, their progress and bounded answers; a child's own limits. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"
#include "profile.h"
#include "toolenv.h"
#include "utf8.h"

#define TOOL_NAME "subagents"
#define MAX_SUBAGENT_TASKS 8
#define PARALLEL_DEFAULT 4
#define TASK_OUTPUT_MAX (16u << 10)	/* a task's part of the output */
#define OUTPUT_MAX (64u << 10)		/* the whole output */
#define TASK_PROMPT_MAX (64u << 10)	/* a task's prompt, which goes in argv */
#define ERR_TAIL 2048			/* the end of a child's stderr, kept */
#define ERROR_MAX 1024			/* a child's last error event, kept */
#define CANCEL_GRACE_MS 5000		/* a cancelled child's time to end its run */
#define DRAW_MS 100			/* the progress lines, redrawn at most so often */
#define TICK_MS 250
#define SLOT_RETRY_MS 50		/* a queued task looks for a free slot so often */

/* The subagents tool as the model sees it; agent ids are filled in. */
static const char tool_json[] =
    "{\"name\":\"" TOOL_NAME "\","
    "\"description\":\"Run up to 8 tasks in parallel, each by a child agent with its own "
    "role (one of the subagents listed in <Subagent-Identities>) and its own context. "
    "A child sees none of this conversation: its prompt must say all it needs. It works "
    "in the same directory with the same tools, and may not write, edit or run commands "
    "unless this session could without asking. Returns, for each task, its outcome and "
    "the child's final answer.\","
    "\"parameters\":{\"type\":\"object\",\"properties\":{\"tasks\":{\"type\":\"array\","
    "\"minItems\":1,\"maxItems\":8,\"items\":{\"type\":\"object\",\"properties\":{"
    "\"agent\":{\"type\":\"string\",\"description\":\"the subagent's id\"},"
    "\"prompt\":{\"type\":\"string\",\"description\":\"the task, complete in itself\"}},"
    "\"required\":[\"agent\",\"prompt\"],\"additionalProperties\":false}}},"
    "\"required\":[\"tasks\"],\"additionalProperties\":false}}";

enum state { QUEUED, RUNNING, ENDED };

struct task {
	int n;			/* 1, 2, ... */
	char *agent, *model, *prompt;
	enum state state;
	pid_t pid;
	struct mc_lines out;	/* its events; fd -1 once at its end */
	int errfd;		/* its stderr, or -1 */
	struct mc_buf errtail;
	char *session;		/* its session's id, once it said */
	int started;		/* its start event was given */
	struct mc_buf answer;	/* the head of its last answer's text */
	size_t answer_len;	/* the whole length of that text */
	int fresh;		/* the next text starts a new answer */
	int in_answer;		/* an answer is coming: a step */
	long long steps;
	struct usage used;
	char *tool;		/* the last tool it called */
	char reason[16];	/* its done event's reason, "" without one */
	char *error;		/* its last error event */
	int wstatus;
	int killed;		/* we ended it */
	int lent;		/* it has this run's own slot (slots.c) */
};

struct run {
	struct driver *d;
	struct task t[MAX_SUBAGENT_TASKS];
	size_t n, next, running, max;
	int cancelled;		/* the children were told to stop */
	int lent;		/* this run's own slot is a running child's */
	int no_slot;		/* a task waits for a slot of the tree */
	long long cancel_at;
	int draw;		/* progress lines on the terminal */
	int drawn;		/* lines drawn so far */
	int dirty;
	long long drawn_at;
};

/* The tool's definition, the profiles' ids as the values agent may take. */
static cJSON *
tool_def(const struct mc_profile *v, size_t n)
{
	static const char *const path[] = { "parameters", "properties", "tasks", "items",
	    "properties", "agent" };
	char err[128];
	cJSON *t, *agent;
	size_t i;

	if ((t = mc_json_parse(tool_json, sizeof tool_json - 1, err, sizeof err)) == NULL)
		mc_oom();	/* the text above is JSON */
	for (agent = t, i = 0; i < sizeof path / sizeof path[0]; i++)
		agent = mc_json_obj(agent, path[i]);
	for (i = 0; agent != NULL && i < n; i++)
		mc_json_push(mc_json_arr_ensure(agent, "enum"), mc_json_new_str(v[i].id));
	return t;
}

/*
 * Before the session's stages start: the profiles of this run when it is
 * a subagent (what they disable), and whether the subagents tool is
 * offered: at least one valid profile, below the deepest level, not
 * disabled. 0, or -1 after saying why.
 */
int
subagents_prepare(struct driver *d)
{
	struct mc_profile p, *v;
	char err[1024];
	size_t i, n;
	int k, r;

	for (k = 0; k < d->c.depth; k++) {
		if ((r = mc_profile_load(d->c.set.home, MC_PROFILE_SUBAGENT, d->c.subagent[k], &p,
		    err, sizeof err)) != 0) {
			if (r == 1)
				mc_err("--subagent %s: %s", d->c.subagent[k], err);
			else
				mc_err("%s", err);
			return -1;
		}
		for (i = 0; i < p.ndisabled; i++) {
			if (d->sub.disabled == NULL)
				d->sub.disabled = mc_json_new_obj();
			if (!subagents_blocked(d, p.disabled_tools[i]))
				mc_json_add(d->sub.disabled, p.disabled_tools[i], cJSON_CreateTrue());
		}
		mc_profile_free(&p);
	}
	cJSON_Delete(d->sub.tool);
	d->sub.tool = NULL;
	if (d->c.depth >= MC_SUBAGENT_DEPTH || subagents_blocked(d, TOOL_NAME) ||
	    mc_settings_listed(&d->c.set, "tools.disabled", TOOL_NAME))
		return 0;
	/* mc-render warns about the files that are not profiles. */
	mc_profile_list(d->c.set.home, MC_PROFILE_SUBAGENT, &v, &n, NULL, NULL);
	if (n > 0)
		d->sub.tool = tool_def(v, n);
	mc_profile_list_free(v, n);
	return 0;
}

/* The session's tool list: the subagents tool after the others, and
 * without the tools this subagent's profiles disable. */
int
subagents_tools(struct driver *d)
{
	const char *name;
	cJSON *all, *t, *next;

	if (d->sub.tool == NULL && d->sub.disabled == NULL)
		return 0;
	if ((all = tools_get(d)) == NULL)
		return -1;
	for (t = all->child; t != NULL; t = next) {
		next = t->next;
		if ((name = mc_json_str(t, "name")) != NULL && subagents_blocked(d, name))
			cJSON_Delete(cJSON_DetachItemViaPointer(all, t));
	}
	if (d->sub.tool != NULL)
		mc_json_push(all, cJSON_Duplicate(d->sub.tool, 1));
	tools_put(d, all);
	return 0;
}

int
subagents_blocked(const struct driver *d, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(d->sub.disabled, name) != NULL;
}

int
subagents_has(const struct driver *d, const char *name)
{
	return d->sub.tool != NULL && strcmp(name, TOOL_NAME) == 0;
}

void
subagents_free(struct driver *d)
{
	slots_remove(d);
	cJSON_Delete(d->sub.tool);
	cJSON_Delete(d->sub.disabled);
	d->sub.tool = d->sub.disabled = NULL;
}

/* ---- the call's tasks ---- */

static void
task_free(struct task *t)
{
	free(t->agent);
	free(t->model);
	free(t->prompt);
	mc_buf_free(&t->out.buf);
	mc_buf_free(&t->errtail);
	free(t->session);
	mc_buf_free(&t->answer);
	free(t->tool);
	free(t->error);
}

/* The valid profiles' ids, for a message: "a, b, c". */
static void
known_agents(const struct driver *d, struct mc_buf *b)
{
	struct mc_profile *v;
	size_t n, i;

	mc_profile_list(d->c.set.home, MC_PROFILE_SUBAGENT, &v, &n, NULL, NULL);
	for (i = 0; i < n; i++)
		mc_buf_printf(b, "%s%s", i ? ", " : "", v[i].id);
	mc_profile_list_free(v, n);
}

/*
 * The tasks of the call's arguments into R, each checked: 0, or -1 with
 * the output the model reads in why (no child is started then).
 */
static int
parse_tasks(struct run *R, const cJSON *call, struct mc_buf *why)
{
	const char *args = mc_json_str(call, "arguments"), *agent, *prompt;
	const cJSON *tasks, *e;
	struct mc_profile p;
	char err[1024];
	cJSON *a;
	int i = 0, n, r;

	a = mc_json_parse(args ? args : "", args ? strlen(args) : 0, err, sizeof err);
	tasks = mc_json_arr(a, "tasks");
	if (tasks == NULL) {
		mc_buf_adds(why, "error: subagents: the arguments must be "
		    "{\"tasks\":[{\"agent\":\"ID\",\"prompt\":\"...\"}, ...]}");
		if (a == NULL)
			mc_buf_printf(why, " (not JSON: %s)", err);
		cJSON_Delete(a);
		return -1;
	}
	if ((n = cJSON_GetArraySize(tasks)) < 1 || n > MAX_SUBAGENT_TASKS) {
		mc_buf_printf(why, "error: subagents: %d tasks; give 1 to %d per call "
		    "(call it again for more).", n, MAX_SUBAGENT_TASKS);
		cJSON_Delete(a);
		return -1;
	}
	cJSON_ArrayForEach(e, tasks) {
		agent = mc_json_str(e, "agent");
		prompt = mc_json_str(e, "prompt");
		if (agent == NULL || prompt == NULL) {
			mc_buf_printf(why, "error: subagents: tasks[%d]: give \"agent\" and "
			    "\"prompt\", both strings.", i);
			break;
		}
		if (prompt[strspn(prompt, " \t\r\n")] == '\0' || strlen(prompt) > TASK_PROMPT_MAX) {
			mc_buf_printf(why, "error: subagents: tasks[%d]: the prompt is %s.", i,
			    *prompt && strlen(prompt) > TASK_PROMPT_MAX ?
			    "over 64 KiB; say less, or put the details in a file" : "empty");
			break;
		}
		if ((r = mc_profile_load(R->d->c.set.home, MC_PROFILE_SUBAGENT, agent, &p, err,
		    sizeof err)) != 0) {
			if (r == 1 || !mc_profile_id_valid(MC_PROFILE_SUBAGENT, agent,
			    strlen(agent))) {
				mc_buf_printf(why, "error: subagents: tasks[%d]: no subagent \"%s\"; "
				    "the subagents are: ", i, agent);
				known_agents(R->d, why);
				mc_buf_adds(why, ".");
			} else
				mc_buf_printf(why, "error: subagents: tasks[%d]: %s", i, err);
			break;
		}
		R->t[i] = (struct task){ .n = i + 1, .agent = mc_strdup(agent),
		    .prompt = mc_strdup(prompt), .model = p.model ? mc_strdup(p.model) : NULL,
		    .out = { .fd = -1, .cap = EVENT_CAP }, .errfd = -1, .fresh = 1 };
		R->n = (size_t)++i;
		mc_profile_free(&p);
	}
	cJSON_Delete(a);
	return why->len > 0 ? -1 : 0;
}

/* ---- progress ---- */

/* What a task came to: done, failed, max_steps or cancelled. */
static const char *
outcome_of(const struct task *t)
{
	if (strcmp(t->reason, "stop") == 0 || strcmp(t->reason, "refusal") == 0)
		return "done";
	if (strcmp(t->reason, "max_steps") == 0)
		return "max_steps";
	if (strcmp(t->reason, "cancelled") == 0 || (t->reason[0] == '\0' && t->killed))
		return "cancelled";
	return "failed";
}

/* With --json, a subagent event: start, step or done. */
static void
event(struct run *R, struct task *t, const char *what)
{
	cJSON *ev;

	if (!R->d->c.json)
		return;
	ev = ev_new("subagent");
	mc_json_add_str(ev, "event", what);
	mc_json_add_num(ev, "task", t->n);
	mc_json_add_str(ev, "agent", t->agent);
	mc_json_add_str(ev, "session", t->session);
	if (strcmp(what, "start") == 0 && t->model)
		mc_json_add_str(ev, "model", t->model);
	if (strcmp(what, "step") == 0) {
		mc_json_add_num(ev, "step", (double)t->steps);
		if (t->tool)
			mc_json_add_str(ev, "tool", t->tool);
	}
	if (strcmp(what, "done") == 0) {
		mc_json_add_str(ev, "status", outcome_of(t));
		mc_json_add_num(ev, "steps", (double)t->steps);
		mc_json_add(ev, "usage", ev_usage(&t->used));
	}
	ev_emit(R->d, ev);
}

/* One status line of a task, cut to width columns (its text is ASCII
 * but for the tool's name, sanitized). */
static void
status_line(const struct run *R, const struct task *t, int width, struct mc_buf *b)
{
	char tool[128], line[512];
	size_t n;

	if (t->state == QUEUED)
		snprintf(line, sizeof line, "  subagent %d %s: queued", t->n, t->agent);
	else if (t->state == ENDED)
		snprintf(line, sizeof line, "  subagent %d %s: %s, %lld step%s, %lld tokens", t->n,
		    t->agent, outcome_of(t), t->steps, t->steps == 1 ? "" : "s",
		    t->used.input + t->used.output);
	else if (t->steps == 0)
		snprintf(line, sizeof line, "  subagent %d %s: starting", t->n, t->agent);
	else
		snprintf(line, sizeof line, "  subagent %d %s: step %lld%s%s", t->n, t->agent,
		    t->steps, t->tool ? ", " : "", t->tool ? mc_sanitize(tool, sizeof tool,
		    t->tool) : "");
	n = strlen(line);
	if (width > 1 && n > (size_t)width - 1)
		n = mc_utf8_floor(line, (size_t)width - 1);
	mc_buf_adds(b, "\033[2K");
	if (R->d->t.color)
		mc_buf_adds(b, "\033[2m");
	mc_buf_add(b, line, n);
	if (R->d->t.color)
		mc_buf_adds(b, "\033[0m");
	mc_buf_addc(b, '\n');
}

/* On a terminal: one line per task on stderr, redrawn in place. */
static void
draw(struct run *R, int now)
{
	struct mc_buf b = {0};
	int width;
	size_t i;

	if (!R->draw || !R->dirty || (!now && mc_clock_ms() - R->drawn_at < DRAW_MS))
		return;
	width = term_width(STDERR_FILENO);
	if (R->drawn > 0)
		mc_buf_printf(&b, "\r\033[%dA", R->drawn);
	for (i = 0; i < R->n; i++)
		status_line(R, &R->t[i], width, &b);
	(void)mc_write_all(STDERR_FILENO, b.data, b.len);
	mc_buf_free(&b);
	R->drawn = (int)R->n;
	R->dirty = 0;
	R->drawn_at = mc_clock_ms();
}

/* ---- the children ---- */

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
		event(R, t, "step");
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
		event(R, t, "start");
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
		event(R, t, "step");
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
		event(R, t, "start");
	event(R, t, "done");
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
				event(R, &R->t[i], "done");
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
static void
run_all(struct run *R)
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
		draw(R, 0);
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
	draw(R, 1);
}

/* ---- the output ---- */

/* What the model reads of a task beside its answer: why it stopped short. */
static void
notes(const struct task *t, struct mc_buf *b)
{
	const char *o = outcome_of(t);
	char why[128], clean[2 * ERR_TAIL], *tail;
	size_t n;

	if (strcmp(o, "cancelled") == 0)
		mc_buf_adds(b, "(cancelled by the user)\n");
	else if (strcmp(o, "max_steps") == 0)
		mc_buf_printf(b, "(stopped by --max-steps after %lld step%s)\n", t->steps,
		    t->steps == 1 ? "" : "s");
	else if (strcmp(t->reason, "length") == 0)
		mc_buf_adds(b, "(the answer was cut by the output limit)\n");
	if (strcmp(o, "failed") != 0)
		return;
	if (t->error != NULL) {
		mc_buf_printf(b, "(error: %s)\n", t->error);
		return;
	}
	/* No event said why: the end of its stderr, or how it ended. */
	for (n = t->errtail.len; n > 0 && t->errtail.data[n - 1] == '\n'; n--)
		;
	if (n > 0) {
		tail = mc_strndup(t->errtail.data, n);
		mc_buf_printf(b, "(error: %s)\n", mc_sanitize(clean, sizeof clean, tail));
		free(tail);
	} else if (mc_pipeline_strstatus(t->wstatus, why, sizeof why) != NULL)
		mc_buf_printf(b, "(error: mc %s)\n", why);
	else if (WIFEXITED(t->wstatus))
		mc_buf_printf(b, "(error: mc exited with status %d)\n", WEXITSTATUS(t->wstatus));
}

/*
 * A task's part of the output, at most limit bytes: its header line, its
 * final answer (cut, with a marker saying where and where the whole
 * transcript is, when it does not fit), and notes.
 */
static void
block(const struct driver *d, const struct task *t, size_t limit, struct mc_buf *out)
{
	struct mc_buf head = {0}, tail = {0}, mark = {0};
	char *path = NULL;
	size_t room, cut;

	mc_buf_printf(&head, "## task %d: %s \xe2\x80\x94 %s, %lld step%s, %lld tokens, session %s\n",
	    t->n, t->agent, outcome_of(t), t->steps, t->steps == 1 ? "" : "s",
	    t->used.input + t->used.output, t->session ? t->session : "none");
	notes(t, &tail);
	if (t->answer_len == 0 && tail.len == 0)
		mc_buf_adds(&tail, "(no answer)\n");
	/* room for the answer and the newline that ends it */
	room = limit > head.len + tail.len ? limit - head.len - tail.len : 0;
	cut = t->answer.len;
	if (t->answer_len + (t->answer_len > 0 && t->answer.data[t->answer.len - 1] != '\n') > room) {
		if (t->session != NULL)
			path = mc_session_path(d->c.set.home, t->session);
		/* the marker as long as it can be, then the text before it */
		mc_buf_printf(&mark, "\n[... cut here: %zu more bytes of this answer%s%s]\n",
		    t->answer_len, path ? "; the whole transcript is in " : "", path ? path : "");
		cut = room > mark.len ? room - mark.len : 0;
		if (cut > t->answer.len)
			cut = t->answer.len;
		cut = mc_utf8_floor(t->answer.data, cut);
		mark.len = 0;
		mc_buf_printf(&mark, "\n[... cut here: %zu more bytes of this answer%s%s]\n",
		    t->answer_len - cut, path ? "; the whole transcript is in " : "",
		    path ? path : "");
	}
	mc_buf_add(out, head.data, head.len);
	if (cut > 0) {
		mc_buf_add(out, t->answer.data, cut);
		if (mark.len == 0 && t->answer.data[cut - 1] != '\n')
			mc_buf_addc(out, '\n');
	}
	if (mark.len > 0)
		mc_buf_add(out, mark.data + (cut == 0), mark.len - (cut == 0));
	mc_buf_add(out, tail.data ? tail.data : "", tail.len);
	free(path);
	mc_buf_free(&head);
	mc_buf_free(&tail);
	mc_buf_free(&mark);
}

/*
 * The output: the tasks' parts in order, separated by blank lines; each
 * at most TASK_OUTPUT_MAX, all at most OUTPUT_MAX. When they do not all
 * fit, the room is shared out: the smaller parts whole, the larger ones
 * cut to equal shares.
 */
static char *
aggregate(const struct run *R)
{
	struct mc_buf out = {0}, b = {0};
	size_t want[MAX_SUBAGENT_TASKS], limit[MAX_SUBAGENT_TASKS], order[MAX_SUBAGENT_TASKS];
	size_t i, j, k, left = OUTPUT_MAX - (R->n - 1), share;

	for (i = 0; i < R->n; i++) {
		b.len = 0;
		block(R->d, &R->t[i], SIZE_MAX, &b);
		want[i] = b.len < TASK_OUTPUT_MAX ? b.len : TASK_OUTPUT_MAX;
		order[i] = i;
	}
	for (i = 1; i < R->n; i++)	/* by size, smallest first */
		for (j = i; j > 0 && want[order[j - 1]] > want[order[j]]; j--) {
			k = order[j];
			order[j] = order[j - 1];
			order[j - 1] = k;
		}
	for (i = 0; i < R->n; i++) {
		share = left / (R->n - i);
		k = order[i];
		limit[k] = want[k] < share ? want[k] : share;
		left -= limit[k];
	}
	for (i = 0; i < R->n; i++) {
		if (i > 0)
			mc_buf_addc(&out, '\n');
		block(R->d, &R->t[i], limit[i], &out);
	}
	mc_buf_free(&b);
	return mc_buf_steal(&out);
}

/*
 * The subagents call: its tasks checked, run in parallel (at most
 * subagents.max_parallel at once), and their answers as its output
 * (malloc'ed; tools.c makes it the call's); the children's tokens join
 * this run's. Interrupted by the user, the answers so far.
 */
char *
subagents_call(struct driver *d, const cJSON *call)
{
	struct run R = { .d = d, .max = PARALLEL_DEFAULT };
	struct mc_buf why = {0};
	const cJSON *mp;
	char *text;
	size_t i;

	if (parse_tasks(&R, call, &why) == -1) {
		for (i = 0; i < R.n; i++)
			task_free(&R.t[i]);
		return mc_buf_steal(&why);
	}
	if ((mp = mc_settings_get(&d->c.set, "subagents.max_parallel")) != NULL &&
	    cJSON_IsNumber(mp))
		R.max = (size_t)mp->valuedouble;
	R.draw = !d->c.json && isatty(STDERR_FILENO);
	R.dirty = 1;
	run_all(&R);
	for (i = 0; i < R.n; i++)
		usage_add(&d->s.run, &R.t[i].used);
	text = aggregate(&R);
	for (i = 0; i < R.n; i++)
		task_free(&R.t[i]);
	return text;
}
