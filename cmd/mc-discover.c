/* mc-discover: find the AGENTS.md instruction files and write the context document. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "settings.h"

#define FILE_CAP (256u << 10)
#define TOTAL_CAP (1u << 20)
#define NAMES_MAX 4		/* knowledge.instructions.file_names */

static const char paths_key[] = "knowledge.instructions.additional_markdown_paths";
static const char names_key[] = "knowledge.instructions.file_names";

static const char usage[] =
    "usage: mc-discover [-q] [--pretty] [--keep-going] [-C DIR]\n"
    "       mc-discover [-q] [--pretty] [--keep-going] [-C DIR] --touched PATH...\n"
    "\n"
    "Find the AGENTS.md instruction files and write the context document.\n"
    "\n"
    "  -C DIR         use DIR as the working directory (the repository)\n"
    "  --touched      list the guides between each PATH and the root instead\n"
    "  --keep-going   exit 0 even when a file was refused\n"
    "  --pretty       indent the JSON document\n"
    "  -q             no warnings on stderr\n"
    "  -h, --help     show this help\n"
    "  --version      show the version\n"
    "\n"
    "Settings: knowledge.instructions.walk_up also loads the files of the\n"
    "directories above DIR up to the repository's top; file_names (at most 4)\n"
    "sets the names looked for in each directory, the first found wins.\n";

struct discovery {
	cJSON *doc;
	cJSON *list;		/* doc.instructions */
	char *root;		/* canonical working directory */
	const char *settings;	/* the settings file, for messages */
	const char *names[NAMES_MAX];	/* looked for in each directory, in order */
	int nnames;
	char **seen;		/* canonical paths already loaded */
	size_t nseen;
	size_t total;		/* bytes loaded so far */
};

static int
seen(const struct discovery *d, const char *canon)
{
	size_t i;

	for (i = 0; i < d->nseen; i++)
		if (strcmp(d->seen[i], canon) == 0)
			return 1;
	return 0;
}

static void
remember(struct discovery *d, char *canon)
{
	char **p = reallocarray(d->seen, d->nseen + 1, sizeof *p);

	if (p == NULL)
		mc_oom();
	d->seen = p;
	d->seen[d->nseen++] = canon;
}

/*
 * Load one instruction file. A configured file (index >= 0) is required:
 * a missing one is an error naming its setting. The others are optional:
 * a missing one is skipped quietly, a dangling link with a warning. Every
 * other failure is an error diagnostic recording the refused file, and
 * discovery goes on. within is the directory a final symlink must stay
 * inside (NULL: the link's own directory). With dry set, the file is only
 * remembered as loaded (for --touched, which leaves out the startup
 * files). Returns 1 when the file was found, loaded or not; 0 when it
 * is missing.
 */
static int
load(struct discovery *d, const char *source, int index, const char *path,
    const char *within, int dry)
{
	struct mc_read r;
	char *canon;
	cJSON *e;

	mc_file_read(path, FILE_CAP, MC_LINK_INSIDE, within, 1, &r);
	if (r.status == MC_READ_MISSING || r.status == MC_READ_DANGLING) {
		if (!dry && index >= 0)
			mc_context_diag(d->doc, "error", d->settings, "%s[%d]: %s: %s", paths_key,
			    index, mc_read_strerror(&r, FILE_CAP), path);
		else if (!dry && r.status == MC_READ_DANGLING)
			mc_context_diag(d->doc, "warning", path, "%s; skipped",
			    mc_read_strerror(&r, FILE_CAP));
		return 0;
	}
	if (dry) {
		free(r.data);
		if ((canon = realpath(path, NULL)) != NULL && !seen(d, canon))
			remember(d, canon);
		else
			free(canon);
		return 1;
	}
	if (r.status != MC_READ_OK) {
		mc_context_refused(d->doc, source, index, path, "%s", mc_read_strerror(&r, FILE_CAP));
		return 1;
	}
	if ((canon = realpath(path, NULL)) == NULL) {
		mc_context_refused(d->doc, source, index, path, "%s", strerror(errno));
		free(r.data);
		return 1;
	}
	if (seen(d, canon)) {
		free(canon);
		free(r.data);
		return 1;
	}
	if (d->total + r.len > TOTAL_CAP) {
		mc_context_refused(d->doc, source, index, path,
		    "file is %zu bytes, over the %u-byte cap for all instruction files together (%zu already loaded); not loaded",
		    r.len, TOTAL_CAP, d->total);
		free(canon);
		free(r.data);
		return 1;
	}
	remember(d, canon);
	d->total += r.len;
	e = mc_json_push(d->list, mc_json_new_obj());
	mc_json_add_str(e, "source", source);
	if (index >= 0)
		mc_json_add_num(e, "index", index);
	mc_json_add_str(e, "path", path);
	mc_json_add_num(e, "bytes", (double)r.len);
	mc_json_add_owned(e, "content", r.data);
	return 1;
}

