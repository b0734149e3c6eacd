/*
 * mc.h: the driver's state and the files that share it.
 *
 *   main.c     the one-shot message, setting a run up, what kind of run
 *              this is
 *   options.c  the command line: usage, options, usage errors
 *   stages.c   the programs that build what the model sees: the prompt
 *              (mc-discover | mc-skills | mc-render) and the tool list
 *              (mc-tool list), started together
 *   request.c  the session-long mc-request --serve: the session's new
 *              lines in, an envelope out per step
 *   send.c     the session-long mc-send --serve: envelopes in, events out,
 *              one connection to the provider for the whole session
 *   turn.c     a turn: the user's message, then send, answer, tool calls
 *              and send again until the model is done
 *   calls.c    one tool call: judged (hooks, rules, approval, checkpoint),
 *              run by tools.c, its output kept; the guides of the paths
 *              it touched
 *   tools.c    the session's set of tools (mc-tool's, MCP's, subagents,
 *              tool_search): started, gathered, whose each is, a call run
 *              by its owner (mc-tool call for mc-tool's)
 *   toollist.c the session's tool list, as text and as JSON
 *   stage.c    what the children share: the -p and -m told, an exit judged
 *   mentions.c @SERVER:URI and @path in a message: the MCP resource, the
 *              file or the folder attached
 *   attach.c   images: mc -a, a tool's output (read, MCP): stored in
 *              $MC_HOME/blobs, referenced from the session's items
 *   approve.c  before write, edit, bash and MCP tools: the question, and
 *              the user's answer (on the terminal, or mc acp's)
 *   preview.c  what such a call will do, shown with the question: the
 *              command, a write's first lines, an edit's diff
 *   permissions.c the settings' approval rules (allow, ask, deny) and
 *              those answered "always for PREFIX", judging a call
 *   modes.c    default, accept-edits, plan and yes: --mode, /mode, /go;
 *              plan mode's tools and its prompt fragment
 *   hooks.c    the settings' hooks: before and after tool calls, when a
 *              session starts, when the model is done
 *   mcp.c      the MCP tools, resources and prompts, through one mc-mcp
 *              serve for the session
 *   lsp.c      post-edit diagnostics: the settings' language servers, told
 *              of each file written or edited, their errors in its output
 *   offered.c  the tools the model is offered: the session's list through
 *              each filter in turn, kept until the list or the model changes
 *   modeltools.c the per-model filter: models.ID.tools, tool_descriptions
 *   toolsearch.c past tools.defer_after tools, MCP tools wait for the
 *              tool_search tool to load them
 *   session.c  the session file: created, resumed, appended to; a new
 *              file to go on in (compaction's, a fork's)
 *   compact.c  long sessions: the conversation compacted by mc-compact
 *              into a new session file, before a request that would pass
 *              80% of the window, after an overflow, or by /compact
 *   repl.c     the interactive session: line editing, slash commands
 *   tab.c      Tab in the interactive prompt: @path completed
 *   commands.c custom commands: $MC_HOME/commands/ and .agents/commands/
 *   bang.c     !COMMAND: a command the user runs in the sandbox, its output
 *              added to the conversation
 *   show.c     what the driver itself writes on the terminal
 *   progress.c a status line while a tool call runs or MCP servers start
 *   nearmiss.c a one-word prompt that looks like a mistyped subcommand
 *   pager.c    long text (/prompt) through $PAGER on a terminal
 *   events.c   mc --json: the run as JSON Lines events on stdout
 *   sessions.c mc sessions: the sessions there are
 *   resume.c   mc -r: a session by its id or a prefix, or picked on the
 *              terminal
 *   recap.c    a resumed session's last exchange, before the first prompt
 *   export.c   mc sessions export: a session as a transcript or JSON
 *   modellist.c mc models: the provider's list of models
 *   title.c    session titles: the first prompt's first line, /title
 *   completion.c mc completion bash|zsh|fish: shell completion scripts
 *   subagents.c the subagents tool: its definition, a child's own
 *              limits, a call's tasks checked and their answers as its
 *              output (subagents.h: a call's tasks, shared by the three)
 *   subrun.c   the call's children, mc runs in parallel: started in
 *              their slots, their events read, cancelled, reaped
 *   subshow.c  their progress: a status line per child on the
 *              terminal, subagent events with --json
 *   slots.c    subagents.max_total: the tree's slots, flock'ed files
 *   workspace.c where the agent reads without asking (the working
 *              directory, --add-dir, $TMPDIR), and where a call reads
 *   checkpoint.c before a turn's first change, the working tree kept
 *              (a shadow git repository, or before-images); when it
 *              ends, what it changed (checkpoint.h: the files)
 *   rewind.c   /undo, /rewind and mc rewind: the turns listed; files and
 *              conversation put back to before one
 *   restore.c  the files the turns changed, put back, conflicts named
 *   acp.c      mc acp: the Agent Client Protocol's methods, a front end
 *              over the same turn path (acp.h: its own state)
 *   acpwire.c  mc acp's wire: JSON-RPC lines in and out, a reader thread,
 *              requests to the client and their answers
 *   acpupdate.c mc acp: the turn's events as session/update notifications,
 *              approvals as session/request_permission, a session replayed
 *   acpin.c    mc acp: the client's MCP servers and prompt blocks, as mc
 *              takes them
 *   acpfs.c    mc acp: read, write and edit through the client's
 *              fs/read_text_file and fs/write_text_file (mc-tool call
 *              --buffer-in, --buffer-out)
 */
