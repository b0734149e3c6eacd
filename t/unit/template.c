/* t/unit/template.c: table tests for the strict fragment template language. */
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "template.h"

static const char *const values[MC_TVAR_N] = { "true", "Linux", "TERM=xterm" };

#define H (1u << MC_TVAR_HAS_RIPGREP)
#define O (1u << MC_TVAR_OPERATING_SYSTEM)
#define T (1u << MC_TVAR_TERMINAL_ENVIRONMENT)
#define A10 "aaaaaaaaaa"
#define A70 A10 A10 A10 A10 A10 A10 A10

static const struct {
	const char *in;
	const char *out;	/* NULL: an error is expected */
	unsigned used;
	const char *what;	/* the error */
	const char *token;
	size_t offset;
} cases[] = {
	{ "", "", 0, NULL, NULL, 0 },
	{ "plain text\n", "plain text\n", 0, NULL, NULL, 0 },
	{ "{{has_ripgrep}}", "true", H, NULL, NULL, 0 },
	{ "rg: {{has_ripgrep}}\n", "rg: true\n", H, NULL, NULL, 0 },
	{ "{{operating_system}}/{{terminal_environment}}", "Linux/TERM=xterm", O | T, NULL, NULL, 0 },
	{ "{{has_ripgrep}}{{has_ripgrep}}", "truetrue", H, NULL, NULL, 0 },
	{ "a { b } c }} d", "a { b } c }} d", 0, NULL, NULL, 0 },
	{ "{x}", "{x}", 0, NULL, NULL, 0 },
	{ "{{has_ripgrep}}}", "true}", H, NULL, NULL, 0 },
	{ "}}{{has_ripgrep}}", "}}true", H, NULL, NULL, 0 },
	{ "line\r\n{{operating_system}}\r\n", "line\r\nLinux\r\n", O, NULL, NULL, 0 },
	{ "caf\xc3\xa9 {{operating_system}}", "caf\xc3\xa9 Linux", O, NULL, NULL, 0 },
	{ "{{TOOLS_LIST}}", NULL, 0, "unsupported variable", "{{TOOLS_LIST}}", 0 },
	{ "ok\n{{TOOLS_LIST}}", NULL, 0, "unsupported variable", "{{TOOLS_LIST}}", 3 },
	{ "{{tools_list}}", NULL, 0, "unknown variable", "{{tools_list}}", 0 },
	{ "{{HAS_RIPGREP}}", NULL, 0, "unknown variable", "{{HAS_RIPGREP}}", 0 },
	{ "{{has_ripgrep2}}", NULL, 0, "unknown variable", "{{has_ripgrep2}}", 0 },
	{ "{{has_rip}}", NULL, 0, "unknown variable", "{{has_rip}}", 0 },
	{ "{{{has_ripgrep}}}", NULL, 0, "unknown variable", "{{{has_ripgrep}}", 0 },
	{ "{{ has_ripgrep }}", NULL, 0, "whitespace inside variable", "{{ has_ripgrep }}", 0 },
	{ "{{has_ripgrep }}", NULL, 0, "whitespace inside variable", "{{has_ripgrep }}", 0 },
	{ "{{has\tripgrep}}", NULL, 0, "whitespace inside variable", "{{has\tripgrep}}", 0 },
	{ "{{ }}", NULL, 0, "whitespace inside variable", "{{ }}", 0 },
	{ "{{}}", NULL, 0, "empty variable", "{{}}", 0 },
	{ "x {{}} y", NULL, 0, "empty variable", "{{}}", 2 },
	{ "{{", NULL, 0, "unterminated variable", "{{", 0 },
	{ "a {{has_ripgrep", NULL, 0, "unterminated variable", "{{has_ripgrep", 2 },
	{ "{{has_ripgrep}\n}}", NULL, 0, "unterminated variable", "{{has_ripgrep}", 0 },
	{ "{{has_ripgrep\r\n}}", NULL, 0, "unterminated variable", "{{has_ripgrep", 0 },
	{ "{{has_ripgrep}} then {{", NULL, 0, "unterminated variable", "{{", 21 },
	/* The first bad token is reported, even after good ones. */
	{ "{{operating_system}} {{nope}} {{TOOLS_LIST}}", NULL, 0, "unknown variable", "{{nope}}", 21 },
	/* A long token is cut with "..." so the message stays one short line. */
	{ "{{" A70 "aaaaaaaaaa}}", NULL, 0, "unknown variable", "{{" A70 "aaaa...", 0 },
	/* Cut on a character boundary: never half of a UTF-8 sequence. */
	{ "{{" A70 "aaa\xc3\xa9\xc3\xa9}}", NULL, 0, "unknown variable", "{{" A70 "aaa...", 0 },
};

