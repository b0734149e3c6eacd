/* recap.c: a resumed session's last exchange (the user's last message and the answer to it), shown before the first prompt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "mc.h"

#define RECAP_LINES 4		/* lines of each side shown */
#define RECAP_LINE_CAP 400	/* bytes of one line shown */

/* Up to RECAP_LINES lines of text after gutter (the first) and cont,
 * then how many more there are. */
static void
side(const struct driver *d, struct mc_buf *out, const char *gutter, const char *cont,
    const char *text, int width)
{
	const char *p = text + strspn(text, "\n"), *nl;
	size_t n;
	int k = 0;

	for (; *p != '\0' && k < RECAP_LINES; p = *nl ? nl + 1 : nl, k++) {
		nl = p + strcspn(p, "\n");
		n = (size_t)(nl - p);
		show_cut(d, out, k == 0 ? gutter : cont, cont, p, n, width, RECAP_LINE_CAP);
	}
	if (k == 0)
		show_rows(d, out, gutter, cont, "", 0, width);
	for (n = 0; *p != '\0'; p += strcspn(p, "\n"), p += *p == '\n')
		n++;
	if (n > 0)
		mc_buf_printf(out, "%s[... %zu more line%s]\n", cont, n, n == 1 ? "" : "s");
}

/* Scanned from the end: the last turn, the last answer after it and the
 * calls between (*turn and *answer the caller's, NULL when none). */
static void
last_exchange(const struct mc_buf *lines, cJSON **turn, cJSON **answer, long long *calls)
{
	const char *start = lines->data, *q = start + lines->len, *p;
	const char *type, *role;
	char perr[64];
	cJSON *item;

	*turn = *answer = NULL;
	*calls = 0;
	for (; start != NULL && q > start && *turn == NULL; q = p) {
		p = mc_session_line_before(start, q);
		if (memmem(p, (size_t)(q - p), "\"user\"", 6) == NULL &&
		    memmem(p, (size_t)(q - p), "\"assistant\"", 11) == NULL &&
		    memmem(p, (size_t)(q - p), "\"function_call\"", 15) == NULL)
			continue;
		if ((item = mc_json_parse(p, (size_t)(q - p), perr, sizeof perr)) == NULL)
			continue;
		type = mc_json_str(item, "type");
		role = mc_json_str(item, "role");
		if (mc_session_is_turn(item)) {
			*turn = item;
			continue;
		}
		if (type && strcmp(type, "function_call") == 0)
			(*calls)++;
		else if (*answer == NULL && type && role && strcmp(type, "message") == 0 &&
		    strcmp(role, "assistant") == 0 && mc_json_str(item, "content") != NULL) {
			*answer = item;
			continue;
		}
		cJSON_Delete(item);
	}
}

void
recap(const struct driver *d, FILE *ui)
{
	const char *dim = d->t.color ? "\033[2m" : "", *off = d->t.color ? "\033[0m" : "";
	struct mc_buf out = {0};
	cJSON *turn, *answer;
	long long calls;
	int width = term_width(fileno(ui));

	last_exchange(&d->s.file.lines, &turn, &answer, &calls);
	if (turn == NULL) {
		cJSON_Delete(answer);
		return;
	}
	mc_buf_printf(&out, "%slast exchange of this session:\n", dim);
	side(d, &out, "  you> ", "       ", mc_json_str(turn, "content"), width);
	if (calls > 0)
		mc_buf_printf(&out, "       (%lld tool call%s)\n", calls, calls == 1 ? "" : "s");
	if (answer != NULL)
		side(d, &out, "   mc> ", "       ", mc_json_str(answer, "content"), width);
	else
		mc_buf_adds(&out, "   mc> (no answer)\n");
	mc_buf_adds(&out, off);
	fwrite(out.data, 1, out.len, ui);
	fflush(ui);
	mc_buf_free(&out);
	cJSON_Delete(turn);
	cJSON_Delete(answer);
}
