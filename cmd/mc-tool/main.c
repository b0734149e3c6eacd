/* mc-tool: the agent's tools: their one definition (list), running one call (call), and the bash sandbox (sandbox). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "clip.h"
#include "diag.h"
#include "fsread.h"
#include "image.h"
#include "items.h"
#include "json.h"
#include "mc-tool.h"
#include "toolenv.h"

static const char usage[] =
    "usage: mc-tool [-q] list [--pretty]\n"
    "       mc-tool [-q] call [-C DIR] [--touched-out FILE] [--progress-out FILE]\n"
    "                    [--buffer-in FILE] [--buffer-out FILE]\n"
    "       mc-tool [-q] sandbox [-C DIR]\n"
    "\n"
    "The agent's tools. list writes their definitions (a JSON array); call\n"
    "reads one function_call item on stdin, runs it and writes one\n"
    "function_call_output item on stdout; sandbox prints what confines the\n"
    "bash tool on this kernel, one line per rule, and exits 0 when bash runs\n"
    "sandboxed as configured, 1 when it does not.\n"
    "\n"
    "  -C DIR               run the call in DIR (the working directory)\n"
    "  --touched-out FILE   write the paths the call read, wrote or edited to FILE\n"
    "  --progress-out FILE  copy bash's output to FILE as it comes (what does not fit\n"
    "                       at once is dropped there)\n"
    "  --buffer-in FILE     read and edit take the file's text from FILE (an editor's\n"
    "                       buffer), not from the file\n"
    "  --buffer-out FILE    write and edit put the new text in FILE, not in the file\n"
    "  --pretty             indent the JSON of list\n"
    "  -q                   no warnings on stderr; with sandbox, no report either\n"
    "  -h, --help           show this help\n"
    "  --version            show the version\n";

/* Output helpers: the text the model reads. */

void
say(struct call *c, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		mc_oom();
	mc_buf_add(&c->out, s, (size_t)n);
	free(s);
}

void
say_raw(struct call *c, const char *s, size_t n)
{
	mc_clip_repair(&c->out, s, n);
}

/* Record a canonical path the call read or changed, when inside root. */
void
touch(struct call *c, const char *canon)
{
	size_t n = strlen(c->root);
	const char *rel;

	if (!mc_path_within(canon, c->root) || strchr(canon, '\n') != NULL)
		return;
	rel = strcmp(c->root, "/") == 0 ? canon + 1 : canon + n;
	if (*rel == '/')
		rel++;
	mc_buf_adds(&c->touched, *rel ? rel : ".");
	mc_buf_addc(&c->touched, '\n');
}

const char *
arg_str(const struct call *c, const char *name)
{
	return mc_json_str(c->args, name);
}

long
arg_int(const struct call *c, const char *name, long dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->args, name);

	return cJSON_IsNumber(v) ? (long)v->valuedouble : dflt;
}

int
arg_bool(const struct call *c, const char *name)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c->args, name));
}

/* call */

static int
write_output(const char *call_id, struct call *c)
{
	char *text = mc_clip_text(c->out.data ? c->out.data : "", c->out.len, MC_CLIP_MAX, NULL);
	cJSON *item = mc_item_output(call_id, text);
	int rc;

	free(text);
	if (c->image_type != NULL) {	/* read.c: an image, for the driver to store */
		mc_image_data_add(item, mc_buf_steal(&c->image), c->image_type, c->image_name);
	}
	rc = mc_json_write(stdout, item, 0);
	cJSON_Delete(item);
	if (rc == 0)
		fflush(stdout);
	return rc;
}

/* The arguments of the call item as an object, or NULL with the problem said. */
static cJSON *
parse_args(struct call *c, const struct tool *t, const cJSON *item)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(item, "arguments");
	const char *name = t->name;
	char err[256], *p;
	cJSON *args;

	if (cJSON_IsObject(a))
		return cJSON_Duplicate(a, 1);
	for (p = a->valuestring; *p && strchr(" \t\r\n", *p); p++)
		;
	args = *p ? mc_json_parse(a->valuestring, strlen(a->valuestring), err, sizeof err) :
	    cJSON_CreateObject();
	if (args == NULL) {
		say(c, "error: the arguments of this %s call are not valid JSON (%s); "
		    "send one JSON object, e.g. {\"%s\":...}\n", name, err, t->params[0].name);
		return NULL;
	}
	/* cJSON would cut a string at it: "a\u0000b" would name the file a. */
	if (mc_json_nul_escape(a->valuestring, strlen(a->valuestring)) != NULL) {
		say(c, "error: the arguments of this %s call hold a NUL character (\\u0000); "
		    "no path, pattern or text may contain one\n", name);
		cJSON_Delete(args);
		return NULL;
	}
	if (!cJSON_IsObject(args)) {
		say(c, "error: the arguments of this %s call must be a JSON object\n", name);
		cJSON_Delete(args);
		return NULL;
	}
	return args;
}

