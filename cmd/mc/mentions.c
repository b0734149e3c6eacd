/*
 * mentions.c: mentions in a message (SPEC 24, 25), read before anything
 * of the turn is kept and attached before the message as <Context
 * File=...> blocks. A mention is an '@' at the start of the message or
 * after white space or '(', outside `code` and fenced blocks, and the word
 * after it (to white space, without the punctuation that ends a
 * sentence):
 *   @SERVER:URI  SERVER one of the settings' mcp_servers: the resource,
 *                read through mc-mcp as the model's read of
 *                mcp://SERVER/URI would be;
 *   @PATH        a file or folder that exists, or a word that looks like a
 *                path (path characters only, and a '/' or a name ending in
 *                .EXT): a text file whole, a folder's entries listed, both
 *                capped as the read tool's page is, an image (PNG, JPEG,
 *                GIF, WebP) queued as mc -a's are (attach.c); inside the
 *                workspace (workspace.c) only.
 * Any other @word is the message's own text. One that cannot be attached
 * is said, naming the word, and nothing of the message is sent.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clip.h"
#include "diag.h"
#include "fsread.h"
#include "image.h"
#include "items.h"
#include "json.h"
#include "mc.h"

#define MENTIONS_MAX 16
#define PATH_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+~@/"
#define EXT_MAX 5		/* letters or digits of an extension that makes a path */
#define WORKSPACE "the working directory, --add-dir, tools.add_dirs or $TMPDIR"

/* Whether the '@' at at, in text, can begin a mention. */
int
mention_starts(const char *text, const char *at)
{
	return at == text || strchr(" \t\r\n(", at[-1]) != NULL;
}

/* The length of the word after an '@' at p, without the punctuation that
 * ends a sentence or closes a parenthesis or a quote. */
static size_t
word_len(const char *p)
{
	size_t n = strcspn(p, " \t\r\n");

	while (n > 0 && strchr(".,;:!?)]}'\"", p[n - 1]) != NULL)
		n--;
	return n;
}

/* Whether c may be in a server's name as the settings write it. */
static int
name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '_' || c == '-' || c == '.';
}

/*
 * The word w as SERVER:URI: 1 with *server and *uri (malloc'ed) when it
 * names a server of the settings, then ':' and a URI; 0 when it does not.
 */
static int
server_word(const struct driver *d, const char *w, char **server, char **uri)
{
	size_t n = 0;

	while (name_char(w[n]))
		n++;
	if (n == 0 || w[n] != ':' || w[n + 1] == '\0')
		return 0;
	*server = mc_strndup(w, n);
	if (cJSON_GetObjectItemCaseSensitive(mc_settings_get(&d->c.set, "mcp_servers"),
	    *server) == NULL) {
		free(*server);
		*server = NULL;
		return 0;
	}
	*uri = mc_strdup(w + n + 1);
	return 1;
}

/* The resource SERVER:URI read through mc-mcp: its text (malloc'ed), or
 * NULL after saying why. */
static char *
resource(struct driver *d, const char *server, const char *uri)
{
	struct mc_buf path = {0};
	cJSON *args, *call, *out;
	const char *o;
	char *text = NULL, *a;

	mc_buf_printf(&path, "mcp://%s/%s", server, uri);
	args = mc_json_new_obj();
	mc_json_add_str(args, "path", path.data);
	if ((a = cJSON_PrintUnformatted(args)) == NULL)
		mc_oom();
	call = mc_item_call("mention", "read", a);
	out = mcp_call(d, call);
	if ((o = mc_json_str(out, "output")) == NULL)
		mc_err("@%s:%s: %s", server, uri, d->mcp.pid > 0 ? "mc-mcp gave no answer" :
		    "the MCP servers are not running");
	else if (strncmp(o, "error: ", 7) == 0)
		mc_err("@%s:%s: %s", server, uri, o + 7);
	else
		text = mc_strdup(o);
	cJSON_Delete(out);
	cJSON_Delete(call);
	cJSON_Delete(args);
	free(a);
	mc_buf_free(&path);
	return text;
}

