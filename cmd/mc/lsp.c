/* lsp.c: post-edit diagnostics: the settings' language servers (lsp), each started on the first write or edit of a file of its own, told of the file, and its errors and warnings added to the call's output. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "lsp.h"
#include "mc.h"
#include "toolenv.h"
#include "utf8.h"

#define LSP_WAIT_MS 3000	/* lsp.wait_ms when not set */
#define LSP_MESSAGE_MAX (4u << 20)	/* one message of the server's */
#define LSP_FLOOD_MAX (16u << 20)	/* what it may send while one edit is waited on */
#define LSP_FILE_MAX (4u << 20)	/* a file it is told of */
#define DIAG_MAX 20		/* diagnostics added to an output */
#define DIAG_CAP (4u << 10)	/* and their bytes */
#define END_WAIT_MS 1000	/* for a server to exit once told to */

struct doc {
	char *uri;
	int version;
};

struct lsp_server {
	const char *lang;	/* the settings' key: the language id */
	const cJSON *conf;
	pid_t pid;		/* 0: not running */
	int wr, rd;
	int off;		/* failed: said once, off for the session */
	long long id;		/* the last request's id */
	long long deadline;	/* what is written to it waits until then at most */
	struct mc_lsp_reader in;
	struct doc *docs;	/* the files it was told of */
	size_t ndocs;
};

struct lsp {
	struct lsp_server *v;
	size_t n;
	long long wait_ms;
};

/* The servers of the settings, made once; none have started. */
static struct lsp *
servers(struct driver *d)
{
	const cJSON *all = mc_settings_get(&d->c.set, "lsp"), *e, *w;
	struct lsp *l;

	if (d->lsp != NULL)
		return d->lsp;
	if ((l = d->lsp = calloc(1, sizeof *l)) == NULL)
		mc_oom();
	w = cJSON_GetObjectItemCaseSensitive(all, "wait_ms");
	l->wait_ms = cJSON_IsNumber(w) ? (long long)w->valuedouble : LSP_WAIT_MS;
	cJSON_ArrayForEach(e, all) {
		if (!cJSON_IsObject(e) || mc_json_str(e, "command") == NULL)
			continue;
		if ((l->v = reallocarray(l->v, l->n + 1, sizeof *l->v)) == NULL)
			mc_oom();
		l->v[l->n++] = (struct lsp_server){ .lang = e->string, .conf = e, .wr = -1,
		    .rd = -1, .in = { .max = LSP_MESSAGE_MAX } };
	}
	return l;
}

/* The server whose extensions path ends with, or NULL. */
static struct lsp_server *
server_for(struct lsp *l, const char *path)
{
	size_t i, n = strlen(path), k;
	const cJSON *x;

	for (i = 0; i < l->n; i++)
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(l->v[i].conf, "extensions"))
			if (cJSON_IsString(x) && (k = strlen(x->valuestring)) > 0 && k < n &&
			    strcmp(path + n - k, x->valuestring) == 0)
				return &l->v[i];
	return NULL;
}

static int next_msg(struct lsp_server *, long long, size_t *, cJSON **, char *, size_t);

/* All of p to the server (its stdin is non-blocking), waiting for room
 * until s->deadline at most: a server that reads nothing holds no edit
 * longer. 0, or -1 with errno (ETIMEDOUT). */
