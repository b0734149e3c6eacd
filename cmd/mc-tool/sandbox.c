/* sandbox.c: tools.sandbox: what confines bash, from the settings; the bash gate and the `mc-tool sandbox` report. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc-tool.h"
#include "sandbox.h"
#include "toolenv.h"

enum mode { MODE_AUTO, MODE_REQUIRE, MODE_OFF };

static const char *const mode_names[] = { "auto", "require", "off" };

/* Devices a command may write to, and /dev/shm (shared memory, as /tmp);
 * those this system lacks are left out. */
static const char *const devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm", NULL
};

static const char *const rule_names[MC_SANDBOX_NRULES] = {
	[MC_SANDBOX_WRITES] = "writes",
	[MC_SANDBOX_TCP] = "network TCP",
	[MC_SANDBOX_UDP] = "network UDP",
	[MC_SANDBOX_UNIX] = "unix sockets",
	[MC_SANDBOX_TERMINALS] = "terminals",
	[MC_SANDBOX_PROC] = "other processes",
	[MC_SANDBOX_GIT] = ".git",
	[MC_SANDBOX_PROCESSES] = "processes",
	[MC_SANDBOX_MEMORY] = "memory",
	[MC_SANDBOX_FILE] = "file size",
	[MC_SANDBOX_SIGNALS] = "signals",
};

/* tools.sandbox.limits: name, default. */
static const struct {
	const char *key;
	long dflt;
} limit_keys[] = {
	{ "tools.sandbox.limits.processes", 512 },
	{ "tools.sandbox.limits.memory_mb", 8192 },
	{ "tools.sandbox.limits.file_mb", 4096 },
};

struct plan {
	enum mode mode;
	int network;
	const char **paths;	/* writable, NULL-terminated; the strings are borrowed */
	char *git;		/* the repository's .git, or NULL */
	struct mc_sandbox sb;
};

int
sandbox_check_settings(const struct mc_settings *s, char *err, size_t errsz)
{
	const cJSON *e;
	int i = 0;

	cJSON_ArrayForEach(e, mc_settings_get(s, "tools.sandbox.writable")) {
		if (cJSON_IsString(e) && e->valuestring[0] != '/') {
			snprintf(err, errsz, "%s: tools.sandbox.writable[%d]: path must be absolute: %s",
			    s->path, i, e->valuestring);
			return -1;
		}
		i++;
	}
	for (i = 0; i < (int)(sizeof limit_keys / sizeof limit_keys[0]); i++) {
		e = mc_settings_get(s, limit_keys[i].key);
		if (e != NULL && (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble > 1e12 ||
		    e->valuedouble != floor(e->valuedouble))) {
			snprintf(err, errsz, "%s: %s: expected a whole number from 0 (0: no limit)",
			    s->path, limit_keys[i].key);
			return -1;
		}
	}
	return 0;
}

static long
limit_of(const struct mc_settings *s, int i)
{
	const cJSON *e = mc_settings_get(s, limit_keys[i].key);

	return cJSON_IsNumber(e) ? (long)e->valuedouble : limit_keys[i].dflt;
}

