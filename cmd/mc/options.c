/* options.c: mc's command line: its usage, its options into the driver's
 * configuration, and the usage errors found before anything starts. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "mc.h"
#include "profile.h"
#include "reasoning.h"
#include "session.h"

static const char usage[] =
    "usage: mc [-c | --session ID|FILE | -r [ID|PREFIX]] [--fork] [-p NAME] [-m ID]\n"
    "          [--agent ID] [-y | --mode MODE] [--max-steps N]\n"
    "          [--json] [--no-session] [--schema FILE] [--max-output-tokens N]\n"
    "          [--reasoning LEVEL] [-a FILE ...]\n"
    "          [--keep-going] [--cache] [--refresh] [--add-dir DIR ...] [--timeout S]\n"
    "          [PROMPT ...]\n"
    "       mc --subagent ID ... [--parent SESSION] [--allow TOOL ...]\n"
    "          [--slots DIR [--slot-fd N]] [options] PROMPT ...\n"
    "       mc [-c | --session ID|FILE] [-p NAME] [-m ID] [--agent ID] --dry-run PROMPT ...\n"
    "       mc prompt [-m ID] [--agent ID | --subagent ID ...] [--stats]\n"
    "       mc sessions [--all] [--json]\n"
    "       mc sessions export ID|PREFIX [--markdown | --json]\n"
    "       mc models [-p NAME] [--json]\n"
    "       mc [-p NAME] [-m ID] [--agent ID] [-y | --mode MODE] [--max-steps N] acp\n"
    "       mc completion bash|zsh|fish\n"
    "       mc rewind [--session ID] [--list] [--force] [--files | --conversation] [TURN]\n"
    "\n"
    "Ask the model; with no PROMPT on a terminal, start an interactive session.\n"
    "Piped standard input is appended to PROMPT as a fenced block.\n"
    "\n"
    "  -c, --continue    resume the latest session of this directory\n"
    "  --session ID      resume session ID (or its file, $MC_HOME/sessions/ID.jsonl)\n"
    "  -r, --resume [ID]  resume the session whose id is or starts with ID (the\n"
    "                    next word, unless it starts with -); without one, pick\n"
    "                    one of this directory's on the terminal\n"
    "  --fork            with -c, --session or -r: go on in a copy of the session\n"
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
    "  --reasoning LEVEL  reasoning effort: minimal, low, medium, high or off\n"
    "  -a, --attach FILE attach the image FILE (PNG, JPEG, GIF or WebP, at most\n"
    "                    20 MiB) to the message (the first one); repeatable\n"
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
	if (c->depth && (c->cont || c->session || c->resume))
		return mc_usage_error("--subagent starts a session of its own: not with -c, --session "
		    "or -r");
	if (c->depth && !prompt_cmd && argc == 0 && isatty(STDIN_FILENO) && !c->dry)
		return mc_usage_error("--subagent is for one-shot runs (mc --subagent ID PROMPT)");
	return 0;
}

/* mc's options: getopt_long's table, and completion.c's. */
enum { OPT_SESSION = 256, OPT_AGENT, OPT_DRY, OPT_STATS, OPT_MAX_STEPS, OPT_JSON,
    OPT_NO_SESSION, OPT_SCHEMA, OPT_MAX_OUTPUT, OPT_ALL, OPT_KEEP_GOING,
    OPT_CACHE, OPT_REFRESH, OPT_SUBAGENT, OPT_PARENT, OPT_ALLOW, OPT_ADD_DIR, OPT_SLOTS,
    OPT_SLOT_FD, OPT_TIMEOUT, OPT_MODE, OPT_REASONING, OPT_ATTACH, OPT_FORK };
