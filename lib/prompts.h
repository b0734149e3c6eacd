/* prompts.h: the bundled prompt fragments, compiled into mc-render from the files in prompts/. */
#ifndef MC_PROMPTS_H
#define MC_PROMPTS_H

#include <stddef.h>

struct mc_prompt {
	const char *name;	/* "system.md" */
	const char *data;	/* the file, byte for byte, NUL-terminated */
	size_t len;
};

/* Ended by an entry with a NULL name. Defined in the generated prompts.c. */
extern const struct mc_prompt mc_prompts[];

#endif
