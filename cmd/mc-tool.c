/* mc-tool: the agent's tools: their one definition (list) and running one call (call). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clip.h"
#include "confine.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "proc.h"
#include "provider.h"
#include "toolenv.h"
#include "settings.h"
#include "utf8.h"

#define READ_LINES 2000			/* lines per read call */
#define READ_BYTES (256u << 10)		/* file bytes per read call */
#define READ_BUDGET (MC_CLIP_MAX - 512)	/* read output, so the output cap never cuts a page */
#define LINE_CAP 8192			/* longer lines are shown cut */
#define COUNT_MAX (64u << 20)		/* lines are counted this far for "of N" */
#define SCAN_MAX (1ull << 30)		/* read gives up looking for its lines here */
#define BINARY_PROBE 8192		/* a NUL in this much of a file: binary */
#define EDIT_MAX (16u << 20)		/* largest file edit will load */
#define SKILL_MAX ((1u << 20) + 4096)	/* mc-skills caps a skill file at 1 MiB */
#define FIND_VISIT_MAX 200000		/* entries find looks at */
#define BASH_TIMEOUT 120
#define GREP_TIMEOUT 60
#define SKILLS_TIMEOUT 30

static const char usage[] =
    "usage: mc-tool [-q] list [--pretty]\n"
    "       mc-tool [-q] call [-C DIR] [--touched-out FILE]\n"
    "\n"
    "The agent's tools. list writes their definitions (a JSON array); call\n"
    "reads one function_call item on stdin, runs it and writes one\n"
    "function_call_output item on stdout.\n"
    "\n"
    "  -C DIR               run the call in DIR (the working directory)\n"
    "  --touched-out FILE   write the paths the call read, wrote or edited to FILE\n"
    "  --pretty             indent the JSON of list\n"
    "  -q                   no warnings on stderr\n"
    "  -h, --help           show this help\n"
    "  --version            show the version\n";

enum ptype { P_STR, P_INT, P_BOOL };

struct param {
	const char *name;
	enum ptype type;
	int required;
	long min, max;		/* P_INT */
	const char *desc;
};

struct call {
	const char *root;	/* canonical working directory */
	const cJSON *args;
	struct mc_buf out;	/* what the model reads */
	struct mc_buf touched;	/* paths, one a line, relative to root */
	int interrupted;
};

struct tool {
	const char *name;
	const char *desc;
	const struct param *params;
	void (*run)(struct call *);
};

static void tool_read(struct call *);
static void tool_write(struct call *);
static void tool_edit(struct call *);
static void tool_bash(struct call *);
static void tool_grep(struct call *);
static void tool_find(struct call *);

static const struct param read_params[] = {
	{ "path", P_STR, 1, 0, 0,
	  "Path of the file, relative to the working directory (absolute paths are allowed), "
	  "or a skill URI: skill://NAME for a skill's SKILL.md, skill://NAME/REL/PATH for a file in its directory." },
	{ "offset", P_INT, 0, 1, LONG_MAX,
	  "Line number to start at; 1 is the first line. Default 1." },
	{ "limit", P_INT, 0, 1, READ_LINES,
	  "Most lines to return. Default and maximum 2000." },
	{ NULL, 0, 0, 0, 0, NULL }
};
static const struct param write_params[] = {
	{ "path", P_STR, 1, 0, 0,
	  "Path of the file, relative to the working directory; it must stay inside it." },
	{ "content", P_STR, 1, 0, 0,
	  "The complete new content of the file." },
	{ NULL, 0, 0, 0, 0, NULL }
};
static const struct param edit_params[] = {
	{ "path", P_STR, 1, 0, 0,
	  "Path of the file, relative to the working directory; it must stay inside it." },
	{ "old_string", P_STR, 1, 0, 0,
	  "The exact text to replace, including whitespace and indentation, without read's line-number prefixes. "
	  "Include enough surrounding lines that it occurs only once." },
	{ "new_string", P_STR, 1, 0, 0,
	  "The text to put in its place (may be empty to delete)." },
	{ "replace_all", P_BOOL, 0, 0, 0,
	  "Replace every occurrence instead of requiring exactly one. Default false." },
	{ NULL, 0, 0, 0, 0, NULL }
};
static const struct param bash_params[] = {
	{ "command", P_STR, 1, 0, 0,
	  "The shell command line, run by /bin/sh -c in the working directory." },
	{ "timeout_s", P_INT, 0, 1, 3600,
	  "Seconds before the command and everything it started are killed. Default 120." },
	{ NULL, 0, 0, 0, 0, NULL }
};
static const struct param grep_params[] = {
	{ "pattern", P_STR, 1, 0, 0,
	  "The regular expression to search for." },
	{ "path", P_STR, 0, 0, 0,
	  "File or directory to search, relative to the working directory. Default: the working directory." },
	{ "glob", P_STR, 0, 0, 0,
	  "Only search files whose name matches this glob, e.g. \"*.c\"." },
	{ NULL, 0, 0, 0, 0, NULL }
};
static const struct param find_params[] = {
	{ "glob", P_STR, 1, 0, 0,
	  "The glob to match, e.g. \"*.c\", \"Makefile\" or \"src/**/*.h\"." },
	{ "path", P_STR, 0, 0, 0,
	  "Directory to search, relative to the working directory. Default: the working directory." },
	{ NULL, 0, 0, 0, 0, NULL }
};

