/* mc-skills: add the discovered skills to the context document, or print a file of one skill. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "context.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "settings.h"
#include "skills.h"
#include "utf8.h"

#define SCHEME "skill://"

static const char usage[] =
    "usage: mc-skills [-q] [--pretty] [--keep-going] [-C DIR]\n"
    "       mc-skills [-q] [-C DIR] read skill://NAME[/PATH]\n"
    "\n"
    "Add the skills to the context document read on stdin (an empty stdin\n"
    "starts a new one), or print SKILL.md or a file inside a skill.\n"
    "\n"
    "  -C DIR         use DIR as the repository (default: the document's root)\n"
    "  --keep-going   exit 0 even when a skill was refused\n"
    "  --pretty       indent the JSON document\n"
    "  -q             no warnings on stderr\n"
    "  -h, --help     show this help\n"
    "  --version      show the version\n";

/* The repository: dir made canonical. Exits through the caller on -1. */
static char *
repository(const char *dir)
{
	char *p;

	if ((p = realpath(dir, NULL)) == NULL)
		mc_err("%s: %s", dir, strerror(errno));
	return p;
}

/* The document with sk's list as its skills, ahead of the diagnostics,
 * written as it goes: ten thousand skills need no tree of their own. The
 * first skills member is replaced and the first diagnostics moved; any
 * repeat of either stays where it was. */
static void
write_doc(struct mc_jw *w, const cJSON *doc, const struct mc_skills *sk)
{
	const cJSON *e, *diags = NULL, *old = NULL;
	size_t i;

	mc_jw_raw(w, "{", 1);
	cJSON_ArrayForEach(e, doc) {
		if (old == NULL && strcmp(e->string, "skills") == 0) {
			old = e;
			continue;
		}
		if (diags == NULL && strcmp(e->string, "diagnostics") == 0) {
			diags = e;
			continue;
		}
		mc_jw_member(w, e->string, e);
		mc_jw_raw(w, ",", 1);
	}
	mc_jw_raw(w, "\"skills\":[", 10);
	for (i = 0; i < sk->n; i++) {
		const struct mc_skill *k = &sk->list[i];

		mc_jw_raw(w, i ? ",{\"name\":" : "{\"name\":", i ? 9 : 8);
		mc_jw_str(w, k->name);
		mc_jw_raw(w, ",\"description\":", 15);
		mc_jw_str(w, k->description);
		mc_jw_raw(w, ",\"path\":", 8);
		mc_jw_str(w, k->path);
		mc_jw_raw(w, ",\"source\":", 10);
		mc_jw_str(w, sk->roots[k->root].source);
		if (k->enabled)
			mc_jw_raw(w, ",\"enabled\":true}", 16);
		else
			mc_jw_raw(w, ",\"enabled\":false}", 17);
	}
	mc_jw_raw(w, "]", 1);
	if (diags != NULL) {
		mc_jw_raw(w, ",", 1);
		mc_jw_member(w, "diagnostics", diags);
	}
	mc_jw_raw(w, "}", 1);
}

/* Write the document compact, or indented: then it is read back for
 * cJSON to indent, so that both come from write_doc alone. */
static int
output(const cJSON *doc, const struct mc_skills *sk, int pretty)
{
	struct mc_jw w = { .fp = pretty ? NULL : stdout };
	char err[256];
	cJSON *tree;
	int rc;

	write_doc(&w, doc, sk);
	if (!pretty) {
		mc_jw_raw(&w, "\n", 1);
		return mc_jw_end(&w);
	}
	if ((tree = mc_json_parse(w.b.data, w.b.len, err, sizeof err)) == NULL)
		mc_oom();	/* our own text: only memory can fail it */
	mc_jw_end(&w);
	rc = mc_json_write(stdout, tree, 1);
	cJSON_Delete(tree);
	return rc;
}

static int
list(const char *dir, int pretty, int keep)
{
	struct mc_settings s;
	struct mc_skills sk;
	const char *root;
	char err[1024], *repo;
	cJSON *doc = NULL;
	int empty = 1, before, status;

	if (!isatty(STDIN_FILENO) &&
	    (doc = mc_json_read_fd(STDIN_FILENO, &empty, err, sizeof err)) == NULL && !empty) {
		mc_err("stdin: %s", err);
		return MC_EXIT_FAIL;
	}
	if (doc != NULL && mc_context_check(doc) == -1) {
		cJSON_Delete(doc);
		return MC_EXIT_FAIL;
	}
	if (mc_settings_load(&s, err, sizeof err) == -1) {
		mc_err("%s", err);
		cJSON_Delete(doc);
		mc_settings_free(&s);
		return MC_EXIT_FAIL;
	}
	if (dir == NULL)
		dir = doc != NULL && (root = mc_json_str(doc, "root")) != NULL ? root : ".";
	if ((repo = repository(dir)) == NULL) {
		cJSON_Delete(doc);
		mc_settings_free(&s);
		return MC_EXIT_FAIL;
	}
	if (doc == NULL) {
		/* Upstream programs already reported the settings' warnings. */
		doc = mc_context_new(repo, s.home);
		mc_context_settings_warnings(doc, &s);
	}
	before = mc_context_errors(doc);

	mc_skills_init(&sk, &s, repo, doc);
	mc_skills_scan(&sk, &s, NULL);
	status = mc_context_errors(doc) > before && !keep ? MC_EXIT_FAIL : MC_EXIT_OK;
	if (output(doc, &sk, pretty) == -1 && errno != EPIPE)
		status = MC_EXIT_FAIL;
	cJSON_Delete(doc);
	mc_skills_free(&sk);
	mc_settings_free(&s);
	free(repo);
	return status;
}

