/* t/unit/http.c: Retry-After parsing, backoff bounds, which statuses are retried, which hosts are loopback. */
#include <stdio.h>

#include "http.h"

static int failures;

#define FAIL(...) do { printf("http: " __VA_ARGS__); putchar('\n'); failures++; } while (0)

int
main(void)
{
	static const struct { const char *v; long want; } ra[] = {
		{ "1", 1000 }, { " 120 ", 120000 }, { "0", 0 }, { "", -1 }, { "abc", -1 },
		{ "1.5", -1 }, { "-3", -1 }, { "99999999999999999999", 86400L * 365 * 1000 },
		/* 1445412480 is Wed, 21 Oct 2015 07:28:00 GMT */
		{ "Wed, 21 Oct 2015 07:28:00 GMT", 0 },
		{ "Wed, 21 Oct 2015 07:28:30 GMT", 30000 },
		{ "Wednesday, 21-Oct-15 07:28:10 GMT", 10000 },
		{ "Wed Oct 21 07:28:05 2015", 5000 },
	};
	static const long retry[] = { 408, 409, 429, 500, 502, 503, 504, 599 };
	static const long noretry[] = { 200, 301, 400, 401, 403, 404, 422, 600 };
	static const struct { const char *url; int want; } lo[] = {
		{ "http://127.0.0.1:8080/v1", 1 }, { "http://127.1.2.3/v1", 1 },
		{ "http://localhost:11434/v1", 1 }, { "https://LOCALHOST/v1", 1 },
		{ "http://[::1]:8000/v1", 1 }, { "http://[0:0:0:0:0:0:0:1]/", 1 },
		{ "http://127.evil.example/v1", 0 }, { "https://api.openai.com/v1", 0 },
		{ "http://128.0.0.1/", 0 }, { "http://[::2]/", 0 }, { "http://localhost.example/", 0 },
		{ "not a url", 0 },
	};
	size_t i;
	long d, top;
	int n, k;

	for (i = 0; i < sizeof ra / sizeof ra[0]; i++)
		if ((d = mc_http_retry_after(ra[i].v, 1445412480)) != ra[i].want)
			FAIL("retry-after \"%s\" gives %ld, not %ld", ra[i].v, d, ra[i].want);
	for (n = 0; n < 12; n++) {
		top = 500L << n;
		if (top > 60000)
			top = 60000;
		for (k = 0; k < 200; k++) {
			d = mc_http_backoff(n, 500, 60000);
			if (d < top / 2 || d > top) {
				FAIL("backoff %d gives %ld, outside %ld..%ld", n, d, top / 2, top);
				break;
			}
		}
	}
	if (mc_http_backoff(3, 0, 1000) != 0 || mc_http_backoff(40, 500, 2000) > 2000)
		FAIL("backoff with base 0 or many retries");
	for (i = 0; i < sizeof retry / sizeof retry[0]; i++)
		if (!mc_http_retryable(retry[i]))
			FAIL("%ld is not retried", retry[i]);
	for (i = 0; i < sizeof noretry / sizeof noretry[0]; i++)
		if (mc_http_retryable(noretry[i]))
			FAIL("%ld is retried", noretry[i]);
	for (i = 0; i < sizeof lo / sizeof lo[0]; i++)
		if (mc_http_loopback(lo[i].url) != lo[i].want)
			FAIL("loopback \"%s\" is not %d", lo[i].url, lo[i].want);
	return failures ? 1 : 0;
}
