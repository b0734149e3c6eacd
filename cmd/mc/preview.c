/* preview.c: what a guarded call will do, as rows for the approval question: a command, a write's first lines, an edit's diff. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"

#define WRITE_LINES 10		/* lines of a write's content shown */
#define LINE_SHOWN 512		/* bytes shown of such a line, or of a diff's context line */
#define EDIT_READ_MAX (16u << 20)	/* mc-tool's own cap for a file it edits */
#define DIFF_CONTEXT 3
#define DIFF_HUNKS 10

/* A line of a text: where it starts and how long it is, without its newline. */
struct span {
	const char *p;
	size_t n;
};

/* The lines of s (a final newline ends the last line; it opens no other). */
static size_t
split(const char *s, size_t n, struct span **out)
{
	const char *end = s + n, *nl;
	struct span *v = NULL;
	size_t k = 0;

	while (s < end) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		if ((v = reallocarray(v, k + 1, sizeof *v)) == NULL)
			mc_oom();
		v[k++] = (struct span){ s, (size_t)(nl - s) };
		s = nl + 1;
	}
	*out = v;
	return k;
}

/* A title line: text with what came from the model escaped, rows
 * continued after an indent. */
static void
title(const struct driver *d, struct mc_buf *out, int width, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
title(const struct driver *d, struct mc_buf *out, int width, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		mc_oom();
	va_end(ap);
	show_words(d, out, "", "    ", s, strlen(s), width);
	free(s);
}

/*
 * Lines of text, each after mark, or numbered when number is set. A line
 * over cap bytes (when cap is not 0) is cut where a character starts, and
 * says how much more there is.
 */
static void
block(const struct driver *d, struct mc_buf *out, int width, const struct span *v, size_t n,
    const char *mark, int number, size_t cap)
{
	char gutter[32], cont[32];
	int digits = snprintf(NULL, 0, "%zu", n);
	const char *colour = !d->t.color || number ? NULL : strcmp(mark, "-") == 0 ?
	    "\033[31m" : strcmp(mark, "+") == 0 ? "\033[32m" : NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		if (number) {
			snprintf(gutter, sizeof gutter, "  %*zu  ", digits, i + 1);
			snprintf(cont, sizeof cont, "  %*s  ", digits, "");
		} else {
			snprintf(gutter, sizeof gutter, "  %s", mark);
			snprintf(cont, sizeof cont, "  %s", mark);
		}
		/* A diff's removed lines red, its added ones green, on a
		 * colour terminal; the colour ends before the line's newline. */
		if (colour != NULL)
			mc_buf_adds(out, colour);
		show_cut(d, out, gutter, cont, v[i].p, v[i].n, width, cap);
		if (colour != NULL) {
			out->len--;
			mc_buf_adds(out, "\033[0m\n");
		}
	}
}

/* bash: the whole command, its lines numbered when there are several. */
static void
preview_bash(const struct driver *d, struct mc_buf *out, int width, const cJSON *a)
{
	const char *cmd = mc_json_str(a, "command");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(a, "timeout_s");
	struct span *v;
	size_t n;

	if (cJSON_IsNumber(t))
		title(d, out, width, "bash will run (timeout %.0f s):", t->valuedouble);
	else
		title(d, out, width, "bash will run:");
	n = split(cmd, strlen(cmd), &v);
	block(d, out, width, v, n, "", n > 1, 0);
	free(v);
}

/* write: the path, the size, and the first lines of the content. */
static void
preview_write(const struct driver *d, struct mc_buf *out, int width, const cJSON *a)
{
	const char *path = mc_json_str(a, "path"), *content = mc_json_str(a, "content");
	size_t len = strlen(content), n, shown;
	char *full = NULL, old[96] = "a new file";
	struct span *v;
	struct stat st;

	full = path[0] == '/' ? mc_strdup(path) : mc_path_join(d->c.cwd, path);
	if (lstat(full, &st) == 0 && S_ISREG(st.st_mode))
		snprintf(old, sizeof old, "replacing a file of %jd bytes", (intmax_t)st.st_size);
	else if (lstat(full, &st) == 0)
		snprintf(old, sizeof old, "where there is something that is not a regular file");
	free(full);
	n = split(content, len, &v);
	title(d, out, width, "write will put %zu byte%s, %zu line%s, in %s (%s):", len,
	    len == 1 ? "" : "s", n, n == 1 ? "" : "s", path, old);
	shown = n < WRITE_LINES ? n : WRITE_LINES;
	block(d, out, width, v, shown, "", 1, LINE_SHOWN);
	if (n > shown)
		mc_buf_printf(out, "  [... %zu more line%s]\n", n - shown, n - shown == 1 ? "" : "s");
	free(v);
}