static int
read_skill(const char *dir, const char *uri)
{
	struct mc_settings s;
	struct mc_skills sk = {0};
	const struct mc_skill *skill;
	struct mc_buf b = {0};
	struct stat st;
	char err[1024], name[MC_SKILL_NAME_MAX + 2], *repo = NULL;
	const char *p = uri + strlen(SCHEME), *rel;
	size_t n;
	int fd = -1, status = MC_EXIT_FAIL;

	n = strcspn(p, "/");
	rel = p[n] == '/' ? p + n + 1 : NULL;
	snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
	if (n > MC_SKILL_NAME_MAX || !mc_skill_name_valid(name)) {
		mc_err("%s: invalid skill name (1-64 characters of a-z, 0-9 and -)", uri);
		return MC_EXIT_FAIL;
	}
	if (mc_settings_load(&s, err, sizeof err) == -1) {
		mc_err("%s", err);
		goto out;
	}
	if (mc_settings_listed(&s, "knowledge.skills.disabled", name)) {
		mc_err("%s: skill %s is disabled (knowledge.skills.disabled)", uri, name);
		goto out;
	}
	if ((repo = repository(dir ? dir : ".")) == NULL)
		goto out;
	mc_skills_init(&sk, &s, repo, NULL);
	mc_skills_scan(&sk, &s, name);
	if ((skill = mc_skills_find(&sk, name)) == NULL) {
		mc_err("%s: no such skill: %s", uri, name);
		goto out;
	}
	if ((fd = mc_skill_open(&sk, skill, rel, err, sizeof err)) == -1) {
		mc_err("%s: %s", uri, err);
		goto out;
	}
	if (fstat(fd, &st) == 0 && (unsigned long long)st.st_size > MC_SKILL_MAX) {
		mc_err("%s: file is %lld bytes, over the %u-byte cap", uri,
		    (long long)st.st_size, MC_SKILL_MAX);
		goto out;
	}
	if (mc_fd_slurp(fd, MC_SKILL_MAX, &b) == -1) {
		if (errno == EFBIG)
			mc_err("%s: file grew over the %u-byte cap", uri, MC_SKILL_MAX);
		else
			mc_err("%s: %s", uri, strerror(errno));
		goto out;
	}
	if (memchr(b.data, '\0', b.len) != NULL || !mc_utf8_valid(b.data, b.len)) {
		mc_err("%s: not valid UTF-8 text", uri);
		goto out;
	}
	/* mc_finish reports a failed write. */
	fwrite(b.data, 1, b.len, stdout);
	status = MC_EXIT_OK;
out:
	if (fd != -1)
		close(fd);
	mc_buf_free(&b);
	mc_skills_free(&sk);
	mc_settings_free(&s);
	free(repo);
	return status;
}

int
main(int argc, char *argv[])
{
	enum { OPT_PRETTY = 256, OPT_KEEP };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "pretty", no_argument, NULL, OPT_PRETTY },
		{ "keep-going", no_argument, NULL, OPT_KEEP },
		{ "version", no_argument, NULL, MC_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	const char *dir = NULL;
	int c, pretty = 0, keep = 0;

	mc_init("mc-skills", argv);
	while ((c = getopt_long(argc, argv, "C:hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			dir = optarg;
			break;
		case 'q':
			mc_quiet = 1;
			break;
		case OPT_PRETTY:
			pretty = 1;
			break;
		case OPT_KEEP:
			keep = 1;
			break;
		default:	/* -h, --version or a bad option */
			return mc_opt_exit(c, usage);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		return mc_finish(list(dir, pretty, keep));
	if (strcmp(argv[0], "read") != 0)
		return mc_usage_error("unknown command: %s", argv[0]);
	if (argc != 2)
		return mc_usage_error("read needs one skill://NAME[/PATH] argument");
	if (strncmp(argv[1], SCHEME, strlen(SCHEME)) != 0)
		return mc_usage_error("not a skill:// URI: %s", argv[1]);
	if (pretty || keep)
		return mc_usage_error("--pretty and --keep-going do not apply to read");
	return mc_finish(read_skill(dir, argv[1]));
}
