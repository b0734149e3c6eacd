/* tools.c: the single definition of the tools: list prints it, call checks against it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc-tool.h"

static const struct param read_params[] = {
	{ "path", P_STR, 1, 0, 0,
	  "Path of the file, relative to the working directory (absolute paths are allowed), "
	  "or a skill URI: skill://NAME for a skill's SKILL.md, skill://NAME/REL/PATH for a file in its directory." },
	{ "offset", P_INT, 0, 1, LONG_MAX,
	  "Line number to start at; 1 is the first line. Default 1." },
	{ "limit", P_INT, 0, 1, MC_PAGE_LINES,
	  "Most lines to return. Default and maximum 2000." },
	{ NULL, 0, 0, 0, 0, NULL }
};
static const struct param write_params[] = {
	{ "path", P_STR, 1, 0, 0,
	  "Path of the file, relative to the working directory; it must stay inside it." },
	{ "content", P_STR, 1, 0, 0,
	  "The complete new content of the file." },
	{ NULL, 0, 0, 0, 0, NULL }
};
static const struct param edit_params[] = {
	{ "path", P_STR, 1, 0, 0,
	  "Path of the file, relative to the working directory; it must stay inside it." },
	{ "old_string", P_STR, 1, 0, 0,
	  "The exact text to replace, including whitespace and indentation, without read's line-number prefixes. "
	  "Include enough surrounding lines that it occurs only once." },
	{ "new_string", P_STR, 1, 0, 0,
	  "The text to put in its place (may be empty to delete)." },
	{ "replace_all", P_BOOL, 0, 0, 0,
	  "Replace every occurrence instead of requiring exactly one. Default false." },
	{ NULL, 0, 0, 0, 0, NULL }
};
static const struct param bash_params[] = {
	{ "command", P_STR, 1, 0, 0,
	  "The shell command line, run by /bin/sh -c in the working directory." },
	{ "timeout_s", P_INT, 0, 1, TIMEOUT_MAX,
	  "Seconds before the command and everything it started are killed. Default 120." },
	{ NULL, 0, 0, 0, 0, NULL }
};
static const struct param grep_params[] = {
	{ "pattern", P_STR, 1, 0, 0,
	  "The regular expression to search for." },
	{ "path", P_STR, 0, 0, 0,
	  "File or directory to search, relative to the working directory. Default: the working directory." },
	{ "glob", P_STR, 0, 0, 0,
	  "Only search files whose name matches this glob, e.g. \"*.c\"." },
	{ "timeout_s", P_INT, 0, 1, TIMEOUT_MAX,
	  "Seconds before the search is stopped. Default 120." },
	{ NULL, 0, 0, 0, 0, NULL }
};
static const struct param find_params[] = {
	{ "glob", P_STR, 1, 0, 0,
	  "The glob to match, e.g. \"*.c\", \"Makefile\" or \"src/**/*.h\"." },
	{ "path", P_STR, 0, 0, 0,
	  "Directory to search, relative to the working directory. Default: the working directory." },
	{ "timeout_s", P_INT, 0, 1, TIMEOUT_MAX,
	  "Seconds before the search is stopped. Default 120." },
	{ NULL, 0, 0, 0, 0, NULL }
};

static const struct tool tools[] = {
	{ "read",
	  "Read a text file. Lines come numbered, each as the line number, a tab, then the line's text; "
	  "the numbers are not part of the file. At most 2000 lines (and about 60 KiB) come per call; "
	  "when more remain, a note at the end gives the offset to continue from. Lines longer than "
	  "8192 bytes are shown cut. A binary file is reported, not shown; an image (PNG, JPEG, GIF "
	  "or WebP, at most 20 MiB) comes to you as the image itself. "
	  "Also reads skills: skill://NAME is the skill's SKILL.md and skill://NAME/REL/PATH a file it refers to.",
	  read_params, tool_read },
	{ "write",
	  "Create a file or replace its whole content. Missing parent directories are created. "
	  "The path must stay inside the working directory and outside .git directories. "
	  "To change part of an existing file, use edit.",
	  write_params, tool_write },
	{ "edit",
	  "Replace exact text in an existing file: old_string must match the file byte for byte and occur "
	  "exactly once (or set replace_all). Read the file first and copy the text without the line-number "
	  "prefixes. The path must stay inside the working directory and outside .git directories.",
	  edit_params, tool_edit },
	{ "bash",
	  "Run a shell command (/bin/sh -c) in the working directory and return its output (stdout and "
	  "stderr together) followed by its exit status. Each call is a new shell: cd and variables do "
	  "not carry over. stdin is empty, so commands must not wait for input. After timeout_s seconds (default 120) the command and every process it started are "
	  "killed; processes left running in the background when it ends are stopped. Output over 64 KiB "
	  "keeps its start and end. The command may run in a sandbox: then writing outside the working "
	  "directory and the temporary directory, and any network access or unix socket, fail with "
	  "\"Permission denied\"; .git is read-only (\"Read-only file system\"); there is no terminal; "
	  "other processes are not visible; processes, memory and file size are limited. "
	  "Environment variables that look like secrets (names with KEY, SECRET, TOKEN or PASSWORD, or "
	  "ending in _SOCK) are not passed on.",
	  bash_params, tool_bash },
	{ "grep",
	  "Search the contents of files for a regular expression, recursively, and return the matching "
	  "lines as path:line:text. Uses ripgrep when installed (Rust regex syntax; skips files ignored by "
	  ".gitignore), else grep -E (POSIX extended syntax); the common subset works with both. "
	  "Binary files and .git are skipped.",
	  grep_params, tool_grep },
	{ "find",
	  "Find files and directories by name and return their paths, sorted, directories ending in /. "
	  "A glob without a slash matches names at any depth (\"*.c\"); a glob with a slash matches the "
	  "path below the search directory, where ** matches any number of directories "
	  "(\"src/**/*.h\"). Does not enter .git or symbolic links to directories.",
	  find_params, tool_find },
};
#define NTOOLS (sizeof tools / sizeof tools[0])

