/* mc: the driver: one-shot and interactive sessions composed from the suite's programs. */
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bsd/stdlib.h>

#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"
#include "provider.h"
#include "request.h"
#include "toolenv.h"
#include "utf8.h"

volatile sig_atomic_t interrupted, terminated, timed_out;

/* Ctrl-C stops the work in flight; SIGTERM and SIGHUP stop it the same
 * way and then end the session (children and their groups ended, the
 * session left valid); so does --timeout's SIGALRM, which ends a one-shot
 * run as Ctrl-C would. */
static void
on_signal(int sig)
{
	interrupted = 1;
	if (sig == SIGALRM)
		timed_out = 1;
	else if (sig != SIGINT)
		terminated = sig;
}


/* True when the buffer holds only blanks and line ends: nothing to ask. */
static int
blank(const struct mc_buf *b)
{
	return b->len == 0 || strspn(b->data, " \t\r\n\v\f") == b->len;
}

/* The one-shot message: PROMPT words, then piped stdin as a fenced block.
 * Words or input that are only blanks count as none. */
static char *
one_shot_text(int argc, char *argv[], int *status)
{
	struct mc_buf b = {0}, in = {0};
	int k;

	*status = MC_EXIT_OK;
	for (k = 0; k < argc; k++) {
		if (k)
			mc_buf_addc(&b, ' ');
		mc_buf_adds(&b, argv[k]);
	}
	if (b.len > 0 && !mc_utf8_valid(b.data, b.len)) {
		mc_err("PROMPT: not UTF-8 text");
		*status = MC_EXIT_FAIL;
		mc_buf_free(&b);
		return NULL;
	}
	if (!isatty(STDIN_FILENO)) {
		if (mc_fd_slurp(STDIN_FILENO, STDIN_CAP, &in) == -1) {
			if (errno == EFBIG)
				mc_err("standard input: over the %u-byte limit for piped input",
				    STDIN_CAP);
			else
				mc_err("standard input: %s", strerror(errno));
			*status = MC_EXIT_FAIL;
		} else if (!mc_utf8_valid(in.data ? in.data : "", in.len) ||
		    memchr(in.data ? in.data : "", '\0', in.len) != NULL) {
			mc_err("standard input: not UTF-8 text");
			*status = MC_EXIT_FAIL;
		}
		if (*status != MC_EXIT_OK) {
			mc_buf_free(&in);
			mc_buf_free(&b);
			return NULL;
		}
		if (blank(&in))
			in.len = 0;
	}
	if (blank(&b))
		b.len = 0;
	if (in.len > 0 && b.len == 0) {
		mc_buf_free(&b);
		return mc_buf_steal(&in);
	}
	if (in.len > 0) {
		mc_buf_adds(&b, "\n\n");
		mc_buf_fence(&b, "", in.data, in.len);
	}
	mc_buf_free(&in);
	if (b.len == 0) {
		mc_buf_free(&b);
		*status = mc_usage_error("nothing to ask: give a PROMPT, pipe one in, or run on a terminal");
		return NULL;
	}
	return mc_buf_steal(&b);
}

/*
 * --session ARG: a session id, or the path of a session's file: any path
 * whose file name is ID.jsonl in the directory $MC_HOME/sessions (however
 * that directory is written). The id (malloc'ed), or NULL after a usage
 * error.
 */
