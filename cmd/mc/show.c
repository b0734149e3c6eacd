/* show.c: what the driver itself writes on the terminal. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

#include "diag.h"
#include "json.h"
#include "mc.h"
#include "term.h"
#include "utf8.h"

#define ANNOUNCE_MAX 512	/* bytes shown of what a call announced works on */

/* Write text from a file, the model or a stage: filtered on a terminal. */
int
show(const struct driver *d, const char *p, size_t n)
{
	struct mc_term t = {0};
	struct mc_buf b = {0};
	int r;

	if (!d->t.out)
		return fwrite(p, 1, n, stdout) == n ? 0 : -1;
	mc_term_filter(&t, p, n, &b);
	mc_term_flush(&t, &b);
	r = b.len && fwrite(b.data, 1, b.len, stdout) != b.len ? -1 : 0;
	mc_buf_free(&b);
	return r;
}

/* A line of the driver's own on stdout, dim when colour is on. */
void
note(const struct driver *d, const char *fmt, ...)
{
	va_list ap;

	if (d->t.color)
		fputs("\033[2m", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (d->t.color)
		fputs("\033[0m", stdout);
	putchar('\n');
	fflush(stdout);
}

/*
 * On a terminal, a dim line on stderr saying what a call does: its name
 * and its path, command or pattern, escaped and wrapped as the approval
 * preview shows them, cut past ANNOUNCE_MAX bytes with the preview's
 * mark, so that what runs unasked is never hidden or cut unsaid.
 */
void
announce(const struct driver *d, const char *name, const cJSON *call)
{
	static const char *const keys[] = { "path", "command", "pattern", "glob", NULL };
	const char *args = mc_json_str(call, "arguments"), *v = NULL;
	struct mc_buf b = {0}, line = {0};
	char err[64];
	cJSON *a;
	int i, width;

	if (!isatty(STDERR_FILENO))
		return;
	width = term_width(STDERR_FILENO);
	if ((a = mc_json_parse(args ? args : "", args ? strlen(args) : 0, err, sizeof err)) != NULL)
		for (i = 0; keys[i] && v == NULL; i++)
			v = mc_json_str(a, keys[i]);
	mc_buf_printf(&line, "%s %s", name, v ? v : "");
	if (d->t.color)
		mc_buf_adds(&b, "\033[2m");
	show_cut(d, &b, "> ", "  ", line.data, line.len, width, ANNOUNCE_MAX);
	if (d->t.color) {
		b.len--;	/* the colour ends before the newline */
		mc_buf_adds(&b, "\033[0m\n");
	}
	fwrite(b.data, 1, b.len, stderr);
	mc_buf_free(&b);
	mc_buf_free(&line);
	cJSON_Delete(a);
}

/* After an interactive turn: its tokens, one dim line on stderr. */
void
usage_line(const struct driver *d, const struct usage *u)
{
	char cached[80] = "";

	if (u->cached > 0 || u->written > 0)
		snprintf(cached, sizeof cached, u->written > 0 ? " (%lld cached, %lld written to "
		    "the cache)" : " (%lld cached)", u->cached, u->written);
	fprintf(stderr, "%s%lld tokens in%s, %lld out%s\n", d->t.color ? "\033[2m" : "",
	    u->input, cached, u->output, d->t.color ? "\033[0m" : "");
}

/* After an answer from mc-send's cache: one dim line saying it cost
 * nothing, on a terminal. */
void
cached_line(const struct driver *d)
{
	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "%s(answered from the cache: no model call, no tokens spent)%s\n",
	    d->t.color ? "\033[2m" : "", d->t.color ? "\033[0m" : "");
}

