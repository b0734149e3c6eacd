/* wire.h: a provider request as text, built item by item and kept for a session. */
#ifndef MC_WIRE_H
#define MC_WIRE_H

#include <stddef.h>
#include <sys/uio.h>

#include <cJSON.h>

#include "buf.h"
#include "provider.h"
#include "request.h"

/*
 * The body of a request is its members (model, the system prompt, tools,
 * schema, output limit, how it is sent) around one long array: chat's or
 * Messages' messages or responses' input, an element for each item or run
 * of items.
 * A wire keeps that array as text: each element is serialized once, when
 * no later item can change it (a run of user messages is joined into one;
 * chat folds the calls after an assistant message into its tool_calls),
 * so a request costs the new items plus copying the bytes out. Messages
 * joins every run of items of one role into one message (calls, reasoning
 * and text the assistant's; outputs and text the user's), and its prompt
 * cache breakpoint on the last user message is put into that message's
 * text as the pieces are written, never by serializing it again. The cache
 * key is kept the same way: a SHA-256 state after the elements done.
 *
 * An item's images (wire-images.c) are encoded into its element when it
 * comes, so a step never encodes them again.
 *
 * mc-request alone and mc-request --serve build through the same wire,
 * so the bytes are the same either way: a step's request is what
 * mc-request would build from the session's items.
 */
struct mc_wire;

/* A wire for provider p, which must outlive it. */
struct mc_wire *mc_wire_new(const struct mc_provider *p);
void mc_wire_free(struct mc_wire *w);

/* The members around the items, from r (its items are not read): called
 * first, and again when they change (the elements are kept). */
void mc_wire_set(struct mc_wire *w, const struct mc_request *r);

/* One checked item (mc_items_check_line), after those added before; the
 * item is the wire's (used up, its strings moved, not copied). */
void mc_wire_add(struct mc_wire *w, cJSON *item);

/* Forget the items. */
void mc_wire_clear(struct mc_wire *w);

/* How many items were added since mc_wire_new or mc_wire_clear. */
size_t mc_wire_items(const struct mc_wire *w);

/* The body as compact JSON, appended to out. */
void mc_wire_body(struct mc_wire *w, struct mc_buf *out);

/*
 * The cache key: the lowercase SHA-256 hex digest of, each prefixed by
 * its length in 8 bytes big-endian, "mc-request cache key 3", the
 * provider's name, the URL, the body as compact JSON without "stream"
 * and "stream_options" and with the long array empty, then each element
 * of that array as compact JSON, in order. What shapes the answer is in
 * it (model, system prompt, items, tools, schema, output limit); how it
 * is sent is not.
 */
void mc_wire_key(struct mc_wire *w, char hex[65]);

/*
 * The envelope, compact on one line (no newline), appended to out:
 * {"version":1,"provider","api","url","api_key_env"[,"api_key_optional"]
 * [,"cache_key"],"body"}; the cache key only when key is set.
 */
void mc_wire_envelope(struct mc_wire *w, int key, struct mc_buf *out);

/* The body (envelope 0) or the envelope as pieces to write one after
 * another (writev), with no copy of the elements: iov, pointing into w
 * and into s (scratch, the caller's to free), valid until w changes.
 * Returns how many; mc_wire_body and mc_wire_envelope join them. */
#define MC_WIRE_PIECES 6
size_t mc_wire_pieces(struct mc_wire *w, int envelope, int key, struct mc_buf s[2],
    struct iovec *iov);

/* wire-messages.c: the Messages content block for a checked item, its
 * members moved out of it (the item stays the caller's), or NULL when it
 * sends nothing (empty text, another API's reasoning); *user says whether
 * the block belongs to a user message. */
cJSON *mc_wire_messages_block(cJSON *it, int *user);

/*
 * wire-images.c: the images item it carries ("images", taken out of it;
 * each reference holding the base64 "data" mc-request read from its
 * blob) as content parts of p's API, in order: chat's image_url,
 * Responses' input_image, Messages' image block. When p's model takes
 * no images (p->images 0), or a reference has no data, a line
 * "[image NAME not sent: model MODEL does not take images]" is added to
 * the item's text member key instead. NULL when no part is made.
 */
cJSON *mc_wire_images(const struct mc_provider *p, cJSON *it, const char *key);
/* A text content part of p's API (Responses' input_text, else text). */
cJSON *mc_wire_text_part(const struct mc_provider *p, const char *text);

#endif
