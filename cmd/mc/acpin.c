/*
 * acpin.c: mc acp: what the client gives, as mc takes it: its MCP
 * servers (session/new's mcpServers) as mcp_servers holds servers, for
 * mc-mcp serve --servers; a prompt's content blocks as the user's
 * message and the context blocks before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acp.h"
#include "diag.h"
#include "json.h"
#include "utf8.h"

/* A server's name as mc names its tools (SERVER__TOOL): letters, digits,
 * '-' and '_', no "__". */
static int
server_name_ok(const char *s)
{
	return *s != '\0' && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789-_") == strlen(s) && strstr(s, "__") == NULL;
}

/* ACP's [{name, value}] as {name: value}, into o under key; -1 when
 * one is not a pair of strings. */
static int
pairs(cJSON *o, const char *key, const cJSON *list)
{
	cJSON *m = mc_json_new_obj();
	const cJSON *e;

	mc_json_add(o, key, m);
	cJSON_ArrayForEach(e, list) {
		if (mc_json_str(e, "name") == NULL || mc_json_str(e, "value") == NULL)
			return -1;
		cJSON_DeleteItemFromObjectCaseSensitive(m, mc_json_str(e, "name"));
		mc_json_add_str(m, mc_json_str(e, "name"), mc_json_str(e, "value"));
	}
	return list == NULL || cJSON_IsArray(list) ? 0 : -1;
}

/*
 * The client's mcpServers (stdio {name, command, args, env}, http and
 * sse {type, name, url, headers}) as mcp_servers holds servers, for
 * mc-mcp serve --servers: *out the JSON text (malloc'ed), or NULL when
 * there are none. 0, or -1 with err.
 */
int
acp_servers_of(const cJSON *list, char **out, char *err, size_t errsz)
{
	const cJSON *e, *a, *each = cJSON_IsArray(list) ? list : NULL;
	const char *name, *type;
	cJSON *all = mc_json_new_obj(), *s;

	*out = NULL;
	if (list != NULL && !cJSON_IsArray(list) && !cJSON_IsNull(list)) {
		snprintf(err, errsz, "mcpServers: expected an array");
		goto fail;
	}
	cJSON_ArrayForEach(e, each) {
		name = mc_json_str(e, "name");
		type = mc_json_str(e, "type") ? mc_json_str(e, "type") : "stdio";
		if (name == NULL || !server_name_ok(name) || mc_json_obj(all, name) != NULL) {
			snprintf(err, errsz, "mcpServers: a server without a name of letters, digits, "
			    "'-' and '_' of its own: %s", name ? name : "(none)");
			goto fail;
		}
		s = mc_json_new_obj();
		mc_json_add(all, name, s);
		if (strcmp(type, "http") == 0 || strcmp(type, "sse") == 0) {
			if (mc_json_str(e, "url") == NULL ||
			    pairs(s, "headers", cJSON_GetObjectItemCaseSensitive(e, "headers")) == -1) {
				snprintf(err, errsz, "mcpServers: %s: expected a url and headers of "
				    "{name, value}", name);
				goto fail;
			}
			mc_json_add_str(s, "url", mc_json_str(e, "url"));
			continue;
		}
		a = cJSON_GetObjectItemCaseSensitive(e, "args");
		if (strcmp(type, "stdio") != 0 || mc_json_str(e, "command") == NULL ||
		    (a != NULL && !cJSON_IsArray(a)) ||
		    pairs(s, "env", cJSON_GetObjectItemCaseSensitive(e, "env")) == -1) {
			snprintf(err, errsz, "mcpServers: %s: expected a command, args and env of "
			    "{name, value} (or type http or sse)", name);
			goto fail;
		}
		mc_json_add_str(s, "command", mc_json_str(e, "command"));
		mc_json_add(s, "args", a ? cJSON_Duplicate(a, 1) : mc_json_new_arr());
		cJSON_ArrayForEach(a, mc_json_arr(s, "args"))
			if (!cJSON_IsString(a)) {
				snprintf(err, errsz, "mcpServers: %s: args: expected strings", name);
				goto fail;
			}
	}
	if (all->child != NULL)
		*out = mc_json_compact(all, NULL);
	cJSON_Delete(all);
	return 0;
fail:
	cJSON_Delete(all);
	return -1;
}

