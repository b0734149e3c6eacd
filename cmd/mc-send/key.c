/* key.c: the key an envelope names: a variable, or a command's output or a file's first line, kept for the session. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "clip.h"
#include "diag.h"
#include "fsread.h"
#include "mc-send.h"
#include "proc.h"
#include "toolenv.h"

#define KEY_CMD_TIMEOUT_S 10
#define KEY_CAP (64u << 10)	/* a key file, or what a key command prints */

static void
wipe(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

/* The first line of text, cut there in place (a CR and trailing blanks
 * go too): the key, or "" when that line is empty. */
static char *
first_line(char *text)
{
	size_t n = strcspn(text, "\n");

	while (n > 0 && (text[n - 1] == '\r' || text[n - 1] == ' ' || text[n - 1] == '\t'))
		n--;
	text[n] = '\0';
	return text;
}

/*
 * Run api_key_cmd with /bin/sh -c, without a terminal, its stdin
 * /dev/null, for at most KEY_CMD_TIMEOUT_S seconds. Its output is never
 * shown: a failure says how the command ended, no more. Returns the whole
 * output (malloc'ed; the caller cuts it to the first line and wipes it),
 * or NULL with the reason in err.
 */
static char *
key_run(const char *setting, const char *cmd, char *err, size_t errsz)
{
	char *argv[] = { "sh", "-c", (char *)cmd, NULL }, *text;
	struct mc_clip out, errs;
	struct mc_proc r;
	size_t len;

	mc_clip_init(&out, KEY_CAP);
	mc_clip_init(&errs, 256);
	if (mc_proc_run("/bin/sh", argv, NULL, KEY_CMD_TIMEOUT_S, &out, &errs, &r) == -1) {
		snprintf(err, errsz, "%s: cannot run /bin/sh: %s", setting, strerror(errno));
		text = NULL;
		goto out;
	}
	text = mc_clip_finish(&out, &len);
	if (r.interrupted) {
		got_sigint = 1;
		snprintf(err, errsz, "%s: interrupted", setting);
	} else if (r.timed_out)
		snprintf(err, errsz, "%s: the command did not finish in %d seconds", setting,
		    KEY_CMD_TIMEOUT_S);
	else if (r.exec_err != 0)
		snprintf(err, errsz, "%s: cannot run the command: %s", setting, strerror(r.exec_err));
	else if (WIFSIGNALED(r.status))
		snprintf(err, errsz, "%s: the command was killed by signal %d", setting,
		    WTERMSIG(r.status));
	else if (WEXITSTATUS(r.status) != 0)
		snprintf(err, errsz, "%s: the command failed (exit %d)", setting,
		    WEXITSTATUS(r.status));
	else
		goto out;
	wipe(text);
	text = NULL;
out:
	mc_clip_free(&out);
	mc_clip_free(&errs);
	return text;
}

/*
 * Read api_key_file: a regular file no one but its owner may read or
 * write (mode 0600 or stricter), else refused naming the file and its
 * mode. Returns its text (malloc'ed, for the caller to cut and wipe), or
 * NULL with the reason in err.
 */
static char *
key_read(const char *setting, const char *path, char *err, size_t errsz)
{
	struct mc_read r;

	mc_file_read(path, KEY_CAP, MC_LINK_FOLLOW, NULL, 1, &r);
	if (r.status != MC_READ_OK) {
		snprintf(err, errsz, "%s: %s: %s", setting, path, mc_read_strerror(&r, KEY_CAP));
		return NULL;
	}
	if (r.mode & (S_IRWXG | S_IRWXO)) {
		snprintf(err, errsz, "%s: %s has mode %04o: others may read it; "
		    "make it 0600 or stricter (chmod 600 %s)", setting, path,
		    (unsigned)(r.mode & 07777), path);
		explicit_bzero(r.data, r.len);
		free(r.data);
		return NULL;
	}
	return r.data;
}

/* The key of api_key_cmd or api_key_file, kept in sd for the session
 * (resolved again only when an envelope names another source); NULL
 * with the reason in err. */
static const char *
key_kept(const struct envelope *e, struct sender *sd, char *err, size_t errsz)
{
	const char *kind = e->key_cmd != NULL ? "api_key_cmd" : "api_key_file";
	const char *src = e->key_cmd != NULL ? e->key_cmd : e->key_file;
	char setting[320], *text;

	if (sd->key != NULL && strcmp(sd->key_kind, kind) == 0 && strcmp(sd->key_src, src) == 0)
		return sd->key;
	key_forget(sd);
	snprintf(setting, sizeof setting, "providers.%s.%s", e->provider, kind);
	text = e->key_cmd != NULL ? key_run(setting, src, err, errsz) :
	    key_read(setting, src, err, errsz);
	if (text == NULL)
		return NULL;
	if (first_line(text)[0] == '\0') {
		snprintf(err, errsz, "%s: %s", setting, e->key_cmd != NULL ?
		    "the command printed no key (its first line is empty)" :
		    "the file holds no key (its first line is empty)");
		wipe(text);
		return NULL;
	}
	/* The rest of the output may be secret too: keep only the key. */
	sd->key = mc_strdup(text);
	wipe(text);
	sd->key_kind = kind;
	sd->key_src = mc_strdup(src);
	return sd->key;
}

void
key_forget(struct sender *sd)
{
	wipe(sd->key);
	free(sd->key_src);
	sd->key = sd->key_src = NULL;
}

/* The header's key, for its redaction. */
const char *
auth_key(const char *auth)
{
	const char *p;

	if (auth == NULL)
		return NULL;
	p = strchr(auth, ':') + 2;	/* "NAME: " */
	return strncmp(p, "Bearer ", 7) == 0 ? p + 7 : p;
}

int
envelope_auth(const struct envelope *e, struct sender *sd, char **auth, char *err, size_t errsz)
{
	const char *k, *p, *what;

	*auth = NULL;
	if (e->key_cmd != NULL || e->key_file != NULL) {
		if ((k = key_kept(e, sd, err, errsz)) == NULL)
			return -1;
		what = e->key_cmd != NULL ? "the output of api_key_cmd" : "api_key_file";
	} else if (e->key_env != NULL) {
		k = mc_keys_get(&sd->keys, e->key_env);
		if (k == NULL || k[0] == '\0') {
			if (e->key_optional)
				return 0;
			snprintf(err, errsz, "%s is not set: the provider %s needs it (export %s=...)",
			    e->key_env, e->provider, e->key_env);
			return -1;
		}
		what = e->key_env;
	} else
		return 0;
	for (p = k; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f) {
			snprintf(err, errsz, "%s holds a control character", what);
			return -1;
		}
	/* Messages takes the key as x-api-key, never as a Bearer token. */
	if (asprintf(auth, e->api == MC_API_MESSAGES ? "x-api-key: %s" : "Authorization: Bearer %s",
	    k) == -1)
		mc_oom();
	return 0;
}

void
auth_free(char *auth)
{
	if (auth != NULL) {
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
}
