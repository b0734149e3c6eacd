/* checkpoint.c: before a turn's first change, the working tree recorded; when the turn ends, what it changed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "checkpoint.h"
#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"
#include "proc.h"
#include "shadow.h"

#define LOG_CAP (64u << 20)

/* A turn's checkpoint, and what the run has said about checkpoints. */
struct checkpoints {
	long long turn;		/* this turn's number, once counted */
	int taken;		/* 1: taken; -1: the turn goes on without one */
	int git;		/* git is on PATH: 1, 0, or -1 not yet looked for */
	char before[MC_SHADOW_ID];
	struct mc_shadow sh;
	int open;
	cJSON *images;		/* without git: this turn's [{"path","before"}] */
	unsigned nimage;	/* images/ID/ names: TURN-N */
	struct mc_strset large;	/* large files said this run */
	int said_bash;		/* without git: that bash is not covered, said */
};

char *
cp_log_path(const char *home, const char *id)
{
	struct mc_buf b = {0};

	mc_buf_printf(&b, "%s/checkpoints/%s.jsonl", home, id);
	return mc_buf_steal(&b);
}

char *
cp_image_dir(const char *home, const char *id)
{
	struct mc_buf b = {0};

	mc_buf_printf(&b, "%s/checkpoints/images/%s", home, id);
	return mc_buf_steal(&b);
}

/* The hash of the directory's path: its repository's name. */
char *
cp_repo_dir(const char *home, const char *cwd)
{
	struct mc_buf b = {0};

	mc_buf_printf(&b, "%s/checkpoints/git/%016llx", home, (unsigned long long)mc_strhash(cwd));
	return mc_buf_steal(&b);
}

int
cp_log_append(const char *home, const char *id, const cJSON *line, char *err, size_t errsz)
{
	char *path = cp_log_path(home, id), *s;
	size_t n;
	int fd, r = -1;

	s = mc_json_compact(line, &n);
	s[n++] = '\n';
	if (mc_dir_parents(path, 0700, err, errsz) == 0) {
		if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
		    0600)) == -1 || mc_write_all(fd, s, n) == -1 || fsync(fd) == -1)
			snprintf(err, errsz, "%s: %s", path, strerror(errno));
		else
			r = 0;
		if (fd != -1)
			close(fd);
	}
	free(s);
	free(path);
	return r;
}

cJSON *
cp_log_read(const char *home, const char *id, char *err, size_t errsz)
{
	char *path = cp_log_path(home, id), perr[128];
	const char *line, *nl, *end;
	struct mc_read r;
	cJSON *v = mc_json_new_arr(), *e;

	mc_file_read(path, LOG_CAP, MC_LINK_REFUSE, NULL, 0, &r);
	if (r.status != MC_READ_OK && r.status != MC_READ_MISSING) {
		snprintf(err, errsz, "%s: %s", path, mc_read_strerror(&r, LOG_CAP));
		cJSON_Delete(v);
		v = NULL;
	}
	end = r.data + r.len;
	for (line = r.data; v != NULL && line != NULL && line < end; line = nl + 1) {
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			break;		/* a torn last line */
		if ((e = mc_json_parse(line, (size_t)(nl - line), perr, sizeof perr)) != NULL &&
		    cJSON_IsObject(e))
			mc_json_push(v, e);
		else
			cJSON_Delete(e);
	}
	free(r.data);
	free(path);
	return v;
}

/* Calls that may change the working tree: write, edit, bash, the
 * subagents (whose children run those), MCP tools but those whose
 * servers say readOnlyHint. */
static int
changes(const struct driver *d, const char *name)
{
	return strcmp(name, "write") == 0 || strcmp(name, "edit") == 0 ||
	    strcmp(name, "bash") == 0 || subagents_has(d, name) ||
	    (mcp_has(d, name) && !mcp_read_only(d, name));
}

/* The line that begins the turn's record in the log. */
static cJSON *
begin_line(struct driver *d)
{
	cJSON *l = mc_json_new_obj();

	mc_json_add_num(l, "turn", (double)d->cp->turn);
	mc_json_add_str(l, "cwd", d->c.cwd);
	return l;
}