#ifndef MC_DRIVER_H
#define MC_DRIVER_H

#include <histedit.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <termios.h>

#include <cJSON.h>

#include "buf.h"
#include "lines.h"
#include "pipeline.h"
#include "session.h"
#include "settings.h"
#include "strset.h"

#define STDIN_CAP (1u << 20)		/* piped input joined to a one-shot prompt */
#define PROMPT_CAP (8u << 20)		/* the assembled system prompt */
#define DOC_CAP (64u << 20)		/* a context document */
#define ENVELOPE_CAP (MC_SESSION_MAX + PROMPT_CAP)
#define EVENT_CAP (65u << 20)		/* one event line of mc-send */
#define MC_SUBAGENT_DEPTH 3		/* nested subagents below the top session */
#define MC_ALLOW_MAX 64			/* --allow options */
#define MC_ADD_DIR_MAX 64		/* --add-dir options */
#define MC_ATTACH_MAX 32		/* -a options */

/* What the command line, the environment and the settings say: fixed
 * for the run. */
struct conf {
	struct mc_settings set;
	char *cwd;
	const char *provider, *model, *agent, *session;
	const char *schema;	/* --schema FILE */
	cJSON *schema_doc;	/* what it holds, read before the run */
	const char *max_output;	/* --max-output-tokens N */
	const char *reasoning;	/* --reasoning LEVEL, or NULL */
	const char *attach[MC_ATTACH_MAX];	/* -a FILE: images for the first message */
	int nattach;
	const char *cache;	/* --cache or --refresh, passed on to mc-send; or NULL */
	int cont, dry, stats, yes, json, no_session, keep_going;
	int fork;		/* --fork: a resumed session goes on in a copy */
	int resume;		/* -r: resume.c finds the session (into session) */
	const char *resume_arg;	/* -r's ID or PREFIX, or NULL: pick one */
	long long max_steps;
	char **keys;		/* provider keys, out of our environment: mc-send's alone */
	/* A child run (subrun.c starts it): --subagent, ancestors first, --parent,
	 * --allow (what the parent may run without asking). */
	const char *subagent[MC_SUBAGENT_DEPTH];
	int depth;		/* how many --subagent: 0 in a top session */
	const char *parent;
	const char *allow[MC_ALLOW_MAX];	/* tool names */
	int nallow;
	/* workspace.c: --add-dir, canonical; every directory read without
	 * asking (the working directory, --add-dir, tools.add_dirs, $TMPDIR) */
	char *add_dir[MC_ADD_DIR_MAX];
	int nadd_dir;
	char **roots;
	size_t nroots;
	/* slots.c: the subagent tree's slots (--slots DIR), this child's
	 * own (--slot-fd N), or NULL and -1 */
	const char *slots;
	int slot_fd;
};

/* Tokens, as the provider counts them: cached (read from its prompt
 * cache) and written (into it) ones are part of input. */
struct usage {
	long long input, output, cached, written;
};

