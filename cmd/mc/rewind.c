/* rewind.c: /undo, /rewind and mc rewind: the turns listed; files (restore.c), conversation or both put back to before one. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "diag.h"
#include "json.h"
#include "mc.h"

/* The turns of a session: where each begins in its lines, and its text. */
struct turns {
	size_t *at;
	char **text;
	long long n;
};

static void
turn_seen(const cJSON *item, size_t off, void *arg)
{
	struct turns *t = arg;
	const char *c = mc_json_str(item, "content");

	if ((t->at = reallocarray(t->at, (size_t)t->n + 1, sizeof *t->at)) == NULL ||
	    (t->text = reallocarray(t->text, (size_t)t->n + 1, sizeof *t->text)) == NULL)
		mc_oom();
	t->at[t->n] = off;
	t->text[t->n++] = mc_strndup(c, strcspn(c, "\n"));
}

static void
turns_of(const struct mc_session *s, struct turns *t)
{
	memset(t, 0, sizeof *t);
	mc_session_turns(s->lines.data ? s->lines.data : "", s->lines.len, turn_seen, t);
}

static void
turns_free(struct turns *t)
{
	long long i;

	for (i = 0; i < t->n; i++)
		free(t->text[i]);
	free(t->text);
	free(t->at);
}

/* A turn number that is one of the session's, or the valid range said. */
static int
turn_valid(const struct turns *t, long long n)
{
	if (n >= 1 && n <= t->n)
		return 1;
	if (t->n == 0)
		mc_err("rewind: no turn %lld: the session has no turns yet", n);
	else
		mc_err("rewind: no turn %lld: the session's turns are 1 to %lld", n, t->n);
	return 0;
}

/* The list: each turn, and what it changed. */
static void
list(const struct rlog *w, const struct turns *t, struct mc_buf *out)
{
	char safe[256];
	const cJSON *e;
	long long k;
	size_t i, shown;
	const struct rturn *r;

	for (k = 1; k <= t->n; k++) {
		mc_sanitize(safe, 61, t->text[k - 1]);
		mc_buf_printf(out, "%4lld  %s\n", k, safe);
		for (r = NULL, i = 0; i < w->nt; i++)
			if (w->t[i].n == k)
				r = &w->t[i];
		if (r == NULL) {
			mc_buf_adds(out, "      (no change)\n");
			continue;
		}
		mc_buf_adds(out, r->active ? "      changed:" : "      put back since:");
		shown = 0;
		cJSON_ArrayForEach(e, r->changed) {
			mc_buf_printf(out, " %s%s", mc_sanitize(safe, sizeof safe,
			    mc_json_str(e, "path") ? mc_json_str(e, "path") : "?"),
			    cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(e, "before")) ? " (new)" :
			    cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(e, "after")) ? " (removed)" : "");
			shown++;
		}
		mc_buf_adds(out, shown ? "\n" : " nothing\n");
	}
	if (t->n == 0)
		mc_buf_adds(out, "no turns yet\n");
}

/*
 * The conversation before turn n, as a new session file with
 * "forked_from" (the old file is left as it is), its checkpoints' log
 * carried over for the turns it keeps. 0 with *to, or -1 (said).
 */
static int
fork_session(const char *home, const struct mc_session *s, const struct turns *t, long long n,
    const struct rlog *w, struct mc_session *to)
{
	const char *cwd = mc_json_str(s->header, "cwd");
	char err[1024];
	const cJSON *l;
	cJSON *more = mc_session_more(s->header, "forked_from", s->id);
	int r;

	if (mc_json_str(s->header, "title") != NULL)
		mc_json_add_str(more, "title", mc_json_str(s->header, "title"));

	r = mc_session_create_items(to, home, cwd ? cwd : ".", mc_json_str(s->header, "provider"),
	    mc_json_str(s->header, "model"), more, s->lines.data ? s->lines.data : "",
	    t->at[n - 1], err, sizeof err);
	cJSON_Delete(more);
	if (r == -1) {
		mc_err("rewind: %s", err);
		return -1;
	}
	cJSON_ArrayForEach(l, w->lines) {
		if (mc_json_count(l, "turn") >= n)
			continue;
		if (cp_log_append(home, to->id, l, err, sizeof err) == -1) {
			mc_warn("rewind: %s", err);
			break;
		}
	}
	return 0;
}

/* What to put back. */
enum what { W_FILES = 1, W_CONVERSATION = 2, W_BOTH = 3 };

