/* mc-render: assemble the system prompt from the context document, prompt fragments and profiles. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sha256.h>

#include "buf.h"
#include "context.h"
#include "diag.h"
#include "frontmatter.h"
#include "fsread.h"
#include "json.h"
#include "prompts.h"
#include "settings.h"
#include "template.h"
#include "utf8.h"

#define FRAGMENT_CAP (256u << 10)
#define PROFILE_CAP (256u << 10)
#define ID_MAX 64		/* profile ids and skill names */
#define DESC_MAX 1024		/* characters of a description */
#define TERM_MAX 64		/* characters of each terminal variable */
#define RG_TIMEOUT_NS 1000000000L
#define MAX_SUBAGENTS 32	/* --subagent nesting depth */
#define BAR_WIDTH 32

static const char usage[] =
    "usage: mc-render [-q] [--json [--pretty] | --stats] [-m ID] [--agent ID | --subagent ID...]\n"
    "       mc-render --print-default FRAGMENT | --fragment FRAGMENT\n"
    "\n"
    "Read a context document on stdin and write the system prompt.\n"
    "\n"
    "  --agent ID        add the role of the main-session profile $MC_HOME/agents/ID.md\n"
    "  --subagent ID     add the role of $MC_HOME/subagents/ID.md (repeat, ancestors first)\n"
    "  -m, --model ID    apply the first prompt.model_overrides entry matching ID\n"
    "  --json            write the prompt, its SHA-256 and its sections as JSON\n"
    "  --pretty          indent the JSON\n"
    "  --stats           write a table of the sections and their share of the prompt\n"
    "  --print-default FRAGMENT\n"
    "                    print the bundled fragment system, tools, skills or compact\n"
    "  --fragment FRAGMENT\n"
    "                    print that fragment rendered: $MC_HOME/prompts/FRAGMENT.md\n"
    "                    when there is one, else the bundled one\n"
    "  -q                no warnings on stderr\n"
    "  -h, --help        show this help\n"
    "  --version         show the version\n";

enum { S_SYSTEM, S_TOOLS, S_SUBAGENTS, S_SKILLS, S_CONTEXT, S_ROLE, S_N };
static const char *const section_names[S_N] = {
	"system", "tools", "subagents", "skills", "context", "role"
};

/* The fragments of the prompt's sections, then those other programs ask
 * for with --fragment (compact: mc-compact's summary request). */
enum { F_SYSTEM, F_TOOLS, F_SKILLS, F_N, F_COMPACT = F_N, F_ALL };
static const char *const fragment_names[F_ALL] = { "system", "tools", "skills", "compact" };

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
	cJSON *bad_skill;		/* the first skill that fails check_skill */
	int bad_index;
	struct fragment frag[F_ALL];
	const cJSON *override;		/* the prompt.model_overrides entry that applies */
	int override_index;
	const char *values[MC_TVAR_N];	/* runtime facts, those used */
	char os[65];
	char *term;
	struct section sec[S_N];
	struct mc_buf prompt;
	pid_t rg;			/* the rg probe, running */
	long long rg_deadline;
};

/* Options. */
static const char *agent;
static const char *subagents[MAX_SUBAGENTS];
static int nsubagents;

static int
fragment_index(const char *name)
{
	size_t n = strlen(name);
	int i;

	if (n > 3 && strcmp(name + n - 3, ".md") == 0)
		n -= 3;
	for (i = 0; i < F_ALL; i++)
		if (strlen(fragment_names[i]) == n && strncmp(name, fragment_names[i], n) == 0)
			return i;
	return -1;
}

static int
section_index(const char *name)
{
	int i;

	for (i = 0; i < S_N; i++)
		if (strcmp(name, section_names[i]) == 0)
			return i;
	return -1;
}

static const struct mc_prompt *
bundled(int f)
{
	const struct mc_prompt *p;
	char name[32];

	snprintf(name, sizeof name, "%s.md", fragment_names[f]);
	for (p = mc_prompts; p->name != NULL; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

/* Profile ids become file names and prompt text: keep them plain. */
static int
safe_id(const char *id, size_t n)
{
	size_t i;
	char c;

	if (n == 0 || n > ID_MAX || id[0] == '.')
		return 0;
	for (i = 0; i < n; i++) {
		c = id[i];
		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
		    !(c >= '0' && c <= '9') && c != '.' && c != '_' && c != '-')
			return 0;
	}
	return 1;
}

/* What mc-skills allows: names reach the prompt, so no markup, no newlines. */
static int
safe_skill_name(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > ID_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= '0' && s[i] <= '9') && s[i] != '-')
			return 0;
	return 1;
}

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void
trim(struct mc_buf *b)
{
	size_t lead = 0;

	if (b->data == NULL)
		return;
	while (b->len > 0 && is_space(b->data[b->len - 1]))
		b->len--;
	while (lead < b->len && is_space(b->data[lead]))
		lead++;
	memmove(b->data, b->data + lead, b->len - lead);
	b->len -= lead;
	b->data[b->len] = '\0';
}