/* The single definition of the tools: list prints it, call checks against it. */
static const struct tool tools[] = {
	{ "read",
	  "Read a text file. Lines come numbered, each as the line number, a tab, then the line's text; "
	  "the numbers are not part of the file. At most 2000 lines (and about 60 KiB) come per call; "
	  "when more remain, a note at the end gives the offset to continue from. Lines longer than "
	  "8192 bytes are shown cut. A binary file is reported, not shown. "
	  "Also reads skills: skill://NAME is the skill's SKILL.md and skill://NAME/REL/PATH a file it refers to.",
	  read_params, tool_read },
	{ "write",
	  "Create a file or replace its whole content. Missing parent directories are created. "
	  "The path must stay inside the working directory. To change part of an existing file, use edit.",
	  write_params, tool_write },
	{ "edit",
	  "Replace exact text in an existing file: old_string must match the file byte for byte and occur "
	  "exactly once (or set replace_all). Read the file first and copy the text without the line-number "
	  "prefixes. The path must stay inside the working directory.",
	  edit_params, tool_edit },
	{ "bash",
	  "Run a shell command (/bin/sh -c) in the working directory and return its output (stdout and "
	  "stderr together) followed by its exit status. Each call is a new shell: cd and variables do "
	  "not carry over. stdin is empty, so commands must not wait for input. After timeout_s seconds (default 120) the command and every process it started are "
	  "killed; processes left running in the background when it ends are stopped. Output over 64 KiB "
	  "keeps its start and end.",
	  bash_params, tool_bash },
	{ "grep",
	  "Search the contents of files for a regular expression, recursively, and return the matching "
	  "lines as path:line:text. Uses ripgrep when installed (Rust regex syntax; skips files ignored by "
	  ".gitignore), else grep -E (POSIX extended syntax); the common subset works with both. "
	  "Binary files and .git are skipped.",
	  grep_params, tool_grep },
	{ "find",
	  "Find files and directories by name and return their paths, sorted, directories ending in /. "
	  "A glob without a slash matches names at any depth (\"*.c\"); a glob with a slash matches the "
	  "path below the search directory, where ** matches any number of directories "
	  "(\"src/**/*.h\"). Does not enter .git or symbolic links to directories.",
	  find_params, tool_find },
};
#define NTOOLS (sizeof tools / sizeof tools[0])

/* Output helpers: the text the model reads. */

static void
say(struct call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
say(struct call *c, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		mc_oom();
	mc_buf_add(&c->out, s, (size_t)n);
	free(s);
}

static void
say_raw(struct call *c, const char *s, size_t n)
{
	mc_clip_repair(&c->out, s, n);
}

/* Record a canonical path the call read or changed, when inside root. */
static void
touch(struct call *c, const char *canon)
{
	size_t n = strlen(c->root);
	const char *rel;

	if (!mc_path_within(canon, c->root) || strchr(canon, '\n') != NULL)
		return;
	rel = strcmp(c->root, "/") == 0 ? canon + 1 : canon + n;
	if (*rel == '/')
		rel++;
	mc_buf_adds(&c->touched, *rel ? rel : ".");
	mc_buf_addc(&c->touched, '\n');
}

static const char *
arg_str(const struct call *c, const char *name)
{
	return mc_json_str(c->args, name);
}

static long
arg_int(const struct call *c, const char *name, long dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->args, name);

	return cJSON_IsNumber(v) ? (long)v->valuedouble : dflt;
}

static int
arg_bool(const struct call *c, const char *name)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c->args, name));
}

/* read */

struct pager {
	long offset, limit;
	struct mc_buf *out;
	long line;		/* number of the line being collected */
	struct mc_buf cur;	/* its text, at most LINE_CAP bytes */
	size_t curlen;		/* its whole length */
	long first, last;	/* lines shown */
	size_t content;		/* file bytes shown */
	size_t scanned;
	int full;		/* a limit stopped the listing */
	int counting;		/* still counting lines after it stopped */
	int gaveup;		/* SCAN_MAX reached before the page was full */
	int invalid;		/* a shown line was not valid UTF-8 */
};

static void
pager_init(struct pager *pg, struct mc_buf *out, long offset, long limit)
{
	*pg = (struct pager){ .offset = offset, .limit = limit, .out = out, .line = 1, .counting = 1 };
}

