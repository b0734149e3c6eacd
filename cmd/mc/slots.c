/*
 * slots.c: subagents.max_total: a subagent tree's slots, one file each in
 * a directory the top run makes, held with flock by the child that has it.
 *
 * Every child of the tree works in a slot: its parent takes one before
 * starting it (the parent's own, while none of its other children has
 * it, or a free one of the tree) and hands it down as an open
 * descriptor; the lock goes with the open file, so it is held as long as
 * the child or its parent keeps it open, and the kernel frees it when
 * they end, however they end. No daemon, nothing to clean after a crash
 * but the directory. A parent waiting for its children works no more,
 * and lends its slot to one of them: so at most max_total children do
 * model or tool work at once, and a tree can never deadlock on its
 * slots (the one lent is always there for the next child).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"

#define MAX_TOTAL_DEFAULT 16
/* More slots than children a tree can run at once would never be used:
 * 8 tasks per call, three levels. */
#define SLOTS_MAX (8 + 8 * 8 + 8 * 8 * 8)

/* --slots and --slot-fd: a child's, the descriptor open. The slot is
 * ours alone: none of our own children inherits it by accident. */
int
slots_usage(const struct conf *c)
{
	if (c->slots != NULL && c->depth == 0)
		return mc_usage_error("--slots goes with --subagent");
	if (c->slot_fd != -1 && c->slots == NULL)
		return mc_usage_error("--slot-fd goes with --slots");
	if (c->slot_fd != -1 && fcntl(c->slot_fd, F_SETFD, FD_CLOEXEC) == -1)
		return mc_usage_error("--slot-fd: %d is not an open descriptor", c->slot_fd);
	return 0;
}

/* subagents.max_total, at most SLOTS_MAX. */
static long
max_total(const struct driver *d)
{
	const cJSON *v = mc_settings_get(&d->c.set, "subagents.max_total");

	if (!cJSON_IsNumber(v))
		return MAX_TOTAL_DEFAULT;
	return v->valuedouble > SLOTS_MAX ? SLOTS_MAX : (long)v->valuedouble;
}

/* The top of a tree: its directory, $MC_HOME/run/slots.XXXXXX, with a
 * file per slot. 0, or -1 after saying why. */
static int
slots_make(struct driver *d)
{
	char err[512], *run = mc_path_join(d->c.set.home, "run"), *dir, name[32], *path;
	long i, n = max_total(d);
	int fd;

	if (mc_dir_make(run, err, sizeof err) == -1) {
		mc_warn("%s; subagents.max_total cannot hold", err);
		free(run);
		return -1;
	}
	dir = mc_path_join(run, "slots.XXXXXX");
	free(run);
	if (mkdtemp(dir) == NULL) {
		mc_warn("%s: %s; subagents.max_total cannot hold", dir, strerror(errno));
		free(dir);
		return -1;
	}
	d->sub.slots = dir;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof name, "%ld", i);
		path = mc_path_join(dir, name);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd == -1) {
			mc_warn("%s: %s; subagents.max_total cannot hold", path, strerror(errno));
			free(path);
			return -1;
		}
		close(fd);
		free(path);
	}
	return 0;
}

/*
 * A free slot of the tree: an open descriptor (close-on-exec) holding its
 * lock; -1 when every slot is taken; -2 when there is no tree to bound
 * (its directory could not be made: said once).
 */
int
slot_take(struct driver *d)
{
	char name[32], *path;
	int fd, i;

	if (d->c.slots == NULL && !d->sub.slots_failed) {
		if (slots_make(d) == -1)
			d->sub.slots_failed = 1;
		d->c.slots = d->sub.slots;
	}
	if (d->sub.slots_failed)
		return -2;
	/* The files that exist are the tree's slots, as its top made them. */
	for (i = 0;; i++) {
		snprintf(name, sizeof name, "%d", i);
		path = mc_path_join(d->c.slots, name);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		free(path);
		if (fd == -1 && i == 0) {
			mc_warn("--slots %s: no slots there; subagents.max_total cannot hold",
			    d->c.slots);
			d->sub.slots_failed = 1;
			return -2;
		}
		if (fd == -1)
			return -1;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		close(fd);
	}
}

/* The top of a tree, at its end: the directory goes. */
void
slots_remove(struct driver *d)
{
	char name[32], *path;
	int i;

	if (d->sub.slots == NULL)
		return;
	for (i = 0; i < SLOTS_MAX; i++) {
		snprintf(name, sizeof name, "%d", i);
		path = mc_path_join(d->sub.slots, name);
		if (unlink(path) == -1 && errno == ENOENT) {
			free(path);
			break;
		}
		free(path);
	}
	rmdir(d->sub.slots);
	free(d->sub.slots);
	d->sub.slots = NULL;
	d->c.slots = NULL;
}
