/* skills.c: find SKILL.md files in the skill roots without following links, and read inside a skill. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"
#include "diag.h"
#include "frontmatter.h"
#include "fsread.h"
#include "json.h"
#include "skills.h"
#include "utf8.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
/* O_NONBLOCK: a FIFO named SKILL.md must be refused, not waited on. */
#define FILE_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

#define SETTING_PATHS "knowledge.skills.additional_paths"
#define SETTING_DISABLED "knowledge.skills.disabled"

enum { LOAD_OK, LOAD_NOSKILL, LOAD_REFUSED };

struct scan {
	struct mc_skills *sk;
	const char *only;
	size_t root;
	struct mc_skill *cand;	/* every loadable SKILL.md, all roots */
	size_t ncand, capcand;
};

int
mc_skill_name_valid(const char *name)
{
	size_t n;

	for (n = 0; name[n] != '\0'; n++)
		if (n >= MC_SKILL_NAME_MAX || !((name[n] >= 'a' && name[n] <= 'z') ||
		    (name[n] >= '0' && name[n] <= '9') || name[n] == '-'))
			return 0;
	return n > 0;
}

/* Paths and names come from the file system: keep the document valid
 * UTF-8 and free of control characters. */
static void
diag(const struct mc_skills *sk, const char *severity, const char *path,
    const char *fmt, ...)
{
	char msg[1024], clean[8192];
	va_list ap;

	cJSON *d;

	if (sk->doc == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	mc_sanitize(clean, sizeof clean, path);
	if (sk->pending == NULL)
		mc_context_diag(sk->doc, severity, clean, "%s", msg);
	else {
		d = mc_json_push(sk->pending, mc_json_new_obj());
		mc_json_add_str(d, "severity", severity);
		mc_json_add_str(d, "path", clean);
		mc_json_add_str(d, "message", msg);
	}
}

struct held {
	const cJSON *d;
	size_t i;
};

static int
cmp_held(const void *a, const void *b)
{
	const struct held *x = a, *y = b;
	int c = strcmp(mc_json_str(x->d, "path"), mc_json_str(y->d, "path"));

	return c ? c : x->i < y->i ? -1 : 1;
}

/* Directories list their entries in an order of the file system's own;
 * the scan's diagnostics are added by path, so the output never depends
 * on it. */
static void
flush_pending(struct mc_skills *sk)
{
	struct held *h;
	const cJSON *d;
	size_t n = 0, i;

	if ((h = calloc((size_t)cJSON_GetArraySize(sk->pending) + 1, sizeof *h)) == NULL)
		mc_oom();
	cJSON_ArrayForEach(d, sk->pending) {
		h[n].d = d;
		h[n].i = n;
		n++;
	}
	qsort(h, n, sizeof *h, cmp_held);
	for (i = 0; i < n; i++)
		mc_context_diag(sk->doc, mc_json_str(h[i].d, "severity"),
		    mc_json_str(h[i].d, "path"), "%s", mc_json_str(h[i].d, "message"));
	free(h);
	cJSON_Delete(sk->pending);
	sk->pending = NULL;
}

/* dir/name; called once per skill, so without printf. */
static char *
join(const char *dir, const char *name)
{
	size_t d = strlen(dir), n = strlen(name);
	char *p;

	while (d > 1 && dir[d - 1] == '/')
		d--;
	if ((p = malloc(d + n + 2)) == NULL)
		mc_oom();
	memcpy(p, dir, d);
	p[d] = '/';
	memcpy(p + d + 1, name, n + 1);
	return p;
}

static void
add_root(struct mc_skills *sk, const char *source, char *path, char *base, int index)
{
	struct mc_skill_root *r;

	r = reallocarray(sk->roots, sk->nroots + 1, sizeof *r);
	if (r == NULL)
		mc_oom();
	sk->roots = r;
	sk->roots[sk->nroots++] = (struct mc_skill_root){ source, path, base, index };
}

void
mc_skills_init(struct mc_skills *sk, const struct mc_settings *s, const char *repo,
    cJSON *doc)
{
	const char *home = getenv("HOME");
	const cJSON *e;
	char *p;
	size_t n;
	int i = 0;

	*sk = (struct mc_skills){ .doc = doc, .settings = s->path };
	if (home != NULL && home[0] == '/')
		add_root(sk, "legacy", join(home, ".agents/skills"), NULL, -1);
	add_root(sk, "user", join(s->home, "skills"), NULL, -1);
	cJSON_ArrayForEach(e, mc_settings_get(s, SETTING_PATHS)) {
		if (!cJSON_IsString(e))
			;
		else if (e->valuestring[0] != '/')
			diag(sk, "error", s->path, "%s[%d]: path must be absolute: %s",
			    SETTING_PATHS, i, e->valuestring);
		else {
			p = mc_strdup(e->valuestring);
			for (n = strlen(p); n > 1 && p[n - 1] == '/'; n--)
				p[n - 1] = '\0';
			add_root(sk, "configured", p, NULL, i);
		}
		i++;
	}
	add_root(sk, "repo", join(repo, ".agents/skills"), mc_strdup(repo), -1);
}

/*
 * Diagnose a directory that openat(dfd, name, DIR_FLAGS) could not open
 * with errno err. path names it. A missing one is quiet unless required.
 */
static void
dir_failed(const struct mc_skills *sk, int dfd, const char *name, const char *path,
    int err, int required)
{
	struct stat st;

	if (err == ENOENT) {
		if (required)
			diag(sk, "error", path, "no such directory");
		return;
	}
	if ((err == ELOOP || err == ENOTDIR) &&
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
		diag(sk, "warning", path, "symbolic link to a directory; not traversed");
		return;
	}
	diag(sk, "error", path, "%s", err == ENOTDIR ? "not a directory" : strerror(err));
}

/*
 * Open a root directory. The repository's .agents/skills is reached
 * without following links, since the repository's content decides them;
 * the other roots are the user's own choice and may be links (dotfile
 * managers make them). Returns an fd or -1 (diagnosed).
 */
static int
open_root(const struct mc_skills *sk, const struct mc_skill_root *r)
{
	static const char *const below[] = { ".agents", "skills" };
	char *path;
	int fd, next;
	size_t i;

	if (r->base == NULL) {
		if ((fd = open(r->path, DIR_FLAGS & ~O_NOFOLLOW)) == -1 && errno == ENOENT &&
		    r->index >= 0)
			diag(sk, "error", sk->settings, "%s[%d]: no such directory: %s",
			    SETTING_PATHS, r->index, r->path);
		else if (fd == -1)
			dir_failed(sk, AT_FDCWD, r->path, r->path, errno, 0);
		return fd;
	}
	if ((fd = open(r->base, DIR_FLAGS & ~O_NOFOLLOW)) == -1) {
		dir_failed(sk, AT_FDCWD, r->base, r->base, errno, 1);
		return -1;
	}
	for (i = 0; i < 2; i++) {
		if ((next = openat(fd, below[i], DIR_FLAGS)) == -1) {
			path = join(r->base, i == 0 ? ".agents" : ".agents/skills");
			dir_failed(sk, fd, below[i], path, errno, 0);
			free(path);
		}
		close(fd);
		if ((fd = next) == -1)
			return -1;
	}
	return fd;
}

/*
 * The description as one line: control characters (C0, DEL, C1 and the
 * Unicode line and paragraph separators) become spaces, the ends are
 * trimmed, and at most MC_SKILL_DESC_MAX characters are kept. *chars is
 * the length in characters before the cut.
 */
static char *
one_line(const char *v, size_t *chars)
{
	const unsigned char *u;
	size_t n = strlen(v), i = 0, o = 0, k, start;
	int ctl;
	char *d;

	if ((d = malloc(n + 1)) == NULL)
		mc_oom();
	*chars = 0;
	for (; i < n; i += k) {
		u = (const unsigned char *)v + i;
		if (u[0] >= 0x20 && u[0] < 0x7f) {	/* printable ASCII */
			k = 1;
			if (++*chars <= MC_SKILL_DESC_MAX)
				d[o++] = (char)u[0];
			continue;
		}
		k = mc_utf8_seqlen(v + i, n - i);
		ctl = k == 0 ||		/* cannot happen: the file was checked */
		    (k == 1 && (u[0] < 0x20 || u[0] == 0x7f)) ||
		    (k == 2 && u[0] == 0xc2 && u[1] < 0xa0) ||
		    (k == 3 && u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9));
		if (k == 0)
			k = 1;
		if (++*chars > MC_SKILL_DESC_MAX)
			continue;
		if (ctl)
			d[o++] = ' ';
		else {
			memcpy(d + o, v + i, k);
			o += k;
		}
	}
	while (o > 0 && d[o - 1] == ' ')
		o--;
	d[o] = '\0';
	for (start = 0; d[start] == ' '; start++)
		;
	memmove(d, d + start, o - start + 1);
	return d;
}