static char *
session_arg(const char *arg, const char *home)
{
	const char *name = strrchr(arg, '/') ? strrchr(arg, '/') + 1 : arg;
	size_t n = strlen(name);
	struct stat here, there;
	char *id, *dir, *sessions;
	int same;

	if (mc_session_id_valid(arg))
		return mc_strdup(arg);
	id = n > 6 && strcmp(name + n - 6, ".jsonl") == 0 ? mc_strndup(name, n - 6) : mc_strdup("");
	if (!mc_session_id_valid(id)) {
		free(id);
		mc_usage_error("--session: not a session id or file: %s", arg);
		return NULL;
	}
	if (name == arg)
		dir = mc_strdup(".");
	else
		dir = mc_strndup(arg, name - arg == 1 ? 1 : (size_t)(name - arg - 1));
	sessions = mc_path_join(home, "sessions");
	same = stat(dir, &here) == 0 && stat(sessions, &there) == 0 &&
	    here.st_dev == there.st_dev && here.st_ino == there.st_ino;
	if (!same) {
		mc_usage_error("--session: %s is not in %s", arg, sessions);
		free(id);
		id = NULL;
	}
	free(dir);
	free(sessions);
	return id;
}



static void
cleanup(struct driver *d)
{
	/* A session made for --json whose message never reached it holds
	 * nothing: it goes. */
	if (d->s.made && d->s.file.items == 0 && d->s.file.path != NULL)
		unlink(d->s.file.path);
	sandbox_told(d);
	send_stop(d, 0);
	build_stop(d);
	mc_buf_free(&d->build.out.buf);
	mc_buf_free(&d->build.args);
	mc_buf_free(&d->build.prompt);
	mc_buf_free(&d->build.tools);
	mcp_stop(d);
	lsp_stop(d);
	hooks_free(d);
	mcp_forget(d);
	mc_buf_free(&d->send.out.buf);
	session_forget(d);
	perms_free(d);
	mode_free(d);
	mc_buf_free(&d->s.prompt);
	mc_buf_free(&d->s.tools);
	mc_buf_free(&d->thought);
	attach_forget(d);
	tools_offered_free(d);
	toolsearch_forget(d);
	free(d->s.provider);
	free(d->s.model);
	free(d->c.cwd);
	commands_free();
	mc_env_free(d->c.keys);
	workspace_free(&d->c);
	mc_settings_free(&d->c.set);
	cJSON_Delete(d->c.schema_doc);
	subagents_free(d);
	checkpoint_free(d);
}

/* A run that failed before its turn: with --json the failure is an
 * event too, and done still ends the stream. */
/*
 * What would stop the run at its first request, found before anything
 * starts and said as a usage error (no stage's name on it): a --schema
 * file that cannot be read or is not a JSON object, read as mc-request
 * reads it; a provider -p names that the settings do not resolve. 0, or
 * MC_EXIT_USAGE after saying why.
 */
static int
args_usable(struct driver *d)
{
	struct mc_provider_opts o = { .provider = d->c.provider, .model = d->c.model };
	struct mc_provider p = {0};
	char err[1024];
	int r = 0;

	/* Kept: the answer is checked against it (turn.c). */
	if (d->c.schema != NULL &&
	    (d->c.schema_doc = mc_request_schema_read(d->c.schema, err, sizeof err)) == NULL)
		return mc_usage_error("--schema: %s", err);
	if (d->c.provider != NULL && mc_provider_resolve(&d->c.set, &o, &p, err, sizeof err) == -1)
		r = mc_usage_error("%s", err);
	mc_provider_free(&p);
	return r;
}

static int
fail_early(struct driver *d, char *session_id)
{
	ev_done(d, OUT_ERROR);
	cleanup(d);
	free(session_id);
	return MC_EXIT_FAIL;
}

/* A run with a message: the session resumed if asked, every stage
 * launched at once, then the turn. With --json the session comes first,
 * so that the first event can name it. */
static enum outcome
one_shot(struct driver *d, const char *text)
{
	if (((d->c.cont || d->c.session) && session_resume(d) == -1) || session_resolve(d) == -1 ||
	    attach_files(d) == -1)	/* attach.c: mc -a, before anything is sent */
		return OUT_ERROR;
	if (d->c.json) {
		title_first(d, text);	/* title.c */
		if (session_begin(d) == -1)
			return OUT_ERROR;
		d->s.made = d->s.file.fd != -1 && d->s.file.items == 0;
		ev_session(d);
	}
	mc_settings_warn(&d->c.set);	/* once for the run: the stages get -q */
	if (stages_launch(d) == -1)
		return interrupted ? OUT_CANCELLED : OUT_ERROR;
	return turn(d, text);
}

