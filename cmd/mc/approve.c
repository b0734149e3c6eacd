/* approve.c: before write, edit, bash and reads outside the workspace: what the call will do, and the user's answer. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"

#define WRITE_LINES 10		/* lines of a write's content shown */
#define LINE_SHOWN 512		/* bytes shown of such a line, or of a diff's context line */
#define EDIT_READ_MAX (16u << 20)	/* mc-tool's own cap for a file it edits */
#define DIFF_CONTEXT 3
#define DIFF_HUNKS 10
#define ANSWER_MAX 64

static const char *const guarded_tools[] = { "write", "edit", "bash", NULL };
#define TOOL_MCP 3		/* an MCP server's tool (its own preview) */
#define TOOL_READ 4		/* read, grep or find outside the workspace */
#define TOOL_RULE 5		/* a call a rule asks about (permissions.ask) */

/* The index of a call that asks first, or -1: write, edit, bash, an MCP
 * tool unless its server says "approve": false, and a read, grep or find
 * outside the workspace (workspace.c), the path it reads in *where. */
static int
guarded(const struct driver *d, const char *name, const cJSON *call, char **where)
{
	int i;

	*where = NULL;
	if (mcp_has(d, name))
		return mcp_guarded(d, name) ? TOOL_MCP : -1;
	for (i = 0; guarded_tools[i]; i++)
		if (strcmp(name, guarded_tools[i]) == 0)
			return i;
	if ((*where = workspace_outside(&d->c, name, call)) != NULL)
		return TOOL_READ;
	return -1;
}

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
static void
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
	if (tool == TOOL_READ) {
		title(d, out, width, "%s will %s %s, outside the working directory:", name,
		    strcmp(name, "read") == 0 ? "read" : strcmp(name, "grep") == 0 ? "search" :
		    "list", where);
		show_rows(d, out, "  ", "  ", args, strlen(args), width);
		return;
	}
	if (tool == TOOL_MCP || tool == TOOL_RULE) {
		/* What a server's tool does is the server's: its name and
		 * arguments, all of them. So for a read a rule asks about. */
		title(d, out, width, "%s%s, with the arguments:", name,
		    tool == TOOL_MCP ? ", an MCP tool" : "");
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
	} else if (tool == 0)
		preview_write(d, out, width, a);
	else if (tool == 1)
		preview_edit(d, out, width, a);
	else
		preview_bash(d, out, width, a);
	cJSON_Delete(a);
}

/*
 * Read one line of answer from the terminal fd, in canonical mode with
 * echo. 0 with the line in buf (cut to its size), or -1 at its end or
 * when interrupted.
 */
static int
read_answer(int fd, char *buf, size_t size)
{
	size_t len = 0;
	char c[256];
	ssize_t n, i;

	for (;;) {
		n = read(fd, c, sizeof c);
		if (n == -1 && errno == EINTR && !interrupted)
			continue;
		if (n <= 0)
			return -1;
		for (i = 0; i < n; i++) {
			if (c[i] == '\n') {
				buf[len] = '\0';
				return 0;
			}
			if (len + 1 < size)
				buf[len++] = c[i];
		}
	}
}

/* y, yes, n, no, a, always, and with prefixes to offer p, prefix, in any
 * case, blanks around them ignored: 1 yes, 0 no, 2 always, 3 always for
 * the prefixes, -1 anything else. */
static int
answer_of(char *s, int prefixes)
{
	static const struct { const char *word; int r; } words[] = {
		{ "y", 1 }, { "yes", 1 }, { "n", 0 }, { "no", 0 }, { "a", 2 }, { "always", 2 },
		{ "p", 3 }, { "prefix", 3 },
	};
	size_t i, n;

	s += strspn(s, " \t\r");
	for (n = strlen(s); n > 0 && strchr(" \t\r", s[n - 1]); n--)
		;
	s[n] = '\0';
	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcasecmp(s, words[i].word) == 0 && (words[i].r != 3 || prefixes))
			return words[i].r;
	return -1;
}

/* The question's choices: "always for `git diff`, `make`" where there are
 * prefixes to offer. */
