/* shadow.c: a shadow git repository: snapshots of a work tree kept apart from the project's own .git. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "pipeline.h"
#include "shadow.h"

#define LIST_CAP (256u << 20)	/* git's lists of paths */
#define BLOB_CAP (MC_SHADOW_LARGE + 1)

/* Settings no configuration of the user's may change: hooks, a file
 * system monitor, line-end conversion, quoting, background upkeep. */
static const char *const fixed[] = {
	"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
	"-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "core.quotePath=false",
	"-c", "core.symlinks=true", "-c", "core.fileMode=true", "-c", "core.ignoreCase=false",
	"-c", "core.untrackedCache=false", "-c", "gc.auto=0", "-c", "maintenance.auto=false",
	"-c", "core.excludesFile=/dev/null", "-c", "core.attributesFile=/dev/null",
};
#define NFIXED (sizeof fixed / sizeof fixed[0])

/*
 * Run git with args (NULL-ended) after the fixed settings, in on its
 * stdin, its stdout into out (when not NULL). 0 when it exited 0; else -1
 * with err naming the command and the first line git wrote on stderr.
 */
static int
git_once(struct mc_shadow *s, const char *const *args, const char *in, size_t inlen,
    struct mc_buf *out, char *err, size_t errsz)
{
	const char *argv[48];
	struct mc_buf sink = {0}, msg = {0};
	struct mc_filter f = { .in = in, .inlen = inlen, .collect = out ? out : &sink,
	    .cap = LIST_CAP, .envp = s->env, .stop = s->stop };
	size_t n = 0, i;
	int st, efd, r = 0;
	char why[256];

	argv[n++] = "git";
	for (i = 0; i < NFIXED; i++)
		argv[n++] = fixed[i];
	for (i = 0; args[i] != NULL && n < sizeof argv / sizeof argv[0] - 1; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if ((efd = memfd_create("git-stderr", MFD_CLOEXEC)) == -1) {
		snprintf(err, errsz, "memfd_create: %s", strerror(errno));
		return -1;
	}
	f.err_fd = efd;
	if (mc_filter_run((char *const *)argv, &f, &st, err, errsz) == -1)
		r = -1;
	else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || f.collect->len > LIST_CAP) {
		lseek(efd, 0, SEEK_SET);
		mc_fd_slurp(efd, 4096, &msg);
		mc_buf_adds(&msg, "");
		msg.data[strcspn(msg.data, "\n")] = '\0';
		snprintf(err, errsz, "git %s: %s", args[0], msg.len > 0 && *msg.data ?
		    mc_sanitize(why, sizeof why, msg.data) : f.collect->len > LIST_CAP ?
		    "too much output" : WIFEXITED(st) ? "failed" : "killed by a signal");
		r = -1;
	}
	close(efd);
	mc_buf_free(&sink);
	mc_buf_free(&msg);
	return r;
}

/* git_once, again while another mc of the same directory holds the
 * index (two sessions in one directory): for up to two seconds. */
static int
git(struct mc_shadow *s, const char *const *args, const char *in, size_t inlen,
    struct mc_buf *out, char *err, size_t errsz)
{
	const struct timespec wait = { .tv_nsec = 20 * 1000 * 1000 };
	size_t had = out ? out->len : 0;
	int r, tries = 0;

	while ((r = git_once(s, args, in, inlen, out, err, errsz)) == -1 &&
	    strstr(err, "index.lock") != NULL && tries++ < 100 && !(s->stop && *s->stop)) {
		if (out != NULL)
			out->len = had;
		nanosleep(&wait, NULL);
	}
	return r;
}

static char *
env_var(const char *name, const char *val)
{
	struct mc_buf b = {0};

	mc_buf_printf(&b, "%s=%s", name, val);
	return mc_buf_steal(&b);
}

