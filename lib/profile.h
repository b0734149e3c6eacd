/* profile.h: agent and subagent profiles, $MC_HOME/agents/ID.md and $MC_HOME/subagents/ID.md: read and checked in one place. */
#ifndef MC_PROFILE_H
#define MC_PROFILE_H

#include <stddef.h>

#define MC_PROFILE_CAP (256u << 10)
#define MC_PROFILE_ID_MAX 64

enum mc_profile_kind {
	MC_PROFILE_AGENT,	/* $MC_HOME/agents: the main session's role (--agent) */
	MC_PROFILE_SUBAGENT,	/* $MC_HOME/subagents: a child's role (--subagent) */
};

/*
 * A profile: an optional flat frontmatter (name, description, model,
 * disabled_tools: a, b) between two `---` lines, then the body, the
 * role. A valid profile has a valid id, is a regular file (never read
 * through a final symbolic link) of valid UTF-8 of at most
 * MC_PROFILE_CAP bytes, and a frontmatter it opens is closed.
 */
struct mc_profile {
	char *id;
	char *path;		/* for messages */
	char *name;		/* frontmatter values, or NULL */
	char *description;
	char *model;
	char **disabled_tools;	/* the names of "disabled_tools", trimmed */
	size_t ndisabled;
	char *text;		/* the file */
	const char *body;	/* into text: what follows the frontmatter */
	size_t body_len;
};

/*
 * True when the n bytes of id are a profile id of kind k: a subagent's
 * is 1 to 64 of a-z, 0-9 and '-' (the model writes it in its calls); an
 * agent's is 1 to 64 letters, digits, '.', '_' and '-', not starting
 * with '.'. mc_profile_id_rule says which, for messages.
 */
int mc_profile_id_valid(enum mc_profile_kind k, const char *id, size_t n);
const char *mc_profile_id_rule(enum mc_profile_kind k);

/*
 * Read and check profile id of kind k under home. The directory is
 * followed when it is a symbolic link (it is the user's own, as
 * $MC_HOME/skills is); the file itself never is. Returns 0 with *p
 * filled; 1 when there is no such profile; -1 for any other failure.
 * On failure err holds "PATH: reason" (for 1, "no such profile: PATH").
 */
int mc_profile_load(const char *home, enum mc_profile_kind k, const char *id,
    struct mc_profile *p, char *err, size_t errsz);

/*
 * Every valid profile of kind k under home, sorted by id, into *v (*n
 * of them; none when the directory is missing). A file of the directory
 * that ends in .md, does not start with '.' and is not a valid profile
 * is passed to warn (may be NULL) with a one-line reason, and skipped;
 * so is a directory that cannot be read.
 */
typedef void mc_profile_warn_fn(void *arg, const char *path, const char *reason);
void mc_profile_list(const char *home, enum mc_profile_kind k, struct mc_profile **v,
    size_t *n, mc_profile_warn_fn *warn, void *arg);

void mc_profile_free(struct mc_profile *p);
void mc_profile_list_free(struct mc_profile *v, size_t n);

#endif