static int
write_all(struct lsp_server *s, const char *p, size_t n)
{
	struct pollfd w = { .fd = s->wr, .events = POLLOUT };
	long long left;
	ssize_t k;

	while (n > 0) {
		if ((k = write(s->wr, p, n)) > 0) {
			p += k;
			n -= (size_t)k;
			continue;
		}
		if (k == -1 && errno != EAGAIN && errno != EINTR)
			return -1;
		if ((left = s->deadline - mc_clock_ms()) <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (poll(&w, 1, (int)left) == -1 && errno != EINTR)
			return -1;
	}
	return 0;
}

/* Politely: shutdown, its answer waited for (a bounded while), exit. */
static void
say_bye(struct lsp_server *s, long long until)
{
	static const char bye[] = "{\"jsonrpc\":\"2.0\",\"id\":\"end\",\"method\":\"shutdown\"}";
	static const char ex[] = "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}";
	struct mc_buf b = {0};
	const char *id;
	char why[160];
	size_t taken = 0;
	cJSON *m;
	int r;

	s->deadline = until;
	mc_lsp_frame(&b, bye, sizeof bye - 1);
	r = write_all(s, b.data, b.len);
	while (r == 0 && (r = next_msg(s, until, &taken, &m, why, sizeof why)) == 1) {
		id = mc_json_str(m, "id");
		r = id != NULL && strcmp(id, "end") == 0 ? 2 : 0;
		cJSON_Delete(m);
		if (r == 2)
			break;
	}
	b.len = 0;
	mc_lsp_frame(&b, ex, sizeof ex - 1);
	(void)write_all(s, b.data, b.len);
	mc_buf_free(&b);
}

/* End the server: politely (shutdown, exit, its input closed, a second
 * to go), else, or then, its process group killed; reaped either way. */
static void
server_end(struct lsp_server *s, int politely)
{
	long long until = mc_clock_ms() + END_WAIT_MS;
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	size_t i;
	int st, gone = 0;

	if (s->pid <= 0)
		return;
	if (politely)
		say_bye(s, until);
	close(s->wr);
	close(s->rd);
	while (politely && !gone && mc_clock_ms() < until)
		if (waitpid(s->pid, &st, WNOHANG) == s->pid)
			gone = 1;
		else
			nanosleep(&tick, NULL);
	kill(-s->pid, SIGKILL);	/* what it started, too */
	if (!gone)
		mc_child_wait(s->pid);
	s->pid = 0;
	s->wr = s->rd = -1;
	mc_lsp_reader_free(&s->in);
	for (i = 0; i < s->ndocs; i++)
		free(s->docs[i].uri);
	free(s->docs);
	s->docs = NULL;
	s->ndocs = 0;
}

/* The server failed: said once, ended, off for the session. */
static void
server_failed(struct lsp_server *s, const char *why)
{
	mc_warn("lsp.%s: %s; no diagnostics from it this session", s->lang, why);
	s->off = 1;
	server_end(s, 0);
}

/* Why a write to the server failed, into why. */
static void
stopped(char *why, size_t whysz)
{
	if (errno == ETIMEDOUT)
		snprintf(why, whysz, "it did not read what it was sent in time");
	else
		snprintf(why, whysz, "it stopped reading: %s", strerror(errno));
}

static int
send_msg(struct lsp_server *s, cJSON *m)
{
	struct mc_buf b = {0};
	size_t n;
	char *text;
	int r;

	mc_json_add_str(m, "jsonrpc", "2.0");
	text = mc_json_compact(m, &n);
	cJSON_Delete(m);
	mc_lsp_frame(&b, text, n);
	free(text);
	r = write_all(s, b.data, b.len);
	mc_buf_free(&b);
	return r;
}

static cJSON *
message(const char *method, cJSON *params)
{
	cJSON *m = mc_json_new_obj();

	mc_json_add_str(m, "method", method);
	mc_json_add(m, "params", params);
	return m;
}

/*
 * The next message of the server, until deadline (mc_clock_ms; one
 * already past takes what is there to read): 1 with *m, 0 at the deadline, -1 when it failed (why filled: it ended, spoke
 * bad framing or bad JSON, or sent more than LSP_FLOOD_MAX meanwhile).
 * A request of the server's is answered null here and not returned.
 */
static int
next_msg(struct lsp_server *s, long long deadline, size_t *taken, cJSON **m, char *why,
    size_t whysz)
{
	char buf[65536], err[160];
	struct pollfd p = { .fd = s->rd, .events = POLLIN };
	const char *body;
	long long left;
	size_t len;
	ssize_t n;
	int r;

	for (;;) {
		if ((r = mc_lsp_next(&s->in, &body, &len, why, whysz)) == -1)
			return -1;
		if (r == 1) {
			if ((*m = mc_json_parse(body, len, err, sizeof err)) == NULL ||
			    !cJSON_IsObject(*m)) {
				snprintf(why, whysz, "a message that is not a JSON object%s%s",
				    *m ? "" : ": ", *m ? "" : err);
				cJSON_Delete(*m);
				return -1;
			}
			if (mc_json_str(*m, "method") != NULL &&
			    cJSON_HasObjectItem(*m, "id")) {
				cJSON *a = mc_json_new_obj();

				mc_json_add(a, "id", cJSON_Duplicate(
				    cJSON_GetObjectItemCaseSensitive(*m, "id"), 1));
				if (cJSON_AddNullToObject(a, "result") == NULL)
					mc_oom();
				cJSON_Delete(*m);
				if (send_msg(s, a) == -1) {
					stopped(why, whysz);
					return -1;
				}
				continue;
			}
			return 1;
		}
		/* Past the deadline, what is there already is still read. */
		if ((left = deadline - mc_clock_ms()) < 0)
			left = 0;
		p.revents = 0;
		if ((r = poll(&p, 1, (int)left)) == -1 && errno == EINTR) {
			if (interrupted)
				return 0;
			continue;
		}
		if (r <= 0)
			return 0;
		if ((n = read(s->rd, buf, sizeof buf)) == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			snprintf(why, whysz, "it ended%s%s", n ? ": " : "", n ? strerror(errno) : "");
			return -1;
		}
		if ((*taken += (size_t)n) > LSP_FLOOD_MAX) {
			snprintf(why, whysz, "it sent over %u MiB for one edit", LSP_FLOOD_MAX >> 20);
			return -1;
		}
		mc_lsp_feed(&s->in, buf, (size_t)n);
	}
}

static char *
uri_of(const char *path)
{
	struct mc_buf b = {0};
	const char *p;

	mc_buf_adds(&b, "file://");
	for (p = path; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p) != NULL)
			mc_buf_addc(&b, *p);
		else
			mc_buf_printf(&b, "%%%02X", (unsigned char)*p);
	return mc_buf_steal(&b);
}

