/* mcp.h: mc-mcp's private interfaces: the servers (server.c), their JSON-RPC (rpc.c), tools and results (tools.c), serve (serve.c), remote servers (remote.c, http.c). */
#ifndef MC_MCP_H
#define MC_MCP_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include <cJSON.h>

#include "buf.h"
#include "settings.h"
#include "strset.h"

#define MCP_PROTOCOL "2025-11-25"
#define MCP_TIMEOUT 60		/* seconds a server has for each request, by default */
#define MCP_NAME_MAX 64		/* a tool's name as offered: SERVER__TOOL cut to this */
#define MCP_LINE_MAX (64u << 20)	/* longest JSON-RPC message or stdin line */
#define MCP_IGNORED 16		/* ids of cancelled requests whose late answers are dropped */

enum sv_state {
	SV_OFF,			/* not running: never started, or reaped */
	SV_INIT,		/* initialize sent */
	SV_LIST,		/* a page of a list asked for (tools, resources, ...) */
	SV_READY,		/* initialized, nothing asked */
	SV_CALL,		/* a tools/call (or resources/read, prompts/get) sent */
	SV_STOPPING,		/* being stopped; reaped next */
};

struct server {
	const char *name;	/* its key in mcp_servers */
	const cJSON *conf;	/* its settings object */
	unsigned timeout_s;
	int want_tools;		/* ask for tools/list once initialized */
	enum sv_state st;
	pid_t pid;		/* 0: none */
	int in, out, err;	/* our ends of its stdin, stdout, stderr; -1: closed */
	struct mc_buf wq;	/* bytes waiting to go to its stdin, from woff */
	size_t woff;
	int closing;		/* close its stdin once wq is written */
	struct mc_buf line;	/* its stdout since the last newline */
	struct mc_buf eline;	/* its stderr likewise */
	struct mc_buf last_err;	/* with -q: the last line it wrote there, for a failure */
	long long deadline;	/* ms: the request in flight times out, or the stop's next step */
	int stop_step;		/* 0: stdin closed, 1: SIGTERM sent, 2: SIGKILL sent */
	long id;		/* the request in flight (0: none) */
	long next_id;
	const char *method;	/* its method, for messages */
	long ignored[MCP_IGNORED];	/* cancelled requests, by id */
	size_t nignored;
	cJSON *tools;		/* what tools/list gave, an array */
	cJSON *resources, *templates, *prompts;	/* what the other lists gave */
	cJSON *caps;		/* the capabilities initialize gave */
	int listing;		/* which list is asked for (rpc.c's lists[]) */
	int tools_only;		/* a refresh: tools/list alone */
	int list_changed;	/* notifications/tools/list_changed came */
	int relisted;		/* a refresh ended; the list is to be offered again */
	char *cursor;		/* the next page's */
	unsigned pages;
	int as_task;		/* the call in flight is a task's */
	char *task_id;		/* the task whose result it waits for, or NULL */
	long long call_deadline;	/* the call's, kept across its task's requests */
	cJSON *progress;	/* the last notifications/progress not yet passed on */
	struct mc_buf logs;	/* log lines that came during a call, for its caller */
	cJSON *answer;		/* a tools/call's response, holding "result" or "error" */
	int timed_out;		/* the tools/call was not answered in time */
	char *why;		/* why it failed, once said (NULL: it did not) */
	int said_status;	/* why still needs the exit status, said when reaped */
	int ok;			/* its tools were listed */
	int restarts;
};

/* A tool as offered, and where it comes from. */
struct toolref {
	char name[MCP_NAME_MAX + 1];
	struct server *sv;
	const char *tool;	/* its name on the server (inside sv->tools) */
	int read_only;		/* its annotations say readOnlyHint */
	int task;		/* it runs only as a task */
};

struct mcp {
	const struct mc_settings *s;
	struct server *sv;
	size_t n;
	cJSON *list;		/* the tools as mc-tool list writes them */
	struct toolref *refs;	/* one per element of list */
	size_t nrefs;
	struct mc_strset names;	/* the refs' names, each to its index */
	int progress_lines;	/* serve: progress and a call's log lines go out as lines */
};

/* The signals that reached us since they were last looked at; the
 * handlers (server.c) set them. */
extern volatile sig_atomic_t mcp_got_int, mcp_got_stop;

/* server.c: the processes */
void mcp_signals(void);
/* Start sv's command and send it initialize. Returns 0, or -1 (said). */
int mcp_start(struct mcp *m, struct server *sv);
/* One round of waiting: read and write what the servers have, act on
 * their messages, time-outs and exits. Waits at most ms (-1: until
 * something happens). Returns 1 when fd `in` (-1: none) can be read. */