static int
run(size_t i)
{
	struct mc_template_error e = {0};
	struct mc_buf out = {0};
	const char *in = cases[i].in;
	unsigned used = 99;
	int rs, rr, bad = 0;

	rs = mc_template_scan(in, strlen(in), &used, &e);
	if (cases[i].out != NULL) {
		if (rs != 0 || used != cases[i].used) {
			printf("template[%zu]: scan: rc %d used %#x, want 0 and %#x (%s %s)\n",
			    i, rs, used, cases[i].used, e.what ? e.what : "-", e.token);
			bad = 1;
		}
		mc_buf_adds(&out, ">");
		rr = mc_template_render(in, strlen(in), values, &out, &e);
		if (rr != 0 || strcmp(out.data + 1, cases[i].out) != 0 || out.data[0] != '>') {
			printf("template[%zu]: render: rc %d out \"%s\", want \"%s\"\n",
			    i, rr, out.data ? out.data : "(null)", cases[i].out);
			bad = 1;
		}
	} else {
		if (rs != -1 || strcmp(e.what, cases[i].what) != 0 ||
		    strcmp(e.token, cases[i].token) != 0 || e.offset != cases[i].offset) {
			printf("template[%zu]: scan: rc %d \"%s\" \"%s\" at %zu, want \"%s\" \"%s\" at %zu\n",
			    i, rs, e.what ? e.what : "-", e.token, e.offset,
			    cases[i].what, cases[i].token, cases[i].offset);
			bad = 1;
		}
		/* A failed render leaves the buffer as it was. */
		mc_buf_adds(&out, "keep");
		e = (struct mc_template_error){0};
		rr = mc_template_render(in, strlen(in), values, &out, &e);
		if (rr != -1 || strcmp(out.data, "keep") != 0 || e.what == NULL ||
		    strcmp(e.what, cases[i].what) != 0) {
			printf("template[%zu]: render: rc %d buffer \"%s\", want -1 and \"keep\"\n",
			    i, rr, out.data);
			bad = 1;
		}
	}
	mc_buf_free(&out);
	return bad;
}

int
main(void)
{
	const char *const partial[MC_TVAR_N] = { NULL, "Linux", NULL };
	struct mc_template_error e = {0};
	struct mc_buf out = {0};
	unsigned used;
	size_t i;
	int fails = 0;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		fails += run(i);

	/* A variable used without a value is an error, not an empty string. */
	if (mc_template_render("{{has_ripgrep}}", 15, partial, &out, &e) != -1 ||
	    strcmp(e.what, "variable has no value") != 0) {
		printf("template: missing value accepted\n");
		fails++;
	}
	mc_buf_free(&out);
	if (mc_template_render("{{operating_system}}", 20, partial, &out, &e) != 0 ||
	    strcmp(out.data, "Linux") != 0) {
		printf("template: partial values refused\n");
		fails++;
	}
	mc_buf_free(&out);
	/* Rendering an empty text yields an empty, NUL-terminated buffer. */
	if (mc_template_render("", 0, values, &out, &e) != 0 || out.data == NULL ||
	    out.len != 0) {
		printf("template: empty text\n");
		fails++;
	}
	mc_buf_free(&out);
	/* NUL bytes are ordinary text: the length, not the terminator, counts. */
	if (mc_template_render("a\0{{operating_system}}", 22, values, &out, &e) != 0 ||
	    out.len != 7 || memcmp(out.data, "a\0Linux", 7) != 0) {
		printf("template: embedded NUL\n");
		fails++;
	}
	mc_buf_free(&out);
	/* Every variable has its name. */
	if (mc_template_scan("{{has_ripgrep}}{{operating_system}}{{terminal_environment}}", 59,
	    &used, &e) != 0 || used != (1u << MC_TVAR_N) - 1) {
		printf("template: not every variable is named\n");
		fails++;
	}
	return fails != 0;
}