/* Read the open regular file fd, of st->st_size bytes (at most cap):
 * what it held when it was looked at. Returns 0, or -1 with errno. */
static int
slurp(int fd, const struct stat *st, char **out, size_t *outlen)
{
	size_t size = (size_t)st->st_size, len = 0;
	ssize_t n;
	char *buf;

	if ((buf = malloc(size + 1)) == NULL)
		return -1;
	while (len < size) {
		if ((n = read(fd, buf + len, size - len)) == -1) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -1;
		}
		if (n == 0)
			break;	/* it shrank meanwhile */
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
}

static void
push(struct scan *sc, const char *name, const char *group, char *path, char *desc)
{
	struct mc_skill *c;

	if (sc->ncand == sc->capcand) {
		sc->capcand = sc->capcand ? sc->capcand * 2 : 64;
		if ((c = reallocarray(sc->cand, sc->capcand, sizeof *c)) == NULL)
			mc_oom();
		sc->cand = c;
	}
	sc->cand[sc->ncand++] = (struct mc_skill){
		.name = mc_strdup(name),
		.group = group ? mc_strdup(group) : NULL,
		.path = path,
		.description = desc,
		.root = sc->root,
		.enabled = 1,
	};
}

/*
 * Load NAME/SKILL.md below the directory dfd (at dirpath). LOAD_NOSKILL
 * when the directory holds no SKILL.md; every refusal is diagnosed.
 */
