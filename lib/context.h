/* context.h: the context document passed from mc-discover through mc-skills to mc-render. */
#ifndef MC_CONTEXT_H
#define MC_CONTEXT_H

#include <cJSON.h>

#include "buf.h"

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

/*
 * Record an instruction file that was found but not loaded (over a cap, not
 * a regular file, a link out, not UTF-8, unreadable): an error diagnostic,
 * as mc_context_diag makes, that also carries the "source" the instruction
 * would have had and, for a configured file (index >= 0), its "index".
 * mc-render tells the model which files are missing from its prompt.
 */
void mc_context_refused(cJSON *doc, const char *source, int index, const char *path,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The path of a diagnostic made by mc_context_refused, else NULL. */
const char *mc_context_refused_path(const cJSON *diag);

/* Move the settings' warnings into the document as diagnostics. */
void mc_context_settings_warnings(cJSON *doc, const struct mc_settings *s);

/*
 * Check the shape of a context document read on stdin, where its readers
 * (mc-skills, mc-render) use it: an object; "version" absent or 1; "root"
 * a string; "diagnostics", "instructions" and "skills" arrays; each
 * instruction an object whose "path" and "content" are valid UTF-8
 * strings. A wrong shape would be dropped or replaced without a word.
 * Returns 0, or -1 after one error line "stdin: MEMBER: what".
 */
int mc_context_check(const cJSON *doc);

/*
 * Check one element of "skills" (index i): an object with a valid skill
 * name, an optional description (a valid UTF-8 string or null) and an
 * optional "enabled" true or false. Returns 0, or -1 after an error line
 * naming skills[i]; with i -1, without a word.
 */
int mc_context_check_skill(const cJSON *skill, int i);

/* Number of diagnostics of severity "error". */
int mc_context_errors(const cJSON *doc);

/*
 * One instruction file as the prompt and the session carry it:
 * "<Context File=PATH>\nCONTENT</Context>\n", a final newline added to
 * CONTENT when it lacks one, PATH on one line with no tag in it (< and >
 * as &lt; &gt;, control characters as ?). Appended to b.
 */
void mc_context_block(struct mc_buf *b, const char *path, const char *content);
/* Only PATH, so written. */
void mc_context_path(struct mc_buf *b, const char *path);

#endif