/* The turn an undo puts back. */
#define UNDO (-1)

/*
 * Rewind session s (read from home) to before turn n (UNDO: the latest
 * turn still in effect that changed files). With W_CONVERSATION,
 * the fork into *to (to->fd -1 when none was made). out gets what is
 * said. 0 done, 1 nothing to do, -1 failed (said why).
 */
static int
rewind_to(const char *home, const struct mc_session *s, long long n, enum what what, int force,
    struct mc_session *to, struct mc_buf *out)
{
	struct rlog w;
	struct turns t;
	char err[1024];
	int r = 0;

	to->fd = -1;
	turns_of(s, &t);
	if (rlog_load(&w, home, s->id, err, sizeof err) == -1) {
		mc_err("rewind: %s", err);
		r = -1;
	} else if (n == UNDO && (n = rlog_last_changing(&w)) == 0) {
		mc_buf_adds(out, "nothing to undo: no turn of this session changed files\n");
		r = 1;
	} else if (!turn_valid(&t, n))
		r = -2;
	if (r == 0 && (what & W_FILES)) {
		if ((r = restore_files(&w, n, force, out)) == 0) {
			mc_buf_printf(out, "files: no turn from %lld on changed any\n", n);
			r = 1;
		} else if (r == 1) {
			mc_buf_printf(out, "files: as before turn %lld\n", n);
			r = 0;
		}
	}
	if (r >= 0 && (what & W_CONVERSATION)) {
		if (fork_session(home, s, &t, n, &w, to) == -1)
			r = -1;
		else {
			mc_buf_printf(out, "conversation: as before turn %lld, in the new session %s "
			    "(forked from %s, which is left as it was)\n", n, to->id, s->id);
			r = 0;
		}
	}
	rlog_free(&w);
	turns_free(&t);
	return r;
}

/* The interactive session's: /undo [--force]. */
void
rewind_undo(struct driver *d, const char *args)
{
	struct mc_session to;
	struct mc_buf out = {0};
	int force = strcmp(args, "--force") == 0;

	if (*args != '\0' && !force) {
		mc_err("/undo takes only --force");
		return;
	}
	if (d->s.file.fd == -1 || d->s.file.id == NULL) {
		note(d, "nothing to undo: no session yet");
		return;
	}
	rewind_to(d->c.set.home, &d->s.file, UNDO, W_FILES, force, &to, &out);
	if (out.len > 0)
		show(d, out.data, out.len);
	mc_buf_free(&out);
}

/* /rewind [N [files|conversation|both]] [--force] */
void
rewind_command(struct driver *d, const char *args)
{
	struct mc_buf out = {0}, words = {0};
	struct mc_session to;
	struct rlog w;
	struct turns t;
	enum what what = W_BOTH;
	long long n = UNDO;
	int force = 0, bad = 0;
	char err[1024], *s, *word, *save = NULL;

	if (d->s.file.fd == -1 || d->s.file.id == NULL) {
		note(d, "nothing to rewind: no session yet");
		return;
	}
	mc_buf_adds(&words, args);
	for (word = strtok_r(words.data, " \t", &save); word != NULL && !bad;
	    word = strtok_r(NULL, " \t", &save)) {
		if (strcmp(word, "--force") == 0)
			force = 1;
		else if (strcmp(word, "files") == 0)
			what = W_FILES;
		else if (strcmp(word, "conversation") == 0)
			what = W_CONVERSATION;
		else if (strcmp(word, "both") == 0)
			what = W_BOTH;
		else if (n == UNDO && (n = strtoll(word, &s, 10), *s == '\0' && s != word &&
		    n >= 0))
			;
		else
			bad = 1;
	}
	mc_buf_free(&words);
	if (bad || (n == UNDO && (force || what != W_BOTH))) {
		mc_err("usage: /rewind [N [files|conversation|both]] [--force]");
		return;
	}
	if (n == UNDO) {
		turns_of(&d->s.file, &t);
		if (rlog_load(&w, d->c.set.home, d->s.file.id, err, sizeof err) == -1)
			mc_err("rewind: %s", err);
		else {
			list(&w, &t, &out);
			mc_buf_adds(&out, "/rewind N puts files and conversation back to before turn "
			    "N; /rewind N files, or conversation, one of them\n");
			rlog_free(&w);
		}
		turns_free(&t);
	} else if (rewind_to(d->c.set.home, &d->s.file, n, what, force, &to, &out) == 0 &&
	    to.fd != -1) {
		session_switch(d, &to);
		session_guides_again(d);
	}
	if (out.len > 0)
		show(d, out.data, out.len);
	mc_buf_free(&out);
}