/* The value of hex digit c, or -1. */
static int
hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	    c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The path of a file:// URI, its %XX decoded (RFC 8089: an editor
 * encodes a space, a non-ASCII name), or the URI itself (another
 * scheme's, or one that decodes to no UTF-8): into b, emptied first;
 * b's text. */
static const char *
uri_path(struct mc_buf *b, const char *uri)
{
	const char *p;

	b->len = 0;
	if (strncmp(uri, "file://", 7) != 0) {
		mc_buf_adds(b, uri);
		return b->data;
	}
	p = uri + 7;
	if (strncmp(p, "localhost/", 10) == 0)
		p += 9;
	for (; *p != '\0'; p++)
		if (*p == '%' && hex_digit(p[1]) >= 0 && hex_digit(p[2]) >= 0 &&
		    (p[1] != '0' || p[2] != '0')) {
			mc_buf_addc(b, (char)(hex_digit(p[1]) << 4 | hex_digit(p[2])));
			p += 2;
		} else
			mc_buf_addc(b, *p);
	if (!mc_utf8_valid(b->data, b->len)) {	/* no text: the URI as it came */
		b->len = 0;
		mc_buf_adds(b, uri);
	}
	mc_buf_adds(b, "");
	return b->data;
}

/*
 * The prompt's blocks as the user's message: text as it is; a
 * resource_link named in a line of its own; an embedded text resource
 * as a context block ({file, content}, for mentions_attach); an image
 * as {image: BASE64, media_type, name}, for acp.c to attach. NULL with
 * err for a block mc does not take.
 */
char *
acp_message_of(const cJSON *prompt, cJSON **blocks, char *err, size_t errsz)
{
	struct mc_buf b = {0}, path = {0};
	const cJSON *e, *res;
	const char *type, *s, *uri;
	cJSON *blk;

	*blocks = mc_json_new_arr();
	cJSON_ArrayForEach(e, prompt) {
		type = mc_json_str(e, "type") ? mc_json_str(e, "type") : "";
		if (strcmp(type, "text") == 0 && (s = mc_json_str(e, "text")) != NULL) {
			mc_buf_adds(&b, s);
		} else if (strcmp(type, "resource_link") == 0 && (uri = mc_json_str(e, "uri")) != NULL) {
			mc_buf_printf(&b, "%s%s", b.len && b.data[b.len - 1] != '\n' ? "\n" : "",
			    uri_path(&path, uri));
			mc_buf_addc(&b, '\n');
		} else if (strcmp(type, "resource") == 0 && (res = mc_json_obj(e, "resource")) != NULL &&
		    (uri = mc_json_str(res, "uri")) != NULL && (s = mc_json_str(res, "text")) != NULL) {
			blk = mc_json_new_obj();
			mc_json_add_str(blk, "file", uri_path(&path, uri));
			mc_json_add_str(blk, "content", s);
			mc_json_push(*blocks, blk);
		} else if (strcmp(type, "image") == 0 && (s = mc_json_str(e, "data")) != NULL) {
			uri = mc_json_str(e, "uri");
			if (uri != NULL && strrchr(uri, '/') != NULL)
				uri = strrchr(uri, '/') + 1;
			blk = mc_json_new_obj();
			mc_json_add_str(blk, "image", s);
			if (mc_json_str(e, "mimeType") != NULL)
				mc_json_add_str(blk, "media_type", mc_json_str(e, "mimeType"));
			mc_json_add_str(blk, "name", uri != NULL && *uri != '\0' ? uri : "image");
			mc_json_push(*blocks, blk);
		} else {
			snprintf(err, errsz, "prompt: a %s block mc does not take%s", *type ? type :
			    "typeless", strcmp(type, "resource") == 0 ? " (a binary resource)" : "");
			mc_buf_free(&b);
			mc_buf_free(&path);
			cJSON_Delete(*blocks);
			*blocks = NULL;
			return NULL;
		}
	}
	mc_buf_free(&path);
	mc_buf_adds(&b, "");
	return mc_buf_steal(&b);
}