static void
add(struct mc_buf *b, const void *p, size_t n)
{
	if (mc_buf_add(b, p, n) == -1)
		mc_oom();
}

static void
adds(struct mc_buf *b, const char *s)
{
	add(b, s, strlen(s));
}

/*
 * A value shown on one line of the prompt (a description, a persona):
 * control characters and line separators become spaces, < and > become
 * &lt; and &gt; so that the value cannot open or close a tag of the
 * prompt, the ends are trimmed and at most max characters are kept.
 * NULL when nothing is left.
 */
static char *
one_line(const char *s, size_t max)
{
	struct mc_buf b = {0};
	size_t n = strlen(s), k, chars = 0;
	const unsigned char *u;
	const char *run = s;

	while (n > 0 && chars < max) {
		u = (const unsigned char *)s;
		if ((k = mc_utf8_seqlen(s, n)) == 0)
			k = 1;		/* callers pass valid UTF-8; be safe */
		if (*u < 0x20 || *u == 0x7f ||
		    (k == 2 && u[0] == 0xc2 && u[1] < 0xa0) ||	/* C1 controls */
		    (k == 3 && u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9))) {
			add(&b, run, (size_t)(s - run));
			adds(&b, " ");
			run = s + k;
		} else if (*u == '<' || *u == '>') {
			add(&b, run, (size_t)(s - run));
			adds(&b, *u == '<' ? "&lt;" : "&gt;");
			run = s + k;
		}
		s += k;
		n -= k;
		chars++;
	}
	add(&b, run, (size_t)(s - run));
	trim(&b);
	if (b.len == 0) {
		mc_buf_free(&b);
		return NULL;
	}
	return mc_buf_steal(&b);
}

/* ---- the context document ---- */

static int
bad_doc(const char *at, const char *what)
{
	mc_err("stdin: %s%s%s", at, *at ? ": " : "", what);
	return -1;
}

/* An error about arr[i] (key NULL) or arr[i].key; i -1 only tells. */
static int
bad_member(const char *arr, int i, const char *key, const char *what)
{
	if (i >= 0)
		mc_err("stdin: %s[%d]%s%s: %s", arr, i, key ? "." : "", key ? key : "", what);
	return -1;
}

/* A string member that goes into the prompt: present and valid UTF-8. */
static int
doc_string(const cJSON *obj, const char *key, const char *arr, int i, int optional)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (v == NULL || (optional && cJSON_IsNull(v)))
		return optional ? 0 : bad_member(arr, i, key, "missing");
	if (!cJSON_IsString(v))
		return bad_member(arr, i, key, "expected a string");
	if (!mc_utf8_valid(v->valuestring, strlen(v->valuestring)))
		return bad_member(arr, i, key, "not valid UTF-8");
	return 0;
}

/* A skill as mc-render uses it; i -1 checks without a word. */
static int
check_skill(const cJSON *e, int i)
{
	const cJSON *v;
	char what[256];

	if (!cJSON_IsObject(e))
		return bad_member("skills", i, NULL, "expected an object");
	if (doc_string(e, "name", "skills", i, 0) == -1 ||
	    doc_string(e, "description", "skills", i, 1) == -1)
		return -1;
	if (!safe_skill_name(mc_json_str(e, "name"))) {
		snprintf(what, sizeof what, "invalid skill name \"%.80s\"", mc_json_str(e, "name"));
		return bad_member("skills", i, "name", what);
	}
	v = cJSON_GetObjectItemCaseSensitive(e, "enabled");
	if (v != NULL && !cJSON_IsBool(v))
		return bad_member("skills", i, "enabled", "expected true or false");
	return 0;
}

/*
 * Each skill of the document as it is parsed (mc_json_read_fd_each): ten
 * thousand skills are kept as the lines of their section, not as a tree.
 * The first bad one is kept for check_doc to report in its turn.
 */
static void
take_skill(cJSON *e, size_t i, void *arg)
{
	struct render *R = arg;
	const cJSON *enabled;
	const char *d;
	char *desc;

	if (R->bad_skill != NULL) {
		cJSON_Delete(e);
		return;
	}
	if (check_skill(e, -1) == -1) {
		R->bad_skill = e;
		R->bad_index = i > INT_MAX ? INT_MAX : (int)i;
		return;
	}
	enabled = cJSON_GetObjectItemCaseSensitive(e, "enabled");
	if (enabled == NULL || cJSON_IsTrue(enabled)) {
		adds(&R->skills, "- ");
		adds(&R->skills, mc_json_str(e, "name"));
		d = mc_json_str(e, "description");
		if (d != NULL && (desc = one_line(d, DESC_MAX)) != NULL) {
			adds(&R->skills, ": ");
			adds(&R->skills, desc);
			free(desc);
		}
		adds(&R->skills, "\n");
	}
	cJSON_Delete(e);
}

