/*
 * tools.c: the session's set of tools: mc-tool's, the MCP servers'
 * (mcp.c), the subagents tool (subagents.c) and tool_search
 * (toolsearch.c). It starts and gathers them for a session, tells whose
 * a tool is, and has a call run by its owner. The files below it keep
 * the list through toollist.c and never call back up; calls.c above it
 * decides whether a call runs and records what it gave.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "fsread.h"
#include "image.h"
#include "items.h"
#include "json.h"
#include "mc.h"
#include "pipeline.h"

/* mc-tool's item: a 64 KiB output, escaped, and a read image's base64 */
#define TOOL_OUTPUT_CAP ((4u << 20) + MC_IMAGE_B64_MAX)
#define TOUCHED_CAP (1u << 20)

/* mc-tool's --buffer-in (a feed of the text) and --buffer-out (a memory
 * file, keep, read back after the call; -1 when none). */
struct tool_io {
	struct mc_feed in, out;
	int has_in, keep;
};

/* A session's tools that take starting: the MCP servers' mc-mcp, and
 * the subagent profiles read. 0, or -1 after saying why. */
int
tools_start(struct driver *d)
{
	return mcp_start(d) == -1 || subagents_prepare(d) == -1 ? -1 : 0;
}

/* Into the session's list, after mc-tool's: the MCP servers' tools, then
 * the subagents tool. 0, or -1 after saying why. */
int
tools_gather(struct driver *d)
{
	return mcp_tools(d) == -1 || subagents_tools(d) == -1 ? -1 : 0;
}

/* Whose tool name is; call (or NULL) tells a read of an mcp:// path,
 * which is the MCP servers'. */
enum owner
tool_owner(const struct driver *d, const char *name, const cJSON *call)
{
	if (subagents_has(d, name))
		return OWN_SUBAGENTS;
	if (toolsearch_has(d, name))
		return OWN_SEARCH;
	if (call != NULL ? mcp_routes(d, name, call) : mcp_has(d, name))
		return OWN_MCP;
	return OWN_TOOL;
}

/*
 * Run call through `mc-tool call`: its output item, or NULL. The paths
 * it touched come back through a pipe named to it as --touched-out
 * /dev/fd/N, and are added to touched; what a bash command prints comes
 * as it is printed through another, --progress-out, for the status line
 * (progress.c) on a terminal.
 */