/* The session: what the model has been told. */
struct ses {
	struct mc_session file;	/* the items in file.lines; fd -1 until written */
	int open;		/* file is this session's (on disk, or in memory only) */
	char *provider, *model;	/* NULL: left to the stages' defaults */
	int tell_provider;	/* passed to the stages as -p (else they find it */
	int tell_model;		/* themselves, where the driver did), -m */
	cJSON *recorded;	/* {"provider","model"} the file names last:
				 * its header or a model line */
	struct mc_buf prompt;	/* the system prompt, frozen for the session */
	struct mc_buf tools;	/* the tool definitions (a JSON array), or empty */
	char **guides;		/* the guides injected */
	size_t nguides;
	cJSON *always;		/* tools the user allowed for the session */
	cJSON *never;		/* tools the user refused for the session (mc acp) */
	char *title;		/* title.c: the session's title, or the one its
				 * header will have; NULL: none yet */
	int untitled;		/* title.c: begun by a !COMMAND with no title: the
				 * first message gives it one, in a title line */
	struct usage used;	/* the session's, resumed lines included */
	struct usage run;	/* this run's */
	int made;		/* the file was made at the start of this run (--json) */
	unsigned gen;		/* counts the session files taken up: a new one is
				 * given to mc-request whole */
	long long steps;	/* requests this run */
	long long replayed;	/* of them, answered from mc-send's cache */
	unsigned refused;	/* guarded tools whose one-shot refusal was said */
	struct {		/* compact.c's */
		size_t futile;	/* items when there was nothing to compact */
		int stuck;	/* compacted, still past the threshold: no more */
		int overflowed;	/* the last answer was a context-overflow error */
		long long told;	/* its count of the request's tokens (0: none) */
		size_t seen;	/* the lines looked at for usage so far */
		size_t usage_end;	/* where the last usage line ends (0: none) */
		long long usage;	/* its tokens */
	} cmp;
};

/* The terminal. */
struct term {
	EditLine *el;		/* the interactive session's line editor, or NULL */
	struct termios tio;	/* the terminal as the session found it */
	int tio_ok;
	int out;		/* stdout is a terminal: model text is filtered */
	int gone;		/* stdout's reader went away: the run stops (quietly, 0) */
	int color;
	int more;		/* reading a continuation line */
};

/* The session-long mc-request --serve, and what it has been given. */
struct builder {
	pid_t pid;		/* 0: not running */
	int wr;			/* its stdin: the session's lines, and its own */
	int env;		/* its stdout: the envelopes */
	struct mc_lines out;	/* its status: a line per request */
	struct mc_buf args;	/* the arguments it runs with, NUL-separated */
	unsigned gen;		/* the session it has (ses.gen) */
	size_t fed;		/* the bytes of the session's lines it has */
	struct mc_buf prompt, tools;	/* the system prompt and tools it has */
	int told;		/* prompt and tools given once */
	int answered;		/* it has given an envelope since it started */
	int preloading;		/* given a resumed session's lines as they are read */
	const char *from;	/* where the lines read, not yet written, begin */
	size_t pending;		/* how many bytes they are */
	unsigned starts;	/* how often it was started this run */
};

/* The session-long mc-send. */
struct sender {
	pid_t pid;		/* 0: not running */
	int wr;			/* its stdin */
	struct mc_lines out;	/* its stdout, events one per line */
};

/* The session-long mc-mcp, when MCP servers are configured. */
struct mcp {
	pid_t pid;		/* 0: not running */
	int wr;			/* its stdin: calls */
	struct mc_lines out;	/* its stdout: the tool list, then outputs */
	int listed;		/* its tools are in the session's list */
	struct mc_strset names;	/* its tools' names, each to its server's
				 * index in servers */
	char **servers;		/* the server of each tool, or NULL */
	struct mc_strset read_only;	/* its tools that say readOnlyHint */
	size_t at;		/* where its tools begin in the session's list */
	cJSON *extras;		/* its servers' resources and prompts (mc-mcp's
				 * mcp_resource, mcp_template, mcp_prompt entries) */
	int status;		/* a progress line is on the terminal */
	char *more;		/* servers beside the settings' (mc acp: the
				 * editor's), a JSON object as mcp_servers holds
				 * them, for mc-mcp serve --servers; or NULL */
};

/* `mc-tool sandbox`, asked once a session. */
struct sandbox {
	int asked, running;
	struct mc_filter f;
	struct mc_buf out;
};

/* subagents.c: the profiles of this run's children, and its own. */
struct subagents {
	cJSON *tool;		/* the subagents tool's definition when offered, or NULL */
	cJSON *disabled;	/* tools this child's profiles disable (keys), or NULL */
	char *slots;		/* slots.c: the slots' directory this run made, or NULL */
	int slots_failed;	/* there are no slots to take: said once */
};

