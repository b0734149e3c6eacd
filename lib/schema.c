/* schema.c: whether a JSON value matches a JSON Schema, in the subset strict structured outputs allow. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bsd/string.h>

#include "buf.h"
#include "schema.h"

#define REF_HOPS 64	/* $refs followed one after the other without descending */

struct check {
	const cJSON *root;
	struct mc_buf path;	/* the JSON pointer of the value being checked */
	char *ptr, *why;
	size_t ptrsz, whysz;
};

static int fail(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The mismatch where the value's pointer is now. */
static int
fail(struct check *c, const char *fmt, ...)
{
	va_list ap;

	snprintf(c->ptr, c->ptrsz, "%.*s", (int)c->path.len, c->path.data ? c->path.data : "");
	va_start(ap, fmt);
	vsnprintf(c->why, c->whysz, fmt, ap);
	va_end(ap);
	return -1;
}

/* One more step of the pointer: a member name, escaped as RFC 6901 says. */
static void
path_push(struct check *c, const char *name)
{
	mc_buf_addc(&c->path, '/');
	for (; *name != '\0'; name++)
		if (*name == '~')
			mc_buf_adds(&c->path, "~0");
		else if (*name == '/')
			mc_buf_adds(&c->path, "~1");
		else
			mc_buf_addc(&c->path, *name);
}

static const char *
type_name(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "string";
	if (cJSON_IsNumber(v))
		return "number";
	if (cJSON_IsBool(v))
		return "boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsArray(v))
		return "array";
	return "object";
}

static int
type_is(const char *name, const cJSON *v)
{
	if (strcmp(name, "integer") == 0)
		return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
		    v->valuedouble == floor(v->valuedouble);
	return strcmp(name, type_name(v)) == 0;
}

/* The type keyword: a name, or an array of names. */
static int
check_type(struct check *c, const cJSON *t, const cJSON *v)
{
	char want[256] = "";
	const cJSON *e;

	if (cJSON_IsString(t)) {
		if (type_is(t->valuestring, v))
			return 0;
		return fail(c, "expected %s, got %s", t->valuestring, type_name(v));
	}
	if (!cJSON_IsArray(t))
		return 0;
	cJSON_ArrayForEach(e, t) {
		if (!cJSON_IsString(e))
			continue;
		if (type_is(e->valuestring, v))
			return 0;
		if (want[0] != '\0')
			strlcat(want, " or ", sizeof want);
		strlcat(want, e->valuestring, sizeof want);
	}
	return want[0] ? fail(c, "expected %s, got %s", want, type_name(v)) : 0;
}

/* The member or element a pointer's step names, unescaped. */
static const cJSON *
step(const cJSON *at, const char *s, size_t n)
{
	struct mc_buf k = {0};
	const cJSON *r;
	size_t i;
	char *end;

	for (i = 0; i < n; i++)
		if (s[i] == '~' && i + 1 < n && (s[i + 1] == '0' || s[i + 1] == '1'))
			mc_buf_addc(&k, s[++i] == '0' ? '~' : '/');
		else
			mc_buf_addc(&k, s[i]);
	mc_buf_adds(&k, "");
	if (cJSON_IsArray(at)) {
		long j = strtol(k.data, &end, 10);

		r = *end == '\0' && end != k.data && j >= 0 ? cJSON_GetArrayItem(at, (int)j) : NULL;
	} else
		r = cJSON_GetObjectItemCaseSensitive(at, k.data);
	mc_buf_free(&k);
	return r;
}

/* What a $ref names: "#", or "#/..." a pointer into the root; NULL else. */
static const cJSON *
resolve(const cJSON *root, const char *ref)
{
	const cJSON *at = root;
	const char *p, *q;

	if (ref[0] != '#' || (ref[1] != '\0' && ref[1] != '/'))
		return NULL;
	for (p = ref + 1; at != NULL && *p == '/'; p = q) {
		q = strchr(p + 1, '/');
		if (q == NULL)
			q = p + strlen(p);
		at = step(at, p + 1, (size_t)(q - p - 1));
	}
	return at;
}

static int check(struct check *c, const cJSON *s, const cJSON *v, int hops);

/* A member or element below v: checked with the pointer one step longer. */
static int
below(struct check *c, const cJSON *s, const cJSON *v, const char *name)
{
	size_t at = c->path.len;
	int r;

	path_push(c, name);
	r = check(c, s, v, 0);
	c->path.len = at;
	return r;
}

static int
check_object(struct check *c, const cJSON *s, const cJSON *v)
{
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
	const cJSON *more = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
	const cJSON *e, *ps;
	size_t at;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s, "required")) {
		if (!cJSON_IsString(e) || cJSON_HasObjectItem(v, e->valuestring))
			continue;
		at = c->path.len;
		path_push(c, e->valuestring);
		fail(c, "missing: the schema requires it");
		c->path.len = at;
		return -1;
	}
	cJSON_ArrayForEach(e, v) {
		ps = cJSON_IsObject(props) ? cJSON_GetObjectItemCaseSensitive(props, e->string) : NULL;
		if (ps == NULL && cJSON_IsFalse(more)) {
			at = c->path.len;
			path_push(c, e->string);
			fail(c, "not allowed: the schema has no such property "
			    "(additionalProperties is false)");
			c->path.len = at;
			return -1;
		}
		if (ps == NULL && cJSON_IsObject(more))
			ps = more;
		if (ps != NULL && below(c, ps, e, e->string) == -1)
			return -1;
	}
	return 0;
}

