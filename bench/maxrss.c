/* bench/maxrss.c: run a command and print its peak RSS in KiB on stderr.
 * A small parent of its own, so the figure is not the benchmark
 * script's memory inherited across fork and exec. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fputs("usage: maxrss COMMAND [ARG...]\n", stderr);
		return 2;
	}
	if ((pid = fork()) == -1)
		return 1;
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) == -1)
		return 1;
	fprintf(stderr, "maxrss %ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
