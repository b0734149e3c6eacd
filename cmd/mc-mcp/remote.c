/* remote.c: a server with a "url": its settings as the first line for mc-mcp bridge, the headers' ${NAME}s expanded here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "mcp.h"

/*
 * value with each ${NAME} replaced by the variable's value, into b.
 * Returns 0, or -1 with why naming what is missing. The values are
 * secrets: they go only into b, and never into why.
 */
static int
expand(struct mc_buf *b, const char *key, const char *value, char *why, size_t whysz)
{
	const char *p = value, *open, *close;
	char name[256], *v;

	while ((open = strstr(p, "${")) != NULL) {
		mc_buf_add(b, p, (size_t)(open - p));
		if ((close = strchr(open + 2, '}')) == NULL || close == open + 2 ||
		    (size_t)(close - open - 2) >= sizeof name) {
			snprintf(why, whysz, "headers.%s: an unfinished or empty ${NAME}", key);
			return -1;
		}
		snprintf(name, sizeof name, "%.*s", (int)(close - open - 2), open + 2);
		if ((v = getenv(name)) == NULL) {
			snprintf(why, whysz, "headers.%s: the variable %s is not set", key, name);
			return -1;
		}
		mc_buf_adds(b, v);
		p = close + 1;
	}
	mc_buf_adds(b, p);
	return 0;
}

char *
mcp_remote_config(const struct server *sv, char *why, size_t whysz)
{
	const cJSON *h;
	cJSON *c = mc_json_new_obj(), *hs = mc_json_new_arr();
	struct mc_buf b = {0};
	char *line = NULL;

	mc_json_add_str(c, "name", sv->name);
	mc_json_add_str(c, "url", mc_json_str(sv->conf, "url"));
	mc_json_add_num(c, "timeout_s", sv->timeout_s);
	mc_json_add(c, "headers", hs);
	cJSON_ArrayForEach(h, mc_json_obj(sv->conf, "headers")) {
		b.len = 0;
		mc_buf_printf(&b, "%s: ", h->string);
		if (!cJSON_IsString(h)) {
			snprintf(why, whysz, "headers.%s: expected a string", h->string);
			goto out;
		}
		if (expand(&b, h->string, h->valuestring, why, whysz) == -1)
			goto out;
		if (memchr(b.data, '\n', b.len) != NULL || memchr(b.data, '\r', b.len) != NULL) {
			snprintf(why, whysz, "headers.%s: the value holds a line break", h->string);
			goto out;
		}
		mc_buf_addc(&b, '\0');
		mc_json_push(hs, mc_json_new_str(b.data));
	}
	line = mc_json_compact(c, NULL);
out:
	cJSON_ArrayForEach(h, hs)
		explicit_bzero(h->valuestring, strlen(h->valuestring));
	if (b.data != NULL)
		explicit_bzero(b.data, b.cap);
	mc_buf_free(&b);
	cJSON_Delete(c);
	return line;
}