/* Check the shape of what mc-render uses; other members pass untouched. */
static int
check_doc(const struct render *R)
{
	const cJSON *doc = R->doc, *a, *e, *v;
	int i;

	if (!cJSON_IsObject(doc))
		return bad_doc("", "expected a JSON object (the context document)");
	v = cJSON_GetObjectItemCaseSensitive(doc, "version");
	if (v != NULL && (!cJSON_IsNumber(v) || v->valuedouble != 1))
		return bad_doc("version", "unsupported document version (expected 1)");
	v = cJSON_GetObjectItemCaseSensitive(doc, "diagnostics");
	if (v != NULL && !cJSON_IsArray(v))
		return bad_doc("diagnostics", "expected an array");

	a = cJSON_GetObjectItemCaseSensitive(doc, "instructions");
	if (a != NULL && !cJSON_IsArray(a))
		return bad_doc("instructions", "expected an array");
	i = 0;
	cJSON_ArrayForEach(e, a) {
		if (!cJSON_IsObject(e))
			return bad_member("instructions", i, NULL, "expected an object");
		if (doc_string(e, "path", "instructions", i, 0) == -1 ||
		    doc_string(e, "content", "instructions", i, 0) == -1)
			return -1;
		i++;
	}

	a = cJSON_GetObjectItemCaseSensitive(doc, "skills");
	if (a != NULL && !cJSON_IsArray(a))
		return bad_doc("skills", "expected an array");
	if (R->bad_skill != NULL)
		return check_skill(R->bad_skill, R->bad_index);
	return 0;
}

/* ---- fragments, overrides and runtime facts ---- */

static int
template_error(const char *label, const struct mc_template_error *e)
{
	mc_err("%s: %s %s", label, e->what, e->token);
	return -1;
}

/* Load a fragment: the user's override, else the bundled default. */
static int
load_fragment(struct render *R, int f, unsigned *used)
{
	struct fragment *F = &R->frag[f];
	const struct mc_prompt *p;
	struct mc_template_error e;
	struct mc_read r;
	char name[32], *dir, *path;
	unsigned u;

	snprintf(name, sizeof name, "%s.md", fragment_names[f]);
	if ((dir = mc_path_join(R->s.home, "prompts")) == NULL ||
	    (path = mc_path_join(dir, name)) == NULL)
		mc_oom();
	free(dir);
	mc_file_read(path, FRAGMENT_CAP, MC_LINK_REFUSE, NULL, 1, &r);
	if (r.status == MC_READ_OK) {
		F->label = path;
		F->raw = r.data;
		F->rawlen = r.len;
		F->source = "user";
	} else if (r.status == MC_READ_MISSING) {
		free(path);
		if ((p = bundled(f)) == NULL) {
			mc_err("no bundled fragment %s (a build problem)", name);
			return -1;
		}
		if (asprintf(&F->label, "prompts/%s", name) == -1 ||
		    (F->raw = strdup(p->data)) == NULL)
			mc_oom();
		F->rawlen = p->len;
		F->source = "bundled";
	} else {
		mc_err("%s: %s", path, mc_read_strerror(&r, FRAGMENT_CAP));
		free(path);
		return -1;
	}
	if (mc_template_scan(F->raw, F->rawlen, &u, &e) == -1)
		return template_error(F->label, &e);
	*used |= u;
	return 0;
}

/*
 * Check every prompt.model_overrides entry (a typo should not wait for
 * the day its model is used) and pick the first whose match is a prefix
 * of model.
 */
static int
check_overrides(struct render *R, const char *model, unsigned *used)
{
	static const char key[] = "prompt.model_overrides";
	const cJSON *e, *sec;
	const char *match, *action, *content;
	struct mc_template_error te;
	char at[512];
	unsigned u;
	int i = 0, k, applies;

	R->override_index = -1;
	cJSON_ArrayForEach(e, mc_settings_get(&R->s, key)) {
		if ((match = mc_json_str(e, "match")) == NULL) {
			mc_err("%s: %s[%d].match: missing", R->s.path, key, i);
			return -1;
		}
		applies = R->override == NULL && model != NULL &&
		    strncmp(model, match, strlen(match)) == 0;
		cJSON_ArrayForEach(sec, cJSON_GetObjectItemCaseSensitive(e, "sections")) {
			snprintf(at, sizeof at, "%s: %s[%d].sections.%s", R->s.path, key, i,
			    sec->string);
			if ((k = section_index(sec->string)) == -1) {
				mc_err("%s: unknown section (expected system, tools, subagents, skills, context or role)",
				    at);
				return -1;
			}
			action = mc_json_str(sec, "action");
			content = mc_json_str(sec, "content");
			if (action == NULL) {
				mc_err("%s.action: missing", at);
				return -1;
			}
			if (strcmp(action, "remove") == 0) {
				if (k == S_CONTEXT) {
					mc_err("%s: the context section cannot be removed", at);
					return -1;
				}
				continue;
			}
			if (content == NULL) {
				mc_err("%s.content: missing", at);
				return -1;
			}
			if (mc_template_scan(content, strlen(content), &u, &te) == -1) {
				mc_err("%s.content: %s %s", at, te.what, te.token);
				return -1;
			}
			if (applies)
				*used |= u;
		}
		if (applies) {
			R->override = e;
			R->override_index = i;
		}
		i++;
	}
	return 0;
}

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* prog itself when it names a path, else the first executable prog on
 * $PATH, into buf; NULL when there is none, and nothing to run. */
