/* envelope.c: mc-send's request envelope: its fields checked. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "mc-send.h"

static int
bad(char *err, size_t errsz, const char *field, const char *why)
{
	snprintf(err, errsz, "%s: %s", field, why);
	return -1;
}

static int
valid_env_name(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

/* An optional key source: absent or null, else a non-empty string. */
static int
key_source(const cJSON *doc, const char *field, const char **out, char *err, size_t errsz)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, field);

	*out = NULL;
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
		return bad(err, errsz, field, "must be a non-empty string or null");
	*out = v->valuestring;
	return 0;
}

static int
fields(cJSON *doc, struct envelope *e, char *err, size_t errsz)
{
	const cJSON *v;
	const char *s;

	*e = (struct envelope){0};
	if (!cJSON_IsObject(doc))
		return bad(err, errsz, "(document)", "not a JSON object");
	v = cJSON_GetObjectItemCaseSensitive(doc, "version");
	if (v == NULL)
		return bad(err, errsz, "version", "missing");
	if (!cJSON_IsNumber(v) || v->valuedouble != 1)
		return bad(err, errsz, "version", "must be 1");
	if ((v = cJSON_GetObjectItemCaseSensitive(doc, "provider")) == NULL)
		return bad(err, errsz, "provider", "missing");
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
		return bad(err, errsz, "provider", "must be a non-empty string");
	e->provider = v->valuestring;
	if ((v = cJSON_GetObjectItemCaseSensitive(doc, "api")) == NULL)
		return bad(err, errsz, "api", "missing");
	if (cJSON_IsString(v) && strcmp(v->valuestring, "chat") == 0)
		e->api = MC_API_CHAT;
	else if (cJSON_IsString(v) && strcmp(v->valuestring, "responses") == 0)
		e->api = MC_API_RESPONSES;
	else if (cJSON_IsString(v) && strcmp(v->valuestring, "messages") == 0)
		e->api = MC_API_MESSAGES;
	else
		return bad(err, errsz, "api", "must be \"chat\", \"responses\" or \"messages\"");
	if ((v = cJSON_GetObjectItemCaseSensitive(doc, "url")) == NULL)
		return bad(err, errsz, "url", "missing");
	if (!cJSON_IsString(v) || (strncmp(v->valuestring, "http://", 7) != 0 &&
	    strncmp(v->valuestring, "https://", 8) != 0))
		return bad(err, errsz, "url", "must be an http:// or https:// URL");
	for (s = v->valuestring; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return bad(err, errsz, "url", "contains a space or control character");
	e->url = v->valuestring;
	if ((v = cJSON_GetObjectItemCaseSensitive(doc, "api_key_env")) == NULL)
		return bad(err, errsz, "api_key_env", "missing (null for no key)");
	if (cJSON_IsNull(v))
		e->key_env = NULL;
	else if (cJSON_IsString(v) && valid_env_name(v->valuestring))
		e->key_env = v->valuestring;
	else
		return bad(err, errsz, "api_key_env", "must be an environment variable name or null");
	if (key_source(doc, "api_key_cmd", &e->key_cmd, err, errsz) == -1 ||
	    key_source(doc, "api_key_file", &e->key_file, err, errsz) == -1)
		return -1;
	if (e->key_cmd != NULL && e->key_file != NULL)
		return bad(err, errsz, "api_key_cmd", "and api_key_file: give only one");
	if (e->key_file != NULL && e->key_file[0] != '/')
		return bad(err, errsz, "api_key_file", "must be an absolute path");
	v = cJSON_GetObjectItemCaseSensitive(doc, "api_key_optional");
	if (v != NULL && !cJSON_IsBool(v))
		return bad(err, errsz, "api_key_optional", "must be true or false");
	e->key_optional = cJSON_IsTrue(v);
	/* A session-long mc-request leaves it out when nothing caches. */
	if ((v = cJSON_GetObjectItemCaseSensitive(doc, "cache_key")) != NULL &&
	    (!cJSON_IsString(v) || v->valuestring[0] == '\0' ||
	    strspn(v->valuestring, "0123456789abcdefABCDEF") != strlen(v->valuestring)))
		return bad(err, errsz, "cache_key", "must be a hex string");
	e->cache_key = v != NULL ? v->valuestring : NULL;
	if ((v = cJSON_GetObjectItemCaseSensitive(doc, "body")) == NULL)
		return bad(err, errsz, "body", "missing");
	if (!cJSON_IsObject(v))
		return bad(err, errsz, "body", "must be an object");
	return 0;
}

/* body.stream, from its value (NULL: absent). */
static int
stream_of(struct envelope *e, const cJSON *v, char *err, size_t errsz)
{
	if (v != NULL && !cJSON_IsBool(v) && !cJSON_IsNull(v))
		return bad(err, errsz, "body.stream", "must be true or false");
	e->stream = cJSON_IsTrue(v);
	return 0;
}

/* A \u0000 escape, which cJSON would cut its string at: where it is. */
static int
nul_at(const char *p, const char *at, char *err, size_t errsz)
{
	size_t line, col;

	mc_json_where(p, at, &line, &col);
	snprintf(err, errsz, "a string holds a NUL character (\\u0000) at line %zu, column %zu",
	    line, col);
	return -1;
}

/*
 * The body as it came: its bytes are what is sent, never parsed into a
 * tree nor written again (a session's request is large; only the small
 * fields are read). One pass checks the whole text to the letter of JSON
 * and finds the body and its "stream" on the way; the envelope but for
 * the body is then parsed: a copy with {} in its place. 1 when done so;
 * 0 when the text is of a form this does not follow (an escaped key, a
 * member twice, a body that is not an object, text that is no JSON),
 * left to a whole parse; -1 with a field's fault in err.
 */
static int
by_text(const char *p, size_t n, struct envelope *e, cJSON **doc, char *err, size_t errsz)
{
	struct mc_json_found f = { .path = { "body", "stream" } };
	const char *vs, *ve;
	struct mc_buf b = {0};
	cJSON *v;
	int r;

	if (mc_json_check_find(p, n, &f) != NULL || f.escaped || f.n[0] != 1 || f.n[1] > 1 ||
	    *f.vs[0] != '{')
		return 0;
	if (f.nul != NULL)
		return nul_at(p, f.nul, err, errsz);
	vs = f.vs[0];
	ve = f.ve[0];
	mc_buf_add(&b, p, (size_t)(vs - p));
	mc_buf_adds(&b, "{}");
	mc_buf_add(&b, ve, (size_t)(p + n - ve));
	*doc = cJSON_ParseWithLength(b.data, b.len);
	mc_buf_free(&b);
	if (*doc == NULL)
		return 0;	/* never: the whole parse says where it goes wrong */
	if (fields(*doc, e, err, errsz) == -1)
		return -1;
	v = f.n[1] == 1 ? cJSON_ParseWithLength(f.vs[1], (size_t)(f.ve[1] - f.vs[1])) : NULL;
	r = stream_of(e, v, err, errsz);
	cJSON_Delete(v);
	if (r == -1)
		return -1;
	e->body = vs;
	e->body_len = (size_t)(ve - vs);
	return 1;
}

int
envelope_parse(const char *p, size_t n, struct envelope *e, cJSON **doc, char *err,
    size_t errsz)
{
	const cJSON *body;
	const char *at;
	size_t line, col;
	int r;

	*e = (struct envelope){0};
	*doc = NULL;
	if ((r = by_text(p, n, e, doc, err, errsz)) != 0)
		return r == 1 ? 0 : -1;
	cJSON_Delete(*doc);
	*e = (struct envelope){0};
	/* Held to the grammar as the body sent as it is (cJSON takes 01). */
	if ((*doc = mc_json_parse(p, n, err, errsz)) == NULL)
		return -1;
	if ((at = mc_json_check(p, n)) != NULL) {
		mc_json_where(p, at, &line, &col);
		snprintf(err, errsz, "invalid JSON at line %zu, column %zu", line, col);
		return -1;
	}
	if ((at = mc_json_nul_escape(p, n)) != NULL)
		return nul_at(p, at, err, errsz);
	if (fields(*doc, e, err, errsz) == -1)
		return -1;
	body = cJSON_GetObjectItemCaseSensitive(*doc, "body");
	if (stream_of(e, cJSON_GetObjectItemCaseSensitive(body, "stream"), err, errsz) == -1)
		return -1;
	e->owned = mc_json_compact(body, &e->body_len);
	e->body = e->owned;
	return 0;
}

void
envelope_free(struct envelope *e)
{
	free(e->owned);
	e->owned = NULL;
}