/* The large files of the last snapshot, each said once a run. */
static void
note_large(struct checkpoints *cp)
{
	size_t i;
	int added;

	for (i = 0; i < cp->sh.nlarge; i++) {
		mc_strset_add(&cp->large, cp->sh.large[i], 0, &added);
		if (added)
			mc_note("checkpoint: %s is over %u MiB: not stored; a rewind leaves it as it is",
			    cp->sh.large[i], MC_SHADOW_LARGE >> 20);
	}
}

/* With git: the tree as it is, before the turn changes it. */
static int
take_git(struct driver *d, char *err, size_t errsz)
{
	struct checkpoints *cp = d->cp;
	char *dir;
	cJSON *l, *big;
	size_t i;
	int r;

	if (!cp->open) {
		dir = cp_repo_dir(d->c.set.home, d->c.cwd);
		if (mc_shadow_open(&cp->sh, dir, d->c.cwd, d->c.set.home, err, errsz) == -1) {
			free(dir);
			return -1;
		}
		free(dir);
		cp->open = 1;
		cp->sh.stop = &interrupted;
	}
	if (mc_shadow_snapshot(&cp->sh, cp->before, err, errsz) == -1)
		return -1;
	l = begin_line(d);
	mc_json_add_str(l, "repo", cp->sh.dir);
	mc_json_add_str(l, "before", cp->before);
	big = mc_json_arr_ensure(l, "large");
	for (i = 0; i < cp->sh.nlarge; i++)
		mc_json_push(big, mc_json_new_str(cp->sh.large[i]));
	note_large(cp);
	r = cp_log_append(d->c.set.home, d->s.file.id, l, err, errsz);
	cJSON_Delete(l);
	return r;
}

/* Without git: a turn's record begins with no tree. */
static int
take_images(struct driver *d, char *err, size_t errsz)
{
	cJSON *l = begin_line(d);
	int r;

	mc_json_add(l, "images", cJSON_CreateTrue());
	r = cp_log_append(d->c.set.home, d->s.file.id, l, err, errsz);
	cJSON_Delete(l);
	d->cp->images = mc_json_new_arr();
	return r;
}

/* The path a write or edit names, relative to the working directory
 * when inside it; NULL when it names none. Malloc'ed. */
static char *
target(const struct driver *d, const cJSON *call)
{
	const char *args = mc_json_str(call, "arguments"), *p;
	char err[64], *r = NULL;
	cJSON *a;

	if (args == NULL || (a = mc_json_parse(args, strlen(args), err, sizeof err)) == NULL)
		return NULL;
	if ((p = mc_json_str(a, "path")) != NULL && *p != '\0') {
		if (*p != '/')
			r = mc_strdup(p);
		else if (mc_path_within(p, d->c.cwd) && strlen(p) > strlen(d->c.cwd))
			r = mc_strdup(p + strlen(d->c.cwd) + 1);
		else
			r = mc_strdup(p);
	}
	cJSON_Delete(a);
	return r;
}

/* The file at path (relative to the working directory, or absolute)
 * copied to images/ID/, as a side of a change in *side (null: no file;
 * NULL: over MC_SHADOW_LARGE, noted, not kept). 0, or -1 with err. */
static int
image(struct driver *d, const char *path, cJSON **side, char *err, size_t errsz)
{
	char *full = *path == '/' ? mc_strdup(path) : mc_path_join(d->c.cwd, path);
	char *dir = cp_image_dir(d->c.set.home, d->s.file.id), *file;
	struct mc_buf name = {0}, ref = {0};
	struct mc_read r;
	int fd, res = -1, added;

	*side = NULL;
	mc_file_read(full, MC_SHADOW_LARGE, MC_LINK_REFUSE, NULL, 0, &r);
	if (r.status == MC_READ_MISSING || (r.status == MC_READ_ERRNO && r.err == ENOTDIR)) {
		*side = cJSON_CreateNull();
		res = 0;
	} else if (r.status == MC_READ_TOOBIG) {
		mc_strset_add(&d->cp->large, path, 0, &added);
		if (added)
			mc_note("checkpoint: %s is over %u MiB: not stored; a rewind leaves it as it is",
			    path, MC_SHADOW_LARGE >> 20);
		res = 0;
	} else if (r.status != MC_READ_OK)
		snprintf(err, errsz, "%s: %s", path, mc_read_strerror(&r, MC_SHADOW_LARGE));
	else {
		mc_buf_printf(&name, "%lld-%u", d->cp->turn, d->cp->nimage++);
		file = mc_path_join(dir, name.data);
		if (mc_dir_parents(file, 0700, err, errsz) == -1)
			fd = -1;
		else if ((fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0600)) == -1 || mc_write_all(fd, r.data, r.len) == -1 || fsync(fd) == -1)
			snprintf(err, errsz, "%s: %s", file, strerror(errno));
		else {
			mc_buf_printf(&ref, "image %s %s", r.mode & 0100 ? "100755" : "100644",
			    name.data);
			*side = mc_json_new_owned(mc_buf_steal(&ref));
			res = 0;
		}
		if (fd != -1)
			close(fd);
		free(file);
	}
	free(r.data);
	free(full);
	free(dir);
	mc_buf_free(&name);
	return res;
}