static int
load(struct scan *sc, int dfd, const char *dirpath, const char *group, const char *name)
{
	struct mc_frontmatter fm;
	struct stat st;
	char rel[NAME_MAX + 16], *path, *data = NULL, *desc;
	const char *v;
	size_t len, chars;
	int fd, err;

	snprintf(rel, sizeof rel, "%s/SKILL.md", name);
	if ((fd = openat(dfd, rel, FILE_FLAGS)) == -1 && (errno == ENOENT || errno == ENOTDIR))
		return LOAD_NOSKILL;
	err = errno;
	path = join(dirpath, rel);
	if (fd == -1) {
		if (err == ELOOP)
			diag(sc->sk, "error", path, "symbolic link refused; SKILL.md must be a regular file");
		else if (err == EACCES && fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) == -1) {
			/* The skill directory itself cannot be searched. */
			path[strlen(path) - strlen("/SKILL.md")] = '\0';
			diag(sc->sk, "error", path, "%s", strerror(err));
		} else
			diag(sc->sk, "error", path, "%s", strerror(err));
		goto refused;
	}
	if (fstat(fd, &st) == -1) {
		diag(sc->sk, "error", path, "%s", strerror(errno));
		goto refused;
	}
	if (!S_ISREG(st.st_mode)) {
		diag(sc->sk, "error", path, "not a regular file");
		goto refused;
	}
	if ((unsigned long long)st.st_size > MC_SKILL_MAX) {
		diag(sc->sk, "error", path, "file is %lld bytes, over the %u-byte cap; not loaded",
		    (long long)st.st_size, MC_SKILL_MAX);
		goto refused;
	}
	if (slurp(fd, &st, &data, &len) == -1) {
		diag(sc->sk, "error", path, "%s", strerror(errno));
		goto refused;
	}
	close(fd);
	fd = -1;
	if (memchr(data, '\0', len) != NULL || !mc_utf8_valid(data, len)) {
		diag(sc->sk, "error", path, "not valid UTF-8 text");
		goto refused;
	}
	mc_frontmatter_parse(data, len, &fm);
	if (fm.present && !fm.terminated)
		diag(sc->sk, "warning", path,
		    "unterminated frontmatter (no closing ---); listed without a description");
	v = mc_frontmatter_get(&fm, "description");
	desc = one_line(v ? v : "", &chars);
	if (chars > MC_SKILL_DESC_MAX)
		diag(sc->sk, "warning", path, "description is %zu characters, cut to %d",
		    chars, MC_SKILL_DESC_MAX);
	mc_frontmatter_free(&fm);
	free(data);
	push(sc, name, group, path, desc);
	return LOAD_OK;
