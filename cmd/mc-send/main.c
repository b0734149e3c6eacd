/* mc-send: send request envelopes to the provider and stream each answer out as it arrives. */
#include <bsd/stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "json.h"
#include "mc-send.h"
#include "fsread.h"
#include "toolenv.h"

static const char usage[] =
    "usage: mc-send [-q] [--events | --items] [--items-out FILE] [--cache] [--refresh]\n"
    "               [--connect-timeout S] [--idle-timeout S] [--max-time S]\n"
    "               [--retries N] [--retry-max-wait S] [--preload] < ENVELOPE\n"
    "       mc-send --serve [-q] [--cache] [--refresh] [--connect-timeout S]\n"
    "               [--idle-timeout S] [--max-time S] [--retries N]\n"
    "               [--retry-max-wait S] [--preload] < ENVELOPES\n"
    "       mc-send --models [-q] [--connect-timeout S] [--idle-timeout S] < ENVELOPE\n"
    "\n"
    "Send the request envelope on stdin and write the answer as it arrives.\n"
    "\n"
    "  --events             normalized JSON Lines events instead of the text\n"
    "  --items              the new conversation items (JSON Lines) at the end\n"
    "  --items-out FILE     also write those items to FILE at the end\n"
    "  --serve              answer one envelope per line, as events, until the end\n"
    "                       of input, over one connection kept open\n"
    "  --models             GET the envelope's url (the provider's models list) and\n"
    "                       write the body as it came\n"
    "  --preload            load libcurl now, while the envelope is on its way\n"
    "                       (for https, a proxy or a host name; else on first use)\n"
    "  --cache              answer from $MC_HOME/cache when it holds the answer,\n"
    "                       else send and keep the answer there when whole\n"
    "  --refresh            send even so, and keep the new answer (with --cache too)\n"
    "  --connect-timeout S  give up connecting after S seconds (default 10)\n"
    "  --idle-timeout S     give up when nothing arrives for S seconds (default 120;\n"
    "                       600 for ollama, llamacpp and vllm); SSE comments and\n"
    "                       keep-alives do not count\n"
    "  --max-time S         give up when an exchange, retries included, takes more\n"
    "                       than S seconds (default: no limit)\n"
    "  --retries N          retry a failed request up to N times (default 3)\n"
    "  --retry-max-wait S   wait at most S seconds before a retry (default 60)\n"
    "  -q                   no warnings on stderr\n"
    "  -h, --help           show this help\n"
    "  --version            show the version\n"
    "\n"
    "The timeouts default to providers.NAME.connect_timeout_s and idle_timeout_s\n"
    "in $MC_HOME/settings.json for the envelope's provider. MC_CACHE=1 (or the\n"
    "setting cache.enabled) caches as --cache does; MC_CACHE=0 does not.\n"
    "Exit status: 0 done, 1 failed, 2 usage, 3 the answer was cut by the output\n"
    "limit, 130 interrupted.\n";

/* Set by the SIGINT handler; wake_pipe[1] wakes a waiting poll. */
volatile sig_atomic_t got_sigint;
static int wake_pipe[2] = { -1, -1 };
static char outbuf[1 << 16];	/* stdout's buffer when it is not a terminal */

static void
on_sigint(int sig)
{
	int e = errno;

	(void)sig;
	got_sigint = 1;
	if (wake_pipe[1] >= 0)
		(void)!write(wake_pipe[1], "", 1);
	errno = e;
}

/* A SIGTERM (mc ends the answer so when Ctrl-C cancels it) takes the
 * spinner off the terminal, which would keep it under what comes next. */
static void
on_sigterm(int sig)
{
	if (spin_shown)
		(void)!write(STDERR_FILENO, "\r\033[K", 4);
	raise(sig);	/* SA_RESETHAND: the default, the end */
}

/* The settings, for the timeouts; none when there is no home to look in. */
static int
load_settings(struct sender *sd)
{
	const char *h = getenv("MC_HOME"), *home = getenv("HOME");
	char err[1024];

	if ((h == NULL || *h == '\0') && (home == NULL || home[0] != '/'))
		return 0;
	if (mc_settings_load(&sd->settings, err, sizeof err) == -1) {
		mc_err("%s", err);
		return -1;
	}
	sd->have_settings = 1;
	return 0;
}

/* Write the items of an answer (text so far, marked incomplete, when it failed). */
static int
items(struct out *o, int status, FILE *itf)
{
	int whole = status == MC_EXIT_OK || status == MC_EXIT_INCOMPLETE;
	cJSON *msg = answer_message(o, whole);

	errno = 0;
	if (o->sd->mode == ITEMS && !o->sd->broken && write_items(o, msg, stdout, whole) == -1)
		o->sd->broken = errno ? errno : EIO;
	if (itf != NULL && write_items(o, msg, itf, whole) == -1) {
		mc_err("%s: %s", o->sd->items_out, strerror(errno));
		status = MC_EXIT_FAIL;
	}
	cJSON_Delete(msg);
	return status;
}