/* Start the server and wait for its answer to initialize. 0, or -1 with why. */
static int
server_start(struct driver *d, struct lsp_server *s, long long deadline, size_t *taken,
    char *why, size_t whysz)
{
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(s->conf, "args"), *a;
	char **argv, err[256], *root, **env;
	struct mc_child c = { .fd = { -1, -1, -1 }, .flags = MC_CHILD_PGROUP | MC_CHILD_PDEATH };
	cJSON *p, *m, *caps;
	size_t n = 0;
	int null, r;

	if ((argv = calloc((size_t)cJSON_GetArraySize(args) + 2, sizeof *argv)) == NULL)
		mc_oom();
	argv[n++] = (char *)mc_json_str(s->conf, "command");
	cJSON_ArrayForEach(a, args)
		argv[n++] = a->valuestring;
	if ((null = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1) {
		free(argv);
		snprintf(why, whysz, "/dev/null: %s", strerror(errno));
		return -1;
	}
	c.argv = argv;
	c.fd[2] = null;		/* its logs are not ours to show */
	env = mc_toolenv(&d->c.set, NULL);
	c.envp = env;
	s->pid = mc_child_start_piped(&c, &s->wr, &s->rd, err, sizeof err);
	mc_env_free(env);
	close(null);
	free(argv);
	if (s->pid == -1) {
		s->pid = 0;
		snprintf(why, whysz, "%s", err);
		return -1;
	}
	fcntl(s->wr, F_SETFL, fcntl(s->wr, F_GETFL) | O_NONBLOCK);
	root = uri_of(d->c.cwd);
	p = mc_json_new_obj();
	mc_json_add_num(p, "processId", (double)getpid());
	mc_json_add_str(p, "rootUri", root);
	free(root);
	caps = mc_json_new_obj();
	mc_json_add(caps, "textDocument", mc_json_new_obj());
	mc_json_add(mc_json_obj(caps, "textDocument"), "publishDiagnostics", mc_json_new_obj());
	mc_json_add(p, "capabilities", caps);
	m = message("initialize", p);
	mc_json_add_num(m, "id", (double)++s->id);
	if (send_msg(s, m) == -1) {
		stopped(why, whysz);
		return -1;
	}
	while ((r = next_msg(s, deadline, taken, &m, why, whysz)) == 1) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
		int mine = cJSON_IsNumber(id) && (long long)id->valuedouble == s->id;

		cJSON_Delete(m);
		if (mine)
			break;
	}
	if (r == 0)
		snprintf(why, whysz, "no answer to initialize within %lld ms", servers(d)->wait_ms);
	if (r != 1)
		return -1;
	if (send_msg(s, message("initialized", mc_json_new_obj())) == -1) {
		stopped(why, whysz);
		return -1;
	}
	return 0;
}

