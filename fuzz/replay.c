/* fuzz/replay.c: run a fuzz target over saved inputs (corpus and regressions) without libFuzzer. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fsread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
main(int argc, char *argv[])
{
	struct dirent *de;
	struct mc_buf b;
	int i, fd, n = 0;
	DIR *d;

	/* Without arguments: the target's saved corpus and regressions. */
	char *dirs[] = { argv[0], "fuzz/corpus/" FUZZ_NAME, "fuzz/regress/" FUZZ_NAME, NULL };

	if (argc < 2) {
		argv = dirs;
		argc = 3;
	}
	for (i = 1; i < argc; i++) {
		if ((d = opendir(argv[i])) == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			char *path;

			if (de->d_name[0] == '.')
				continue;
			path = mc_path_join(argv[i], de->d_name);
			b = (struct mc_buf){0};
			if ((fd = open(path, O_RDONLY)) == -1 || mc_fd_slurp(fd, 1 << 24, &b) == -1) {
				fprintf(stderr, "replay: %s: cannot read\n", path);
				return 1;
			}
			close(fd);
			LLVMFuzzerTestOneInput((const uint8_t *)(b.data ? b.data : ""), b.len);
			mc_buf_free(&b);
			free(path);
			n++;
		}
		closedir(d);
	}
	if (n == 0)	/* a replay that ran nothing proves nothing */
		fprintf(stderr, "replay: %s: no inputs found\n", FUZZ_NAME);
	return n == 0;
}
