/*
 * render.h: mc-render's private header. The prompt is made in this order:
 * main.c reads the options and settings; fragments.c loads the fragments
 * and picks the per-model override; facts.c starts the rg probe and works
 * out the other template values; sections.c takes the context document
 * (a skill at a time) and builds the generated sections; profiles.c adds
 * the subagents section and the role wrappers; fragments.c applies the
 * override; sections.c writes the prompt, or its JSON or table. text.c
 * holds what every part uses to put text on a line of the prompt.
 */
#ifndef MC_RENDER_H
#define MC_RENDER_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "buf.h"
#include "json.h"
#include "profile.h"
#include "settings.h"
#include "template.h"

#define FRAGMENT_CAP (256u << 10)
#define DESC_MAX 1024		/* characters of a description */
#define TERM_MAX 64		/* characters of each terminal variable */
#define RG_TIMEOUT_MS 1000
#define BAR_WIDTH 32

enum { S_SYSTEM, S_TOOLS, S_SUBAGENTS, S_SKILLS, S_CONTEXT, S_ROLE, S_N };
extern const char *const section_names[S_N];

/* The fragments of the prompt's sections, then those other programs ask
 * for with --fragment (compact: mc-compact's summary request). */
enum { F_SYSTEM, F_TOOLS, F_SKILLS, F_N, F_COMPACT = F_N, F_PLAN, F_ALL };
extern const char *const fragment_names[F_ALL];

struct fragment {
	char *label;		/* for messages: "prompts/NAME.md" or the user's file */
	char *raw;		/* the file as read */
	size_t rawlen;
	const char *source;	/* "bundled" or "user" */
	struct mc_buf text;	/* rendered and trimmed */
};

struct section {
	struct mc_buf text;
	const char *source;
};

struct render {
	struct mc_settings s;
	cJSON *doc;			/* the context document read on stdin */
	struct mc_buf skills;		/* its enabled skills, as the section's lines */
	cJSON *bad_skill;		/* the first skill that fails mc_context_check_skill */
	int bad_index;
	struct fragment frag[F_ALL];
	const cJSON *override;		/* the prompt.model_overrides entry for the model */
	int override_index;
	const cJSON *every;		/* the entry whose match is "*" */
	int every_index;
	const char *values[MC_TVAR_N];	/* runtime facts, those used */
	char os[65];
	char *term;
	struct section sec[S_N];
	struct mc_buf prompt;
	pid_t rg;			/* the rg probe, running */
	long long rg_deadline;
};

/* text.c */
void trim(struct mc_buf *b);
char *one_line(const char *s, size_t max);

/* fragments.c */
int fragment_index(const char *name);
const struct mc_prompt *bundled(int f);
int load_fragment(struct render *R, int f, unsigned *used);
int check_overrides(struct render *R, const char *model, unsigned *used);
int render_text(struct render *R, const char *label, const char *text, size_t len,
    struct mc_buf *out);
int apply_override(struct render *R);

/* facts.c */
pid_t probe_start(long long *deadline);
void probe_end(pid_t pid);
void runtime_facts(struct render *R, unsigned used);

/* profiles.c */
void build_subagents(struct render *R);
int add_role(struct render *R, enum mc_profile_kind k, const char *opt, const char *id);

/* sections.c */
void take_skill(cJSON *e, size_t i, void *arg);
int check_doc(const struct render *R);
void build_skills(struct render *R);
void build_context(struct render *R);
void assemble(struct render *R, FILE *fp);
int write_json(struct render *R, int pretty);
void write_stats(struct render *R);

#endif