static void
pager_emit(struct pager *pg)
{
	struct mc_buf e = {0};
	size_t k = pg->cur.len;

	if (pg->last - pg->first + 1 >= pg->limit && pg->first) {
		pg->full = 1;
		return;
	}
	/* Never cut inside a character. */
	if (pg->curlen > k) {
		size_t j = k - 1;

		while (j > 0 && (pg->cur.data[j] & 0xc0) == 0x80)
			j--;
		if (j + mc_utf8_seqlen(pg->cur.data + j, k - j) != k)
			k = j;
	}
	if (k && !mc_utf8_valid(pg->cur.data, k))
		pg->invalid = 1;
	mc_buf_printf(&e, "%6ld\t", pg->line);
	mc_clip_repair(&e, pg->cur.data ? pg->cur.data : "", k);
	if (pg->curlen > k)
		mc_buf_printf(&e, " [... line cut: %zu more bytes]", pg->curlen - k);
	mc_buf_addc(&e, '\n');
	if (pg->first && (pg->out->len + e.len > READ_BUDGET || pg->content + k > READ_BYTES)) {
		pg->full = 1;
		mc_buf_free(&e);
		return;
	}
	mc_buf_add(pg->out, e.data, e.len);
	mc_buf_free(&e);
	pg->content += k;
	if (!pg->first)
		pg->first = pg->line;
	pg->last = pg->line;
}

static void
pager_endline(struct pager *pg)
{
	if (!pg->full && pg->line >= pg->offset)
		pager_emit(pg);
	pg->line++;
	pg->cur.len = 0;
	pg->curlen = 0;
}

/* Feed file bytes; returns 0 once nothing more is needed. */
static int
pager_feed(struct pager *pg, const char *p, size_t n)
{
	const char *nl;
	size_t seg, room;

	pg->scanned += n;
	while (n > 0) {
		nl = memchr(p, '\n', n);
		seg = nl ? (size_t)(nl - p) : n;
		if (!pg->full && pg->line >= pg->offset && pg->cur.len < LINE_CAP) {
			room = LINE_CAP - pg->cur.len;
			mc_buf_add(&pg->cur, p, seg < room ? seg : room);
		}
		pg->curlen += seg;
		if (nl == NULL)
			break;
		pager_endline(pg);
		p += seg + 1;
		n -= seg + 1;
	}
	if (pg->full && pg->scanned > COUNT_MAX)
		pg->counting = 0;
	if (!pg->full && pg->scanned > SCAN_MAX)
		pg->gaveup = 1;
	return pg->gaveup ? 0 : !pg->full || pg->counting;
}

/* Finish the listing of what (a path or URI) with its notes. */
static void
pager_end(struct pager *pg, struct call *c, const char *what)
{
	long total;

	if (pg->curlen > 0)
		pager_endline(pg);
	total = pg->line - 1;
	mc_buf_free(&pg->cur);
	if (pg->gaveup) {
		if (pg->first == 0)
			say(c, "error: read looks at the first %llu bytes of %s only, and line %ld is not within them; use bash (e.g. sed -n or tail) instead\n",
			    SCAN_MAX, what, pg->offset);
		else
			say(c, "\n[Stopped after %llu bytes of %s; use bash (e.g. tail -c or sed -n) for the rest.]\n",
			    SCAN_MAX, what);
		return;
	}
	if (total == 0) {
		say(c, "(%s is empty)\n", what);
		return;
	}
	if (pg->first == 0) {
		c->out.len = 0;
		say(c, "error: offset %ld is past the end of %s, which has %ld line%s\n",
		    pg->offset, what, total, total == 1 ? "" : "s");
		return;
	}
	if (pg->invalid)
		say(c, "\n[note: %s is not valid UTF-8; invalid bytes are shown as U+FFFD]\n", what);
	if (pg->full && pg->counting)
		say(c, "\n[Showing lines %ld-%ld of %ld. To read on, call read with offset=%ld.]\n",
		    pg->first, pg->last, total, pg->last + 1);
	else if (pg->full)
		say(c, "\n[Showing lines %ld-%ld; the file has more. To read on, call read with offset=%ld.]\n",
		    pg->first, pg->last, pg->last + 1);
}

static void
read_skill(struct call *c, const char *uri, long offset, long limit)
{
	struct mc_clip out, err;
	struct mc_proc r;
	struct pager pg;
	char *prog, *text, *etext;
	size_t len, elen;
	char *argv[4];

	if ((prog = mc_proc_sibling("mc-skills")) == NULL) {
		say(c, "error: cannot read %s: mc-skills is not installed (not beside mc-tool nor on PATH)\n", uri);
		return;
	}
	argv[0] = "mc-skills";
	argv[1] = "read";
	argv[2] = (char *)uri;
	argv[3] = NULL;
	mc_clip_init(&out, SKILL_MAX + 256);
	mc_clip_init(&err, 4096);
	if (mc_proc_run(prog, argv, SKILLS_TIMEOUT, &out, &err, &r) == -1) {
		say(c, "error: cannot run %s: %s\n", prog, strerror(errno));
		mc_clip_free(&out);
		mc_clip_free(&err);
		free(prog);
		return;
	}
	free(prog);
	if (r.interrupted)
		c->interrupted = 1;
	if (mc_clip_over(&out)) {
		say(c, "error: %s is over the %u-byte limit\n", uri, SKILL_MAX);
		mc_clip_free(&out);
		mc_clip_free(&err);
		return;
	}
	if ((text = mc_clip_finish(&out, &len)) == NULL || (etext = mc_clip_finish(&err, &elen)) == NULL)
		mc_oom();
	if (r.timed_out || r.interrupted || !r.reaped || !WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
		while (elen > 0 && etext[elen - 1] == '\n')
			etext[--elen] = '\0';
		if (elen)
			say(c, "error: cannot read %s: %s\n", uri, etext);
		else
			say(c, "error: cannot read %s: mc-skills failed%s\n", uri,
			    r.timed_out ? " (timed out)" : "");
	} else {
		pager_init(&pg, &c->out, offset, limit);
		pager_feed(&pg, text, len);
		pager_end(&pg, c, uri);
	}
	free(text);
	free(etext);
}