static void
choices(struct mc_buf *b, char **pre, size_t npre)
{
	size_t i;

	mc_buf_adds(b, "[y]es, [n]o, ");
	if (npre > 0) {
		mc_buf_adds(b, "[p] always for ");
		for (i = 0; i < npre; i++)
			mc_buf_printf(b, "%s`%s`", i ? ", " : "", pre[i]);
		mc_buf_adds(b, ", [a]lways for this tool:");
	} else
		mc_buf_adds(b, "[a]lways this session:");
}

/* The question, wrapped between words to the terminal's width, the
 * answer to be typed after its last row. */
static void
question(const struct driver *d, struct mc_buf *out, int width, const char *name, int outside,
    char **pre, size_t npre)
{
	struct mc_buf q = {0};

	mc_buf_printf(&q, "allow %s%s? ", name, outside ? " outside the working directory" : "");
	choices(&q, pre, npre);
	show_words(d, out, "", "", q.data, q.len, width);
	out->data[out->len - 1] = ' ';	/* not a newline: the answer follows */
	mc_buf_free(&q);
}

/*
 * Ask on the terminal itself (/dev/tty), whatever standard error is: the
 * preview, then the question, after discarding what was typed ahead
 * while the model worked, until one of the answers answer_of knows
 * comes. 1 yes, 0 no, 2 always, 3 always for the prefixes pre, -1
 * interrupted, -2 no terminal to ask on.
 */
static int
ask(struct driver *d, int tool, const char *where, const char *name, const cJSON *call,
    char **pre, size_t npre)
{
	struct termios saved, line;
	struct mc_buf b = {0};
	char answer[ANSWER_MAX];
	const char *hint;
	int fd, width, r = -1, modes;

	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1) {
		mc_err("/dev/tty: %s: cannot ask whether %s may run; refused", strerror(errno), name);
		return -2;
	}
	width = term_width(fd);
	preview(d, &b, width, tool, where, name, call);
	/* The driver's own terminal modes (no echo while the model works)
	 * give way to a plain line with echo while the user answers. */
	if ((modes = tcgetattr(fd, &saved) == 0)) {
		line = saved;
		line.c_lflag |= ICANON | ECHO | ECHOE | ECHOK | ISIG;
		line.c_iflag |= ICRNL;
		tcsetattr(fd, TCSANOW, &line);
	}
	while (r == -1 && !interrupted) {
		question(d, &b, width, name, tool == TOOL_READ, pre, npre);
		tcflush(fd, TCIFLUSH);
		if (mc_write_all(fd, b.data, b.len) == -1 ||
		    read_answer(fd, answer, sizeof answer) == -1)
			break;
		b.len = 0;
		hint = npre > 0 ? "(answer y or yes, n or no, p or prefix, a or always)" :
		    "(answer y or yes, n or no, a or always)";
		if ((r = answer_of(answer, npre > 0)) == -1)
			show_words(d, &b, "  ", "  ", hint, strlen(hint), width);
	}
	if (r == -1 && !interrupted)
		mc_write_all(fd, "\n", 1);
	if (modes)
		tcsetattr(fd, TCSANOW, &saved);
	close(fd);
	mc_buf_free(&b);
	return r;
}

/* Allowed without asking: answered "always" in this session, or granted
 * beforehand with --allow (for a subagent, by its parent). */
static int
granted(const struct driver *d, const char *name)
{
	const cJSON *e;
	int i;

	cJSON_ArrayForEach(e, d->s.always)
		if (strcmp(e->valuestring, name) == 0)
			return 1;
	for (i = 0; i < d->c.nallow; i++)
		if (strcmp(d->c.allow[i], name) == 0)
			return 1;
	return 0;
}

/* Refused without asking: answered "always reject" in this session (mc acp). */
static int
barred(const struct driver *d, const char *name)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, d->s.never)
		if (strcmp(e->valuestring, name) == 0)
			return 1;
	return 0;
}

/* Whether there is someone to ask: the terminal's user, or an editor's
 * (mc acp); never for a subagent. */
static int
asker(const struct driver *d)
{
	return d->c.depth == 0 && (d->t.el != NULL || d->front != NULL);
}

