/* toolenv.h: provider keys kept out of reach, and the environment of the commands the model causes to run. */
#ifndef MC_TOOLENV_H
#define MC_TOOLENV_H

#include <cJSON.h>

#include "settings.h"

/*
 * Take every provider key variable (built-in and from settings) out of
 * this process's environment: its value is overwritten where it lies, so
 * that /proc/PID/environ no longer shows it, and the variable removed.
 * Returns the "NAME=value" strings taken, NULL-terminated (empty when
 * none), for the one child that needs them (mc-send); mc_env_free wipes
 * them.
 */
char **mc_keys_take(const struct mc_settings *s);

/*
 * mc_keys_take for a process that holds the keys (mc-send, and the
 * drivers that start it): it is also made not dumpable, so that another
 * process of the user, a tool command, can read neither its memory nor
 * its /proc/PID/environ.
 */
char **mc_keys_keep(const struct mc_settings *s);

/*
 * The value of key variable NAME from keys (as mc_keys_take returns
 * them); one not there yet is taken out of the environment as
 * mc_keys_take would and added to *keys. NULL when it is not set.
 */
const char *mc_keys_get(char ***keys, const char *name);

/* A new environment: base (NULL: this process's) with each "NAME=value"
 * of add put in, replacing a variable of the same name. */
char **mc_env_merge(char *const *base, char *const *add);

/*
 * The tool environment (for bash, hooks and MCP servers): this process's
 * environment minus every provider key variable and minus the names that
 * match a glob of tools.env.exclude (default *KEY*, *SECRET*, *TOKEN*,
 * *PASSWORD*, *_SOCK such as SSH_AUTH_SOCK; case-insensitive), plus tools.env.set, plus extra (an
 * object of strings, added last; may be NULL). The settings are checked
 * when they are loaded.
 */
char **mc_toolenv(const struct mc_settings *s, const cJSON *extra);

/* The tool environment's default exclude globs, NULL-terminated. */
extern const char *const mc_toolenv_exclude_default[];

void mc_env_free(char **envp);

#endif
