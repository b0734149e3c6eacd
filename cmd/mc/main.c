/* mc: the driver: one-shot and interactive sessions composed from the suite's programs. */
#include <errno.h>
#include <getopt.h>
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
#include "profile.h"
#include "provider.h"
#include "request.h"
#include "toolenv.h"
#include "utf8.h"

static const char usage[] =
    "usage: mc [-c | --session ID|FILE] [-p NAME] [-m ID] [--agent ID] [-y | --mode MODE]\n"
    "          [--max-steps N]\n"
    "          [--json] [--no-session] [--schema FILE] [--max-output-tokens N]\n"
    "          [--keep-going] [--cache] [--refresh] [--add-dir DIR ...] [--timeout S]\n"
    "          [PROMPT ...]\n"
    "       mc --subagent ID ... [--parent SESSION] [--allow TOOL ...]\n"
    "          [--slots DIR [--slot-fd N]] [options] PROMPT ...\n"
    "       mc [-c | --session ID|FILE] [-p NAME] [-m ID] [--agent ID] --dry-run PROMPT ...\n"
    "       mc prompt [-m ID] [--agent ID | --subagent ID ...] [--stats]\n"
    "       mc sessions [--all] [--json]\n"
    "       mc models [-p NAME] [--json]\n"
    "       mc completion bash|zsh|fish\n"
    "       mc rewind [--session ID] [--list] [--force] [--files | --conversation] [TURN]\n"
    "\n"
    "Ask the model; with no PROMPT on a terminal, start an interactive session.\n"
    "Piped standard input is appended to PROMPT as a fenced block.\n"
    "\n"
    "  -c, --continue    resume the latest session of this directory\n"
    "  --session ID      resume session ID (or its file, $MC_HOME/sessions/ID.jsonl)\n"
    "  -p, --provider N  use provider N\n"
    "  -m, --model ID    use model ID\n"
    "  --agent ID        take the role of $MC_HOME/agents/ID.md\n"
    "  -y, --yes         allow write, edit and bash without asking (--mode yes)\n"
    "  --mode MODE       default, accept-edits (write and edit in the working\n"
    "                    directory without asking), plan (read-only tools; the\n"
    "                    answer is a plan) or yes\n"
    "  --max-steps N     send at most N times per message (default 50)\n"
    "  --json            one-shot: the run as JSON Lines events on stdout\n"
    "  --no-session      one-shot: keep no session file\n"
    "  --schema FILE     the answer must be JSON matching the JSON Schema in FILE\n"
    "  --max-output-tokens N  cap each answer at N tokens\n"
    "  --keep-going      go on when an instruction file is refused (over a cap, ...)\n"
    "  --cache           one-shot: answers kept in $MC_HOME/cache are reused, new\n"
    "                    ones kept (MC_CACHE=1 or the setting cache.enabled too)\n"
    "  --refresh         one-shot: as --cache, but ask the model again (given both,\n"
    "                    --refresh wins)\n"
    "  --timeout S       one-shot: stop after S seconds as Ctrl-C would, exit 124\n"
    "                    (MC_TIMEOUT too)\n"
    "  --subagent ID     run as the subagent $MC_HOME/subagents/ID.md (repeat, ancestors\n"
    "                    first; the subagents tool starts such runs)\n"
    "  --parent SESSION  a subagent run: the session that started it, for its header\n"
    "  --allow TOOL      allow TOOL (write, edit, bash, an MCP tool; read, grep or\n"
    "                    find outside the workspace) without asking; repeatable\n"
    "  --slots DIR       a subagent run: its tree's slots (subagents.max_total)\n"
    "  --slot-fd N       a subagent run: the slot its parent gave it, open as fd N\n"
    "  --add-dir DIR     read, grep and find in DIR too without asking; repeatable\n"
    "  --dry-run         print the request envelope instead of sending it\n"
    "  --stats           with prompt: a table of the prompt's sections and of the\n"
    "                    tool schemas sent beside it\n"
    "  --all             with sessions: every directory's\n"
    "  -h, --help        show this help\n"
    "  --version         show the version\n"
    "\n"
    "Exit status: 0 done, 1 failed, 2 usage, 3 incomplete (--max-steps or the\n"
    "output limit; `mc -c` goes on), 124 timed out (--timeout), 130 interrupted.\n"
    "\n"
    "Settings: $MC_HOME/settings.json (MC_HOME defaults to ~/.magi-code); its \"hooks\"\n"
    "run commands of yours before and after tool calls, when a session starts and\n"
    "when the model is done (HOOKS in mc(1)).\n"
    "Environment: MC_HOME; MC_PROVIDER, MC_MODEL and MC_BASE_URL (over the settings);\n"
    "the provider's key variable: OPENAI_API_KEY (openai), OPENROUTER_API_KEY\n"
    "(openrouter), or the \"api_key_env\" a provider's settings name; NO_COLOR.\n"
    "See mc(1).\n";

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

