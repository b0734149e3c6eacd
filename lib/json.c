/* json.c: whole-document JSON I/O and small checked helpers over cJSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"

void
mc_oom(void)
{
	mc_err("out of memory");
	exit(MC_EXIT_FAIL);
}

static void
where(const char *s, const char *at, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (; s < at; s++) {
		if (*s == '\n') {
			(*line)++;
			*col = 1;
		} else
			(*col)++;
	}
}

cJSON *
mc_json_parse(const char *s, size_t len, char *err, size_t errsz)
{
	const char *end = NULL;
	size_t line, col;
	cJSON *doc;

	if (memchr(s, '\0', len) != NULL) {
		snprintf(err, errsz, "invalid JSON: NUL byte in input");
		return NULL;
	}
	doc = cJSON_ParseWithLengthOpts(s, len, &end, 0);
	if (doc == NULL) {
		end = cJSON_GetErrorPtr();
		if (end == NULL || end < s || end > s + len)
			end = s + len;
		where(s, end, &line, &col);
		snprintf(err, errsz, "invalid JSON at line %zu, column %zu", line, col);
		return NULL;
	}
	/* Only white space may follow the document. */
	while (end < s + len && strchr(" \t\r\n", *end) != NULL)
		end++;
	if (end < s + len) {
		where(s, end, &line, &col);
		snprintf(err, errsz, "invalid JSON: unexpected data after the document at line %zu, column %zu",
		    line, col);
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

const char *
mc_json_nul_escape(const char *s, size_t len)
{
	size_t i;

	/* Backslashes occur only inside strings, and pair off there. */
	for (i = 0; i + 1 < len; i++)
		if (s[i] == '\\') {
			if (s[i + 1] == 'u' && len - i >= 6 && memcmp(s + i + 2, "0000", 4) == 0)
				return s + i;
			i++;
		}
	return NULL;
}

cJSON *
mc_json_read_fd(int fd, int *empty, char *err, size_t errsz)
{
	struct mc_buf b = {0};
	size_t i, line, col;
	const char *at;
	cJSON *doc;

	*empty = 0;
	if (mc_fd_slurp(fd, MC_JSON_MAX, &b) == -1) {
		if (errno == EFBIG)
			snprintf(err, errsz, "input is over the %u-byte limit", MC_JSON_MAX);
		else
			snprintf(err, errsz, "read: %s", strerror(errno));
		mc_buf_free(&b);
		return NULL;
	}
	for (i = 0; i < b.len && strchr(" \t\r\n", b.data[i]) != NULL; i++)
		;
	if (i == b.len) {
		*empty = 1;
		mc_buf_free(&b);
		return NULL;
	}
	doc = mc_json_parse(b.data, b.len, err, errsz);
	if (doc != NULL && (at = mc_json_nul_escape(b.data, b.len)) != NULL) {
		where(b.data, at, &line, &col);
		snprintf(err, errsz, "a string holds a NUL character (\\u0000) at line %zu, column %zu",
		    line, col);
		cJSON_Delete(doc);
		doc = NULL;
	}
	mc_buf_free(&b);
	return doc;
}

int
mc_json_write(FILE *fp, const cJSON *doc, int pretty)
{
	char *s;
	int rc;

	s = pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
	if (s == NULL)
		mc_oom();
	rc = fputs(s, fp) == EOF || putc('\n', fp) == EOF ? -1 : 0;
	free(s);
	return rc;
}

const char *
mc_json_str(const cJSON *obj, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

cJSON *
mc_json_obj(const cJSON *obj, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsObject(v) ? v : NULL;
}

cJSON *
mc_json_arr(const cJSON *obj, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsArray(v) ? v : NULL;
}

static cJSON *
checked(cJSON *v)
{
	if (v == NULL)
		mc_oom();
	return v;
}

cJSON *
mc_json_add(cJSON *obj, const char *key, cJSON *item)
{
	checked(item);
	if (!cJSON_AddItemToObject(obj, key, item))
		mc_oom();
	return item;
}

cJSON *
mc_json_add_str(cJSON *obj, const char *key, const char *val)
{
	return mc_json_add(obj, key, cJSON_CreateString(val));
}

cJSON *
mc_json_add_num(cJSON *obj, const char *key, double val)
{
	return mc_json_add(obj, key, cJSON_CreateNumber(val));
}

cJSON *
mc_json_push(cJSON *arr, cJSON *item)
{
	checked(item);
	if (!cJSON_AddItemToArray(arr, item))
		mc_oom();
	return item;
}

cJSON *
mc_json_new_obj(void)
{
	return checked(cJSON_CreateObject());
}

cJSON *
mc_json_new_arr(void)
{
	return checked(cJSON_CreateArray());
}

cJSON *
mc_json_new_str(const char *s)
{
	return checked(cJSON_CreateString(s));
}

cJSON *
mc_json_arr_ensure(cJSON *obj, const char *key)
{
	cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (cJSON_IsArray(a))
		return a;
	if (a != NULL)
		cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	return mc_json_add(obj, key, cJSON_CreateArray());
}
