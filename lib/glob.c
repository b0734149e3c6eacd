/* glob.c: path globs with "**", matched segment by segment in linear time. */
#include <fnmatch.h>
#include <limits.h>
#include <string.h>

#include "glob.h"

static int
globstar(const char *g)
{
	return g[0] == '*' && g[1] == '*' && (g[2] == '/' || g[2] == '\0');
}

/* Past the segment at s and its slash. */
static const char *
next_seg(const char *s)
{
	s = strchrnul(s, '/');
	return *s ? s + 1 : s;
}

/* The segment of glob g against the segment of path p, by fnmatch. */
static int
seg_match(const char *g, const char *p)
{
	const char *ge = strchrnul(g, '/'), *pe = strchrnul(p, '/');
	char gs[NAME_MAX + 1], ps[NAME_MAX + 1];

	if ((size_t)(ge - g) > NAME_MAX || (size_t)(pe - p) > NAME_MAX)
		return 0;
	memcpy(gs, g, (size_t)(ge - g));
	gs[ge - g] = '\0';
	memcpy(ps, p, (size_t)(pe - p));
	ps[pe - p] = '\0';
	return fnmatch(gs, ps, 0) == 0;
}

/*
 * Match path p against glob g segment by segment. "**" as a whole segment
 * matches any number of segments (at the end, at least one). Like "*" in
 * a wildcard match it needs only its latest position kept: a later "**"
 * can absorb whatever an earlier one could, so on a mismatch only the
 * latest one takes one more segment. Each segment of p is then passed at
 * most once per segment of g: time linear in the length of p.
 */
int
mc_glob_match(const char *g, const char *p)
{
	const char *star_g = NULL, *star_p = NULL;

	for (;;) {
		if (globstar(g) && g[2] == '/') {
			g += 3;
			star_g = g;
			star_p = p;
			continue;
		}
		if (globstar(g) && *p != '\0')
			return 1;
		if (*g == '\0' && *p == '\0')
			return 1;
		if (*g != '\0' && !globstar(g) && *p != '\0' && seg_match(g, p)) {
			g = next_seg(g);
			p = next_seg(p);
			/* "a/b" is no match for "a", nor "a" for "a/b". */
			if ((*g == '\0') != (*p == '\0') && !globstar(g))
				goto mismatch;
			continue;
		}
mismatch:
		if (star_g == NULL || *star_p == '\0')
			return 0;
		star_p = next_seg(star_p);
		g = star_g;
		p = star_p;
	}
}