/* The instruction file of one directory: the first of the names found. */
static void
load_dir(struct discovery *d, const char *source, const char *dir, const char *within,
    int dry)
{
	char *path;
	int i, found = 0;

	for (i = 0; i < d->nnames && !found; i++) {
		path = mc_path_join(dir, d->names[i]);
		found = load(d, source, -1, path, within, dry);
		free(path);
	}
}

/*
 * knowledge.instructions.file_names: at most NAMES_MAX plain file names.
 * A bad entry is an error naming it and is not looked for; with no good
 * entry, AGENTS.md is.
 */
static void
file_names(struct discovery *d, const struct mc_settings *s)
{
	const cJSON *list = mc_settings_get(s, names_key), *e;
	const char *n;
	int i = 0;

	if (list != NULL && cJSON_GetArraySize(list) == 0)
		mc_context_diag(d->doc, "error", s->path,
		    "%s: expected 1 to %d file names; AGENTS.md is looked for", names_key, NAMES_MAX);
	cJSON_ArrayForEach(e, list) {
		n = e->valuestring;
		if (i == NAMES_MAX) {
			mc_context_diag(d->doc, "error", s->path,
			    "%s[%d]: at most %d file names; this one and the rest are not looked for",
			    names_key, i, NAMES_MAX);
			break;
		}
		if (*n == '\0')
			mc_context_diag(d->doc, "error", s->path, "%s[%d]: empty file name",
			    names_key, i);
		else if (strchr(n, '/') != NULL || strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			mc_context_diag(d->doc, "error", s->path,
			    "%s[%d]: not a plain file name: %s", names_key, i, n);
		else
			d->names[d->nnames++] = n;
		i++;
	}
	if (d->nnames == 0)
		d->names[d->nnames++] = "AGENTS.md";
}

/*
 * The repository's top for walk_up: the nearest directory from the working
 * directory up that holds .git (a directory, or the file of a worktree or
 * a submodule), looked for no higher than $HOME when the working directory
 * lies below it, and never at /. NULL when there is none; then nothing
 * above the working directory is loaded: outside a repository there is no
 * top to stop at, and a stray AGENTS.md in /tmp or a shared parent is
 * nobody's instruction.
 */
static char *
repo_top(const char *root)
{
	const char *h = getenv("HOME");
	char *home = NULL, *dir, *git, *slash;
	struct stat st;
	int found;

	if (h != NULL && h[0] == '/' && (home = realpath(h, NULL)) != NULL &&
	    !mc_path_within(root, home)) {
		free(home);
		home = NULL;
	}
	dir = mc_strdup(root);
	while (strcmp(dir, "/") != 0) {
		git = mc_path_join(dir, ".git");
		found = lstat(git, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode));
		free(git);
		if (found) {
			free(home);
			return dir;
		}
		if (home != NULL && strcmp(dir, home) == 0)
			break;
		slash = strrchr(dir, '/');
		if (slash == dir)
			slash[1] = '\0';	/* up to "/", which ends the loop */
		else
			*slash = '\0';
	}
	free(dir);
	free(home);
	return NULL;
}

/* walk_up: the directories above the root up to the repository's top,
 * nearest first (mc-render puts the farthest first in the prompt). */
static void
load_ancestors(struct discovery *d, int dry)
{
	char *top, *dir;

	if ((top = repo_top(d->root)) == NULL)
		return;
	dir = mc_strdup(d->root);
	/* top is a canonical ancestor of the canonical root, or the root. */
	while (strcmp(dir, top) != 0) {
		*strrchr(dir, '/') = '\0';
		load_dir(d, "ancestor", dir, NULL, dry);
	}
	free(dir);
	free(top);
}

static int
has_md_suffix(const char *p)
{
	size_t n = strlen(p);

	return n > 3 && strcmp(p + n - 3, ".md") == 0;
}