/* Ctrl-C, SIGTERM and SIGHUP (and --timeout's SIGALRM) caught, without
 * SA_RESTART: they interrupt the read of the line or of the answer. */
static void
catch_signals(int alarm_too)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (alarm_too)
		sigaction(SIGALRM, &sa, NULL);
}

/* -r: the session named by an id or its start (resume.c), or picked on
 * the terminal, as if given to --session. -1 to go on, or the exit
 * status. */
static int
resume_which(struct driver *d, char **session_id)
{
	int st;

	if (d->c.resume_arg != NULL)
		st = session_find(d->c.set.home, d->c.resume_arg, session_id);
	else {
		catch_signals(0);	/* Ctrl-C at the question: 130 */
		st = session_pick(d, session_id);
	}
	d->c.session = *session_id;
	return st;
}

/*
 * What a run needs before it starts: the settings (before --json's
 * events begin, so that the arguments they judge are usage errors
 * still; a failure to read them is the run's, an event), the keys kept
 * from every child but mc-send, the working directory, mc-send started
 * (its libcurl takes longest to load), the terminal, the hooks and the
 * approval rules. Returns -1 to go on, or the exit status.
 */
static int
setup(struct driver *d, struct cmdline *cl, char **session_id)
{
	char err[1024];
	const char *nc;
	int loaded, st, run = !cl->sessions_cmd && !cl->prompt_cmd;

	loaded = mc_settings_load(&d->c.set, err, sizeof err);
	if (loaded == 0 && !cl->sessions_cmd &&
	    (args_usable(d) != 0 || mode_init(d, cl->mode_opt) != 0)) {
		cJSON_Delete(d->c.schema_doc);
		d->c.schema_doc = NULL;
		mc_settings_free(&d->c.set);
		return MC_EXIT_USAGE;
	}
	/* A --json run is events from here on, its failures too (not its
	 * usage errors: no run began). */
	if (d->c.json && !cl->sessions_cmd)
		ev_json_mode(d);
	if (loaded == -1) {
		mc_err("%s", err);
		return fail_early(d, NULL);
	}
	if (d->c.session &&
	    (d->c.session = *session_id = session_arg(d->c.session, d->c.set.home)) == NULL) {
		mc_settings_free(&d->c.set);
		return MC_EXIT_USAGE;
	}
	/* No child but mc-send holds a key: not the stages, not mc-tool and
	 * what it runs, not this process's /proc/PID/environ. */
	d->c.keys = mc_keys_keep(&d->c.set);
	if ((d->c.cwd = realpath(".", NULL)) == NULL) {
		mc_err(".: %s", strerror(errno));
		return fail_early(d, *session_id);
	}
	workspace_init(&d->c);
	if (d->c.resume && (st = resume_which(d, session_id)) != -1) {
		if (st == MC_EXIT_FAIL)
			return fail_early(d, *session_id);
		ev_done(d, OUT_ERROR);	/* --json: the stream still ends */
		cleanup(d);
		free(*session_id);
		return st;
	}
	/* commands.c: mc /NAME ARGS, the command's prompt as the operands */
	if (cl->custom && (st = commands_one_shot(d, &cl->argc, &cl->argv)) != 0) {
		if (st != MC_EXIT_USAGE)
			return fail_early(d, *session_id);
		ev_done(d, OUT_ERROR);	/* --json: the stream still ends */
		cleanup(d);
		free(*session_id);
		return st;
	}
	if (run && !d->c.dry && send_start(d) == -1)
		return fail_early(d, *session_id);
	d->t.out = isatty(STDOUT_FILENO);
	nc = getenv("NO_COLOR");
	d->t.color = d->t.out && (nc == NULL || *nc == '\0') &&
	    !(getenv("TERM") && strcmp(getenv("TERM"), "dumb") == 0);
	/* hooks.c, permissions.c: checked, and compiled once, before
	 * anything runs or is sent */
	if (run && (hooks_load(d) == -1 || perms_load(d) == -1))
		return fail_early(d, *session_id);
	if (!d->c.json && (!run || (cl->argc == 0 && isatty(STDIN_FILENO))))
		mc_settings_warn(&d->c.set);	/* once for the run: the stages get -q */
	return -1;
}