static void
tool_read(struct call *c)
{
	const char *path = arg_str(c, "path");
	long offset = arg_int(c, "offset", 1), limit = arg_int(c, "limit", READ_LINES);
	struct pager pg;
	struct stat st;
	char buf[65536], *canon;
	ssize_t n;
	int fd, first = 1;

	if (*path == '\0') {
		say(c, "error: path is empty\n");
		return;
	}
	if (strncmp(path, "skill://", 8) == 0) {
		read_skill(c, path, offset, limit);
		return;
	}
	/* O_NONBLOCK: a FIFO with no writer must not hang the call. */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) == -1) {
		say(c, "error: %s: %s\n", path, strerror(errno));
		return;
	}
	if (fstat(fd, &st) == -1) {
		say(c, "error: %s: %s\n", path, strerror(errno));
		close(fd);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		say(c, "error: %s is a directory; use find to list the files in it\n", path);
		close(fd);
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		say(c, "error: %s is not a regular file\n", path);
		close(fd);
		return;
	}
	pager_init(&pg, &c->out, offset, limit);
	for (;;) {
		n = read(fd, buf, sizeof buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			c->out.len = 0;
			say(c, "error: %s: %s\n", path, strerror(errno));
			mc_buf_free(&pg.cur);
			close(fd);
			return;
		}
		if (n == 0)
			break;
		if (first && memchr(buf, '\0', (size_t)n < BINARY_PROBE ? (size_t)n : BINARY_PROBE)) {
			say(c, "%s is a binary file (%lld bytes); not shown. Use bash (e.g. file, xxd or od) to inspect it.\n",
			    path, (long long)st.st_size);
			close(fd);
			return;
		}
		first = 0;
		if (!pager_feed(&pg, buf, (size_t)n))
			break;
	}
	close(fd);
	if (n != 0)		/* stopped before the end: the total is unknown */
		pg.counting = 0;
	pager_end(&pg, c, path);
	if ((canon = realpath(path, NULL)) != NULL)
		touch(c, canon);
	free(canon);
}

/* write and edit */

static void
tool_write(struct call *c)
{
	const char *path = arg_str(c, "path");
	const char *content = arg_str(c, "content");
	char err[PATH_MAX * 2 + 256], *full;
	size_t len = strlen(content), lines = 0, i;
	struct mc_confined t;
	int created;

	if (mc_confine_resolve(c->root, path, 1, &t, err, sizeof err) == -1) {
		say(c, "error: %s\n", err);
		return;
	}
	if (mc_confine_write(&t, content, len, &created, err, sizeof err) == -1) {
		say(c, "error: %s: %s\n", path, err);
	} else {
		for (i = 0; i < len; i++)
			lines += content[i] == '\n';
		if (len && content[len - 1] != '\n')
			lines++;
		say(c, "%s %s: %zu bytes, %zu line%s\n", created ? "Created" : "Wrote",
		    path, len, lines, lines == 1 ? "" : "s");
		if ((full = mc_path_join(t.dir, t.name)) == NULL)
			mc_oom();
		touch(c, full);
		free(full);
	}
	mc_confine_free(&t);
}

static long
line_at(const char *at, const char **from, long *line)
{
	const char *p;

	for (p = *from; p < at; p++)
		*line += *p == '\n';
	*from = at;
	return *line;
}