/* Write name under the repository (info/NAME) with text, as git reads it. */
static int
info_file(struct mc_shadow *s, const char *name, const char *text, char *err, size_t errsz)
{
	struct mc_buf b = {0};
	int fd, r = 0;

	mc_buf_printf(&b, "%s/info", s->dir);
	mkdir(b.data, 0700);
	mc_buf_printf(&b, "/%s", name);
	if ((fd = open(b.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) == -1 ||
	    mc_write_all(fd, text, strlen(text)) == -1) {
		snprintf(err, errsz, "%s: %s", b.data, strerror(errno));
		r = -1;
	}
	if (fd != -1)
		close(fd);
	mc_buf_free(&b);
	return r;
}

int
mc_shadow_open(struct mc_shadow *s, const char *dir, const char *tree, const char *exclude,
    char *err, size_t errsz)
{
	static const char *const init[] = { "init", "-q", "--template=", NULL };
	const char *path = getenv("PATH");
	struct mc_buf b = {0};
	struct stat st;
	size_t n = 0;
	int r = 0;

	memset(s, 0, sizeof *s);
	s->dir = mc_strdup(dir);
	s->tree = mc_strdup(tree);
	if ((s->env = calloc(12, sizeof *s->env)) == NULL)
		mc_oom();
	s->env[n++] = env_var("PATH", path ? path : "/usr/bin:/bin");
	s->env[n++] = env_var("HOME", dir);
	s->env[n++] = env_var("XDG_CONFIG_HOME", dir);
	s->env[n++] = env_var("GIT_CONFIG_NOSYSTEM", "1");
	s->env[n++] = env_var("GIT_CONFIG_GLOBAL", "/dev/null");
	s->env[n++] = env_var("GIT_DIR", dir);
	s->env[n++] = env_var("GIT_WORK_TREE", tree);
	s->env[n++] = env_var("GIT_LITERAL_PATHSPECS", "1");
	s->env[n++] = env_var("GIT_TERMINAL_PROMPT", "0");
	s->env[n++] = env_var("LC_ALL", "C");
	mc_buf_printf(&b, "%s/HEAD", dir);
	if (stat(b.data, &st) == -1) {
		if (mc_dir_parents(b.data, 0700, err, errsz) == -1 ||
		    git(s, init, NULL, 0, NULL, err, errsz) == -1)
			r = -1;
		/* No attribute of the work tree's may convert what is stored:
		 * info/attributes comes before every .gitattributes. */
		else if (info_file(s, "attributes", "* -text -filter -ident -diff !eol "
		    "!working-tree-encoding\n", err, errsz) == -1)
			r = -1;
	}
	b.len = 0;
	if (r == 0 && exclude != NULL && mc_path_within(exclude, tree) && strcmp(exclude, tree) != 0) {
		/* An anchored literal pattern: its wildcards escaped. */
		mc_buf_addc(&b, '/');
		for (const char *p = exclude + strlen(tree) + 1; *p; p++) {
			if (strchr("*?[\\!#", *p))
				mc_buf_addc(&b, '\\');
			mc_buf_addc(&b, *p);
		}
		mc_buf_adds(&b, "/\n");
		r = info_file(s, "exclude", b.data, err, errsz);
	}
	mc_buf_free(&b);
	if (r == -1)
		mc_shadow_close(s);
	return r;
}

static void
large_free(struct mc_shadow *s)
{
	size_t i;

	for (i = 0; i < s->nlarge; i++)
		free(s->large[i]);
	free(s->large);
	s->large = NULL;
	s->nlarge = 0;
}

void
mc_shadow_close(struct mc_shadow *s)
{
	size_t i;

	for (i = 0; s->env != NULL && s->env[i] != NULL; i++)
		free(s->env[i]);
	free(s->env);
	free(s->dir);
	free(s->tree);
	large_free(s);
	memset(s, 0, sizeof *s);
}

/* Trim git's output of one line to its first line, in id. */
static int
one_id(struct mc_buf *out, char id[MC_SHADOW_ID], const char *what, char *err, size_t errsz)
{
	size_t n = strspn(out->data ? out->data : "", "0123456789abcdef");

	if (n < 40 || n >= MC_SHADOW_ID) {
		snprintf(err, errsz, "git %s: no object id in its output", what);
		return -1;
	}
	memcpy(id, out->data, n);
	id[n] = '\0';
	return 0;
}

int
mc_shadow_snapshot(struct mc_shadow *s, char id[MC_SHADOW_ID], char *err, size_t errsz)
{
	static const char *const list[] = { "ls-files", "-z", "-m", "-o", "-d",
	    "--exclude-standard", NULL };
	static const char *const add[] = { "update-index", "--add", "--remove", "-z", "--stdin", NULL };
	static const char *const drop[] = { "update-index", "--force-remove", "-z", "--stdin", NULL };
	static const char *const write[] = { "write-tree", NULL };
	struct mc_buf out = {0}, keep = {0}, big = {0}, path = {0};
	const char *p, *end;
	struct stat st;
	size_t n;
	int r = -1;

	large_free(s);
	if (git(s, list, NULL, 0, &out, err, errsz) == -1)
		goto out;
	end = out.data + out.len;
	for (p = out.data; p != NULL && p < end; p += n + 1) {
		n = strnlen(p, (size_t)(end - p));
		if (n == 0 || p[n - 1] == '/')	/* a repository of its own inside */
			continue;
		path.len = 0;
		mc_buf_printf(&path, "%s/%.*s", s->tree, (int)n, p);
		if (lstat(path.data, &st) == 0 && S_ISREG(st.st_mode) &&
		    (unsigned long long)st.st_size > MC_SHADOW_LARGE) {
			mc_buf_add(&big, p, n + 1);
			if ((s->large = reallocarray(s->large, s->nlarge + 1, sizeof *s->large)) == NULL)
				mc_oom();
			s->large[s->nlarge++] = mc_strndup(p, n);
		} else
			mc_buf_add(&keep, p, n + 1);
	}
	if ((keep.len > 0 && git(s, add, keep.data, keep.len, NULL, err, errsz) == -1) ||
	    (big.len > 0 && git(s, drop, big.data, big.len, NULL, err, errsz) == -1))
		goto out;
	out.len = 0;
	if (git(s, write, NULL, 0, &out, err, errsz) == -1)
		goto out;
	r = one_id(&out, id, "write-tree", err, errsz);
out:
	mc_buf_free(&out);
	mc_buf_free(&keep);
	mc_buf_free(&big);
	mc_buf_free(&path);
	return r;
}

/* One side of a change: null for an absent file (mode 0). */
static cJSON *
side(const char *mode, const char *id)
{
	struct mc_buf b = {0};

	if (strcmp(mode, "000000") == 0)
		return cJSON_CreateNull();
	mc_buf_printf(&b, "git %s %s", mode, id);
	return mc_json_new_owned(mc_buf_steal(&b));
}

cJSON *
mc_shadow_diff(struct mc_shadow *s, const char *a, const char *b, char *err, size_t errsz)
{
	const char *args[] = { "diff-tree", "-r", "-z", "--no-renames", "--raw", "--full-index",
	    a, b, NULL };
	struct mc_buf out = {0};
	char m1[8], m2[8], i1[MC_SHADOW_ID], i2[MC_SHADOW_ID];
	const char *p, *end;
	cJSON *v, *e;
	size_t n;

	if (git(s, args, NULL, 0, &out, err, errsz) == -1) {
		mc_buf_free(&out);
		return NULL;
	}
	v = mc_json_new_arr();
	end = out.data + out.len;
	/* ":MODE MODE ID ID STATUS\0PATH\0" each */
	for (p = out.data; p != NULL && p < end; p += n + 1) {
		n = strnlen(p, (size_t)(end - p));
		if (*p != ':' || sscanf(p, ":%7s %7s %71s %71s", m1, m2, i1, i2) != 4)
			continue;
		p += n + 1;
		if (p >= end)
			break;
		n = strnlen(p, (size_t)(end - p));
		e = mc_json_new_obj();
		mc_json_add(e, "path", mc_json_new_owned(mc_strndup(p, n)));
		mc_json_add(e, "before", side(m1, i1));
		mc_json_add(e, "after", side(m2, i2));
		mc_json_push(v, e);
	}
	mc_buf_free(&out);
	return v;
}

int
mc_shadow_blob(struct mc_shadow *s, const char *id, struct mc_buf *out, char *err, size_t errsz)
{
	const char *args[] = { "cat-file", "blob", id, NULL };

	return git(s, args, NULL, 0, out, err, errsz);
}

int
mc_shadow_hash(struct mc_shadow *s, const char *path, char ref[MC_SHADOW_ID + 16],
    char *err, size_t errsz)
{
	const char *file[] = { "hash-object", "--no-filters", "--", NULL, NULL };
	static const char *const in[] = { "hash-object", "--no-filters", "--stdin", NULL };
	struct mc_buf full = {0}, out = {0};
	char id[MC_SHADOW_ID], link[4096];
	struct stat st;
	ssize_t n;
	int r = 0;

	*ref = '\0';
	mc_buf_printf(&full, "%s/%s", s->tree, path);
	if (lstat(full.data, &st) == -1) {
		mc_buf_free(&full);
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		if ((n = readlink(full.data, link, sizeof link)) == -1 || (size_t)n == sizeof link) {
			snprintf(err, errsz, "%s: %s", path, strerror(n == -1 ? errno : ENAMETOOLONG));
			r = -1;
		} else
			r = git(s, in, link, (size_t)n, &out, err, errsz);
	} else if (S_ISREG(st.st_mode)) {
		file[3] = full.data;
		r = git(s, file, NULL, 0, &out, err, errsz);
	} else {
		snprintf(err, errsz, "%s: not a regular file", path);
		r = -1;
	}
	if (r == 0 && (r = one_id(&out, id, "hash-object", err, errsz)) == 0)
		snprintf(ref, MC_SHADOW_ID + 16, "git %s %s", S_ISLNK(st.st_mode) ? "120000" :
		    st.st_mode & 0100 ? "100755" : "100644", id);
	mc_buf_free(&full);
	mc_buf_free(&out);
	return r;
}
