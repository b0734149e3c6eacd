/* fuzz/each.c: libFuzzer target: mc_json_parse_each agrees with one whole parse, errors and all;
 * mc_json_check takes what cJSON writes, compact and indented, and nothing cJSON refuses. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	struct mc_buf b;	/* each element, compact, one a line */
	size_t n;
};

static void
collect(cJSON *e, size_t i, void *arg)
{
	struct seen *s = arg;
	char *t;

	if (i != s->n++)
		abort();
	t = mc_json_compact(e, NULL);
	mc_buf_adds(&s->b, t);
	mc_buf_addc(&s->b, '\n');
	free(t);
	cJSON_Delete(e);
}

static void
same_doc(const cJSON *a, const cJSON *b)
{
	char *x = mc_json_compact(a, NULL), *y = mc_json_compact(b, NULL);

	if (strcmp(x, y) != 0)
		abort();
	free(x);
	free(y);
}

/* The grammar check against cJSON: whatever it accepts cJSON parses, and
 * a document as cJSON writes it, compact or indented (white space in
 * every place the grammar allows), it accepts. */
static void
check_agrees(const char *text, size_t size, const cJSON *ref)
{
	char *t;

	if (mc_json_check(text, size) == NULL && ref == NULL)
		abort();
	if (ref == NULL || (t = cJSON_Print(ref)) == NULL)
		return;
	if (mc_json_check(t, strlen(t)) != NULL)
		abort();
	free(t);
	t = mc_json_compact(ref, NULL);
	if (mc_json_check(t, strlen(t)) != NULL)
		abort();
	free(t);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen want = {0}, got = {0};
	char err[256], whole[256] = "", *text;
	cJSON *ref, *doc, *arr;

	if ((text = malloc(size + 1)) == NULL)
		abort();
	memcpy(text, data, size);
	/* The reference: the whole document, then the elements taken out. */
	ref = mc_json_parse(text, size, whole, sizeof whole);
	check_agrees(text, size, ref);
	if (ref != NULL) {
		arr = cJSON_GetObjectItemCaseSensitive(ref, "skills");
		while (cJSON_IsArray(arr) && arr->child != NULL)
			collect(cJSON_DetachItemViaPointer(arr, arr->child), want.n, &want);
	}
	doc = mc_json_parse_each(text, size, "skills", collect, &got, err, sizeof err);
	if ((ref == NULL) != (doc == NULL) || (doc == NULL && strcmp(whole, err) != 0))
		abort();
	if (ref != NULL) {
		if (want.n != got.n || (want.n > 0 && strcmp(want.b.data, got.b.data) != 0))
			abort();
		same_doc(ref, doc);
	}
	cJSON_Delete(ref);
	cJSON_Delete(doc);
	mc_buf_free(&want.b);
	mc_buf_free(&got.b);
	free(text);
	return 0;
}