static const char *
find_program(const char *prog, char *buf, size_t n)
{
	const char *dir, *path = getenv("PATH");
	size_t len;

	if (strchr(prog, '/') != NULL)
		return prog;
	for (dir = path ? path : ""; *dir != '\0'; dir += len + (dir[len] == ':')) {
		len = strcspn(dir, ":");
		if (len == 0)
			continue;	/* the current directory: not searched */
		if ((size_t)snprintf(buf, n, "%.*s/%s", (int)len, dir, prog) < n &&
		    access(buf, X_OK) == 0)
			return buf;
	}
	return NULL;
}

/*
 * Start `rg --version` (MC_RG names another program, for tests) with no
 * shell and its output discarded. It runs while the document is read;
 * probe_ripgrep gives it at most a second from here: a hung or missing
 * rg only means "false". Returns its pid, or -1.
 */
static pid_t
probe_start(long long *deadline)
{
	const char *prog = getenv("MC_RG");
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t sigs;
	char *argv[3], buf[PATH_MAX];
	pid_t pid;
	int rc;

	if (prog == NULL || *prog == '\0')
		prog = "rg";
	/* Looked for first: where there is no rg, no process is made. */
	if ((prog = find_program(prog, buf, sizeof buf)) == NULL)
		return -1;
	argv[0] = (char *)prog;
	argv[1] = (char *)"--version";
	argv[2] = NULL;
	/* An inherited SIGCHLD of SIG_IGN would reap rg behind our back. */
	signal(SIGCHLD, SIG_DFL);
	if (posix_spawn_file_actions_init(&fa) != 0)
		return -1;
	if (posix_spawnattr_init(&attr) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	/* mc_init ignores SIGPIPE; rg should not inherit that. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGPIPE);
	posix_spawnattr_setsigdefault(&attr, &sigs);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawn(&pid, prog, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	*deadline = now_ns() + RG_TIMEOUT_NS;
	return rc == 0 ? pid : -1;
}

/* Whether the rg started by probe_start said its version. */
static int
probe_ripgrep(pid_t pid, long long deadline)
{
	struct timespec nap = { 0, 200000 };
	int st, rc;

	if (pid == -1)
		return 0;
	for (;;) {
		rc = waitpid(pid, &st, WNOHANG);
		if (rc == pid)
			return WIFEXITED(st) && WEXITSTATUS(st) == 0;
		if (rc == -1 && errno != EINTR)
			return 0;
		if (now_ns() >= deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
				;
			return 0;
		}
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 10000000L)
			nap.tv_nsec *= 2;
	}
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

/* TERM_PROGRAM, TERM and COLORTERM, those set, as printable ASCII only. */
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
			if (*v >= 0x20 && *v < 0x7f)
				clean[k++] = *v;
		clean[k] = '\0';
		if (k == 0)
			continue;
		if (mc_buf_printf(&b, "%s%s=%s", b.len ? ", " : "", vars[i], clean) == -1)
			mc_oom();
	}
	if (b.len == 0)
		adds(&b, "unknown");
	return mc_buf_steal(&b);
}

/* Work out only the facts some fragment uses: the rg probe costs a process. */
static void
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

static int
render_text(struct render *R, const char *label, const char *text, size_t len,
    struct mc_buf *out)
{
	struct mc_template_error e;

	if (mc_template_render(text, len, R->values, out, &e) == -1)
		return template_error(label, &e);
	trim(out);
	return 0;
}

/* ---- profiles ---- */

/* Read a profile and split it; warns about an unterminated frontmatter. */
static int
read_profile(struct render *R, const char *path, struct mc_read *r,
    struct mc_frontmatter *fm)
{
	mc_file_read(path, PROFILE_CAP, MC_LINK_REFUSE, NULL, 1, r);
	if (r->status != MC_READ_OK)
		return -1;
	if (mc_frontmatter_parse(r->data, r->len, fm) == -1)
		mc_oom();
	if (fm->present && !fm->terminated)
		mc_context_diag(R->doc, "warning", path, "unterminated frontmatter");
	return 0;
}

