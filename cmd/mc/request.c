/* request.c: the session-long mc-request --serve: the session's new lines in, an envelope out per step. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"
#include "request.h"

/*
 * The requests of a session are built by one mc-request --serve, which
 * keeps what it was given: each step writes it only the session's lines
 * added since the last (and the prompt or tools when they change), so a
 * step costs what it adds, not the whole conversation again. The driver
 * never builds a request itself; the dry run and step 200 go the same way.
 */

/* Whether the answers are cached (mc-send --cache, MC_CACHE=1 or
 * cache.enabled, as mc-send decides it): then the envelope needs its key. */
static int
caching(const struct driver *d)
{
	const char *v = getenv("MC_CACHE");

	if (d->c.cache != NULL)
		return 1;
	if (v != NULL && *v != '\0')
		return strcmp(v, "1") == 0;
	return cJSON_IsTrue(mc_settings_get(&d->c.set, "cache.enabled"));
}

/* mc-request's arguments for the session as it is now, NUL-separated in
 * b (to tell when they change), and as a vector in argv (room for 16,
 * two of them left for the status descriptor). */
static void
build_args(const struct driver *d, struct mc_buf *b, char **argv)
{
	char *v[16];
	int n = 0, i;

	v[n++] = "mc-request";
	v[n++] = "--serve";
	v[n++] = "-q";	/* the driver has said what the settings lack */
	n += told_args(d, v + n);
	if (d->c.max_output) {
		v[n++] = "--max-output-tokens";
		v[n++] = (char *)d->c.max_output;
	}
	if (d->c.reasoning) {
		v[n++] = "--reasoning";
		v[n++] = (char *)d->c.reasoning;
	}
	if (d->c.schema) {
		v[n++] = "--schema";
		v[n++] = (char *)d->c.schema;
	}
	if (caching(d))
		v[n++] = "--cache-key";
	b->len = 0;
	for (i = 0; i < n; i++)
		mc_buf_add(b, v[i], strlen(v[i]) + 1);
	if (argv == NULL)
		return;
	/* The vector points into b, which holds each argument whole. */
	for (i = 0, n = 0; (size_t)i < b->len; i += (int)strlen(b->data + i) + 1)
		argv[n++] = b->data + i;
	argv[n] = NULL;
}

/* Start it, fed nothing yet: its stdin and stdout on pipes, and a third
 * for the status of each request (--status-fd), so that the envelope on
 * its stdout is passed on to mc-send without the driver reading it. 0,
 * or -1 after saying why. */
int
build_start(struct driver *d)
{
	struct builder *b = &d->build;
	char *argv[19], err[256], fdarg[16];
	struct mc_child c = { .argv = argv, .fd = { -1, -1, -1 },
	    .flags = MC_CHILD_SUITE | MC_CHILD_PGROUP | MC_CHILD_PDEATH };
	int st[2], keep[2], n;

	if (b->pid > 0)
		return 0;
	build_args(d, &b->args, argv);
	if (pipe2(st, O_CLOEXEC) == -1) {
		mc_err("pipe: %s", strerror(errno));
		return -1;
	}
	for (n = 0; argv[n] != NULL; n++)
		;
	snprintf(fdarg, sizeof fdarg, "%d", st[1]);
	argv[n++] = "--status-fd";
	argv[n++] = fdarg;
	argv[n] = NULL;
	keep[0] = st[1];
	keep[1] = -1;
	c.keep = keep;
	b->pid = mc_child_start_piped(&c, &b->wr, &b->env, err, sizeof err);
	close(st[1]);
	if (b->pid == -1) {
		b->pid = 0;
		close(st[0]);
		mc_err("%s", err);
		return -1;
	}
	b->out.fd = st[0];
	b->out.cap = 4096;
	mc_lines_reset(&b->out);
	b->fed = 0;
	b->gen = d->s.gen;
	b->told = 0;
	b->answered = 0;
	b->starts++;
	return 0;
}