/* Whether w, naming nothing that exists, looks like a path all the same:
 * path characters only, and a '/' or a name ending in .EXT. */
static int
looks_like_path(const char *w)
{
	const char *ext;
	size_t n, i;

	if (w[strspn(w, PATH_CHARS)] != '\0')
		return 0;
	if (strchr(w, '/') != NULL)
		return 1;
	if ((ext = strrchr(w, '.')) == NULL)
		return 0;
	n = strlen(++ext);
	for (i = 0; i < n && name_char(ext[i]) && ext[i] != '_' && ext[i] != '-' &&
	    ext[i] != '.'; i++)
		;
	return n > 0 && n <= EXT_MAX && i == n;
}

/*
 * What a mentioned text file attaches: its content as the block's text
 * (malloc'ed), or NULL after saying why. The one place that tells a text
 * file from the others (an image is told before, by file_read): a binary
 * file is refused (mc_looks_binary, as the read tool tells it), and so
 * is one past the page's bytes or lines; invalid UTF-8 is shown as
 * U+FFFD, as read shows it.
 */
static char *
file_text(const char *w, const struct mc_read *r)
{
	struct mc_buf b = {0};
	size_t lines = 0, i;

	if (mc_looks_binary(r->data, r->len)) {
		mc_err("@%s: not a text file (%zu bytes, binary)", w, r->len);
		return NULL;
	}
	if (r->len > MC_PAGE_BYTES) {
		mc_err("@%s: %zu bytes, over the %u-byte cap of a mention (the read tool's page); "
		    "ask the model to read it", w, r->len, MC_PAGE_BYTES);
		return NULL;
	}
	for (i = 0; i < r->len; i++)
		lines += r->data[i] == '\n';
	lines += r->len > 0 && r->data[r->len - 1] != '\n';
	if (lines > MC_PAGE_LINES) {
		mc_err("@%s: %zu lines, over the %u-line cap of a mention (the read tool's page); "
		    "ask the model to read it", w, lines, MC_PAGE_LINES);
		return NULL;
	}
	mc_clip_repair(&b, r->data, r->len);
	return mc_buf_steal(&b);
}

/*
 * The file at canon (canonical), mentioned as w: 1 with its text in
 * *text (malloc'ed); 1 with *text NULL for an image (PNG, JPEG, GIF,
 * WebP by its magic bytes, at most 20 MiB), attached as mc -a attaches
 * one (attach.c, SPEC 21); -1 after saying why not.
 */
static int
file_read(struct driver *d, const char *w, const char *canon, char **text)
{
	struct mc_read r;
	char err[1024];
	int ok = -1;

	*text = NULL;
	mc_file_read(canon, MC_IMAGE_MAX, MC_LINK_REFUSE, NULL, 0, &r);
	if (r.status == MC_READ_TOOBIG && mc_image_file_type(canon) != NULL)
		mc_err("@%s: %lld bytes, over the %u-byte (20 MiB) limit for an image", w,
		    (long long)r.size, MC_IMAGE_MAX);
	else if (r.status == MC_READ_TOOBIG)
		mc_err("@%s: %lld bytes, over the %u-byte cap of a mention (the read tool's page); "
		    "ask the model to read it", w, (long long)r.size, MC_PAGE_BYTES);
	else if (r.status != MC_READ_OK)
		mc_err("@%s: %s", w, mc_read_strerror(&r, MC_IMAGE_MAX));
	else if (mc_image_type(r.data, r.len) == NULL)
		ok = (*text = file_text(w, &r)) != NULL ? 1 : -1;
	else if (attach_refused(d, "@", w))
		;
	else if (attach_image_bytes(d, r.data, r.len, NULL, w, err, sizeof err) == -1)
		mc_err("@%s", err);
	else
		ok = 1;
	free(r.data);
	return ok;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The folder at canon, mentioned as w: its entries one level down, one
 * a line as find shows them (w's path, then the name; a folder's with a
 * '/'), sorted, at most the read tool's page of them (malloc'ed); or NULL
 * after saying why.
 */
