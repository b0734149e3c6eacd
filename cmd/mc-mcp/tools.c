/* tools.c: the servers' tools as mc-tool list offers tools, and a tools/call answer as the text the model reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "diag.h"
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
			/* A call of it would only fail: the task protocol
			 * (2025-11-25) is not spoken here. */
			if ((task = mc_json_str(mc_json_obj(t, "execution"), "taskSupport")) != NULL &&
			    strcmp(task, "required") == 0) {
				mc_warn("server \"%s\": tool \"%s\" is left out: it can only be run as a task",
				    sv->name, tname);
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

char *
mcp_answer_text(const cJSON *answer)
{
	const cJSON *error = mc_json_obj(answer, "error"), *c, *code;
	const cJSON *result = mc_json_obj(answer, "result");
	const cJSON *structured = cJSON_GetObjectItemCaseSensitive(result, "structuredContent");
	struct mc_buf b = {0};
	size_t n = 0;
	char *s;

	if (error != NULL) {
		code = cJSON_GetObjectItemCaseSensitive(error, "code");
		mc_buf_printf(&b, "error: the MCP server refused the call: %s (JSON-RPC error %.0f)",
		    mc_json_str(error, "message") ? mc_json_str(error, "message") : "no reason given",
		    cJSON_IsNumber(code) ? code->valuedouble : 0.0);
	} else {
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "isError")))
			mc_buf_adds(&b, "error: ");
		cJSON_ArrayForEach(c, mc_json_arr(result, "content")) {
			if (n++)
				mc_buf_addc(&b, '\n');
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
	s = mc_clip_text(b.data ? b.data : "", b.len, MC_CLIP_MAX, NULL);
	mc_buf_free(&b);
	if (s == NULL)
		mc_oom();
	return s;
}
