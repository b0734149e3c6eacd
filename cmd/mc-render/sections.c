/* mc-render/sections.c: the generated sections, the prompt they make, and its JSON and table forms. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha256.h>

#include "buf.h"
#include "context.h"
#include "diag.h"
#include "json.h"
#include "render.h"

/*
 * Each skill of the document as it is parsed (mc_json_read_fd_each): ten
 * thousand skills are kept as the lines of their section, not as a tree.
 * The first bad one is kept for check_doc to report in its turn.
 */
void
take_skill(cJSON *e, size_t i, void *arg)
{
	struct render *R = arg;
	const cJSON *enabled;
	const char *d;
	char *desc;

	if (R->bad_skill != NULL) {
		cJSON_Delete(e);
		return;
	}
	if (mc_context_check_skill(e, -1) == -1) {
		R->bad_skill = e;
		R->bad_index = i > INT_MAX ? INT_MAX : (int)i;
		return;
	}
	enabled = cJSON_GetObjectItemCaseSensitive(e, "enabled");
	if (enabled == NULL || cJSON_IsTrue(enabled)) {
		mc_buf_adds(&R->skills, "- ");
		mc_buf_adds(&R->skills, mc_json_str(e, "name"));
		d = mc_json_str(e, "description");
		if (d != NULL && (desc = one_line(d, DESC_MAX)) != NULL) {
			mc_buf_adds(&R->skills, ": ");
			mc_buf_adds(&R->skills, desc);
			free(desc);
		}
		mc_buf_adds(&R->skills, "\n");
	}
	cJSON_Delete(e);
}

/* The document's shape, and the first bad skill, kept by take_skill. */
int
check_doc(const struct render *R)
{
	if (mc_context_check(R->doc) == -1)
		return -1;
	if (R->bad_skill != NULL)
		return mc_context_check_skill(R->bad_skill, R->bad_index);
	return 0;
}

void
build_skills(struct render *R)
{
	struct section *S = &R->sec[S_SKILLS];
	const struct fragment *F = &R->frag[F_SKILLS];

	S->source = F->source;
	if (R->skills.len == 0)
		return;
	mc_buf_adds(&S->text, "<Available-Skills>\n");
	if (F->text.len > 0) {
		mc_buf_add(&S->text, F->text.data, F->text.len);
		mc_buf_adds(&S->text, "\n");
	}
	mc_buf_add(&S->text, R->skills.data, R->skills.len);
	mc_buf_adds(&S->text, "</Available-Skills>");
}

static int
source_is(const cJSON *e, const char *a, const char *b)
{
	const char *s = mc_json_str(e, "source");

	return s != NULL && (strcmp(s, a) == 0 || (b != NULL && strcmp(s, b) == 0));
}

/*
 * The files in the order of the prompt: the user's, then the chain of
 * directories farthest first (mc-discover lists the repository's file,
 * then walk_up's ancestors nearest first: this reverses them, so that the
 * nearest rules come last and win), then the others in document order.
 * Returns how many were put in *out (the caller frees it).
 */
static size_t
prompt_order(const cJSON *list, const cJSON ***out)
{
	const cJSON *e, **v, *t;
	size_t n = 0, chain, i, total = (size_t)cJSON_GetArraySize(list);

	*out = NULL;
	if (total == 0)
		return 0;
	if ((v = reallocarray(NULL, total, sizeof *v)) == NULL)
		mc_oom();
	cJSON_ArrayForEach(e, list)
		if (source_is(e, "user", NULL))
			v[n++] = e;
	chain = n;
	cJSON_ArrayForEach(e, list)
		if (source_is(e, "repo", "ancestor"))
			v[n++] = e;
	for (i = 0; i < (n - chain) / 2; i++) {
		t = v[chain + i];
		v[chain + i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
	cJSON_ArrayForEach(e, list)
		if (!source_is(e, "user", NULL) && !source_is(e, "repo", "ancestor"))
			v[n++] = e;
	*out = v;
	return n;
}

/*
 * The files the document says were found but refused (mc-discover
 * --keep-going): the prompt names them, so that it never claims there are
 * none, and never shows what they hold. Returns how many there are.
 */
static size_t
add_refused(struct render *R, struct mc_buf *b)
{
	const cJSON *d;
	const char *path;
	size_t n = 0;

	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(R->doc, "diagnostics"))
		if (mc_context_refused_path(d) != NULL)
			n++;
	if (n == 0)
		return 0;
	if (n == 1)
		mc_buf_adds(b, "1 instruction file was found but refused, so it is not included: ");
	else
		mc_buf_printf(b, "%zu instruction files were found but refused, so they are not included: ", n);
	n = 0;
	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(R->doc, "diagnostics"))
		if ((path = mc_context_refused_path(d)) != NULL) {
			if (n++ > 0)
				mc_buf_adds(b, ", ");
			mc_context_path(b, path);
		}
	mc_buf_adds(b, "\n");
	return n;
}

