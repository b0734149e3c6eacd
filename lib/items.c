/* items.c: read and check conversation items, one JSON object per line. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sha256.h>

#include "diag.h"
#include "buf.h"
#include "items.h"
#include "json.h"
#include "strset.h"
#include "fsread.h"
#include "image.h"
#include "utf8.h"

struct call {
	char *id;		/* the checker's own copy */
	size_t line;
	int answered;
};

struct mc_items_check {
	char *name;
	size_t line;
	char *err;
	size_t errsz;
	struct call *calls;
	size_t ncalls, ncap;
	/* An open-addressing index of calls by id (index + 1; 0 is empty), so
	 * that a session of many calls is not checked in quadratic time. */
	size_t *slots;
	size_t nslots;		/* a power of two, at least twice ncalls */
};

static cJSON *
fail(struct mc_items_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static cJSON *
fail(struct mc_items_check *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(c->err, c->errsz, "%s:%zu: ", c->name, c->line);
	if (n < 0 || (size_t)n >= c->errsz)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errsz - (size_t)n, fmt, ap);
	va_end(ap);
	return NULL;
}

/* The string member key of obj, moved into out (obj is the line's, and
 * goes after: a tool's long output is not copied); NULL with err set when
 * it is missing or not a string. */
static const char *
field(struct mc_items_check *c, cJSON *obj, const char *type, const char *key, cJSON *out)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (v == NULL) {
		fail(c, "%s: missing \"%s\"", type, key);
		return NULL;
	}
	if (!cJSON_IsString(v)) {
		fail(c, "%s: \"%s\" must be a string", type, key);
		return NULL;
	}
	mc_json_add(out, key, cJSON_DetachItemViaPointer(obj, v));
	return v->valuestring;
}

static struct call *
find_call(const struct mc_items_check *c, const char *id)
{
	size_t i, m = c->nslots - 1;

	if (c->nslots == 0)
		return NULL;
	for (i = mc_strhash(id) & m; c->slots[i] != 0; i = (i + 1) & m)
		if (strcmp(c->calls[c->slots[i] - 1].id, id) == 0)
			return &c->calls[c->slots[i] - 1];
	return NULL;
}

static void
slot(struct mc_items_check *c, size_t k)
{
	size_t i, m = c->nslots - 1;

	for (i = mc_strhash(c->calls[k].id) & m; c->slots[i] != 0; i = (i + 1) & m)
		;
	c->slots[i] = k + 1;
}

/* Remember a call whose id is not yet known. */
static void
add_call(struct mc_items_check *c, const char *id)
{
	struct call *calls;
	size_t k;

	if (c->ncalls == c->ncap) {
		c->ncap = c->ncap ? c->ncap * 2 : 16;
		if ((calls = reallocarray(c->calls, c->ncap, sizeof *c->calls)) == NULL)
			mc_oom();
		c->calls = calls;
	}
	c->calls[c->ncalls++] = (struct call){ mc_strdup(id), c->line, 0 };
	if (c->ncalls * 2 > c->nslots) {
		free(c->slots);
		c->nslots = c->nslots ? c->nslots * 2 : 64;
		if ((c->slots = calloc(c->nslots, sizeof *c->slots)) == NULL)
			mc_oom();
		for (k = 0; k < c->ncalls; k++)
			slot(c, k);
	} else
		slot(c, c->ncalls - 1);
}

/* A reasoning item: "text", and the API's own "api" and "data" when given. */
static int
reasoning(struct mc_items_check *c, cJSON *in, cJSON *out)
{
	cJSON *d;

	if (field(c, in, "reasoning", "text", out) == NULL)
		return -1;
	if (cJSON_HasObjectItem(in, "api") && field(c, in, "reasoning", "api", out) == NULL)
		return -1;
	if ((d = cJSON_GetObjectItemCaseSensitive(in, "data")) == NULL)
		return 0;
	if (!cJSON_IsObject(d)) {
		fail(c, "reasoning: \"data\" must be an object");
		return -1;
	}
	if (!cJSON_HasObjectItem(out, "api")) {
		fail(c, "reasoning: \"data\" needs the \"api\" it belongs to");
		return -1;
	}
	mc_json_add(out, "data", cJSON_DetachItemViaPointer(in, d));
	return 0;
}

/* The images an item carries, by reference ("images":[REF,...], each
 * checked by image.c), moved into out when there are any. */
