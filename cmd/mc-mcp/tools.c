/* tools.c: the servers' tools as mc-tool list offers tools, and a tools/call answer as the text the model reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "diag.h"
#include "image.h"
#include "json.h"
#include "utf8.h"
#include "mcp.h"

/* Append s to out (o bytes so far, at most MCP_NAME_MAX), each character
 * outside [A-Za-z0-9_-] as one '_'. */
static size_t
put_name(char *out, size_t o, const char *s)
{
	size_t n, len = strlen(s);

	while (*s && o < MCP_NAME_MAX) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		    *s == '_' || *s == '-')
			out[o++] = *s;
		else
			out[o++] = '_';
		n = mc_utf8_seqlen(s, len);
		n = n ? n : 1;
		s += n;
		len -= n;
	}
	out[o] = '\0';
	return o;
}

void
mcp_tool_name(char out[MCP_NAME_MAX + 1], const char *server, const char *tool)
{
	size_t o = put_name(out, 0, server);

	o = put_name(out, o, "__");
	put_name(out, o, tool);
}

int
mcp_names_server(const char *name, const char *server)
{
	char prefix[MCP_NAME_MAX + 1];

	mcp_tool_name(prefix, server, "");
	return strncmp(name, prefix, strlen(prefix)) == 0;
}

static const struct toolref *
find(const struct mcp *m, const char *name)
{
	const struct mc_strset_slot *p = mc_strset_find(&m->names, name);

	return p != NULL ? &m->refs[p->val] : NULL;
}

static cJSON *
definition(const char *name, const cJSON *tool)
{
	const char *desc = mc_json_str(tool, "description");
	cJSON *o = mc_json_new_obj(), *schema = mc_json_obj(tool, "inputSchema");

	mc_json_add_str(o, "name", name);
	mc_json_add_str(o, "description", desc != NULL ? desc : "");
	if (schema != NULL)
		schema = cJSON_Duplicate(schema, 1);
	else {
		schema = mc_json_new_obj();
		mc_json_add_str(schema, "type", "object");
		mc_json_add(schema, "properties", mc_json_new_obj());
	}
	if (schema == NULL)
		mc_oom();
	mc_json_add(o, "parameters", schema);
	/* Hints (readOnlyHint, ...) go with the tool, for whoever filters
	 * the list; the driver does not send them to the model. */
	if (mc_json_obj(tool, "annotations") != NULL)
		mc_json_add(o, "annotations", cJSON_Duplicate(mc_json_obj(tool, "annotations"), 1));
	return o;
}

void
mcp_build_list(struct mcp *m)
{
	struct toolref *r;
	const struct toolref *taken;
	const cJSON *t;
	const char *tname, *task;
	struct server *sv;
	size_t i, cap = 0;

	cJSON_Delete(m->list);
	m->list = mc_json_new_arr();
	m->nrefs = 0;
	mc_strset_free(&m->names);
	for (i = 0; i < m->n; i++) {
		sv = &m->sv[i];
		if (!sv->ok)
			continue;
		cJSON_ArrayForEach(t, sv->tools) {
			if ((tname = mc_json_str(t, "name")) == NULL || *tname == '\0') {
				mc_warn("server \"%s\": a tool without a name is left out", sv->name);
				continue;
			}
			if (m->nrefs == cap) {
				cap = cap ? cap * 2 : 32;
				if ((r = reallocarray(m->refs, cap, sizeof *r)) == NULL)
					mc_oom();
				m->refs = r;
			}
			r = &m->refs[m->nrefs];
			mcp_tool_name(r->name, sv->name, tname);
			if ((taken = find(m, r->name)) != NULL) {
				mc_warn("server \"%s\": tool \"%s\" is left out: its name %s is taken by "
				    "tool \"%s\" of server \"%s\"", sv->name, tname, r->name, taken->tool,
				    taken->sv->name);
				continue;
			}
			r->sv = sv;
			r->tool = tname;
			r->read_only = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			    mc_json_obj(t, "annotations"), "readOnlyHint"));
			/* Called as a task (2025-11-25), awaited as a call. */
			task = mc_json_str(mc_json_obj(t, "execution"), "taskSupport");
			r->task = task != NULL && strcmp(task, "required") == 0;
			mc_strset_add(&m->names, r->name, m->nrefs++, NULL);
			mc_json_push(m->list, definition(r->name, t));
		}
	}
}

