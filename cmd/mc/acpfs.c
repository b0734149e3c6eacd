/*
 * acpfs.c: mc acp: the agent's read, write and edit through the client,
 * when it offers fs.readTextFile and fs.writeTextFile (SPEC 23): what the
 * model reads is the editor's buffer, saved or not, and what it writes is
 * seen there at once. mc-tool still does the call (tools.c gives it the
 * text as --buffer-in and takes the new text from --buffer-out): the
 * client only holds the files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "acp.h"
#include "diag.h"
#include "fsread.h"
#include "image.h"
#include "json.h"
#include "mc.h"

/* Which of the call's file goes through the client: a read when it
 * reads files, a write when it writes them, an edit when it does both;
 * never a directory, an mcp:// or skill:// path, nor a read of an image
 * (the client holds text). */
int
acp_buffers(struct driver *d, const cJSON *call, char **path)
{
	struct acp *a = d->front->arg;
	const char *name = mc_json_str(call, "name"), *args = mc_json_str(call, "arguments"), *p;
	char err[64];
	struct stat st;
	cJSON *v;
	int via = 0;

	*path = NULL;
	if (name == NULL || args == NULL)
		return 0;
	if (strcmp(name, "read") == 0)
		via = a->fs_read ? FRONT_IN : 0;
	else if (strcmp(name, "write") == 0)
		via = a->fs_write ? FRONT_OUT : 0;
	else if (strcmp(name, "edit") == 0)
		via = a->fs_read && a->fs_write ? FRONT_IN | FRONT_OUT : 0;
	if (via == 0 || (v = mc_json_parse(args, strlen(args), err, sizeof err)) == NULL)
		return 0;
	p = mc_json_str(v, "path");
	if (p == NULL || *p == '\0' || strncmp(p, "mcp://", 6) == 0 || strncmp(p, "skill://", 8) == 0)
		via = 0;
	else {
		*path = p[0] == '/' ? mc_strdup(p) : mc_path_join(d->c.cwd, p);
		if ((stat(*path, &st) == 0 && S_ISDIR(st.st_mode)) ||
		    (strcmp(name, "read") == 0 && mc_image_file_type(*path) != NULL)) {
			free(*path);
			*path = NULL;
			via = 0;	/* mc-tool says what to do instead, or
					 * returns the image (no editor's text) */
		}
	}
	cJSON_Delete(v);
	return via;
}

/* The call's output when the client could not do its part. */
static void
failed(char **why, const char *path, const char *what, const char *err)
{
	if (interrupted) {
		*why = mc_strdup("error: the user interrupted this call.");
		return;
	}
	if (asprintf(why, "error: %s: the editor could not %s it: %s", path, what, err) == -1)
		mc_oom();
}

/* fs/read_text_file: the file's whole text as the editor has it. */
int
acp_load(struct driver *d, const char *path, struct mc_buf *text, char **why)
{
	struct acp *a = d->front->arg;
	cJSON *p = mc_json_new_obj(), *r;
	const char *content;
	char err[512];
	int cancelled;

	mc_json_add_str(p, "sessionId", a->current);
	mc_json_add_str(p, "path", path);
	if ((r = acp_request(a, "fs/read_text_file", p, &cancelled, err, sizeof err)) == NULL) {
		failed(why, path, "read", err);
		return -1;
	}
	if ((content = mc_json_str(r, "content")) == NULL) {
		cJSON_Delete(r);
		failed(why, path, "read", "an answer without content");
		return -1;
	}
	mc_buf_adds(text, content);
	cJSON_Delete(r);
	return 0;
}

/* fs/write_text_file: the new text, for the editor to keep. */
int
acp_save(struct driver *d, const char *path, const char *text, size_t n, char **why)
{
	struct acp *a = d->front->arg;
	cJSON *p = mc_json_new_obj(), *r;
	char err[512];
	int cancelled;

	if (memchr(text, '\0', n) != NULL) {
		failed(why, path, "write", "the text holds a NUL byte");
		cJSON_Delete(p);
		return -1;
	}
	mc_json_add_str(p, "sessionId", a->current);
	mc_json_add_str(p, "path", path);
	mc_json_add_owned(p, "content", mc_strndup(text, n));
	if ((r = acp_request(a, "fs/write_text_file", p, &cancelled, err, sizeof err)) == NULL) {
		failed(why, path, "write", err);
		return -1;
	}
	cJSON_Delete(r);
	return 0;
}