/* A frontmatter value for one line of the prompt, or NULL. */
static char *
fm_line(const struct mc_frontmatter *fm, const char *key)
{
	const char *v = mc_frontmatter_get(fm, key);

	return v != NULL ? one_line(v, DESC_MAX) : NULL;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* <Subagent-Identities>: one line per $MC_HOME/subagents/ID.md, by id. */
static void
build_subagents(struct render *R)
{
	struct section *S = &R->sec[S_SUBAGENTS];
	struct mc_frontmatter fm;
	struct dirent *de;
	struct mc_read r;
	struct stat st;
	char **ids = NULL, **p, *dir, *path, *name, *desc;
	size_t nids = 0, i, n;
	DIR *dp;
	int fd;

	S->source = "generated";
	if ((dir = mc_path_join(R->s.home, "subagents")) == NULL)
		mc_oom();
	/* A symlinked directory is not scanned (SPEC §0); O_NOFOLLOW keeps
	 * it so between the lstat and the open. */
	if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)) {
		mc_context_diag(R->doc, "warning", dir, "symbolic link to a directory, not scanned");
		free(dir);
		return;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1) {
		if (errno != ENOENT && errno != ENOTDIR)
			mc_context_diag(R->doc, "warning", dir, "%s", strerror(errno));
		free(dir);
		return;
	}
	if ((dp = fdopendir(fd)) == NULL) {
		mc_context_diag(R->doc, "warning", dir, "%s", strerror(errno));
		close(fd);
		free(dir);
		return;
	}
	while ((de = readdir(dp)) != NULL) {
		n = strlen(de->d_name);
		if (de->d_name[0] == '.' || n <= 3 || strcmp(de->d_name + n - 3, ".md") != 0)
			continue;
		if (!safe_id(de->d_name, n - 3)) {
			if ((path = mc_path_join(dir, de->d_name)) == NULL)
				mc_oom();
			mc_context_diag(R->doc, "warning", path,
			    "not a valid profile id (letters, digits, '.', '_' and '-'); skipped");
			free(path);
			continue;
		}
		if ((p = reallocarray(ids, nids + 1, sizeof *ids)) == NULL ||
		    (p[nids] = strndup(de->d_name, n - 3)) == NULL)
			mc_oom();
		ids = p;
		nids++;
	}
	closedir(dp);
	if (nids > 0)
		qsort(ids, nids, sizeof *ids, cmp_names);

	for (i = 0; i < nids; i++) {
		char file[ID_MAX + 4];

		snprintf(file, sizeof file, "%s.md", ids[i]);
		if ((path = mc_path_join(dir, file)) == NULL)
			mc_oom();
		if (read_profile(R, path, &r, &fm) == -1) {
			mc_context_diag(R->doc, "warning", path, "%s; skipped",
			    mc_read_strerror(&r, PROFILE_CAP));
			free(r.data);
			free(path);
			continue;
		}
		name = fm_line(&fm, "name");
		desc = fm_line(&fm, "description");
		if (S->text.len == 0)
			adds(&S->text, "<Subagent-Identities>\n");
		adds(&S->text, "- ");
		adds(&S->text, ids[i]);
		if (name != NULL) {
			adds(&S->text, " (");
			adds(&S->text, name);
			adds(&S->text, ")");
		}
		if (desc != NULL) {
			adds(&S->text, ": ");
			adds(&S->text, desc);
		}
		adds(&S->text, "\n");
		free(name);
		free(desc);
		mc_frontmatter_free(&fm);
		free(r.data);
		free(path);
	}
	if (S->text.len > 0)
		adds(&S->text, "</Subagent-Identities>");
	for (i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
	free(dir);
}

/* One <Your-Role> wrapper for the profile DIR/ID.md. */
static int
add_role(struct render *R, const char *dirname, const char *opt, const char *id)
{
	struct section *S = &R->sec[S_ROLE];
	struct mc_frontmatter fm;
	struct mc_buf body = {0};
	struct mc_read r;
	char *dir, *path, file[ID_MAX + 4], *name;

	snprintf(file, sizeof file, "%s.md", id);
	if ((dir = mc_path_join(R->s.home, dirname)) == NULL ||
	    (path = mc_path_join(dir, file)) == NULL)
		mc_oom();
	free(dir);
	if (read_profile(R, path, &r, &fm) == -1) {
		if (r.status == MC_READ_MISSING)
			mc_err("%s %s: no such profile: %s", opt, id, path);
		else
			mc_err("%s: %s", path, mc_read_strerror(&r, PROFILE_CAP));
		free(r.data);
		free(path);
		return -1;
	}
	name = fm_line(&fm, "name");
	add(&body, fm.body, fm.body_len);
	trim(&body);
	if (S->text.len > 0)
		adds(&S->text, "\n");
	adds(&S->text, "<Your-Role Persona=");
	adds(&S->text, name != NULL ? name : id);
	adds(&S->text, ">\n");
	if (body.len > 0) {
		add(&S->text, body.data, body.len);
		adds(&S->text, "\n");
	}
	adds(&S->text, "</Your-Role>");
	S->source = "generated";
	mc_buf_free(&body);
	free(name);
	mc_frontmatter_free(&fm);
	free(r.data);
	free(path);
	return 0;
}