const struct tool *
tool_named(const char *name)
{
	size_t i;

	for (i = 0; i < NTOOLS; i++)
		if (strcmp(tools[i].name, name) == 0)
			return &tools[i];
	return NULL;
}

static cJSON *
tool_schema(const struct tool *t)
{
	cJSON *schema = mc_json_new_obj(), *props, *req, *p;
	const struct param *q;

	mc_json_add_str(schema, "type", "object");
	props = mc_json_add(schema, "properties", cJSON_CreateObject());
	req = mc_json_add(schema, "required", cJSON_CreateArray());
	for (q = t->params; q->name; q++) {
		p = mc_json_add(props, q->name, cJSON_CreateObject());
		mc_json_add_str(p, "type", q->type == P_STR ? "string" : q->type == P_INT ? "integer" : "boolean");
		mc_json_add_str(p, "description", q->desc);
		if (q->type == P_INT) {
			mc_json_add_num(p, "minimum", (double)q->min);
			if (q->max != LONG_MAX)
				mc_json_add_num(p, "maximum", (double)q->max);
		}
		if (q->required)
			mc_json_push(req, mc_json_new_str(q->name));
	}
	mc_json_add(schema, "additionalProperties", cJSON_CreateFalse());
	return schema;
}

int
cmd_list(const struct mc_settings *s, int pretty)
{
	cJSON *arr = mc_json_new_arr(), *t;
	size_t i;
	int rc;

	for (i = 0; i < NTOOLS; i++) {
		if (mc_settings_listed(s, "tools.disabled", tools[i].name))
			continue;
		t = mc_json_push(arr, mc_json_new_obj());
		mc_json_add_str(t, "name", tools[i].name);
		mc_json_add_str(t, "description", tools[i].desc);
		mc_json_add(t, "parameters", tool_schema(&tools[i]));
	}
	rc = mc_json_write(stdout, arr, pretty);
	cJSON_Delete(arr);
	return rc == -1 && errno != EPIPE ? MC_EXIT_FAIL : MC_EXIT_OK;
}

/* Check the arguments against the definition; a problem goes to the model. */
int
tool_check_args(struct call *c, const struct tool *t)
{
	const struct param *q;
	const cJSON *v;
	double d;

	cJSON_ArrayForEach(v, c->args) {
		for (q = t->params; q->name; q++)
			if (strcmp(q->name, v->string) == 0)
				break;
		if (q->name == NULL) {
			say(c, "error: %s has no argument \"%s\"; its arguments are", t->name, v->string);
			for (q = t->params; q->name; q++)
				say(c, "%s %s", q == t->params ? "" : ",", q->name);
			say(c, "\n");
			return -1;
		}
	}
	for (q = t->params; q->name; q++) {
		v = cJSON_GetObjectItemCaseSensitive(c->args, q->name);
		if (v == NULL || cJSON_IsNull(v)) {
			if (q->required) {
				say(c, "error: %s needs the argument \"%s\"\n", t->name, q->name);
				return -1;
			}
			continue;
		}
		switch (q->type) {
		case P_STR:
			if (!cJSON_IsString(v)) {
				say(c, "error: %s: argument \"%s\" must be a string\n", t->name, q->name);
				return -1;
			}
			break;
		case P_BOOL:
			if (!cJSON_IsBool(v)) {
				say(c, "error: %s: argument \"%s\" must be true or false\n", t->name, q->name);
				return -1;
			}
			break;
		case P_INT:
			d = v->valuedouble;
			if (!cJSON_IsNumber(v) || d < (double)q->min || d > 1e15 || d != (double)(long long)d ||
			    (q->max != LONG_MAX && d > (double)q->max)) {
				if (q->max != LONG_MAX)
					say(c, "error: %s: argument \"%s\" must be an integer from %ld to %ld\n",
					    t->name, q->name, q->min, q->max);
				else
					say(c, "error: %s: argument \"%s\" must be an integer of at least %ld\n",
					    t->name, q->name, q->min);
				return -1;
			}
			break;
		}
	}
	return 0;
}

void
tool_say_names(struct call *c, const struct mc_settings *s)
{
	size_t i;
	int n = 0;

	for (i = 0; i < NTOOLS; i++)
		if (!mc_settings_listed(s, "tools.disabled", tools[i].name))
			say(c, "%s%s", n++ ? ", " : "", tools[i].name);
	if (n == 0)
		say(c, "none");
}
