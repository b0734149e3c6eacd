/* mc-send.h: mc-send's parts: the envelope, the output of one answer, the exchange with its retries. */
#ifndef MC_SEND_H
#define MC_SEND_H

#include <signal.h>
#include <stdio.h>
#include <time.h>

#include <cJSON.h>

#include "buf.h"
#include "http.h"
#include "settings.h"
#include "sse.h"

#define MC_EXIT_INCOMPLETE 3	/* the answer was cut by the output limit */

enum mode { TEXT, EVENTS, ITEMS };

/* What the whole run shares: options, settings, the connection. */
struct sender {
	enum mode mode;
	int serve;		/* --serve: one envelope per line */
	const char *items_out;	/* --items-out FILE */
	long connect, idle;	/* --connect-timeout, --idle-timeout; 0: from settings */
	long retries, maxwait, base_ms;
	struct mc_settings settings;
	int have_settings;
	struct mc_http *http;
	int tty;		/* stderr is a terminal: the spinner */
	int broken;		/* stdout failed: the errno (EPIPE: stop quietly) */
};

/* envelope.c */
struct envelope {
	const char *provider, *url, *key_env;
	int key_optional;	/* api_key_optional: no key when the variable is unset */
	enum mc_api api;
	cJSON *body;
	int stream;
};
/* Check doc as a request envelope; -1 with "FIELD: why" in err. */
int envelope_read(cJSON *doc, struct envelope *e, char *err, size_t errsz);
/* The "Authorization: Bearer KEY" header for e (malloc'ed; NULL with no
 * key); -1 with the reason in err when the key is needed and missing. */
int envelope_auth(const struct envelope *e, char **auth, char *err, size_t errsz);

/* The state of one answer: what was written and what it held. */
struct out {
	struct sender *sd;
	const char *provider;
	const char *key;	/* to keep out of messages */
	struct mc_stream *stream;
	struct mc_buf text;	/* the answer's text, when items are wanted */
	struct mc_buf refusal;	/* its refusal, likewise */
	cJSON *calls;		/* function_call items */
	int want_items;
	int wrote;		/* any byte of this answer written to stdout */
	int last_nl;		/* the text written so far ends in a newline */
	int done;
	char finish[64];	/* the done event's finish_reason */
	/* the error, when there is one */
	int failed, status, local;
	char msg[2400], code[128];	/* room for a whole attempt error line */
	/* the spinner */
	int spin_on, spin_frame;
	struct timespec spin_last;
};

/* output.c */
extern volatile sig_atomic_t got_sigint;
void out_init(struct out *o, struct sender *sd, const char *provider, const char *key);
void out_free(struct out *o);
void spin_clear(struct out *o);
void spin_tick(void *arg);
int out_check(struct sender *sd);
int on_event(const struct mc_event *ev, void *arg);
void set_error(struct out *o, const char *msg, const char *code, int status, int local);
/* An error event {"type":"error","message":...} (events modes). */
void put_error(struct sender *sd, const char *msg, const char *code, int status);
void report(struct out *o);
/* The answer's assistant message item (its text, its refusal, marked
 * incomplete when the answer was cut), or NULL when it had neither; the
 * text moves into it. */
cJSON *answer_message(struct out *o, int whole);
/* Write the new items: msg and, for a whole answer, its function_calls. */
int write_items(struct out *o, const cJSON *msg, FILE *fp, int whole);

/* exchange.c */
/* Send one envelope and write its answer. Returns MC_EXIT_OK,
 * MC_EXIT_INCOMPLETE (cut by the output limit), MC_EXIT_FAIL or
 * MC_EXIT_INTR; o holds what the answer was. */
int exchange(struct sender *sd, const struct envelope *env, const char *auth, struct out *o,
    int wake_fd);

#endif
