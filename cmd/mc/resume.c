/* resume.c: mc -r: a session named by its id or a prefix of it, or picked on the terminal from this directory's recent ones. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "json.h"
#include "mc.h"

#define PICK_MAX 20		/* sessions the picker lists */
#define ANSWER_MAX 64		/* bytes of the picker's answer */

/* One session as the picker and an ambiguous prefix list it. */
static void
describe(const struct mc_session_info *in, const char *lead)
{
	char when[32], name[256];

	session_when(in, when, sizeof when);
	session_name(in, name, sizeof name);
	fprintf(stderr, "%s%s  %s  (%lld turn%s)\n", lead, when, *name ? name : "(untitled)",
	    in->turns, in->turns == 1 ? "" : "s");
}

int
session_find(const char *home, const char *word, char **id)
{
	struct mc_session_info *v;
	char err[512], *path, lead[96];
	size_t n, i, k, len = strlen(word), hit = 0;
	struct stat st;

	*id = NULL;
	if (*word == '\0' || !mc_session_id_valid(word)) {
		mc_err("not a session id or the start of one: \"%s\"", word);
		return MC_EXIT_USAGE;
	}
	path = mc_session_path(home, word);
	k = stat(path, &st) == 0;
	free(path);
	if (k) {
		*id = mc_strdup(word);
		return -1;
	}
	if (mc_session_list(home, &v, &n, err, sizeof err) == -1) {
		mc_err("%s", err);
		return MC_EXIT_FAIL;
	}
	for (i = k = 0; i < n; i++)
		if (strncmp(v[i].id, word, len) == 0 && k++ == 0)
			hit = i;
	if (k == 1)
		*id = mc_strdup(v[hit].id);
	else if (k == 0)
		mc_err("no session %s: no session id is or starts with it (mc sessions --all "
		    "lists them)", word);
	else {
		mc_err("%s: %zu sessions start with it; give more of the id:", word, k);
		for (i = 0; i < n; i++) {
			if (strncmp(v[i].id, word, len) != 0)
				continue;
			snprintf(lead, sizeof lead, "  %s  ", v[i].id);
			describe(&v[i], lead);
		}
	}
	mc_session_list_free(v, n);
	return k == 1 ? -1 : MC_EXIT_USAGE;
}

/* A line typed on the terminal (canonical mode: read returns at the
 * newline), without it: 1, 0 at the end of input on an empty line, -1
 * interrupted (Ctrl-C). Past ANSWER_MAX bytes the rest is dropped. */
static int
answer(char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;
	char c;

	for (;;) {
		if ((r = read(STDIN_FILENO, &c, 1)) == -1 && errno == EINTR && !interrupted)
			continue;
		if (r == -1)
			return -1;
		if (r == 0 && n == 0)
			return 0;
		if (r == 0 || c == '\n')
			break;
		if (n + 1 < size)
			buf[n++] = c;
	}
	buf[n] = '\0';
	return 1;
}

int
session_pick(struct driver *d, char **id)
{
	struct mc_session_info *v;
	char buf[ANSWER_MAX], safe[4 * ANSWER_MAX], *end, *here;
	size_t n, i, k = 0;
	long long pick;
	int r;

	*id = NULL;
	if (sessions_of(d, 0, &v, &n) == -1)
		return MC_EXIT_FAIL;
	/* A subagent's session is its parent's part, as for mc -c. */
	for (i = 0; i < n && k < PICK_MAX; i++)
		if (mc_json_str(v[i].header, "parent") == NULL)
			v[k++] = v[i];
		else
			mc_session_info_free(&v[i]);
	for (; i < n; i++)
		mc_session_info_free(&v[i]);
	if (k == 0) {
		here = mc_session_cwd(d->c.cwd);
		mc_err("no session of this directory (%s) to resume; mc sessions --all lists "
		    "every directory's", here);
		free(here);
		mc_session_list_free(v, 0);
		return MC_EXIT_FAIL;
	}
	for (i = 0; i < k; i++) {
		snprintf(buf, sizeof buf, "%4zu  ", i + 1);
		describe(&v[i], buf);
	}
	for (;;) {
		fprintf(stderr, "resume which session? (1-%zu; Enter or q: none) ", k);
		fflush(stderr);
		interrupted = 0;
		if ((r = answer(buf, sizeof buf)) <= 0) {
			fputc('\n', stderr);
			r = r == 0 ? MC_EXIT_OK : MC_EXIT_INTR;
			break;
		}
		if (buf[strspn(buf, " \t")] == '\0' || strcmp(buf, "q") == 0) {
			r = MC_EXIT_OK;
			break;
		}
		errno = 0;
		pick = strtoll(buf, &end, 10);
		if (errno == 0 && end != buf && *end == '\0' && pick >= 1 && pick <= (long long)k) {
			*id = mc_strdup(v[pick - 1].id);
			r = -1;
			break;
		}
		mc_err("not a number from 1 to %zu: %s", k, mc_sanitize(safe, sizeof safe, buf));
	}
	if (r == MC_EXIT_OK)
		mc_note("no session resumed");
	interrupted = 0;
	mc_session_list_free(v, k);
	return r;
}