/*
 * Answer env into o (which the caller frees): the kept answer's events
 * when there are some, else the provider's answer, itself kept when keep
 * is set and it came whole.
 */
static int
answer(struct sender *sd, const struct envelope *env, const cJSON *kept, int keep,
    const char *auth, struct out *o)
{
	int status;

	out_init(o, sd, env->provider, auth_key(auth));
	if (kept != NULL)
		return cache_replay(o, kept);
	o->recording = keep;
	status = exchange(sd, env, auth, o, wake_pipe[0]);
	if (keep)
		cache_keep(sd, env, o, status);
	return status;
}

/* One envelope on stdin, as before --serve. */
static int
one(struct sender *sd)
{
	struct envelope env;
	struct out o;
	char err[1024], *auth = NULL;
	FILE *itf = NULL;
	struct mc_buf in = {0};
	cJSON *doc = NULL, *kept = NULL;
	int keep, status = MC_EXIT_FAIL;

	env = (struct envelope){0};
	if (mc_fd_slurp(STDIN_FILENO, MC_JSON_MAX, &in) == -1) {
		if (errno == EFBIG)
			mc_err("envelope: input is over the %u-byte limit", MC_JSON_MAX);
		else
			mc_err("envelope: read: %s", strerror(errno));
		goto out;
	}
	if (in.len == strspn(in.data ? in.data : "", " \t\r\n")) {
		mc_err("no envelope on stdin");
		goto out;
	}
	if (envelope_parse(in.data, in.len, &env, &doc, err, sizeof err) == -1) {
		mc_err("envelope: %s", err);
		goto out;
	}

	/* A kept answer needs no key. */
	if ((keep = cache_find(sd, &env, &kept)) != 1 &&
	    envelope_auth(&env, sd, &auth, err, sizeof err) == -1) {
		mc_err("%s", err);
		goto out;
	}
	if (sd->items_out != NULL && (itf = fopen(sd->items_out, "w")) == NULL) {
		mc_err("%s: %s", sd->items_out, strerror(errno));
		goto out;
	}
	status = answer(sd, &env, kept, keep == 0, auth, &o);
	if (status != MC_EXIT_INTR && !sd->broken)
		status = items(&o, status, itf);
	out_free(&o);
	if (itf != NULL && fclose(itf) == EOF && status != MC_EXIT_INTR) {
		mc_err("%s: %s", sd->items_out, strerror(errno));
		status = MC_EXIT_FAIL;
	}
out:
	auth_free(auth);
	cJSON_Delete(kept);
	cJSON_Delete(doc);
	envelope_free(&env);
	mc_buf_free(&in);
	return status;
}

/* Lines of stdin, each at most MC_JSON_MAX bytes. */
struct lines {
	struct mc_buf b;
	size_t pos;	/* where the next line starts in b */
	size_t seen;	/* bytes after pos known to hold no newline */
	int eof;
};

/* The next line (without its newline) in *p, *n: 1; 0 at the end of
 * input; -1 on a read error or SIGINT. A line over the cap is skipped
 * and given as *over set, *n 0. */
static int
next_line(struct lines *l, const char **p, size_t *n, int *over)
{
	char *nl;
	ssize_t r;

	*over = 0;
	for (;;) {
		/* A long line comes in many reads: each byte is searched once. */
		nl = l->pos + l->seen < l->b.len ? memchr(l->b.data + l->pos + l->seen, '\n',
		    l->b.len - l->pos - l->seen) : NULL;
		l->seen = l->b.len - l->pos;
		if (nl != NULL || (l->eof && l->pos < l->b.len)) {
			l->seen = 0;
			*p = l->b.data + l->pos;
			*n = (nl ? (size_t)(nl - *p) : l->b.len - l->pos);
			l->pos += *n + (nl != NULL);
			return 1;
		}
		if (l->eof)
			return 0;
		if (l->pos > 0) {	/* keep only the line being read */
			memmove(l->b.data, l->b.data + l->pos, l->b.len - l->pos);
			l->b.len -= l->pos;
			l->pos = 0;
		}
		if (l->b.len > MC_JSON_MAX) {
			*over = 1;	/* drop it, and whatever follows up to its end */
			l->b.len = 0;
			l->seen = 0;
		}
		mc_buf_grow(&l->b, 1 << 16);
		r = read(STDIN_FILENO, l->b.data + l->b.len, l->b.cap - l->b.len - 1);
		if (r < 0 && errno == EINTR && !got_sigint)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			l->eof = 1;
		l->b.len += (size_t)r;
		if (*over) {
			if ((nl = memchr(l->b.data, '\n', l->b.len)) == NULL && !l->eof) {
				l->b.len = 0;
				continue;
			}
			l->pos = nl ? (size_t)(nl - l->b.data) + 1 : l->b.len;
			*n = 0;
			return 1;
		}
	}
}