/* The number of the line at offset off of s (1 for the first). */
static size_t
line_of(const char *s, size_t off)
{
	size_t line = 1, i;

	for (i = 0; i < off; i++)
		line += s[i] == '\n';
	return line;
}

/* The smaller of a and b. */
static size_t
least(size_t a, size_t b)
{
	return a < b ? a : b;
}

/*
 * One hunk of a unified diff: the file's text f (n bytes) with the len
 * bytes at off replaced by rep. The lines the replacement touches, less
 * those it leaves as they were, are shown removed and added, with up to
 * DIFF_CONTEXT lines of context on either side. delta counts the lines
 * earlier hunks added, for the new file's line numbers.
 */
static void
hunk(const struct driver *d, struct mc_buf *out, int width, const char *f, size_t n,
    size_t off, size_t len, const char *rep, long *delta)
{
	struct mc_buf after = {0};
	struct span *ov, *nv, *pre, *post;
	size_t ls = off, le = off + len, no, nn, np, npost, head = 0, tail = 0;
	size_t hb, pb, ta, pa, first;

	while (ls > 0 && f[ls - 1] != '\n')
		ls--;
	if (len == 0 || f[le - 1] != '\n')
		while (le < n && f[le++] != '\n')
			;
	mc_buf_add(&after, f + ls, off - ls);
	mc_buf_adds(&after, rep);
	mc_buf_add(&after, f + off + len, le - off - len);
	no = split(f + ls, le - ls, &ov);
	nn = split(after.data, after.len, &nv);
	/* Lines the change leaves as they were are context. */
	while (head < no && head < nn && ov[head].n == nv[head].n &&
	    memcmp(ov[head].p, nv[head].p, ov[head].n) == 0)
		head++;
	while (tail < no - head && tail < nn - head && ov[no - 1 - tail].n == nv[nn - 1 - tail].n &&
	    memcmp(ov[no - 1 - tail].p, nv[nn - 1 - tail].p, ov[no - 1 - tail].n) == 0)
		tail++;
	np = split(f, ls, &pre);
	npost = split(f + le, n - le, &post);
	hb = least(head, DIFF_CONTEXT);
	pb = least(DIFF_CONTEXT - hb, np);
	ta = least(tail, DIFF_CONTEXT);
	pa = least(DIFF_CONTEXT - ta, npost);
	first = line_of(f, ls) + head - hb - pb;
	mc_buf_printf(out, "  @@ -%zu,%zu +%ld,%zu @@\n", first, pb + hb + no - head - tail + ta + pa,
	    (long)first + *delta, pb + hb + nn - head - tail + ta + pa);
	block(d, out, width, pre + np - pb, pb, " ", 0, LINE_SHOWN);
	block(d, out, width, ov + head - hb, hb, " ", 0, LINE_SHOWN);
	block(d, out, width, ov + head, no - head - tail, "-", 0, 0);
	block(d, out, width, nv + head, nn - head - tail, "+", 0, 0);
	block(d, out, width, ov + no - tail, ta, " ", 0, LINE_SHOWN);
	block(d, out, width, post, pa, " ", 0, LINE_SHOWN);
	*delta += (long)nn - (long)no;
	free(ov);
	free(nv);
	free(pre);
	free(post);
	mc_buf_free(&after);
}

/* old_string and new_string as a removed and an added block, when the
 * file cannot show where they go. */
static void
strings_block(const struct driver *d, struct mc_buf *out, int width, const char *old,
    const char *rep)
{
	struct span *v;
	size_t n;

	n = split(old, strlen(old), &v);
	block(d, out, width, v, n, "-", 0, 0);
	free(v);
	n = split(rep, strlen(rep), &v);
	block(d, out, width, v, n, "+", 0, 0);
	free(v);
}

