/* t/unit/utf8.c: table of well-formed and ill-formed UTF-8 sequences. */
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

int
main(void)
{
	size_t i;
	int fail = 0;

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
