/* t/unit/path.c: mc_path_resolve on a tree made for it: "..", links in and out, missing tails, dangling links, loops. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsread.h"

int
main(void)
{
	char tmpl[] = "/tmp/mc-unit-path.XXXXXX", *top, *ws, *out, want[PATH_MAX * 2], *got;
	static const struct {
		const char *path;
		const char *want;	/* $T for the temp tree, NULL: a failure */
	} cases[] = {
		{ "a", "$T/ws/a" },
		{ "./sub/../a", "$T/ws/a" },
		{ "sub/", "$T/ws/sub" },
		{ "../out/f", "$T/out/f" },
		{ "../out/missing/deeper", "$T/out/missing/deeper" },
		{ "missing/../../out", "$T/out" },
		{ "missing/./x/", "$T/ws/missing/x" },
		{ "in/f", "$T/out/f" },			/* a link out, then a file */
		{ "in/../ws/a", "$T/ws/a" },		/* ".." after a link is the link's target's */
		{ "dangling", "$T/out/new" },		/* a link to nothing yet */
		{ "dangling/more", "$T/out/new/more" },
		{ "$T/ws/../out", "$T/out" },
		{ "/", "/" },
		{ "/..", "/" },
		{ "loop", NULL },
		{ "a/x", NULL },			/* a file on the way */
	};
	char path[PATH_MAX * 2], *d;
	size_t i;
	int fail = 0;

	if ((top = mkdtemp(tmpl)) == NULL || (top = realpath(top, NULL)) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	ws = mc_path_join(top, "ws");
	out = mc_path_join(top, "out");
	if (mkdir(ws, 0700) == -1 || mkdir(out, 0700) == -1 || chdir(ws) == -1 ||
	    mkdir("sub", 0700) == -1 || fclose(fopen("a", "w")) != 0 ||
	    symlink(out, "in") == -1 || symlink("../out/new", "dangling") == -1 ||
	    symlink("loop", "loop") == -1 || fclose(fopen("../out/f", "w")) != 0) {
		perror("the tree");
		return 1;
	}
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		d = strstr(cases[i].path, "$T");
		snprintf(path, sizeof path, "%s%s", d ? top : "", d ? d + 2 : cases[i].path);
		if (cases[i].want != NULL) {
			d = strstr(cases[i].want, "$T");
			snprintf(want, sizeof want, "%s%s", d ? top : "", d ? d + 2 : cases[i].want);
		}
		errno = 0;
		got = mc_path_resolve(ws, path);
		if (cases[i].want == NULL ? got != NULL : got == NULL || strcmp(got, want) != 0) {
			printf("path: %s: got %s (%s), want %s\n", cases[i].path, got ? got : "NULL",
			    strerror(errno), cases[i].want ? want : "NULL");
			fail = 1;
		}
		free(got);
	}
	unlink("../out/f");
	unlink("a");
	unlink("in");
	unlink("dangling");
	unlink("loop");
	rmdir("sub");
	chdir("/");
	rmdir(ws);
	rmdir(out);
	rmdir(top);
	free(ws);
	free(out);
	free(top);
	return fail;
}