int mcp_pump(struct mcp *m, int in, long long ms);
/* True while a server has a request in flight. */
int mcp_busy(const struct server *sv);
/* Stop sv: stdin closed and a grace to exit, else (or when !gentle at
 * once) SIGTERM, then SIGKILL to its whole process group. */
void mcp_stop(struct server *sv, int gentle);
/* Stop every server (one with a request in flight at once with SIGTERM)
 * and wait until all are reaped. */
void mcp_stop_all(struct mcp *m);
/* Say that sv failed ("server \"NAME\": " and the reason) and stop it.
 * With status set, the reason is said once it is reaped, after its exit
 * status. */
void mcp_fail(struct server *sv, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void mcp_free(struct mcp *m);

/* rpc.c: the conversation */
void mcp_send(struct server *sv, const char *method, cJSON *params);
void mcp_notify(struct server *sv, const char *method, cJSON *params);
void mcp_initialize(struct server *sv);
/* Act on one line of a server's stdout. */
void mcp_message(struct server *sv, char *line, size_t len);
/* Send tools/call (as a task when as_task); the answer lands in sv->answer. */
void mcp_call(struct server *sv, const char *tool, cJSON *args, int as_task);
/* Send another request whose answer the caller reads (resources/read,
 * prompts/get), as mcp_call does. */
void mcp_ask(struct server *sv, const char *method, cJSON *params);
/* Ask for the tools again (after notifications/tools/list_changed). */
void mcp_relist(struct server *sv);
/* Give up on the request in flight: notifications/cancelled, and its
 * answer is dropped when it comes. */
void mcp_cancel(struct server *sv, const char *reason);

/* tools.c: names, the list, results */
void mcp_tool_name(char out[MCP_NAME_MAX + 1], const char *server, const char *tool);
/* True when a tool named name may come from server sv. */
int mcp_names_server(const char *name, const char *server);
/* Build m->list and m->refs from the servers whose tools were listed. */
void mcp_build_list(struct mcp *m);
const struct toolref *mcp_find_tool(const struct mcp *m, const char *name);
/* The output the model reads for a tools/call answer, cut to MC_CLIP_MAX;
 * its image blocks (PNG, JPEG, GIF, WebP, at most MC_IMAGE_MAX together)
 * in *images, an object whose "image_data" (image.h) is for the driver to
 * pass on (NULL when none), each named in the text. */
char *mcp_answer_text(const cJSON *answer, cJSON **images);
/* Append sv's resources, templates and prompts to list, as entries
 * whose "type" is mcp_resource, mcp_template or mcp_prompt. */
void mcp_extras(const struct server *sv, cJSON *list);
/* The same for a resources/read or prompts/get answer. */
char *mcp_other_text(const struct server *sv, const cJSON *answer, const char *method);

/* main.c: shared by the commands */
/* Read a function_call from item: its arguments, or NULL with *out set
 * to the output to give the model. */
cJSON *mcp_call_args(const cJSON *item, char **out);
/* Write one function_call_output line, with the "image_data" of images
 * (mcp_answer_text's, or NULL). Returns 0 or -1 (errno). */
int mcp_write_output(const char *call_id, const char *text, const cJSON *images);
/* The output for a call that could not reach its tool; says why on stderr. */
char *mcp_unknown(const struct mcp *m, const char *name);
/* The output when sv failed or timed out during a call. */
char *mcp_failed_output(const struct server *sv);
/* Call tool on sv (a ready server) and wait for its answer, *out the
 * output. Returns -1 when SIGINT, SIGTERM or SIGHUP came first: the call
 * was cancelled and *out is not set. */
int mcp_run_call(struct mcp *m, struct server *sv, const char *tool, cJSON *args, int as_task,
    char **out, cJSON **images);
/* The same for another request (mcp_ask), *out the answer as text. */
int mcp_run_ask(struct mcp *m, struct server *sv, const char *method, cJSON *params, char **out);

/* remote.c: a server with a "url" */
/* The first line for mc-mcp bridge (the URL, the headers with their
 * ${NAME}s expanded); NULL with why (no secret in it) when it cannot be. */
char *mcp_remote_config(const struct server *sv, char *why, size_t whysz);

/* http.c: mc-mcp bridge, the HTTP transports */
int mcp_bridge(void);

/* serve.c */
int mcp_serve(struct mcp *m);

#endif
