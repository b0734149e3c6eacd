/* fuzz/settings.c: libFuzzer target for the settings.json loader. */
#include <stdint.h>
#include <string.h>

#include "diag.h"
#include "settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mc_settings s = {0};
	char err[1024];

	s.path = mc_strdup("settings.json");
	if (mc_settings_parse(&s, (const char *)data, size, err, sizeof err) == 0) {
		mc_settings_get(&s, "knowledge.skills.disabled");
		mc_settings_listed(&s, "tools.disabled", "bash");
	}
	mc_settings_free(&s);
	return 0;
}