/* modes.c: the session's mode (SPEC 22). */
enum mode { MODE_DEFAULT, MODE_ACCEPT_EDITS, MODE_PLAN, MODE_YES };
struct modes {
	enum mode now;
	enum mode before;	/* plan's: the mode /go goes back to */
	struct mc_buf plan;	/* the plan fragment, rendered once */
};
struct checkpoints;	/* checkpoint.c's own */
/* offered.c: the tools offered, and what they were made from. */
struct offer {
	int made;
	int same;		/* no filter changed the list: it is d->s.tools */
	unsigned gen;		/* search.gen */
	int plan;		/* made for plan mode */
	struct mc_buf from;	/* the session's list */
	char *model;		/* the model */
	struct mc_buf list;	/* the list offered (a JSON array) */
};

struct driver;
#define FRONT_IN 1
#define FRONT_OUT 2
/*
 * A front end other than the terminal (mc acp): told of the turn path's
 * events, asked for approvals, offered the file tools' calls. NULL on a
 * terminal and with --json.
 */
struct front {
	/* events.c: each --json event, taken */
	void (*event)(struct driver *d, cJSON *ev);
	/* approve.c: the user's answer to a call (1 yes, 0 no, 2 always,
	 * 3 always for the prefixes pre, 4 never this session, -1
	 * interrupted) */
	int (*asks)(struct driver *d, const char *name, const cJSON *call, char **pre,
	    size_t npre);
	/* tools.c: what of a read, write or edit call goes through the
	 * editor's buffers (FRONT_IN: the file's text is the editor's;
	 * FRONT_OUT: the new text is the editor's to keep), or 0; *path the
	 * file's absolute path (malloc'ed) when not 0 */
	int (*buffers)(struct driver *d, const cJSON *call, char **path);
	/* the editor's text of path, or the editor's keeping text: 0, or
	 * -1 with *why the call's output (malloc'ed) */
	int (*load)(struct driver *d, const char *path, struct mc_buf *text, char **why);
	int (*save)(struct driver *d, const char *path, const char *text, size_t n, char **why);
	void *arg;		/* the front end's own */
};

struct driver {
	struct conf c;
	struct front *front;	/* mc acp's, or NULL */
	struct hooks *hooks;	/* the settings' hooks, compiled: hooks.c's own */
	struct lsp *lsp;	/* lsp.c's: the language servers, once one is needed */
	struct ses s;
	struct term t;
	struct builder build;
	struct sender send;
	struct mcp mcp;
	struct sandbox sandbox;
	struct subagents sub;
	struct permissions *perms;	/* permissions.c's own */
	struct modes mode;
	struct offer offer;
	struct {		/* toolsearch.c's */
		int on;		/* past tools.defer_after: MCP tools wait */
		struct mc_strset loaded;	/* the tools tool_search loaded, each its order */
		cJSON *unsaved;	/* those loaded since the session's last tools_loaded line */
		unsigned gen;	/* counts the searches that loaded any */
	} search;
	struct { int session, done; } ev;	/* events.c: --json's first and last events said */
	struct checkpoints *cp;	/* checkpoint.c: this turn's checkpoint, or NULL */
	struct mc_buf thought;	/* thought.c: the last answer's reasoning, for /reasoning */
	cJSON *attached;	/* attach.c: image references for the next user message */
	cJSON *context;		/* the front end's context blocks for the next
				 * message ({file, content}, as mentions.c's),
				 * taken by turn.c; or NULL */
};

/* Set by SIGINT, SIGTERM and SIGHUP: the work in flight stops; for the
 * last two, terminated holds the signal and the session ends; --timeout
 * (SIGALRM) sets timed_out too. */
extern volatile sig_atomic_t interrupted, terminated, timed_out;


/* stages.c */
int stages_prompt(struct driver *d, int stats, int keep_going, int out_fd, struct mc_buf *out);
cJSON *stages_context(struct driver *d);
int stages_launch(struct driver *d);
cJSON *stages_guides(char **paths, size_t n);
void sandbox_ask(struct driver *d);
void sandbox_told(struct driver *d);
/* mentions.c: @SERVER:URI (an MCP resource) and @path (a file, a folder) attached */
int mention_starts(const char *text, const char *at);
int mentions_read(struct driver *d, const char *text, cJSON **blocks);
int mentions_attach(struct driver *d, cJSON *blocks);

/*
 * attach.c: images into the conversation (SPEC 21). Each is checked (a
 * PNG, JPEG, GIF or WebP by its magic bytes, at most MC_IMAGE_MAX),
 * stored once in $MC_HOME/blobs by its SHA-256, and its reference
 * queued for the next user message, which turn() takes (attach_put).
 * attach_image_file reads path (a symbolic link is followed: the user
 * named it); attach_image_bytes takes n bytes the caller has (an ACP
 * prompt's image block, a mention), media_type the type they claim or
 * NULL, name what to call it. 0, or -1 with a one-line reason naming
 * the file in err; nothing is queued then.
 */
