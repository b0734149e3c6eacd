/* session.h: the session file, $MC_HOME/sessions/ID.jsonl. */
#ifndef MC_SESSION_H
#define MC_SESSION_H

#include <stddef.h>

#include <cJSON.h>

#include "buf.h"
#include "strset.h"

#define MC_SESSION_MAX (256u << 20)	/* largest session file resumed */

/*
 * A header line {"type":"session","id","created","cwd","provider","model"}
 * then conversation items, one JSON object per line. Every line is added
 * with one write(2) on an O_APPEND descriptor, so a process killed at any
 * moment leaves only whole lines behind.
 */
struct mc_session {
	char *id;
	char *path;
	int fd;			/* open for appending, or -1 */
	cJSON *header;
	struct mc_buf lines;	/* the items (not the header) as JSON Lines,
				 * what mc-request --items reads */
	size_t items;		/* conversation items in the file */
	size_t bytes;		/* file size */
	size_t dropped;		/* bytes of a torn last line removed on open */
	size_t repaired;	/* interrupted calls given an output on open */
	/* call_ids of the function_calls, a hash set (linear time for the
	 * thousands of calls one answer may hold); each value says whether
	 * the call has its output yet */
	struct mc_strset calls;
};

/* True when id is a session id (letters, digits, '-', '_', at most 64). */
int mc_session_id_valid(const char *id);
/* The file of session id under home: home/sessions/ID.jsonl (malloc'ed). */
char *mc_session_path(const char *home, const char *id);

/*
 * Create a new session with its header (provider, model may be NULL;
 * more, when not NULL, is an object whose members join the header, e.g.
 * parent, agent, compacted_from). The cwd is stored as valid UTF-8
 * (mc_session_cwd). Returns 0, or -1 with a reason in err.
 */
int mc_session_create(struct mc_session *s, const char *home, const char *cwd,
    const char *provider, const char *model, const cJSON *more, char *err, size_t errsz);

/*
 * Create a new session as mc_session_create does, holding items (len
 * bytes of JSON Lines, as in a session file after its header) from the
 * start. The whole file is written under a hidden temporary name in the
 * sessions directory, flushed, then renamed over the new session's empty
 * file, so that a reader (mc -c) sees the session whole or not at all.
 * With home NULL the session is in memory only (fd -1, no id, no file).
 * Returns 0, or -1 with a reason in err and no file left behind.
 */
int mc_session_create_items(struct mc_session *s, const char *home, const char *cwd,
    const char *provider, const char *model, const cJSON *more, const char *items, size_t len,
    char *err, size_t errsz);

/*
 * The header members a session's successor carries (a compacted or a
 * forked one; more for mc_session_create_items): all of header's but
 * those every header has, its lineage ("compacted_from", "forked_from"),
 * its "title" and "tools_loaded" (the driver gives those anew), then key
 * naming id, the session it comes from (none when id is NULL, a session
 * in memory). Malloc'ed.
 */
cJSON *mc_session_more(const cJSON *header, const char *key, const char *id);

/* A directory name as sessions store and match it: valid UTF-8, each
 * invalid byte replaced by U+FFFD. Malloc'ed. */
char *mc_session_cwd(const char *cwd);

/* A session in memory only (fd -1, no file), for a run that keeps none:
 * items may be appended to s->lines all the same. */
void mc_session_memory(struct mc_session *s);

/*
 * Open session id for appending, locked against a second mc on the same
 * session (which would answer this one's calls behind its back). A torn last line (no final newline) is
 * cut off and a function_call without its output gets an output saying
 * the call was interrupted, so the history is valid for a provider again.
 * Returns 0, or -1 with a reason in err.
 */
int mc_session_open(struct mc_session *s, const char *home, const char *id,
    char *err, size_t errsz);

/* The same for a look that changes nothing: no lock, fd stays -1, and a
 * torn line or an interrupted call is mended in s->lines only. */
int mc_session_read(struct mc_session *s, const char *home, const char *id,
    char *err, size_t errsz);

/* Either of the two (writable: mc_session_open), calling each(item, line,
 * len, arg) with every line of the file as it is parsed, the header first
 * (each may be NULL): the item, and the line's len bytes with its
 * newline, valid during the call. The one reading of the file, for a
 * caller that wants more of it than the items. The session holds the
 * file once in memory, as s->lines (the lines after the header). */
int mc_session_load(struct mc_session *s, const char *home, const char *id, int writable,
    void (*each)(const cJSON *item, const char *line, size_t len, void *arg), void *arg,
    char *err, size_t errsz);

/* The id of the most recently written session whose cwd is cwd (compared
 * as mc_session_cwd gives it), a subagent's (with "parent") left out: 0 and
 * *id set (caller frees), 1 when there is none, -1 with err. */
int mc_session_latest(const char *home, const char *cwd, char **id,
    char *err, size_t errsz);

/* Append one item (compact JSON, one line), on disk before it returns
 * (in s->lines only when fd is -1). Returns 0 or -1 with err. */
int mc_session_append(struct mc_session *s, const cJSON *item, char *err, size_t errsz);

/* True when the session already holds a function_call with this call_id. */
int mc_session_has_call(const struct mc_session *s, const char *call_id);

void mc_session_close(struct mc_session *s);

/* Reading a session's lines from the end: the line that ends just
 * before q (at its newline) in [start, q). */
const char *mc_session_line_before(const char *start, const char *q);

/* True when item is a turn's message: one the user typed, not a guide,
 * a compacted session's summary, what a hook said or a command the user
 * ran (mc's !COMMAND). */
int mc_session_is_turn(const cJSON *item);

/* The turns in a session's lines (data, len bytes, as s->lines holds
 * them): their count, each (when not NULL) called with the item and the
 * offset of its line. */
long long mc_session_turns(const char *data, size_t len,
    void (*each)(const cJSON *item, size_t off, void *arg), void *arg);

/* What `mc sessions` shows of one session file. */
struct mc_session_info {
	char *id;
	cJSON *header;
	struct timespec mtime;
	long long turns;	/* the user's messages (guides not counted) */
	long long input, output, cached;	/* the sum of its usage lines */
	char *first;		/* the first line of the first user message, or NULL */
	char *title;		/* its last title line's (else its header's), or NULL */
};

/* Every readable session of home, newest first (by the file's time). A
 * file that is not a session is left out. Returns 0 (*v malloc'ed, *n
 * entries), or -1 with err. */
int mc_session_list(const char *home, struct mc_session_info **v, size_t *n,
    char *err, size_t errsz);
void mc_session_list_free(struct mc_session_info *v, size_t n);
/* The same of session id alone: 0 (free with mc_session_info_free), or
 * -1 with err. */
int mc_session_info(const char *home, const char *id, struct mc_session_info *in, char *err,
    size_t errsz);
/* One entry's members freed (not the entry). */
void mc_session_info_free(struct mc_session_info *in);

#endif
