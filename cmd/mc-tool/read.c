/* read.c: the read tool: a text file, or a skill's file through mc-skills, as numbered lines a page at a time. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clip.h"
#include "diag.h"
#include "fsread.h"
#include "http.h"
#include "image.h"
#include "json.h"
#include "mc-tool.h"
#include "pipeline.h"
#include "proc.h"
#include "utf8.h"

#define READ_BUDGET (MC_CLIP_MAX - 512)	/* read output, so the output cap never cuts a page */
#define LINE_CAP 8192			/* longer lines are shown cut */
#define COUNT_MAX (64u << 20)		/* lines are counted this far for "of N" */
#define SCAN_MAX (1ull << 30)		/* read gives up looking for its lines here */
#define SKILL_MAX ((1u << 20) + 4096)	/* mc-skills caps a skill file at 1 MiB */
#define SKILL_ERR_MAX 4096		/* of mc-skills' stderr, shown to the model */
#define SKILLS_TIMEOUT_MS 30000


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
	if (pg->first && (pg->out->len + e.len > READ_BUDGET || pg->content + k > MC_PAGE_BYTES)) {
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

/* What mc-skills printed (more than SKILL_MAX: stopped), its stderr
 * aside, and whether it took too long. */
struct skill_run {
	struct mc_buf text;
	struct timespec start;
	int timed_out;
	volatile sig_atomic_t stop;
};

static void
skill_tick(void *arg)
{
	struct skill_run *k = arg;

	if (mc_ms_since(&k->start) >= SKILLS_TIMEOUT_MS) {
		k->timed_out = 1;
		k->stop = 1;
	}
}

/* Up to SKILL_ERR_MAX bytes of what fd (a file) holds, without its final
 * newlines; malloc'ed. */
static char *
read_back(int fd)
{
	char *s;
	ssize_t n;

	if ((s = malloc(SKILL_ERR_MAX + 1)) == NULL)
		mc_oom();
	n = pread(fd, s, SKILL_ERR_MAX, 0);
	if (n < 0)
		n = 0;
	while (n > 0 && s[n - 1] == '\n')
		n--;
	s[n] = '\0';
	return s;
}

/* mc-skills read URI, run as a plain filter: its stdout is the text. */
static void
read_skill(struct call *c, const char *uri, long offset, long limit)
{
	char *argv[] = { "mc-skills", "read", (char *)uri, NULL };
	struct skill_run k = {0};
	struct mc_filter f = { .collect = &k.text, .cap = SKILL_MAX, .tick = skill_tick,
	    .tick_ms = 100, .arg = &k, .stop = &k.stop };
	char err[256], *prog, *etext;
	struct pager pg;
	int status;

	if ((prog = mc_proc_sibling("mc-skills")) == NULL) {
		say(c, "error: cannot read %s: mc-skills is not installed (not beside mc-tool nor on PATH)\n", uri);
		return;
	}
	free(prog);
	/* A file, not a pipe: what it writes there can never block it. */
	if ((f.err_fd = memfd_create("mc-skills-stderr", MFD_CLOEXEC)) == -1) {
		say(c, "error: cannot read %s: memfd_create: %s\n", uri, strerror(errno));
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &k.start);
	if (mc_filter_run(argv, &f, &status, err, sizeof err) == -1) {
		say(c, "error: cannot read %s: %s\n", uri, err);
	} else if (k.text.len > SKILL_MAX) {
		say(c, "error: %s is over the %u-byte limit\n", uri, SKILL_MAX);
	} else if (k.timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		etext = read_back(f.err_fd);
		if (*etext)
			say(c, "error: cannot read %s: %s\n", uri, etext);
		else
			say(c, "error: cannot read %s: mc-skills failed%s\n", uri,
			    k.timed_out ? " (timed out)" : "");
		free(etext);
	} else {
		pager_init(&pg, &c->out, offset, limit);
		pager_feed(&pg, k.text.data ? k.text.data : "", k.text.len);
		pager_end(&pg, c, uri);
	}
	close(f.err_fd);
	mc_buf_free(&k.text);
}

/*
 * A file whose first bytes are an image's (PNG, JPEG, GIF, WebP): read
 * whole, at most MC_IMAGE_MAX, and given back as an image (base64 in
 * the output item's "image_data"), not as lines. 1 when it was one (said
 * either way), 0 when not.
 */
static int
read_image(struct call *c, int fd, const char *path, const struct stat *st)
{
	unsigned char head[16];
	const char *mt, *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct mc_buf raw = {0};
	ssize_t n;

	if ((n = pread(fd, head, sizeof head, 0)) <= 0 || (mt = mc_image_type(head, (size_t)n)) == NULL)
		return 0;
	if (st->st_size > (off_t)MC_IMAGE_MAX) {
		say(c, "error: %s is an image (%s) of %lld bytes, over the %u-byte (20 MiB) limit "
		    "for one; not shown\n", path, mt, (long long)st->st_size, MC_IMAGE_MAX);
		return 1;
	}
	if (mc_fd_slurp(fd, MC_IMAGE_MAX, &raw) == -1) {
		say(c, "error: %s: %s\n", path, errno == EFBIG ? "over the 20 MiB limit for an image" :
		    strerror(errno));
		mc_buf_free(&raw);
		return 1;
	}
	mc_base64_encode(raw.data ? raw.data : "", raw.len, &c->image);
	c->image_type = mt;
	c->image_name = mc_strdup(base);
	say(c, "%s: an image (%s, %zu bytes), given to you as an image\n", path, mt, raw.len);
	mc_buf_free(&raw);
	return 1;
}

void
tool_read(struct call *c)
{
	const char *path = arg_str(c, "path");
	long offset = arg_int(c, "offset", 1), limit = arg_int(c, "limit", MC_PAGE_LINES);
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
	/* --buffer-in: the editor's text of the file, read as the file
	 * (through a descriptor of its own, closed as the file's is). */
	if (c->buffer_in != -1) {
		if ((fd = fcntl(c->buffer_in, F_DUPFD_CLOEXEC, 0)) == -1) {
			say(c, "error: %s: %s\n", path, strerror(errno));
			return;
		}
		memset(&st, 0, sizeof st);
		goto page;
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
	if (read_image(c, fd, path, &st)) {
		close(fd);
		if ((canon = realpath(path, NULL)) != NULL)
			touch(c, canon);
		free(canon);
		return;
	}
page:
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
		if (first && mc_looks_binary(buf, (size_t)n)) {
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

