/* frontmatter.h: the flat `key: value` header of SKILL.md and profile files (not YAML). */
#ifndef MC_FRONTMATTER_H
#define MC_FRONTMATTER_H

#include <stddef.h>

struct mc_fm_field {
	char *key;
	char *value;		/* surrounding matching quotes removed */
};

struct mc_frontmatter {
	int present;		/* the text opens with a `---` line */
	int terminated;		/* ... and a later `---` line closes it */
	struct mc_fm_field *fields;
	size_t nfields;
	const char *body;	/* into the parsed text: everything after the
				 * closing line, byte for byte (the whole text
				 * when there is no complete frontmatter) */
	size_t body_len;
};

/*
 * Parse text (len bytes; NUL bytes are not special). Lines between the
 * opening and the closing `---` are `key: value`; lines without a colon,
 * blank lines, `#` comments and indented lines are ignored. Accepts LF and
 * CRLF. An unterminated block yields present=1, terminated=0, no fields
 * and the whole text as body.
 */
void mc_frontmatter_parse(const char *text, size_t len, struct mc_frontmatter *fm);

/* The value of key (the last one when repeated), or NULL. */
const char *mc_frontmatter_get(const struct mc_frontmatter *fm, const char *key);

void mc_frontmatter_free(struct mc_frontmatter *fm);

#endif
