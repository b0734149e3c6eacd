/* t/unit/frontmatter.c: table of flat frontmatter cases for lib/frontmatter.c. */
#include <stdio.h>
#include <string.h>

#include "frontmatter.h"

#define MAXF 6

struct kv {
	const char *key, *value;
};

struct tcase {
	const char *what;
	const char *text;
	size_t len;		/* 0: strlen(text) */
	int present, terminated;
	struct kv fields[MAXF];	/* in order; ends at a NULL key */
	const char *body;	/* expected body, byte for byte */
	size_t body_len;	/* 0: strlen(body) */
};

static const struct tcase cases[] = {
	{ "plain frontmatter",
	  "---\nname: x\ndescription: Does things.\n---\n# Title\n", 0, 1, 1,
	  { { "name", "x" }, { "description", "Does things." } }, "# Title\n", 0 },
	{ "CRLF line endings, body kept with its CRs",
	  "---\r\ndescription: crlf here\r\n---\r\nline 1\r\nline 2\r\n", 0, 1, 1,
	  { { "description", "crlf here" } }, "line 1\r\nline 2\r\n", 0 },
	{ "double quotes removed, inner spaces kept",
	  "---\ndescription: \"  quoted: yes  \"\n---\n", 0, 1, 1,
	  { { "description", "  quoted: yes  " } }, "", 0 },
	{ "single quotes removed",
	  "---\ndescription: 'single'\n---\n", 0, 1, 1,
	  { { "description", "single" } }, "", 0 },
	{ "mismatched quotes kept",
	  "---\na: \"x'\nb: \"\nc: 'y\n---\n", 0, 1, 1,
	  { { "a", "\"x'" }, { "b", "\"" }, { "c", "'y" } }, "", 0 },
	{ "empty values",
	  "---\ndescription:\nname:   \nq: \"\"\n---\nbody", 0, 1, 1,
	  { { "description", "" }, { "name", "" }, { "q", "" } }, "body", 0 },
	{ "missing closing marker: no fields, whole text is body",
	  "---\ndescription: never closed\n# body\n", 0, 1, 0,
	  { { NULL, NULL } }, "---\ndescription: never closed\n# body\n", 0 },
	{ "opening marker alone",
	  "---\n", 0, 1, 0,
	  { { NULL, NULL } }, "---\n", 0 },
	{ "--- inside the body stays in the body",
	  "---\ndescription: d\n---\nabove\n---\nbelow: not a field\n", 0, 1, 1,
	  { { "description", "d" } }, "above\n---\nbelow: not a field\n", 0 },
	{ "only frontmatter",
	  "---\ndescription: only\n---\n", 0, 1, 1,
	  { { "description", "only" } }, "", 0 },
	{ "only frontmatter, no trailing newline",
	  "---\ndescription: only\n---", 0, 1, 1,
	  { { "description", "only" } }, "", 0 },
	{ "no trailing newline in the body",
	  "---\ndescription: d\n---\nlast line", 0, 1, 1,
	  { { "description", "d" } }, "last line", 0 },
	{ "no trailing newline on the last field: unterminated",
	  "---\ndescription: d", 0, 1, 0,
	  { { NULL, NULL } }, "---\ndescription: d", 0 },
	{ "no frontmatter at all",
	  "# Just markdown\n\nText.\n", 0, 0, 0,
	  { { NULL, NULL } }, "# Just markdown\n\nText.\n", 0 },
	{ "empty text",
	  "", 0, 0, 0,
	  { { NULL, NULL } }, "", 0 },
	{ "a lone --- without newline is body",
	  "---", 0, 0, 0,
	  { { NULL, NULL } }, "---", 0 },
	{ "a lone ---CR without newline is body",
	  "---\r", 0, 0, 0,
	  { { NULL, NULL } }, "---\r", 0 },
	{ "marker must be the first line",
	  "\n---\ndescription: late\n---\n", 0, 0, 0,
	  { { NULL, NULL } }, "\n---\ndescription: late\n---\n", 0 },
	{ "four dashes are not a marker",
	  "----\ndescription: x\n----\n", 0, 0, 0,
	  { { NULL, NULL } }, "----\ndescription: x\n----\n", 0 },
	{ "trailing blanks after markers",
	  "--- \t\ndescription: d\n---  \r\nb", 0, 1, 1,
	  { { "description", "d" } }, "b", 0 },
	{ "indented lines ignored",
	  "---\n  indented: ignored\n description : a: b:c \n---\n", 0, 1, 1,
	  { { NULL, NULL } }, "", 0 },
	{ "value with colons",
	  "---\ndescription :  a: b:c \t\n---\n", 0, 1, 1,
	  { { "description", "a: b:c" } }, "", 0 },
	{ "comments, blank lines, lines without colon, empty keys ignored",
	  "---\n# c: no\n\njust words\n: v\nk: v\n---\n", 0, 1, 1,
	  { { "k", "v" } }, "", 0 },
	{ "not YAML: nested and list lines ignored, block marker kept as text",
	  "---\nmeta:\n  a: 1\n- item\ndescription: >\n  folded\n---\n", 0, 1, 1,
	  { { "meta", "" }, { "description", ">" } }, "", 0 },
	{ "repeated key: every occurrence kept, last one wins on lookup",
	  "---\ndescription: one\ndescription: two\n---\n", 0, 1, 1,
	  { { "description", "one" }, { "description", "two" } }, "", 0 },
	{ "byte order mark before the opening marker",
	  "\xef\xbb\xbf---\ndescription: bom\n---\nb\n", 0, 1, 1,
	  { { "description", "bom" } }, "b\n", 0 },
	{ "empty frontmatter",
	  "---\n---\nbody\n", 0, 1, 1,
	  { { NULL, NULL } }, "body\n", 0 },
	{ "NUL bytes are not special",
	  "---\nk: a\0b\n---\nx\0y", 18, 1, 1,
	  { { "k", "a" } }, "x\0y", 3 },
	{ "UTF-8 values kept",
	  "---\ndescription: caf\xc3\xa9 \xe2\x80\x94 ok\n---\n", 0, 1, 1,
	  { { "description", "caf\xc3\xa9 \xe2\x80\x94 ok" } }, "", 0 },
};

