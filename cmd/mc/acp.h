/*
 * acp.h: mc acp's own state, shared by acp.c (the methods), acpwire.c
 * (the wire), acpupdate.c (the turn's events as session/update), acpin.c
 * (the client's servers and prompts as mc's) and acpfs.c (files through
 * the client). SPEC 23.
 */
#ifndef MC_ACP_H
#define MC_ACP_H

#include <pthread.h>
#include <stddef.h>

#include <cJSON.h>

#include "buf.h"

#define ACP_PROTOCOL 1		/* the protocol version spoken */
#define ACP_LINE_CAP (64u << 20)	/* one message */
/* The member a prompt waiting in the inbox gets when a session/cancel
 * for its session comes first (acpwire.c): no member of JSON-RPC's. */
#define ACP_CANCELLED "mc:cancelled"

/* JSON-RPC 2.0's error codes. */
#define RPC_PARSE (-32700)
#define RPC_INVALID (-32600)
#define RPC_METHOD (-32601)
#define RPC_PARAMS (-32602)
#define RPC_INTERNAL (-32603)

struct driver;

struct acp {
	struct driver *d;
	int in, out;		/* the protocol's stdin and stdout, of our own */
	pthread_t reader;	/* reads in: acpwire.c */
	pthread_t main;		/* the thread that runs the turns */
	int started;		/* the reader runs */
	/* Guarded by mu (writes to out too): */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	cJSON *inbox;		/* requests and notifications to handle, in order */
	cJSON *answers;		/* the client's responses to our requests */
	int eof;		/* in has ended (or failed) */
	int busy;		/* a turn runs: a cancel for running stops it */
	int cancelled;		/* the turn was cancelled (or in ended under it) */
	char running[64];	/* the session the turn runs in */
	long long next_id;	/* of our requests */
	/* What initialize said (the main thread's alone from here on): */
	int fs_read, fs_write;	/* the client's fs capabilities */
	int initialized;
	/* The sessions made or loaded here: the id the client knows each by
	 * to its file's now (a compaction goes on in a new file). */
	cJSON *known;
	cJSON *made;		/* the files made here */
	char current[64];	/* the id the client knows the session in use by */
	cJSON *calls;		/* this turn's calls: call_id -> {name, arguments} */
	char *last_error;	/* the turn's last error said, for the answer */
	struct mc_buf said;	/* the turn's answers' text, for a plan */
};

/* acpwire.c */
int acp_wire_start(struct acp *a);
void acp_wire_stop(struct acp *a);
void acp_send(struct acp *a, cJSON *msg);
void acp_reply(struct acp *a, const cJSON *id, cJSON *result);
void acp_error(struct acp *a, const cJSON *id, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void acp_notify(struct acp *a, const char *method, cJSON *params);
cJSON *acp_request(struct acp *a, const char *method, cJSON *params, int *cancelled,
    char *err, size_t errsz);
cJSON *acp_next(struct acp *a);
void acp_turn_begins(struct acp *a, const char *session);
int acp_turn_cancelled(struct acp *a);
void acp_turn_ends(struct acp *a);

/* acpupdate.c */
void acp_update(struct acp *a, cJSON *update);
void acp_event(struct driver *d, cJSON *ev);
int acp_asks(struct driver *d, const char *name, const cJSON *call, char **pre, size_t npre);
void acp_replay(struct acp *a);
void acp_mode_update(struct acp *a);
void acp_commands_update(struct acp *a);
void acp_plan_update(struct acp *a);

/* acpin.c */
int acp_servers_of(const cJSON *list, char **out, char *err, size_t errsz);
char *acp_message_of(const cJSON *prompt, cJSON **blocks, char *err, size_t errsz);

/* acpfs.c */
int acp_buffers(struct driver *d, const cJSON *call, char **path);
int acp_load(struct driver *d, const char *path, struct mc_buf *text, char **why);
int acp_save(struct driver *d, const char *path, const char *text, size_t n, char **why);

#endif
