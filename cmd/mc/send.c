/* send.c: the session-long mc-send --serve: envelopes in, events out, one connection. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"
#include "toolenv.h"

/*
 * Start mc-send for the session. It gets the provider keys, which no
 * other child does, through the environment of its own exec; it runs in
 * a process group of its own, so that Ctrl-C on the terminal reaches the
 * driver alone (which ends the answer by ending mc-send), and dies with
 * the driver. 0, or -1 after saying why.
 */
int
send_start(struct driver *d)
{
	char *argv[] = { "mc-send", "--serve", NULL }, err[256], **env;
	struct mc_child c = { .argv = argv, .fd = { -1, -1, -1 },
	    .flags = MC_CHILD_SUITE | MC_CHILD_PGROUP | MC_CHILD_PDEATH };
	int in[2], out[2];

	if (d->send.pid > 0)
		return 0;
	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1) {
		mc_err("pipe: %s", strerror(errno));
		return -1;
	}
	env = mc_env_merge(NULL, d->c.keys);
	c.envp = env;
	c.fd[0] = in[0];
	c.fd[1] = out[1];
	d->send.pid = mc_child_start(&c, err, sizeof err);
	mc_env_free(env);
	close(in[0]);
	close(out[1]);
	if (d->send.pid == -1) {
		d->send.pid = 0;
		close(in[1]);
		close(out[0]);
		mc_err("%s", err);
		return -1;
	}
	d->send.wr = in[1];
	d->send.rd = out[0];
	d->send.buf.len = d->send.at = 0;
	return 0;
}

/* The envelope, as one line. 0, or -1 (mc-send is stopped) after saying
 * why unless interrupted. */
int
send_envelope(struct driver *d, const char *env, size_t n)
{
	while (n > 0 && env[n - 1] == '\n')
		n--;
	if (d->send.pid <= 0 && send_start(d) == -1)
		return -1;
	if (mc_write_all(d->send.wr, env, n) == -1 || mc_write_all(d->send.wr, "\n", 1) == -1) {
		if (!interrupted)
			mc_err("mc-send: stopped taking requests: %s", strerror(errno));
		send_stop(d, 1);
		return -1;
	}
	return 0;
}

/*
 * The next event of the answer, or NULL when mc-send ended (it has said
 * why) or the user interrupted; mc-send is then stopped.
 */
cJSON *
send_event(struct driver *d)
{
	struct sender *s = &d->send;
	char err[256], *nl;
	cJSON *ev;
	ssize_t n;

	for (;;) {
		if (interrupted)
			break;
		nl = s->buf.len > s->at ? memchr(s->buf.data + s->at, '\n', s->buf.len - s->at) : NULL;
		if (nl != NULL) {
			ev = mc_json_parse(s->buf.data + s->at, (size_t)(nl - s->buf.data - s->at),
			    err, sizeof err);
			s->at = (size_t)(nl - s->buf.data) + 1;
			if (ev != NULL && cJSON_IsObject(ev) && mc_json_str(ev, "type") != NULL)
				return ev;
			cJSON_Delete(ev);
			mc_err("mc-send: an event that is not one: %s", ev ? "no type" : err);
			break;
		}
		if (s->at > 0) {
			memmove(s->buf.data, s->buf.data + s->at, s->buf.len - s->at);
			s->buf.len -= s->at;
			s->at = 0;
		}
		if (s->buf.len > EVENT_CAP) {
			mc_err("mc-send: an event over %u bytes", (unsigned)EVENT_CAP);
			break;
		}
		mc_buf_grow(&s->buf, 65536);
		n = read(s->rd, s->buf.data + s->buf.len, 65536);
		if (n > 0) {
			s->buf.len += (size_t)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (!interrupted)
			mc_err("mc-send: ended before the answer did");
		break;
	}
	send_stop(d, 1);
	return NULL;
}

/* End mc-send: at once (kill_it), or by the end of its input. */
void
send_stop(struct driver *d, int kill_it)
{
	struct sender *s = &d->send;

	if (s->pid <= 0)
		return;
	if (kill_it)
		kill(-s->pid, SIGTERM);
	close(s->wr);
	close(s->rd);
	mc_child_wait(s->pid);
	s->pid = 0;
	s->buf.len = s->at = 0;
}