/* Without git: a write or edit's target, imaged the first time the turn
 * touches it; bash said once not to be covered. */
static int
before_image(struct driver *d, const char *name, const cJSON *call, char *err, size_t errsz)
{
	const cJSON *e;
	cJSON *side, *o;
	char *path;

	if (strcmp(name, "write") != 0 && strcmp(name, "edit") != 0) {
		if (!d->cp->said_bash)
			mc_note("checkpoint: git is not on PATH: what %s changes is not covered "
			    "(only the files write and edit change are kept)", name);
		d->cp->said_bash = 1;
		return 0;
	}
	if ((path = target(d, call)) == NULL)
		return 0;
	cJSON_ArrayForEach(e, d->cp->images)
		if (strcmp(mc_json_str(e, "path"), path) == 0) {
			free(path);
			return 0;
		}
	if (image(d, path, &side, err, errsz) == -1) {
		free(path);
		return -1;
	}
	if (side == NULL) {	/* too large to keep */
		free(path);
		return 0;
	}
	o = mc_json_new_obj();
	mc_json_add(o, "path", mc_json_new_owned(path));
	mc_json_add(o, "before", side);
	mc_json_push(d->cp->images, o);
	return 0;
}

/* A yes or no on the terminal itself: 1 yes, 0 anything else. */
static int
agree(const char *question)
{
	struct termios saved, line;
	char c[64];
	ssize_t n;
	int fd, modes, r;

	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1)
		return 0;
	if ((modes = tcgetattr(fd, &saved) == 0)) {
		line = saved;
		line.c_lflag |= ICANON | ECHO | ISIG;
		line.c_iflag |= ICRNL;
		tcsetattr(fd, TCSANOW, &line);
	}
	tcflush(fd, TCIFLUSH);
	mc_write_all(fd, question, strlen(question));
	n = read(fd, c, sizeof c - 1);
	c[n > 0 ? n : 0] = '\0';
	r = c[strspn(c, " \t")] == 'y' || c[strspn(c, " \t")] == 'Y';
	if (modes)
		tcsetattr(fd, TCSANOW, &saved);
	close(fd);
	return r;
}

/*
 * A checkpoint that cannot be taken is said before the change; the turn
 * goes on without one only when the user agrees: --yes, or y to the
 * question on the terminal. 1 to go on.
 */
static int
without(struct driver *d, const char *name, const char *why)
{
	mc_err("no checkpoint could be taken before %s: %s", name, why);
	if (d->c.yes || d->mode.now == MODE_YES) {
		mc_note("going on without a checkpoint (%s)", d->c.yes ? "--yes" : "mode yes");
		return 1;
	}
	if (d->t.el != NULL)
		return agree("go on without a checkpoint (no /undo for this turn)? [y/N] ");
	return 0;
}