/* The code point of the well-formed k-byte sequence at s. */
static unsigned long
code_point(const unsigned char *s, size_t k)
{
	static const unsigned char lead[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	unsigned long c = s[0] & lead[k];
	size_t i;

	for (i = 1; i < k; i++)
		c = c << 6 | (s[i] & 0x3f);
	return c;
}

/*
 * Characters a terminal does not show as themselves: controls (C0, DEL,
 * C1), the bidirectional embeddings, overrides and isolates, and the
 * invisible format characters (zero-width spaces and joiners, line and
 * paragraph separators, byte-order mark, soft hyphen, fillers, tags).
 * Each could hide or reorder part of what the user is asked to allow.
 */
static int
hidden(unsigned long c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0xad ||
	    c == 0x34f || c == 0x61c || c == 0x115f || c == 0x1160 || c == 0x17b4 ||
	    c == 0x17b5 || c == 0x180e || (c >= 0x200b && c <= 0x200f) ||
	    (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) ||
	    c == 0x3164 || c == 0xfeff || c == 0xffa0 || (c >= 0xfff9 && c <= 0xfffb) ||
	    (c >= 0xe0000 && c <= 0xe007f);
}

/* The columns of the terminal at fd, or 80 when it does not say. */
int
term_width(int fd)
{
	struct winsize ws;

	return ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

/* Where the rows being written are: the column, and the room of this
 * row and of the next ones (after cont). */
struct rows {
	int col, avail, next;
};

/*
 * Text onto the rows begun in out, at r's column, each next row after
 * cont: hidden characters and invalid bytes
 * as escapes (\r, \x1b, \u202e), in reverse video when colour is on, a
 * tab as spaces, and a new row where the next character does not fit.
 */
static void
emit(const struct driver *d, struct mc_buf *out, const char *cont, const char *s, size_t n,
    struct rows *r)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	char esc[16];
	unsigned long c;
	size_t k;
	int w;

	for (; p < end; p += k) {
		esc[0] = '\0';
		if ((k = mc_utf8_seqlen((const char *)p, (size_t)(end - p))) == 0) {
			snprintf(esc, sizeof esc, "\\x%02x", *p);
			k = 1;
			c = 0xfffd;
		} else if ((c = code_point(p, k)) != '\t' && hidden(c)) {
			if (c == '\r' || c == '\n')
				snprintf(esc, sizeof esc, "\\%c", c == '\r' ? 'r' : 'n');
			else if (c < 0x80)
				snprintf(esc, sizeof esc, "\\x%02lx", c);
			else
				snprintf(esc, sizeof esc, c > 0xffff ? "\\U%08lx" : "\\u%04lx", c);
		}
		if (esc[0])
			w = (int)strlen(esc);
		else if (c == '\t')
			w = 8 - r->col % 8;
		else if ((w = wcwidth((wchar_t)c)) < 0)
			w = 1;
		if (r->col > 0 && r->col + w > r->avail) {
			mc_buf_addc(out, '\n');
			mc_buf_adds(out, cont);
			r->col = 0;
			r->avail = r->next;
			if (c == '\t' && !esc[0])
				w = 8;
		}
		if (esc[0])
			mc_buf_printf(out, "%s%s%s", d->t.color ? "\033[7m" : "", esc,
			    d->t.color ? "\033[27m" : "");
		else if (c == '\t')
			mc_buf_printf(out, "%*s", w, "");
		else
			mc_buf_add(out, p, k);
		r->col += w;
	}
}

/* The columns of a row width columns wide after gutter: the last is left
 * free, since a terminal that wraps on it would count the row twice. */
static int
row_room(const char *gutter, int width)
{
	int avail = width - 1 - (int)strlen(gutter);

	return avail < 16 ? 16 : avail;
}

/*
 * One line of text (a newline in it is shown escaped, a tab as spaces)
 * as rows narrower than width columns: the first after gutter, the
 * others after cont; each row ends in a newline.
 * Nothing is cut: hidden characters and invalid bytes are shown as
 * escapes, so that all of the text is there to read.
 */
void
show_rows(const struct driver *d, struct mc_buf *out, const char *gutter, const char *cont,
    const char *s, size_t n, int width)
{
	struct rows r = { 0, row_room(gutter, width), row_room(cont, width) };

	mc_buf_adds(out, gutter);
	emit(d, out, cont, s, n, &r);
	mc_buf_addc(out, '\n');
}

/*
 * The same for prose: rows are broken between words (at spaces), a word
 * only when it is wider than a row.
 */
void
show_words(const struct driver *d, struct mc_buf *out, const char *gutter, const char *cont,
    const char *s, size_t n, int width)
{
	const char *end = s + n, *sp;
	struct mc_buf scratch = {0};
	struct rows r = { 0, row_room(gutter, width), row_room(cont, width) }, word;

	mc_buf_adds(out, gutter);
	for (; s < end; s = sp + 1) {
		if ((sp = memchr(s, ' ', (size_t)(end - s))) == NULL)
			sp = end;
		word = (struct rows){ 0, 1 << 30, 1 << 30 };
		scratch.len = 0;
		emit(d, &scratch, "", s, (size_t)(sp - s), &word);
		if (r.col > 0 && r.col + 1 + word.col > r.avail) {
			mc_buf_addc(out, '\n');
			mc_buf_adds(out, cont);
			r.col = 0;
			r.avail = r.next;
		} else if (r.col > 0) {
			mc_buf_addc(out, ' ');
			r.col++;
		}
		emit(d, out, cont, s, (size_t)(sp - s), &r);
	}
	mc_buf_free(&scratch);
	mc_buf_addc(out, '\n');
}

/* show_rows of s cut past cap bytes (when cap is not 0) where a character
 * starts, then a row saying how much more there is. */
void
show_cut(const struct driver *d, struct mc_buf *out, const char *gutter, const char *cont,
    const char *s, size_t n, int width, size_t cap)
{
	size_t cut = n;

	if (cap > 0 && cut > cap)
		cut = mc_utf8_floor(s, cap);
	show_rows(d, out, gutter, cont, s, cut, width);
	if (cut < n)
		mc_buf_printf(out, "%s[... %zu more bytes on this line]\n", cont, n - cut);
}

/* The width of the character at p (k bytes, c its code point; 0 when
 * hidden or invalid, then left out of a fold). */
static int
fold_width(unsigned long c, size_t k)
{
	int w;

	if (k == 0 || hidden(c))
		return 0;
	return (w = wcwidth((wchar_t)c)) < 0 ? 0 : w;
}

/*
 * One line of text as one row: its end, as much of it as fits in width
 * columns less one (the start cut, "…" in its place), without hidden
 * characters or invalid bytes. For a fold, redrawn in place.
 */
void
show_fold(struct mc_buf *out, const char *s, size_t n, int width)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n, *from;
	int total = 0, avail = width - 2 < 8 ? 8 : width - 2;
	unsigned long c;
	size_t k;

	for (from = p; from < end; from += k) {
		k = mc_utf8_seqlen((const char *)from, (size_t)(end - from));
		c = k ? code_point(from, k) : 0;
		total += fold_width(c, k);
		k = k ? k : 1;
	}
	for (from = p; total > avail && from < end; from += k) {
		k = mc_utf8_seqlen((const char *)from, (size_t)(end - from));
		c = k ? code_point(from, k) : 0;
		total -= fold_width(c, k);
		k = k ? k : 1;
	}
	if (from > p)
		mc_buf_adds(out, "\xe2\x80\xa6");
	for (; from < end; from += k) {
		k = mc_utf8_seqlen((const char *)from, (size_t)(end - from));
		c = k ? code_point(from, k) : 0;
		if (k > 0 && !hidden(c) && wcwidth((wchar_t)c) >= 0)
			mc_buf_add(out, (const char *)from, k);
		k = k ? k : 1;
	}
}
