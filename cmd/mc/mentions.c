/*
 * mentions.c: @SERVER:URI in a message (SPEC 24): the MCP server's
 * resource, read through mc-mcp as the model's read of mcp://SERVER/URI
 * would be, attached before the message as a <Context File=mcp://SERVER/URI>
 * block. SERVER must be one of the settings' mcp_servers: any other @word
 * is the message's own text. (@path mentions of files are SPEC 25's.)
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "items.h"
#include "json.h"
#include "mc.h"

#define MENTIONS_MAX 16

/* Whether c may be in a server's name as the settings write it. */
static int
name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '_' || c == '-' || c == '.';
}

/*
 * The mention starting at p (just after its '@'): 1 with *server and *uri
 * (malloc'ed) when p names a server of the settings, then ':' and a URI
 * (to the next white space, without the punctuation that ends a sentence);
 * 0 when it is no mention.
 */
static int
mention_at(const struct driver *d, const char *p, char **server, char **uri)
{
	size_t n = 0, u;
	const char *s;

	while (name_char(p[n]))
		n++;
	if (n == 0 || p[n] != ':')
		return 0;
	s = p + n + 1;
	u = strcspn(s, " \t\r\n");
	while (u > 0 && strchr(".,;!?)", s[u - 1]) != NULL)
		u--;
	if (u == 0)
		return 0;
	*server = mc_strndup(p, n);
	if (cJSON_GetObjectItemCaseSensitive(mc_settings_get(&d->c.set, "mcp_servers"),
	    *server) == NULL) {
		free(*server);
		return 0;
	}
	*uri = mc_strndup(s, u);
	return 1;
}

/* The resource SERVER:URI read through mc-mcp: its text (malloc'ed), or
 * NULL after saying why. */
static char *
resource(struct driver *d, const char *server, const char *uri)
{
	struct mc_buf path = {0};
	cJSON *args, *call, *out;
	const char *o;
	char *text = NULL, *a;

	mc_buf_printf(&path, "mcp://%s/%s", server, uri);
	args = mc_json_new_obj();
	mc_json_add_str(args, "path", path.data);
	if ((a = cJSON_PrintUnformatted(args)) == NULL)
		mc_oom();
	call = mc_item_call("mention", "read", a);
	out = mcp_call(d, call);
	if ((o = mc_json_str(out, "output")) == NULL)
		mc_err("@%s:%s: %s", server, uri, d->mcp.pid > 0 ? "mc-mcp gave no answer" :
		    "the MCP servers are not running");
	else if (strncmp(o, "error: ", 7) == 0)
		mc_err("@%s:%s: %s", server, uri, o + 7);
	else
		text = mc_strdup(o);
	cJSON_Delete(out);
	cJSON_Delete(call);
	cJSON_Delete(args);
	free(a);
	mc_buf_free(&path);
	return text;
}

/*
 * The resources text mentions, each once, read into *blocks (a JSON array
 * of {"file","content"}, NULL when there is none), before anything of the
 * turn is kept. 0, or -1 after saying which could not be read: then
 * nothing is sent.
 */
int
mentions_read(struct driver *d, const char *text, cJSON **blocks)
{
	const char *p;
	char *server, *uri, *content;
	struct mc_buf file = {0};
	const cJSON *e;
	cJSON *b;
	int n = 0, seen;

	*blocks = NULL;
	if (mc_settings_get(&d->c.set, "mcp_servers") == NULL)
		return 0;
	for (p = text; (p = strchr(p, '@')) != NULL; p++) {
		if ((p > text && strchr(" \t\r\n(", p[-1]) == NULL) ||
		    !mention_at(d, p + 1, &server, &uri))
			continue;
		file.len = 0;
		mc_buf_printf(&file, "mcp://%s/%s", server, uri);
		seen = 0;
		cJSON_ArrayForEach(e, *blocks)
			seen |= strcmp(mc_json_str(e, "file"), file.data) == 0;
		if (!seen && n++ == MENTIONS_MAX) {
			mc_err("@%s:%s: at most %d resources a message", server, uri, MENTIONS_MAX);
			goto fail;
		}
		if (!seen && (content = resource(d, server, uri)) == NULL)
			goto fail;
		if (!seen) {
			if (*blocks == NULL)
				*blocks = mc_json_new_arr();
			b = mc_json_new_obj();
			mc_json_add_str(b, "file", file.data);
			mc_json_add(b, "content", mc_json_new_owned(content));
			mc_json_push(*blocks, b);
		}
		free(server);
		free(uri);
	}
	mc_buf_free(&file);
	return 0;
fail:
	free(server);
	free(uri);
	mc_buf_free(&file);
	cJSON_Delete(*blocks);
	*blocks = NULL;
	return -1;
}

/* The blocks mentions_read gave into the session, before the message;
 * takes blocks. 0, or -1 when the session could not take one. */
int
mentions_attach(struct driver *d, cJSON *blocks)
{
	const cJSON *e;
	int r = 0;

	cJSON_ArrayForEach(e, blocks)
		if (r == 0 && context_add(d, mc_json_str(e, "file"), mc_json_str(e, "content")) == -1)
			r = -1;
	cJSON_Delete(blocks);
	return r;
}
