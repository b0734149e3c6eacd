/* context.h: the context document passed from mc-discover through mc-skills to mc-render. */
#ifndef MC_CONTEXT_H
#define MC_CONTEXT_H

#include <cJSON.h>

#include "settings.h"

/* A new document {"version":1,"root":ROOT,"mc_home":HOME,"instructions":[],"diagnostics":[]}. */
cJSON *mc_context_new(const char *root, const char *mc_home);

/*
 * Record a diagnostic in the document's "diagnostics" array and print it on
 * stderr ("PROG: PATH: message", or "PROG: warning: PATH: message" unless
 * quiet). severity is "error" or "warning"; path may be NULL.
 */
void mc_context_diag(cJSON *doc, const char *severity, const char *path,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Move the settings' warnings into the document as diagnostics. */
void mc_context_settings_warnings(cJSON *doc, const struct mc_settings *s);

/* Number of diagnostics of severity "error". */
int mc_context_errors(const cJSON *doc);

#endif