static char *
folder_list(const char *w, const char *canon)
{
	struct mc_buf b = {0}, out = {0};
	const char *sep = w[strlen(w) - 1] == '/' ? "" : "/";
	struct dirent *e;
	struct stat st;
	char **names = NULL;
	size_t n = 0, i;
	DIR *dir;
	int isdir;

	if ((dir = opendir(canon)) == NULL) {
		mc_err("@%s: %s", w, strerror(errno));
		return NULL;
	}
	while ((e = readdir(dir)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		isdir = e->d_type == DT_DIR || (e->d_type == DT_UNKNOWN &&
		    fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode));
		if ((names = reallocarray(names, n + 1, sizeof *names)) == NULL)
			mc_oom();
		b.len = 0;
		mc_buf_printf(&b, "%s%s", e->d_name, isdir ? "/" : "");
		names[n++] = mc_strdup(b.data);
	}
	closedir(dir);
	if (n > 0)
		qsort(names, n, sizeof *names, by_name);
	b.len = 0;
	for (i = 0; i < n && i < MC_PAGE_LINES && b.len < MC_PAGE_BYTES; i++)
		mc_buf_printf(&b, "%s%s%s\n", w, sep, names[i]);
	if (i < n)
		mc_buf_printf(&b, "[%zu more entries not listed; the model can list them with find]\n",
		    n - i);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (n == 0)
		mc_buf_printf(&b, "(%s is empty)\n", w);
	mc_clip_repair(&out, b.data, b.len);
	mc_buf_free(&b);
	return mc_buf_steal(&out);
}

/*
 * The word w as a path mention: 1 with its block's text in *content
 * (malloc'ed; NULL for an image, queued), 0 when it is the message's own text (nothing by its name,
 * and it does not look like a path), -1 after saying why it cannot be
 * attached: missing, outside the workspace (a symbolic link out of it
 * too), not a regular file or a folder, binary, over the caps.
 */
static int
path_word(struct driver *d, const char *w, char **content)
{
	struct stat st;
	char *full, *canon;
	int r = -1;

	*content = NULL;
	full = w[0] == '/' ? mc_strdup(w) : mc_path_join(d->c.cwd, w);
	if (lstat(full, &st) == -1) {
		free(full);
		if (errno != ENOENT && errno != ENOTDIR) {
			mc_err("@%s: %s", w, strerror(errno));
			return -1;
		}
		if (!looks_like_path(w))
			return 0;
		mc_err("@%s: no such file or directory (in `backticks` it is sent as text)", w);
		return -1;
	}
	free(full);
	if ((canon = mc_path_resolve(d->c.cwd, w)) == NULL) {
		mc_err("@%s: %s", w, strerror(errno));
		return -1;
	}
	if (!workspace_has(&d->c, canon))	/* workspace.c */
		mc_err("@%s: %s%s is outside the workspace (%s)", w,
		    S_ISLNK(st.st_mode) ? "a symbolic link to " : "", canon, WORKSPACE);
	else if (stat(canon, &st) == -1)
		mc_err("@%s: %s", w, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		r = (*content = folder_list(w, canon)) != NULL ? 1 : -1;
	else if (!S_ISREG(st.st_mode))
		mc_err("@%s: not a regular file", w);
	else
		r = file_read(d, w, canon, content);
	free(canon);
	return r;
}

/* Whether blocks has one for file. */
static int
attached(const cJSON *blocks, const char *file)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, blocks)
		if (strcmp(mc_json_str(e, "file"), file) == 0)
			return 1;
	return 0;
}

/*
 * The mention whose word w (after its '@') begins: into *blocks as
 * {"file","content"}, once. 0 (attached, or no mention), or -1 after
 * saying why not. A subagent's task is the model's text, not the user's:
 * only its @SERVER:URI mentions are taken.
 */