int attach_image_file(struct driver *d, const char *path, char *err, size_t errsz);
int attach_image_bytes(struct driver *d, const void *data, size_t n, const char *media_type,
    const char *name, char *err, size_t errsz);
/* mc -a FILE ...: each attached, after the model is known (an image for
 * a model whose models.ID.images is false is an error): 0, or -1 after
 * saying why, nothing sent. */
int attach_files(struct driver *d);
/* Whether the session's model is known not to take images
 * (models.ID.images false): 1 after saying so of HOW WHAT ("-a" and a
 * file, "@" and a mention), else 0. Checked before an image is attached
 * from the user's line: then nothing is sent. */
int attach_refused(const struct driver *d, const char *how, const char *what);
/* The queued images into the user message msg ("images"), each shown
 * as a line on a terminal and an image event with --json. */
void attach_put(struct driver *d, cJSON *msg);
/* A tool's output item (mc-tool read, mc-mcp) with "image_data":
 * [{"data":BASE64,"media_type","name"}]: each stored and referenced
 * ("images") instead; one that will not do is a line in its output. */
void attach_output(struct driver *d, cJSON *item);
/* A line for an image reference: "[image NAME, TYPE, N bytes]", on
 * stderr when it is a terminal. */
void attach_show(const struct driver *d, const cJSON *ref);
void attach_forget(struct driver *d);

/* stage.c */
int stage_ok(const char *name, int status);
int told_args(const struct driver *d, char **argv);

/* toollist.c: the session's tool list as JSON, and back */
cJSON *tools_get(struct driver *d);
void tools_put(struct driver *d, cJSON *all);

/* tools.c: the session's set of tools, whose each is, a call run by its owner */
enum owner { OWN_TOOL, OWN_MCP, OWN_SUBAGENTS, OWN_SEARCH };
int tools_start(struct driver *d);
int tools_gather(struct driver *d);
enum owner tool_owner(const struct driver *d, const char *name, const cJSON *call);
cJSON *tools_run(struct driver *d, const cJSON *call, struct mc_buf *touched);
int stages_stats(struct driver *d, const char *doc, struct mc_buf *out);

/* request.c */
int build_start(struct driver *d);
int build_request(struct driver *d, size_t *len);
int build_pass(struct driver *d, int fd, size_t len);
void build_stop(struct driver *d);
void build_preload(struct driver *d, const cJSON *header, const char *line, size_t len);

/* send.c */
int send_start(struct driver *d);
int send_envelope(struct driver *d, size_t n);
cJSON *send_event(struct driver *d);
void send_stop(struct driver *d, int kill_it);

/* mcp.c */
int mcp_start(struct driver *d);
int mcp_tools(struct driver *d);
int mcp_has(const struct driver *d, const char *name);
int mcp_guarded(const struct driver *d, const char *name);
const char *mcp_server_of(const struct driver *d, const char *name);
int mcp_read_only(const struct driver *d, const char *name);
cJSON *mcp_call(struct driver *d, const cJSON *call);
void mcp_stop(struct driver *d);
int mcp_restart(struct driver *d);
void mcp_forget(struct driver *d);
int mcp_routes(const struct driver *d, const char *name, const cJSON *call);
void mcp_sync(struct driver *d);
int mcp_prompt(struct driver *d, const char *line, char **text);
void mcp_help(const struct driver *d);

/* title.c */
char *title_of(const char *text);
void title_recall(struct driver *d, const cJSON *item);
cJSON *title_line(const char *t);
cJSON *title_first(struct driver *d, const char *text);
cJSON *title_header(const struct driver *d, cJSON *more);
void title_forget(struct driver *d);

/* modellist.c */
int models_list(struct driver *d);

/* tab.c */
unsigned char tab_complete(EditLine *el, int ch);

/* bang.c */
void bang_run(struct driver *d, const char *line);

/* commands.c */
int commands_word(const char *w);
int commands_build(const struct driver *d, const char *line, char **text, char **model,
    char *err, size_t errsz);
int commands_slash(struct driver *d, const char *line, char **send);
cJSON *commands_list(const struct driver *d);
void commands_help(const struct driver *d);
int commands_one_shot(struct driver *d, int *argc, char ***argv);
void commands_free(void);

/* lsp.c */
void lsp_after_edit(struct driver *d, const cJSON *call, cJSON *item);
void lsp_stop(struct driver *d);

