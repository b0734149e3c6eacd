/* mc-tool.h: what the files of mc-tool share: one call, its output, and the tools. */
#ifndef MC_TOOL_H
#define MC_TOOL_H

#include <stddef.h>

#include <cJSON.h>

#include "buf.h"
#include "child.h"
#include "settings.h"

#define TOOL_TIMEOUT 120	/* seconds a bash, grep or find call may take by default */
#define TIMEOUT_MAX 3600	/* the most timeout_s may ask for */

struct call {
	const struct mc_settings *s;
	const char *root;	/* canonical working directory */
	const cJSON *args;
	struct mc_buf out;	/* what the model reads */
	struct mc_buf touched;	/* paths, one a line, relative to root */
	int interrupted;
	int progress;		/* --progress-out, non-blocking, or -1 */
	/* read of an image: its base64, type and name, for the output's
	 * "image_data" (the driver stores it; the sandbox may not write) */
	struct mc_buf image;
	const char *image_type;
	char *image_name;
	/* --buffer-in, --buffer-out: a file's text as an editor holds it,
	 * for read and edit, and the text write and edit make, for the
	 * editor to keep; or -1 (the file itself) */
	int buffer_in, buffer_out;
};

/* main.c: the output the model reads, and the call's arguments. */
void say(struct call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void say_raw(struct call *c, const char *s, size_t n);
void touch(struct call *c, const char *canon);
const char *arg_str(const struct call *c, const char *name);
long arg_int(const struct call *c, const char *name, long dflt);
int arg_bool(const struct call *c, const char *name);

/* tools.c: the one definition of the tools; list; checking a call's arguments. */
enum ptype { P_STR, P_INT, P_BOOL };

struct param {
	const char *name;
	enum ptype type;
	int required;
	long min, max;		/* P_INT */
	const char *desc;
};

struct tool {
	const char *name;
	const char *desc;
	const struct param *params;
	void (*run)(struct call *);
};
const struct tool *tool_named(const char *name);
int tool_check_args(struct call *c, const struct tool *t);
void tool_say_names(struct call *c, const struct mc_settings *s);
int cmd_list(const struct mc_settings *s, int pretty);

/* read.c, files.c, bash.c, search.c: the tools. */
void tool_read(struct call *);
void tool_write(struct call *);
void tool_edit(struct call *);
void tool_bash(struct call *);
void tool_grep(struct call *);
void tool_find(struct call *);

/* sandbox.c: tools.sandbox for bash, and `mc-tool sandbox`. */
int sandbox_check_settings(const struct mc_settings *s, char *err, size_t errsz);
/* Confine this process (and so the command it starts next) as the
 * settings say; 0 to go on, -1 when bash must not run (why is said).
 * The limits the command must get as it starts are put in limits.
 * Where namespaces can be made, this process forks: the parent waits and
 * exits with the child's status, and the child, PID 1 of the command's
 * namespaces, returns here and runs the rest of the call. */
int sandbox_enter(struct call *c, char *const *env, struct mc_child_limit limits[4]);
int cmd_sandbox(const struct mc_settings *s, const char *root);
/* After a sandboxed command (wait status): a note naming each rule of
 * the sandbox its output (text) suggests it met, for the model. */
void sandbox_explain(struct call *c, const char *text, int status);

#endif