refused:
	if (fd != -1)
		close(fd);
	free(data);
	free(path);
	return LOAD_REFUSED;
}

/* The skill directories of one directory, to be loaded after its listing. */
struct names {
	char **v;
	size_t n, cap;
};

static void
names_add(struct names *b, const char *name)
{
	char **v;

	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		if ((v = reallocarray(b->v, b->cap, sizeof *v)) == NULL)
			mc_oom();
		b->v = v;
	}
	b->v[b->n++] = mc_strdup(name);
}

/* A group's name only ends up in paths; it must still be printable text. */
static int
group_name_ok(const char *name)
{
	const unsigned char *p;

	for (p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 0;
	return mc_utf8_valid(name, strlen(name));
}

/* Whether NAME/SKILL.md exists below dfd, without opening it. */
static int
has_skill_md(int dfd, const char *name)
{
	char rel[NAME_MAX + 16];
	struct stat st;

	snprintf(rel, sizeof rel, "%s/SKILL.md", name);
	return fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
}

static void scan_dir(struct scan *, DIR *, const char *, const char *);

static void
scan_group(struct scan *sc, int dfd, const char *dirpath, const char *name)
{
	char *path = join(dirpath, name);
	DIR *d;
	int fd;

	if (!group_name_ok(name))
		diag(sc->sk, "warning", path, "directory name is not printable UTF-8 text; skipped");
	else if ((fd = openat(dfd, name, DIR_FLAGS)) == -1)
		dir_failed(sc->sk, dfd, name, path, errno, 0);
	else if ((d = fdopendir(fd)) == NULL) {
		diag(sc->sk, "error", path, "%s", strerror(errno));
		close(fd);
	} else {
		scan_dir(sc, d, path, name);
		closedir(d);
	}
	free(path);
}

/*
 * One level of a root: ROOT itself (group NULL), whose directories are
 * skills or groups, or a group, whose directories are skills. Hidden
 * entries and plain files are not skills and pass quietly.
 */
static void
scan_dir(struct scan *sc, DIR *d, const char *dirpath, const char *group)
{
	int dfd = dirfd(d), type;
	struct names b = {0};
	struct dirent *e;
	struct stat st;
	char *path;
	size_t i;

	while ((errno = 0, e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		type = e->d_type;
		if (type == DT_UNKNOWN) {
			if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
				continue;
			type = S_ISLNK(st.st_mode) ? DT_LNK : S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
		}
		if (type == DT_LNK) {
			if (sc->only == NULL && fstatat(dfd, e->d_name, &st, 0) == 0 &&
			    S_ISDIR(st.st_mode)) {
				path = join(dirpath, e->d_name);
				diag(sc->sk, "warning", path,
				    "symbolic link to a directory; not traversed");
				free(path);
			}
			continue;
		}
		if (type != DT_DIR)
			continue;
		if (sc->only != NULL && strcmp(e->d_name, sc->only) != 0) {
			if (group == NULL && !has_skill_md(dfd, e->d_name))
				scan_group(sc, dfd, dirpath, e->d_name);
			continue;
		}
		if (!mc_skill_name_valid(e->d_name)) {
			if (has_skill_md(dfd, e->d_name)) {
				path = join(dirpath, e->d_name);
				diag(sc->sk, "warning", path,
				    "invalid skill name (1-64 characters of a-z, 0-9 and -); skipped");
				free(path);
			} else if (group == NULL)
				scan_group(sc, dfd, dirpath, e->d_name);
			continue;
		}
		names_add(&b, e->d_name);
	}
	if (errno != 0)
		diag(sc->sk, "error", dirpath, "%s", strerror(errno));
	/* After the listing, so that at most one group is open at a time. */
	for (i = 0; i < b.n; i++) {
		if (load(sc, dfd, dirpath, group, b.v[i]) == LOAD_NOSKILL && group == NULL)
			scan_group(sc, dfd, dirpath, b.v[i]);
		free(b.v[i]);
	}
	free(b.v);
}

/* By name, then the higher root first, then ROOT/NAME before
 * ROOT/GROUP/NAME, then by group: the first of each name wins. */
static int
cmp_cand(const void *a, const void *b)
{
	const struct mc_skill *x = a, *y = b;
	int c;

	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	if (x->root != y->root)
		return x->root > y->root ? -1 : 1;
	if ((x->group == NULL) != (y->group == NULL))
		return x->group == NULL ? -1 : 1;
	return x->group ? strcmp(x->group, y->group) : 0;
}

static void
skill_free(struct mc_skill *s)
{
	free(s->name);
	free(s->group);
	free(s->path);
	free(s->description);
}

static int
listed(const cJSON *arr, const char *name)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, arr)
		if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0)
			return 1;
	return 0;
}

