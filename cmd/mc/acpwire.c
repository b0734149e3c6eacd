/*
 * acpwire.c: mc acp's wire: JSON-RPC 2.0, one message a line. A reader
 * thread takes the client's lines as they come, so that a session/cancel
 * (or the end of stdin) reaches a turn that is busy elsewhere: it stops
 * the turn as Ctrl-C would, with SIGINT to the thread that runs it. The
 * client's responses to our requests are handed to the request waiting
 * for them; its requests and notifications wait in the inbox for the
 * main loop (acp.c). Every line out is written whole, under the lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acp.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "lines.h"
#include "mc.h"

/* One message, one line, one write. */
void
acp_send(struct acp *a, cJSON *msg)
{
	size_t n;
	char *s;

	mc_json_add_str(msg, "jsonrpc", "2.0");
	s = mc_json_compact(msg, &n);
	s[n] = '\n';
	pthread_mutex_lock(&a->mu);
	if (mc_write_all(a->out, s, n + 1) == -1 && errno != EPIPE)
		mc_warn("mc acp: stdout: %s", strerror(errno));
	pthread_mutex_unlock(&a->mu);
	free(s);
	cJSON_Delete(msg);
}

void
acp_reply(struct acp *a, const cJSON *id, cJSON *result)
{
	cJSON *m = mc_json_new_obj();

	mc_json_add(m, "id", cJSON_Duplicate(id, 1));
	mc_json_add(m, "result", result);
	acp_send(a, m);
}

