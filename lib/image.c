/* image.c: images the model is shown: their type by magic bytes (of a file too), base64, a reference checked. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "image.h"
#include "json.h"

static const struct {
	const char *type;
	size_t at, len;
	const char *magic;
} magics[] = {
	{ "image/png", 0, 8, "\x89PNG\r\n\x1a\n" },
	{ "image/jpeg", 0, 3, "\xff\xd8\xff" },
	{ "image/gif", 0, 6, "GIF87a" },
	{ "image/gif", 0, 6, "GIF89a" },
	{ "image/webp", 8, 4, "WEBP" },		/* after "RIFF" and a size */
};

const char *
mc_image_type(const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < sizeof magics / sizeof magics[0]; i++) {
		if (n < magics[i].at + magics[i].len ||
		    memcmp(b + magics[i].at, magics[i].magic, magics[i].len) != 0)
			continue;
		if (strcmp(magics[i].type, "image/webp") == 0 && memcmp(b, "RIFF", 4) != 0)
			continue;
		return magics[i].type;
	}
	return NULL;
}

const char *
mc_image_file_type(const char *path)
{
	unsigned char head[16];
	ssize_t n = -1;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) != -1) {
		n = read(fd, head, sizeof head);
		close(fd);
	}
	return n > 0 ? mc_image_type(head, (size_t)n) : NULL;
}

void
mc_image_seen(const void *p, size_t n, char *out, size_t outsz)
{
	const unsigned char *b = p;
	size_t i, k, m = n < 4 ? n : 4;
	int text = n > 0;

	for (i = 0; i < n && i < 512; i++)
		if (b[i] < 0x20 && strchr("\t\r\n", b[i]) == NULL)
			text = 0;
	if (n == 0) {
		snprintf(out, outsz, "empty");
		return;
	}
	if (text) {
		snprintf(out, outsz, "text");
		return;
	}
	k = (size_t)snprintf(out, outsz, "magic");
	for (i = 0; i < m && k < outsz; i++)
		k += (size_t)snprintf(out + k, outsz - k, " %02x", b[i]);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void
mc_base64_encode(const void *p, size_t n, struct mc_buf *out)
{
	const unsigned char *s = p;
	unsigned long v;
	char *o;
	size_t i;

	mc_buf_grow(out, (n + 2) / 3 * 4 + 1);
	o = out->data + out->len;
	for (i = 0; i + 2 < n; i += 3) {
		v = (unsigned long)s[i] << 16 | (unsigned long)s[i + 1] << 8 | s[i + 2];
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = b64[v >> 6 & 63];
		*o++ = b64[v & 63];
	}
	if (i < n) {
		v = (unsigned long)s[i] << 16 | (i + 1 < n ? (unsigned long)s[i + 1] << 8 : 0);
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
		*o++ = '=';
	}
	out->len = (size_t)(o - out->data);
	out->data[out->len] = '\0';
}

int
mc_base64_decode(const char *s, size_t n, struct mc_buf *out)
{
	unsigned long v = 0;
	size_t i, k = 0, pad = 0;
	const char *c;
	char byte;

	for (i = 0; i < n; i++) {
		if (strchr(" \t\r\n", s[i]) != NULL && s[i] != '\0')
			continue;
		if (s[i] == '=') {
			pad++;
			v <<= 6;
		} else if (pad > 0 || s[i] == '\0' || (c = strchr(b64, s[i])) == NULL)
			return -1;
		else
			v = v << 6 | (unsigned long)(c - b64);
		if (++k % 4 != 0)
			continue;
		byte = (char)(v >> 16 & 255);
		mc_buf_add(out, &byte, 1);
		if (pad < 2) {
			byte = (char)(v >> 8 & 255);
			mc_buf_add(out, &byte, 1);
		}
		if (pad < 1) {
			byte = (char)(v & 255);
			mc_buf_add(out, &byte, 1);
		}
		v = 0;
	}
	return k % 4 == 0 && pad <= 2 ? 0 : -1;
}

static int
hex64(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i == 64;
}

int
mc_image_ref_check(const cJSON *ref, char *err, size_t errsz)
{
	const char *blob = mc_json_str(ref, "blob"), *mt = mc_json_str(ref, "media_type");
	const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(ref, "bytes");
	static const char *const types[] = { "image/png", "image/jpeg", "image/gif", "image/webp" };
	size_t i;

	if (!cJSON_IsObject(ref)) {
		snprintf(err, errsz, "an image must be an object {\"blob\",\"media_type\",\"name\",\"bytes\"}");
		return -1;
	}
	if (blob == NULL || !hex64(blob)) {
		snprintf(err, errsz, "an image's \"blob\" must be 64 lowercase hex digits (a SHA-256)");
		return -1;
	}
	for (i = 0; mt != NULL && i < sizeof types / sizeof types[0]; i++)
		if (strcmp(mt, types[i]) == 0)
			break;
	if (mt == NULL || i == sizeof types / sizeof types[0]) {
		snprintf(err, errsz, "an image's \"media_type\" must be image/png, image/jpeg, "
		    "image/gif or image/webp");
		return -1;
	}
	if (mc_json_str(ref, "name") == NULL) {
		snprintf(err, errsz, "an image's \"name\" must be a string");
		return -1;
	}
	if (!cJSON_IsNumber(bytes) || bytes->valuedouble < 1 || bytes->valuedouble > MC_IMAGE_MAX ||
	    bytes->valuedouble != (double)(long long)bytes->valuedouble) {
		snprintf(err, errsz, "an image's \"bytes\" must be a whole number from 1 to %u",
		    MC_IMAGE_MAX);
		return -1;
	}
	return 0;
}

cJSON *
mc_image_ref(const char *blob, const char *media_type, const char *name, size_t bytes)
{
	cJSON *r = mc_json_new_obj();

	mc_json_add_str(r, "blob", blob);
	mc_json_add_str(r, "media_type", media_type);
	mc_json_add_str(r, "name", name);
	mc_json_add(r, "bytes", cJSON_CreateNumber((double)bytes));
	return r;
}

void
mc_image_data_add(cJSON *item, char *data, const char *media_type, const char *name)
{
	cJSON *e = mc_json_push(mc_json_arr_ensure(item, MC_IMAGE_DATA), mc_json_new_obj());

	mc_json_add_owned(e, "data", data);
	mc_json_add_str(e, "media_type", media_type);
	mc_json_add_str(e, "name", name);
}

void
mc_image_refs_put(cJSON *item, cJSON *refs)
{
	mc_json_add(item, "images", refs);
}