static int
cmd_call(const struct mc_settings *s, const char *root, FILE *touched_fp, int progress,
    const int buffer[2])
{
	struct call c = { .s = s, .root = root, .progress = progress,
	    .buffer_in = buffer[0], .buffer_out = buffer[1] };
	const struct tool *t;
	const char *call_id, *name;
	cJSON *item, *args = NULL;
	char err[256];
	int status = MC_EXIT_OK;

	if ((item = mc_item_call_read(STDIN_FILENO, err, sizeof err)) == NULL) {
		mc_err("stdin: %s", err);
		return MC_EXIT_FAIL;
	}
	call_id = mc_json_str(item, "call_id");
	name = mc_json_str(item, "name");
	t = tool_named(name);
	if (t == NULL || mc_settings_listed(s, "tools.disabled", name)) {
		/* Our failure, but the driver may still hand this output to the model. */
		if (t == NULL) {
			mc_err("unknown tool: %s", name);
			say(&c, "error: there is no tool named \"%s\"; the tools are: ", name);
		} else {
			mc_err("tool disabled by tools.disabled in %s: %s", s->path, name);
			say(&c, "error: the %s tool is disabled in this session; the tools are: ", name);
		}
		tool_say_names(&c, s);
		say(&c, "\n");
		status = MC_EXIT_FAIL;
	} else if ((args = parse_args(&c, t, item)) != NULL) {
		c.args = args;
		if (tool_check_args(&c, t) == 0)
			t->run(&c);
	}
	if (touched_fp != NULL && c.touched.len > 0 &&
	    fwrite(c.touched.data, 1, c.touched.len, touched_fp) != c.touched.len)
		status = MC_EXIT_FAIL;
	if (write_output(call_id, &c) == -1 && errno != EPIPE)
		status = MC_EXIT_FAIL;
	if (c.interrupted)
		status = MC_EXIT_INTR;
	mc_buf_free(&c.out);
	mc_buf_free(&c.touched);
	mc_buf_free(&c.image);
	free(c.image_name);
	cJSON_Delete(args);
	cJSON_Delete(item);
	return status;
}

/*
 * Die with the parent: when the driver is killed, even with SIGKILL, the
 * kernel sends us SIGTERM, and a running command's group is killed and its
 * strays swept as for any SIGTERM. A parent that died before the request
 * took effect has already made us an orphan.
 */
static int
follow_parent(void)
{
	pid_t parent = getppid();

	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1) {
		mc_err("prctl(PR_SET_PDEATHSIG): %s", strerror(errno));
		return -1;
	}
	if (getppid() != parent) {
		mc_err("the process that started mc-tool has already exited");
		return -1;
	}
	return 0;
}

/* Enter -C DIR and return the working directory, canonical, or NULL. */
static char *
enter_dir(const char *dir)
{
	char *root;

	if (dir != NULL && chdir(dir) == -1) {
		mc_err("%s: %s", dir, strerror(errno));
		return NULL;
	}
	if ((root = realpath(".", NULL)) == NULL)
		mc_err("working directory: %s", strerror(errno));
	return root;
}

/* --buffer-in and --buffer-out, opened (before -C, like any path given
 * us): 0, or -1 after saying why. */
static int
buffers_open(const char *const path[2], int fd[2])
{
	static const int flags[2] = { O_RDONLY, O_WRONLY | O_CREAT | O_TRUNC };
	int i;

	fd[0] = fd[1] = -1;
	for (i = 0; i < 2; i++)
		if (path[i] != NULL &&
		    (fd[i] = open(path[i], flags[i] | O_CLOEXEC | O_NOCTTY, 0600)) == -1) {
			mc_err("%s: %s", path[i], strerror(errno));
			if (i == 1 && fd[0] != -1)
				close(fd[0]);
			return -1;
		}
	return 0;
}