void
mc_skills_scan(struct mc_skills *sk, const struct mc_settings *s, const char *only)
{
	struct scan sc = { .sk = sk, .only = only };
	const cJSON *disabled = mc_settings_get(s, SETTING_DISABLED);
	cJSON *doc = sk->doc;
	struct stat *seen, st;
	size_t i, j, nseen = 0, win = 0;
	int fd;
	DIR *d;

	if (only != NULL)
		sk->doc = NULL;
	else if (sk->doc != NULL)
		sk->pending = mc_json_new_arr();

	if ((seen = calloc(sk->nroots + 1, sizeof *seen)) == NULL)
		mc_oom();
	/* Highest first, so that a root reached twice (a configured path that
	 * is also $MC_HOME/skills) is scanned once, as the higher one. */
	for (i = sk->nroots; i-- > 0;) {
		if ((fd = open_root(sk, &sk->roots[i])) == -1)
			continue;
		if (fstat(fd, &st) == -1) {
			close(fd);
			continue;
		}
		for (j = 0; j < nseen; j++)
			if (seen[j].st_dev == st.st_dev && seen[j].st_ino == st.st_ino)
				break;
		if (j < nseen) {
			close(fd);
			continue;
		}
		seen[nseen++] = st;
		if ((d = fdopendir(fd)) == NULL) {
			diag(sk, "error", sk->roots[i].path, "%s", strerror(errno));
			close(fd);
			continue;
		}
		sc.root = i;
		scan_dir(&sc, d, sk->roots[i].path, NULL);
		closedir(d);
	}
	free(seen);

	if (sc.ncand > 1)
		qsort(sc.cand, sc.ncand, sizeof *sc.cand, cmp_cand);
	for (i = 0; i < sc.ncand; i++) {
		struct mc_skill *c = &sc.cand[i];

		if (i > 0 && strcmp(c->name, sc.cand[win].name) == 0) {
			if (c->root == sc.cand[win].root)
				diag(sk, "warning", c->path,
				    "skill \"%s\" is also at %s in the same root; that one is used",
				    c->name, sc.cand[win].path);
			skill_free(c);
			continue;
		}
		win = i;
		c->enabled = !listed(disabled, c->name);
		sc.cand[sk->n++] = *c;
	}
	sk->list = sc.cand;
	if (sk->pending != NULL)
		flush_pending(sk);
	sk->doc = doc;
}