/* offered.c */
const struct mc_buf *tools_offered(struct driver *d);
void tools_offered_free(struct driver *d);

/* toolsearch.c */
void toolsearch_filter(struct driver *d, cJSON *all);
int toolsearch_has(const struct driver *d, const char *name);
char *toolsearch_call(struct driver *d, const cJSON *call);
void toolsearch_forget(struct driver *d);
void toolsearch_used(struct driver *d, const char *name);
cJSON *toolsearch_line(struct driver *d);
void toolsearch_recall(struct driver *d, const cJSON *item);
cJSON *toolsearch_header(const struct driver *d, cJSON *more);

/* modeltools.c */
int model_tools_active(const struct driver *d);
int model_tool_refused(const struct driver *d, const char *name);
void model_tools_filter(const struct driver *d, cJSON *all, int warn);
void mcp_show(const struct driver *d, struct mc_buf *out);

/* turn.c: how a turn ended (the done event's reason) */
enum outcome { OUT_STOP, OUT_MAX_STEPS, OUT_LENGTH, OUT_REFUSAL, OUT_ERROR, OUT_CANCELLED,
	OUT_TIMEOUT };
enum outcome turn(struct driver *d, const char *text);
int outcome_status(enum outcome o);

/* hooks.c */
int hooks_load(struct driver *d);
void hooks_free(struct driver *d);
int hooks_pre_tool(struct driver *d, const cJSON *call, char **denial);
void hooks_post_tool(struct driver *d, const cJSON *call, cJSON *item);
int hooks_session_start(struct driver *d);
int hooks_stop(struct driver *d, enum outcome *o);
int hooks_after_assistant(struct driver *d, const char *text);
int hooks_after_reasoning(struct driver *d, const char *text);
const char *hooks_fatal(const struct driver *d);
void hooks_show(const struct driver *d, struct mc_buf *out);

/* events.c */
cJSON *ev_new(const char *type);
void ev_emit(struct driver *d, cJSON *ev);
void ev_session(struct driver *d);
void ev_done(struct driver *d, enum outcome o);
void ev_json_mode(struct driver *d);
void ev_stage_failed(const char *name, int status);
cJSON *ev_usage(const struct usage *u);
struct usage usage_of(const cJSON *o);
void usage_put(cJSON *o, const struct usage *u);
void usage_add(struct usage *to, const struct usage *u);

/* sessions.c: the sessions of this directory (all: of every one), newest
 * first, and how one is shown */
int sessions_of(const struct driver *d, int all, struct mc_session_info **v, size_t *n);
void session_when(const struct mc_session_info *in, char *buf, size_t size);
void session_name(const struct mc_session_info *in, char *buf, size_t size);
int sessions_list(struct driver *d, int all);

/* resume.c: mc -r: the session named by an id or a prefix of one, of
 * any directory, or picked on the terminal from this directory's: -1
 * with *id (malloc'ed), else the exit status after saying why (an
 * ambiguous or unknown prefix MC_EXIT_USAGE, the matches listed; none
 * picked MC_EXIT_OK, Ctrl-C MC_EXIT_INTR) */
int session_find(const char *home, const char *word, char **id);
int session_pick(struct driver *d, char **id);

/* recap.c: a resumed session's last exchange, before the first prompt */
void recap(const struct driver *d, FILE *ui);

/* export.c: mc sessions export ID [--markdown | --json] */
int export_main(int argc, char *argv[]);

/* calls.c */
int call_run(struct driver *d, const cJSON *call, struct mc_buf *touched);
/* The output of a call the driver writes (refused, interrupted, failed)
 * into the session: 0, or -1 when the session could not take it. */
int call_output(struct driver *d, const cJSON *call, const char *output);
void guides_inject(struct driver *d, struct mc_buf *touched);

/* permissions.c */
enum verdict { V_NONE, V_ALLOW, V_ASK, V_DENY };
int perms_load(struct driver *d);
void perms_free(struct driver *d);
void perms_forget(struct driver *d);
/* What the rules say of a call; *rule names the rules that decided (a
 * string perms keeps until the next call), *must_ask why a bash command
 * must be asked about whatever the prefix and exact rules say, or NULL. */
enum verdict perms_judge(struct driver *d, const char *name, const cJSON *call, const char **rule,
    const char **must_ask);
const char *perms_where(const struct driver *d);
char **perms_prefixes(struct driver *d, const cJSON *call, size_t *n);
void perms_allow_prefix(struct driver *d, const char *prefix);