static void
tool_edit(struct call *c)
{
	const char *path = arg_str(c, "path");
	const char *old = arg_str(c, "old_string"), *new = arg_str(c, "new_string");
	int all = arg_bool(c, "replace_all"), created;
	char err[PATH_MAX * 2 + 256], *full = NULL;
	struct mc_buf lines = {0}, res = {0};
	struct mc_confined t;
	size_t olen = strlen(old), nlen = strlen(new), count = 0;
	const char *p, *hit, *from;
	struct mc_read r = {0};
	long line = 1;

	if (olen == 0) {
		say(c, "error: old_string is empty; to create a file or replace all of it, use write\n");
		return;
	}
	if (strcmp(old, new) == 0) {
		say(c, "error: old_string and new_string are the same; nothing to change\n");
		return;
	}
	if (mc_confine_resolve(c->root, path, 0, &t, err, sizeof err) == -1) {
		say(c, "error: %s\n", err);
		return;
	}
	if ((full = mc_path_join(t.dir, t.name)) == NULL)
		mc_oom();
	/* Through the directory resolved and held, as the write will be. */
	mc_file_readat(t.dfd, t.name, EDIT_MAX, 0, &r);
	if (r.status != MC_READ_OK) {
		say(c, "error: %s: %s\n", path, mc_read_strerror(&r, EDIT_MAX));
		goto out;
	}
	if (memchr(r.data, '\0', r.len) != NULL) {
		say(c, "error: %s is a binary file; edit changes text files only\n", path);
		goto out;
	}
	from = r.data;
	for (p = r.data; (hit = memmem(p, r.len - (size_t)(p - r.data), old, olen)) != NULL; p = hit + olen) {
		count++;
		if (count <= 10)
			mc_buf_printf(&lines, "%s%ld", count > 1 ? ", " : "", line_at(hit, &from, &line));
	}
	if (count == 0) {
		say(c, "error: old_string was not found in %s. It must match the file exactly, "
		    "including whitespace and indentation; read the file again and copy the text.%s\n", path,
		    memmem(r.data, r.len, "\r\n", 2) && strstr(old, "\r\n") == NULL && strchr(old, '\n') ?
		    " Note: the file has CRLF line endings." : "");
		goto out;
	}
	if (count > 1 && !all) {
		say(c, "error: old_string occurs %zu times in %s (lines %s%s). Include more surrounding "
		    "lines to make it unique, or set replace_all to true to replace every occurrence.\n",
		    count, path, lines.data, count > 10 ? ", ..." : "");
		goto out;
	}
	for (p = r.data; (hit = memmem(p, r.len - (size_t)(p - r.data), old, olen)) != NULL; p = hit + olen) {
		mc_buf_add(&res, p, (size_t)(hit - p));
		mc_buf_add(&res, new, nlen);
	}
	mc_buf_add(&res, p, r.len - (size_t)(p - r.data));
	if (mc_confine_write(&t, res.data, res.len, &created, err, sizeof err) == -1) {
		say(c, "error: %s: %s\n", path, err);
		goto out;
	}
	say(c, "Edited %s: replaced %zu occurrence%s (line%s %s%s)\n", path, count,
	    count == 1 ? "" : "s", count == 1 ? "" : "s", lines.data, count > 10 ? ", ..." : "");
	touch(c, full);
out:
	free(r.data);
	free(full);
	mc_confine_free(&t);
	mc_buf_free(&lines);
	mc_buf_free(&res);
}

/* bash and grep: commands in their own process group */

static void
tool_bash(struct call *c)
{
	const char *cmd = arg_str(c, "command");
	long timeout = arg_int(c, "timeout_s", BASH_TIMEOUT);
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	struct mc_clip out;
	struct mc_proc r;
	char *text;
	size_t len;

	mc_clip_init(&out, MC_CLIP_MAX - 512);
	if (mc_proc_run("/bin/sh", argv, (unsigned)timeout, &out, NULL, &r) == -1) {
		mc_clip_free(&out);
		if (errno == E2BIG)
			say(c, "error: the command is %zu bytes, over the system's limit for one argument; "
			    "use write to put long text or a script in a file, then run that\n", strlen(cmd));
		else
			say(c, "error: cannot run /bin/sh: %s\n", strerror(errno));
		return;
	}
	if ((text = mc_clip_finish(&out, &len)) == NULL)
		mc_oom();
	if (len == 0)
		say(c, "(no output)\n");
	else {
		mc_buf_add(&c->out, text, len);
		if (text[len - 1] != '\n')
			mc_buf_addc(&c->out, '\n');
	}
	free(text);
	if (r.timed_out)
		say(c, "[timed out after %ld s: the command and every process it started were killed]\n", timeout);
	else if (r.interrupted) {
		say(c, "[interrupted by the user: the command and every process it started were killed]\n");
		c->interrupted = 1;
	} else if (r.reaped && WIFEXITED(r.status))
		say(c, "[exit status %d]\n", WEXITSTATUS(r.status));
	else if (r.reaped && WIFSIGNALED(r.status))
		say(c, "[killed by signal %d (%s)]\n", WTERMSIG(r.status), strsignal(WTERMSIG(r.status)));
	if (r.leftovers)
		say(c, "[processes still running in the background when the command ended were stopped]\n");
}

static void
tool_grep(struct call *c)
{
	const char *pattern = arg_str(c, "pattern"), *path = arg_str(c, "path");
	const char *glob = arg_str(c, "glob");
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
	if (mc_proc_run(prog, argv, GREP_TIMEOUT, &out, NULL, &r) == -1) {
		say(c, "error: cannot run %s: %s\n", prog, strerror(errno));
		mc_clip_free(&out);
		goto out;
	}
	if ((text = mc_clip_finish(&out, &len)) == NULL)
		mc_oom();
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
		say(c, "error: %s failed%s\n", rg ? "rg" : "grep", r.timed_out ? ": timed out" : "");
	} else {
		if (st != 0)
			say(c, "%s", "error: ");
		mc_buf_add(&c->out, text, len);
		if (text[len - 1] != '\n')
			mc_buf_addc(&c->out, '\n');
		if (r.timed_out)
			say(c, "[search timed out after %d s; narrow path or glob]\n", GREP_TIMEOUT);
	}
	free(text);
out:
	free(inc);
	free(prog);
}

/* find */

