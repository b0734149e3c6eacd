/* checkpoint.c: make bench's checkpoint case: a snapshot of a tree, timed after one file changes each time. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "diag.h"
#include "shadow.h"

/* checkpoint GIT_DIR TREE FILE RUNS: a first snapshot (the tree stored
 * once), then RUNS times FILE rewritten and a snapshot taken; each
 * snapshot's milliseconds on a line of its own, the first marked. */
int
main(int argc, char *argv[])
{
	struct mc_shadow s;
	struct timespec a, b;
	char err[512], id[MC_SHADOW_ID];
	long runs, i;
	FILE *fp;

	mc_init("bench-checkpoint", argv);
	if (argc != 5 || (runs = strtol(argv[4], NULL, 10)) < 1)
		return mc_usage_error("usage: checkpoint GIT_DIR TREE FILE RUNS");
	if (mc_shadow_open(&s, argv[1], argv[2], NULL, err, sizeof err) == -1) {
		mc_err("%s", err);
		return 1;
	}
	for (i = -1; i < runs; i++) {
		if (i >= 0) {
			if ((fp = fopen(argv[3], "w")) == NULL || fprintf(fp, "change %ld\n", i) < 0 ||
			    fclose(fp) == EOF) {
				mc_err("%s: cannot write", argv[3]);
				return 1;
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (mc_shadow_snapshot(&s, id, err, sizeof err) == -1) {
			mc_err("%s", err);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%s%.3f\n", i < 0 ? "first " : "",
		    (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
	}
	mc_shadow_close(&s);
	return mc_finish(0);
}