const struct toolref *
mcp_find_tool(const struct mcp *m, const char *name)
{
	return find(m, name);
}

/* Bytes that base64 text of n characters stands for. */
static size_t
b64_size(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (*s != '=' && *s != '\n' && *s != '\r' && *s != ' ')
			n++;
	return n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
}

/* One content block as text. */
static void
content(struct mc_buf *b, const cJSON *c)
{
	const char *type = mc_json_str(c, "type"), *text = mc_json_str(c, "text");
	const char *mime = mc_json_str(c, "mimeType"), *data = mc_json_str(c, "data");
	const cJSON *res = mc_json_obj(c, "resource");
	const char *uri = mc_json_str(c, "uri");

	if (type == NULL)
		type = "unknown";
	if (strcmp(type, "text") == 0)
		mc_buf_adds(b, text != NULL ? text : "");
	else if (strcmp(type, "image") == 0 || strcmp(type, "audio") == 0)
		mc_buf_printf(b, "[%s, %zu bytes]", mime != NULL ? mime : type,
		    data != NULL ? b64_size(data) : 0);
	else if (strcmp(type, "resource") == 0 && res != NULL) {
		uri = mc_json_str(res, "uri");
		mime = mc_json_str(res, "mimeType");
		if ((text = mc_json_str(res, "text")) != NULL)
			mc_buf_printf(b, "[resource %s]\n%s", uri ? uri : "", text);
		else
			mc_buf_printf(b, "[resource %s, %s, %zu bytes]", uri ? uri : "",
			    mime ? mime : "binary", (data = mc_json_str(res, "blob")) ? b64_size(data) : 0);
	} else if (strcmp(type, "resource_link") == 0)
		mc_buf_printf(b, "[resource link %s%s%s]", uri ? uri : "",
		    mc_json_str(c, "name") ? ": " : "", mc_json_str(c, "name") ? mc_json_str(c, "name") : "");
	else
		mc_buf_printf(b, "[%s content]", type);
}

/* JSON-RPC error text for an answer that is one, into b; 0 when it is not. */
static int
refused(struct mc_buf *b, const cJSON *answer)
{
	const cJSON *error = mc_json_obj(answer, "error"), *code;

	if (error == NULL)
		return 0;
	code = cJSON_GetObjectItemCaseSensitive(error, "code");
	mc_buf_printf(b, "error: the MCP server refused the call: %s (JSON-RPC error %.0f)",
	    mc_json_str(error, "message") ? mc_json_str(error, "message") : "no reason given",
	    cJSON_IsNumber(code) ? code->valuedouble : 0.0);
	return 1;
}

static char *
clipped(struct mc_buf *b)
{
	char *s = mc_clip_text(b->data ? b->data : "", b->len, MC_CLIP_MAX, NULL);

	mc_buf_free(b);
	if (s == NULL)
		mc_oom();
	return s;
}

char *
mcp_other_text(const struct server *sv, const cJSON *answer, const char *method)
{
	const cJSON *result = mc_json_obj(answer, "result"), *c;
	struct mc_buf b = {0};
	const char *text, *uri;
	size_t n = 0;

	if (refused(&b, answer))
		return clipped(&b);
	if (strcmp(method, "resources/read") == 0) {
		cJSON_ArrayForEach(c, mc_json_arr(result, "contents")) {
			uri = mc_json_str(c, "uri");
			if ((text = mc_json_str(c, "text")) == NULL) {
				/* Only text is read here (images: a later round). */
				b.len = 0;
				mc_buf_printf(&b, "error: the resource %s of the MCP server \"%s\" is not text "
				    "(%s, %zu bytes)", uri ? uri : "", sv->name,
				    mc_json_str(c, "mimeType") ? mc_json_str(c, "mimeType") : "no type",
				    mc_json_str(c, "blob") ? b64_size(mc_json_str(c, "blob")) : 0);
				mc_err("server \"%s\": resource %s is not text", sv->name, uri ? uri : "");
				return clipped(&b);
			}
			if (n++)
				mc_buf_addc(&b, '\n');
			mc_buf_adds(&b, text);
		}
		return clipped(&b);
	}
	/* prompts/get: the messages' content, a blank line between. */
	cJSON_ArrayForEach(c, mc_json_arr(result, "messages")) {
		if (n++)
			mc_buf_adds(&b, "\n\n");
		content(&b, mc_json_obj(c, "content"));
	}
	return clipped(&b);
}

