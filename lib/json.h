/* json.h: reading and writing whole JSON documents with cJSON. */
#ifndef MC_JSON_H
#define MC_JSON_H

#include <stdio.h>

#include <cJSON.h>

#include "buf.h"

#define MC_JSON_MAX (64u << 20)	/* largest document read from a stream */

/* 1 for the bytes that stand for themselves in a JSON string: not '"',
 * '\\' or a control character. */
extern const unsigned char mc_json_plain[256];

/*
 * Parse one JSON document of len bytes. On failure returns NULL and writes
 * a one-line reason with the line and column into err.
 */
cJSON *mc_json_parse(const char *s, size_t len, char *err, size_t errsz);

/*
 * Parse one value from the text of len bytes, which a byte-order mark may
 * open, with cJSON (but a \u escape must have four hex digits), and set
 * *end past it; what follows the value is the caller's to check. On
 * failure returns NULL with *end where the text went wrong.
 */
cJSON *mc_json_parse_doc(const char *s, size_t len, const char **end);

/* The line and column (from 1) of at in the text s. */
void mc_json_where(const char *s, const char *at, size_t *line, size_t *col);

/*
 * The first escape \u0000 in a JSON text of len bytes, or NULL. cJSON
 * would silently cut the string there.
 */
const char *mc_json_nul_escape(const char *s, size_t len);

/*
 * Read one document from fd (at most MC_JSON_MAX bytes). An input of only
 * white space sets *empty and returns NULL with no error. A string holding
 * \u0000 is an error. On failure returns NULL with a reason in err.
 */
cJSON *mc_json_read_fd(int fd, int *empty, char *err, size_t errsz);

/*
 * mc_json_read_fd for a document with one long array: each element of the
 * top-level member key goes to fn (which owns it) as it is parsed, alone,
 * in order, and the document returned holds key as an empty array. A
 * document that is no JSON is the same error as for a whole parse, though
 * fn may have had elements by then. A key that is not an array stays as
 * it is.
 */
typedef void mc_json_each_fn(cJSON *elem, size_t index, void *arg);
cJSON *mc_json_read_fd_each(int fd, int *empty, const char *key, mc_json_each_fn *fn,
    void *arg, char *err, size_t errsz);
/* The same over the len bytes at s, which it may change (the array is
 * blanked there). It does not look for \u0000. */
cJSON *mc_json_parse_each(char *s, size_t len, const char *key, mc_json_each_fn *fn,
    void *arg, char *err, size_t errsz);

/*
 * The span of an object's member without parsing the object: the JSON
 * text s of len bytes is an object (white space around it allowed) whose
 * keys are written plainly (no escapes) and hold key at most once at its
 * top level. 1 with the value's bytes from *vs to *ve; 0 when there is
 * no such member; -1 for any other text, which the caller then parses
 * whole. Only the structure is followed: mc_json_check checks the rest.
 */
int mc_json_member(const char *s, size_t len, const char *key, const char **vs,
    const char **ve);

/* NULL when the len bytes at s are one JSON value to the letter of the
 * grammar (white space around it allowed, nesting within cJSON's limit),
 * checked without building it; else where the text goes wrong. */
const char *mc_json_check(const char *s, size_t len);

/*
 * The same check, finding on the way what a reader needs of a large
 * document, in the same pass: the member path[0] of the top-level object
 * and the member path[1] of that member's object (either NULL: none). n[i]
 * counts how often each was met (the spans are of the first), escaped is
 * set when a key where they could be has an escape (only a parse can say
 * what it names), and nul is the first \u0000 escape (cJSON would cut the
 * string there), or NULL.
 */
struct mc_json_found {
	const char *path[2];
	const char *vs[2], *ve[2];
	int n[2];
	int escaped;
	const char *nul;
};
const char *mc_json_check_find(const char *s, size_t len, struct mc_json_found *f);

/* doc as compact JSON, byte for byte what cJSON_PrintUnformatted gives, but
 * faster on long strings. Returns a malloc'ed string; allocation failure
 * exits (mc_oom). */
char *mc_json_compact(const cJSON *doc, size_t *len);

/* Write doc followed by a newline, compact or pretty. Returns 0 or -1. */
int mc_json_write(FILE *fp, const cJSON *doc, int pretty);

/*
 * A compact writer, for documents built piece by piece. With fp set, it
 * writes each MC_JW_CHUNK bytes as they fill; with fp NULL, the text
 * stays in b. Allocation failure exits; mc_jw_end writes the rest, frees
 * the buffer and returns 0, or -1 when any write failed.
 */
#define MC_JW_CHUNK (64u << 10)
struct mc_jw {
	struct mc_buf b;
	FILE *fp;
	int err;
};
void mc_jw_raw(struct mc_jw *w, const void *p, size_t n);
void mc_jw_str(struct mc_jw *w, const char *s);
void mc_jw_member(struct mc_jw *w, const char *key, const cJSON *v);
int mc_jw_end(struct mc_jw *w);

/* Accessors that return NULL / the fallback when the member is absent or
 * of another type. */
const char *mc_json_str(const cJSON *obj, const char *key);
/* The number at key as a count: 0 when absent, not a number or negative. */
long long mc_json_count(const cJSON *obj, const char *key);
cJSON *mc_json_obj(const cJSON *obj, const char *key);
cJSON *mc_json_arr(const cJSON *obj, const char *key);

/* Add helpers that abort on allocation failure: an out-of-memory
 * document is of no use to anyone. A NULL val is a JSON null. */
cJSON *mc_json_add_str(cJSON *obj, const char *key, const char *val);
/* val (malloc'ed) becomes the document's own, not copied. */
cJSON *mc_json_add_owned(cJSON *obj, const char *key, char *val);
cJSON *mc_json_new_owned(char *s);
cJSON *mc_json_add_num(cJSON *obj, const char *key, double val);
cJSON *mc_json_add(cJSON *obj, const char *key, cJSON *item);
cJSON *mc_json_push(cJSON *arr, cJSON *item);
cJSON *mc_json_new_obj(void);
cJSON *mc_json_new_arr(void);
/* A string, or null for NULL (a member not known). */
cJSON *mc_json_new_str(const char *s);
/* The array member key of obj, created when missing. */
cJSON *mc_json_arr_ensure(cJSON *obj, const char *key);

#endif
