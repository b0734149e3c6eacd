/* diag.c: one-line diagnostics on stderr and checked exit. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bsd/stdlib.h>

#include "diag.h"
#include "utf8.h"

const char *mc_progname = "mc";
int mc_quiet;
void (*mc_diag_hook)(const char *);

/* A reader that went away (mc-render | head) ends the program quietly:
 * what it wanted was written. A handler rather than SIG_IGN, so that
 * children started with exec get the default disposition back. */
static void
on_sigpipe(int sig)
{
	(void)sig;
	_exit(MC_EXIT_OK);
}

void
mc_init(const char *progname, char *argv[])
{
	int fd;

	mc_progname = progname;
	argv[0] = (char *)progname;
	/* A program started with a closed fd 0-2 would write its output into
	 * the first file it opens. */
	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2)
		;
	if (fd > 2)
		close(fd);
	signal(SIGPIPE, on_sigpipe);
}

void
mc_oom(void)
{
	mc_err("out of memory");
	exit(MC_EXIT_FAIL);
}

char *
mc_strdup(const char *s)
{
	char *p;

	if (s == NULL)
		return NULL;
	if ((p = strdup(s)) == NULL)
		mc_oom();
	return p;
}

char *
mc_strndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (p == NULL)
		mc_oom();
	return p;
}

char *
mc_sanitize(char *dst, size_t dstsz, const char *src)
{
	size_t o = 0, n;
	const unsigned char *s = (const unsigned char *)src;

	if (dstsz == 0)
		return dst;
	while (*s && o + 1 < dstsz) {
		n = mc_utf8_seqlen((const char *)s, strlen((const char *)s));
		if (n == 0) {		/* invalid byte */
			dst[o++] = '?';
			s++;
		} else if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0) {
			dst[o++] = '?';	/* a C1 control: U+009B is CSI to a terminal */
			s += 2;
		} else if (n == 1 && (*s < 0x20 || *s == 0x7f)) {
			if (o + 4 >= dstsz)
				break;
			if (*s == '\n' || *s == '\t' || *s == '\r') {
				dst[o++] = '\\';
				dst[o++] = *s == '\n' ? 'n' : *s == '\t' ? 't' : 'r';
			} else {
				o += snprintf(dst + o, dstsz - o, "^%c", *s == 0x7f ? '?' : *s + '@');
			}
			s++;
		} else {
			if (o + n >= dstsz)
				break;
			memcpy(dst + o, s, n);
			o += n;
			s += n;
		}
	}
	dst[o] = '\0';
	return dst;
}

/* kind: "warning: ", or "" (an error or a note). mirror: an error of the
 * run, passed to mc_diag_hook; not a warning, a note, or a usage error
 * (no event of a run that never started). */
static void
vsay(const char *kind, int mirror, const char *fmt, va_list ap)
{
	char raw[4096], clean[4096];

	vsnprintf(raw, sizeof raw, fmt, ap);
	mc_sanitize(clean, sizeof clean, raw);
	fprintf(stderr, "%s: %s%s\n", mc_progname, kind, clean);
	if (mc_diag_hook != NULL && mirror)
		mc_diag_hook(clean);
}

void
mc_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", 0, fmt, ap);
	va_end(ap);
}

void
mc_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", 1, fmt, ap);
	va_end(ap);
}

void
mc_warn(const char *fmt, ...)
{
	va_list ap;

	if (mc_quiet)
		return;
	va_start(ap, fmt);
	vsay("warning: ", 0, fmt, ap);
	va_end(ap);
}

int
mc_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", 0, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", mc_progname);
	return MC_EXIT_USAGE;
}

/* Whether stdout is a pipe or socket whose reader went away. An earlier
 * write that failed with EPIPE leaves only the error flag behind. */
static int
reader_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}

int
mc_opt_exit(int c, const char *usage)
{
	if (c == 'h') {
		fputs(usage, stdout);
		return mc_finish(MC_EXIT_OK);
	}
	if (c == MC_OPT_VERSION) {
		printf("%s (mc) %s\n", mc_progname, MC_VERSION);
		return mc_finish(MC_EXIT_OK);
	}
	fprintf(stderr, "Try '%s --help' for more information.\n", mc_progname);
	return MC_EXIT_USAGE;
}

int
mc_finish(int status)
{
	int bad = 0;

	errno = 0;
	if (fflush(stdout) == EOF || ferror(stdout))
		bad = errno ? errno : reader_gone() ? EPIPE : EIO;
	if (fclose(stdout) == EOF && !bad)
		bad = errno ? errno : EIO;
	if (bad == EPIPE)
		return status;
	if (bad) {
		mc_err("stdout: %s", strerror(bad));
		return MC_EXIT_FAIL;
	}
	return status;
}

long long
mc_opt_num(const char *name, const char *arg, long long lo, long long hi, int *bad)
{
	const char *e = NULL;
	long long v = strtonum(arg, lo, hi, &e);

	if (e != NULL) {
		mc_usage_error("%s: %s is %s (%lld to %lld)", name, arg, e, lo, hi);
		*bad = 1;
	}
	return v;
}
