/* mc-send.h: mc-send's parts: the envelope, the output of one answer, the exchange with its retries, the answer cache. */
#ifndef MC_SEND_H
#define MC_SEND_H

#include <signal.h>
#include <stdio.h>
#include <time.h>

#include <cJSON.h>

#include "buf.h"
#include "json.h"
#include "cache.h"
#include "http.h"
#include "settings.h"
#include "sse.h"

#define MC_EXIT_INCOMPLETE 3	/* the answer was cut by the output limit */

enum mode { TEXT, EVENTS, ITEMS };
enum caching { CACHE_OFF, CACHE_ON, CACHE_REFRESH };

/* What the whole run shares: options, settings, the connection. */
struct sender {
	enum mode mode;
	int serve;		/* --serve: one envelope per line */
	const char *items_out;	/* --items-out FILE */
	long connect, idle;	/* --connect-timeout, --idle-timeout; 0: from settings */
	long max_time;		/* --max-time: seconds for a whole exchange; 0: none */
	long retries, maxwait, base_ms;
	struct mc_settings settings;
	int have_settings;
	struct mc_http *http;
	enum caching caching;	/* --cache, --refresh, MC_CACHE, cache.enabled */
	struct mc_cache cache;	/* its directory, when caching */
	int cache_said;		/* the reason answers are not cached was given */
	int tty;		/* stderr is a terminal: the spinner */
	int broken;		/* stdout failed: the errno (EPIPE: stop quietly) */
	char **keys;		/* the key variables, out of the environment */
	/* The key an api_key_cmd or api_key_file gave, kept for the session,
	 * and where it came from. */
	char *key;
	const char *key_kind;	/* "api_key_cmd" or "api_key_file" */
	char *key_src;		/* the command or the file */
};

/* envelope.c */
struct envelope {
	const char *provider, *url, *key_env;
	const char *key_cmd, *key_file;	/* api_key_cmd, api_key_file: instead of key_env */
	int key_optional;	/* api_key_optional: no key when the variable is unset */
	enum mc_api api;
	const char *cache_key;	/* NULL: none given */
	const char *body;	/* the body's bytes, sent as they are */
	size_t body_len;
	char *owned;		/* the body written again, when it had to be */
	int stream;
};
/* Read the envelope text of n bytes at p: *doc holds its fields (the
 * body's place in it is {}), e points into p and *doc. -1 with "FIELD:
 * why", or why the text is no JSON or holds \u0000, in err. Delete *doc
 * and envelope_free(e) afterwards, either way. */
int envelope_parse(const char *p, size_t n, struct envelope *e, cJSON **doc, char *err,
    size_t errsz);
void envelope_free(struct envelope *e);

/* key.c */
/* The "Authorization: Bearer KEY" header for e, "x-api-key: KEY" for the
 * Messages API (malloc'ed; NULL with no
 * key): the key from the variable key_env (out of sd->keys, or taken out
 * of the environment now), or from key_cmd's output or key_file's first
 * line, resolved once and kept in sd. -1 with the reason in err when the
 * key is needed and cannot be had. */
int envelope_auth(const struct envelope *e, struct sender *sd, char **auth, char *err, size_t errsz);
/* Wipe and free a header envelope_auth made. */
void auth_free(char *auth);
/* Wipe the kept key. */
void key_forget(struct sender *sd);

/* The key in the header auth made (NULL for none). */
const char *auth_key(const char *auth);

/* The state of one answer: what was written and what it held. */
struct out {
	struct sender *sd;
	const char *provider;
	const char *key;	/* to keep out of messages */
	struct mc_stream *stream;
	struct mc_buf text;	/* the answer's text, when items are wanted */
	struct mc_buf refusal;	/* its refusal, likewise */
	cJSON *calls;		/* function_call items */
	cJSON *reasoning;	/* reasoning items, before the message */
	int want_items;
	int recording;		/* the events are kept in record, for the cache */
	int replay;		/* the events are a kept answer's ("cached":true) */
	struct mc_buf record;	/* as --events writes them */
	struct mc_jw line;	/* the event being written */
	int wrote;		/* any byte of this answer written to stdout */
	int last_nl;		/* the text written so far ends in a newline */
	int done;
	char finish[64];	/* the done event's finish_reason */
	/* the error, when there is one */
	int failed, status, local;
	char msg[2400], code[128];	/* room for a whole attempt error line */
	long long told;		/* the request's tokens, as an overflow error counts them */
	/* the spinner */
	int spin_on, spin_frame;
	struct timespec spin_last;
};

/* models.c: --models */
int models(struct sender *sd);

/* output.c */
extern volatile sig_atomic_t got_sigint;
extern volatile sig_atomic_t spin_shown;
void out_init(struct out *o, struct sender *sd, const char *provider, const char *key);
void out_free(struct out *o);
void spin_clear(struct out *o);
void spin_tick(void *arg);
int out_check(struct sender *sd);
int on_event(const struct mc_event *ev, void *arg);
void set_error(struct out *o, const char *msg, const char *code, int status, int local);
/* An error event {"type":"error","message":...} (events modes); told,
 * when not 0, is its "prompt_tokens". */
void put_error(struct sender *sd, const char *msg, const char *code, int status, long long told);
void report(struct out *o);
/* The answer's assistant message item (its text, its refusal, marked
 * incomplete when the answer was cut), or NULL when it had neither; the
 * text moves into it. */
cJSON *answer_message(struct out *o, int whole);
/* Write the new items: msg and, for a whole answer, its function_calls. */
int write_items(struct out *o, const cJSON *msg, FILE *fp, int whole);
/* The event of a line as --events writes it (strings pointing into j),
 * for a replay; -1 with the reason in err when it is not one. */
int event_read(const cJSON *j, struct mc_event *ev, char *err, size_t errsz);

/* exchange.c */
/* Send one envelope and write its answer. Returns MC_EXIT_OK,
 * MC_EXIT_INCOMPLETE (cut by the output limit), MC_EXIT_FAIL or
 * MC_EXIT_INTR; o holds what the answer was. */
int exchange(struct sender *sd, const struct envelope *env, const char *auth, struct out *o,
    int wake_fd);
/* The end of a whole answer, live or replayed: text mode's last newline;
 * MC_EXIT_INCOMPLETE, said, when it was cut by the output limit. */
int answer_end(struct out *o);

/* cache.c */
/* How answers are cached, from --cache or --refresh (opt), MC_CACHE and
 * cache.enabled; -1 after saying why when MC_CACHE is not 0 or 1. */
int cache_setup(struct sender *sd, enum caching opt);
/* The kept answer for env: 1 and its events in *events (checked; the
 * caller deletes them); 0 when there is none (or --refresh) and the live
 * answer is to be kept; -1 when answers are not cached: off, or no home
 * or no good cache_key (said once). A kept answer that is not one is
 * said and asked again. */
int cache_find(struct sender *sd, const struct envelope *env, cJSON **events);
/* Write a kept answer through the output of a live one. A status as
 * exchange's. */
int cache_replay(struct out *o, const cJSON *events);
/* After a live answer of this status, recorded: keep it when whole (done
 * with stop or tool_calls). A failure to keep it is a warning. */
void cache_keep(struct sender *sd, const struct envelope *env, struct out *o, int status);

#endif
