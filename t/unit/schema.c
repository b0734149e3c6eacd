/* schema.c: unit tests for lib/schema.c (the strict-mode subset of JSON Schema, the first mismatch by pointer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"

static int failures;

static const struct {
	const char *schema, *value;
	const char *ptr;	/* NULL: it matches */
	const char *why;	/* the start of the reason */
} cases[] = {
	/* type */
	{ "{\"type\":\"string\"}", "\"x\"", NULL, NULL },
	{ "{\"type\":\"object\",\"properties\":{\"answer\":{\"type\":\"string\"}}}",
	  "{\"answer\":5}", "/answer", "expected string, got number" },
	{ "{\"type\":\"integer\"}", "4", NULL, NULL },
	{ "{\"type\":\"integer\"}", "4.5", "", "expected integer, got number" },
	{ "{\"type\":\"number\"}", "4", NULL, NULL },
	{ "{\"type\":\"boolean\"}", "null", "", "expected boolean, got null" },
	{ "{\"type\":\"array\"}", "{}", "", "expected array, got object" },
	/* nullable unions */
	{ "{\"type\":[\"string\",\"null\"]}", "null", NULL, NULL },
	{ "{\"type\":[\"string\",\"null\"]}", "\"a\"", NULL, NULL },
	{ "{\"type\":[\"string\",\"null\"]}", "1", "", "expected string or null, got number" },
	/* required, additionalProperties */
	{ "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}",
	  "{}", "/n", "missing" },
	{ "{\"type\":\"object\",\"properties\":{\"n\":{}},\"additionalProperties\":false}",
	  "{\"n\":1,\"m\":2}", "/m", "not allowed" },
	{ "{\"type\":\"object\",\"properties\":{\"n\":{}}}", "{\"n\":1,\"m\":2}", NULL, NULL },
	{ "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}",
	  "{\"a\":\"x\",\"b\":3}", "/b", "expected string" },
	/* the first mismatch, in the value's order; pointers escaped */
	{ "{\"properties\":{\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"string\"}}}",
	  "{\"b\":1,\"a\":2}", "/b", "expected string" },
	{ "{\"properties\":{\"a/b~c\":{\"type\":\"string\"}}}", "{\"a/b~c\":1}", "/a~1b~0c",
	  "expected string" },
	/* items */
	{ "{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":"
	  "{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}",
	  "[{\"name\":\"a\"},{\"name\":\"b\"},{}]", "/2/name", "missing" },
	{ "{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}", "[1,2,3]", NULL, NULL },
	/* enum, const */
	{ "{\"enum\":[\"red\",\"green\"]}", "\"green\"", NULL, NULL },
	{ "{\"enum\":[\"red\",\"green\"]}", "\"blue\"", "", "not one of the values" },
	{ "{\"enum\":[1,{\"a\":[true]}]}", "{\"a\":[true]}", NULL, NULL },
	{ "{\"const\":\"v1\"}", "\"v1\"", NULL, NULL },
	{ "{\"const\":\"v1\"}", "\"V1\"", "", "not the value" },
	/* anyOf */
	{ "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "3", NULL, NULL },
	{ "{\"properties\":{\"x\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}}}",
	  "{\"x\":true}", "/x", "matches none of the 2 schemas of anyOf" },
	/* $ref, $defs, recursion */
	{ "{\"$defs\":{\"n\":{\"type\":\"integer\"}},\"type\":\"object\","
	  "\"properties\":{\"a\":{\"$ref\":\"#/$defs/n\"}}}", "{\"a\":1}", NULL, NULL },
	{ "{\"$defs\":{\"n\":{\"type\":\"integer\"}},\"type\":\"object\","
	  "\"properties\":{\"a\":{\"$ref\":\"#/$defs/n\"}}}", "{\"a\":\"1\"}", "/a",
	  "expected integer, got string" },
	{ "{\"definitions\":{\"n\":{\"type\":\"integer\"}},\"$ref\":\"#/definitions/n\"}", "1",
	  NULL, NULL },
	{ "{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"integer\"},"
	  "\"next\":{\"anyOf\":[{\"$ref\":\"#\"},{\"type\":\"null\"}]}},\"required\":[\"v\",\"next\"]}",
	  "{\"v\":1,\"next\":{\"v\":2,\"next\":{\"v\":\"3\",\"next\":null}}}", "/next",
	  "matches none" },
	{ "{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"integer\"},"
	  "\"next\":{\"anyOf\":[{\"$ref\":\"#\"},{\"type\":\"null\"}]}},\"required\":[\"v\",\"next\"]}",
	  "{\"v\":1,\"next\":{\"v\":2,\"next\":null}}", NULL, NULL },
	{ "{\"$ref\":\"#/$defs/missing\"}", "1", "", "the schema's $ref #/$defs/missing names nothing" },
	{ "{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/a\"}},\"$ref\":\"#/$defs/a\"}", "1", "",
	  "the schema's $ref #/$defs/a leads round" },
	/* keywords outside the subset are not checked */
	{ "{\"type\":\"string\",\"minLength\":5,\"pattern\":\"^z\",\"description\":\"d\"}", "\"a\"",
	  NULL, NULL },
};

int
main(void)
{
	char ptr[256], why[256];
	cJSON *s, *v;
	size_t i;
	int r;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		s = cJSON_Parse(cases[i].schema);
		v = cJSON_Parse(cases[i].value);
		if (s == NULL || v == NULL) {
			printf("schema: case %zu: bad JSON in the test\n", i);
			failures++;
			continue;
		}
		r = mc_schema_check(s, v, ptr, sizeof ptr, why, sizeof why);
		if (cases[i].ptr == NULL && r != 0) {
			printf("schema: case %zu: %s against %s: mismatch at \"%s\": %s\n", i,
			    cases[i].value, cases[i].schema, ptr, why);
			failures++;
		} else if (cases[i].ptr != NULL && (r != -1 || strcmp(ptr, cases[i].ptr) != 0 ||
		    strncmp(why, cases[i].why, strlen(cases[i].why)) != 0)) {
			printf("schema: case %zu: %s against %s: got %d at \"%s\": %s; want \"%s\": %s\n",
			    i, cases[i].value, cases[i].schema, r, ptr, why, cases[i].ptr, cases[i].why);
			failures++;
		}
		cJSON_Delete(s);
		cJSON_Delete(v);
	}
	if (failures == 0)
		puts("schema: ok");
	return failures != 0;
}