/* What the server said since the last edit (late diagnostics, logs),
 * read and dropped, so that this edit's wait reads only what follows
 * it. 0, or -1 with why. */
static int
drain(struct lsp_server *s, size_t *taken, char *why, size_t whysz)
{
	cJSON *m;
	int r;

	while ((r = next_msg(s, 0, taken, &m, why, whysz)) == 1)
		cJSON_Delete(m);
	return r;
}

/* Tell the server of the file's text: didOpen the first time, didChange
 * (the whole text) after. The file's version in *version. */
static int
tell(struct lsp_server *s, const char *uri, const char *text, int *version)
{
	struct doc *doc = NULL;
	cJSON *p, *td, *ch, *c;
	size_t i;

	for (i = 0; i < s->ndocs && doc == NULL; i++)
		if (strcmp(s->docs[i].uri, uri) == 0)
			doc = &s->docs[i];
	p = mc_json_new_obj();
	td = mc_json_new_obj();
	mc_json_add_str(td, "uri", uri);
	if (doc == NULL) {
		if ((s->docs = reallocarray(s->docs, s->ndocs + 1, sizeof *s->docs)) == NULL)
			mc_oom();
		doc = &s->docs[s->ndocs++];
		*doc = (struct doc){ mc_strdup(uri), 1 };
		mc_json_add_str(td, "languageId", s->lang);
		mc_json_add_num(td, "version", 1);
		mc_json_add_str(td, "text", text);
		mc_json_add(p, "textDocument", td);
		*version = 1;
		return send_msg(s, message("textDocument/didOpen", p));
	}
	*version = ++doc->version;
	mc_json_add_num(td, "version", doc->version);
	mc_json_add(p, "textDocument", td);
	ch = mc_json_new_arr();
	c = mc_json_new_obj();
	mc_json_add_str(c, "text", text);
	mc_json_push(ch, c);
	mc_json_add(p, "contentChanges", ch);
	return send_msg(s, message("textDocument/didChange", p));
}

static const char *
severity(const cJSON *dg)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(dg, "severity");

	if (!cJSON_IsNumber(v) || v->valuedouble == 1)
		return "error";		/* absent: the client's to choose */
	return v->valuedouble == 2 ? "warning" : NULL;
}

/* The errors and warnings of a publishDiagnostics, as "NAME:LINE:COL:
 * SEVERITY: MESSAGE" lines (1-based), at most DIAG_MAX and DIAG_CAP. */
static void
diagnostics(struct mc_buf *out, const char *lang, const char *name, const cJSON *list)
{
	struct mc_buf line = {0};
	const cJSON *dg, *start;
	const char *sev, *msg;
	size_t shown = 0, more = 0, head = out->len, k;

	cJSON_ArrayForEach(dg, list) {
		if ((sev = severity(dg)) == NULL || (msg = mc_json_str(dg, "message")) == NULL)
			continue;
		if (shown >= DIAG_MAX) {
			more++;
			continue;
		}
		start = mc_json_obj(mc_json_obj(dg, "range"), "start");
		line.len = 0;
		mc_buf_printf(&line, "%s:%d:%d: %s: ", name,
		    (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(start, "line")) + 1,
		    (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(start, "character")) + 1,
		    sev);
		k = strcspn(msg, "\n");		/* the first line of it */
		mc_buf_add(&line, msg, k);
		mc_buf_addc(&line, '\n');
		if (out->len - head + line.len > DIAG_CAP) {
			more++;
			continue;
		}
		if (shown++ == 0)
			mc_buf_printf(out, "\n[diagnostics from lsp.%s]\n", lang);
		mc_buf_add(out, line.data, line.len);
	}
	if (more > 0)
		mc_buf_printf(out, "(%zu more)\n", more);
	mc_buf_free(&line);
}

/* Wait for the file's diagnostics (those of version, when the server
 * says which). 1 with them added to out, 0 at the deadline, -1 failed. */
