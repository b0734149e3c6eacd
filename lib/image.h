/* image.h: images the model is shown: their type by magic bytes, the cap, base64, a reference's members. */
#ifndef MC_IMAGE_H
#define MC_IMAGE_H

#include <stddef.h>

#include <cJSON.h>

#include "buf.h"

#define MC_IMAGE_MAX (20u << 20)	/* bytes of one image (SPEC 21) */
#define MC_IMAGE_B64_MAX ((MC_IMAGE_MAX + 2) / 3 * 4)	/* the same as base64 text */

/*
 * The media type of the n bytes at p by their magic bytes: "image/png",
 * "image/jpeg", "image/gif" or "image/webp"; NULL for anything else.
 */
const char *mc_image_type(const void *p, size_t n);

/* The same for the file at path by its first bytes (opened without
 * blocking); NULL too when it cannot be read. */
const char *mc_image_file_type(const char *path);

/* What the first bytes of a file that is no image look like, for an
 * error: "text", "empty", or its first bytes in hex ("magic 25 50 44 46"). */
void mc_image_seen(const void *p, size_t n, char *out, size_t outsz);

/* Base64 (RFC 4648, padded) of the n bytes at p, appended to out. */
void mc_base64_encode(const void *p, size_t n, struct mc_buf *out);
/* The bytes base64 text s stands for, appended to out; white space is
 * skipped. 0, or -1 for text that is no base64. */
int mc_base64_decode(const char *s, size_t n, struct mc_buf *out);

/*
 * A checked image reference, as the "images" array of an item holds
 * it: {"blob":HEX,"media_type":MT,"name":S,"bytes":N} (blob 64 lowercase
 * hex digits of the SHA-256, media_type one of the four above, name a
 * string, bytes a whole number from 1 to MC_IMAGE_MAX). 0, or -1 with
 * the reason in err ("\"media_type\" must be ...").
 */
int mc_image_ref_check(const cJSON *ref, char *err, size_t errsz);
/* Such a reference, new. */
cJSON *mc_image_ref(const char *blob, const char *media_type, const char *name, size_t bytes);

/*
 * A tool's image in its output item, for the driver to store (a tool may
 * not write $MC_HOME): "image_data":[{"data":BASE64,"media_type":MT,
 * "name":S},...] beside "output". mc_image_data_add appends one to item
 * (data, base64, malloc'ed, taken); the driver takes the array out with
 * cJSON_DetachItemFromObject(item, MC_IMAGE_DATA) and puts the
 * references in with mc_image_refs_put.
 */
#define MC_IMAGE_DATA "image_data"
void mc_image_data_add(cJSON *item, char *data, const char *media_type, const char *name);
/* The references refs (taken) as item's "images": a user message or an
 * output (mc-formats(5)). */
void mc_image_refs_put(cJSON *item, cJSON *refs);

#endif
