/* search.c: the grep tool (rg, else grep, in their own process group) and the find tool (a walk of our own), both with a timeout. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "clip.h"
#include "fsread.h"
#include "glob.h"
#include "http.h"
#include "diag.h"
#include "json.h"
#include "mc-tool.h"
#include "proc.h"

#define FIND_VISIT_MAX 200000		/* entries find looks at */

/* grep */

void
tool_grep(struct call *c)
{
	const char *pattern = arg_str(c, "pattern"), *path = arg_str(c, "path");
	const char *glob = arg_str(c, "glob");
	long timeout = arg_int(c, "timeout_s", TOOL_TIMEOUT);
	char *argv[16], *prog, *inc = NULL, *text;
	struct mc_clip out;
	struct mc_proc r;
	size_t len;
	int n = 0, rg, st;

	if ((prog = mc_proc_which("rg")) != NULL) {
		rg = 1;
		argv[n++] = "rg";
		argv[n++] = "--line-number";
		argv[n++] = "--no-heading";
		argv[n++] = "--with-filename";
		argv[n++] = "--color=never";
		argv[n++] = "--sort=path";
		/* Like the grep fallback: hidden files are searched, .git is not. */
		argv[n++] = "--hidden";
		argv[n++] = "--glob=!.git";
		if (glob) {
			argv[n++] = "--glob";
			argv[n++] = (char *)glob;
		}
	} else if ((prog = mc_proc_which("grep")) != NULL) {
		rg = 0;
		argv[n++] = "grep";
		argv[n++] = "-rnHIE";
		argv[n++] = "--color=never";
		argv[n++] = "--exclude-dir=.git";
		if (glob) {
			if (asprintf(&inc, "--include=%s", glob) == -1)
				mc_oom();
			argv[n++] = inc;
		}
	} else {
		say(c, "error: neither rg nor grep is installed; try bash\n");
		return;
	}
	argv[n++] = "-e";
	argv[n++] = (char *)pattern;
	argv[n++] = "--";
	if (path)
		argv[n++] = (char *)path;
	argv[n] = NULL;
	mc_clip_init(&out, MC_CLIP_MAX - 512);
	if (mc_proc_run(prog, argv, NULL, (unsigned)timeout, &out, NULL, &r) == -1) {
		say(c, "error: cannot run %s: %s\n", prog, strerror(errno));
		mc_clip_free(&out);
		goto out;
	}
	text = mc_clip_finish(&out, &len);
	st = r.reaped && WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
	if (r.interrupted)
		c->interrupted = 1;
	if (st == 1 && !r.timed_out) {
		say(c, "No matches for %s", pattern);
		if (path)
			say(c, " in %s", path);
		if (glob)
			say(c, " (files matching %s)", glob);
		say(c, "\n");
	} else if (st != 0 && len == 0) {
		say(c, "error: %s failed%s\n", rg ? "rg" : "grep",
		    r.timed_out ? ": the search timed out; narrow path or glob, or raise timeout_s" : "");
	} else {
		if (st != 0)
			say(c, "%s", "error: ");
		mc_buf_add(&c->out, text, len);
		if (text[len - 1] != '\n')
			mc_buf_addc(&c->out, '\n');
		if (r.timed_out)
			say(c, "[search timed out after %ld s; narrow path or glob, or raise timeout_s]\n", timeout);
	}
	free(text);
out:
	free(inc);
	free(prog);
}

/* find */

struct finder {
	const char *glob;
	int bypath;		/* the glob has a slash */
	const char *base;	/* the search directory as given */
	char **hits;
	size_t nhits;
	size_t visited;
	int truncated;
	struct timespec start;
	long timeout_ms;
	int timed_out;
};

static void
found(struct finder *f, const char *rel, int dir)
{
	char **h, *shown;
	int base = strcmp(f->base, ".") != 0;

	if (asprintf(&shown, "%s%s%s%s", base ? f->base : "",
	    base && f->base[strlen(f->base) - 1] != '/' ? "/" : "", rel, dir ? "/" : "") == -1)
		mc_oom();
	if ((h = reallocarray(f->hits, f->nhits + 1, sizeof *h)) == NULL)
		mc_oom();
	f->hits = h;
	f->hits[f->nhits++] = shown;
}

static void
find_walk(struct finder *f, const char *dir, const char *rel)
{
	struct dirent *de;
	struct stat st;
	char *full, *r;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++f->visited > FIND_VISIT_MAX) {
			f->truncated = 1;
			break;
		}
		if (mc_ms_since(&f->start) >= f->timeout_ms) {
			f->timed_out = 1;
			break;
		}
		full = mc_path_join(dir, de->d_name);
		r = *rel ? mc_path_join(rel, de->d_name) : mc_strdup(de->d_name);
		if (lstat(full, &st) == 0) {
			if (f->bypath ? mc_glob_match(f->glob, r) : fnmatch(f->glob, de->d_name, 0) == 0)
				found(f, r, S_ISDIR(st.st_mode));
			if (S_ISDIR(st.st_mode) && strcmp(de->d_name, ".git") != 0)
				find_walk(f, full, r);
		}
		free(full);
		free(r);
		if (f->truncated || f->timed_out)
			break;
	}
	closedir(d);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
tool_find(struct call *c)
{
	const char *glob = arg_str(c, "glob"), *path = arg_str(c, "path");
	long timeout = arg_int(c, "timeout_s", TOOL_TIMEOUT);
	struct finder f = { .timeout_ms = timeout * 1000 };
	struct stat st;
	size_t i;

	if (path == NULL || *path == '\0')
		path = ".";
	while (strncmp(glob, "./", 2) == 0)
		glob += 2;
	if (*glob == '\0') {
		say(c, "error: glob is empty; use \"*\" to list every path\n");
		return;
	}
	if (stat(path, &st) == -1) {
		say(c, "error: %s: %s\n", path, strerror(errno));
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		say(c, "error: %s is not a directory\n", path);
		return;
	}
	f.glob = glob;
	f.bypath = strchr(glob, '/') != NULL;
	f.base = path;
	clock_gettime(CLOCK_MONOTONIC, &f.start);
	find_walk(&f, path, "");
	if (f.nhits > 0)
		qsort(f.hits, f.nhits, sizeof *f.hits, cmp_str);
	for (i = 0; i < f.nhits; i++) {
		say_raw(c, f.hits[i], strlen(f.hits[i]));
		say(c, "\n");
		free(f.hits[i]);
	}
	free(f.hits);
	if (f.nhits == 0 && !f.truncated && !f.timed_out)
		say(c, "No paths match %s under %s\n", glob, path);
	if (f.truncated)
		say(c, "[stopped after looking at %d entries; search a narrower path]\n", FIND_VISIT_MAX);
	if (f.timed_out)
		say(c, "[find timed out after %ld s; search a narrower path, or raise timeout_s]\n", timeout);
}
