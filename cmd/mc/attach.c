/* attach.c: images into the conversation: mc -a, a tool's output; stored in $MC_HOME/blobs, referenced from items. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blob.h"
#include "diag.h"
#include "fsread.h"
#include "image.h"
#include "json.h"
#include "mc.h"
#include "models.h"

/* The n bytes at data checked as an image and stored: its reference,
 * or NULL with the reason (after "NAME: ") in err. */
static cJSON *
store(const struct driver *d, const void *data, size_t n, const char *claimed, const char *name,
    char *err, size_t errsz)
{
	const char *mt = mc_image_type(data, n);
	char hex[MC_BLOB_HEX], seen[64], why[512];

	if (n > MC_IMAGE_MAX) {
		snprintf(err, errsz, "%s: %zu bytes, over the %u-byte (20 MiB) limit for an image",
		    name, n, MC_IMAGE_MAX);
		return NULL;
	}
	if (mt == NULL) {
		mc_image_seen(data, n, seen, sizeof seen);
		snprintf(err, errsz, "%s: not a PNG, JPEG, GIF or WebP image (%s)", name, seen);
		return NULL;
	}
	if (claimed != NULL && strcmp(claimed, mt) != 0)
		mc_warn("%s: said to be %s, but its bytes are %s: sent as %s", name, claimed, mt, mt);
	if (mc_blob_put(d->c.set.home, data, n, hex, why, sizeof why) == -1) {
		snprintf(err, errsz, "%s: cannot store the image: %s", name, why);
		return NULL;
	}
	return mc_image_ref(hex, mt, name, n);
}

static void
queue(struct driver *d, cJSON *ref)
{
	if (d->attached == NULL)
		d->attached = mc_json_new_arr();
	mc_json_push(d->attached, ref);
}

int
attach_image_bytes(struct driver *d, const void *data, size_t n, const char *media_type,
    const char *name, char *err, size_t errsz)
{
	cJSON *ref = store(d, data, n, media_type, name, err, errsz);

	if (ref == NULL)
		return -1;
	queue(d, ref);
	return 0;
}

int
attach_image_file(struct driver *d, const char *path, char *err, size_t errsz)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct mc_read r;
	cJSON *ref = NULL;

	mc_file_read(path, MC_IMAGE_MAX, MC_LINK_FOLLOW, NULL, 0, &r);
	if (r.status == MC_READ_MISSING || r.status == MC_READ_DANGLING ||
	    (r.status == MC_READ_ERRNO && r.err == ENOENT))
		snprintf(err, errsz, "%s: no such file", path);
	else if (r.status == MC_READ_TOOBIG)
		snprintf(err, errsz, "%s: %lld bytes, over the %u-byte (20 MiB) limit for an image",
		    path, (long long)r.size, MC_IMAGE_MAX);
	else if (r.status != MC_READ_OK)
		snprintf(err, errsz, "%s: %s", path, mc_read_strerror(&r, MC_IMAGE_MAX));
	else if ((ref = store(d, r.data, r.len, NULL, path, err, errsz)) != NULL) {
		cJSON_ReplaceItemInObjectCaseSensitive(ref, "name", mc_json_new_str(base));
		queue(d, ref);
	}
	free(r.data);
	return ref != NULL ? 0 : -1;
}

int
attach_refused(const struct driver *d, const char *how, const char *what)
{
	const char *from = NULL;

	if (!cJSON_IsFalse(mc_model_field(&d->c.set, d->s.model, "images", &from)))
		return 0;
	mc_err("%s%s: model %s does not take images (models.%s.images is false in %s)", how,
	    what, d->s.model ? d->s.model : "", from, d->c.set.path);
	return 1;
}

int
attach_files(struct driver *d)
{
	char err[1024];
	int i;

	if (d->c.nattach == 0)
		return 0;
	if (attach_refused(d, "-a ", d->c.attach[0]))
		return -1;
	for (i = 0; i < d->c.nattach; i++)
		if (attach_image_file(d, d->c.attach[i], err, sizeof err) == -1) {
			mc_err("-a %s", err);
			attach_forget(d);
			return -1;
		}
	return 0;
}