static int
check(const struct tcase *c)
{
	struct mc_frontmatter fm;
	size_t len = c->len ? c->len : strlen(c->text);
	size_t blen = c->body_len ? c->body_len : strlen(c->body);
	size_t i, nf = 0;
	int bad = 0;

	mc_frontmatter_parse(c->text, len, &fm);
	while (nf < MAXF && c->fields[nf].key != NULL)
		nf++;
	if (fm.present != c->present || fm.terminated != c->terminated) {
		printf("frontmatter: %s: present=%d terminated=%d, want %d %d\n",
		    c->what, fm.present, fm.terminated, c->present, c->terminated);
		bad = 1;
	}
	if (fm.nfields != nf) {
		printf("frontmatter: %s: %zu fields, want %zu\n", c->what, fm.nfields, nf);
		bad = 1;
	} else {
		for (i = 0; i < nf; i++) {
			if (strcmp(fm.fields[i].key, c->fields[i].key) != 0 ||
			    strcmp(fm.fields[i].value, c->fields[i].value) != 0) {
				printf("frontmatter: %s: field %zu is [%s]=[%s], want [%s]=[%s]\n",
				    c->what, i, fm.fields[i].key, fm.fields[i].value,
				    c->fields[i].key, c->fields[i].value);
				bad = 1;
			}
		}
	}
	if (fm.body_len != blen || memcmp(fm.body, c->body, blen) != 0 ||
	    fm.body < c->text || fm.body + fm.body_len > c->text + len) {
		printf("frontmatter: %s: body is %zu bytes [%.*s], want %zu [%s]\n",
		    c->what, fm.body_len, (int)fm.body_len, fm.body, blen, c->body);
		bad = 1;
	}
	mc_frontmatter_free(&fm);
	return bad;
}

/* Lookups: the last repeated key wins, a missing key is NULL. */
static int
check_get(void)
{
	const char *text = "---\ndescription: one\nname: n\ndescription: two\n---\n";
	struct mc_frontmatter fm;
	const char *v;
	int bad = 0;

	mc_frontmatter_parse(text, strlen(text), &fm);
	if ((v = mc_frontmatter_get(&fm, "description")) == NULL || strcmp(v, "two") != 0) {
		printf("frontmatter: get: description is %s, want two\n", v ? v : "NULL");
		bad = 1;
	}
	if ((v = mc_frontmatter_get(&fm, "nope")) != NULL) {
		printf("frontmatter: get: missing key gave %s\n", v);
		bad = 1;
	}
	mc_frontmatter_free(&fm);
	if (fm.nfields != 0 || fm.fields != NULL) {
		printf("frontmatter: free: fields left behind\n");
		bad = 1;
	}
	return bad;
}

int
main(void)
{
	size_t i;
	int failed = 0;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		failed += check(&cases[i]);
	failed += check_get();
	return failed ? 1 : 0;
}