static cJSON *
tool_call(struct driver *d, const cJSON *call, struct mc_buf *touched, struct tool_io *io, int *st)
{
	char *argv[12] = { "mc-tool", "-q", "call", "--touched-out", NULL, "--progress-out", NULL },
	    path[24], ppath[24], ipath[24], opath[24], err[256];
	const char *name = mc_json_str(call, "name");
	struct mc_buf out = {0}, in = {0};
	struct mc_feed back[4] = { { .wr = -1 }, { .wr = -1 } };
	int a = 7, nb = 2;
	struct progress pr;
	struct mc_filter f = { .collect = &out, .cap = TOOL_OUTPUT_CAP, .stop = &interrupted,
	    .feeds = back, .tick = progress_tick, .tick_ms = 200, .arg = &pr };
	int fds[2], pfds[2];
	cJSON *item = NULL;
	char *text;

	if (pipe2(fds, O_CLOEXEC) == -1) {
		mc_err("pipe: %s", strerror(errno));
		return NULL;
	}
	if (pipe2(pfds, O_CLOEXEC | O_NONBLOCK) == -1) {
		mc_err("pipe: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	/* Feeds with no data: only their descriptors, the write ends, go to
	 * mc-tool; the read ends stay here. */
	back[0].fd = fds[1];
	snprintf(path, sizeof path, "/dev/fd/%d", fds[1]);
	argv[4] = path;
	back[1].fd = pfds[1];
	snprintf(ppath, sizeof ppath, "/dev/fd/%d", pfds[1]);
	argv[6] = ppath;
	/* The front end's buffers: its text in, the new text out. */
	if (io != NULL && io->has_in) {
		back[nb++] = io->in;
		snprintf(ipath, sizeof ipath, "/dev/fd/%d", io->in.fd);
		argv[a++] = "--buffer-in";
		argv[a++] = ipath;
	}
	if (io != NULL && io->keep != -1) {
		back[nb++] = io->out;
		snprintf(opath, sizeof opath, "/dev/fd/%d", io->out.fd);
		argv[a++] = "--buffer-out";
		argv[a++] = opath;
	}
	argv[a] = NULL;
	f.nfeeds = (size_t)nb;
	progress_begin(&pr, d, name ? name : "", pfds[0]);
	if ((text = cJSON_PrintUnformatted(call)) == NULL)
		mc_oom();
	mc_buf_adds(&in, text);
	mc_buf_addc(&in, '\n');
	free(text);
	f.in = in.data;
	f.inlen = in.len;
	if (mc_filter_run(argv, &f, st, err, sizeof err) == -1) {
		progress_end(&pr);
		mc_err("%s", err);
	} else {
		progress_end(&pr);
		/* mc-tool has ended: all it wrote is in the pipe. */
		fcntl(fds[0], F_SETFL, O_NONBLOCK);
		if (mc_fd_slurp(fds[0], TOUCHED_CAP, touched) == -1 && errno != EAGAIN)
			mc_warn("the paths mc-tool touched: %s", strerror(errno));
		/* An unknown or disabled tool is mc-tool's exit 1, with an
		 * output naming the tools there are: the model should read it.
		 * Interrupted by the user (not --timeout: its output would say
		 * "the user"), mc-tool exits 130 with what the call had printed. */
		if ((!interrupted && (stage_ok("mc-tool", *st) ||
		    (WIFEXITED(*st) && WEXITSTATUS(*st) == MC_EXIT_FAIL))) ||
		    (interrupted && !timed_out && WIFEXITED(*st) && WEXITSTATUS(*st) == MC_EXIT_INTR))
			item = mc_json_parse(out.data ? out.data : "", out.len, err, sizeof err);
	}
	close(fds[0]);
	close(pfds[0]);
	mc_buf_free(&in);
	mc_buf_free(&out);
	return item;
}

/* A feed of mc-tool's --buffer-out: a memory file it writes, read back
 * here. 0, or -1 after saying why. */
static int
buffer_file(struct mc_feed *f, int *keep)
{
	if ((*keep = memfd_create("mc-buffer", MFD_CLOEXEC)) == -1 ||
	    (f->fd = fcntl(*keep, F_DUPFD_CLOEXEC, 3)) == -1) {
		mc_err("a buffer: %s", strerror(errno));
		if (*keep != -1)
			close(*keep);
		*keep = -1;
		return -1;
	}
	f->wr = -1;
	return 0;
}

/*
 * An mc-tool call, its file through the front end's buffers where it
 * says so (mc acp: an editor's): the text read there given as
 * --buffer-in, the text written there taken from --buffer-out once the
 * call went through (its output is not an error).
 */
static cJSON *
buffered(struct driver *d, const cJSON *call, struct mc_buf *touched)
{
	const char *cid = mc_json_str(call, "call_id"), *out;
	struct tool_io io = { .keep = -1 };
	struct mc_buf text = {0};
	char *path = NULL, *why = NULL, err[256];
	cJSON *item = NULL;
	int via, st;

	via = d->front != NULL && d->front->buffers != NULL ? d->front->buffers(d, call, &path) : 0;
	if (via == 0)
		return tool_call(d, call, touched, NULL, &st);
	if ((via & FRONT_IN) && d->front->load(d, path, &text, &why) == -1)
		goto said;
	if (via & FRONT_IN) {
		if (mc_feed_open(&io.in, err, sizeof err) == -1) {
			mc_err("%s", err);
			goto done;
		}
		io.in.p = text.data ? text.data : "";
		io.in.n = text.len;
		io.has_in = 1;
	}
	if ((via & FRONT_OUT) && buffer_file(&io.out, &io.keep) == -1) {
		if (io.has_in) {
			close(io.in.fd);
			close(io.in.wr);
		}
		goto done;
	}
	item = tool_call(d, call, touched, &io, &st);
	out = mc_json_str(item, "output");
	if (item != NULL && (via & FRONT_OUT) && out != NULL && strncmp(out, "error:", 6) != 0) {
		text.len = 0;
		if (lseek(io.keep, 0, SEEK_SET) == -1 || mc_fd_slurp(io.keep, 64u << 20, &text) == -1) {
			mc_err("a buffer: %s", strerror(errno));
			cJSON_Delete(item);
			item = NULL;
		} else if (d->front->save(d, path, text.data ? text.data : "", text.len, &why) == -1) {
			cJSON_Delete(item);
			item = NULL;
			goto said;
		}
	}
	goto done;
said:
	item = mc_item_output(cid ? cid : "", why);
done:
	if (io.keep != -1)
		close(io.keep);
	free(why);
	free(path);
	mc_buf_free(&text);
	return item;
}

/*
 * Run call by its tool's owner: its function_call_output item, or NULL
 * when there is none to take (said, or interrupted). The paths mc-tool's
 * calls touch are added to touched.
 */
cJSON *
tools_run(struct driver *d, const cJSON *call, struct mc_buf *touched)
{
	const char *name = mc_json_str(call, "name"), *cid = mc_json_str(call, "call_id");
	char *text;
	cJSON *item;

	if (name == NULL)
		name = "";
	switch (tool_owner(d, name, call)) {
	case OWN_SUBAGENTS:	/* children run, their answers the output */
		text = subagents_call(d, call);
		break;
	case OWN_SEARCH:	/* deferred tools found and loaded */
		text = toolsearch_call(d, call);
		break;
	case OWN_MCP:
		toolsearch_used(d, name);	/* a deferred tool called is loaded */
		return mcp_call(d, call);
	default:
		return buffered(d, call, touched);
	}
	item = mc_item_output(cid ? cid : "", text);
	free(text);
	return item;
}
