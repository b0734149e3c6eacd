/* template.h: the strict {{variable}} language of prompt fragments (pure: no I/O). */
#ifndef MC_TEMPLATE_H
#define MC_TEMPLATE_H

#include <stddef.h>

#include "buf.h"

/* The only variables there are. Names are exact and case-sensitive. */
enum mc_tvar {
	MC_TVAR_HAS_RIPGREP,		/* {{has_ripgrep}} */
	MC_TVAR_OPERATING_SYSTEM,	/* {{operating_system}} */
	MC_TVAR_TERMINAL_ENVIRONMENT,	/* {{terminal_environment}} */
	MC_TVAR_N
};

#define MC_TEMPLATE_TOKEN_MAX 80

struct mc_template_error {
	const char *what;	/* "unknown variable", "unterminated variable", ... */
	char token[MC_TEMPLATE_TOKEN_MAX]; /* the offending token, cut with "..." */
	size_t offset;		/* where the token's "{{" starts */
};

/*
 * Check text (len bytes) and set *used to the set of variables it uses,
 * bit (1u << v) for each. Returns 0, or -1 with e filled: "{{" must be
 * followed, on the same line, by an exact variable name and "}}".
 */
int mc_template_scan(const char *text, size_t len, unsigned *used,
    struct mc_template_error *e);

/*
 * Append text to out with every variable replaced by values[v]. A NULL
 * value for a variable the text uses is an error ("variable has no
 * value"). Returns 0, or -1 with e filled.
 */
int mc_template_render(const char *text, size_t len,
    const char *const values[MC_TVAR_N], struct mc_buf *out,
    struct mc_template_error *e);

#endif