static int
await(struct lsp_server *s, const char *uri, int version, const char *name, long long deadline,
    size_t *taken, struct mc_buf *out, char *why, size_t whysz)
{
	const cJSON *p, *v;
	const char *u, *method;
	cJSON *m;
	int r;

	while ((r = next_msg(s, deadline, taken, &m, why, whysz)) == 1) {
		method = mc_json_str(m, "method");
		p = mc_json_obj(m, "params");
		u = mc_json_str(p, "uri");
		v = cJSON_GetObjectItemCaseSensitive(p, "version");
		if (method != NULL && strcmp(method, "textDocument/publishDiagnostics") == 0 &&
		    u != NULL && strcmp(u, uri) == 0 &&
		    (!cJSON_IsNumber(v) || (int)v->valuedouble >= version)) {
			diagnostics(out, s->lang, name, mc_json_arr(p, "diagnostics"));
			cJSON_Delete(m);
			return 1;
		}
		cJSON_Delete(m);
	}
	return r;
}

/*
 * After a write or edit that ran (its output item in hand): when a
 * server of the settings takes the file, it is started (the first time),
 * told of the file's text, and waited on for at most lsp.wait_ms in all;
 * the file's errors and warnings are added to the output the model
 * reads. A server that fails is said once and off for the session.
 */
void
lsp_after_edit(struct driver *d, const cJSON *call, cJSON *item)
{
	const char *name = mc_json_str(call, "name"), *rel, *out = mc_json_str(item, "output");
	char why[256], err[64], *path, *uri, *real;
	struct lsp_server *s;
	struct mc_buf b = {0};
	struct mc_read rd;
	long long deadline;
	size_t taken = 0;
	cJSON *args;
	int version, r;

	if (name == NULL || (strcmp(name, "write") != 0 && strcmp(name, "edit") != 0) ||
	    mc_settings_get(&d->c.set, "lsp") == NULL || out == NULL || strncmp(out, "error", 5) == 0)
		return;
	rel = mc_json_str(call, "arguments") ? mc_json_str(call, "arguments") : "";
	args = mc_json_parse(rel, strlen(rel), err, sizeof err);
	if ((rel = mc_json_str(args, "path")) == NULL || (s = server_for(servers(d), rel)) == NULL ||
	    s->off) {
		cJSON_Delete(args);
		return;
	}
	path = rel[0] == '/' ? mc_strdup(rel) : mc_path_join(d->c.cwd, rel);
	if ((real = realpath(path, NULL)) != NULL) {	/* as the server names it back */
		free(path);
		path = real;
	}
	mc_file_read(path, LSP_FILE_MAX, MC_LINK_FOLLOW, NULL, 1, &rd);
	if (rd.status != MC_READ_OK) {
		free(path);
		cJSON_Delete(args);
		return;		/* not a text file it could be told of */
	}
	deadline = s->deadline = mc_clock_ms() + servers(d)->wait_ms;
	uri = uri_of(path);
	r = s->pid > 0 ? drain(s, &taken, why, sizeof why) :
	    server_start(d, s, deadline, &taken, why, sizeof why);
	if (r == 0 && tell(s, uri, rd.data, &version) == -1) {
		stopped(why, sizeof why);
		r = -1;
	}
	if (r == 0) {
		mc_buf_adds(&b, out);
		if ((r = await(s, uri, version, rel, deadline, &taken, &b, why, sizeof why)) == 0 &&
		    !interrupted) {
			snprintf(why, sizeof why, "no diagnostics for %s within %lld ms", rel,
			    servers(d)->wait_ms);
			r = -1;
		}
	}
	if (r != 1 && interrupted)
		server_end(s, 0);	/* the user's stop, not its failure: started again later */
	else if (r == -1)
		server_failed(s, why);
	else if (r == 1 && b.len > strlen(out))
		cJSON_ReplaceItemInObjectCaseSensitive(item, "output",
		    mc_json_new_owned(mc_buf_steal(&b)));
	mc_buf_free(&b);
	free(uri);
	free(rd.data);
	free(path);
	cJSON_Delete(args);
}

/* At the session's end: every server told to go, and gone. */
void
lsp_stop(struct driver *d)
{
	struct lsp *l = d->lsp;
	size_t i;

	if (l == NULL)
		return;
	for (i = 0; i < l->n; i++)
		server_end(&l->v[i], 1);
	free(l->v);
	free(l);
	d->lsp = NULL;
}
