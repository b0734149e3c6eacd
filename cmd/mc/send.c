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
#include "http.h"
#include "json.h"
#include "lines.h"
#include "mc.h"
#include "provider.h"
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
	char *argv[5] = { "mc-send", "--serve" }, err[256], **env;
	struct mc_child c = { .argv = argv, .fd = { -1, -1, -1 },
	    .flags = MC_CHILD_SUITE | MC_CHILD_PGROUP | MC_CHILD_PDEATH };
	struct mc_provider_opts o = { .provider = d->c.provider, .model = d->c.model };
	struct mc_provider p = {0};
	int n = 2;

	if (d->send.pid > 0)
		return 0;
	/* --cache or --refresh: each envelope of the session looked up alone. */
	if (d->c.cache != NULL)
		argv[n++] = (char *)d->c.cache;
	/* libcurl loaded now, while the prompt is assembled, when the
	 * provider's requests will need it. A session read later may name
	 * another provider: this is only a hint. */
	if (mc_provider_resolve(&d->c.set, &o, &p, err, sizeof err) == 0 && p.base_url != NULL &&
	    mc_http_libcurl(p.base_url))
		argv[n++] = "--preload";
	mc_provider_free(&p);
	env = mc_env_merge(NULL, d->c.keys);
	c.envp = env;
	d->send.pid = mc_child_start_piped(&c, &d->send.wr, &d->send.out.fd, err, sizeof err);
	mc_env_free(env);
	if (d->send.pid == -1) {
		d->send.pid = 0;
		mc_err("%s", err);
		return -1;
	}
	d->send.out.cap = EVENT_CAP;
	mc_lines_reset(&d->send.out);	/* its buffer is kept from one mc-send to the next */
	return 0;
}

/* The envelope build_request made, n bytes with its newline, passed on
 * from mc-request to mc-send as it is. 0, or -1 (mc-send and mc-request
 * are stopped) after saying why unless interrupted. */
int
send_envelope(struct driver *d, size_t n)
{
	int e;

	if (d->send.pid <= 0 && send_start(d) == -1) {
		build_stop(d);
		return -1;
	}
	if (build_pass(d, d->send.wr, n) == -1) {
		e = errno;
		if (!interrupted)
			mc_err("mc-send: stopped taking requests: %s", strerror(e));
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
	char err[256], *line;
	size_t len;
	cJSON *ev;
	int r = 1;

	while (!interrupted && (r = mc_lines_next(&d->send.out, &line, &len)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			mc_err("mc-send: %s", errno == EFBIG ? "an event over the size limit" :
			    strerror(errno));
			break;
		}
		ev = mc_json_parse(line, len, err, sizeof err);
		if (ev != NULL && cJSON_IsObject(ev) && mc_json_str(ev, "type") != NULL)
			return ev;
		cJSON_Delete(ev);
		mc_err("mc-send: an event that is not one: %s", ev ? "no type" : err);
		break;
	}
	if (!interrupted && r == 0)
		mc_err("mc-send: ended before the answer did");
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
	close(s->out.fd);
	mc_child_wait(s->pid);
	s->pid = 0;
	mc_lines_reset(&s->out);
}
