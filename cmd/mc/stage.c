/* stage.c: what the driver's children share: the -p and -m a stage is
 * told, and a stage's exit judged. Below every other file of the driver
 * but events.c. */
#include <sys/wait.h>

#include "diag.h"
#include "mc.h"
#include "pipeline.h"

/* -p PROVIDER and -m MODEL into argv (room for 4) where what the option
 * or the session said must be told; the environment and the settings a
 * program reads itself. Returns how many were put. */
int
told_args(const struct driver *d, char **argv)
{
	int k = 0;

	if (d->s.provider && d->s.tell_provider) {
		argv[k++] = "-p";
		argv[k++] = d->s.provider;
	}
	if (d->s.model && d->s.tell_model) {
		argv[k++] = "-m";
		argv[k++] = d->s.model;
	}
	return k;
}

/* False, after saying why when the stage could not, unless it exited 0.
 * A stage that exited non-zero has printed its own message (on stderr:
 * with --json, an error event names the stage). */
int
stage_ok(const char *name, int status)
{
	char why[128];

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	if (interrupted)
		return 0;
	if (mc_pipeline_strstatus(status, why, sizeof why) != NULL)
		mc_err("%s: %s", name, why);
	else if (WIFEXITED(status))
		ev_stage_failed(name, WEXITSTATUS(status));
	return 0;
}
