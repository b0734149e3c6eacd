/* chunk.h: an allocation-free fast path for the common chat chunk, a plain text delta. */
#ifndef MC_CHUNK_H
#define MC_CHUNK_H

#include <stddef.h>

#include "buf.h"

/*
 * When p, n is a chat chunk that only carries text (a JSON object with
 * one choice whose delta holds at most a string content, no error, no
 * usage, no tool calls, no refusal, no reasoning, no finish_reason), puts that text,
 * unescaped, in out (emptied first; NUL-terminated) and returns 1.
 * Returns 0 for anything else, valid or not: decode it with cJSON. It
 * never accepts what cJSON would reject, and the text is what cJSON
 * would give: any doubt (a \u0000, a lone surrogate, an escaped key, a
 * duplicate key that matters, a long number, deep nesting) returns 0.
 */
int mc_chunk_text(const char *p, size_t n, struct mc_buf *out);

/* The four hex digits at p as *v: 0, or -1 when they are not four. */
int mc_chunk_hex4(const char *p, unsigned *v);

#endif
