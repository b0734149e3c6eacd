/* term: the terminal filter removes control sequences, whole or split. */
#include <stdio.h>
#include <string.h>

#include "term.h"

static const struct {
	const char *in, *want;
} cases[] = {
	{ "plain text\n", "plain text\n" },
	{ "tab\there", "tab\there" },
	{ "caf\xc3\xa9 \xe2\x9c\x93", "caf\xc3\xa9 \xe2\x9c\x93" },
	{ "red \x1b[31mALERT\x1b[0m done", "red ALERT done" },
	{ "\x1b[2J\x1b[Hcleared", "cleared" },
	{ "title\x1b]0;pwned\x07 after", "title after" },
	{ "link \x1b]8;;http://x\x1b\\text\x1b]8;;\x1b\\", "link text" },
	{ "dcs \x1bPq#0;2;0;0;0\x1b\\end", "dcs end" },
	{ "keypad \x1b=x", "keypad x" },
	{ "charset \x1b(Bx", "charset x" },
	{ "c1 csi \xc2\x9b" "31mred", "c1 csi red" },
	{ "c1 osc \xc2\x9d" "0;t\xc2\x9cok", "c1 osc ok" },
	{ "bell\x07 bs\x08 cr\r del\x7f", "bell bs cr del" },
	{ "bad \xff byte", "bad \xef\xbf\xbd byte" },
	{ "cut \xe2\x9c", "cut \xef\xbf\xbd" },
	{ "short \xe2x", "short \xef\xbf\xbdx" },
	{ "esc newline \x1b\nnext", "esc newline \nnext" },
	{ "csi broken \x1b[12\nnext", "csi broken \nnext" },
};

static int
run(const char *in, size_t step, const char *want)
{
	struct mc_term t = {0};
	struct mc_buf out = {0};
	size_t i, n = strlen(in), k;
	int bad;

	for (i = 0; i < n; i += k) {
		k = n - i < step ? n - i : step;
		mc_term_filter(&t, in + i, k, &out);
	}
	mc_term_flush(&t, &out);
	bad = strcmp(out.data ? out.data : "", want) != 0;
	mc_buf_free(&out);
	return bad;
}

int
main(void)
{
	size_t i, step;
	int fail = 0;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		for (step = 1; step <= 4; step++)
			if (run(cases[i].in, step == 4 ? 1000 : step, cases[i].want)) {
				printf("term: case %zu, chunks of %zu: wrong output\n", i, step);
				fail = 1;
				break;
			}
	/* A sequence that never ends must not swallow the rest forever. */
	{
		char in[5000 + 16];
		struct mc_term t = {0};
		struct mc_buf out = {0};

		memcpy(in, "\x1b]", 2);
		memset(in + 2, 'a', 5000);
		strcpy(in + 5002, "VISIBLE");
		mc_term_filter(&t, in, strlen(in), &out);
		if (out.data == NULL || strstr(out.data, "VISIBLE") == NULL) {
			printf("term: an endless OSC hid the text after it\n");
			fail = 1;
		}
		mc_buf_free(&out);
	}
	return fail;
}
