/* models.h: per-model settings (models.ID): a model's family, and a field as the model, its family and "*" give it. */
#ifndef MC_MODELS_H
#define MC_MODELS_H

#include <stddef.h>

#include <cJSON.h>

#include "settings.h"

#define MC_FAMILY_DEPTH 16	/* families of families, at most */

/*
 * Check every models.ID.family: one that names its own model, or a chain
 * of families that comes back to where it began, is an error naming the
 * setting and the chain ("models.a.family: a cycle: a -> b -> a").
 * 0, or -1 with err filled.
 */
int mc_models_check(const struct mc_settings *s, char *err, size_t errsz);

/*
 * The model's family chain: chain[0] the model itself, then its family,
 * the family's family, ... as far as the settings name them (at most
 * MC_FAMILY_DEPTH names). Returns how many; the names are the
 * settings' own strings, or model.
 */
size_t mc_model_chain(const struct mc_settings *s, const char *model, const char **chain);

/*
 * models.ID.FIELD for the model: its own entry's, else the nearest
 * family's that has it, else models["*"]'s; NULL when none has it. A
 * specific entry wins field by field. When from is given, it is set to
 * the entry's name that gave it.
 */
const cJSON *mc_model_field(const struct mc_settings *s, const char *model, const char *field,
    const char **from);

#endif
