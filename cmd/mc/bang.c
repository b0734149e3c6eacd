/*
 * bang.c: !COMMAND at the start of an interactive line (SPEC 25): the
 * command run as the bash tool runs the model's, by `mc-tool call`
 * (tools.c), so in the same sandbox, with the same tool environment (no
 * keys), timeout and output cap; not asked about, as the user typed it,
 * and seen by no tool hook nor checkpoint. Its output is shown, and the command with its
 * output joins the conversation as a user message (mc_item_shell_message)
 * that the next request carries; it sends nothing by itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "items.h"
#include "json.h"
#include "mc.h"

/* The command's output item, run by mc-tool's bash; NULL when it could
 * not be run (said). */
static cJSON *
bang_call(struct driver *d, const char *command)
{
	struct mc_buf touched = {0};
	cJSON *args, *call, *item;
	char *a;

	args = mc_json_new_obj();
	mc_json_add_str(args, "command", command);
	if ((a = cJSON_PrintUnformatted(args)) == NULL)
		mc_oom();
	call = mc_item_call("shell", "bash", a);
	item = tools_run(d, call, &touched);
	if (mc_json_str(item, "output") == NULL && !interrupted)
		mc_err("!%s: mc-tool could not run the command", command);
	cJSON_Delete(call);
	cJSON_Delete(args);
	free(a);
	mc_buf_free(&touched);
	return item;
}

/* The line !COMMAND (line starts with '!'): run, shown, kept. */
void
bang_run(struct driver *d, const char *line)
{
	const char *command = line + 1 + strspn(line + 1, " \t"), *out;
	cJSON *item;
	int begun = d->s.open;

	if (*command == '\0') {
		mc_err("!: no command (!COMMAND runs COMMAND in the sandbox)");
		return;
	}
	if (mc_settings_listed(&d->c.set, "tools.disabled", "bash")) {
		mc_err("!%s: the bash tool is disabled (tools.disabled in the settings)", command);
		return;
	}
	/* hooks.c: a session begun here has its session_start hooks first;
	 * title.c: it is titled by its first message */
	if (session_begin(d) == -1 || hooks_session_start(d) == -1)
		return;
	if (!begun && d->s.title == NULL)
		d->s.untitled = 1;
	sandbox_ask(d);		/* stages.c: said once, if bash runs unsandboxed */
	item = bang_call(d, command);
	sandbox_told(d);
	if ((out = mc_json_str(item, "output")) != NULL) {
		show(d, out, strlen(out));
		fflush(stdout);
		session_add(d, mc_item_shell_message(command, out));
	}
	cJSON_Delete(item);
}