/* --timeout, else MC_TIMEOUT: seconds for a one-shot run; 0: no limit;
 * -1 after a usage error. */
static long long
run_timeout(const char *opt)
{
	const char *v = opt != NULL ? opt : getenv("MC_TIMEOUT");
	long long s;
	int bad = 0;

	if (v == NULL || (opt == NULL && *v == '\0'))
		return 0;
	s = mc_opt_num(opt != NULL ? "--timeout" : "MC_TIMEOUT", v, 1, 31536000, &bad);
	return bad ? -1 : s;
}

/* The longest run of backticks in s, to pick a fence that holds it. */
static size_t
longest_backticks(const char *s)
{
	size_t best = 0, run = 0;

	for (; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
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
	size_t fence, i;
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
		fence = longest_backticks(in.data) + 1;
		if (fence < 3)
			fence = 3;
		mc_buf_adds(&b, "\n\n");
		for (i = 0; i < fence; i++)
			mc_buf_addc(&b, '`');
		mc_buf_addc(&b, '\n');
		mc_buf_add(&b, in.data, in.len);
		if (in.data[in.len - 1] != '\n')
			mc_buf_addc(&b, '\n');
		for (i = 0; i < fence; i++)
			mc_buf_addc(&b, '`');
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

/* --subagent ID: a child run's profile, after its ancestors'. */
static int
subagent_opt(struct conf *c, const char *id)
{
	if (!mc_profile_id_valid(MC_PROFILE_SUBAGENT, id, strlen(id)))
		return mc_usage_error("--subagent: invalid profile id \"%s\" (%s)", id,
		    mc_profile_id_rule(MC_PROFILE_SUBAGENT));
	if (c->depth == MC_SUBAGENT_DEPTH)
		return mc_usage_error("--subagent: at most %d levels of subagents",
		    MC_SUBAGENT_DEPTH);
	c->subagent[c->depth++] = id;
	return 0;
}

/* --subagent starts a new one-shot session (or, with `mc prompt`, shows
 * a child's prompt). */
static int
child_usage(const struct conf *c, int prompt_cmd, int sessions_cmd, int argc)
{
	if (sessions_cmd)
		return 0;	/* said above */
	if (c->depth && c->agent)
		return mc_usage_error("--agent is the main session's role, --subagent a child's: not both");
	if (c->parent && !c->depth)
		return mc_usage_error("--parent goes with --subagent");
	if (c->depth && (c->cont || c->session))
		return mc_usage_error("--subagent starts a session of its own: not with -c or --session");
	if (c->depth && !prompt_cmd && argc == 0 && isatty(STDIN_FILENO) && !c->dry)
		return mc_usage_error("--subagent is for one-shot runs (mc --subagent ID PROMPT)");
	return 0;
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
	tools_offered_free(d);
	toolsearch_forget(d);
	free(d->s.provider);
	free(d->s.model);
	free(d->c.cwd);
	commands_free();
	mc_env_free(d->c.keys);
	workspace_free(&d->c);
	mc_settings_free(&d->c.set);
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
	cJSON *schema;
	int r = 0;

	if (d->c.schema != NULL) {
		if ((schema = mc_request_schema_read(d->c.schema, err, sizeof err)) == NULL)
			return mc_usage_error("--schema: %s", err);
		cJSON_Delete(schema);
	}
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
	if (((d->c.cont || d->c.session) && session_resume(d) == -1) || session_resolve(d) == -1)
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

int
main(int argc, char *argv[])
{
	enum { OPT_SESSION = 256, OPT_AGENT, OPT_DRY, OPT_STATS, OPT_MAX_STEPS, OPT_JSON,
	    OPT_NO_SESSION, OPT_SCHEMA, OPT_MAX_OUTPUT, OPT_ALL, OPT_KEEP_GOING,
	    OPT_CACHE, OPT_REFRESH, OPT_SUBAGENT, OPT_PARENT, OPT_ALLOW, OPT_ADD_DIR, OPT_SLOTS,
	    OPT_SLOT_FD, OPT_TIMEOUT, OPT_MODE };
	static const struct option longopts[] = {
		{ "continue", no_argument, NULL, 'c' },
		{ "session", required_argument, NULL, OPT_SESSION },
		{ "provider", required_argument, NULL, 'p' },
		{ "model", required_argument, NULL, 'm' },
		{ "agent", required_argument, NULL, OPT_AGENT },
		{ "dry-run", no_argument, NULL, OPT_DRY },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "max-steps", required_argument, NULL, OPT_MAX_STEPS },
		{ "yes", no_argument, NULL, 'y' },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "no-session", no_argument, NULL, OPT_NO_SESSION },
		{ "schema", required_argument, NULL, OPT_SCHEMA },
		{ "max-output-tokens", required_argument, NULL, OPT_MAX_OUTPUT },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "keep-going", no_argument, NULL, OPT_KEEP_GOING },
		{ "cache", no_argument, NULL, OPT_CACHE },
		{ "refresh", no_argument, NULL, OPT_REFRESH },
		{ "subagent", required_argument, NULL, OPT_SUBAGENT },
		{ "parent", required_argument, NULL, OPT_PARENT },
		{ "allow", required_argument, NULL, OPT_ALLOW },
		{ "add-dir", required_argument, NULL, OPT_ADD_DIR },
		{ "slots", required_argument, NULL, OPT_SLOTS },
		{ "slot-fd", required_argument, NULL, OPT_SLOT_FD },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, MC_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct driver d = { .c = { .max_steps = 50, .slot_fd = -1 } };
	struct sigaction sa = { .sa_handler = on_signal };
	int c, status, loaded, prompt_cmd = 0, sessions_cmd = 0, steps_set = 0, all = 0, bad = 0;
	int custom = 0, models_cmd = 0;
	enum outcome o;
	char err[1024], *text, *session_id = NULL;
	const char *nc, *timeout_opt = NULL, *mode_opt = NULL;
	long long timeout;

	mc_init("mc", argv);
	if (argc > 1 && strcmp(argv[1], "rewind") == 0)	/* rewind.c */
		return rewind_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "completion") == 0)	/* completion.c */
		return completion_main(argc - 1, argv + 1);
	/* Characters, for the line editor and the terminal's widths; messages
	 * and numbers stay those of the C locale. */
	setlocale(LC_CTYPE, "");
	/* A stage that dies early closes the pipe the driver writes to; that
	 * is its failure to report, not a reason to end the session. The
	 * stages get SIGPIPE's default back when they start. */
	signal(SIGPIPE, SIG_IGN);
	mc_session_memory(&d.s.file);
	while ((c = getopt_long(argc, argv, "cp:m:yh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d.c.cont = 1;
			break;
		case OPT_SESSION:
			d.c.session = optarg;
			break;
		case 'p':
			d.c.provider = optarg;
			break;
		case 'm':
			d.c.model = optarg;
			break;
		case OPT_AGENT:
			d.c.agent = optarg;
			break;
		case OPT_DRY:
			d.c.dry = 1;
			break;
		case OPT_STATS:
			d.c.stats = 1;
			break;
		case OPT_MAX_STEPS:
			d.c.max_steps = mc_opt_num("--max-steps", optarg, 1, 10000, &bad);
			steps_set = 1;
			break;
		case 'y':
			d.c.yes = 1;
			break;
		case OPT_MODE:	/* modes.c */
			if (mode_parse(optarg) == -1)
				return mc_usage_error("--mode: unknown mode \"%s\" (default, accept-edits, "
				    "plan or yes)", optarg);
			mode_opt = optarg;
			break;
		case OPT_TIMEOUT:
			timeout_opt = optarg;
			break;
		case OPT_JSON:
			d.c.json = 1;
			break;
		case OPT_NO_SESSION:
			d.c.no_session = 1;
			break;
		case OPT_SCHEMA:
			d.c.schema = optarg;
			break;
		case OPT_MAX_OUTPUT:
			mc_opt_num("--max-output-tokens", optarg, 1, 100000000, &bad);
			d.c.max_output = optarg;
			break;
		case OPT_ALL:
			all = 1;
			break;
		case OPT_KEEP_GOING:
			d.c.keep_going = 1;
			break;
		case OPT_CACHE:	/* mc-send's own options, passed on; */
			if (d.c.cache == NULL)	/* --refresh wins over --cache */
				d.c.cache = "--cache";
			break;
		case OPT_REFRESH:
			d.c.cache = "--refresh";
			break;
		case OPT_SUBAGENT:	/* a child run of subagents.c */
			if (subagent_opt(&d.c, optarg) != 0)
				return MC_EXIT_USAGE;
			break;
		case OPT_PARENT:
			if (!mc_session_id_valid(optarg))
				return mc_usage_error("--parent: not a session id: %s", optarg);
			d.c.parent = optarg;
			break;
		case OPT_ALLOW:
			if (*optarg == '\0')
				return mc_usage_error("--allow: an empty tool name");
			if (d.c.nallow == MC_ALLOW_MAX)
				return mc_usage_error("--allow: at most %d tools", MC_ALLOW_MAX);
			d.c.allow[d.c.nallow++] = optarg;
			break;
		case OPT_ADD_DIR:	/* workspace.c */
			if (workspace_add(&d.c, optarg) != 0)
				return MC_EXIT_USAGE;
			break;
		case OPT_SLOTS:		/* slots.c */
			d.c.slots = optarg;
			break;
		case OPT_SLOT_FD:
			d.c.slot_fd = (int)mc_opt_num("--slot-fd", optarg, 3, 1 << 20, &bad);
			break;
		default:	/* -h, --version or a bad option */
			return mc_opt_exit(c, usage);
		}
		if (bad)
			return MC_EXIT_USAGE;
	}
	/* `mc prompt`, unless written `mc -- prompt` to ask about the word. */
	if (argc - optind == 1 && strcmp(argv[optind - 1], "--") != 0) {
		prompt_cmd = strcmp(argv[optind], "prompt") == 0;
		sessions_cmd = strcmp(argv[optind], "sessions") == 0;
		models_cmd = strcmp(argv[optind], "models") == 0;	/* modellist.c */
	}
	if (models_cmd && (d.c.cont || d.c.session || d.c.dry || d.c.model || d.c.yes ||
	    d.c.no_session || d.c.schema || d.c.max_output || d.c.agent || steps_set || all ||
	    d.c.cache || d.c.depth || d.c.parent || d.c.nallow || mode_opt || timeout_opt))
		return mc_usage_error("`mc models` takes only -p and --json");
	custom = argc > optind && strcmp(argv[optind - 1], "--") != 0 &&
	    commands_word(argv[optind]);	/* mc /NAME ARGS: commands.c */
	argc -= optind;
	argv += optind;
	if (d.c.cont && d.c.session)
		return mc_usage_error("-c and --session cannot be used together");
	if (d.c.stats && !prompt_cmd)
		return mc_usage_error("--stats goes with `mc prompt`");
	if (prompt_cmd && (d.c.cont || d.c.session || d.c.dry || d.c.provider || d.c.yes ||
	    steps_set || d.c.parent || d.c.nallow || mode_opt))
		return mc_usage_error("`mc prompt` takes only -m, --agent, --subagent and --stats");
	if (d.c.dry && argc == 0 && isatty(STDIN_FILENO))
		return mc_usage_error("--dry-run needs a PROMPT");
	if (all && !sessions_cmd)
		return mc_usage_error("--all goes with `mc sessions`");
	if (sessions_cmd && (d.c.cont || d.c.session || d.c.dry || d.c.provider || d.c.model ||
	    d.c.yes || d.c.no_session || d.c.schema || d.c.max_output || d.c.agent || steps_set ||
	    d.c.cache || d.c.depth || d.c.parent || d.c.nallow || mode_opt))
		return mc_usage_error("`mc sessions` takes only --all and --json");
	if (models_cmd)
		sessions_cmd = 1;	/* no stage, no session, no run: as mc sessions */
	if (child_usage(&d.c, prompt_cmd, sessions_cmd, argc) != 0 || slots_usage(&d.c) != 0)
		return MC_EXIT_USAGE;
	if (!sessions_cmd && (d.c.json || d.c.no_session) && (prompt_cmd || d.c.dry ||
	    (argc == 0 && isatty(STDIN_FILENO))))
		return mc_usage_error("%s is for one-shot runs (mc %s PROMPT)",
		    d.c.json ? "--json" : "--no-session", d.c.json ? "--json" : "--no-session");
	if (d.c.cache != NULL && (prompt_cmd || sessions_cmd || d.c.dry ||
	    (argc == 0 && isatty(STDIN_FILENO))))
		return mc_usage_error("%s is for one-shot runs (mc %s PROMPT)", d.c.cache, d.c.cache);

	if ((timeout = run_timeout(timeout_opt)) == -1)
		return MC_EXIT_USAGE;
	if (timeout_opt != NULL && (prompt_cmd || sessions_cmd || d.c.dry ||
	    (argc == 0 && isatty(STDIN_FILENO))))
		return mc_usage_error("--timeout is for one-shot runs (mc --timeout S PROMPT)");

	/* The settings are read before --json's events begin, so that the
	 * arguments they judge are usage errors still; a failure to read
	 * them is the run's, an event. */
	loaded = mc_settings_load(&d.c.set, err, sizeof err);
	if (loaded == 0 && !sessions_cmd && (args_usable(&d) != 0 || mode_init(&d, mode_opt) != 0)) {
		mc_settings_free(&d.c.set);
		return MC_EXIT_USAGE;
	}
	/* A --json run is events from here on, its failures too (not its
	 * usage errors: no run began). */
	if (d.c.json && !sessions_cmd)
		ev_json_mode(&d);
	if (loaded == -1) {
		mc_err("%s", err);
		return fail_early(&d, NULL);
	}
	if (d.c.session && (d.c.session = session_id = session_arg(d.c.session, d.c.set.home)) == NULL) {
		mc_settings_free(&d.c.set);
		return MC_EXIT_USAGE;
	}
	/* No child but mc-send holds a key: not the stages, not mc-tool and
	 * what it runs, not this process's /proc/PID/environ. */
	d.c.keys = mc_keys_keep(&d.c.set);
	if ((d.c.cwd = realpath(".", NULL)) == NULL) {
		mc_err(".: %s", strerror(errno));
		return fail_early(&d, session_id);
	}
	workspace_init(&d.c);
	if (custom && (status = commands_one_shot(&d, &argc, &argv)) != 0) {
		if (status == MC_EXIT_USAGE) {
			ev_done(&d, OUT_ERROR);	/* --json: the stream still ends */
			cleanup(&d);
			free(session_id);
			return status;
		}
		return fail_early(&d, session_id);
	}
	/* mc-send first, before the piped input or the session is read: its
	 * libcurl takes longest to load. */
	if (!d.c.dry && !prompt_cmd && !sessions_cmd && send_start(&d) == -1)
		return fail_early(&d, session_id);
	d.t.out = isatty(STDOUT_FILENO);
	nc = getenv("NO_COLOR");
	d.t.color = d.t.out && (nc == NULL || *nc == '\0') &&
	    !(getenv("TERM") && strcmp(getenv("TERM"), "dumb") == 0);
	/* Without SA_RESTART, Ctrl-C interrupts the read of the line or of
	 * the answer. */
	sigemptyset(&sa.sa_mask);
	/* hooks.c: a session's hooks, checked before anything runs or is sent */
	if (!sessions_cmd && !prompt_cmd && hooks_load(&d) == -1)
		return fail_early(&d, session_id);
	/* permissions.c: the approval rules, compiled once */
	if (!sessions_cmd && !prompt_cmd && perms_load(&d) == -1)
		return fail_early(&d, session_id);

	if (!d.c.json && (sessions_cmd || prompt_cmd || (argc == 0 && isatty(STDIN_FILENO))))
		mc_settings_warn(&d.c.set);	/* once for the run: the stages get -q */
	if (models_cmd) {
		status = models_list(&d);
	} else if (sessions_cmd) {
		status = sessions_list(&d, all);
	} else if (prompt_cmd) {
		session_resolve(&d);
		fflush(stdout);
		status = stages_prompt(&d, d.c.stats, 1, STDOUT_FILENO, NULL) == 0 ?
		    MC_EXIT_OK : MC_EXIT_FAIL;
	} else if (argc == 0 && isatty(STDIN_FILENO) && !d.c.dry) {
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		status = MC_EXIT_OK;
		if (((d.c.cont || d.c.session) && session_resume(&d) == -1) ||
		    session_resolve(&d) == -1)
			status = MC_EXIT_FAIL;
		if (status == MC_EXIT_OK)
			status = stages_launch(&d) == -1 ? MC_EXIT_FAIL : interactive(&d);
	} else if ((text = one_shot_text(argc, argv, &status)) != NULL) {
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sigaction(SIGALRM, &sa, NULL);
		alarm((unsigned)timeout);
		o = one_shot(&d, text);
		alarm(0);
		if (timed_out && o == OUT_CANCELLED) {
			o = OUT_TIMEOUT;
			mc_err("stopped after %lld seconds (--timeout or MC_TIMEOUT)", timeout);
		}
		ev_done(&d, o);
		status = outcome_status(o);
		free(text);
	} else if (status == MC_EXIT_FAIL) {
		ev_done(&d, OUT_ERROR);	/* the piped input */
	}
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
