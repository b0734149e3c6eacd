/* fuzz/jparse.c: libFuzzer target: mc_json_parse agrees with cJSON's parser, errors and all. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where cJSON is laxer on purpose: a \u escape without four hex digits. */
static int
bad_unicode_escape(const char *s, size_t n)
{
	const char *p, *e = s + n;
	int i;

	for (p = s; (p = memchr(p, '\\', (size_t)(e - p))) != NULL && e - p >= 2; p += 2) {
		if (p[1] != 'u')
			continue;
		for (i = 2; i < 6; i++)
			if (p + i >= e || strchr("0123456789abcdefABCDEF", p[i]) == NULL || p[i] == '\0')
				return 1;
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = NULL, *at;
	char ours[256], theirs[256], *x, *y;
	size_t line = 1, col = 1;
	cJSON *a, *b;

	if (size == 0 || memchr(s, '\0', size) != NULL || bad_unicode_escape(s, size))
		return 0;
	a = mc_json_parse(s, size, ours, sizeof ours);
	/* cJSON as mc_json_parse used it: the value, then only white space. */
	b = cJSON_ParseWithLengthOpts(s, size, &end, 0);
	at = b == NULL ? cJSON_GetErrorPtr() : end;
	if (b != NULL)
		while (at < s + size && strchr(" \t\r\n", *at) != NULL)
			at++;
	for (end = s; end < at; end++)
		if (*end == '\n') {
			line++;
			col = 1;
		} else
			col++;
	if (b == NULL)
		snprintf(theirs, sizeof theirs, "invalid JSON at line %zu, column %zu", line, col);
	else if (at < s + size)
		snprintf(theirs, sizeof theirs,
		    "invalid JSON: unexpected data after the document at line %zu, column %zu", line, col);
	if (b != NULL && at < s + size) {
		cJSON_Delete(b);
		b = NULL;
	}
	if ((a == NULL) != (b == NULL))
		abort();
	if (a == NULL) {
		if (strcmp(ours, theirs) != 0) {
			fprintf(stderr, "ours: %s\ncJSON: %s\n", ours, theirs);
			abort();
		}
		return 0;
	}
	x = cJSON_PrintUnformatted(a);
	y = cJSON_PrintUnformatted(b);
	if (x == NULL || y == NULL || strcmp(x, y) != 0)
		abort();
	free(x);
	free(y);
	cJSON_Delete(a);
	cJSON_Delete(b);
	return 0;
}