/* A line that is no envelope (bad JSON from a script feeding --serve):
 * one error event and a message, naming the line. */
static void
bad_line(struct sender *sd, size_t lineno, const char *what)
{
	char msg[1200];

	snprintf(msg, sizeof msg, "line %zu: %s", lineno, what);
	mc_err("%s", msg);
	put_error(sd, msg, NULL, 0, 0);
}

/* One envelope per line, one answer each, as events. */
static int
serve(struct sender *sd)
{
	struct lines l = {0};
	struct envelope env;
	struct out o;
	const char *p;
	char err[1024], why[1100], *auth;
	size_t n, i, lineno = 0;
	cJSON *doc, *kept;
	int over, keep, r = 0, status = MC_EXIT_OK;

	while (!sd->broken && (r = next_line(&l, &p, &n, &over)) == 1) {
		lineno++;
		for (i = 0; i < n && strchr(" \t\r", p[i]) != NULL; i++)
			;
		if (i == n && !over)
			continue;
		if (over) {
			snprintf(why, sizeof why, "envelope: over the %u-byte limit", MC_JSON_MAX);
			bad_line(sd, lineno, why);
			continue;
		}
		if (envelope_parse(p, n, &env, &doc, err, sizeof err) == -1) {
			snprintf(why, sizeof why, "envelope: %s", err);
			bad_line(sd, lineno, why);
			cJSON_Delete(doc);
			envelope_free(&env);
			continue;
		}
		auth = NULL;
		if ((keep = cache_find(sd, &env, &kept)) != 1 &&
		    envelope_auth(&env, sd, &auth, err, sizeof err) == -1) {
			/* The environment's fault, the same on every line: no number. */
			mc_err("%s", err);
			put_error(sd, err, NULL, 0, 0);
			cJSON_Delete(doc);
			envelope_free(&env);
			continue;
		}
		status = answer(sd, &env, kept, keep == 0, auth, &o);
		out_free(&o);
		auth_free(auth);
		cJSON_Delete(kept);
		cJSON_Delete(doc);
		envelope_free(&env);
		if (status == MC_EXIT_INTR)
			break;
	}
	mc_buf_free(&l.b);
	if (got_sigint || status == MC_EXIT_INTR)
		return MC_EXIT_INTR;
	if (r == -1) {
		mc_err("standard input: %s", strerror(errno));
		return MC_EXIT_FAIL;
	}
	return MC_EXIT_OK;
}