static int
run(const char *sub, const char *dir, const char *touched, const char *progress,
    const char *const buffers[2], int pretty, struct mc_settings *s)
{
	FILE *touched_fp = NULL;
	char *root;
	int status, pfd = -1, bfd[2];

	if (strcmp(sub, "list") == 0)
		return cmd_list(s, pretty);
	if (buffers_open(buffers, bfd) == -1)
		return MC_EXIT_FAIL;
	/* Opened before the tool runs: paths we could not report are no
	 * reason to change anything. Before -C, like any path given to us. */
	if (touched != NULL && (touched_fp = fopen(touched, "we")) == NULL) {
		mc_err("%s: %s", touched, strerror(errno));
		return MC_EXIT_FAIL;
	}
	/* Never waited on: a reader that falls behind loses output there,
	 * the call nothing. */
	if (progress != NULL &&
	    (pfd = open(progress, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) == -1) {
		mc_err("%s: %s", progress, strerror(errno));
		if (touched_fp != NULL)
			fclose(touched_fp);
		return MC_EXIT_FAIL;
	}
	if ((root = enter_dir(dir)) == NULL) {
		if (touched_fp != NULL)
			fclose(touched_fp);
		if (pfd != -1)
			close(pfd);
		return MC_EXIT_FAIL;
	}
	if (strcmp(sub, "sandbox") == 0)
		status = cmd_sandbox(s, root);
	else
		status = cmd_call(s, root, touched_fp, pfd, bfd);
	if (pfd != -1)
		close(pfd);
	if (bfd[0] != -1)
		close(bfd[0]);
	if (bfd[1] != -1 && close(bfd[1]) == -1 && status == MC_EXIT_OK) {
		mc_err("%s: %s", buffers[1], strerror(errno));
		status = MC_EXIT_FAIL;
	}
	if (touched_fp != NULL && (ferror(touched_fp) | fclose(touched_fp)) != 0) {
		mc_err("%s: %s", touched, strerror(errno));
		if (status == MC_EXIT_OK)
			status = MC_EXIT_FAIL;
	}
	free(root);
	return status;
}

int
main(int argc, char *argv[])
{
	enum { OPT_PRETTY = 256, OPT_TOUCHED, OPT_PROGRESS, OPT_BUFFER_IN, OPT_BUFFER_OUT };
	static const struct option longopts[] = {
		{ "buffer-in", required_argument, NULL, OPT_BUFFER_IN },
		{ "buffer-out", required_argument, NULL, OPT_BUFFER_OUT },
		{ "help", no_argument, NULL, 'h' },
		{ "pretty", no_argument, NULL, OPT_PRETTY },
		{ "progress-out", required_argument, NULL, OPT_PROGRESS },
		{ "touched-out", required_argument, NULL, OPT_TOUCHED },
		{ "version", no_argument, NULL, MC_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	const char *dir = NULL, *touched = NULL, *progress = NULL, *sub, *buffers[2] = { NULL, NULL };
	struct mc_settings s;
	char err[1024];
	int c, pretty = 0, status;

	mc_init("mc-tool", argv);
	while ((c = getopt_long(argc, argv, "C:hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			dir = optarg;
			break;
		case 'q':
			mc_quiet = 1;
			break;
		case OPT_PRETTY:
			pretty = 1;
			break;
		case OPT_TOUCHED:
			touched = optarg;
			break;
		case OPT_PROGRESS:
			progress = optarg;
			break;
		case OPT_BUFFER_IN:
			buffers[0] = optarg;
			break;
		case OPT_BUFFER_OUT:
			buffers[1] = optarg;
			break;
		default:	/* -h, --version or a bad option */
			return mc_opt_exit(c, usage);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		return mc_usage_error("missing command: list, call or sandbox");
	sub = argv[0];
	if (strcmp(sub, "list") != 0 && strcmp(sub, "call") != 0 && strcmp(sub, "sandbox") != 0)
		return mc_usage_error("unknown command: %s", sub);
	if (argc > 1)
		return mc_usage_error("unexpected argument: %s", argv[1]);
	if (strcmp(sub, "list") == 0 && dir)
		return mc_usage_error("-C applies to call and sandbox only");
	if (strcmp(sub, "call") != 0 && touched)
		return mc_usage_error("--touched-out applies to call only");
	if (strcmp(sub, "call") != 0 && progress)
		return mc_usage_error("--progress-out applies to call only");
	if (strcmp(sub, "call") != 0 && (buffers[0] || buffers[1]))
		return mc_usage_error("--buffer-in and --buffer-out apply to call only");
	if (strcmp(sub, "list") != 0 && pretty)
		return mc_usage_error("--pretty applies to list only");
	if (touched != NULL && *touched == '\0')
		return mc_usage_error("--touched-out needs a file name");
	if (progress != NULL && *progress == '\0')
		return mc_usage_error("--progress-out needs a file name");

	if (follow_parent() == -1)
		return MC_EXIT_FAIL;
	if (mc_settings_load(&s, err, sizeof err) == -1 ||
	    sandbox_check_settings(&s, err, sizeof err) == -1) {
		mc_err("%s", err);
		mc_settings_free(&s);
		return MC_EXIT_FAIL;
	}
	mc_settings_warn(&s);
	/* What a tool runs could print a key into its output, and so into the
	 * session and the next request. The value is overwritten where it
	 * lies, so /proc/PID/environ of mc-tool, the command's parent, no
	 * longer shows it either. */
	mc_env_free(mc_keys_take(&s));
	status = run(sub, dir, touched, progress, buffers, pretty, &s);
	mc_settings_free(&s);
	return mc_finish(status);
}