/* Match path p against glob g segment by segment; ** spans directories. */
static int
glob_match(const char *g, const char *p)
{
	const char *ge, *pe, *s;
	char gs[NAME_MAX + 1], ps[NAME_MAX + 1];

	if (*g == '\0')
		return *p == '\0';
	if (g[0] == '*' && g[1] == '*' && (g[2] == '/' || g[2] == '\0')) {
		if (g[2] == '\0')
			return 1;
		if (glob_match(g + 3, p))
			return 1;
		for (s = p; *s; s++)
			if (*s == '/' && glob_match(g, s + 1))
				return 1;
		return 0;
	}
	ge = strchrnul(g, '/');
	pe = strchrnul(p, '/');
	if ((size_t)(ge - g) > NAME_MAX || (size_t)(pe - p) > NAME_MAX)
		return 0;
	memcpy(gs, g, (size_t)(ge - g));
	gs[ge - g] = '\0';
	memcpy(ps, p, (size_t)(pe - p));
	ps[pe - p] = '\0';
	if (fnmatch(gs, ps, 0) != 0)
		return 0;
	if (*ge == '\0' || *pe == '\0')
		return *ge == '\0' && *pe == '\0';
	return glob_match(ge + 1, pe + 1);
}

struct finder {
	const char *glob;
	int bypath;		/* the glob has a slash */
	const char *base;	/* the search directory as given */
	char **hits;
	size_t nhits;
	size_t visited;
	int truncated;
};

static void
find_walk(struct finder *f, const char *dir, const char *rel)
{
	struct dirent *de;
	struct stat st;
	char *full, *r, *shown;
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
		if ((full = mc_path_join(dir, de->d_name)) == NULL)
			mc_oom();
		if (*rel)
			r = mc_path_join(rel, de->d_name);
		else
			r = strdup(de->d_name);
		if (r == NULL)
			mc_oom();
		if (lstat(full, &st) == 0) {
			if (f->bypath ? glob_match(f->glob, r) : fnmatch(f->glob, de->d_name, 0) == 0) {
				if (asprintf(&shown, "%s%s%s%s", strcmp(f->base, ".") ? f->base : "",
				    strcmp(f->base, ".") && f->base[strlen(f->base) - 1] != '/' ? "/" : "",
				    r, S_ISDIR(st.st_mode) ? "/" : "") == -1)
					mc_oom();
				char **h = reallocarray(f->hits, f->nhits + 1, sizeof *h);
				if (h == NULL)
					mc_oom();
				f->hits = h;
				f->hits[f->nhits++] = shown;
			}
			if (S_ISDIR(st.st_mode) && strcmp(de->d_name, ".git") != 0)
				find_walk(f, full, r);
		}
		free(full);
		free(r);
		if (f->truncated)
			break;
	}
	closedir(d);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
tool_find(struct call *c)
{
	const char *glob = arg_str(c, "glob"), *path = arg_str(c, "path");
	struct finder f = {0};
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
	find_walk(&f, path, "");
	if (f.nhits > 0)
		qsort(f.hits, f.nhits, sizeof *f.hits, cmp_str);
	for (i = 0; i < f.nhits; i++) {
		say_raw(c, f.hits[i], strlen(f.hits[i]));
		say(c, "\n");
		free(f.hits[i]);
	}
	free(f.hits);
	if (f.nhits == 0)
		say(c, "No paths match %s under %s\n", glob, path);
	if (f.truncated)
		say(c, "[stopped after looking at %d entries; search a narrower path]\n", FIND_VISIT_MAX);
}

/* Definitions and dispatch */

static cJSON *
tool_schema(const struct tool *t)
{
	cJSON *schema = mc_json_new_obj(), *props, *req, *p;
	const struct param *q;

	mc_json_add_str(schema, "type", "object");
	props = mc_json_add(schema, "properties", cJSON_CreateObject());
	req = mc_json_add(schema, "required", cJSON_CreateArray());
	for (q = t->params; q->name; q++) {
		p = mc_json_add(props, q->name, cJSON_CreateObject());
		mc_json_add_str(p, "type", q->type == P_STR ? "string" : q->type == P_INT ? "integer" : "boolean");
		mc_json_add_str(p, "description", q->desc);
		if (q->type == P_INT) {
			mc_json_add_num(p, "minimum", (double)q->min);
			if (q->max != LONG_MAX)
				mc_json_add_num(p, "maximum", (double)q->max);
		}
		if (q->required)
			mc_json_push(req, mc_json_new_str(q->name));
	}
	mc_json_add(schema, "additionalProperties", cJSON_CreateFalse());
	return schema;
}

static int
cmd_list(const struct mc_settings *s, int pretty)
{
	cJSON *arr = mc_json_new_arr(), *t;
	size_t i;
	int rc;

	for (i = 0; i < NTOOLS; i++) {
		if (mc_settings_listed(s, "tools.disabled", tools[i].name))
			continue;
		t = mc_json_push(arr, mc_json_new_obj());
		mc_json_add_str(t, "name", tools[i].name);
		mc_json_add_str(t, "description", tools[i].desc);
		mc_json_add(t, "parameters", tool_schema(&tools[i]));
	}
	rc = mc_json_write(stdout, arr, pretty);
	cJSON_Delete(arr);
	return rc == -1 && errno != EPIPE ? MC_EXIT_FAIL : MC_EXIT_OK;
}

