/* fsread.h: bounded reads: instruction, skill and fragment files (safe), streams and files the user names (whole). */
#ifndef MC_FSREAD_H
#define MC_FSREAD_H

#include <stddef.h>
#include <sys/types.h>

#include "buf.h"

enum mc_read_status {
	MC_READ_OK = 0,
	MC_READ_MISSING,	/* no such file */
	MC_READ_SYMLINK,	/* a final symlink, never followed here (MC_LINK_REFUSE) */
	MC_READ_OUTSIDE,	/* a final symlink whose target is outside `within` */
	MC_READ_DANGLING,	/* a final symlink whose target does not exist */
	MC_READ_NOTREG,		/* a FIFO, socket, device or directory */
	MC_READ_TOOBIG,		/* over the cap; nothing is returned */
	MC_READ_UTF8,		/* not valid UTF-8, or contains NUL */
	MC_READ_ERRNO,		/* open/read failed: see err */
};

/* What to do with a final symlink. */
enum mc_link_policy {
	MC_LINK_REFUSE,		/* never follow */
	MC_LINK_INSIDE,		/* follow when the target lies inside `within` */
	MC_LINK_FOLLOW,		/* follow (settings files may be dotfile links) */
};

struct mc_read {
	enum mc_read_status status;
	int err;		/* errno for MC_READ_ERRNO; ENOENT for a dangling
				 * link refused as MC_READ_SYMLINK */
	off_t size;		/* file size when known (for TOOBIG) */
	mode_t mode;		/* the file's st_mode, from its handle, when opened */
	char *data;		/* NUL-terminated content on MC_READ_OK */
	size_t len;
};

/*
 * Read the regular file at path, at most cap bytes. The file is opened
 * without blocking (a FIFO is refused, not waited on) and checked through
 * its handle. With MC_LINK_INSIDE a final symlink is followed only when its
 * resolved target lies inside the directory `within` (the link's own
 * directory when within is NULL): a target outside is MC_READ_OUTSIDE, a
 * target that does not exist MC_READ_DANGLING (callers may take it for a
 * missing file). With MC_LINK_REFUSE any final symlink is MC_READ_SYMLINK.
 * With text set the content must be UTF-8 without NUL bytes. The caller
 * frees r->data.
 */
void mc_file_read(const char *path, size_t cap, enum mc_link_policy links,
    const char *within, int text, struct mc_read *r);
/* The same for name in the directory dfd, never through a final link. */
void mc_file_readat(int dfd, const char *name, size_t cap, int text, struct mc_read *r);

/* A one-line description of a failed read ("file is 300000 bytes, over the
 * 262144-byte cap", "not a regular file", ...), in a static buffer. */
const char *mc_read_strerror(const struct mc_read *r, size_t cap);

/*
 * The read tool's page (mc-tool read): at most MC_PAGE_LINES lines and
 * MC_PAGE_BYTES bytes of a file a call. The same caps bound a file a
 * message mentions (mc's @path), which is attached whole or not at all.
 */
#define MC_PAGE_LINES 2000
#define MC_PAGE_BYTES (256u << 10)
/* A file is binary, not text, when a NUL is among its first
 * MC_BINARY_PROBE bytes: mc_looks_binary(its first n bytes). */
#define MC_BINARY_PROBE 8192
int mc_looks_binary(const void *p, size_t n);

/* Read a whole stream (fd) up to cap bytes. Returns 0, or -1 with errno
 * (EFBIG when over the cap). */
int mc_fd_slurp(int fd, size_t cap, struct mc_buf *out);

/*
 * Read the file at path into out (at most cap bytes). Unlike mc_file_read
 * this is for data the user names explicitly, so a pipe such as bash's
 * <(...) is read, not refused. Returns 0, or -1 with "PATH: reason" in err.
 */
int mc_slurp_path(const char *path, size_t cap, struct mc_buf *out, char *err, size_t errsz);

/* Write all n bytes to fd, going on after short writes and EINTR.
 * Returns 0, or -1 with errno. */
int mc_write_all(int fd, const void *p, size_t n);
/* The same for n pieces (changes iov). */
struct iovec;
int mc_writev_all(int fd, struct iovec *iov, int n);

/* Move n bytes from the pipe from to to, in the kernel where it can
 * (splice), else through a buffer. 0, or -1 with errno (EPIPE: from
 * ended first). */
int mc_fd_move(int from, int to, size_t n);

/* True when the canonical path `path` is `dir` or lies below it. */
int mc_path_within(const char *path, const char *dir);

/* Join dir and name with one slash: a malloc'ed string (mc_oom on failure). */
char *mc_path_join(const char *dir, const char *name);

/*
 * The canonical path that path names (relative to base unless absolute),
 * whether it exists or not: the realpath of the target, or where it is
 * missing, of its nearest existing parent with the rest appended ("." and
 * ".." taken lexically: there is nothing on disk to follow). A symbolic
 * link to a missing target is followed by its text, at most MC_PATH_LINKS
 * deep. A malloc'ed string, or NULL with errno on another failure (a
 * loop, a permission, a file on the way).
 */
#define MC_PATH_LINKS 40
char *mc_path_resolve(const char *base, const char *path);

/* Make the directory above dir, then dir, mode 0700, where missing (as
 * $MC_HOME and $MC_HOME/sessions): 0, or -1 with "PATH: reason" in err. */
int mc_dir_make(const char *dir, char *err, size_t errsz);
/* Make every missing directory above path, with mode: 0, or -1 with
 * "PATH: reason" in err. */
int mc_dir_parents(const char *path, mode_t mode, char *err, size_t errsz);

#endif
