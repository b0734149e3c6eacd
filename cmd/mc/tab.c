/*
 * tab.c: Tab in the interactive prompt: in the word after an '@' that
 * begins a mention (mentions.c), the names of the files and folders of
 * the working directory, or of the folder the word names so far, are
 * completed (a folder's with a '/') as far as they agree; a Tab with
 * nothing more to add lists them when they differ. Names that begin with a dot are offered after a typed dot
 * only; names holding white space, which ends a mention, never. Anywhere
 * else a Tab is a Tab.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
#include "fsread.h"
#include "mc.h"

#define TAB_LIST_MAX 200	/* names a listing shows */

struct names {
	char **v;
	size_t n;
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of the folder dir that begin with prefix, sorted, a
 * folder's (a link to one too) with a '/'; none with white space, which
 * ends a mention's word. */
static void
names_read(const char *dir, const char *prefix, struct names *out)
{
	size_t np = strlen(prefix);
	struct dirent *e;
	struct stat st;
	struct mc_buf b = {0};
	DIR *dp;

	if ((dp = opendir(dir)) == NULL)
		return;
	while ((e = readdir(dp)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    strncmp(e->d_name, prefix, np) != 0 || (e->d_name[0] == '.' && np == 0) ||
		    strpbrk(e->d_name, " \t\r\n") != NULL)
			continue;
		b.len = 0;
		mc_buf_adds(&b, e->d_name);
		if (fstatat(dirfd(dp), e->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode))
			mc_buf_addc(&b, '/');
		if ((out->v = reallocarray(out->v, out->n + 1, sizeof *out->v)) == NULL)
			mc_oom();
		out->v[out->n++] = mc_strdup(b.data);
	}
	closedir(dp);
	mc_buf_free(&b);
	if (out->n > 0)
		qsort(out->v, out->n, sizeof *out->v, by_name);
}

/* How many bytes all the names share at their start, to a whole UTF-8
 * character (libedit takes no part of one). */
static size_t
shared(const struct names *ns)
{
	size_t k = strlen(ns->v[0]), i, j;

	for (i = 1; i < ns->n; i++) {
		for (j = 0; j < k && ns->v[i][j] == ns->v[0][j]; j++)
			;
		k = j;
	}
	while (k > 0 && ((unsigned char)ns->v[0][k] & 0xC0) == 0x80)
		k--;
	return k;
}

/* The names below the line (their control characters as ^X: a name is
 * anyone's), then the prompt again (the caller's CC_REDISPLAY). */
static void
names_show(EditLine *el, const struct names *ns)
{
	FILE *fp = stdout;
	char shown[1024];
	size_t i;

	el_get(el, EL_GETFP, 1, &fp);
	fputc('\n', fp);
	for (i = 0; i < ns->n && i < TAB_LIST_MAX; i++)
		fprintf(fp, "%s%s", i > 0 ? "  " : "", mc_sanitize(shown, sizeof shown, ns->v[i]));
	if (ns->n > TAB_LIST_MAX)
		fprintf(fp, "  (%zu more)", ns->n - TAB_LIST_MAX);
	fputc('\n', fp);
	fflush(fp);
}

/* The completion of the mention word w (after its '@'): what to insert
 * at the cursor. */
static unsigned char
complete(EditLine *el, const struct driver *d, const char *w)
{
	const char *slash = strrchr(w, '/'), *prefix = slash ? slash + 1 : w;
	struct names ns = {0};
	unsigned char r = CC_REFRESH_BEEP;
	char *part, *dir, *add;
	size_t k, np = strlen(prefix), i;

	part = mc_strndup(w, (size_t)(prefix - w));
	dir = part[0] == '/' ? mc_strdup(part) : mc_path_join(d->c.cwd, part);
	names_read(dir, prefix, &ns);
	if (ns.n > 0 && (k = shared(&ns)) > np) {
		add = mc_strndup(ns.v[0] + np, k - np);
		r = el_insertstr(el, add) == 0 ? CC_REFRESH : CC_ERROR;
		if (r == CC_REFRESH && ns.n == 1 && ns.v[0][k - 1] != '/')
			el_insertstr(el, " ");
		free(add);
	} else if (ns.n > 1) {
		names_show(el, &ns);
		r = CC_REDISPLAY;
	}
	for (i = 0; i < ns.n; i++)
		free(ns.v[i]);
	free(ns.v);
	free(dir);
	free(part);
	return r;
}

/* Bound to Tab (repl.c). */
unsigned char
tab_complete(EditLine *el, int ch)
{
	const LineInfo *li = el_line(el);
	const char *w;
	struct driver *d;
	char *text, *word;
	unsigned char r;

	(void)ch;
	el_get(el, EL_CLIENTDATA, &d);
	for (w = li->cursor; w > li->buffer && strchr(" \t\n(", w[-1]) == NULL; w--)
		;
	if (w == li->cursor || *w != '@')
		return el_insertstr(el, "\t") == 0 ? CC_REFRESH : CC_ERROR;
	text = mc_strndup(li->buffer, (size_t)(li->cursor - li->buffer));
	if (!mention_starts(text, text + (w - li->buffer))) {
		free(text);
		return el_insertstr(el, "\t") == 0 ? CC_REFRESH : CC_ERROR;
	}
	word = mc_strdup(text + (w - li->buffer) + 1);
	free(text);
	r = complete(el, d, word);
	free(word);
	return r;
}
