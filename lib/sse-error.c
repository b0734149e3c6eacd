/* sse-error.c: the provider's own message, code and status in an error body or event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "json.h"
#include "sse-int.h"

static void
copy(char *dst, size_t sz, const char *src)
{
	if (sz > 0)
		snprintf(dst, sz, "%s", src);
}

/* Fill msg/code/status from an error object; returns 0 when a message was found. */
static int
error_fields(const cJSON *v, char *msg, size_t msgsz, char *code, size_t codesz, int *status)
{
	static const char *keys[] = { "message", "detail", "content", "error_description", "msg" };
	const cJSON *e, *c, *d;
	size_t i;
	char *s;

	if (cJSON_IsString(v)) {
		copy(msg, msgsz, v->valuestring);
		return v->valuestring[0] ? 0 : -1;
	}
	if (cJSON_IsArray(v))
		return error_fields(cJSON_GetArrayItem(v, 0), msg, msgsz, code, codesz, status);
	if (!cJSON_IsObject(v))
		return -1;
	e = cJSON_GetObjectItemCaseSensitive(v, "error");
	if ((cJSON_IsObject(e) || (cJSON_IsString(e) && e->valuestring[0])) &&
	    error_fields(e, msg, msgsz, code, codesz, status) == 0) {
		/* A wrapper's own code (a number beside the message) still counts. */
		c = cJSON_GetObjectItemCaseSensitive(v, "code");
		if (*status == 0 && cJSON_IsNumber(c) && c->valueint >= 100 && c->valueint <= 599)
			*status = c->valueint;
		return 0;
	}
	c = cJSON_GetObjectItemCaseSensitive(v, "code");
	if (cJSON_IsString(c))
		copy(code, codesz, c->valuestring);
	else if (cJSON_IsNumber(c) && c->valueint >= 100 && c->valueint <= 599)
		*status = c->valueint;
	else if (cJSON_IsNumber(c) && codesz > 0)
		snprintf(code, codesz, "%d", c->valueint);
	/* No code: the type says what went wrong (llama.cpp's
	 * exceed_context_size_error), unless it only says "error". */
	d = cJSON_GetObjectItemCaseSensitive(v, "type");
	if (codesz > 0 && code[0] == '\0' && cJSON_IsString(d) && strcmp(d->valuestring, "error") != 0)
		copy(code, codesz, d->valuestring);
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		d = cJSON_GetObjectItemCaseSensitive(v, keys[i]);
		if (cJSON_IsString(d) && d->valuestring[0]) {
			copy(msg, msgsz, d->valuestring);
			return 0;
		}
		if (cJSON_IsArray(d) && error_fields(d, msg, msgsz, code, codesz, status) == 0)
			return 0;
	}
	if (code[0] != '\0') {
		copy(msg, msgsz, code);
		return 0;
	}
	if (cJSON_GetArraySize(v) > 0 && (s = cJSON_PrintUnformatted(v)) != NULL) {
		copy(msg, msgsz, s);
		free(s);
		return 0;
	}
	return -1;
}

int
mc_ans_error_json(const cJSON *v, char *msg, size_t msgsz, char *code, size_t codesz, int *status)
{
	if (msgsz)
		msg[0] = '\0';
	if (codesz)
		code[0] = '\0';
	*status = 0;
	return error_fields(v, msg, msgsz, code, codesz, status);
}

int
mc_error_parse(const char *body, size_t len, char *msg, size_t msgsz,
    char *code, size_t codesz, int *status)
{
	const char *p = body, *end = body + len, *nl, *stop;
	cJSON *doc;
	int r;

	if (msgsz)
		msg[0] = '\0';
	if (codesz)
		code[0] = '\0';
	*status = 0;
	while (p < end && strchr(" \t\r\n", *p) != NULL && *p != '\0')
		p++;
	if (end - p >= 5 && memcmp(p, "data:", 5) == 0)
		p += 5;
	doc = mc_json_parse_doc(p, (size_t)(end - p), &stop);
	if (doc == NULL && p != body) {
		/* SSE: the JSON ends at the line's end. */
		for (nl = p; nl < end && *nl != '\n' && *nl != '\r'; nl++)
			;
		doc = mc_json_parse_doc(p, (size_t)(nl - p), &stop);
	}
	if (doc != NULL) {
		r = mc_ans_error_json(doc, msg, msgsz, code, codesz, status);
		cJSON_Delete(doc);
		if (r == 0)
			return 0;
	}
	/* Plain text: its first non-empty line. */
	p = body;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	for (nl = p; nl < end && *nl != '\n' && *nl != '\r'; nl++)
		;
	if (nl == p || msgsz == 0)
		return -1;
	if ((size_t)(nl - p) >= msgsz)
		nl = p + msgsz - 1;
	memcpy(msg, p, nl - p);
	msg[nl - p] = '\0';
	return 0;
}

