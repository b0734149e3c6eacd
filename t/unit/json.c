/* t/unit/json.c: mc_json_compact writes exactly what cJSON_PrintUnformatted writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static const char *const docs[] = {
	"{}", "[]", "\"\"", "0", "-1", "true", "false", "null",
	"[2147483647,-2147483648,2147483648,-2147483649,4294967296]",
	"[0.1,1e300,-1.5e-7,123456789012345678,3.141592653589793,1e-320,0.30000000000000004]",
	"{\"a\":{\"b\":[1,[2,[3,{}]],\"c\"]},\"d\":null,\"e\":[true,false]}",
	"\"quote \\\" backslash \\\\ slash / tab \\t nl \\n cr \\r bs \\b ff \\f\"",
	"\"\\u0001\\u0002\\u001f\\u007f \\u00e9 \\u20ac \\ud83d\\ude00\"",
	"{\"k\\n\\u0001ey\":\"v\"}",
	"\"caf\xc3\xa9 \xf0\x9f\x99\x82\"",
	"{\"instructions\":[{\"source\":\"repo\",\"bytes\":45,\"content\":\"line\\nline\\n\"}]}",
};

int
main(void)
{
	char err[128], *want, *got, ctl[40];
	size_t i, n;
	cJSON *doc;
	int fail = 0;

	for (i = 0; i < sizeof docs / sizeof docs[0] + 1; i++) {
		if (i < sizeof docs / sizeof docs[0])
			doc = mc_json_parse(docs[i], strlen(docs[i]), err, sizeof err);
		else {
			/* every control character, raw in a string */
			for (n = 0; n < 31; n++)
				ctl[n] = (char)(n + 1);
			ctl[31] = '\0';
			doc = cJSON_CreateString(ctl);
		}
		if (doc == NULL) {
			printf("json: case %zu does not parse: %s\n", i, err);
			fail = 1;
			continue;
		}
		want = cJSON_PrintUnformatted(doc);
		got = mc_json_compact(doc, &n);
		if (want == NULL || got == NULL || strcmp(want, got) != 0 || n != strlen(want)) {
			printf("json: case %zu:\n  cJSON: %s\n  ours:  %s\n", i, want, got);
			fail = 1;
		}
		free(want);
		free(got);
		cJSON_Delete(doc);
	}
	return fail;
}