/* Check the arguments against the definition; a problem goes to the model. */
static int
check_args(struct call *c, const struct tool *t)
{
	const struct param *q;
	const cJSON *v;
	double d;

	cJSON_ArrayForEach(v, c->args) {
		for (q = t->params; q->name; q++)
			if (strcmp(q->name, v->string) == 0)
				break;
		if (q->name == NULL) {
			say(c, "error: %s has no argument \"%s\"; its arguments are", t->name, v->string);
			for (q = t->params; q->name; q++)
				say(c, "%s %s", q == t->params ? "" : ",", q->name);
			say(c, "\n");
			return -1;
		}
	}
	for (q = t->params; q->name; q++) {
		v = cJSON_GetObjectItemCaseSensitive(c->args, q->name);
		if (v == NULL || cJSON_IsNull(v)) {
			if (q->required) {
				say(c, "error: %s needs the argument \"%s\"\n", t->name, q->name);
				return -1;
			}
			continue;
		}
		switch (q->type) {
		case P_STR:
			if (!cJSON_IsString(v)) {
				say(c, "error: %s: argument \"%s\" must be a string\n", t->name, q->name);
				return -1;
			}
			break;
		case P_BOOL:
			if (!cJSON_IsBool(v)) {
				say(c, "error: %s: argument \"%s\" must be true or false\n", t->name, q->name);
				return -1;
			}
			break;
		case P_INT:
			d = v->valuedouble;
			if (!cJSON_IsNumber(v) || d < (double)q->min || d > 1e15 || d != (double)(long long)d ||
			    (q->max != LONG_MAX && d > (double)q->max)) {
				if (q->max != LONG_MAX)
					say(c, "error: %s: argument \"%s\" must be an integer from %ld to %ld\n",
					    t->name, q->name, q->min, q->max);
				else
					say(c, "error: %s: argument \"%s\" must be an integer of at least %ld\n",
					    t->name, q->name, q->min);
				return -1;
			}
			break;
		}
	}
	return 0;
}

static void
tool_names(struct call *c, const struct mc_settings *s)
{
	size_t i;
	int n = 0;

	for (i = 0; i < NTOOLS; i++)
		if (!mc_settings_listed(s, "tools.disabled", tools[i].name))
			say(c, "%s%s", n++ ? ", " : "", tools[i].name);
	if (n == 0)
		say(c, "none");
}

static int
write_output(const char *call_id, struct call *c)
{
	cJSON *item = mc_json_new_obj();
	char *text;
	int rc;

	if ((text = mc_clip_text(c->out.data ? c->out.data : "", c->out.len, MC_CLIP_MAX, NULL)) == NULL)
		mc_oom();
	mc_json_add_str(item, "type", "function_call_output");
	mc_json_add_str(item, "call_id", call_id);
	mc_json_add_str(item, "output", text);
	free(text);
	rc = mc_json_write(stdout, item, 0);
	cJSON_Delete(item);
	if (rc == 0)
		fflush(stdout);
	return rc;
}

static int
cmd_call(const struct mc_settings *s, const char *root, FILE *touched_fp)
{
	struct call c = { .root = root };
	const struct tool *t = NULL;
	const char *type, *call_id, *name;
	cJSON *item, *args = NULL, *a;
	char err[256], *p;
	int empty, status = MC_EXIT_OK;
	size_t i;

	if ((item = mc_json_read_fd(0, &empty, err, sizeof err)) == NULL) {
		if (empty)
			mc_err("stdin: expected a function_call item, got nothing");
		else
			mc_err("stdin: %s", err);
		return MC_EXIT_FAIL;
	}
	type = mc_json_str(item, "type");
	call_id = mc_json_str(item, "call_id");
	name = mc_json_str(item, "name");
	a = cJSON_GetObjectItemCaseSensitive(item, "arguments");
	if (!cJSON_IsObject(item) || type == NULL || strcmp(type, "function_call") != 0) {
		mc_err("stdin: expected an item of type \"function_call\"");
		cJSON_Delete(item);
		return MC_EXIT_FAIL;
	}
	if (call_id == NULL || *call_id == '\0' || name == NULL || !(cJSON_IsString(a) || cJSON_IsObject(a))) {
		mc_err("stdin: a function_call needs string members call_id, name and arguments");
		cJSON_Delete(item);
		return MC_EXIT_FAIL;
	}
	for (i = 0; i < NTOOLS; i++)
		if (strcmp(tools[i].name, name) == 0)
			t = &tools[i];
	if (t == NULL || mc_settings_listed(s, "tools.disabled", name)) {
		/* Our failure, but the driver may still hand this output to the model. */
		if (t == NULL) {
			mc_err("unknown tool: %s", name);
			say(&c, "error: there is no tool named \"%s\"; the tools are: ", name);
		} else {
			mc_err("tool disabled by tools.disabled in %s: %s", s->path, name);
			say(&c, "error: the %s tool is disabled in this session; the tools are: ", name);
		}
		tool_names(&c, s);
		say(&c, "\n");
		status = MC_EXIT_FAIL;
		goto done;
	}

	if (cJSON_IsObject(a))
		args = cJSON_Duplicate(a, 1);
	else {
		for (p = a->valuestring; *p && strchr(" \t\r\n", *p); p++)
			;
		args = *p ? mc_json_parse(a->valuestring, strlen(a->valuestring), err, sizeof err) :
		    cJSON_CreateObject();
		if (args == NULL) {
			say(&c, "error: the arguments of this %s call are not valid JSON (%s); "
			    "send one JSON object, e.g. {\"%s\":...}\n", name, err, t->params[0].name);
			goto done;
		}
		/* cJSON would cut a string at it: "a\u0000b" would name the file a. */
		if (mc_json_nul_escape(a->valuestring, strlen(a->valuestring)) != NULL) {
			say(&c, "error: the arguments of this %s call hold a NUL character (\\u0000); "
			    "no path, pattern or text may contain one\n", name);
			goto done;
		}
	}
	if (!cJSON_IsObject(args)) {
		say(&c, "error: the arguments of this %s call must be a JSON object\n", name);
		goto done;
	}
	c.args = args;
	if (check_args(&c, t) == 0)
		t->run(&c);
done:
	if (touched_fp != NULL && c.touched.len > 0 &&
	    fwrite(c.touched.data, 1, c.touched.len, touched_fp) != c.touched.len)
		status = MC_EXIT_FAIL;
	if (write_output(call_id, &c) == -1 && errno != EPIPE)
		status = MC_EXIT_FAIL;
	if (c.interrupted)
		status = MC_EXIT_INTR;
	mc_buf_free(&c.out);
	mc_buf_free(&c.touched);
	cJSON_Delete(args);
	cJSON_Delete(item);
	return status;
}