/* End it; the status it ended with (0 when it was not running). */
static int
build_end(struct driver *d, int kill_it)
{
	struct builder *b = &d->build;
	int st;

	if (b->pid <= 0)
		return 0;
	if (kill_it)
		kill(-b->pid, SIGTERM);
	close(b->wr);
	close(b->env);
	close(b->out.fd);
	st = mc_child_wait(b->pid);
	b->pid = 0;
	return st;
}

void
build_stop(struct driver *d)
{
	build_end(d, 1);
}

/* One line of mc-request's own. */
static int
control(struct builder *b, cJSON *line)
{
	size_t n;
	char *t = mc_json_compact(line, &n);
	int r;

	cJSON_Delete(line);
	t[n] = '\n';
	r = mc_write_all(b->wr, t, n + 1);
	free(t);
	return r;
}

/* A new session for mc-request: what it had forgotten, the lines from
 * here on named as the file's, its header (if any) first. */
static int
reset(struct driver *d, const cJSON *header)
{
	struct builder *b = &d->build;
	cJSON *m = mc_json_new_obj();

	mc_json_add_str(m, "type", "reset");
	mc_json_add_str(m, "name", d->s.file.path ? d->s.file.path : "the session");
	return control(b, m) == -1 ||
	    (header != NULL && control(b, cJSON_Duplicate(header, 1)) == -1) ? -1 : 0;
}

/* What changed since the last request, written: a new session, the
 * prompt, the tools, the lines added; then the request. 0, or -1 with
 * errno (mc-request went away, or a signal came). */
static int
feed(struct driver *d)
{
	struct builder *b = &d->build;
	const struct mc_buf *lines = &d->s.file.lines, *tools = tools_offered(d);
	cJSON *m, *t;
	char err[256];

	/* A new session (or a new mc-request): what it had is forgotten,
	 * and the lines it is given are named as the file's, header first. */
	b->pending = 0;		/* in the lines after fed */
	if (b->gen != d->s.gen || (b->fed == 0 && !b->preloading)) {
		if (reset(d, d->s.file.header) == -1)
			return -1;
		b->gen = d->s.gen;
		b->fed = 0;
	}
	b->preloading = 0;
	if (!b->told || !mc_buf_same(&b->prompt, &d->s.prompt)) {
		m = mc_json_new_obj();
		mc_json_add_str(m, "type", "system");
		mc_json_add_str(m, "text", d->s.prompt.data ? d->s.prompt.data : "");
		if (control(b, m) == -1)
			return -1;
		b->prompt.len = 0;
		mc_buf_add(&b->prompt, d->s.prompt.data, d->s.prompt.len);
	}
	if ((!b->told && tools->len > 0) || !mc_buf_same(&b->tools, tools)) {
		/* The list as one line, whatever its white space (tools_put
		 * keeps it JSON: an empty list otherwise). */
		if (tools->len == 0 ||
		    (t = mc_json_parse(tools->data, tools->len, err, sizeof err)) == NULL)
			t = mc_json_new_arr();
		m = mc_json_new_obj();
		mc_json_add_str(m, "type", "tools");
		mc_json_add(m, "tools", t);
		if (control(b, m) == -1)
			return -1;
		b->tools.len = 0;
		mc_buf_add(&b->tools, tools->data, tools->len);
	}
	b->told = 1;
	if (lines->len < b->fed)
		b->fed = 0;	/* never: the session only grows */
	if (mc_write_all(b->wr, lines->data + b->fed, lines->len - b->fed) == -1 ||
	    mc_write_all(b->wr, "{\"type\":\"request\"}\n", 19) == -1)
		return -1;
	b->fed = lines->len;
	return 0;
}

/*
 * A session being resumed, given to mc-request as the file is read, so
 * that the two work at once: at the header (line NULL), mc-request
 * started with what the header names and told a new session; then each
 * line as it is (len bytes with its newline), counted as fed. Should the
 * last lines name another model, build_request starts another and feeds
 * it the session whole; should anything fail here, the same.
 */
