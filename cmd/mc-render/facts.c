/* mc-render/facts.c: the runtime facts of the template variables: the rg probe, the system, the terminal. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "child.h"
#include "clock.h"
#include "diag.h"
#include "template.h"
#include "render.h"

/*
 * Start `rg --version` (MC_RG names another program, for tests) with no
 * shell and its output discarded, in a process group of its own. It runs
 * while the document is read; probe_ripgrep gives it at most a second
 * from here: a hung or missing rg only means "false". Returns its pid,
 * or -1 (where there is no rg, no process is made).
 */
pid_t
probe_start(long long *deadline)
{
	const char *prog = getenv("MC_RG");
	char *argv[3] = { NULL, (char *)"--version", NULL }, why[256];
	struct mc_child c = { .argv = argv, .flags = MC_CHILD_PGROUP | MC_CHILD_CLOSE };
	pid_t pid;
	int null;

	if (prog == NULL || *prog == '\0')
		prog = "rg";
	argv[0] = (char *)prog;
	if (strchr(prog, '/') != NULL)
		c.path = prog;
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1)
		return -1;
	c.fd[0] = c.fd[1] = c.fd[2] = null;
	/* An inherited SIGCHLD of SIG_IGN would reap rg behind our back. */
	signal(SIGCHLD, SIG_DFL);
	pid = mc_child_start(&c, why, sizeof why);
	close(null);
	*deadline = mc_clock_ms() + RG_TIMEOUT_MS;
	return pid;
}

/* Kill the probe's whole group (a wrapper script's children too), then
 * reap the probe: its zombie keeps the group's number from being reused
 * until then. */
void
probe_end(pid_t pid)
{
	kill(-pid, SIGKILL);
	mc_child_wait(pid);
}

/* Whether the rg started by probe_start said its version. */
static int
probe_ripgrep(pid_t pid, long long deadline)
{
	struct timespec nap = { 0, 200000 };
	siginfo_t si;
	int ok = 0;

	if (pid == -1)
		return 0;
	for (;;) {
		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == -1 &&
		    errno != EINTR)
			break;
		if (si.si_pid == pid) {
			ok = si.si_code == CLD_EXITED && si.si_status == 0;
			break;
		}
		if (mc_clock_ms() >= deadline)
			break;
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 10000000L)
			nap.tv_nsec *= 2;
	}
	probe_end(pid);
	return ok;
}

static void
os_name(char *buf, size_t n)
{
	static const struct { const char *uname, *name; } names[] = {
		{ "Linux", "Linux" }, { "Darwin", "macOS" }, { "FreeBSD", "FreeBSD" },
		{ "OpenBSD", "OpenBSD" }, { "NetBSD", "NetBSD" }, { "Windows_NT", "Windows" },
	};
	struct utsname u;
	size_t i, k = 0;

	if (uname(&u) == -1) {
		snprintf(buf, n, "unknown");
		return;
	}
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(u.sysname, names[i].uname) == 0) {
			snprintf(buf, n, "%s", names[i].name);
			return;
		}
	if (strncmp(u.sysname, "CYGWIN", 6) == 0 || strncmp(u.sysname, "MINGW", 5) == 0 ||
	    strncmp(u.sysname, "MSYS", 4) == 0) {
		snprintf(buf, n, "Windows");
		return;
	}
	for (i = 0; u.sysname[i] && k + 1 < n; i++)
		if (u.sysname[i] > 0x20 && u.sysname[i] < 0x7f)
			buf[k++] = u.sysname[i];
	buf[k] = '\0';
	if (k == 0)
		snprintf(buf, n, "unknown");
}

/* A character a terminal fact may keep: the names of terminals and
 * their versions need no more, and none of these can make markup. */
static int
term_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '.' || c == '-' || c == '_' || c == '+' || c == '/';
}

/* TERM_PROGRAM, TERM and COLORTERM, those set, each kept to at most
 * TERM_MAX of the characters term_char allows (the others are dropped). */
static char *
terminal_environment(void)
{
	static const char *const vars[] = { "TERM_PROGRAM", "TERM", "COLORTERM" };
	struct mc_buf b = {0};
	char clean[TERM_MAX + 1];
	const char *v;
	size_t i, k;

	for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		if ((v = getenv(vars[i])) == NULL)
			continue;
		for (k = 0; *v && k < TERM_MAX; v++)
			if (term_char(*v))
				clean[k++] = *v;
		clean[k] = '\0';
		if (k == 0)
			continue;
		mc_buf_printf(&b, "%s%s=%s", b.len ? ", " : "", vars[i], clean);
	}
	if (b.len == 0)
		mc_buf_adds(&b, "unknown");
	return mc_buf_steal(&b);
}

/* Work out only the facts some fragment uses: the rg probe costs a process. */
void
runtime_facts(struct render *R, unsigned used)
{
	if (used & (1u << MC_TVAR_HAS_RIPGREP)) {
		R->values[MC_TVAR_HAS_RIPGREP] = probe_ripgrep(R->rg, R->rg_deadline) ?
		    "true" : "false";
		R->rg = -1;	/* reaped */
	}
	if (used & (1u << MC_TVAR_OPERATING_SYSTEM)) {
		os_name(R->os, sizeof R->os);
		R->values[MC_TVAR_OPERATING_SYSTEM] = R->os;
	}
	if (used & (1u << MC_TVAR_TERMINAL_ENVIRONMENT)) {
		if ((R->term = terminal_environment()) == NULL)
			mc_oom();
		R->values[MC_TVAR_TERMINAL_ENVIRONMENT] = R->term;
	}
}
