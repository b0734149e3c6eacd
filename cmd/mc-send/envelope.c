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

int
envelope_read(cJSON *doc, struct envelope *e, char *err, size_t errsz)
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
	else
		return bad(err, errsz, "api", "must be \"chat\" or \"responses\"");
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
	if ((v = cJSON_GetObjectItemCaseSensitive(doc, "cache_key")) == NULL)
		return bad(err, errsz, "cache_key", "missing");
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0' ||
	    strspn(v->valuestring, "0123456789abcdefABCDEF") != strlen(v->valuestring))
		return bad(err, errsz, "cache_key", "must be a hex string");
	e->cache_key = v->valuestring;
	if ((v = cJSON_GetObjectItemCaseSensitive(doc, "body")) == NULL)
		return bad(err, errsz, "body", "missing");
	if (!cJSON_IsObject(v))
		return bad(err, errsz, "body", "must be an object");
	e->body = (cJSON *)v;
	v = cJSON_GetObjectItemCaseSensitive(e->body, "stream");
	if (v != NULL && !cJSON_IsBool(v) && !cJSON_IsNull(v))
		return bad(err, errsz, "body.stream", "must be true or false");
	e->stream = cJSON_IsTrue(v);
	return 0;
}