/* edit: a unified diff of the change, from the file as it is now. */
static void
preview_edit(const struct driver *d, struct mc_buf *out, int width, const cJSON *a)
{
	const char *path = mc_json_str(a, "path"), *old = mc_json_str(a, "old_string");
	const char *rep = mc_json_str(a, "new_string"), *p, *hit;
	int all = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "replace_all"));
	size_t olen = strlen(old), count = 0, k;
	struct mc_read r = {0};
	char *full;
	long delta = 0;

	full = path[0] == '/' ? mc_strdup(path) : mc_path_join(d->c.cwd, path);
	mc_file_read(full, EDIT_READ_MAX, MC_LINK_REFUSE, NULL, 0, &r);
	free(full);
	if (r.status == MC_READ_OK && olen > 0 && memchr(r.data, '\0', r.len) == NULL)
		for (p = r.data; (hit = memmem(p, r.len - (size_t)(p - r.data), old, olen)) != NULL;
		    p = hit + olen)
			count++;
	if (r.status != MC_READ_OK || olen == 0 || count == 0 || (count > 1 && !all)) {
		if (r.status != MC_READ_OK)
			title(d, out, width, "edit will change %s (it cannot be read here: %s):", path,
			    mc_read_strerror(&r, EDIT_READ_MAX));
		else if (memchr(r.data, '\0', r.len) != NULL)
			title(d, out, width, "edit will change %s (a binary file, so the edit will "
			    "fail):", path);
		else if (olen == 0)
			title(d, out, width, "edit will change %s (old_string is empty, so the edit "
			    "will fail):", path);
		else if (count == 0)
			title(d, out, width, "edit will change %s (old_string is not in it, so the "
			    "edit will fail):", path);
		else
			title(d, out, width, "edit will change %s (old_string occurs %zu times and "
			    "replace_all is not set, so the edit will fail):", path, count);
		strings_block(d, out, width, old, rep);
		free(r.data);
		return;
	}
	title(d, out, width, "edit will change %s%s:", path,
	    count > 1 ? " (every occurrence)" : "");
	show_rows(d, out, "  --- ", "      ", path, strlen(path), width);
	show_rows(d, out, "  +++ ", "      ", path, strlen(path), width);
	for (p = r.data, k = 0; k < DIFF_HUNKS &&
	    (hit = memmem(p, r.len - (size_t)(p - r.data), old, olen)) != NULL; p = hit + olen, k++)
		hunk(d, out, width, r.data, r.len, (size_t)(hit - r.data), olen, rep, &delta);
	if (count > k)
		mc_buf_printf(out, "  [... %zu more occurrence%s]\n", count - k,
		    count - k == 1 ? "" : "s");
	free(r.data);
}

/* What the call will do, as rows for the terminal. */
void
preview(const struct driver *d, struct mc_buf *out, int width, int tool, const char *where,
    const char *name, const cJSON *call)
{
	static const char *const need[][4] = {
		{ "path", "content", NULL },
		{ "path", "old_string", "new_string", NULL },
		{ "command", NULL },
	};
	const char *args = mc_json_str(call, "arguments");
	int i, ok;
	char err[128];
	cJSON *a;

	if (args == NULL)
		args = "";
	if (tool == GUARD_READ) {
		title(d, out, width, "%s will %s %s, outside the working directory:", name,
		    strcmp(name, "read") == 0 ? "read" : strcmp(name, "grep") == 0 ? "search" :
		    "list", where);
		show_rows(d, out, "  ", "  ", args, strlen(args), width);
		return;
	}
	if (tool == GUARD_MCP || tool == GUARD_RULE) {
		/* What a server's tool does is the server's: its name and
		 * arguments, all of them. So for a read a rule asks about. */
		title(d, out, width, "%s%s, with the arguments:", name,
		    tool == GUARD_MCP ? ", an MCP tool" : "");
		show_rows(d, out, "  ", "  ", args, strlen(args), width);
		return;
	}
	a = mc_json_parse(args, strlen(args), err, sizeof err);
	/* A string cut at a \u0000 would show less than there is. */
	ok = cJSON_IsObject(a) && mc_json_nul_escape(args, strlen(args)) == NULL;
	for (i = 0; ok && need[tool][i]; i++)
		ok = mc_json_str(a, need[tool][i]) != NULL;
	if (!ok) {
		/* mc-tool will refuse it; show what came, all of it. */
		title(d, out, width, "%s, with arguments mc-tool will refuse:", name);
		show_rows(d, out, "  ", "  ", args, strlen(args), width);
	} else if (tool == GUARD_WRITE)
		preview_write(d, out, width, a);
	else if (tool == GUARD_EDIT)
		preview_edit(d, out, width, a);
	else
		preview_bash(d, out, width, a);
	cJSON_Delete(a);
}
