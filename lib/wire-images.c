/* wire-images.c: the images an item carries, as each API's content parts, or a note for a model that takes none. */
#include <string.h>

#include "buf.h"
#include "json.h"
#include "wire.h"

cJSON *
mc_wire_text_part(const struct mc_provider *p, const char *text)
{
	cJSON *t = mc_json_new_obj();

	mc_json_add_str(t, "type", strcmp(p->api, "responses") == 0 ? "input_text" : "text");
	mc_json_add_str(t, "text", text);
	return t;
}

/* The note in place of an image, after the text of member key. */
static void
note(const struct mc_provider *p, cJSON *it, const char *key, const cJSON *ref,
    struct mc_buf *b)
{
	cJSON *text = cJSON_GetObjectItemCaseSensitive(it, key);

	b->len = 0;
	mc_buf_adds(b, text->valuestring);
	if (b->len > 0 && b->data[b->len - 1] != '\n')
		mc_buf_addc(b, '\n');
	mc_buf_printf(b, "[image %s not sent: model %s does not take images]",
	    mc_json_str(ref, "name"), p->model);
	cJSON_SetValuestring(text, b->data);
}

cJSON *
mc_wire_images(const struct mc_provider *p, cJSON *it, const char *key)
{
	cJSON *refs = cJSON_DetachItemFromObjectCaseSensitive(it, "images"), *r, *parts = NULL;
	cJSON *part, *src;
	struct mc_buf b = {0};
	const char *mt;

	cJSON_ArrayForEach(r, refs) {
		mt = mc_json_str(r, "media_type");
		if (!p->images || mc_json_str(r, "data") == NULL) {
			note(p, it, key, r, &b);
			continue;
		}
		if (parts == NULL)
			parts = mc_json_new_arr();
		part = mc_json_push(parts, mc_json_new_obj());
		if (strcmp(p->api, "messages") == 0) {
			mc_json_add_str(part, "type", "image");
			src = mc_json_add(part, "source", mc_json_new_obj());
			mc_json_add_str(src, "type", "base64");
			mc_json_add_str(src, "media_type", mt);
			mc_json_add(src, "data", cJSON_DetachItemFromObjectCaseSensitive(r, "data"));
			continue;
		}
		b.len = 0;
		mc_buf_printf(&b, "data:%s;base64,", mt);
		mc_buf_adds(&b, mc_json_str(r, "data"));
		if (strcmp(p->api, "chat") == 0) {
			mc_json_add_str(part, "type", "image_url");
			mc_json_add_str(mc_json_add(part, "image_url", mc_json_new_obj()), "url", b.data);
		} else {
			mc_json_add_str(part, "type", "input_image");
			mc_json_add_str(part, "image_url", b.data);
			/* required by the schema (InputImageContent), and by
			 * servers that check requests against it */
			mc_json_add_str(part, "detail", "auto");
		}
	}
	mc_buf_free(&b);
	cJSON_Delete(refs);
	return parts;
}
