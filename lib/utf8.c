/* utf8.c: strict UTF-8 validation (RFC 3629). */
#include <stdint.h>
#include <string.h>

#include "utf8.h"

size_t
mc_utf8_seqlen(const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2)
		return 0;
	if (s[0] < 0xe0)
		len = 2;
	else if (s[0] < 0xf0) {
		len = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;	/* no surrogates */
	} else if (s[0] < 0xf5) {
		len = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < len)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
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