int
main(int argc, char *argv[])
{
	enum { OPT_PRETTY = 256, OPT_TOUCHED };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "pretty", no_argument, NULL, OPT_PRETTY },
		{ "touched-out", required_argument, NULL, OPT_TOUCHED },
		{ "version", no_argument, NULL, MC_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	const char *dir = NULL, *touched = NULL, *sub;
	struct mc_settings s;
	FILE *touched_fp = NULL;
	char err[1024], *root;
	int c, pretty = 0, status;
	const cJSON *w;

	mc_init("mc-tool", argv);
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
		case OPT_TOUCHED:
			touched = optarg;
			break;
		default:	/* -h, --version or a bad option */
			return mc_opt_exit(c, usage);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		return mc_usage_error("missing command: list or call");
	sub = argv[0];
	if (strcmp(sub, "list") != 0 && strcmp(sub, "call") != 0)
		return mc_usage_error("unknown command: %s", sub);
	if (argc > 1)
		return mc_usage_error("unexpected argument: %s", argv[1]);
	if (strcmp(sub, "list") == 0 && (dir || touched))
		return mc_usage_error("%s applies to call only", dir ? "-C" : "--touched-out");
	if (strcmp(sub, "call") == 0 && pretty)
		return mc_usage_error("--pretty applies to list only");
	if (touched != NULL && *touched == '\0')
		return mc_usage_error("--touched-out needs a file name");

	if (mc_settings_load(&s, err, sizeof err) == -1) {
		mc_err("%s", err);
		mc_settings_free(&s);
		return MC_EXIT_FAIL;
	}
	cJSON_ArrayForEach(w, s.warnings)
		mc_warn("%s: %s", s.path, w->valuestring);
	/* What a tool runs could print a key into its output, and so into the
	 * session and the next request. */
	mc_env_free(mc_keys_take(&s));
	if (strcmp(sub, "list") == 0) {
		status = cmd_list(&s, pretty);
		mc_settings_free(&s);
		return mc_finish(status);
	}

	/* Opened before the tool runs: paths we could not report are no
	 * reason to change anything. Before -C, like any path given to us. */
	if (touched != NULL && (touched_fp = fopen(touched, "we")) == NULL) {
		mc_err("%s: %s", touched, strerror(errno));
		mc_settings_free(&s);
		return MC_EXIT_FAIL;
	}
	if (dir != NULL && chdir(dir) == -1) {
		mc_err("%s: %s", dir, strerror(errno));
		if (touched_fp != NULL)
			fclose(touched_fp);
		mc_settings_free(&s);
		return MC_EXIT_FAIL;
	}
	if ((root = realpath(".", NULL)) == NULL) {
		mc_err("working directory: %s", strerror(errno));
		if (touched_fp != NULL)
			fclose(touched_fp);
		mc_settings_free(&s);
		return MC_EXIT_FAIL;
	}
	status = cmd_call(&s, root, touched_fp);
	if (touched_fp != NULL && (ferror(touched_fp) | fclose(touched_fp)) != 0) {
		mc_err("%s: %s", touched, strerror(errno));
		if (status == MC_EXIT_OK)
			status = MC_EXIT_FAIL;
	}
	free(root);
	mc_settings_free(&s);
	return mc_finish(status);
}