/* ---- the generated sections ---- */

static void
build_skills(struct render *R)
{
	struct section *S = &R->sec[S_SKILLS];
	const struct fragment *F = &R->frag[F_SKILLS];

	S->source = F->source;
	if (R->skills.len == 0)
		return;
	adds(&S->text, "<Available-Skills>\n");
	if (F->text.len > 0) {
		add(&S->text, F->text.data, F->text.len);
		adds(&S->text, "\n");
	}
	add(&S->text, R->skills.data, R->skills.len);
	adds(&S->text, "</Available-Skills>");
}

static void
build_context(struct render *R)
{
	struct section *S = &R->sec[S_CONTEXT];
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(R->doc, "instructions");
	const cJSON *e;
	const char *path, *content;
	size_t n;

	S->source = "generated";
	adds(&S->text, "<Additional-Context-Files>\n");
	if (cJSON_GetArraySize(list) == 0)
		adds(&S->text, "No AGENTS.md instruction files were discovered.\n");
	else
		adds(&S->text, "These files are automatically injected and MUST ALWAYS be remembered "
		    "and considered in every action, do NOT read these files again:\n");
	cJSON_ArrayForEach(e, list) {
		path = mc_json_str(e, "path");
		content = mc_json_str(e, "content");
		adds(&S->text, "<Context File=");
		/* The path shares a line with markup: no line breaks, no tags. */
		for (; *path; path++)
			if (*path == '<' || *path == '>')
				adds(&S->text, *path == '<' ? "&lt;" : "&gt;");
			else
				add(&S->text, (unsigned char)*path < 0x20 || *path == 0x7f ? "?" : path, 1);
		adds(&S->text, ">\n");
		n = strlen(content);
		add(&S->text, content, n);
		if (n > 0 && content[n - 1] != '\n')
			adds(&S->text, "\n");
		adds(&S->text, "</Context>\n");
	}
	adds(&S->text, "</Additional-Context-Files>");
}

static int
apply_override(struct render *R)
{
	const cJSON *sec;
	const char *action, *content;
	struct mc_buf add_text = {0}, joined;
	struct section *S;
	char label[512];

	cJSON_ArrayForEach(sec, cJSON_GetObjectItemCaseSensitive(R->override, "sections")) {
		S = &R->sec[section_index(sec->string)];
		action = mc_json_str(sec, "action");
		content = mc_json_str(sec, "content");
		S->source = "override";
		if (strcmp(action, "remove") == 0) {
			mc_buf_free(&S->text);
			continue;
		}
		snprintf(label, sizeof label, "%s: prompt.model_overrides[%d].sections.%s.content",
		    R->s.path, R->override_index, sec->string);
		if (render_text(R, label, content, strlen(content), &add_text) == -1)
			return -1;
		joined = (struct mc_buf){0};
		if (strcmp(action, "prepend") == 0 && add_text.len > 0) {
			add(&joined, add_text.data, add_text.len);
			if (S->text.len > 0)
				adds(&joined, "\n");
		}
		if (strcmp(action, "replace") != 0 && S->text.len > 0)
			add(&joined, S->text.data, S->text.len);
		if ((strcmp(action, "append") == 0 || strcmp(action, "replace") == 0) &&
		    add_text.len > 0) {
			if (joined.len > 0)
				adds(&joined, "\n");
			add(&joined, add_text.data, add_text.len);
		}
		mc_buf_free(&S->text);
		mc_buf_free(&add_text);
		S->text = joined;
		if (S == &R->sec[S_CONTEXT] && S->text.len == 0) {
			mc_err("%s: prompt.model_overrides[%d].sections.context: the context section cannot be removed",
			    R->s.path, R->override_index);
			return -1;
		}
	}
	return 0;
}

/* Sections joined by one blank line, one final newline. */
/* The sections in order, a blank line apart, into R->prompt; or, with
 * fp, straight out: a megabyte of instructions need not be copied twice. */
static void
assemble(struct render *R, FILE *fp)
{
	int i, any = 0;

	for (i = 0; i < S_N; i++) {
		if (R->sec[i].text.len == 0)
			continue;
		if (fp != NULL) {
			if (any)
				fputs("\n\n", fp);
			fwrite(R->sec[i].text.data, 1, R->sec[i].text.len, fp);
		} else {
			if (any)
				adds(&R->prompt, "\n\n");
			add(&R->prompt, R->sec[i].text.data, R->sec[i].text.len);
		}
		any = 1;
	}
	if (fp != NULL)
		putc('\n', fp);
	else
		adds(&R->prompt, "\n");
}

/* ---- output ---- */

