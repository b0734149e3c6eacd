/* fuzz/frontmatter.c: libFuzzer target for the flat frontmatter parser. */
#include <stdint.h>
#include <string.h>

#include "frontmatter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_frontmatter fm;
	size_t i;

	mc_frontmatter_parse((const char *)data, size, &fm);
	/* The body is a tail of the input; every field is a string. */
	if (fm.body < (const char *)data || fm.body + fm.body_len != (const char *)data + size)
		__builtin_trap();
	for (i = 0; i < fm.nfields; i++)
		if (strlen(fm.fields[i].key) == 0 && fm.fields[i].value == NULL)
			__builtin_trap();
	mc_frontmatter_get(&fm, "description");
	mc_frontmatter_free(&fm);
	return 0;
}
