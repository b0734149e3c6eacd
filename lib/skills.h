/* skills.h: skill discovery in the four roots, and contained reads inside a skill. */
#ifndef MC_SKILLS_H
#define MC_SKILLS_H

#include <stddef.h>

#include <cJSON.h>

#include "settings.h"

#define MC_SKILL_MAX (1u << 20)		/* SKILL.md and files read inside a skill */
#define MC_SKILL_DESC_MAX 1024		/* characters of a description */
#define MC_SKILL_NAME_MAX 64

struct mc_skill_root {
	const char *source;	/* "legacy", "user", "configured" or "repo" */
	char *path;		/* the root directory */
	char *base;		/* repo only: the repository; .agents/skills below
				 * it is opened without following links */
	int index;		/* configured: its index in the setting, and a
				 * missing root is an error naming it; else -1 */
};

struct mc_skill {
	char *name;		/* the directory's name */
	char *group;		/* ROOT/GROUP/NAME, or NULL for ROOT/NAME */
	char *path;		/* the SKILL.md */
	char *description;	/* one sanitized line, "" when none */
	size_t root;		/* index into roots */
	int enabled;		/* not in knowledge.skills.disabled */
};

struct mc_skills {
	struct mc_skill_root *roots;	/* lowest priority first */
	size_t nroots;
	struct mc_skill *list;		/* after a scan: one per name, sorted */
	size_t n;
	cJSON *doc;			/* diagnostics go here; NULL: dropped */
	const char *settings;		/* the settings file, for messages */
	cJSON *pending;			/* private: a scan's diagnostics, held
					 * back to be added in path order */
};

/* True when name is 1-64 characters of a-z, 0-9 and -. */
int mc_skill_name_valid(const char *name);

/*
 * Set up the roots from the settings and the canonical repository
 * directory. Invalid settings entries become error diagnostics in doc
 * (which may be NULL) and are left out.
 */
void mc_skills_init(struct mc_skills *sk, const struct mc_settings *s,
    const char *repo, cJSON *doc);

/*
 * Scan every root. A higher root's skill replaces a lower one of the same
 * name; a SKILL.md that cannot be loaded is diagnosed and does not count.
 * With only set, just the skills of that name are looked at and nothing is
 * diagnosed (for reading one skill).
 */
void mc_skills_scan(struct mc_skills *sk, const struct mc_settings *s,
    const char *only);

/* The skill named name after a scan, or NULL. */
const struct mc_skill *mc_skills_find(const struct mc_skills *sk, const char *name);

/*
 * Open rel (NULL or "" for SKILL.md) inside the skill's directory for
 * reading. rel must stay inside: no "..", no absolute path, no symbolic
 * link on the way (the skill directory itself included), and it must
 * name a regular file. Returns an fd, or -1 with a one-line reason in err.
 */
int mc_skill_open(const struct mc_skills *sk, const struct mc_skill *skill,
    const char *rel, char *err, size_t errsz);

void mc_skills_free(struct mc_skills *sk);

#endif
