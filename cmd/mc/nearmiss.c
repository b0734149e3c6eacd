/* nearmiss.c: a one-word prompt that looks like a subcommand mistyped (`mc session`, `mc help`) is warned about before it goes to the model. */
#include <ctype.h>
#include <string.h>

#include "diag.h"
#include "mc.h"

#define WORD_MAX 32

/* The edit distance of a and b (insert, delete, replace, swap two), both
 * shorter than WORD_MAX. */
static int
distance(const char *a, const char *b)
{
	int d[WORD_MAX + 1][WORD_MAX + 1], n = (int)strlen(a), m = (int)strlen(b), i, j, c;

	for (i = 0; i <= n; i++)
		d[i][0] = i;
	for (j = 0; j <= m; j++)
		d[0][j] = j;
	for (i = 1; i <= n; i++)
		for (j = 1; j <= m; j++) {
			c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < c)
				c = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < c)
				c = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < c)
				c = d[i - 2][j - 2] + 1;
			d[i][j] = c;
		}
	return d[n][m];
}

/*
 * Warn when word, the whole prompt, is one of the suite's commands
 * mistyped, or a command other tools have: it is sent all the same
 * (`mc -- WORD` sends it without the warning).
 */
void
near_miss(const char *word)
{
	static const struct { const char *word, *meant; int near; } known[] = {
		{ "prompt", "mc prompt", 1 }, { "sessions", "mc sessions", 2 },
		{ "help", "mc --help", 0 }, { "version", "mc --version", 0 },
		{ "models", "mc models", 1 }, { "model", "mc models, or mc -m MODEL", 0 },
		{ "completion", "mc completion bash|zsh|fish", 2 }, { "rewind", "mc rewind", 1 },
	};
	char w[WORD_MAX];
	size_t i, n = strlen(word);

	if (n < 3 || n >= WORD_MAX)
		return;
	for (i = 0; i < n; i++) {
		if (!isalpha((unsigned char)word[i]))
			return;
		w[i] = (char)tolower((unsigned char)word[i]);
	}
	w[n] = '\0';
	for (i = 0; i < sizeof known / sizeof known[0]; i++)
		if (distance(w, known[i].word) <= known[i].near) {
			mc_warn("\"%s\" goes to the model as a prompt; did you mean %s? (mc -- %s "
			    "sends it without this warning)", word, known[i].meant, word);
			return;
		}
}