/* modes.c */
int mode_parse(const char *s);
const char *mode_name(enum mode m);
int mode_init(struct driver *d, const char *opt);
void mode_free(struct driver *d);
void mode_set(struct driver *d, enum mode m);
int plan_offers(const struct driver *d, const char *name);
cJSON *plan_filter(const struct driver *d, cJSON *tools);
int mode_turn(struct driver *d, cJSON **m);
void mode_slash(struct driver *d, const char *arg);
char *mode_go(struct driver *d, const char *arg);

/* options.c: the command line, read by options_parse into the driver's
 * configuration and this; -1 to go on, or the exit status. */
struct cmdline {
	int prompt_cmd;		/* `mc prompt` */
	int sessions_cmd;	/* `mc sessions` (and `mc models`) */
	int models_cmd;		/* `mc models` */
	int acp_cmd;		/* `mc acp` */
	int custom;		/* `mc /NAME ARGS`: a custom command */
	int steps_set;		/* --max-steps given */
	int all;		/* --all */
	const char *timeout_opt, *mode_opt;
	long long timeout;	/* --timeout or MC_TIMEOUT: seconds; 0 none */
	int argc;		/* the operands */
	char **argv;
};
int options_parse(struct driver *d, struct cmdline *cl, int argc, char *argv[]);
/* The options' table (getopt_long's), ending with a NULL name. */
struct option;
const struct option *options_table(void);

/* approve.c: the kinds of call that ask first (the first three by name) */
enum guard { GUARD_WRITE, GUARD_EDIT, GUARD_BASH, GUARD_MCP, GUARD_READ, GUARD_RULE };
int approve(struct driver *d, const char *name, const cJSON *call, char **why,
    const char **by, const char **rule);

/* checkpoint.c: SPEC 22. Before a call that may change the working
 * tree: 0 to run it (checkpointed, or going on without, agreed); -1 not,
 * with *why its output (malloc'ed); interrupted, when the checkpoint
 * was. */
int checkpoint_before(struct driver *d, const char *name, const cJSON *call, char **why);
/* When a turn ends: what its calls changed, into the log. */
void checkpoint_after(struct driver *d);
void checkpoint_free(struct driver *d);

/* rewind.c: /undo ARGS, /rewind ARGS, and `mc rewind` (argv[0] "rewind") */
void rewind_undo(struct driver *d, const char *args);
void rewind_command(struct driver *d, const char *args);
int rewind_main(int argc, char *argv[]);
/* completion.c */
int completion_main(int argc, char *argv[]);

/* workspace.c */
int workspace_add(struct conf *c, const char *dir);
void workspace_init(struct conf *c);
void workspace_free(struct conf *c);
void workspace_moved(struct conf *c);
char *workspace_outside(const struct conf *c, const char *name, const cJSON *call);
int workspace_has(const struct conf *c, const char *canon);

/* session.c */
int session_begin(struct driver *d);
int session_resume(struct driver *d);
int session_add(struct driver *d, cJSON *item);
/* cached: the answer came from mc-send's cache: its line says so, and
 * its tokens are not counted as spent. */
void session_usage(struct driver *d, const struct usage *u, int cached);
void session_forget(struct driver *d);
int session_resolve(struct driver *d);
int session_resolve_quiet(struct driver *d);
void session_record(struct driver *d);
void session_switch(struct driver *d, struct mc_session *to);
/*
 * Go on in a new session file (compact.c's compacted one, a fork's copy)
 * holding len bytes of items: its header carries the old one's own
 * members (mc_session_more), key (compacted_from, forked_from) naming
 * it, the title, and more's members (NULL: none). The old file is left
 * as it was; the new one is written later, so that `mc -c` takes it. 0,
 * or -1 after saying why (the session goes on as it was).
 */
int session_branch(struct driver *d, const char *key, const cJSON *more, const char *items,
    size_t len);
/* /fork, --fork: the session goes on in a copy of its file with
 * "forked_from". 0, or -1 after saying why. */
int session_fork(struct driver *d);
void guide_remember(struct driver *d, const char *path, size_t n);
int guide_known(const struct driver *d, const char *path);
/* The guides known: those the session's header and lines hold, no
 * others (after rewind.c's fork left later ones out). */
void session_guides_again(struct driver *d);
/* A user message <Context File=FILE>CONTENT</Context> into the session. */
int context_add(struct driver *d, const char *file, const char *content);

/* slots.c */
int slots_usage(const struct conf *c);
int slot_take(struct driver *d);
void slots_remove(struct driver *d);