static int
check_array(struct check *c, const cJSON *s, const cJSON *v)
{
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items"), *e;
	char ix[24];
	int i = 0;

	if (!cJSON_IsObject(items) && !cJSON_IsBool(items))
		return 0;
	cJSON_ArrayForEach(e, v) {
		snprintf(ix, sizeof ix, "%d", i++);
		if (below(c, items, e, ix) == -1)
			return -1;
	}
	return 0;
}

/* anyOf: one of its schemas must match; the mismatches of the others are
 * not the value's first (they are alternatives), so only the count is said. */
static int
check_any(struct check *c, const cJSON *any, const cJSON *v, int hops)
{
	const cJSON *e;
	if (!cJSON_IsArray(any) || cJSON_GetArraySize(any) == 0)
		return 0;
	cJSON_ArrayForEach(e, any)
		if (check(c, e, v, hops) == 0)
			return 0;
	return fail(c, "matches none of the %d schemas of anyOf", cJSON_GetArraySize(any));
}

static int
check(struct check *c, const cJSON *s, const cJSON *v, int hops)
{
	const cJSON *k, *e;
	const char *ref;

	if (cJSON_IsFalse(s))
		return fail(c, "not allowed: the schema allows no value here");
	if (!cJSON_IsObject(s))
		return 0;
	if ((ref = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "$ref"))) != NULL) {
		if ((e = resolve(c->root, ref)) == NULL)
			return fail(c, "the schema's $ref %s names nothing in it", ref);
		if (hops >= REF_HOPS)
			return fail(c, "the schema's $ref %s leads round to itself", ref);
		if (check(c, e, v, hops + 1) == -1)
			return -1;
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "type")) != NULL && check_type(c, k, v) == -1)
		return -1;
	if (cJSON_IsArray(k = cJSON_GetObjectItemCaseSensitive(s, "enum"))) {
		cJSON_ArrayForEach(e, k)
			if (cJSON_Compare(e, v, 1))
				break;
		if (e == NULL)
			return fail(c, "not one of the values the schema's enum allows");
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "const")) != NULL && !cJSON_Compare(k, v, 1))
		return fail(c, "not the value the schema's const wants");
	if (check_any(c, cJSON_GetObjectItemCaseSensitive(s, "anyOf"), v, hops) == -1)
		return -1;
	if (cJSON_IsObject(v))
		return check_object(c, s, v);
	if (cJSON_IsArray(v))
		return check_array(c, s, v);
	return 0;
}

int
mc_schema_check(const cJSON *schema, const cJSON *value, char *ptr, size_t ptrsz,
    char *why, size_t whysz)
{
	struct check c = { .root = schema, .ptr = ptr, .why = why, .ptrsz = ptrsz,
	    .whysz = whysz };
	int r;

	if (ptrsz > 0)
		ptr[0] = '\0';
	if (whysz > 0)
		why[0] = '\0';
	r = check(&c, schema, value, 0);
	mc_buf_free(&c.path);
	return r;
}
