/* clip.c: unit tests for lib/clip.c (UTF-8 repair, streaming, head and tail cut). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "utf8.h"

static int failures;

#define FFFD "\xef\xbf\xbd"

static void
expect(const char *what, const char *got, size_t glen, const char *want, size_t wlen)
{
	if (glen != wlen || memcmp(got, want, wlen) != 0) {
		printf("clip: %s: got %zu bytes \"%.*s\", want %zu bytes \"%.*s\"\n",
		    what, glen, (int)glen, got, wlen, (int)wlen, want);
		failures++;
	}
}

static void
test_repair(void)
{
	static const struct {
		const char *in;
		size_t n;
		const char *want;
	} cases[] = {
		{ "abc", 3, "abc" },
		{ "a\xff" "b", 3, "a" FFFD "b" },
		{ "a\0b", 3, "a" FFFD "b" },
		{ "\xc3", 1, FFFD },
		{ "\xc0\x80", 2, FFFD FFFD },
		{ "\xed\xa0\x80", 3, FFFD FFFD FFFD },
		{ "\xf0\x9f\x98\x80!", 5, "\xf0\x9f\x98\x80!" },
		{ "\xe2\x82" "x", 3, FFFD FFFD "x" },
		{ "caf\xc3\xa9", 5, "caf\xc3\xa9" },
	};
	struct mc_buf b;
	size_t i;
	char name[64];

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		b = (struct mc_buf){0};
		mc_clip_repair(&b, cases[i].in, cases[i].n);
		snprintf(name, sizeof name, "repair case %zu", i);
		expect(name, b.data ? b.data : "", b.len, cases[i].want, strlen(cases[i].want));
		mc_buf_free(&b);
	}
}

/* Feed pieces one add at a time and compare with the expected text. */
static void
stream(const char *what, const char *const pieces[], const char *want)
{
	struct mc_clip c;
	char *s;
	size_t len, i;

	mc_clip_init(&c, 4096);
	for (i = 0; pieces[i]; i++)
		mc_clip_add(&c, pieces[i], strlen(pieces[i]));
	s = mc_clip_finish(&c, &len);
	expect(what, s, len, want, strlen(want));
	free(s);
}

static void
test_stream(void)
{
	static const char *const split2[] = { "caf\xc3", "\xa9!", NULL };
	static const char *const split3[] = { "\xe2", "\x82", "\xac", NULL };
	static const char *const broken[] = { "\xc3", "x", NULL };
	static const char *const atend[] = { "ok\xf0\x9f", NULL };

	stream("sequence split over two adds", split2, "caf\xc3\xa9!");
	stream("sequence split over three adds", split3, "\xe2\x82\xac");
	stream("sequence broken across adds", broken, FFFD "x");
	stream("incomplete sequence at the end", atend, "ok" FFFD FFFD);
}

static void
test_cut(void)
{
	char in[1000], want[512], *s, *one;
	struct mc_clip c;
	size_t len, olen, i, total;

	/* cap 256: 80 bytes of head, 80 of tail, the rest is the marker. */
	memset(in, 'a', sizeof in);
	s = mc_clip_text(in, sizeof in, 256, &len);
	snprintf(want, sizeof want, "%.80s\n[... 840 bytes cut from the middle of this output ...]\n%.80s",
	    in, in);
	expect("plain cut", s, len, want, strlen(want));
	free(s);

	s = mc_clip_text(in, 160, 256, &len);
	expect("at the cap: not cut", s, len, in, 160);
	free(s);

	/* A character across the head's end, all within the cap: nothing lost. */
	memset(in, 'a', 79);
	memcpy(in + 79, "\xc3\xa9", 2);
	memset(in + 81, 'b', 79);
	s = mc_clip_text(in, 160, 256, &len);
	expect("character across the head's end", s, len, in, 160);
	free(s);

	/* Three-byte characters: no character is split, the count is exact. */
	for (i = 0; i + 3 <= sizeof in; i += 3)
		memcpy(in + i, "\xe2\x82\xac", 3);
	total = i;
	s = mc_clip_text(in, total, 256, &len);
	want[0] = '\0';
	for (i = 0; i < 26; i++)
		strcat(want, "\xe2\x82\xac");
	strcat(want, "\n[... 843 bytes cut from the middle of this output ...]\n");
	for (i = 0; i < 26; i++)
		strcat(want, "\xe2\x82\xac");
	expect("multibyte cut", s, len, want, strlen(want));
	free(s);

	/* Line ends near the cut are preferred. */
	for (i = 0; i < sizeof in; i++)
		in[i] = i % 10 == 9 ? '\n' : '0' + (char)(i % 10);
	s = mc_clip_text(in, sizeof in, 256, &len);
	snprintf(want, sizeof want, "%.80s[... 840 bytes cut from the middle of this output ...]\n%.80s",
	    in, in + sizeof in - 80);
	expect("cut at line ends", s, len, want, strlen(want));
	free(s);

	/* One byte at a time gives what one add gives. */
	for (i = 0; i < sizeof in; i++)
		in[i] = "ab\xc3\xa9\xe2\x82\xac\n\xff"[i % 9];
	one = mc_clip_text(in, sizeof in, 300, &olen);
	mc_clip_init(&c, 300);
	for (i = 0; i < sizeof in; i++)
		mc_clip_add(&c, in + i, 1);
	s = mc_clip_finish(&c, &len);
	expect("bytewise adds", s, len, one, olen);
	if (!mc_utf8_valid(s, len)) {
		printf("clip: bytewise adds: invalid UTF-8\n");
		failures++;
	}
	free(s);
	free(one);
}

int
main(void)
{
	test_repair();
	test_stream();
	test_cut();
	return failures != 0;
}
