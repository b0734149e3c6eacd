/* utf8.c: strict UTF-8 validation (RFC 3629). */
#include <stdint.h>
#include <string.h>

#include "utf8.h"

/* The length of the sequence lead byte c begins (0: none), and the range
 * its second byte must fall in: no overlong forms, no surrogates, nothing
 * above U+10FFFF. */
static size_t
lead(unsigned char c, unsigned char *lo, unsigned char *hi)
{
	*lo = 0x80;
	*hi = 0xbf;
	if (c < 0x80)
		return 1;
	if (c < 0xc2)
		return 0;
	if (c < 0xe0)
		return 2;
	if (c < 0xf0) {
		if (c == 0xe0)
			*lo = 0xa0;
		else if (c == 0xed)
			*hi = 0x9f;
		return 3;
	}
	if (c < 0xf5) {
		if (c == 0xf0)
			*lo = 0x90;
		else if (c == 0xf4)
			*hi = 0x8f;
		return 4;
	}
	return 0;
}

/* Whether s[1..m) may follow the lead byte s[0], second byte in lo..hi. */
static bool
continues(const unsigned char *s, size_t m, unsigned char lo, unsigned char hi)
{
	size_t i;

	if (m >= 2 && (s[1] < lo || s[1] > hi))
		return false;
	for (i = 2; i < m; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return false;
	return true;
}

size_t
mc_utf8_seqlen(const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	unsigned char lo, hi;
	size_t len;

	if (n == 0 || (len = lead(s[0], &lo, &hi)) == 0 || n < len)
		return 0;
	return continues(s, len, lo, hi) ? len : 0;
}

bool
mc_utf8_incomplete(const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	unsigned char lo, hi;
	size_t len;

	if (n == 0 || (len = lead(s[0], &lo, &hi)) < 2 || n >= len)
		return false;
	return continues(s, n, lo, hi);
}

bool
mc_utf8_valid(const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t i = 0, k;

	while (i < n) {
		/* ASCII runs eight bytes at a time */
		while (i + 8 <= n) {
			uint64_t w;

			memcpy(&w, s + i, 8);
			if (w & 0x8080808080808080ull)
				break;
			i += 8;
		}
		if (i >= n)
			break;
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((k = mc_utf8_seqlen(p + i, n - i)) == 0)
			return false;
		i += k;
	}
	return true;
}

size_t
mc_utf8_floor(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}
