/* sandbox.c: tools.sandbox: what confines bash, from the settings; the bash gate and the `mc-tool sandbox` report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
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
	[MC_SANDBOX_SIGNALS] = "signals",
};

struct plan {
	enum mode mode;
	int network;
	const char **paths;	/* writable, NULL-terminated; the strings are borrowed */
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
	return 0;
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
	w = (struct mc_sandbox_want){ .writable = p->paths, .network = p->network };
	if (p->mode != MODE_OFF)
		mc_sandbox_prepare(&p->sb, &w);
	else
		p->sb = (struct mc_sandbox){ .ruleset = -1 };
}

static void
plan_free(struct plan *p)
{
	mc_sandbox_free(&p->sb);
	free(p->paths);
}

/* Every rule the settings ask for is enforced. */
static int
plan_complete(const struct plan *p)
{
	return p->mode != MODE_OFF && p->sb.on[MC_SANDBOX_WRITES] &&
	    (p->network || (p->sb.on[MC_SANDBOX_TCP] && p->sb.on[MC_SANDBOX_UDP]));
}

/* The rules asked for but not enforced: "writes (why), network UDP
 * (why)", without the whys unless whys is set. */
static void
say_missing(struct mc_buf *b, const struct plan *p, int whys)
{
	int r, miss[MC_SANDBOX_SIGNALS], n = 0, i;

	for (r = 0; r < MC_SANDBOX_SIGNALS; r++)
		if (!p->sb.on[r] && !(p->network && (r == MC_SANDBOX_TCP || r == MC_SANDBOX_UDP)))
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

int
sandbox_enter(struct call *c, char *const *env)
{
	struct mc_buf why = {0};
	struct plan p;
	char err[256];
	int rc = 0;

	if (mode_of(c->s) == MODE_OFF)
		return 0;
	plan_make(&p, c->s, c->root, env);
	warn_left_out(&p);
	/* "auto" goes on with what this kernel can do, quietly: the driver
	 * asks `mc-tool sandbox -q` once a session and warns. */
	if (p.mode == MODE_REQUIRE && !plan_complete(&p)) {
		say_missing(&why, &p, 1);
		say(c, "error: bash is refused: tools.sandbox.mode is \"require\", and this kernel "
		    "cannot restrict %s. `mc-tool sandbox` tells more.\n", why.data);
		rc = -1;
	} else if (mc_sandbox_enforce(&p.sb, err, sizeof err) == -1) {
		say(c, "error: bash is refused: its sandbox could not be set up: %s\n", err);
		rc = -1;
	}
	mc_buf_free(&why);
	plan_free(&p);
	return rc;
}

static void
print_rule(const struct plan *p, enum mc_sandbox_rule r, const char *what)
{
	int net = r == MC_SANDBOX_TCP || r == MC_SANDBOX_UDP;

	if (p->mode == MODE_OFF)
		printf("%s: not restricted: tools.sandbox.mode is \"off\"\n", rule_names[r]);
	else if (net && p->network)
		printf("%s: open: tools.sandbox.network is true\n", rule_names[r]);
	else if (p->sb.on[r])
		printf("%s: %s (%s)\n", rule_names[r], what, p->sb.why[r]);
	else
		printf("%s: not restricted: %s\n", rule_names[r], p->sb.why[r]);
}

static void
report(const struct plan *p)
{
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
		else if (p->sb.on[MC_SANDBOX_WRITES] || p->sb.on[MC_SANDBOX_TCP] || p->sb.on[MC_SANDBOX_UDP])
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
	complete = plan_complete(&p);
	if (!mc_quiet)
		report(&p);
	plan_free(&p);
	mc_env_free(env);
	return complete ? MC_EXIT_OK : MC_EXIT_FAIL;
}
