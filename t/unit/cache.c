/* cache: entry names, entries written whole and read back, eviction by age, the bound. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"

static int fail;

#define CHECK(c, msg) do { if (!(c)) { printf("cache: %s\n", msg); fail = 1; } } while (0)

/* A key made of one hex digit. */
static const char *
key(char d)
{
	static char k[8][65];
	static int n;
	char *s = k[n++ % 8];

	memset(s, d, 64);
	s[64] = '\0';
	return s;
}

static int
exists(const char *dir, const char *name)
{
	char p[512];

	snprintf(p, sizeof p, "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

/* An empty file name in dir. */
static void
make(const char *dir, const char *name)
{
	char p[512];
	int fd;

	snprintf(p, sizeof p, "%s/%s", dir, name);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	CHECK(fd != -1 && close(fd) == 0, "a file was not made");
}

/* Set name's modification time to now minus ago seconds. */
static void
age(const char *dir, const char *name, time_t ago)
{
	struct timespec t[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_sec = time(NULL) - ago } };
	char p[512];

	snprintf(p, sizeof p, "%s/%s", dir, name);
	CHECK(utimensat(AT_FDCWD, p, t, 0) == 0, "utimensat failed");
}

int
main(void)
{
	static const struct {
		const char *key;
		int valid;
	} keys[] = {
		{ "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", 1 },
		{ "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08", 0 },
		{ "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0", 0 },
		{ "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a088", 0 },
		{ "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0g", 0 },
		{ "../86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", 0 },
		{ "", 0 },
	};
	char home[] = "/tmp/mc-unit-cache.XXXXXX", dir[512], err[1024], leftover[600];
	struct mc_cache c;
	struct mc_buf b = {0};
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
		CHECK(mc_cache_key_valid(keys[i].key) == keys[i].valid, keys[i].key);
	if (mkdtemp(home) == NULL)
		return 1;
	snprintf(dir, sizeof dir, "%s/home/cache", home);
	snprintf(leftover, sizeof leftover, "%s.AbCd12", key('e'));

	/* Nothing there, no directory: a miss, and nothing made. */
	snprintf(err, sizeof err, "%s/home", home);
	mc_cache_init(&c, err, 25);
	CHECK(mc_cache_get(&c, key('a'), &b, err, sizeof err) == 0, "a miss in no directory");
	CHECK(!exists(home, "home"), "a lookup made the home");

	/* Written whole, 0600 in a 0700 directory made with its home. */
	CHECK(mc_cache_put(&c, key('a'), "aaaaaaaaaa", 10, err, sizeof err) == 0, err);
	CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700, "directory not 0700");
	snprintf(err, sizeof err, "%s/%s", dir, key('a'));
	CHECK(stat(err, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_size == 10,
	    "entry not 0600 or not whole");
	CHECK(mc_cache_get(&c, key('a'), &b, err, sizeof err) == 1 && b.len == 10 &&
	    strcmp(b.data, "aaaaaaaaaa") == 0, "entry not read back");
	mc_buf_free(&b);

	/* Over the bound alone: not kept. */
	CHECK(mc_cache_put(&c, key('f'), "ffffffffffffffffffffffffff", 26, err, sizeof err) == 1,
	    "an entry over the bound was kept");
	CHECK(!exists(dir, key('f')), "an entry over the bound is there");

	/* b and c older than a; a read of b makes it the newest; d pushes
	 * out the oldest, c, then a: 25 bytes hold two entries of 10. */
	CHECK(mc_cache_put(&c, key('b'), "bbbbbbbbbb", 10, err, sizeof err) == 0, err);
	age(dir, key('a'), 300);
	age(dir, key('b'), 200);
	CHECK(mc_cache_put(&c, key('c'), "cccccccccc", 10, err, sizeof err) == 0, err);
	CHECK(exists(dir, key('b')) && exists(dir, key('c')) && !exists(dir, key('a')),
	    "the oldest entry was not the one evicted");
	age(dir, key('c'), 100);
	CHECK(mc_cache_get(&c, key('b'), &b, err, sizeof err) == 1, "b is not there");
	mc_buf_free(&b);
	/* a leftover temporary file an hour old goes; other files stay */
	make(dir, leftover);
	age(dir, leftover, 7200);
	make(dir, "NOTES");
	CHECK(mc_cache_put(&c, key('d'), "dddddddddd", 10, err, sizeof err) == 0, err);
	CHECK(exists(dir, key('b')) && exists(dir, key('d')) && !exists(dir, key('c')),
	    "a read did not make the entry new");
	CHECK(!exists(dir, leftover), "a leftover temporary file stayed");
	CHECK(exists(dir, "NOTES"), "a file not the cache's was removed");

	/* Rewritten in place; dropped. */
	CHECK(mc_cache_put(&c, key('d'), "DDDDD", 5, err, sizeof err) == 0, err);
	CHECK(mc_cache_get(&c, key('d'), &b, err, sizeof err) == 1 && strcmp(b.data, "DDDDD") == 0,
	    "entry not replaced");
	mc_buf_free(&b);
	CHECK(mc_cache_drop(&c, key('d'), err, sizeof err) == 0 && !exists(dir, key('d')),
	    "entry not dropped");
	CHECK(mc_cache_drop(&c, key('d'), err, sizeof err) == 0, "dropping nothing failed");

	/* A link in the entry's place is refused, not followed. */
	snprintf(err, sizeof err, "%s/%s", dir, key('b'));
	snprintf(leftover, sizeof leftover, "%s/elsewhere", home);
	CHECK(rename(err, leftover) == 0 && symlink(leftover, err) == 0, "link not made");
	CHECK(mc_cache_get(&c, key('b'), &b, err, sizeof err) == -1 && strstr(err, "link") != NULL,
	    "a link in the cache was followed");
	mc_buf_free(&b);
	mc_cache_free(&c);

	snprintf(err, sizeof err, "rm -rf '%s'", home);
	if (system(err) != 0)
		fail = 1;
	return fail;
}