/* An image block passed on: its bytes a PNG, JPEG, GIF or WebP (by
 * their magic, whatever its mimeType says), within what is left of
 * MC_IMAGE_MAX for the call (*left); its line in b. 0 when it is not
 * (its placeholder line is content()'s). */
static int
pass_image(struct mc_buf *b, const cJSON *c, size_t *left, cJSON **images)
{
	const char *data = mc_json_str(c, "data"), *mt;
	struct mc_buf raw = {0};
	char name[32];
	int ok;

	if (strcmp(mc_json_str(c, "type") ? mc_json_str(c, "type") : "", "image") != 0 ||
	    data == NULL || b64_size(data) > *left)
		return 0;
	ok = mc_base64_decode(data, strlen(data), &raw) == 0 && raw.len <= *left &&
	    (mt = mc_image_type(raw.data, raw.len)) != NULL;
	if (ok) {
		*left -= raw.len;
		if (*images == NULL)
			*images = mc_json_new_obj();	/* {"image_data":[...]} */
		snprintf(name, sizeof name, "image-%d.%s",
		    cJSON_GetArraySize(mc_json_arr(*images, MC_IMAGE_DATA)) + 1, mt + 6);
		mc_image_data_add(*images, mc_strdup(data), mt, name);
		mc_buf_printf(b, "[image %s: %s, %zu bytes]", name, mt, raw.len);
	}
	mc_buf_free(&raw);
	return ok;
}

char *
mcp_answer_text(const cJSON *answer, cJSON **images)
{
	size_t left = MC_IMAGE_MAX;
	const cJSON *c;
	const cJSON *result = mc_json_obj(answer, "result");
	const cJSON *structured = cJSON_GetObjectItemCaseSensitive(result, "structuredContent");
	struct mc_buf b = {0};
	size_t n = 0;
	char *s;

	if (!refused(&b, answer)) {
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "isError")))
			mc_buf_adds(&b, "error: ");
		cJSON_ArrayForEach(c, mc_json_arr(result, "content")) {
			if (n++)
				mc_buf_addc(&b, '\n');
			if (!pass_image(&b, c, &left, images))
				content(&b, c);
		}
		/* Structured content is shown only when there is nothing else:
		 * servers repeat it as text for clients like this one. */
		if (n == 0 && structured != NULL) {
			s = mc_json_compact(structured, NULL);
			mc_buf_adds(&b, s);
			free(s);
		}
	}
	return clipped(&b);
}

/* sv's resources, templates and prompts as entries of the served list,
 * told apart from tools by "type" (the driver takes them out). */
void
mcp_extras(const struct server *sv, cJSON *list)
{
	static const struct { const char *type, *key; } keep[] = {
		{ "mcp_resource", "uri" }, { "mcp_template", "uriTemplate" }, { "mcp_prompt", "name" },
	};
	const cJSON *sets[3] = { sv->resources, sv->templates, sv->prompts }, *e, *a;
	cJSON *o, *names;
	size_t i;
	char *full;

	for (i = 0; i < 3; i++)
		cJSON_ArrayForEach(e, sets[i]) {
			if (mc_json_str(e, keep[i].key) == NULL)
				continue;
			o = mc_json_new_obj();
			mc_json_add_str(o, "type", keep[i].type);
			mc_json_add_str(o, "server", sv->name);
			if (i == 2) {
				if (asprintf(&full, "%s:%s", sv->name, mc_json_str(e, "name")) == -1)
					mc_oom();
				mc_json_add_owned(o, "name", full);
				names = mc_json_new_arr();
				cJSON_ArrayForEach(a, mc_json_arr(e, "arguments"))
					if (mc_json_str(a, "name") != NULL)
						mc_json_push(names, mc_json_new_str(mc_json_str(a, "name")));
				mc_json_add(o, "arguments", names);
			} else {
				mc_json_add_str(o, "uri", mc_json_str(e, keep[i].key));
				if (mc_json_str(e, "name") != NULL)
					mc_json_add_str(o, "title", mc_json_str(e, "name"));
				if (mc_json_str(e, "mimeType") != NULL)
					mc_json_add_str(o, "mimeType", mc_json_str(e, "mimeType"));
			}
			if (mc_json_str(e, "description") != NULL)
				mc_json_add_str(o, "description", mc_json_str(e, "description"));
			mc_json_push(list, o);
		}
}