static const struct option longopts[] = {
	{ "continue", no_argument, NULL, 'c' },
	{ "session", required_argument, NULL, OPT_SESSION },
	{ "resume", optional_argument, NULL, 'r' },
	{ "fork", no_argument, NULL, OPT_FORK },
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
	{ "reasoning", required_argument, NULL, OPT_REASONING },
	{ "attach", required_argument, NULL, 'a' },
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

const struct option *
options_table(void)
{
	return longopts;
}

/* The options that do not go together, or not with this kind of run:
 * -1 when none, else MC_EXIT_USAGE after saying which. */
static int
usage_checks(const struct conf *c, struct cmdline *cl)
{
	int argc = cl->argc, tty = argc == 0 && isatty(STDIN_FILENO);

	if (c->cont + (c->session != NULL) + c->resume > 1)
		return mc_usage_error("-c, --session and -r: one of them, not more");
	if (c->fork && !c->cont && !c->session && !c->resume)
		return mc_usage_error("--fork goes with -c, --session or -r (the session to fork)");
	if (c->fork && c->no_session)
		return mc_usage_error("--fork makes a session file: not with --no-session");
	if (c->resume && c->resume_arg == NULL && !isatty(STDIN_FILENO))
		return mc_usage_error("-r without an ID picks a session on a terminal; give "
		    "mc -r ID (or the start of one)");
	if (c->stats && !cl->prompt_cmd)
		return mc_usage_error("--stats goes with `mc prompt`");
	if (cl->prompt_cmd && (c->cont || c->session || c->resume || c->fork || c->dry || c->provider || c->yes ||
	    cl->steps_set || c->parent || c->nallow || cl->mode_opt))
		return mc_usage_error("`mc prompt` takes only -m, --agent, --subagent and --stats");
	if (c->dry && tty)
		return mc_usage_error("--dry-run needs a PROMPT");
	if (c->nattach > 0 && (cl->prompt_cmd || cl->sessions_cmd || cl->models_cmd))
		return mc_usage_error("-a attaches an image to a message: not with `mc %s`",
		    cl->prompt_cmd ? "prompt" : cl->models_cmd ? "models" : "sessions");
	if (cl->all && !cl->sessions_cmd)
		return mc_usage_error("--all goes with `mc sessions`");
	if (cl->sessions_cmd && (c->cont || c->session || c->resume || c->fork || c->dry || c->provider || c->model ||
	    c->yes || c->no_session || c->schema || c->max_output || c->reasoning || c->agent ||
	    cl->steps_set ||
	    c->cache || c->depth || c->parent || c->nallow || cl->mode_opt))
		return mc_usage_error("`mc sessions` takes only --all and --json");
	if (cl->models_cmd)
		cl->sessions_cmd = 1;	/* no stage, no session, no run: as mc sessions */
	if (child_usage(c, cl->prompt_cmd, cl->sessions_cmd, argc) != 0 || slots_usage(c) != 0)
		return MC_EXIT_USAGE;
	if (!cl->sessions_cmd && (c->json || c->no_session) && (cl->prompt_cmd || c->dry ||
	    tty))
		return mc_usage_error("%s is for one-shot runs (mc %s PROMPT)",
		    c->json ? "--json" : "--no-session", c->json ? "--json" : "--no-session");
	if (c->cache != NULL && (cl->prompt_cmd || cl->sessions_cmd || c->dry ||
	    tty))
		return mc_usage_error("%s is for one-shot runs (mc %s PROMPT)", c->cache, c->cache);

	if ((cl->timeout = run_timeout(cl->timeout_opt)) == -1)
		return MC_EXIT_USAGE;
	if (cl->timeout_opt != NULL && (cl->prompt_cmd || cl->sessions_cmd || c->dry ||
	    tty))
		return mc_usage_error("--timeout is for one-shot runs (mc --timeout S PROMPT)");
	return -1;
}

/*
 * The command line into d->c and *cl (the operands in cl->argc, cl->argv).
 * Returns -1 to go on, or the exit status: MC_EXIT_OK after --help or
 * --version, MC_EXIT_USAGE after saying what is wrong.
 */
int
options_parse(struct driver *d, struct cmdline *cl, int argc, char *argv[])
{
	struct conf *c = &d->c;
	int ch, bad = 0;

	while ((ch = getopt_long(argc, argv, "a:cp:m:yhr::", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			c->cont = 1;
			break;
		case OPT_SESSION:
			c->session = optarg;
			break;
		case 'r':	/* resume.c; its ID the next word, unless an option */
			c->resume = 1;
			if (optarg == NULL && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			c->resume_arg = optarg;
			break;
		case OPT_FORK:
			c->fork = 1;
			break;
		case 'p':
			c->provider = optarg;
			break;
		case 'm':
			c->model = optarg;
			break;
		case OPT_AGENT:
			c->agent = optarg;
			break;
		case OPT_DRY:
			c->dry = 1;
			break;
		case OPT_STATS:
			c->stats = 1;
			break;
		case OPT_MAX_STEPS:
			c->max_steps = mc_opt_num("--max-steps", optarg, 1, 10000, &bad);
			cl->steps_set = 1;
			break;
		case 'y':
			c->yes = 1;
			break;
		case OPT_MODE:	/* modes.c */
			if (mode_parse(optarg) == -1)
				return mc_usage_error("--mode: unknown mode \"%s\" (default, accept-edits, "
				    "plan or yes)", optarg);
			cl->mode_opt = optarg;
			break;
		case OPT_TIMEOUT:
			cl->timeout_opt = optarg;
			break;
		case OPT_JSON:
			c->json = 1;
			break;
		case OPT_NO_SESSION:
			c->no_session = 1;
			break;
		case OPT_SCHEMA:
			c->schema = optarg;
			break;
		case OPT_MAX_OUTPUT:
			mc_opt_num("--max-output-tokens", optarg, 1, 100000000, &bad);
			c->max_output = optarg;
			break;
		case OPT_REASONING:
			if (!mc_reasoning_valid(optarg))
				return mc_usage_error("--reasoning: expected minimal, low, medium, high "
				    "or off, not \"%s\"", optarg);
			c->reasoning = optarg;
			break;
		case 'a':	/* attach.c */
			if (*optarg == '\0')
				return mc_usage_error("-a: an empty file name");
			if (c->nattach == MC_ATTACH_MAX)
				return mc_usage_error("-a: at most %d images", MC_ATTACH_MAX);
			c->attach[c->nattach++] = optarg;
			break;
		case OPT_ALL:
			cl->all = 1;
			break;
		case OPT_KEEP_GOING:
			c->keep_going = 1;
			break;
		case OPT_CACHE:	/* mc-send's own options, passed on; */
			if (c->cache == NULL)	/* --refresh wins over --cache */
				c->cache = "--cache";
			break;
		case OPT_REFRESH:
			c->cache = "--refresh";
			break;
		case OPT_SUBAGENT:	/* a child run of subrun.c */
			if (subagent_opt(c, optarg) != 0)
				return MC_EXIT_USAGE;
			break;
		case OPT_PARENT:
			if (!mc_session_id_valid(optarg))
				return mc_usage_error("--parent: not a session id: %s", optarg);
			c->parent = optarg;
			break;
		case OPT_ALLOW:
			if (*optarg == '\0')
				return mc_usage_error("--allow: an empty tool name");
			if (c->nallow == MC_ALLOW_MAX)
				return mc_usage_error("--allow: at most %d tools", MC_ALLOW_MAX);
			c->allow[c->nallow++] = optarg;
			break;
		case OPT_ADD_DIR:	/* workspace.c */
			if (workspace_add(c, optarg) != 0)
				return MC_EXIT_USAGE;
			break;
		case OPT_SLOTS:		/* slots.c */
			c->slots = optarg;
			break;
		case OPT_SLOT_FD:
			c->slot_fd = (int)mc_opt_num("--slot-fd", optarg, 3, 1 << 20, &bad);
			break;
		default:	/* -h, --version or a bad option */
			return mc_opt_exit(ch, usage);
		}
		if (bad)
			return MC_EXIT_USAGE;
	}
	/* `mc prompt`, unless written `mc -- prompt` to ask about the word. */
	if (argc - optind == 1 && strcmp(argv[optind - 1], "--") != 0) {
		cl->prompt_cmd = strcmp(argv[optind], "prompt") == 0;
		cl->sessions_cmd = strcmp(argv[optind], "sessions") == 0;
		cl->models_cmd = strcmp(argv[optind], "models") == 0;	/* modellist.c */
		cl->acp_cmd = strcmp(argv[optind], "acp") == 0;	/* acp.c */
		if (!cl->prompt_cmd && !cl->sessions_cmd && !cl->models_cmd && !cl->acp_cmd &&
		    c->depth == 0 &&
		    !commands_word(argv[optind]))
			near_miss(argv[optind]);	/* nearmiss.c */
	}
	if (cl->models_cmd && (c->cont || c->session || c->resume || c->fork || c->dry || c->model || c->yes ||
	    c->no_session || c->schema || c->max_output || c->reasoning || c->agent ||
	    cl->steps_set || cl->all || c->cache || c->depth || c->parent || c->nallow ||
	    cl->mode_opt || cl->timeout_opt))
		return mc_usage_error("`mc models` takes only -p and --json");
	if (cl->acp_cmd && (c->cont || c->session || c->dry || c->no_session || c->json ||
	    c->schema || c->cache || c->depth || c->parent || c->nallow || cl->all ||
	    cl->timeout_opt || c->stats))
		return mc_usage_error("`mc acp` takes only -p, -m, --agent, --yes, --mode, "
		    "--max-steps, --max-output-tokens, --reasoning, --keep-going and --add-dir");
	/* mc /NAME ARGS: a custom command (commands.c) */
	cl->custom = argc > optind && strcmp(argv[optind - 1], "--") != 0 &&
	    commands_word(argv[optind]);
	argc -= optind;
	argv += optind;
	cl->argc = argc;
	cl->argv = argv;
	return usage_checks(c, cl);
}