/* The .git of the repository root is in: root's, or the nearest above. */
static char *
git_of(const char *root)
{
	char *dir = mc_strdup(root), *git, *slash;
	struct stat st;

	for (;;) {
		git = mc_path_join(*dir ? dir : "/", ".git");
		if (stat(git, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
			free(dir);
			return git;
		}
		free(git);
		if ((slash = strrchr(dir, '/')) == NULL || *dir == '\0') {
			free(dir);
			return NULL;
		}
		*slash = '\0';
	}
}

static enum mode
mode_of(const struct mc_settings *s)
{
	const char *m = cJSON_GetStringValue(mc_settings_get(s, "tools.sandbox.mode"));

	if (m != NULL && strcmp(m, "require") == 0)
		return MODE_REQUIRE;
	if (m != NULL && strcmp(m, "off") == 0)
		return MODE_OFF;
	return MODE_AUTO;
}

/* The value of NAME in env, or NULL. */
static const char *
env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (; *env != NULL; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

static void
push(struct plan *p, size_t *n, const char *path)
{
	if ((p->paths = reallocarray(p->paths, *n + 2, sizeof *p->paths)) == NULL)
		mc_oom();
	p->paths[(*n)++] = path;
	p->paths[*n] = NULL;
}

/* What bash may write: the working directory, the temporary directory
 * the command is told of ($TMPDIR, else /tmp), the devices, and
 * tools.sandbox.writable. */
static void
plan_make(struct plan *p, const struct mc_settings *s, const char *root, char *const *env)
{
	const char *tmp = env_get(env, "TMPDIR");
	struct mc_sandbox_want w;
	const cJSON *e;
	struct stat st;
	size_t n = 0, i;

	*p = (struct plan){ .mode = mode_of(s) };
	p->network = cJSON_IsTrue(mc_settings_get(s, "tools.sandbox.network"));
	push(p, &n, root);
	push(p, &n, tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
	for (i = 0; devices[i] != NULL; i++)
		if (stat(devices[i], &st) == 0)
			push(p, &n, devices[i]);
	cJSON_ArrayForEach(e, mc_settings_get(s, "tools.sandbox.writable"))
		if (cJSON_IsString(e))
			push(p, &n, e->valuestring);
	if (p->mode == MODE_OFF) {
		p->sb = (struct mc_sandbox){ .ruleset = -1 };
		return;
	}
	p->git = git_of(root);
	w = (struct mc_sandbox_want){ .writable = p->paths, .network = p->network, .git = p->git,
	    .processes = limit_of(s, 0), .memory_mb = limit_of(s, 1), .file_mb = limit_of(s, 2) };
	mc_sandbox_prepare(&p->sb, &w);
}

static void
plan_free(struct plan *p)
{
	mc_sandbox_free(&p->sb);
	free(p->paths);
	free(p->git);
}

static int
is_net(enum mc_sandbox_rule r)
{
	return r == MC_SANDBOX_TCP || r == MC_SANDBOX_UDP || r == MC_SANDBOX_UNIX;
}

/* Rule r is asked for by the settings: not the network's when
 * tools.sandbox.network is true, no .git read-only where there is none,
 * no limit set to 0. Signals are Landlock's extra, not asked for. */
static int
asked(const struct plan *p, enum mc_sandbox_rule r)
{
	const struct mc_sandbox_want *w = &p->sb.w;

	switch (r) {
	case MC_SANDBOX_GIT:
		return w->git != NULL;
	case MC_SANDBOX_PROCESSES:
		return w->processes > 0;
	case MC_SANDBOX_MEMORY:
		return w->memory_mb > 0;
	case MC_SANDBOX_FILE:
		return w->file_mb > 0;
	case MC_SANDBOX_SIGNALS:
		return 0;
	default:
		return !(is_net(r) && p->network);
	}
}

/* Every rule the settings ask for is enforced. */
static int
plan_complete(const struct plan *p)
{
	int r;

	if (p->mode == MODE_OFF)
		return 0;
	for (r = 0; r < MC_SANDBOX_NRULES; r++)
		if (asked(p, r) && !p->sb.on[r])
			return 0;
	return 1;
}

/* The rules asked for but not enforced: "writes (why), network UDP
 * (why)", without the whys unless whys is set. */
static void
say_missing(struct mc_buf *b, const struct plan *p, int whys)
{
	int r, miss[MC_SANDBOX_NRULES], n = 0, i;

	for (r = 0; r < MC_SANDBOX_NRULES; r++)
		if (asked(p, r) && !p->sb.on[r])
			miss[n++] = r;
	for (i = 0; i < n; i++) {
		mc_buf_printf(b, "%s%s", i ? ", " : "", rule_names[miss[i]]);
		if (whys)
			mc_buf_printf(b, " (%s)", p->sb.why[miss[i]]);
	}
}

/* A warning for each writable path left out. */
static void
warn_left_out(const struct plan *p)
{
	size_t i;

	for (i = 0; i < p->sb.npaths; i++)
		if (p->sb.left_out[i] != NULL)
			mc_warn("sandbox: %s: %s; not writable", p->paths[i], p->sb.left_out[i]);
}

/* What holds for the command running now, for sandbox_explain. */
static struct {
	int sandboxed;
	int on[MC_SANDBOX_NRULES];
	struct mc_sandbox_want w;
} now;

/* The namespaces are entered: in their parent, wait and end as the
 * command's mc-tool, PID 1 there, ends; nothing else happens here. Not
 * exit(): this process can start nothing more (its PID namespace for
 * children died with its PID 1), yet a sanitizer's leak check at exit
 * would start a thread; and all there is to flush was flushed. */
static void
finish_outside(pid_t child)
{
	int st = mc_sandbox_wait(child);

	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : MC_EXIT_FAIL);
}

/* With "require", every rule must hold: else the refusal naming them. */
static int
refused(struct call *c, const struct plan *p)
{
	struct mc_buf why = {0};

	if (p->mode != MODE_REQUIRE || plan_complete(p))
		return 0;
	say_missing(&why, p, 1);
	say(c, "error: bash is refused: tools.sandbox.mode is \"require\", and this kernel "
	    "cannot restrict %s. `mc-tool sandbox` tells more.\n", why.data);
	mc_buf_free(&why);
	return 1;
}

int
sandbox_enter(struct call *c, char *const *env, struct mc_child_limit limits[4])
{
	struct plan p;
	char err[256];
	int rc = 0;
	pid_t pid;

	limits[0].resource = -1;
	if (mode_of(c->s) == MODE_OFF)
		return 0;
	plan_make(&p, c->s, c->root, env);
	warn_left_out(&p);
	/* "auto" goes on with what this kernel can do, quietly: the driver
	 * asks `mc-tool sandbox -q` once a session and warns. */
	if (refused(c, &p))
		rc = -1;
	else if ((pid = mc_sandbox_enter(&p.sb)) > 0)
		finish_outside(pid);
	else if (pid == -1) {
		say(c, "error: bash is refused: its sandbox could not be set up: fork: %s\n", strerror(errno));
		rc = -1;
	} else if (refused(c, &p))
		rc = -1;
	else if (mc_sandbox_enforce(&p.sb, err, sizeof err) == -1) {
		say(c, "error: bash is refused: its sandbox could not be set up: %s\n", err);
		rc = -1;
	} else {
		mc_sandbox_limits(&p.sb, limits);
		now.sandboxed = 1;
		memcpy(now.on, p.sb.on, sizeof now.on);
		now.w = p.sb.w;
		now.w.writable = NULL;
		now.w.git = NULL;
	}
	plan_free(&p);
	return rc;
}

static int
has(const char *text, const char *what)
{
	return strstr(text, what) != NULL;
}

void
sandbox_explain(struct call *c, const char *text, int status)
{
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;

	if (!now.sandboxed)
		return;
	if (now.on[MC_SANDBOX_GIT] && has(text, ".git") && has(text, "Read-only file system"))
		say(c, "[refused: writes to .git are not allowed inside the sandbox: it is read-only there]\n");
	if (now.on[MC_SANDBOX_FILE] && (sig == SIGXFSZ || has(text, "File too large") ||
	    has(text, "File size limit")))
		say(c, "[the sandbox limits a file to %ld MiB (tools.sandbox.limits.file_mb)]\n",
		    now.w.file_mb);
	if (now.on[MC_SANDBOX_PROCESSES] && (has(text, "fork") || has(text, "Resource temporarily")))
		say(c, "[the sandbox allows at least %ld processes at once, not many more "
		    "(tools.sandbox.limits.processes)]\n", now.w.processes);
	if (now.on[MC_SANDBOX_MEMORY] && (has(text, "Cannot allocate memory") || has(text, "MemoryError") ||
	    has(text, "bad_alloc") || has(text, "out of memory")))
		say(c, "[the sandbox limits a process to %ld MiB of address space "
		    "(tools.sandbox.limits.memory_mb)]\n", now.w.memory_mb);
	/* Refusals common outside the sandbox too: only when it failed. */
	if ((!WIFEXITED(status) || WEXITSTATUS(status) != 0) &&
	    (has(text, "Permission denied") || has(text, "Operation not permitted")))
		say(c, "[the sandbox may have refused this: %s%sno terminal of the user's, no other "
		    "process's /proc]\n",
		    now.on[MC_SANDBOX_WRITES] ? "writes only under the working directory, $TMPDIR and "
		    "tools.sandbox.writable; " : "",
		    now.on[MC_SANDBOX_TCP] ? "no network, no unix socket but socketpair; " : "");
}

static void
print_rule(const struct plan *p, enum mc_sandbox_rule r, const char *what)
{
	if (p->mode == MODE_OFF)
		printf("%s: not restricted: tools.sandbox.mode is \"off\"\n", rule_names[r]);
	else if (is_net(r) && p->network)
		printf("%s: open: tools.sandbox.network is true\n", rule_names[r]);
	else if (p->sb.on[r])
		printf("%s: %s (%s)\n", rule_names[r], what, p->sb.why[r]);
	else if (!asked(p, r) && r != MC_SANDBOX_SIGNALS)
		printf("%s: %s: %s\n", rule_names[r], r == MC_SANDBOX_GIT ? "none" : "no limit", p->sb.why[r]);
	else
		printf("%s: not restricted: %s\n", rule_names[r], p->sb.why[r]);
}

static void
report(const struct plan *p)
{
	const struct mc_sandbox_want *w = &p->sb.w;
	struct mc_buf b = {0};
	size_t i;
	int n = 0;

	printf("mode: %s\n", mode_names[p->mode]);
	mc_buf_adds(&b, "only under ");
	for (i = 0; i < p->sb.npaths; i++)
		if (p->sb.left_out[i] == NULL)
			mc_buf_printf(&b, "%s%s", n++ ? ", " : "", p->paths[i]);
	print_rule(p, MC_SANDBOX_WRITES, b.data);
	printf("reads: not restricted\n");
	print_rule(p, MC_SANDBOX_TCP, "refused: no bind or connect");
	print_rule(p, MC_SANDBOX_UDP, "refused: no IP socket at all");
	print_rule(p, MC_SANDBOX_UNIX, "refused: no connection to a path or abstract socket");
	print_rule(p, MC_SANDBOX_TERMINALS, "none of the user's: no controlling terminal, no /dev/pts/N "
	    "of theirs, no TIOCSTI or TIOCLINUX");
	print_rule(p, MC_SANDBOX_PROC, "hidden: /proc shows the command's own processes only");
	b.len = 0;
	mc_buf_printf(&b, "read-only: %s", p->git ? p->git : "");
	print_rule(p, MC_SANDBOX_GIT, b.data);
	print_rule(p, MC_SANDBOX_PROCESSES, "limited");
	b.len = 0;
	mc_buf_printf(&b, "at most %ld MiB of address space per process", w->memory_mb);
	print_rule(p, MC_SANDBOX_MEMORY, b.data);
	b.len = 0;
	mc_buf_printf(&b, "at most %ld MiB per file written", w->file_mb);
	print_rule(p, MC_SANDBOX_FILE, b.data);
	print_rule(p, MC_SANDBOX_SIGNALS, "only to processes inside the sandbox");
	for (i = 0; i < p->sb.npaths; i++)
		if (p->sb.left_out[i] != NULL)
			printf("writable: %s: %s; left out\n", p->paths[i], p->sb.left_out[i]);
	b.len = 0;
	if (p->mode == MODE_OFF)
		printf("bash: runs unsandboxed: tools.sandbox.mode is \"off\"\n");
	else if (plan_complete(p))
		printf("bash: sandboxed\n");
	else {
		say_missing(&b, p, 0);
		if (p->mode == MODE_REQUIRE)
			printf("bash: refused: tools.sandbox.mode is \"require\"; not restricted: %s\n", b.data);
		else if (p->sb.on[MC_SANDBOX_WRITES] || p->sb.on[MC_SANDBOX_TCP] || p->sb.on[MC_SANDBOX_UDP] ||
		    p->sb.on[MC_SANDBOX_PROC])
			printf("bash: runs partly sandboxed; not restricted: %s\n", b.data);
		else
			printf("bash: runs unsandboxed; not restricted: %s\n", b.data);
	}
	mc_buf_free(&b);
}

int
cmd_sandbox(const struct mc_settings *s, const char *root)
{
	char **env = mc_toolenv(s, NULL);
	struct plan p;
	int complete;

	plan_make(&p, s, root, env);
	if (p.mode != MODE_OFF)
		mc_sandbox_probe(&p.sb);
	complete = plan_complete(&p);
	if (!mc_quiet)
		report(&p);
	plan_free(&p);
	mc_env_free(env);
	return complete ? MC_EXIT_OK : MC_EXIT_FAIL;
}
