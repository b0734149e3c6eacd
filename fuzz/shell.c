/* fuzz/shell.c: libFuzzer target: mc_shell_parse on any text, and what it splits quoted back splits the same; mc_rule_parse on any text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "rules.h"
#include "shell.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The commands of sh, each word single-quoted, one command a line. */
static void
requote(const struct mc_shell *sh, struct mc_buf *b)
{
	const char *w;
	size_t i, k;

	for (i = 0; i < sh->ncmds; i++) {
		for (k = 0; k < sh->cmds[i].n; k++) {
			mc_buf_adds(b, k ? " '" : "'");
			for (w = sh->cmds[i].words[k]; *w; w++)
				if (*w == '\'')
					mc_buf_adds(b, "'\\''");
				else
					mc_buf_addc(b, *w);
			mc_buf_addc(b, '\'');
		}
		mc_buf_addc(b, '\n');
	}
}

static int
same(const struct mc_shell *a, const struct mc_shell *b)
{
	size_t i, k;

	if (b->ask != NULL || b->ntargets != 0)
		return 0;
	for (i = k = 0; i < a->ncmds; i++)
		k += a->cmds[i].n > 0;	/* a redirection alone is no words */
	if (k != b->ncmds)
		return 0;
	for (i = k = 0; i < a->ncmds; i++) {
		if (a->cmds[i].n == 0)
			continue;
		if (a->cmds[i].n != b->cmds[k].n)
			return 0;
		for (size_t j = 0; j < a->cmds[i].n; j++)
			if (strcmp(a->cmds[i].words[j], b->cmds[k].words[j]) != 0)
				return 0;
		k++;
	}
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_shell sh, again;
	struct mc_buf b = {0};
	struct mc_rule r;
	char err[256], *text, *p;
	size_t i;

	if ((text = malloc(size + 1)) == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	mc_shell_parse(text, &sh);
	for (i = 0; i < sh.ncmds; i++)
		free(mc_rule_prefix_of(&sh.cmds[i]));
	/* Words with no NUL and no newline, quoted back, split the same
	 * (a word holding a reserved word or "eval" may ask: skipped). */
	if (sh.ask == NULL) {
		requote(&sh, &b);
		mc_shell_parse(b.data ? b.data : "", &again);
		p = b.data ? b.data : "";
		if (again.ask == NULL && !same(&sh, &again) && strchr(p, '\0') == p + b.len)
			abort();
		mc_shell_free(&again);
	}
	mc_buf_free(&b);
	mc_shell_free(&sh);
	if (mc_rule_parse(text, &r, err, sizeof err) == 0 && r.text == NULL)
		abort();
	mc_rule_free(&r);
	free(text);
	return 0;
}