/* The run itself: `mc sessions`, `mc prompt`, an interactive session or
 * a one-shot run. Returns the exit status. */
static int
run(struct driver *d, const struct cmdline *cl)
{
	enum outcome o;
	char *text;
	int status;

	if (cl->models_cmd)
		return models_list(d);	/* modellist.c */
	if (cl->sessions_cmd)
		return sessions_list(d, cl->all);
	if (cl->prompt_cmd) {
		session_resolve(d);
		fflush(stdout);
		return stages_prompt(d, d->c.stats, 1, STDOUT_FILENO, NULL) == 0 ?
		    MC_EXIT_OK : MC_EXIT_FAIL;
	}
	if (cl->acp_cmd) {	/* acp.c: an editor's agent, on stdin and stdout */
		catch_signals(0);
		return acp_main(d);
	}
	if (cl->argc == 0 && isatty(STDIN_FILENO) && !d->c.dry) {
		catch_signals(0);
		if (((d->c.cont || d->c.session) && session_resume(d) == -1) ||
		    session_resolve(d) == -1 || attach_files(d) == -1 || stages_launch(d) == -1)
			return MC_EXIT_FAIL;
		return interactive(d);
	}
	if ((text = one_shot_text(cl->argc, cl->argv, &status)) == NULL) {
		if (status == MC_EXIT_FAIL)
			ev_done(d, OUT_ERROR);	/* the piped input */
		return status;
	}
	catch_signals(1);
	alarm((unsigned)cl->timeout);
	o = one_shot(d, text);
	alarm(0);
	if (timed_out && o == OUT_CANCELLED) {
		o = OUT_TIMEOUT;
		mc_err("stopped after %lld seconds (--timeout or MC_TIMEOUT)", cl->timeout);
	}
	ev_done(d, o);
	free(text);
	return outcome_status(o);
}

int
main(int argc, char *argv[])
{
	struct driver d = { .c = { .max_steps = 50, .slot_fd = -1 } };
	struct cmdline cl = {0};
	char *session_id = NULL;
	int status;

	mc_init("mc", argv);
	if (argc > 1 && strcmp(argv[1], "rewind") == 0)	/* rewind.c */
		return rewind_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "completion") == 0)	/* completion.c */
		return completion_main(argc - 1, argv + 1);
	if (argc > 2 && strcmp(argv[1], "sessions") == 0 && strcmp(argv[2], "export") == 0)
		return export_main(argc - 2, argv + 2);	/* export.c */
	/* Characters, for the line editor and the terminal's widths; messages
	 * and numbers stay those of the C locale. */
	setlocale(LC_CTYPE, "");
	/* A stage that dies early closes the pipe the driver writes to; that
	 * is its failure to report, not a reason to end the session. The
	 * stages get SIGPIPE's default back when they start. */
	signal(SIGPIPE, SIG_IGN);
	mc_session_memory(&d.s.file);
	if ((status = options_parse(&d, &cl, argc, argv)) != -1 ||	/* options.c */
	    (status = setup(&d, &cl, &session_id)) != -1)
		return status;
	status = run(&d, &cl);
	cleanup(&d);
	free(session_id);
	if (terminated) {
		/* Ended as the signal would have ended it, once the session is
		 * safe. */
		mc_finish(status);
		signal(terminated, SIG_DFL);
		raise(terminated);
	}
	return mc_finish(status);
}
