/* window.c: the model's context window: its size from settings, token counts, overflow errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json.h"
#include "models.h"
#include "window.h"

/* The whole number member "context_window" of the entry name in the map
 * (for a model, as its family and "*" give it too). */
static long long
entry_window(const struct mc_settings *s, const char *map, const char *name, char *from,
    size_t fromsz)
{
	const cJSON *e, *v;

	if (name == NULL)
		return 0;
	if (strcmp(map, "models") == 0)
		v = mc_model_field(s, name, "context_window", &name);
	else {
		e = cJSON_GetObjectItemCaseSensitive(mc_settings_get(s, map), name);
		v = cJSON_GetObjectItemCaseSensitive(e, "context_window");
	}
	if (!cJSON_IsNumber(v) || v->valuedouble < 1)
		return 0;
	if (from != NULL)
		snprintf(from, fromsz, "%s.%s.context_window", map, name);
	return (long long)v->valuedouble;
}

long long
mc_window_size(const struct mc_settings *s, const char *provider, const char *model,
    char *from, size_t fromsz)
{
	long long w;

	if (from != NULL && fromsz > 0)
		from[0] = '\0';
	if ((w = entry_window(s, "models", model, from, fromsz)) > 0)
		return w;
	return entry_window(s, "providers", provider, from, fromsz);
}

long long
mc_window_tokens(size_t bytes)
{
	return (long long)((bytes + 3) / 4);
}

int
mc_window_usage(const cJSON *item, long long *tokens, char *err, size_t errsz)
{
	static const char *const keys[] = { "input_tokens", "output_tokens" };
	const char *type = mc_json_str(item, "type");
	const cJSON *v;
	size_t i;

	if (type == NULL || strcmp(type, "usage") != 0)
		return 0;
	*tokens = 0;
	for (i = 0; i < 2; i++) {
		v = cJSON_GetObjectItemCaseSensitive(item, keys[i]);
		if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e15 ||
		    v->valuedouble != (double)(long long)v->valuedouble) {
			snprintf(err, errsz, "usage: \"%s\" must be a whole number", keys[i]);
			return -1;
		}
		*tokens += (long long)v->valuedouble;
	}
	return 1;
}

long long
mc_window_told(const char *body, size_t len, const char *message)
{
	static const char said[] = "resulted in ";
	const cJSON *e, *v = NULL;
	const char *p, *end;
	long long n = 0;
	cJSON *doc = NULL;
	char *stop;

	/* An error event's data, or a whole error body. */
	if (body != NULL && len >= 5 && memcmp(body, "data:", 5) == 0) {
		body += 5;
		len -= 5;
	}
	if (body != NULL)
		doc = mc_json_parse_doc(body, len, &end);
	e = cJSON_GetObjectItemCaseSensitive(doc, "error");
	if (cJSON_IsObject(e))
		v = cJSON_GetObjectItemCaseSensitive(e, "n_prompt_tokens");
	if (!cJSON_IsNumber(v))
		v = cJSON_GetObjectItemCaseSensitive(doc, "n_prompt_tokens");
	if (cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble < 1e15)
		n = (long long)v->valuedouble;
	cJSON_Delete(doc);
	if (n == 0 && message != NULL && (p = strstr(message, said)) != NULL) {
		n = strtoll(p + sizeof said - 1, &stop, 10);
		if (stop == p + sizeof said - 1 || strncmp(stop, " tokens", 7) != 0 || n < 1)
			n = 0;
	}
	return n;
}

bool
mc_window_overflow(int status, const char *code, const char *message)
{
	static const char *const words[] = {
		"context length", "context_length", "context size", "context window",
		"exceed_context_size",
	};
	size_t i;

	if (code != NULL && (strcmp(code, "context_length_exceeded") == 0 ||
	    strcmp(code, "exceed_context_size_error") == 0))
		return true;
	/* Anthropic's, in an error body (400) or an error event mid-stream. */
	if (code != NULL && strcmp(code, "invalid_request_error") == 0 && message != NULL &&
	    strcasestr(message, "prompt is too long") != NULL)
		return true;
	if (status != 400 || message == NULL)
		return false;
	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcasestr(message, words[i]) != NULL)
			return true;
	return false;
}