static int
images(struct mc_items_check *c, cJSON *in, const char *type, cJSON *out)
{
	cJSON *a = cJSON_GetObjectItemCaseSensitive(in, "images"), *r;
	char why[160];
	int i = 0;

	if (a == NULL)
		return 0;
	if (!cJSON_IsArray(a)) {
		fail(c, "%s: \"images\" must be an array of image references", type);
		return -1;
	}
	cJSON_ArrayForEach(r, a) {
		if (mc_image_ref_check(r, why, sizeof why) == -1) {
			fail(c, "%s: \"images\"[%d]: %s", type, i, why);
			return -1;
		}
		i++;
	}
	if (i > 0)
		mc_json_add(out, "images", cJSON_DetachItemViaPointer(in, a));
	return 0;
}

/* Check one parsed line and return its reduced form, or NULL. */
static cJSON *
check_item(struct mc_items_check *c, cJSON *in)
{
	const char *type, *role, *id, *st = NULL;
	struct call *call;
	cJSON *out;

	if (!cJSON_IsObject(in))
		return fail(c, "expected a JSON object");
	if ((type = mc_json_str(in, "type")) == NULL)
		return fail(c, cJSON_HasObjectItem(in, "type") ?
		    "\"type\" must be a string" : "missing \"type\"");
	out = mc_json_new_obj();
	mc_json_add_str(out, "type", type);
	if (strcmp(type, "message") == 0) {
		if ((role = field(c, in, type, "role", out)) == NULL)
			goto bad;
		if (strcmp(role, "user") != 0 && strcmp(role, "assistant") != 0) {
			fail(c, "message: unknown role \"%s\" (expected \"user\" or \"assistant\"; "
			    "the system prompt comes on standard input)", role);
			goto bad;
		}
		if (field(c, in, type, "content", out) == NULL)
			goto bad;
		/* An answer's refusal and a cut answer's mark, kept with it. */
		if (cJSON_HasObjectItem(in, "refusal") && strcmp(role, "assistant") != 0) {
			fail(c, "message: \"refusal\" belongs to an assistant message");
			goto bad;
		}
		if (cJSON_HasObjectItem(in, "refusal") && field(c, in, type, "refusal", out) == NULL)
			goto bad;
		if (cJSON_HasObjectItem(in, "status") && ((st = mc_json_str(in, "status")) == NULL ||
		    (strcmp(st, "completed") != 0 && strcmp(st, "incomplete") != 0))) {
			fail(c, "message: \"status\" must be \"completed\" or \"incomplete\"");
			goto bad;
		}
		if (cJSON_HasObjectItem(in, "status"))
			mc_json_add_str(out, "status", st);
		if (cJSON_HasObjectItem(in, "images") && strcmp(role, "user") != 0) {
			fail(c, "message: \"images\" belong to a user message");
			goto bad;
		}
		if (images(c, in, type, out) == -1)
			goto bad;
	} else if (strcmp(type, "function_call") == 0) {
		if ((id = field(c, in, type, "call_id", out)) == NULL ||
		    field(c, in, type, "name", out) == NULL ||
		    field(c, in, type, "arguments", out) == NULL)
			goto bad;
		if (*id == '\0') {
			fail(c, "function_call: empty \"call_id\"");
			goto bad;
		}
		if ((call = find_call(c, id)) != NULL) {
			fail(c, "function_call: call_id \"%s\" already used on line %zu", id, call->line);
			goto bad;
		}
		add_call(c, id);
	} else if (strcmp(type, "function_call_output") == 0) {
		if ((id = field(c, in, type, "call_id", out)) == NULL ||
		    field(c, in, type, "output", out) == NULL)
			goto bad;
		if ((call = find_call(c, id)) == NULL) {
			fail(c, "function_call_output: no function_call with call_id \"%s\" before it", id);
			goto bad;
		}
		if (call->answered) {
			fail(c, "function_call_output: call_id \"%s\" (line %zu) already has an output",
			    id, call->line);
			goto bad;
		}
		if (images(c, in, type, out) == -1)
			goto bad;
		call->answered = 1;
	} else if (strcmp(type, "reasoning") == 0) {
		if (reasoning(c, in, out) == -1)
			goto bad;
	} else if (strcmp(type, "session") == 0) {
		fail(c, "a \"session\" header is allowed only on line 1");
		goto bad;
	} else {
		fail(c, "unknown item type \"%s\" (expected \"message\", \"function_call\", "
		    "\"function_call_output\" or \"reasoning\")", type);
		goto bad;
	}
	return out;
bad:
	cJSON_Delete(out);
	return NULL;
}

/* Lines a session holds for its own bookkeeping, not conversation: kept
 * in the file, skipped here, never sent. */
static const char *const bookkeeping[] = {
	"model",	/* {"type":"model","provider","model"}: what the session uses from here on */
	"usage",	/* {"type":"usage",...}: the tokens of the answer before it */
	"title",	/* {"type":"title","title"}: the session's title from here on */
	"tools_loaded",	/* {"type":"tools_loaded","names"}: the tools tool_search loaded */
	NULL
};