static const char rewind_usage[] =
    "usage: mc rewind [--session ID] [--list] [--force] [--files | --conversation] [TURN]\n"
    "\n"
    "Put back what the turns of a session changed (the latest session of this\n"
    "directory, unless --session). With no TURN, the files of the last turn that\n"
    "changed any (as /undo); with TURN, files and conversation as before it (the\n"
    "conversation as a new session file, forked from the old).\n"
    "\n"
    "  --session ID    the session to rewind\n"
    "  --list          list the turns and what each changed\n"
    "  --force         overwrite files changed outside mc since\n"
    "  --files         only the files\n"
    "  --conversation  only the conversation\n"
    "  -h, --help      show this help\n";

/* mc rewind: the same for scripts. */
int
rewind_main(int argc, char *argv[])
{
	enum { OPT_SESSION = 256, OPT_LIST, OPT_FORCE, OPT_FILES, OPT_CONV };
	static const struct option longopts[] = {
		{ "session", required_argument, NULL, OPT_SESSION },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "files", no_argument, NULL, OPT_FILES },
		{ "conversation", no_argument, NULL, OPT_CONV },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct mc_settings set = {0};
	struct mc_session s = { .fd = -1 }, to = { .fd = -1 };
	struct mc_buf out = {0};
	struct turns t;
	struct rlog w;
	const char *session = NULL;
	enum what what = W_BOTH;
	char err[1024], *id = NULL, *cwd = NULL;
	long long n = UNDO;
	int c, lst = 0, force = 0, bad = 0, status = MC_EXIT_FAIL, r;

	argv[0] = (char *)mc_progname;	/* getopt's messages are mc's */
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_SESSION:
			if (!mc_session_id_valid(optarg))
				return mc_usage_error("--session: not a session id: %s", optarg);
			session = optarg;
			break;
		case OPT_LIST:
			lst = 1;
			break;
		case OPT_FORCE:
			force = 1;
			break;
		case OPT_FILES:
			what = what == W_CONVERSATION ? 0 : W_FILES;
			break;
		case OPT_CONV:
			what = what == W_FILES ? 0 : W_CONVERSATION;
			break;
		case 'h':
			return mc_opt_exit(c, rewind_usage);
		default:
			fputs("Try 'mc rewind --help' for more information.\n", stderr);
			return MC_EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		return mc_usage_error("rewind: one TURN at most");
	if (argc == 1)
		n = mc_opt_num("TURN", argv[0], 0, 1000000000, &bad);
	if (bad)
		return MC_EXIT_USAGE;
	if (what == 0)
		return mc_usage_error("rewind: --files or --conversation, not both");
	if (lst && (argc == 1 || force || what != W_BOTH))
		return mc_usage_error("rewind: --list takes only --session");
	if (argc == 0 && what == W_CONVERSATION)
		return mc_usage_error("rewind: --conversation needs a TURN");
	if (mc_settings_load(&set, err, sizeof err) == -1) {
		mc_err("%s", err);
		return MC_EXIT_FAIL;
	}
	if ((cwd = realpath(".", NULL)) == NULL)
		mc_err(".: %s", strerror(errno));
	else if (session == NULL && (r = mc_session_latest(set.home, cwd, &id, err,
	    sizeof err)) != 0)
		mc_err("rewind: %s", r == 1 ? "no session of this directory" : err);
	else if (mc_session_read(&s, set.home, session ? session : id, err, sizeof err) == -1)
		mc_err("rewind: %s", err);
	else if (lst) {
		turns_of(&s, &t);
		if (rlog_load(&w, set.home, s.id, err, sizeof err) == -1)
			mc_err("rewind: %s", err);
		else {
			list(&w, &t, &out);
			rlog_free(&w);
			status = MC_EXIT_OK;
		}
		turns_free(&t);
	} else {
		r = rewind_to(set.home, &s, n, argc == 0 ? W_FILES : what, force, &to, &out);
		status = r == -2 ? MC_EXIT_USAGE : r >= 0 ? MC_EXIT_OK : MC_EXIT_FAIL;
		if (to.fd != -1)
			mc_session_close(&to);
	}
	fwrite(out.data ? out.data : "", 1, out.len, stdout);
	mc_buf_free(&out);
	mc_session_close(&s);
	mc_settings_free(&set);
	free(id);
	free(cwd);
	return mc_finish(status);
}