/* write or edit of a path inside the working directory: what
 * accept-edits allows. */
static int
edit_inside(const struct driver *d, int tool, const cJSON *call)
{
	const char *args = mc_json_str(call, "arguments"), *path;
	char err[64], *full;
	cJSON *a;
	int in = 0;

	if (tool != 0 && tool != 1)
		return 0;
	a = mc_json_parse(args ? args : "", args ? strlen(args) : 0, err, sizeof err);
	if ((path = mc_json_str(a, "path")) != NULL && *path != '\0' &&
	    (full = mc_path_resolve(d->c.cwd, path)) != NULL) {
		in = mc_path_within(full, d->c.cwd);
		free(full);
	}
	cJSON_Delete(a);
	return in;
}

/* Refused before any question: by a deny rule, or by plan mode. */
static int
refuse(struct driver *d, const char *name, const cJSON *call, char **why, const char *rule)
{
	announce(d, name, call);
	if (rule != NULL) {
		mc_note("refused %s: the rule %s denies it", name, perms_where(d));
		if (asprintf(why, "refused: the user's settings deny this call (the rule %s). Do "
		    "without it, and say what you would have done.", rule) == -1)
			mc_oom();
	} else {
		mc_note("refused %s: plan mode offers only read, grep, find and read-only MCP "
		    "tools", name);
		*why = mc_strdup("refused: this is plan mode, where only read-only tools may run. "
		    "Answer with the plan; the user will have it carried out.");
	}
	return 0;
}

/* An answer that goes beyond the call: "always" for the tool, or for
 * the command's prefixes; "never" for the tool. */
static void
remember(struct driver *d, const char *name, int r, char **pre, size_t npre)
{
	size_t i;

	if (r == 4) {
		if (d->s.never == NULL)
			d->s.never = mc_json_new_arr();
		mc_json_push(d->s.never, mc_json_new_str(name));
		return;
	}
	if (r == 3) {
		for (i = 0; i < npre; i++)
			perms_allow_prefix(d, pre[i]);
		return;
	}
	if (d->s.always == NULL)
		d->s.always = mc_json_new_arr();
	mc_json_push(d->s.always, mc_json_new_str(name));
}

/*
 * May this call run? 1 yes; 0 no, with *why the output the model gets
 * (malloc'ed); -1 when the user interrupted the question. *by says who
 * decided: "policy" (a call that needs no asking, or a one-shot run or
 * subagent without leave), "rule" (permissions.deny or allow), "mode"
 * (plan refuses, accept-edits allows), "yes", "always" (answered so, or
 * --allow) or "user"; *rule names the rule or mode that decided or made
 * it ask, or is NULL. Deny beats ask beats allow. Every call is announced
 * on the way, unless its question shows it whole.
 */