int
checkpoint_before(struct driver *d, const char *name, const cJSON *call, char **why)
{
	struct checkpoints *cp;
	char err[1024];
	char *git;
	int r;

	/* A subagent's changes are its parent's turn's: the parent's
	 * checkpoint covers them. */
	if (d->c.dry || d->c.depth > 0 || d->s.file.fd == -1 || d->s.file.id == NULL ||
	    !changes(d, name) ||
	    cJSON_IsFalse(mc_settings_get(&d->c.set, "checkpoints.enabled")))
		return 0;
	if ((cp = d->cp) == NULL) {
		if ((cp = d->cp = calloc(1, sizeof *cp)) == NULL)
			mc_oom();
		cp->git = -1;
	}
	if (cp->git == -1) {
		git = mc_proc_which("git");
		cp->git = git != NULL;
		free(git);
	}
	if (cp->taken == -1 || (cp->taken == 1 && cp->git))
		return 0;
	if (cp->turn == 0)
		cp->turn = mc_session_turns(d->s.file.lines.data ? d->s.file.lines.data : "",
		    d->s.file.lines.len, NULL, NULL);
	r = 0;
	if (cp->taken == 0)
		r = cp->git ? take_git(d, err, sizeof err) : take_images(d, err, sizeof err);
	if (r == 0 && !cp->git)
		r = before_image(d, name, call, err, sizeof err);
	if (r == 0) {
		cp->taken = 1;
		return 0;
	}
	if (interrupted) {	/* Ctrl-C, --timeout: the turn stops here */
		*why = mc_strdup(timed_out ? "error: the run's --timeout came before this call ran." :
		    "error: the user interrupted before this call ran.");
		return -1;
	}
	if (without(d, name, err)) {
		if (cp->taken == 0)
			cp->taken = -1;
		return 0;
	}
	*why = mc_strdup("error: not run: no checkpoint could be taken before this change, and "
	    "the user did not agree to go on without one.");
	return -1;
}

/* The large files of the after snapshot noted too, and the changes to
 * any large file dropped: it is in neither tree, and a rewind leaves it
 * as it is (a file that grew past the limit would seem removed). */
static void
drop_large(struct checkpoints *cp, cJSON *changed)
{
	cJSON *e, *next;

	note_large(cp);
	for (e = changed->child; e != NULL; e = next) {
		next = e->next;
		if (mc_strset_find(&cp->large, mc_json_str(e, "path")) != NULL)
			cJSON_Delete(cJSON_DetachItemViaPointer(changed, e));
	}
}

/* The after side of each imaged file, into changed. */
static void
after_images(struct driver *d, cJSON *changed)
{
	const cJSON *e;
	cJSON *side, *o;
	char err[512];

	cJSON_ArrayForEach(e, d->cp->images) {
		if (image(d, mc_json_str(e, "path"), &side, err, sizeof err) == -1) {
			mc_warn("checkpoint: %s", err);
			continue;
		}
		if (side == NULL)	/* grew too large: left as it is */
			continue;
		o = cJSON_Duplicate(e, 1);
		mc_json_add(o, "after", side);
		mc_json_push(changed, o);
	}
}

void
checkpoint_after(struct driver *d)
{
	struct checkpoints *cp = d->cp;
	char err[1024], after[MC_SHADOW_ID];
	cJSON *l, *changed = NULL;

	if (cp == NULL || cp->taken != 1) {
		if (cp != NULL)
			cp->taken = 0, cp->turn = 0;
		return;
	}
	l = mc_json_new_obj();
	mc_json_add_num(l, "turn", (double)cp->turn);
	if (cp->git) {
		/* Taken even when the turn was cancelled: what it changed
		 * until then is to be known. */
		cp->sh.stop = NULL;
		if (mc_shadow_snapshot(&cp->sh, after, err, sizeof err) == 0 &&
		    (changed = mc_shadow_diff(&cp->sh, cp->before, after, err, sizeof err)) != NULL) {
			mc_json_add_str(l, "after", after);
			drop_large(cp, changed);
		}
		cp->sh.stop = &interrupted;
	} else {
		changed = mc_json_new_arr();
		after_images(d, changed);
	}
	if (changed == NULL)
		mc_warn("checkpoint: what turn %lld changed is not known: %s", cp->turn, err);
	else {
		mc_json_add(l, "changed", changed);
		if (cp_log_append(d->c.set.home, d->s.file.id, l, err, sizeof err) == -1)
			mc_warn("checkpoint: %s", err);
	}
	cJSON_Delete(l);
	cJSON_Delete(cp->images);
	cp->images = NULL;
	cp->taken = 0;
	cp->turn = 0;
}

void
checkpoint_free(struct driver *d)
{
	if (d->cp == NULL)
		return;
	if (d->cp->open)
		mc_shadow_close(&d->cp->sh);
	cJSON_Delete(d->cp->images);
	mc_strset_free(&d->cp->large);
	free(d->cp);
	d->cp = NULL;
}