/* The startup order: user file, repository file, ancestors, configured paths. */
static void
load_startup(struct discovery *d, const struct mc_settings *s, int dry)
{
	const cJSON *e;
	int i = 0;

	load_dir(d, "user", s->home, NULL, dry);
	load_dir(d, "repo", d->root, NULL, dry);
	if (cJSON_IsTrue(mc_settings_get(s, "knowledge.instructions.walk_up")))
		load_ancestors(d, dry);
	cJSON_ArrayForEach(e, mc_settings_get(s, paths_key)) {
		const char *p = e->valuestring;

		if (p[0] != '/') {
			if (!dry)
				mc_context_diag(d->doc, "error", s->path,
				    "%s[%d]: path must be absolute: %s", paths_key, i, p);
		} else if (!has_md_suffix(p)) {
			if (!dry)
				mc_context_diag(d->doc, "error", s->path,
				    "%s[%d]: path must end in .md: %s", paths_key, i, p);
		} else
			load(d, "configured", i, p, NULL, dry);
		i++;
	}
}

/*
 * The guides for one touched path: the instruction file of each directory
 * from the path up to, not including, the root, nearest first. The path
 * need not exist any more (a deleted file): its nearest existing ancestor
 * counts.
 */
static void
load_touched(struct discovery *d, const char *touched)
{
	char *abs, *dir, *slash;
	struct stat st;

	if (touched[0] == '/')
		abs = mc_strdup(touched);
	else
		abs = mc_path_join(d->root, touched);
	/* Start from the path itself when it is a directory, else its parent. */
	if (stat(abs, &st) == -1 || !S_ISDIR(st.st_mode)) {
		slash = strrchr(abs, '/');
		if (slash == abs)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	while ((dir = realpath(abs, NULL)) == NULL) {
		slash = strrchr(abs, '/');
		if (slash == NULL || slash == abs) {
			free(abs);
			return;
		}
		*slash = '\0';
	}
	free(abs);
	if (!mc_path_within(dir, d->root)) {
		mc_context_diag(d->doc, "warning", touched, "outside the working directory %s; no guides",
		    d->root);
		free(dir);
		return;
	}
	/* dir is canonical, so cutting components walks up without leaving root. */
	while (strcmp(dir, d->root) != 0) {
		load_dir(d, "touched", dir, d->root, 0);
		*strrchr(dir, '/') = '\0';
	}
	free(dir);
}

int
main(int argc, char *argv[])
{
	enum { OPT_PRETTY = 256, OPT_KEEP, OPT_TOUCHED };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "pretty", no_argument, NULL, OPT_PRETTY },
		{ "keep-going", no_argument, NULL, OPT_KEEP },
		{ "touched", no_argument, NULL, OPT_TOUCHED },
		{ "version", no_argument, NULL, MC_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct discovery d = {0};
	struct mc_settings s;
	const char *dir = ".";
	int c, pretty = 0, keep = 0, touched = 0, status;
	char err[1024];
	size_t i;

	mc_init("mc-discover", argv);
	while ((c = getopt_long(argc, argv, "+C:hq", longopts, NULL)) != -1) {
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
		case OPT_TOUCHED:
			touched = 1;
			break;
		default:	/* -h, --version or a bad option */
			return mc_opt_exit(c, usage);
		}
	}
	argc -= optind;
	argv += optind;
	if (touched && argc == 0)
		return mc_usage_error("--touched needs at least one PATH");
	if (!touched && argc > 0)
		return mc_usage_error("unexpected argument: %s", argv[0]);

	if ((d.root = realpath(dir, NULL)) == NULL) {
		mc_err("%s: %s", dir, strerror(errno));
		return MC_EXIT_FAIL;
	}
	if (mc_settings_load(&s, err, sizeof err) == -1) {
		mc_err("%s", err);
		free(d.root);
		return MC_EXIT_FAIL;
	}
	d.doc = mc_context_new(d.root, s.home);
	d.list = cJSON_GetObjectItemCaseSensitive(d.doc, "instructions");
	d.settings = s.path;
	mc_context_settings_warnings(d.doc, &s);
	file_names(&d, &s);

	load_startup(&d, &s, touched);
	for (c = 0; c < argc; c++)
		load_touched(&d, argv[c]);

	status = mc_context_errors(d.doc) && !keep ? MC_EXIT_FAIL : MC_EXIT_OK;
	mc_json_write(stdout, d.doc, pretty);	/* checked in mc_finish */
	cJSON_Delete(d.doc);
	mc_settings_free(&s);
	for (i = 0; i < d.nseen; i++)
		free(d.seen[i]);
	free(d.seen);
	free(d.root);
	return mc_finish(status);
}
