/*
 * title.c: session titles: the first prompt's first line cut at
 * TITLE_CHARS characters, in the session's header; /title TEXT (repl.c)
 * appends the bookkeeping line {"type":"title","title":TEXT} (the last one
 * counts). A compacted session's header carries the title on.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "mc.h"
#include "utf8.h"

#define TITLE_CHARS 60

/* The first line of text holding more than blanks, its ends trimmed, at
 * most TITLE_CHARS characters; NULL when there is none. */
char *
title_of(const char *text)
{
	const char *p = text, *e;
	size_t n, i, k, chars;

	for (;; p = e + 1) {
		p += strspn(p, " \t\r\f\v");
		e = p + strcspn(p, "\n");
		if (e > p || *e == '\0')
			break;
	}
	n = (size_t)(e - p);
	while (n > 0 && strchr(" \t\r\f\v", p[n - 1]) != NULL)
		n--;
	for (i = 0, chars = 0; i < n && chars < TITLE_CHARS; chars++)
		i += (k = mc_utf8_seqlen(p + i, n - i)) > 0 ? k : 1;
	if (i > n)
		i = n;
	while (i > 0 && strchr(" \t", p[i - 1]) != NULL)
		i--;
	return i > 0 ? mc_strndup(p, i) : NULL;
}

/* A line of a session being resumed: the title its header or a title
 * line names. */
void
title_recall(struct driver *d, const cJSON *item)
{
	const char *type = mc_json_str(item, "type"), *t;

	if (type != NULL && (strcmp(type, "title") == 0 || strcmp(type, "session") == 0) &&
	    (t = mc_json_str(item, "title")) != NULL) {
		free(d->s.title);
		d->s.title = mc_strdup(t);
	}
}

/* The title line {"type":"title","title":T}, new. */
cJSON *
title_line(const char *t)
{
	cJSON *l = mc_json_new_obj();

	mc_json_add_str(l, "type", "title");
	mc_json_add_str(l, "title", t);
	return l;
}

/* Before a message: a session yet to begin is titled after it, unless
 * /title named one; so is one that a !COMMAND began (bang.c), by the
 * title line returned (the caller's to add), else NULL. */
cJSON *
title_first(struct driver *d, const char *text)
{
	int late = d->s.open && d->s.untitled;

	d->s.untitled = 0;
	if (d->s.title != NULL || (d->s.open && !late))
		return NULL;
	d->s.title = title_of(text);
	return late && d->s.title != NULL ? title_line(d->s.title) : NULL;
}

/* The header members of a new session file (more, or a new object) with
 * the title. */
cJSON *
title_header(const struct driver *d, cJSON *more)
{
	if (d->s.title == NULL)
		return more;
	if (more == NULL)
		more = mc_json_new_obj();
	cJSON_DeleteItemFromObjectCaseSensitive(more, "title");
	mc_json_add_str(more, "title", d->s.title);
	return more;
}

void
title_forget(struct driver *d)
{
	free(d->s.title);
	d->s.title = NULL;
	d->s.untitled = 0;
}