static int
write_json(struct render *R, int pretty)
{
	char hex[SHA256_DIGEST_STRING_LENGTH];
	cJSON *out, *list, *e, *d;
	int i, rc;

	SHA256Data((const uint8_t *)R->prompt.data, R->prompt.len, hex);
	out = mc_json_new_obj();
	mc_json_add_str(out, "system_prompt", R->prompt.data);
	mc_json_add_str(out, "sha256", hex);
	list = mc_json_add(out, "sections", cJSON_CreateArray());
	for (i = 0; i < S_N; i++) {
		if (R->sec[i].text.len == 0)
			continue;
		e = mc_json_push(list, mc_json_new_obj());
		mc_json_add_str(e, "name", section_names[i]);
		mc_json_add_str(e, "source", R->sec[i].source);
		mc_json_add_num(e, "bytes", (double)R->sec[i].text.len);
	}
	d = cJSON_Duplicate(mc_json_arr_ensure(R->doc, "diagnostics"), 1);
	mc_json_add(out, "diagnostics", d);
	rc = mc_json_write(stdout, out, pretty);
	cJSON_Delete(out);
	return rc == -1 && errno != EPIPE ? -1 : 0;
}

static void
write_stats(struct render *R)
{
	size_t total = R->prompt.len, bytes, bar, k;
	int i;

	printf("%-10s %-9s %8s %8s %7s\n", "SECTION", "SOURCE", "BYTES", "TOKENS", "SHARE");
	for (i = 0; i < S_N; i++) {
		if ((bytes = R->sec[i].text.len) == 0)
			continue;
		printf("%-10s %-9s %8zu %8zu %6.1f%% ", section_names[i], R->sec[i].source,
		    bytes, (bytes + 3) / 4, 100.0 * (double)bytes / (double)total);
		bar = (bytes * BAR_WIDTH + total / 2) / total;
		if (bar == 0)
			bar = 1;
		for (k = 0; k < bar; k++)
			putchar('#');
		putchar('\n');
	}
	printf("%-10s %-9s %8zu %8zu %6.1f%%\n", "total", "", total, (total + 3) / 4, 100.0);
}

static int
render(struct render *R, const char *model, int mode, int pretty)
{
	char err[1024];
	unsigned used = 0;
	int empty, f, i;

	if (mc_settings_load(&R->s, err, sizeof err) == -1) {
		mc_err("%s", err);
		return -1;
	}
	if (model == NULL && (model = getenv("MC_MODEL")) != NULL && *model == '\0')
		model = NULL;
	if (model == NULL)
		model = mc_json_str(R->s.root, "model");
	if (check_overrides(R, model, &used) == -1)
		return -1;

	for (f = 0; f < F_N; f++)
		if (load_fragment(R, f, &used) == -1)
			return -1;
	if (used & (1u << MC_TVAR_HAS_RIPGREP))
		R->rg = probe_start(&R->rg_deadline);

	R->doc = mc_json_read_fd_each(0, &empty, "skills", take_skill, R, err, sizeof err);
	if (R->doc == NULL && !empty) {
		mc_err("stdin: %s", err);
		return -1;
	}
	if (R->doc == NULL)
		R->doc = mc_json_new_obj();
	if (check_doc(R) == -1)
		return -1;
	runtime_facts(R, used);
	for (f = 0; f < F_N; f++)
		if (render_text(R, R->frag[f].label, R->frag[f].raw, R->frag[f].rawlen,
		    &R->frag[f].text) == -1)
			return -1;

	R->sec[S_SYSTEM].text = R->frag[F_SYSTEM].text;
	R->sec[S_SYSTEM].source = R->frag[F_SYSTEM].source;
	R->frag[F_SYSTEM].text = (struct mc_buf){0};
	R->sec[S_TOOLS].text = R->frag[F_TOOLS].text;
	R->sec[S_TOOLS].source = R->frag[F_TOOLS].source;
	R->frag[F_TOOLS].text = (struct mc_buf){0};
	build_subagents(R);
	build_skills(R);
	build_context(R);
	R->sec[S_ROLE].source = "generated";
	if (agent != NULL && add_role(R, "agents", "--agent", agent) == -1)
		return -1;
	for (i = 0; i < nsubagents; i++)
		if (add_role(R, "subagents", "--subagent", subagents[i]) == -1)
			return -1;
	if (R->override != NULL && apply_override(R) == -1)
		return -1;
	if (mode == 't') {
		assemble(R, stdout);	/* mc_finish reports a failed write */
		return 0;
	}
	assemble(R, NULL);
	if (mode == 'j')
		return write_json(R, pretty);
	write_stats(R);
	return 0;
}

/* --fragment: one fragment rendered as its section would have it (user
 * override or bundled, strict variables, trimmed), for the prompt of
 * another program's request (mc-compact's summary). */