void
acp_error(struct acp *a, const cJSON *id, int code, const char *fmt, ...)
{
	cJSON *m = mc_json_new_obj(), *e = mc_json_new_obj();
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		mc_oom();
	va_end(ap);
	mc_json_add(m, "id", id != NULL ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	mc_json_add_num(e, "code", code);
	mc_json_add_owned(e, "message", s);
	mc_json_add(m, "error", e);
	acp_send(a, m);
}

void
acp_notify(struct acp *a, const char *method, cJSON *params)
{
	cJSON *m = mc_json_new_obj();

	mc_json_add_str(m, "method", method);
	mc_json_add(m, "params", params);
	acp_send(a, m);
}

/* Under the lock: the turn stops as with Ctrl-C. */
static void
stop_turn(struct acp *a)
{
	if (!a->busy || a->cancelled)
		return;
	a->cancelled = 1;
	interrupted = 1;
	pthread_kill(a->main, SIGINT);
}

/* Under the lock: the prompts for session sid that wait in the inbox,
 * marked to be answered cancelled (acp.c). */
static void
cancel_queued(struct acp *a, const char *sid)
{
	cJSON *m;
	const char *s;

	cJSON_ArrayForEach(m, a->inbox) {
		s = mc_json_str(mc_json_obj(m, "params"), "sessionId");
		if (strcmp(mc_json_str(m, "method") ? mc_json_str(m, "method") : "",
		    "session/prompt") == 0 && s != NULL && strcmp(s, sid) == 0 &&
		    !cJSON_HasObjectItem(m, ACP_CANCELLED))
			mc_json_add(m, ACP_CANCELLED, cJSON_CreateTrue());
	}
}

/* A message the client sent: where it goes. */
static void
take(struct acp *a, cJSON *m)
{
	const char *method = mc_json_str(m, "method"), *sid;
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");

	pthread_mutex_lock(&a->mu);
	if (method != NULL && strcmp(method, "session/cancel") == 0) {
		/* A notification: for the turn running, it stops; else
		 * there is nothing to cancel. */
		sid = mc_json_str(mc_json_obj(m, "params"), "sessionId");
		if (sid != NULL && strcmp(sid, a->running) == 0)
			stop_turn(a);
		else if (sid != NULL)
			cancel_queued(a, sid);
		cJSON_Delete(m);
	} else if (method != NULL)
		mc_json_push(a->inbox, m);
	else if (id != NULL && (cJSON_GetObjectItemCaseSensitive(m, "result") != NULL ||
	    cJSON_GetObjectItemCaseSensitive(m, "error") != NULL))
		mc_json_push(a->answers, m);
	else
		mc_json_push(a->inbox, m);	/* acp.c answers: not a request */
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

static void *
reader(void *arg)
{
	struct acp *a = arg;
	struct mc_lines in = { .fd = a->in, .cap = ACP_LINE_CAP };
	char err[256], *line;
	size_t len;
	cJSON *m;
	int r;

	while ((r = mc_lines_next(&in, &line, &len)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			mc_err("mc acp: stdin: %s", errno == EFBIG ? "a message over the size limit" :
			    strerror(errno));
			break;
		}
		if (line[strspn(line, " \t\r")] == '\0')
			continue;
		if ((m = mc_json_parse(line, len, err, sizeof err)) == NULL) {
			acp_error(a, NULL, RPC_PARSE, "parse error: %s", err);
			continue;
		}
		if (!cJSON_IsObject(m)) {
			cJSON_Delete(m);
			acp_error(a, NULL, RPC_INVALID, "invalid request: not a JSON object");
			continue;
		}
		take(a, m);
	}
	mc_buf_free(&in.buf);
	pthread_mutex_lock(&a->mu);
	a->eof = 1;
	stop_turn(a);	/* a client gone mid-turn: as Ctrl-C */
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/*
 * The protocol gets stdin and stdout to itself: both are moved to
 * descriptors of its own, stdin becomes /dev/null (nothing the turn
 * starts reads the client's messages) and stdout stderr (nothing the
 * driver or a child writes there can reach the client's stream). Then
 * the reader starts, with every signal blocked: they are the main
 * thread's. 0, or -1 after saying why.
 */
int
acp_wire_start(struct acp *a)
{
	sigset_t all, old;
	int null;

	a->inbox = mc_json_new_arr();
	a->answers = mc_json_new_arr();
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	a->main = pthread_self();
	fflush(stdout);
	if ((a->in = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3)) == -1 ||
	    (a->out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) == -1 ||
	    (null = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1) {
		mc_err("mc acp: %s", strerror(errno));
		return -1;
	}
	dup2(null, STDIN_FILENO);
	close(null);
	dup2(STDERR_FILENO, STDOUT_FILENO);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	errno = pthread_create(&a->reader, NULL, reader, a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (errno != 0) {
		mc_err("mc acp: a thread: %s", strerror(errno));
		return -1;
	}
	a->started = 1;
	return 0;
}

/* At the end: the reader is done with stdin's end (or is left to the
 * exit, blocked in a read of a client that keeps it open). */
void
acp_wire_stop(struct acp *a)
{
	if (a->started && a->eof)
		pthread_join(a->reader, NULL);
	else if (a->started)
		pthread_detach(a->reader);
	cJSON_Delete(a->inbox);
	cJSON_Delete(a->answers);
	a->inbox = a->answers = NULL;
}

/* Under the lock: wait for the reader, or a fifth of a second (a signal
 * does not end a wait on a condition, and SIGTERM must be seen). */
static void
await(struct acp *a)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_nsec += 200000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&a->cv, &a->mu, &t);
}

/* The next request or notification to handle; NULL when stdin has ended
 * (or SIGTERM came). */
cJSON *
acp_next(struct acp *a)
{
	cJSON *m = NULL;

	pthread_mutex_lock(&a->mu);
	while (cJSON_GetArraySize(a->inbox) == 0 && !a->eof && !terminated)
		await(a);
	if (cJSON_GetArraySize(a->inbox) > 0)
		m = cJSON_DetachItemFromArray(a->inbox, 0);
	pthread_mutex_unlock(&a->mu);
	return m;
}

/* A turn runs in session, from now until acp_turn_ends: a cancel from
 * now on stops it (interrupted set, under the lock, as a cancel sets
 * it). Once: a turn begun goes on as it is (a prompt is taken in, then
 * run). */
void
acp_turn_begins(struct acp *a, const char *session)
{
	pthread_mutex_lock(&a->mu);
	if (!a->busy) {
		snprintf(a->running, sizeof a->running, "%s", session);
		a->busy = 1;
		a->cancelled = 0;
		interrupted = 0;
	}
	pthread_mutex_unlock(&a->mu);
}

/* Whether the turn begun was cancelled. */
int
acp_turn_cancelled(struct acp *a)
{
	int c;

	pthread_mutex_lock(&a->mu);
	c = a->cancelled;
	pthread_mutex_unlock(&a->mu);
	return c;
}

void
acp_turn_ends(struct acp *a)
{
	pthread_mutex_lock(&a->mu);
	a->busy = 0;
	a->running[0] = '\0';
	/* Late answers to requests the turn gave up on. */
	cJSON_Delete(a->answers);
	a->answers = mc_json_new_arr();
	pthread_mutex_unlock(&a->mu);
}

/* Under the lock: the answer to our request id, taken, or NULL. */
static cJSON *
answer_to(struct acp *a, long long id)
{
	cJSON *m;
	int i = 0;

	cJSON_ArrayForEach(m, a->answers) {
		const cJSON *mid = cJSON_GetObjectItemCaseSensitive(m, "id");

		if (cJSON_IsNumber(mid) && (long long)mid->valuedouble == id)
			return cJSON_DetachItemFromArray(a->answers, i);
		i++;
	}
	return NULL;
}

/*
 * A request to the client, and its result (taken), waited for. NULL when
 * it answered with an error (err says it), or when the turn was
 * cancelled or stdin ended meanwhile: then *cancelled is set, and a late
 * answer is dropped.
 */
cJSON *
acp_request(struct acp *a, const char *method, cJSON *params, int *cancelled, char *err,
    size_t errsz)
{
	cJSON *m = mc_json_new_obj(), *ans = NULL, *res = NULL;
	const cJSON *e;
	long long id;

	*cancelled = 0;
	pthread_mutex_lock(&a->mu);
	id = ++a->next_id;
	pthread_mutex_unlock(&a->mu);
	mc_json_add_num(m, "id", (double)id);
	mc_json_add_str(m, "method", method);
	mc_json_add(m, "params", params);
	acp_send(a, m);
	pthread_mutex_lock(&a->mu);
	while ((ans = answer_to(a, id)) == NULL && !a->eof && !a->cancelled && !terminated)
		await(a);
	if (ans == NULL)
		*cancelled = 1;
	pthread_mutex_unlock(&a->mu);
	if (ans == NULL) {
		snprintf(err, errsz, "%s: cancelled", method);
		return NULL;
	}
	if ((e = mc_json_obj(ans, "error")) != NULL)
		snprintf(err, errsz, "%s: the client answered: %s", method,
		    mc_json_str(e, "message") ? mc_json_str(e, "message") : "an error");
	else if ((res = cJSON_DetachItemFromObjectCaseSensitive(ans, "result")) == NULL)
		snprintf(err, errsz, "%s: an answer without a result", method);
	cJSON_Delete(ans);
	return res;
}