int
approve(struct driver *d, const char *name, const cJSON *call, char **why, const char **by,
    const char **rule)
{
	struct mc_buf msg = {0};
	char *where, **pre = NULL;
	const char *must;
	int tool = guarded(d, name, call, &where), r;
	enum verdict v = perms_judge(d, name, call, rule, &must);
	size_t npre = 0, i;

	*by = "rule";
	if (v == V_DENY)
		return free(where), refuse(d, name, call, why, *rule);
	if (barred(d, name)) {
		*by = "always";
		announce(d, name, call);
		*why = mc_strdup("refused: the user refused this tool for the rest of the session. "
		    "Do without it, and say what you would have done.");
		return free(where), 0;
	}
	if (d->mode.now == MODE_PLAN && !plan_offers(d, name)) {
		*by = "mode";
		*rule = "mode plan";
		return free(where), refuse(d, name, call, why, NULL);
	}
	if (v == V_ASK) {
		tool = tool == -1 || tool == TOOL_READ ? TOOL_RULE : tool;
		mc_note("%s: the rule %s asks first", name, perms_where(d));
	} else {
		*by = tool == -1 ? "policy" : "yes";
		if (tool == -1 || d->mode.now == MODE_YES || (*by = "always", granted(d, name)) ||
		    (*by = "rule", v == V_ALLOW && must == NULL) ||
		    (*by = "mode", d->mode.now == MODE_ACCEPT_EDITS && edit_inside(d, tool, call))) {
			if (strcmp(*by, "rule") == 0)
				mc_note("%s: allowed by the rule %s", name, perms_where(d));
			else if (strcmp(*by, "mode") == 0)
				*rule = "mode accept-edits";
			else if (strcmp(*by, "yes") == 0)
				*rule = "mode yes";
			else
				*rule = NULL;
			announce(d, name, call);
			free(where);
			return 1;
		}
		if (must != NULL && asker(d))
			mc_note("%s: no rule may allow this command: %s", name, must);
		*rule = NULL;
	}
	*by = "policy";
	r = 0;
	if (v == V_ASK && !asker(d)) {
		*by = "rule";
		announce(d, name, call);
		mc_note("refused %s: the rule %s asks first, and this run has no one to ask", name,
		    perms_where(d));
		mc_buf_printf(&msg, "refused: the user's settings ask before this call (the rule "
		    "%s), and this run of mc cannot ask. Do without it, and say what you would "
		    "have done.", *rule);
	} else if (d->c.depth > 0) {
		/* A subagent never asks: the parent did not allow it. */
		announce(d, name, call);
		if (tool == TOOL_READ)
			mc_buf_printf(&msg, "refused: %s of %s is outside the working directory; a "
			    "subagent may read outside it only where its parent session could "
			    "without asking (mc --yes or --add-dir, or \"always\" answered for the "
			    "tool), and this one may not. Do without it, and say in your answer "
			    "what you would have done.", name, where);
		else
			*why = mc_strdup("refused: a subagent may run write, edit, bash and MCP "
			    "tools only where its parent session would without asking (mc --yes, "
			    "or \"always\" answered for the tool), and this one may not. Do "
			    "without it, and say in your answer what you would have done.");
	} else if (!asker(d)) {
		announce(d, name, call);
		/* Said, not an error of the run: the model reads why. */
		if (!(d->s.refused & 1u << tool) && tool == TOOL_READ)
			mc_note("refused %s of %s (outside the working directory: one-shot runs need "
			    "--yes or --add-dir to read there)", name, where);
		else if (!(d->s.refused & 1u << tool))
			mc_note("refused %s (one-shot runs need --yes to run write, edit%s or bash)",
			    name, tool == TOOL_MCP ? ", MCP tools" : "");
		d->s.refused |= 1u << tool;
		if (tool == TOOL_READ)
			mc_buf_printf(&msg, "refused: %s of %s is outside the working directory; "
			    "one-shot runs need --yes or --add-dir. Do without it, or ask the user "
			    "to run mc again with --yes or --add-dir DIR.", name, where);
		else
			mc_buf_printf(&msg, "refused: this one-shot run of mc may not write, edit or "
			    "run commands unless it is given --yes%s%s%s. Say what you would do "
			    "instead, or ask the user to run it again with --yes.",
			    must ? " (and no rule of the user's may allow this command: " : "",
			    must ? must : "", must ? ")" : "");
	} else {
		*by = "user";
		if (tool == 2 && must == NULL && v != V_ASK)
			pre = perms_prefixes(d, call, &npre);
		/* mc acp: the editor's user, through the front end */
		r = d->front != NULL ? d->front->asks(d, name, call, pre, npre) :
		    ask(d, tool, where, name, call, pre, npre);
		if (r >= 2)
			remember(d, name, r, pre, npre);
		if (r == 0)
			*why = mc_strdup("refused: the user did not allow this call.");
		else if (r == 4)
			*why = mc_strdup("refused: the user did not allow this call, nor this tool "
			    "for the rest of the session.");
		else if (r == -2)
			*why = mc_strdup("refused: mc had no terminal to ask the user on.");
		r = r == 4 || r == -2 ? 0 : r >= 2 ? 1 : r;
	}
	if (msg.len > 0)
		*why = mc_buf_steal(&msg);
	for (i = 0; i < npre; i++)
		free(pre[i]);
	free(pre);
	free(where);
	return r;
}
