/* items.h: conversation items (JSON Lines, also the session file): reading and checking them. */
#ifndef MC_ITEMS_H
#define MC_ITEMS_H

#include <stddef.h>

#include <cJSON.h>

#define MC_ITEMS_MAX (256u << 20)	/* largest items file read: a resumable session (MC_SESSION_MAX) */

/*
 * Check the JSON Lines text s (len bytes) read from name. Blank lines are
 * skipped; a {"type":"session",...} header is skipped on line 1 only, and
 * the bookkeeping lines of a session ({"type":"model",...},
 * {"type":"usage",...}, "title", "tools_loaded") anywhere. Each
 * other line must be one of
 *   {"type":"message","role":"user"|"assistant","content":STRING}
 *     (an assistant message may add "refusal":STRING, and either role
 *     "status":"completed"|"incomplete")
 *   {"type":"function_call","call_id":S,"name":S,"arguments":S}
 *   {"type":"function_call_output","call_id":S,"output":S}
 *     (a user message and an output may add "images":[REF,...], the
 *     images they carry by reference: image.h's mc_image_ref_check)
 *   {"type":"reasoning","text":S[,"api":S[,"data":OBJECT]]}
 *     (the model's reasoning; "data" is what API "api" needs to have it
 *     back, such as a signature: sent back only to that API)
 * with every call_id of an output belonging to an earlier function_call.
 * Returns an array of the items reduced to those members, in that order;
 * or NULL with "NAME:LINE: reason" in err.
 */
cJSON *mc_items_parse(const char *name, const char *s, size_t len, char *err, size_t errsz);

/*
 * The same check, a line at a time, for a stream of items that grows (an
 * items file, or mc-request --serve's standard input): each line s of n
 * bytes (no newline) is line 1, 2, ... of name. Returns 1 with the
 * reduced item in *item (the caller's), 0 for a line that holds no item
 * (blank, the header, bookkeeping), -1 with "NAME:LINE: reason" in err; a
 * rejected line changes nothing of what was checked before.
 */
struct mc_items_check;
struct mc_items_check *mc_items_check_new(const char *name);
int mc_items_check_line(struct mc_items_check *c, const char *s, size_t n, cJSON **item,
    char *err, size_t errsz);
void mc_items_check_free(struct mc_items_check *c);
/* "NAME:LINE" of the line checked last, for an error about its item. */
void mc_items_check_where(const struct mc_items_check *c, char *out, size_t outsz);

/* True when doc is a session's bookkeeping line ({"type":"model",...},
 * {"type":"usage",...}, "title", "tools_loaded"), which mc_items_parse
 * skips. */
int mc_item_bookkeeping(const cJSON *doc);
/* True when the line p (n bytes) may be one: it names a bookkeeping type
 * in quotes. A quick test before parsing. */
int mc_item_maybe_bookkeeping(const char *p, size_t n);

/* Read the file at path (at most MC_ITEMS_MAX bytes) and check it as above. */
cJSON *mc_items_load(const char *path, char *err, size_t errsz);

/* The items, built in one place: {"type":"message","role","content"};
 * {"type":"function_call","call_id","name","arguments"};
 * {"type":"function_call_output","call_id","output"}. */
cJSON *mc_item_message(const char *role, const char *text);
cJSON *mc_item_call(const char *call_id, const char *name, const char *arguments);
cJSON *mc_item_output(const char *call_id, const char *output);
/* {"type":"reasoning","text"[,"api"][,"data"]}: api and data may be NULL
 * (data is copied). */
cJSON *mc_item_reasoning(const char *text, const char *api, const cJSON *data);
/* The id of a call that came without one: "call_" and 24 hex digits of a
 * SHA-256 over n (its place among the answer's calls, or a retry count),
 * its name and its arguments, so that two decodes of one answer give the
 * same ids. A caller that must avoid ids it already holds asks again with
 * another n. */
#define MC_CALL_ID_SIZE (sizeof "call_" + 24)
void mc_item_call_id(char id[MC_CALL_ID_SIZE], unsigned long long n, const char *name,
    const char *arguments);
/* A user message a hook wrote (a stop hook's exit 2): the message with
 * "hook":NAME besides, which mc_items_parse drops (the provider reads a
 * plain user message) and mc_session_list counts as no turn of the user. */
cJSON *mc_item_hook_message(const char *hook, const char *text);
/* A command the user ran (mc's !COMMAND) and its output, as the bash
 * tool gave it: the user message "I ran a command in the sandbox:" and a
 * code block of "$ COMMAND" and OUTPUT, with "shell":COMMAND besides,
 * which mc_items_parse drops and mc_session_list counts as no turn. */
cJSON *mc_item_shell_message(const char *command, const char *output);

/*
 * A function_call item as mc-tool call and mc-mcp take it on standard
 * input: {"type":"function_call","call_id":S,"name":S,"arguments":A}, the
 * call_id not empty and A a JSON text in a string (as providers send it)
 * or an object. Returns 0, or -1 with a one-line reason in err.
 */
int mc_item_call_check(const cJSON *item, char *err, size_t errsz);
/* Such an item read from fd and checked; NULL with the reason in err. */
cJSON *mc_item_call_read(int fd, char *err, size_t errsz);

/*
 * The arguments of a checked function_call as a new object: a string is
 * parsed (white space alone is {}). NULL when the text is not JSON, holds
 * the escape \u0000 (cJSON would cut the string there) or is not an
 * object, with the reason in err worded to follow "the arguments"
 * ("are not valid JSON (...)").
 */
cJSON *mc_item_call_args(const cJSON *item, char *err, size_t errsz);

#endif
