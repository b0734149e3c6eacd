/* t/unit/utf8.c: tables of well-formed, ill-formed and cut-off UTF-8 sequences. */
#include <stdio.h>
#include <string.h>

#include "utf8.h"

static const struct {
	const char *s;
	int valid;
} cases[] = {
	{ "", 1 },
	{ "plain ascii", 1 },
	{ "caf\xc3\xa9", 1 },
	{ "\xe2\x82\xac", 1 },			/* euro sign */
	{ "\xf0\x9f\x98\x80", 1 },		/* U+1F600 */
	{ "\xf4\x8f\xbf\xbf", 1 },		/* U+10FFFF */
	{ "\xef\xbb\xbf", 1 },			/* BOM is well-formed */
	{ "\xc3", 0 },				/* truncated */
	{ "\xe2\x82", 0 },
	{ "\x80", 0 },				/* lone continuation */
	{ "\xc0\xaf", 0 },			/* overlong '/' */
	{ "\xc1\xbf", 0 },
	{ "\xe0\x80\xaf", 0 },			/* overlong */
	{ "\xf0\x80\x80\xaf", 0 },		/* overlong */
	{ "\xed\xa0\x80", 0 },			/* surrogate U+D800 */
	{ "\xed\xbf\xbf", 0 },			/* surrogate U+DFFF */
	{ "\xf4\x90\x80\x80", 0 },		/* U+110000 */
	{ "\xf5\x80\x80\x80", 0 },
	{ "\xff", 0 },
	{ "ok\xe9", 0 },			/* Latin-1 */
	{ "\xe2\x28\xa1", 0 },			/* bad second byte */
};

/* The start of a sequence cut off at the end of a buffer, or not. */
static const struct {
	const char *s;
	int incomplete;
} pieces[] = {
	{ "", 0 },
	{ "a", 0 },
	{ "\xc3", 1 },
	{ "\xc3\xa9", 0 },			/* whole */
	{ "\xe2\x82", 1 },
	{ "\xe0\x80", 0 },			/* would be overlong */
	{ "\xed\xa0", 0 },			/* would be a surrogate */
	{ "\xf0\x9f\x98", 1 },
	{ "\xf4\x90", 0 },			/* above U+10FFFF */
	{ "\xf0\x9f\x28", 0 },		/* bad third byte */
	{ "\x80", 0 },
	{ "\xc1", 0 },
	{ "\xf5", 0 },
};

int
main(void)
{
	size_t i;
	int fail = 0;

	for (i = 0; i < sizeof pieces / sizeof pieces[0]; i++)
		if (mc_utf8_incomplete(pieces[i].s, strlen(pieces[i].s)) != pieces[i].incomplete) {
			printf("utf8: piece %zu: want incomplete %d\n", i, pieces[i].incomplete);
			fail = 1;
		}

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int got = mc_utf8_valid(cases[i].s, strlen(cases[i].s));

		if (got != cases[i].valid) {
			printf("utf8: case %zu: got %d, want %d\n", i, got, cases[i].valid);
			fail = 1;
		}
	}
	if (!mc_utf8_valid("a\0b", 3)) {
		printf("utf8: NUL inside the text must be well-formed\n");
		fail = 1;
	}
	return fail;
}