void
attach_show(const struct driver *d, const cJSON *ref)
{
	char name[256];

	if (!isatty(STDERR_FILENO))
		return;
	mc_sanitize(name, sizeof name, mc_json_str(ref, "name") ? mc_json_str(ref, "name") : "");
	fprintf(stderr, "%s[image %s, %s, %lld bytes]%s\n", d->t.color ? "\033[2m" : "", name,
	    mc_json_str(ref, "media_type"), mc_json_count(ref, "bytes"),
	    d->t.color ? "\033[0m" : "");
}

/* With --json: an image event for a reference (never its bytes). */
static void
image_event(struct driver *d, const cJSON *ref, const char *call_id)
{
	cJSON *ev;

	if (!d->c.json)
		return;
	ev = ev_new("image");
	if (call_id != NULL)
		mc_json_add_str(ev, "call_id", call_id);
	mc_json_add_str(ev, "name", mc_json_str(ref, "name"));
	mc_json_add_str(ev, "media_type", mc_json_str(ref, "media_type"));
	mc_json_add_num(ev, "bytes", (double)mc_json_count(ref, "bytes"));
	mc_json_add_str(ev, "blob", mc_json_str(ref, "blob"));
	ev_emit(d, ev);
}

void
attach_put(struct driver *d, cJSON *msg)
{
	const cJSON *ref;

	if (d->attached == NULL)
		return;
	cJSON_ArrayForEach(ref, d->attached) {
		attach_show(d, ref);
		image_event(d, ref, NULL);
	}
	mc_image_refs_put(msg, d->attached);
	d->attached = NULL;
}

/* A line in the output of item, after its text. */
static void
output_line(cJSON *item, const char *line)
{
	cJSON *o = cJSON_GetObjectItemCaseSensitive(item, "output");
	struct mc_buf b = {0};

	if (!cJSON_IsString(o))
		return;
	mc_buf_adds(&b, o->valuestring);
	if (b.len > 0 && b.data[b.len - 1] != '\n')
		mc_buf_addc(&b, '\n');
	mc_buf_adds(&b, line);
	cJSON_SetValuestring(o, b.data);
	mc_buf_free(&b);
}

void
attach_output(struct driver *d, cJSON *item)
{
	cJSON *in = cJSON_DetachItemFromObjectCaseSensitive(item, MC_IMAGE_DATA), *e, *ref;
	cJSON *refs = NULL;
	struct mc_buf raw = {0};
	const char *name, *data;
	char err[1024], line[1200];

	cJSON_ArrayForEach(e, in) {
		name = mc_json_str(e, "name") ? mc_json_str(e, "name") : "image";
		data = mc_json_str(e, "data");
		raw.len = 0;
		if (data == NULL || strlen(data) > MC_IMAGE_B64_MAX + 4 ||
		    mc_base64_decode(data, strlen(data), &raw) == -1) {
			snprintf(line, sizeof line, "[image %s not passed on: its data is no base64 "
			    "image]", name);
			output_line(item, line);
			continue;
		}
		if ((ref = store(d, raw.data ? raw.data : "", raw.len, mc_json_str(e, "media_type"),
		    name, err, sizeof err)) == NULL) {
			mc_warn("%s", err);
			snprintf(line, sizeof line, "[image not passed on: %s]", err);
			output_line(item, line);
			continue;
		}
		attach_show(d, ref);
		image_event(d, ref, mc_json_str(item, "call_id"));
		if (refs == NULL)
			refs = mc_json_new_arr();
		mc_json_push(refs, ref);
	}
	if (refs != NULL)
		mc_image_refs_put(item, refs);
	mc_buf_free(&raw);
	cJSON_Delete(in);
}

void
attach_forget(struct driver *d)
{
	cJSON_Delete(d->attached);
	d->attached = NULL;
}