int
mc_item_maybe_bookkeeping(const char *p, size_t n)
{
	char quoted[32];
	size_t i;
	int k;

	for (i = 0; bookkeeping[i] != NULL; i++) {
		k = snprintf(quoted, sizeof quoted, "\"%s\"", bookkeeping[i]);
		if (memmem(p, n, quoted, (size_t)k) != NULL)
			return 1;
	}
	return 0;
}

int
mc_item_bookkeeping(const cJSON *doc)
{
	const char *type = mc_json_str(doc, "type");
	size_t i;

	for (i = 0; type != NULL && bookkeeping[i] != NULL; i++)
		if (strcmp(type, bookkeeping[i]) == 0)
			return 1;
	return 0;
}

static int
blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strchr(" \t\r", s[i]) == NULL)
			return 0;
	return 1;
}

/* Parse one line (no newline in it) as a JSON document. */
static cJSON *
parse_line(struct mc_items_check *c, const char *s, size_t n)
{
	const char *end = NULL;
	cJSON *doc;

	if (memchr(s, '\0', n) != NULL)
		return fail(c, "NUL byte in line");
	if (!mc_utf8_valid(s, n))
		return fail(c, "not valid UTF-8");
	if ((doc = mc_json_parse_doc(s, n, &end)) == NULL)
		return fail(c, "invalid JSON at column %zu", (size_t)(end - s) + 1);
	if (mc_json_nul_escape(s, n)) {
		cJSON_Delete(doc);
		return fail(c, "a string holds a NUL character (\\u0000)");
	}
	while (end < s + n && strchr(" \t\r", *end) != NULL)
		end++;
	if (end < s + n) {
		cJSON_Delete(doc);
		return fail(c, "invalid JSON: unexpected data after the object at column %zu",
		    (size_t)(end - s) + 1);
	}
	return doc;
}

struct mc_items_check *
mc_items_check_new(const char *name)
{
	struct mc_items_check *c;

	if ((c = calloc(1, sizeof *c)) == NULL)
		mc_oom();
	c->name = mc_strdup(name);
	return c;
}

int
mc_items_check_line(struct mc_items_check *c, const char *s, size_t n, cJSON **item,
    char *err, size_t errsz)
{
	cJSON *doc;

	*item = NULL;
	c->err = err;
	c->errsz = errsz;
	c->line++;
	if (blank(s, n))
		return 0;
	if ((doc = parse_line(c, s, n)) == NULL)
		return -1;
	if ((c->line == 1 && cJSON_IsObject(doc) &&
	    strcmp(mc_json_str(doc, "type") ? mc_json_str(doc, "type") : "", "session") == 0) ||
	    (cJSON_IsObject(doc) && mc_item_bookkeeping(doc))) {
		cJSON_Delete(doc);
		return 0;
	}
	*item = check_item(c, doc);
	cJSON_Delete(doc);
	return *item != NULL ? 1 : -1;
}

void
mc_items_check_where(const struct mc_items_check *c, char *out, size_t outsz)
{
	snprintf(out, outsz, "%s:%zu", c->name, c->line);
}

void
mc_items_check_free(struct mc_items_check *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->ncalls; i++)
		free(c->calls[i].id);
	free(c->calls);
	free(c->slots);
	free(c->name);
	free(c);
}

cJSON *
mc_items_parse(const char *name, const char *s, size_t len, char *err, size_t errsz)
{
	struct mc_items_check *c = mc_items_check_new(name);
	const char *p = s, *end = s + len, *nl;
	cJSON *items = mc_json_new_arr(), *it;
	int r;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if ((r = mc_items_check_line(c, p, (size_t)(nl - p), &it, err, errsz)) == -1) {
			cJSON_Delete(items);
			items = NULL;
			break;
		}
		if (r == 1)
			mc_json_push(items, it);
	}
	mc_items_check_free(c);
	return items;
}

cJSON *
mc_items_load(const char *path, char *err, size_t errsz)
{
	struct mc_buf b = {0};
	cJSON *items = NULL;

	if (mc_slurp_path(path, MC_ITEMS_MAX, &b, err, errsz) == 0)
		items = mc_items_parse(path, b.data ? b.data : "", b.len, err, errsz);
	mc_buf_free(&b);
	return items;
}

cJSON *
mc_item_message(const char *role, const char *text)
{
	cJSON *m = mc_json_new_obj();

	mc_json_add_str(m, "type", "message");
	mc_json_add_str(m, "role", role);
	mc_json_add_str(m, "content", text);
	return m;
}

