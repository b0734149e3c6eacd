/* models.c: mc-send --models: the provider's list of models (GET URL), its body written as it came. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "fsread.h"
#include "mc-send.h"
#include "provider.h"
#include "sse.h"

#define MODELS_CAP (16u << 20)	/* the list's body */

static int
collect(const char *p, size_t n, void *arg)
{
	struct mc_buf *b = arg;

	if (b->len + n > MODELS_CAP)
		return -1;
	mc_buf_add(b, p, n);
	return 0;
}

/* Why the GET failed, into o (the key kept out of it). */
static void
models_error(struct out *o, const struct envelope *env, const struct mc_http_res *res)
{
	char msg[2048], code[128], line[2400];
	int st;

	if (res->result == MC_HTTP_NOCONN && res->refused)
		snprintf(line, sizeof line, "cannot reach %s at %s: connection refused "
		    "(is the server running?)", env->provider, env->url);
	else if (res->result == MC_HTTP_STOPPED)
		snprintf(line, sizeof line, "the models list of %s is over %u bytes", env->provider,
		    MODELS_CAP);
	else if (res->result != MC_HTTP_OK)
		snprintf(line, sizeof line, "cannot reach %s: %s", env->provider, res->err);
	else if (res->status == 404 || res->status == 405 || res->status == 501)
		snprintf(line, sizeof line, "%s has no models list (HTTP %ld for GET %s)",
		    env->provider, res->status, env->url);
	else {
		if (mc_error_parse(res->errbody.data ? res->errbody.data : "", res->errbody.len,
		    msg, sizeof msg, code, sizeof code, &st) == -1)
			snprintf(msg, sizeof msg, "%s", res->reason[0] ? res->reason : "no message");
		snprintf(line, sizeof line, "HTTP %ld from %s for GET %s: %s", res->status,
		    env->provider, env->url, msg);
	}
	set_error(o, line, NULL, (int)res->status, 1);
}

int
models(struct sender *sd)
{
	struct envelope env = {0};
	struct mc_http_req req = {0};
	struct mc_http_res res = {0};
	struct mc_buf in = {0}, body = {0};
	const char *headers[4];
	cJSON *doc = NULL;
	char err[1024], *auth = NULL;
	long connect, idle;
	struct out o;
	int nh = 0, status = MC_EXIT_FAIL;

	if (mc_fd_slurp(STDIN_FILENO, MC_JSON_MAX, &in) == -1) {
		mc_err("envelope: %s", errno == EFBIG ? "over the size limit" : strerror(errno));
		return MC_EXIT_FAIL;
	}
	if (envelope_parse(in.data ? in.data : "", in.len, &env, &doc, err, sizeof err) == -1) {
		mc_err("envelope: %s", err);
		goto out;
	}
	if (envelope_auth(&env, sd, &auth, err, sizeof err) == -1) {
		mc_err("%s", err);
		goto out;
	}
	mc_provider_timeouts(sd->have_settings ? &sd->settings : NULL, env.provider, &connect, &idle);
	if (auth != NULL)
		headers[nh++] = auth;
	if (env.api == MC_API_MESSAGES)
		headers[nh++] = "anthropic-version: 2023-06-01";
	headers[nh++] = "Accept: application/json";
	headers[nh] = NULL;
	req = (struct mc_http_req){ .method = "GET", .url = env.url, .headers = headers,
	    .connect_timeout = sd->connect > 0 ? sd->connect : connect,
	    .idle_timeout = sd->idle > 0 ? sd->idle : idle, .on_body = collect, .arg = &body,
	    .interrupted = &got_sigint, .wake_fd = -1 };
	out_init(&o, sd, env.provider, auth_key(auth));
	if (mc_http_post(sd->http, &req, &res) == -1)
		set_error(&o, res.err, NULL, 0, 1);
	else if (res.result == MC_HTTP_INTR || got_sigint)
		status = MC_EXIT_INTR;
	else if (res.result == MC_HTTP_OK && res.status >= 200 && res.status <= 299) {
		fwrite(body.data ? body.data : "", 1, body.len, stdout);
		if (body.len > 0 && body.data[body.len - 1] != '\n')
			putchar('\n');
		status = out_check(sd) == -1 ? MC_EXIT_FAIL : MC_EXIT_OK;
	} else
		models_error(&o, &env, &res);
	if (o.failed)
		report(&o);
	out_free(&o);
	mc_http_res_free(&res);
out:
	auth_free(auth);
	mc_buf_free(&body);
	mc_buf_free(&in);
	cJSON_Delete(doc);
	envelope_free(&env);
	return status;
}
