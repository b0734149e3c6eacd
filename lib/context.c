/* context.c: building the context document and its diagnostics. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "diag.h"
#include "json.h"
#include "skills.h"
#include "utf8.h"

cJSON *
mc_context_new(const char *root, const char *mc_home)
{
	cJSON *doc = mc_json_new_obj();

	mc_json_add_num(doc, "version", 1);
	mc_json_add_str(doc, "root", root);
	mc_json_add_str(doc, "mc_home", mc_home);
	mc_json_add(doc, "instructions", cJSON_CreateArray());
	mc_json_add(doc, "diagnostics", cJSON_CreateArray());
	return doc;
}

static cJSON *
vdiag(cJSON *doc, const char *severity, const char *path, const char *fmt, va_list ap)
{
	char msg[2048];
	cJSON *d;

	vsnprintf(msg, sizeof msg, fmt, ap);
	d = mc_json_push(mc_json_arr_ensure(doc, "diagnostics"), mc_json_new_obj());
	mc_json_add_str(d, "severity", severity);
	if (path != NULL)
		mc_json_add_str(d, "path", path);
	mc_json_add_str(d, "message", msg);
	if (strcmp(severity, "error") == 0)
		mc_err("%s%s%s", path ? path : "", path ? ": " : "", msg);
	else
		mc_warn("%s%s%s", path ? path : "", path ? ": " : "", msg);
	return d;
}

void
mc_context_diag(cJSON *doc, const char *severity, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(doc, severity, path, fmt, ap);
	va_end(ap);
}

void
mc_context_refused(cJSON *doc, const char *source, int index, const char *path,
    const char *fmt, ...)
{
	va_list ap;
	cJSON *d;

	va_start(ap, fmt);
	d = vdiag(doc, "error", path, fmt, ap);
	va_end(ap);
	mc_json_add_str(d, "source", source);
	if (index >= 0)
		mc_json_add_num(d, "index", index);
}

const char *
mc_context_refused_path(const cJSON *d)
{
	const char *sev = mc_json_str(d, "severity");

	if (sev == NULL || strcmp(sev, "error") != 0 || mc_json_str(d, "source") == NULL)
		return NULL;
	return mc_json_str(d, "path");
}

void
mc_context_settings_warnings(cJSON *doc, const struct mc_settings *s)
{
	const cJSON *w;

	cJSON_ArrayForEach(w, s->warnings)
		mc_context_diag(doc, "warning", s->path, "%s", w->valuestring);
}

int
mc_context_errors(const cJSON *doc)
{
	const cJSON *d;
	const char *sev;
	int n = 0;

	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(doc, "diagnostics"))
		if ((sev = mc_json_str(d, "severity")) != NULL && strcmp(sev, "error") == 0)
			n++;
	return n;
}

/* ---- the shape of a document read on stdin ---- */

static int
bad_doc(const char *at, const char *what)
{
	mc_err("stdin: %s%s%s", at, *at ? ": " : "", what);
	return -1;
}

/* An error about arr[i] (key NULL) or arr[i].key; i -1 only tells. */
static int
bad_member(const char *arr, int i, const char *key, const char *what)
{
	if (i >= 0)
		mc_err("stdin: %s[%d]%s%s: %s", arr, i, key ? "." : "", key ? key : "", what);
	return -1;
}

/* A string member that goes into the prompt: present and valid UTF-8. */
static int
doc_string(const cJSON *obj, const char *key, const char *arr, int i, int optional)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (v == NULL || (optional && cJSON_IsNull(v)))
		return optional ? 0 : bad_member(arr, i, key, "missing");
	if (!cJSON_IsString(v))
		return bad_member(arr, i, key, "expected a string");
	if (!mc_utf8_valid(v->valuestring, strlen(v->valuestring)))
		return bad_member(arr, i, key, "not valid UTF-8");
	return 0;
}

int
mc_context_check_skill(const cJSON *e, int i)
{
	const cJSON *v;
	char what[256];

	if (!cJSON_IsObject(e))
		return bad_member("skills", i, NULL, "expected an object");
	if (doc_string(e, "name", "skills", i, 0) == -1 ||
	    doc_string(e, "description", "skills", i, 1) == -1)
		return -1;
	/* Names reach the prompt: no markup, no newlines. */
	if (!mc_skill_name_valid(mc_json_str(e, "name"))) {
		snprintf(what, sizeof what, "invalid skill name \"%.80s\"", mc_json_str(e, "name"));
		return bad_member("skills", i, "name", what);
	}
	v = cJSON_GetObjectItemCaseSensitive(e, "enabled");
	if (v != NULL && !cJSON_IsBool(v))
		return bad_member("skills", i, "enabled", "expected true or false");
	return 0;
}

int
mc_context_check(const cJSON *doc)
{
	const cJSON *a, *e, *v;
	int i = 0;

	if (!cJSON_IsObject(doc))
		return bad_doc("", "expected a JSON object (the context document)");
	v = cJSON_GetObjectItemCaseSensitive(doc, "version");
	if (v != NULL && (!cJSON_IsNumber(v) || v->valuedouble != 1))
		return bad_doc("version", "unsupported document version (expected 1)");
	v = cJSON_GetObjectItemCaseSensitive(doc, "root");
	if (v != NULL && !cJSON_IsString(v))
		return bad_doc("root", "expected a string");
	v = cJSON_GetObjectItemCaseSensitive(doc, "diagnostics");
	if (v != NULL && !cJSON_IsArray(v))
		return bad_doc("diagnostics", "expected an array");
	a = cJSON_GetObjectItemCaseSensitive(doc, "instructions");
	if (a != NULL && !cJSON_IsArray(a))
		return bad_doc("instructions", "expected an array");
	cJSON_ArrayForEach(e, a) {
		if (!cJSON_IsObject(e))
			return bad_member("instructions", i, NULL, "expected an object");
		if (doc_string(e, "path", "instructions", i, 0) == -1 ||
		    doc_string(e, "content", "instructions", i, 0) == -1)
			return -1;
		i++;
	}
	a = cJSON_GetObjectItemCaseSensitive(doc, "skills");
	if (a != NULL && !cJSON_IsArray(a))
		return bad_doc("skills", "expected an array");
	return 0;
}

void
mc_context_path(struct mc_buf *b, const char *path)
{
	for (; *path; path++)
		if (*path == '<' || *path == '>')
			mc_buf_adds(b, *path == '<' ? "&lt;" : "&gt;");
		else
			mc_buf_add(b, (unsigned char)*path < 0x20 || *path == 0x7f ? "?" : path, 1);
}

void
mc_context_block(struct mc_buf *b, const char *path, const char *content)
{
	size_t len = strlen(content);

	mc_buf_adds(b, "<Context File=");
	mc_context_path(b, path);
	mc_buf_adds(b, ">\n");
	mc_buf_add(b, content, len);
	if (len > 0 && content[len - 1] != '\n')
		mc_buf_adds(b, "\n");
	mc_buf_adds(b, "</Context>\n");
}
