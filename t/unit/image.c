/* image.c: unit tests for lib/image.c (magic bytes, base64, an image reference checked). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "json.h"

static int failures;

#define CHECK(c, what) do { if (!(c)) { printf("image: %s\n", what); failures++; } } while (0)

static const struct {
	const char *bytes;
	size_t n;
	const char *type;
} cases[] = {
	{ "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16, "image/png" },
	{ "\x89PNG\r\n\x1a", 7, NULL },			/* cut short */
	{ "\xff\xd8\xff\xe0\0\x10JFIF", 10, "image/jpeg" },
	{ "\xff\xd8", 2, NULL },
	{ "GIF87a\1\0\1\0", 10, "image/gif" },
	{ "GIF89a\1\0\1\0", 10, "image/gif" },
	{ "GIF88a\1\0\1\0", 10, NULL },
	{ "RIFF\x24\0\0\0WEBPVP8 ", 16, "image/webp" },
	{ "RIFF\x24\0\0\0WAVEfmt ", 16, NULL },		/* a RIFF that is sound */
	{ "XXXX\x24\0\0\0WEBPVP8 ", 16, NULL },
	{ "%PDF-1.7", 8, NULL },
	{ "", 0, NULL },
};

static void
magic(void)
{
	const char *t;
	size_t i;
	char what[64];

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		t = mc_image_type(cases[i].bytes, cases[i].n);
		snprintf(what, sizeof what, "case %zu: %s", i, t ? t : "NULL");
		CHECK((t == NULL && cases[i].type == NULL) ||
		    (t != NULL && cases[i].type != NULL && strcmp(t, cases[i].type) == 0), what);
	}
	mc_image_seen("%PDF-1.7", 8, what, sizeof what);
	CHECK(strcmp(what, "text") == 0, "a PDF's first bytes are text");
	mc_image_seen("\x01\x02\xfe\xff\x00", 5, what, sizeof what);
	CHECK(strcmp(what, "magic 01 02 fe ff") == 0, "the first four bytes in hex");
	mc_image_seen("", 0, what, sizeof what);
	CHECK(strcmp(what, "empty") == 0, "an empty file");
}

static void
base64(void)
{
	static const char *const plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *const coded[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=",
	    "Zm9vYmFy" };
	struct mc_buf b = {0};
	unsigned char all[256];
	size_t i;

	for (i = 0; i < 7; i++) {	/* RFC 4648's test vectors */
		b.len = 0;
		mc_base64_encode(plain[i], strlen(plain[i]), &b);
		CHECK(strcmp(b.data, coded[i]) == 0, "encode an RFC 4648 vector");
		b.len = 0;
		CHECK(mc_base64_decode(coded[i], strlen(coded[i]), &b) == 0 && b.len == strlen(plain[i]) &&
		    memcmp(b.data ? b.data : "", plain[i], b.len) == 0, "decode an RFC 4648 vector");
	}
	for (i = 0; i < 256; i++)
		all[i] = (unsigned char)i;
	b.len = 0;
	mc_base64_encode(all, 256, &b);
	{
		struct mc_buf back = {0};

		CHECK(mc_base64_decode(b.data, b.len, &back) == 0 && back.len == 256 &&
		    memcmp(back.data, all, 256) == 0, "every byte there and back");
		mc_buf_free(&back);
	}
	b.len = 0;
	CHECK(mc_base64_decode("Zm9v\nYmFy", 9, &b) == 0 && b.len == 6, "a line break is skipped");
	CHECK(mc_base64_decode("Zm9", 3, &b) == -1, "a cut quantum");
	CHECK(mc_base64_decode("Zm=v", 4, &b) == -1, "text after padding");
	CHECK(mc_base64_decode("Zm9*", 4, &b) == -1, "a character outside the alphabet");
	mc_buf_free(&b);
}

static void
refs(void)
{
	static const char hex[] = "2cb922ecae93d405c9b9631a154ff097e354a411d5444196a182a0ffcbe63071";
	char err[256];
	cJSON *r = mc_image_ref(hex, "image/png", "a.png", 11);

	CHECK(mc_image_ref_check(r, err, sizeof err) == 0, "a reference made is a good one");
	cJSON_ReplaceItemInObjectCaseSensitive(r, "media_type", mc_json_new_str("image/bmp"));
	CHECK(mc_image_ref_check(r, err, sizeof err) == -1 && strstr(err, "media_type") != NULL,
	    "a BMP is no type of ours");
	cJSON_ReplaceItemInObjectCaseSensitive(r, "media_type", mc_json_new_str("image/png"));
	cJSON_ReplaceItemInObjectCaseSensitive(r, "blob", mc_json_new_str("ABC"));
	CHECK(mc_image_ref_check(r, err, sizeof err) == -1 && strstr(err, "blob") != NULL,
	    "a blob that is no hash");
	cJSON_ReplaceItemInObjectCaseSensitive(r, "blob", mc_json_new_str(hex));
	cJSON_ReplaceItemInObjectCaseSensitive(r, "bytes", cJSON_CreateNumber(MC_IMAGE_MAX + 1.0));
	CHECK(mc_image_ref_check(r, err, sizeof err) == -1 && strstr(err, "bytes") != NULL,
	    "over the cap");
	cJSON_Delete(r);
}

int
main(void)
{
	magic();
	base64();
	refs();
	if (failures == 0)
		puts("image: ok");
	return failures != 0;
}
