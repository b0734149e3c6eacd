/* t/unit/profile.c: profile ids, and what lib/profile.c reads of a profile's frontmatter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile.h"

static const struct {
	const char *id;
	int agent, subagent;	/* valid as either kind */
} ids[] = {
	{ "explorer", 1, 1 },
	{ "code-review-2", 1, 1 },
	{ "a", 1, 1 },
	{ "Explorer", 1, 0 },
	{ "re.view", 1, 0 },
	{ "re_view", 1, 0 },
	{ ".hidden", 0, 0 },
	{ "", 0, 0 },
	{ "a/b", 0, 0 },
	{ "../x", 0, 0 },
	{ "sp ace", 0, 0 },
	{ "new\nline", 0, 0 },
	{ "0123456789012345678901234567890123456789012345678901234567890123", 1, 1 },
	{ "01234567890123456789012345678901234567890123456789012345678901234", 0, 0 },
};

static const struct {
	const char *what, *text;
	int r;			/* mc_profile_load's return */
	const char *name, *model, *tools;	/* tools joined by '|' */
	const char *body;
} files[] = {
	{ "all keys", "---\nname: N\ndescription: D\nmodel: m-1\ndisabled_tools: write, bash\n---\nBody.\n",
	  0, "N", "m-1", "write|bash", "Body.\n" },
	{ "a list in brackets, blanks and empty names", "---\ndisabled_tools: [ a ,, b ,]\n---\n",
	  0, NULL, NULL, "a|b", "" },
	{ "empty values are none", "---\nname:\nmodel: \ndisabled_tools:\n---\nx", 0, NULL, NULL, "",
	  "x" },
	{ "no frontmatter: all body", "Just a role.\n", 0, NULL, NULL, "", "Just a role.\n" },
	{ "unterminated frontmatter is an error", "---\nname: N\nbody\n", -1, NULL, NULL, "", NULL },
	{ "not UTF-8", "---\nname: \xff\n---\n", -1, NULL, NULL, "", NULL },
};

static int
check_file(const char *home, size_t i)
{
	struct mc_profile p;
	char path[512], err[1024], tools[256] = "";
	size_t k;
	FILE *fp;
	int r, bad = 0;

	snprintf(path, sizeof path, "%s/subagents/p%zu.md", home, i);
	if ((fp = fopen(path, "w")) == NULL || fputs(files[i].text, fp) == EOF || fclose(fp) != 0) {
		printf("profile: cannot write %s\n", path);
		return 1;
	}
	snprintf(path, sizeof path, "p%zu", i);
	r = mc_profile_load(home, MC_PROFILE_SUBAGENT, path, &p, err, sizeof err);
	if (r != files[i].r) {
		printf("profile: %s: load gave %d (%s), want %d\n", files[i].what, r, r ? err : "",
		    files[i].r);
		return 1;
	}
	if (r != 0)
		return 0;
	for (k = 0; k < p.ndisabled; k++)
		snprintf(tools + strlen(tools), sizeof tools - strlen(tools), "%s%s", k ? "|" : "",
		    p.disabled_tools[k]);
	if ((p.name == NULL) != (files[i].name == NULL) ||
	    (p.name && strcmp(p.name, files[i].name) != 0) ||
	    (p.model == NULL) != (files[i].model == NULL) ||
	    (p.model && strcmp(p.model, files[i].model) != 0) ||
	    strcmp(tools, files[i].tools) != 0 ||
	    p.body_len != strlen(files[i].body) || memcmp(p.body, files[i].body, p.body_len) != 0) {
		printf("profile: %s: name %s, model %s, tools [%s], body [%.*s]\n", files[i].what,
		    p.name ? p.name : "NULL", p.model ? p.model : "NULL", tools, (int)p.body_len,
		    p.body);
		bad = 1;
	}
	mc_profile_free(&p);
	return bad;
}

int
main(void)
{
	char home[] = "/tmp/mc-unit-profile.XXXXXX", dir[512], err[1024];
	struct mc_profile *v, p;
	size_t i, n;
	int failed = 0, r;

	for (i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		if (mc_profile_id_valid(MC_PROFILE_AGENT, ids[i].id, strlen(ids[i].id)) != ids[i].agent ||
		    mc_profile_id_valid(MC_PROFILE_SUBAGENT, ids[i].id, strlen(ids[i].id)) !=
		    ids[i].subagent) {
			printf("profile: id \"%s\": want agent %d, subagent %d\n", ids[i].id,
			    ids[i].agent, ids[i].subagent);
			failed++;
		}
	}
	if (mkdtemp(home) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	r = mc_profile_load(home, MC_PROFILE_SUBAGENT, "ghost", &p, err, sizeof err);
	if (r != 1 || strstr(err, "no such profile: ") != err) {
		printf("profile: a missing directory gave %d (%s), want 1\n", r, err);
		failed++;
	}
	snprintf(dir, sizeof dir, "%s/subagents", home);
	mkdir(dir, 0700);
	for (i = 0; i < sizeof files / sizeof files[0]; i++)
		failed += check_file(home, i);
	/* the list: the valid ones, by id */
	mc_profile_list(home, MC_PROFILE_SUBAGENT, &v, &n, NULL, NULL);
	if (n != 4 || strcmp(v[0].id, "p0") != 0 || strcmp(v[3].id, "p3") != 0) {
		printf("profile: list gave %zu profiles, want p0 to p3\n", n);
		failed++;
	}
	mc_profile_list_free(v, n);
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(dir, sizeof dir, "%s/subagents/p%zu.md", home, i);
		unlink(dir);
	}
	snprintf(dir, sizeof dir, "%s/subagents", home);
	rmdir(dir);
	rmdir(home);
	return failed ? 1 : 0;
}
