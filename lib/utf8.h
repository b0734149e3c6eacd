/* utf8.h: UTF-8 validation. */
#ifndef MC_UTF8_H
#define MC_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0 if
 * it is not one (overlong forms, surrogates, > U+10FFFF are rejected). */
size_t mc_utf8_seqlen(const char *s, size_t n);
/* True when the n bytes at s begin a well-formed sequence but end before
 * it does (a piece cut off at the end of a buffer). */
bool mc_utf8_incomplete(const char *s, size_t n);
/* True when all n bytes are well-formed UTF-8. NUL bytes are allowed. */
bool mc_utf8_valid(const char *s, size_t n);
/* n, or less so that the first n bytes of s do not end inside a
 * character: the place to cut s at n. */
size_t mc_utf8_floor(const char *s, size_t n);

#endif
