/* subagents.c: the subagents tool: its definition, a child's own limits (its profiles' disabled tools), a call's tasks checked and their answers as its output. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "json.h"
#include "profile.h"
#include "subagents.h"
#include "utf8.h"

#define TOOL_NAME "subagents"
#define PARALLEL_DEFAULT 4
#define OUTPUT_MAX (64u << 10)		/* the whole output */
#define TASK_PROMPT_MAX (64u << 10)	/* a task's prompt, which goes in argv */

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

/* ---- the output ---- */

/* What the model reads of a task beside its answer: why it stopped short. */
static void
notes(const struct task *t, struct mc_buf *b)
{
	const char *o = subshow_outcome(t);
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
	    t->n, t->agent, subshow_outcome(t), t->steps, t->steps == 1 ? "" : "s",
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
	subrun_all(&R);
	for (i = 0; i < R.n; i++)
		usage_add(&d->s.run, &R.t[i].used);
	text = aggregate(&R);
	for (i = 0; i < R.n; i++)
		task_free(&R.t[i]);
	return text;
}
