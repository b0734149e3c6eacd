/* settings.h: MC_HOME and $MC_HOME/settings.json. */
#ifndef MC_SETTINGS_H
#define MC_SETTINGS_H

#include <stddef.h>

#include <cJSON.h>

#define MC_SETTINGS_MAX (1u << 20)

struct mc_settings {
	char *home;		/* absolute MC_HOME */
	char *path;		/* $MC_HOME/settings.json */
	cJSON *root;		/* always an object (empty when no file) */
	cJSON *warnings;	/* array of strings about s->path: unknown keys */
};


/*
 * Resolve MC_HOME and load its settings.json. A missing file means
 * defaults. An unreadable or invalid file, or a value of the wrong type,
 * returns -1 with a one-line reason in err naming the file and the
 * setting path (e.g. "/h/settings.json: tools.disabled[1]: expected a
 * string"). Unknown keys become warnings.
 */
int mc_settings_load(struct mc_settings *s, char *err, size_t errsz);
void mc_settings_free(struct mc_settings *s);
/* Its warnings said on stderr (mc_warn), each naming the file. */
void mc_settings_warn(const struct mc_settings *s);

/* The checking half of mc_settings_load: parse and validate text as the
 * file s->path (which names it in errors). Frees nothing on failure. */
int mc_settings_parse(struct mc_settings *s, const char *text, size_t len,
    char *err, size_t errsz);

/* The value at a dotted path ("knowledge.skills.disabled"), or NULL. */
cJSON *mc_settings_get(const struct mc_settings *s, const char *dotted);

/* True when name is listed in the string array at the dotted path. */
int mc_settings_listed(const struct mc_settings *s, const char *dotted,
    const char *name);

#endif