static int
print_fragment(struct render *R, int f)
{
	struct fragment *F = &R->frag[f];
	char err[1024];
	unsigned used = 0;

	if (mc_settings_load(&R->s, err, sizeof err) == -1) {
		mc_err("%s", err);
		return -1;
	}
	if (load_fragment(R, f, &used) == -1)
		return -1;
	if (used & (1u << MC_TVAR_HAS_RIPGREP))
		R->rg = probe_start(&R->rg_deadline);
	runtime_facts(R, used);
	if (render_text(R, F->label, F->raw, F->rawlen, &F->text) == -1)
		return -1;
	if (F->text.len > 0) {
		fwrite(F->text.data, 1, F->text.len, stdout);
		putchar('\n');
	}
	return 0;		/* mc_finish reports a failed write */
}

static void
render_free(struct render *R)
{
	int i;

	for (i = 0; i < F_ALL; i++) {
		free(R->frag[i].label);
		free(R->frag[i].raw);
		mc_buf_free(&R->frag[i].text);
	}
	for (i = 0; i < S_N; i++)
		mc_buf_free(&R->sec[i].text);
	mc_buf_free(&R->prompt);
	free(R->term);
	if (R->rg != -1) {	/* a failure came before its answer was wanted */
		kill(R->rg, SIGKILL);
		while (waitpid(R->rg, NULL, 0) == -1 && errno == EINTR)
			;
	}
	mc_buf_free(&R->skills);
	cJSON_Delete(R->bad_skill);
	cJSON_Delete(R->doc);
	mc_settings_free(&R->s);
}

static int
check_id(const char *opt, const char *id)
{
	if (safe_id(id, strlen(id)))
		return 0;
	return mc_usage_error("%s: invalid profile id \"%s\" (letters, digits, '.', '_' and '-', "
	    "not starting with '.', at most %d)", opt, id, ID_MAX);
}

int
main(int argc, char *argv[])
{
	enum { OPT_AGENT = 256, OPT_SUBAGENT, OPT_JSON, OPT_PRETTY, OPT_STATS,
		OPT_DEFAULT, OPT_FRAGMENT };
	static const struct option longopts[] = {
		{ "agent", required_argument, NULL, OPT_AGENT },
		{ "subagent", required_argument, NULL, OPT_SUBAGENT },
		{ "model", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "pretty", no_argument, NULL, OPT_PRETTY },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "print-default", required_argument, NULL, OPT_DEFAULT },
		{ "fragment", required_argument, NULL, OPT_FRAGMENT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, MC_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct render R = { .rg = -1 };
	const char *model = NULL, *print_default = NULL, *fragment = NULL, *opt, *name;
	const struct mc_prompt *p;
	int c, json = 0, stats = 0, pretty = 0, f, status;

	mc_init("mc-render", argv);
	while ((c = getopt_long(argc, argv, "+hm:q", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_AGENT:
			if (check_id("--agent", optarg) != 0)
				return MC_EXIT_USAGE;
			agent = optarg;
			break;
		case OPT_SUBAGENT:
			if (check_id("--subagent", optarg) != 0)
				return MC_EXIT_USAGE;
			if (nsubagents == MAX_SUBAGENTS)
				return mc_usage_error("--subagent: at most %d profiles", MAX_SUBAGENTS);
			subagents[nsubagents++] = optarg;
			break;
		case 'm':
			model = optarg;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_PRETTY:
			pretty = 1;
			break;
		case OPT_STATS:
			stats = 1;
			break;
		case OPT_DEFAULT:
			print_default = optarg;
			break;
		case OPT_FRAGMENT:
			fragment = optarg;
			break;
		case 'q':
			mc_quiet = 1;
			break;
		default:	/* -h, --version or a bad option */
			return mc_opt_exit(c, usage);
		}
	}
	if (optind < argc)
		return mc_usage_error("unexpected argument: %s", argv[optind]);
	if (json && stats)
		return mc_usage_error("--json and --stats cannot be used together");
	if (agent != NULL && nsubagents > 0)
		return mc_usage_error("--agent is for the main session, --subagent for a child: not both");
	if (print_default != NULL || fragment != NULL) {
		opt = print_default != NULL ? "--print-default" : "--fragment";
		name = print_default != NULL ? print_default : fragment;
		if (json || stats || agent || nsubagents || model || (print_default && fragment))
			return mc_usage_error("%s takes no other option", opt);
		if ((f = fragment_index(name)) == -1)
			return mc_usage_error("%s: unknown fragment \"%s\" (system, tools, skills or compact)",
			    opt, name);
		if (fragment != NULL) {
			status = print_fragment(&R, f) == -1 ? MC_EXIT_FAIL : MC_EXIT_OK;
			render_free(&R);
			return mc_finish(status);
		}
		if ((p = bundled(f)) == NULL) {
			mc_err("no bundled fragment %s.md (a build problem)", fragment_names[f]);
			return MC_EXIT_FAIL;
		}
		fwrite(p->data, 1, p->len, stdout);
		return mc_finish(MC_EXIT_OK);
	}

	status = render(&R, model, json ? 'j' : stats ? 's' : 't', pretty) == -1 ?
	    MC_EXIT_FAIL : MC_EXIT_OK;
	render_free(&R);
	return mc_finish(status);
}