static int
cmp_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct mc_skill *)elem)->name);
}

const struct mc_skill *
mc_skills_find(const struct mc_skills *sk, const char *name)
{
	if (sk->n == 0)
		return NULL;
	return bsearch(name, sk->list, sk->n, sizeof *sk->list, cmp_name);
}

/* Step from the directory fd into its entry c: a directory, or with
 * last set the file. at is rel up to c, for messages. Closes fd. */
static int
step(int fd, const char *c, int last, const char *at, char *err, size_t errsz)
{
	struct stat st;
	int next, e;

	next = openat(fd, c, last ? FILE_FLAGS : DIR_FLAGS);
	e = errno;
	if (next == -1) {
		if (fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			snprintf(err, errsz, "%s is a symbolic link; refused", at);
		else if (e == ENOENT)
			snprintf(err, errsz, "no such file in the skill directory");
		else if (e == ENOTDIR)
			snprintf(err, errsz, "%s is not a directory", at);
		else
			snprintf(err, errsz, "%s: %s", at, strerror(e));
	}
	close(fd);
	return next;
}

int
mc_skill_open(const struct mc_skills *sk, const struct mc_skill *skill,
    const char *rel, char *err, size_t errsz)
{
	const struct mc_skills quiet = {0};
	const char *tail;
	char *copy, *c, *next, at[PATH_MAX];
	struct stat st;
	size_t len;
	int fd;

	if (rel == NULL || *rel == '\0')
		rel = "SKILL.md";
	len = strlen(rel);
	if (rel[0] == '/') {
		snprintf(err, errsz, "absolute path refused; the path must stay inside the skill directory");
		return -1;
	}
	copy = mc_strdup(rel);
	/* Check every component before touching the file system. */
	for (c = copy; c != NULL; c = next) {
		if ((next = strchr(c, '/')) != NULL)
			*next++ = '\0';
		if (strcmp(c, "..") == 0) {
			snprintf(err, errsz, "\"..\" refused; the path must stay inside the skill directory");
			free(copy);
			return -1;
		}
	}
	tail = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	if (*tail == '\0' || strcmp(tail, ".") == 0) {
		snprintf(err, errsz, "%s names a directory, not a file", rel);
		free(copy);
		return -1;
	}
	if ((fd = open_root(&quiet, &sk->roots[skill->root])) == -1)
		snprintf(err, errsz, "cannot open the skill root %s", sk->roots[skill->root].path);
	if (fd != -1 && skill->group != NULL)
		fd = step(fd, skill->group, 0, "the skill's group directory", err, errsz);
	if (fd != -1)
		fd = step(fd, skill->name, 0, "the skill directory", err, errsz);
	/* copy holds the components NUL-separated, at rel's offsets; empty
	 * and "." components name the directory they are in. */
	for (c = copy; fd != -1 && c < copy + len; c += strlen(c) + 1) {
		if (*c == '\0' || strcmp(c, ".") == 0)
			continue;
		snprintf(at, sizeof at, "%.*s", (int)(c - copy + strlen(c)), rel);
		fd = step(fd, c, c + strlen(c) == copy + len, at, err, errsz);
	}
	free(copy);
	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1) {
		snprintf(err, errsz, "%s: %s", rel, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errsz, "%s is %s", rel,
		    S_ISDIR(st.st_mode) ? "a directory, not a file" : "not a regular file");
		close(fd);
		return -1;
	}
	return fd;
}

void
mc_skills_free(struct mc_skills *sk)
{
	size_t i;

	for (i = 0; i < sk->n; i++)
		skill_free(&sk->list[i]);
	free(sk->list);
	for (i = 0; i < sk->nroots; i++) {
		free(sk->roots[i].path);
		free(sk->roots[i].base);
	}
	free(sk->roots);
	*sk = (struct mc_skills){0};
}
