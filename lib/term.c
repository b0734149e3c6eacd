/* term.c: strip terminal control sequences from streamed text. */
#include <string.h>

#include "term.h"
#include "utf8.h"

enum { T_TEXT, T_ESC, T_ESCI, T_CSI, T_STR, T_STRESC };

/* Longest sequences swallowed; past them the rest is shown as text, so a
 * stray ESC cannot hide the remainder of an answer. */
#define CSI_MAX 64
#define STR_MAX 4096

static const char replacement[] = "\xef\xbf\xbd";

/* A C1 control (U+0080..U+009F), which some terminals obey like ESC + c. */
static int
c1(const unsigned char *s, size_t n)
{
	return n == 2 && s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f ? s[1] : 0;
}

static void
c1_start(struct mc_term *t, int c)
{
	t->seqlen = 0;
	if (c == 0x9b)
		t->state = T_CSI;
	else if (c == 0x90 || c == 0x98 || c == 0x9d || c == 0x9e || c == 0x9f)
		t->state = T_STR;
}

/* One complete character (an ASCII byte or a valid UTF-8 sequence). */
static void
put(struct mc_term *t, const unsigned char *s, size_t n, struct mc_buf *out)
{
	int c = n == 1 ? s[0] : -1, k = c1(s, n);

	switch (t->state) {
	case T_ESC:
		t->state = T_TEXT;
		if (c == '[') {
			t->state = T_CSI;
			t->seqlen = 0;
		} else if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') {
			t->state = T_STR;
			t->seqlen = 0;
		} else if (c >= 0x20 && c <= 0x2f) {
			t->state = T_ESCI;
			t->seqlen = 0;
		} else if (c >= 0x30 && c <= 0x7e)
			;	/* a two-character sequence: drop both */
		else
			put(t, s, n, out);
		return;
	case T_ESCI:
		if (c >= 0x20 && c <= 0x2f && ++t->seqlen < CSI_MAX)
			return;
		t->state = T_TEXT;
		if (!(c >= 0x30 && c <= 0x7e))
			put(t, s, n, out);
		return;
	case T_CSI:
		if (c >= 0x20 && c <= 0x3f && ++t->seqlen < CSI_MAX)
			return;
		t->state = T_TEXT;
		if (!(c >= 0x40 && c <= 0x7e))
			put(t, s, n, out);
		return;
	case T_STR:
		if (c == 0x07 || k == 0x9c)
			t->state = T_TEXT;
		else if (c == 0x1b)
			t->state = T_STRESC;
		else if (++t->seqlen >= STR_MAX)
			t->state = T_TEXT;
		return;
	case T_STRESC:
		t->state = c == '\\' ? T_TEXT : T_STR;
		return;
	}
	if (c == 0x1b)
		t->state = T_ESC;
	else if (k)
		c1_start(t, k);
	else if (!(c >= 0 && (c < 0x20 || c == 0x7f) && c != '\n' && c != '\t'))
		mc_buf_add(out, s, n);
}

void
mc_term_filter(struct mc_term *t, const char *in, size_t n, struct mc_buf *out)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i, len, want;

	for (i = 0; i < n; i++) {
		if (t->npend == 0 && s[i] < 0x80) {
			put(t, s + i, 1, out);
			continue;
		}
		if (t->npend > 0 && (s[i] & 0xc0) != 0x80) {
			/* A sequence cut short by a new character. */
			t->npend = 0;
			if (t->state == T_TEXT)
				mc_buf_adds(out, replacement);
			i--;
			continue;
		}
		t->pend[t->npend++] = s[i];
		want = t->pend[0] >= 0xf0 ? 4 : t->pend[0] >= 0xe0 ? 3 : t->pend[0] >= 0xc0 ? 2 : 1;
		if (t->npend < want)
			continue;
		len = mc_utf8_seqlen((const char *)t->pend, t->npend);
		t->npend = 0;
		if (len == want)
			put(t, t->pend, len, out);
		else if (t->state == T_TEXT)
			mc_buf_adds(out, replacement);
	}
}

void
mc_term_flush(struct mc_term *t, struct mc_buf *out)
{
	int bad = t->npend > 0 && t->state == T_TEXT;

	t->npend = 0;
	t->state = T_TEXT;
	if (bad)
		mc_buf_adds(out, replacement);
}
