/* fuzz/template.c: libFuzzer target for the strict {{variable}} template renderer. */
#include <stdint.h>
#include <string.h>

#include "template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const values[MC_TVAR_N] = { "true", "Linux", "TERM=xterm" };
	struct mc_template_error e;
	struct mc_buf out = {0};
	unsigned used = 0;
	int scanned, rendered;

	scanned = mc_template_scan((const char *)data, size, &used, &e);
	rendered = mc_template_render((const char *)data, size, values, &out, &e);
	/* The checker and the renderer must agree on what is valid. */
	if ((scanned == 0) != (rendered == 0))
		__builtin_trap();
	/* Text without variables comes out unchanged. */
	if (rendered == 0 && used == 0 &&
	    (out.len != size || (size && memcmp(out.data, data, size) != 0)))
		__builtin_trap();
	mc_buf_free(&out);
	return 0;
}