void
build_preload(struct driver *d, const cJSON *header, const char *line, size_t len)
{
	struct builder *b = &d->build;

	if (line == NULL) {
		if (b->pid > 0 || d->c.no_session || build_start(d) == -1)
			return;
		if (reset(d, header) == -1)
			build_end(d, 1);	/* fed whole at the first request */
		else
			b->preloading = 1;
		return;
	}
	if (b->pid <= 0 || !b->preloading)
		return;
	/* The lines lie one after another in the file's text: written a
	 * quarter of a megabyte at a time; the rest goes with the first
	 * request, from the session's lines. */
	if (b->pending == 0)
		b->from = line;
	b->pending += len;
	if (b->pending < (1u << 18))
		return;
	if (mc_write_all(b->wr, b->from, b->pending) == -1) {
		build_end(d, 1);	/* fed whole at the first request */
		return;
	}
	b->fed += b->pending;
	b->pending = 0;
}

/* Its status line for the request: 1 and the line; 0 when it ended; -1
 * when interrupted or the line is over the cap. */
static int
status(struct driver *d, char **line, size_t *len)
{
	int r;

	while (!interrupted && (r = mc_lines_next(&d->build.out, line, len)) != 0) {
		if (r == 1)
			return 1;
		if (errno == EINTR)
			continue;
		mc_err("mc-request: %s", errno == EFBIG ? "a status line over the size limit" :
		    strerror(errno));
		return -1;
	}
	return interrupted ? -1 : 0;
}

/* The status of a request: 1 with the envelope's size, or -1 when
 * mc-request said no (an item it rejects names the session's line). */
static int
said(const char *line, size_t len, size_t *bytes)
{
	char err[128];
	cJSON *s = mc_json_parse(line, len, err, sizeof err);
	const char *type = mc_json_str(s, "type"), *msg = mc_json_str(s, "message");
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(s, "bytes");
	int r = -1;

	if (type != NULL && strcmp(type, "envelope") == 0 && cJSON_IsNumber(n) &&
	    n->valuedouble >= 1 && n->valuedouble <= ENVELOPE_CAP) {
		*bytes = (size_t)n->valuedouble;
		r = 1;
	} else
		mc_err("mc-request: %s", msg ? msg : "a status that is none");
	cJSON_Delete(s);
	return r;
}

/*
 * The session's next request: built, its envelope (*len bytes, the
 * newline included) waiting on d->build.env for build_pass. mc-request
 * is started when it is not running or its arguments changed (/model);
 * one that died mid-session is started again, once, and fed the session
 * whole, and the session goes on. 0, or -1 after saying why.
 */
int
build_request(struct driver *d, size_t *len)
{
	struct builder *b = &d->build;
	struct mc_buf now = {0};
	char *line, why[128];
	int attempt, r, st;

	for (attempt = 0; attempt < 2; attempt++) {
		build_args(d, &now, NULL);
		if (b->pid > 0 && !mc_buf_same(&now, &b->args))
			build_end(d, 1);
		if (b->pid <= 0 && build_start(d) == -1)
			break;
		/* A feed that found it gone: it ended (its status says why). */
		if (feed(d) == -1)
			r = errno == EPIPE && !interrupted ? 0 : -1;
		else
			r = status(d, &line, len);
		if (r == 1) {
			mc_buf_free(&now);
			if (said(line, *len, len) == -1)
				return -1;
			b->answered = 1;
			return 0;
		}
		st = build_end(d, r != 0);
		if (interrupted || r == -1)
			break;
		/* One that never answered was refused its settings or options
		 * and has said why: starting it again would say it again. */
		if (!b->answered) {
			stage_ok("mc-request", st);
			break;
		}
		if (mc_pipeline_strstatus(st, why, sizeof why) == NULL)
			snprintf(why, sizeof why, "exit status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		if (attempt == 0)
			mc_warn("mc-request stopped mid-session (%s); started again, given the session "
			    "whole", why);
		else
			mc_err("mc-request stopped again (%s)", why);
	}
	mc_buf_free(&now);
	return -1;
}

/* The envelope build_request made, len bytes, to fd: in the kernel where
 * it can. 0, or -1 with errno; mc-request, whose output is then astray,
 * is stopped. */
int
build_pass(struct driver *d, int fd, size_t len)
{
	if (mc_fd_move(d->build.env, fd, len) == 0)
		return 0;
	build_end(d, 1);
	return -1;
}