int
main(int argc, char *argv[])
{
	enum { OPT_EVENTS = 256, OPT_ITEMS, OPT_ITEMS_OUT, OPT_SERVE, OPT_CONNECT, OPT_IDLE, OPT_MAXTIME,
	    OPT_RETRIES, OPT_MAXWAIT, OPT_CACHE, OPT_REFRESH, OPT_PRELOAD, OPT_MODELS };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "events", no_argument, NULL, OPT_EVENTS },
		{ "items", no_argument, NULL, OPT_ITEMS },
		{ "items-out", required_argument, NULL, OPT_ITEMS_OUT },
		{ "serve", no_argument, NULL, OPT_SERVE },
		{ "preload", no_argument, NULL, OPT_PRELOAD },
		{ "cache", no_argument, NULL, OPT_CACHE },
		{ "refresh", no_argument, NULL, OPT_REFRESH },
		{ "connect-timeout", required_argument, NULL, OPT_CONNECT },
		{ "idle-timeout", required_argument, NULL, OPT_IDLE },
		{ "max-time", required_argument, NULL, OPT_MAXTIME },
		{ "retries", required_argument, NULL, OPT_RETRIES },
		{ "retry-max-wait", required_argument, NULL, OPT_MAXWAIT },
		{ "models", no_argument, NULL, OPT_MODELS },
		{ "version", no_argument, NULL, MC_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct sender sd = { .mode = TEXT, .retries = 3, .maxwait = 60, .base_ms = 500 };
	struct sigaction sa = {0};
	enum caching caching = CACHE_OFF;
	const char *k, *e = NULL;
	int c, bad = 0, status, preload = 0, list = 0;

	mc_init("mc-send", argv);
	while ((c = getopt_long(argc, argv, "+hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			mc_quiet = 1;
			break;
		case OPT_EVENTS:
		case OPT_ITEMS:
			if (sd.mode != TEXT && sd.mode != (c == OPT_EVENTS ? EVENTS : ITEMS))
				return mc_usage_error("--events and --items cannot be used together");
			sd.mode = c == OPT_EVENTS ? EVENTS : ITEMS;
			break;
		case OPT_ITEMS_OUT:
			if (optarg[0] == '\0')
				return mc_usage_error("--items-out needs a file name");
			sd.items_out = optarg;
			break;
		case OPT_SERVE:
			sd.serve = 1;
			break;
		case OPT_PRELOAD:
			preload = 1;
			break;
		case OPT_MODELS:	/* models.c */
			list = 1;
			break;
		case OPT_CACHE:		/* --refresh is the stronger: given both, it wins */
			if (caching == CACHE_OFF)
				caching = CACHE_ON;
			break;
		case OPT_REFRESH:
			caching = CACHE_REFRESH;
			break;
		case OPT_CONNECT:
			sd.connect = (long)mc_opt_num("--connect-timeout", optarg, 1, 86400, &bad);
			break;
		case OPT_IDLE:
			sd.idle = (long)mc_opt_num("--idle-timeout", optarg, 1, 86400, &bad);
			break;
		case OPT_MAXTIME:
			sd.max_time = (long)mc_opt_num("--max-time", optarg, 1, 604800, &bad);
			break;
		case OPT_RETRIES:
			sd.retries = (long)mc_opt_num("--retries", optarg, 0, 100, &bad);
			break;
		case OPT_MAXWAIT:
			sd.maxwait = (long)mc_opt_num("--retry-max-wait", optarg, 0, 3600, &bad);
			break;
		default:	/* -h, --version or a bad option */
			return mc_opt_exit(c, usage);
		}
		if (bad)
			return MC_EXIT_USAGE;
	}
	if (optind < argc)
		return mc_usage_error("unexpected argument: %s", argv[optind]);
	if (sd.serve && (sd.mode == ITEMS || sd.items_out != NULL))
		return mc_usage_error("--serve answers with events: --items and --items-out "
		    "cannot be used with it");
	if (list && (sd.serve || sd.mode != TEXT || sd.items_out || caching != CACHE_OFF))
		return mc_usage_error("--models takes only -q and the timeouts");
	if (sd.serve)
		sd.mode = EVENTS;
	else if (isatty(STDIN_FILENO)) {
		/* Nothing would come: say how to use it instead of waiting. */
		mc_err("standard input is a terminal: give a request envelope on stdin "
		    "(mc-request ... | mc-send)");
		fputs(usage, stderr);
		return MC_EXIT_USAGE;
	}

	/* For tests: a short backoff between retries. */
	if ((k = getenv("MC_RETRY_BASE_MS")) != NULL && k[0] != '\0') {
		sd.base_ms = (long)strtonum(k, 0, 60000, &e);
		if (e != NULL) {
			mc_err("MC_RETRY_BASE_MS: %s is %s (0 to 60000)", k, e);
			return MC_EXIT_FAIL;
		}
	}
	if (load_settings(&sd) == -1)
		return MC_EXIT_FAIL;
	/* Out of /proc/PID/environ, where a tool command could read them. */
	sd.keys = mc_keys_keep(&sd.settings);
	status = MC_EXIT_FAIL;
	if (cache_setup(&sd, caching) == -1)
		goto out;

	/* Room for a whole piece of the body's text: one write(2) per flush
	 * (glibc ignores the size when it allocates the buffer itself). */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	sd.tty = isatty(STDERR_FILENO);
	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) == -1) {
		mc_err("pipe: %s", strerror(errno));
		goto out;
	}
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_sigterm;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGTERM, &sa, NULL);
	sd.http = mc_http_new();
	/* libcurl's start (about 5 ms) while the envelope is on its way, when
	 * its server will need it; with a cache that may hold the answer, only
	 * once it does not: a hit, the usual case there, does without. */
	if (preload && sd.caching == CACHE_OFF)
		mc_http_preload(sd.http);

	status = list ? models(&sd) : sd.serve ? serve(&sd) : one(&sd);
out:
	mc_http_free(sd.http);
	mc_cache_free(&sd.cache);
	mc_settings_free(&sd.settings);
	mc_env_free(sd.keys);
	key_forget(&sd);
	if (status == MC_EXIT_INTR) {
		/* Nothing more is printed: leave without flushing stdout. */
		_exit(MC_EXIT_INTR);
	}
	if (sd.broken == EPIPE) {
		/* A reader that went away ends the run quietly (SPEC §0). */
		clearerr(stdout);
		return mc_finish(MC_EXIT_OK);
	}
	if (sd.broken) {
		mc_err("stdout: %s", strerror(sd.broken));
		clearerr(stdout);
		mc_finish(MC_EXIT_FAIL);
		return MC_EXIT_FAIL;
	}
	return mc_finish(status);
}