cJSON *
mc_item_reasoning(const char *text, const char *api, const cJSON *data)
{
	cJSON *r = mc_json_new_obj();

	mc_json_add_str(r, "type", "reasoning");
	mc_json_add_str(r, "text", text);
	if (api != NULL)
		mc_json_add_str(r, "api", api);
	if (data != NULL)
		mc_json_add(r, "data", cJSON_Duplicate(data, 1));
	return r;
}

cJSON *
mc_item_hook_message(const char *hook, const char *text)
{
	cJSON *m = mc_item_message("user", text);

	mc_json_add_str(m, "hook", hook);
	return m;
}

cJSON *
mc_item_shell_message(const char *command, const char *output)
{
	struct mc_buf body = {0}, b = {0};
	cJSON *m;

	mc_buf_printf(&body, "$ %s\n%s", command, output);
	mc_buf_adds(&b, "I ran a command in the sandbox:\n");
	mc_buf_fence(&b, "", body.data, body.len);
	m = mc_item_message("user", b.data);
	mc_json_add_str(m, "shell", command);
	mc_buf_free(&body);
	mc_buf_free(&b);
	return m;
}

cJSON *
mc_item_call(const char *call_id, const char *name, const char *arguments)
{
	cJSON *c = mc_json_new_obj();

	mc_json_add_str(c, "type", "function_call");
	mc_json_add_str(c, "call_id", call_id);
	mc_json_add_str(c, "name", name);
	mc_json_add_str(c, "arguments", arguments);
	return c;
}

/* The fields are C strings, so a NUL between them keeps them apart. */
void
mc_item_call_id(char id[MC_CALL_ID_SIZE], unsigned long long n, const char *name,
    const char *arguments)
{
	char hex[SHA256_DIGEST_STRING_LENGTH];
	struct mc_buf b = {0};

	mc_buf_printf(&b, "mc call id 1:%llu", n);
	mc_buf_addc(&b, '\0');
	mc_buf_adds(&b, name ? name : "");
	mc_buf_addc(&b, '\0');
	mc_buf_adds(&b, arguments ? arguments : "");
	SHA256Data((const uint8_t *)b.data, b.len, hex);
	mc_buf_free(&b);
	memcpy(id, "call_", 5);
	memcpy(id + 5, hex, 24);
	id[5 + 24] = '\0';
}

cJSON *
mc_item_output(const char *call_id, const char *output)
{
	cJSON *o = mc_json_new_obj();

	mc_json_add_str(o, "type", "function_call_output");
	mc_json_add_str(o, "call_id", call_id);
	mc_json_add_str(o, "output", output);
	return o;
}

int
mc_item_call_check(const cJSON *item, char *err, size_t errsz)
{
	const char *type = mc_json_str(item, "type"), *id = mc_json_str(item, "call_id");
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(item, "arguments");

	if (!cJSON_IsObject(item) || type == NULL || strcmp(type, "function_call") != 0) {
		snprintf(err, errsz, "expected an item of type \"function_call\"");
		return -1;
	}
	if (id == NULL || *id == '\0' || mc_json_str(item, "name") == NULL ||
	    !(cJSON_IsString(a) || cJSON_IsObject(a))) {
		snprintf(err, errsz, "a function_call needs string members call_id, name and arguments");
		return -1;
	}
	return 0;
}

cJSON *
mc_item_call_read(int fd, char *err, size_t errsz)
{
	cJSON *item;
	int empty;

	if ((item = mc_json_read_fd(fd, &empty, err, errsz)) == NULL) {
		if (empty)
			snprintf(err, errsz, "expected a function_call item, got nothing");
		return NULL;
	}
	if (mc_item_call_check(item, err, errsz) == -1) {
		cJSON_Delete(item);
		return NULL;
	}
	return item;
}

cJSON *
mc_item_call_args(const cJSON *item, char *err, size_t errsz)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(item, "arguments");
	const char *s;
	char why[128];
	cJSON *args;

	if (cJSON_IsObject(a)) {
		if ((args = cJSON_Duplicate(a, 1)) == NULL)
			mc_oom();
		return args;
	}
	s = a->valuestring;
	if (s[strspn(s, " \t\r\n")] == '\0')
		return mc_json_new_obj();
	if ((args = mc_json_parse(s, strlen(s), why, sizeof why)) == NULL) {
		snprintf(err, errsz, "are not valid JSON (%s)", why);
		return NULL;
	}
	if (mc_json_nul_escape(s, strlen(s)) != NULL)
		snprintf(err, errsz, "hold a NUL character (\\u0000)");
	else if (!cJSON_IsObject(args))
		snprintf(err, errsz, "must be a JSON object");
	else
		return args;
	cJSON_Delete(args);
	return NULL;
}