void
build_context(struct render *R)
{
	struct section *S = &R->sec[S_CONTEXT];
	const cJSON **files;
	size_t n, i;

	S->source = "generated";
	n = prompt_order(cJSON_GetObjectItemCaseSensitive(R->doc, "instructions"), &files);
	mc_buf_adds(&S->text, "<Additional-Context-Files>\n");
	if (n > 0)
		mc_buf_adds(&S->text, "These files are automatically injected and MUST ALWAYS be remembered "
		    "and considered in every action, do NOT read these files again:\n");
	if (add_refused(R, &S->text) == 0 && n == 0)
		mc_buf_adds(&S->text, "No AGENTS.md instruction files were discovered.\n");
	for (i = 0; i < n; i++)
		mc_context_block(&S->text, mc_json_str(files[i], "path"),
		    mc_json_str(files[i], "content"));
	free(files);
	mc_buf_adds(&S->text, "</Additional-Context-Files>");
}

/* Sections joined by one blank line, one final newline. */
/* The sections in order, a blank line apart, into R->prompt; or, with
 * fp, straight out: a megabyte of instructions need not be copied twice. */
void
assemble(struct render *R, FILE *fp)
{
	int i, any = 0;

	for (i = 0; i < S_N; i++) {
		if (R->sec[i].text.len == 0)
			continue;
		if (fp != NULL) {
			if (any)
				fputs("\n\n", fp);
			fwrite(R->sec[i].text.data, 1, R->sec[i].text.len, fp);
		} else {
			if (any)
				mc_buf_adds(&R->prompt, "\n\n");
			mc_buf_add(&R->prompt, R->sec[i].text.data, R->sec[i].text.len);
		}
		any = 1;
	}
	if (fp != NULL)
		putc('\n', fp);
	else
		mc_buf_adds(&R->prompt, "\n");
}

int
write_json(struct render *R, int pretty)
{
	char hex[SHA256_DIGEST_STRING_LENGTH];
	cJSON *out, *list, *e, *d;
	int i, rc;

	SHA256Data((const uint8_t *)R->prompt.data, R->prompt.len, hex);
	out = mc_json_new_obj();
	mc_json_add_str(out, "system_prompt", R->prompt.data);
	mc_json_add_str(out, "sha256", hex);
	list = mc_json_add(out, "sections", cJSON_CreateArray());
	for (i = 0; i < S_N; i++) {
		if (R->sec[i].text.len == 0)
			continue;
		e = mc_json_push(list, mc_json_new_obj());
		mc_json_add_str(e, "name", section_names[i]);
		mc_json_add_str(e, "source", R->sec[i].source);
		mc_json_add_num(e, "bytes", (double)R->sec[i].text.len);
	}
	d = cJSON_Duplicate(mc_json_arr_ensure(R->doc, "diagnostics"), 1);
	mc_json_add(out, "diagnostics", d);
	rc = mc_json_write(stdout, out, pretty);
	cJSON_Delete(out);
	return rc == -1 && errno != EPIPE ? -1 : 0;
}

void
write_stats(struct render *R)
{
	size_t total = R->prompt.len, bytes, bar, k;
	int i;

	printf("%-10s %-9s %8s %8s %7s\n", "SECTION", "SOURCE", "BYTES", "TOKENS", "SHARE");
	for (i = 0; i < S_N; i++) {
		if ((bytes = R->sec[i].text.len) == 0)
			continue;
		printf("%-10s %-9s %8zu %8zu %6.1f%% ", section_names[i], R->sec[i].source,
		    bytes, (bytes + 3) / 4, 100.0 * (double)bytes / (double)total);
		bar = (bytes * BAR_WIDTH + total / 2) / total;
		if (bar == 0)
			bar = 1;
		for (k = 0; k < bar; k++)
			putchar('#');
		putchar('\n');
	}
	printf("%-10s %-9s %8zu %8zu %6.1f%%\n", "total", "", total, (total + 3) / 4, 100.0);
}