static int
mention(struct driver *d, const char *w, cJSON **blocks)
{
	struct mc_buf file = {0};
	char *server = NULL, *uri = NULL, *content = NULL;
	int mcp, r = 0;
	cJSON *b;

	if ((mcp = server_word(d, w, &server, &uri)))
		mc_buf_printf(&file, "mcp://%s/%s", server, uri);
	else if (d->c.depth > 0)
		return 0;
	else
		mc_buf_adds(&file, w);
	if (!attached(*blocks, file.data))
		r = mcp ? ((content = resource(d, server, uri)) != NULL ? 1 : -1) :
		    path_word(d, w, &content);
	if (r == 1 && cJSON_GetArraySize(*blocks) == MENTIONS_MAX) {
		mc_err("@%s: at most %d mentions a message", w, MENTIONS_MAX);
		free(content);
		r = -1;
	} else if (r == 1) {
		if (*blocks == NULL)
			*blocks = mc_json_new_arr();
		b = mc_json_new_obj();
		mc_json_add_str(b, "file", file.data);
		if (content != NULL)	/* else an image, queued (attach.c) */
			mc_json_add(b, "content", mc_json_new_owned(content));
		mc_json_push(*blocks, b);
	}
	free(server);
	free(uri);
	mc_buf_free(&file);
	return r == -1 ? -1 : 0;
}

/* Where the next run of exactly n backticks begins in p..end, or NULL. */
static const char *
span_end(const char *p, const char *end, size_t n)
{
	size_t k;

	for (; p < end; p += k > 0 ? k : 1)
		if ((k = strspn(p, "`")) == n)
			return p;
	return NULL;
}

/*
 * The mentions of text, read into *blocks (a JSON array of
 * {"file","content"}, NULL when there is none; an image's has no
 * content: it is queued for the message, after mc -a's), before anything
 * of the turn is kept. Code is left alone: a line opening (after spaces) with
 * three backticks or more opens a fenced block that a line opening with
 * as many closes, and within a line a run of backticks opens a span that
 * the next run of as many closes. 0, or -1 after saying which mention
 * could not be attached: then nothing is sent.
 */
int
mentions_read(struct driver *d, const char *text, cJSON **blocks)
{
	const char *line, *end, *p, *close;
	size_t fence = 0, n, w;
	cJSON *held;
	char *word;
	int r = 0;

	*blocks = NULL;
	held = d->attached;	/* mc -a's images: a failed mention forgets only its own */
	d->attached = NULL;
	for (line = text; r == 0 && *line != '\0'; line = *end != '\0' ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		n = strspn(line + strspn(line, " "), "`");
		if (fence > 0 || n >= 3) {
			fence = fence == 0 ? n : n >= fence ? 0 : fence;
			continue;
		}
		for (p = line; r == 0 && p < end; p++) {
			if (*p == '`') {
				n = strspn(p, "`");
				close = span_end(p + n, end, n);
				p = (close != NULL ? close : p) + n - 1;
			} else if (*p == '@' && mention_starts(text, p) && (w = word_len(p + 1)) > 0) {
				word = mc_strndup(p + 1, w);
				r = mention(d, word, blocks);
				free(word);
				p += w;
			}
		}
	}
	if (r == -1) {
		cJSON_Delete(*blocks);
		*blocks = NULL;
		attach_forget(d);
	}
	while (held != NULL && d->attached != NULL && cJSON_GetArraySize(d->attached) > 0)
		mc_json_push(held, cJSON_DetachItemFromArray(d->attached, 0));
	if (held != NULL) {
		cJSON_Delete(d->attached);
		d->attached = held;
	}
	return r;
}

/* The blocks mentions_read gave into the session, before the message;
 * takes blocks. 0, or -1 when the session could not take one. */
int
mentions_attach(struct driver *d, cJSON *blocks)
{
	const cJSON *e;
	int r = 0;

	cJSON_ArrayForEach(e, blocks)
		if (r == 0 && mc_json_str(e, "content") != NULL && context_add(d, mc_json_str(e, "file"), mc_json_str(e, "content")) == -1)
			r = -1;
	cJSON_Delete(blocks);
	return r;
}