/* subagents.c */
int subagents_prepare(struct driver *d);
int subagents_tools(struct driver *d);
int subagents_blocked(const struct driver *d, const char *name);
int subagents_has(const struct driver *d, const char *name);
char *subagents_call(struct driver *d, const cJSON *call);
void subagents_free(struct driver *d);

/* compact.c: SPEC 12 */
enum compact_why { COMPACT_THRESHOLD, COMPACT_OVERFLOW, COMPACT_HAND };
/* The tokens the next request carries: the last usage line plus a token
 * per 4 bytes after it; without one, the estimate of everything. */
long long compact_estimate(struct driver *d);
/* Compact the session with mc-compact (focus may be NULL) and go on in
 * the new session file; pending, when not NULL, is a message not yet in
 * the session, compacted as its last item (it is then in the new file,
 * and the old file is left as it was). 1 compacted, 0 nothing to compact,
 * -1 failed (said why; the session is as it was, pending not in it). */
int compact_run(struct driver *d, enum compact_why why, const char *focus,
    const cJSON *pending);
/* Before a request: compact past 80% of a known window, counting
 * pending (the user message the request will add, or NULL). 1 when it
 * was compacted (pending is in the new file), 0 to send as it is (pending
 * is the caller's to add), -1 when compaction failed (nothing is to be
 * sent; pending not added). */
int compact_due(struct driver *d, const cJSON *pending);
/* An error event of mc-send: whether it says the request did not fit. */
void compact_seen_error(struct driver *d, const cJSON *ev);
/* After a failed request: when it did not fit, compact once. True when
 * the request is to be sent once more. */
int compact_overflowed(struct driver *d);

/* repl.c */
int interactive(struct driver *d);

/* acp.c: mc acp, the Agent Client Protocol on stdin and stdout */
int acp_main(struct driver *d);

/* progress.c: a status line on stderr (a terminal), redrawn by
 * progress_tick, cleared by progress_end. */
struct progress {
	const struct driver *d;
	const char *what;
	int fd;			/* output to show the last line of, or -1 */
	int on, shown;
	long long start;
	struct mc_buf cur, last, drawn;
};
void progress_begin(struct progress *p, const struct driver *d, const char *what, int fd);
void progress_tick(void *arg);
void progress_end(struct progress *p);

/* preview.c: what a call of kind tool (enum guard) will do, as rows of
 * width columns into out; where is the path a read outside reads */
void preview(const struct driver *d, struct mc_buf *out, int width, int tool, const char *where,
    const char *name, const cJSON *call);

/* pager.c */
void page(struct driver *d, const char *p, size_t n);

/* nearmiss.c */
void near_miss(const char *word);

/* thought.c: the model's reasoning on a terminal */
struct fold {
	struct mc_buf line;	/* the reasoning's last line so far */
	struct mc_buf row;	/* what was drawn */
	int shown;		/* a fold is on the screen */
	int ended;		/* the line shown was ended by a newline */
	int over;		/* the answer has begun: no more folds */
};
/* A piece of reasoning: on a terminal (not --json), the fold redrawn,
 * dim, as the reasoning's last line, until the answer begins. */
void fold_add(struct driver *d, struct fold *f, const char *delta);
/* The answer begins (or ends): the fold is cleared, not drawn again. */
void fold_clear(struct driver *d, struct fold *f);
void fold_free(struct fold *f);
/* The answer's reasoning, whole, kept for /reasoning (NULL: none). */
void reasoning_keep(struct driver *d, const char *text, size_t n);
/* /reasoning: the last answer's reasoning, whole, dim. */
void reasoning_slash(struct driver *d);
/* An error event: a note naming the reasoning setting the provider refused. */
void reasoning_refused(const struct driver *d, const cJSON *ev);

/* show.c */
int show(const struct driver *d, const char *p, size_t n);
void note(const struct driver *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void announce(const struct driver *d, const char *name, const cJSON *call);
void usage_line(const struct driver *d, const struct usage *u);
void cached_line(const struct driver *d);
int term_width(int fd);
/* One line of text as one row of width columns: its end, for a fold. */
void show_fold(struct mc_buf *out, const char *s, size_t n, int width);
void show_rows(const struct driver *d, struct mc_buf *out, const char *gutter, const char *cont,
    const char *s, size_t n, int width);
void show_words(const struct driver *d, struct mc_buf *out, const char *gutter, const char *cont,
    const char *s, size_t n, int width);
void show_cut(const struct driver *d, struct mc_buf *out, const char *gutter, const char *cont,
    const char *s, size_t n, int width, size_t cap);

#endif
