/* mc-request: turn a system prompt, conversation items and tools into a provider request envelope. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bsd/stdlib.h>

#include "blob.h"
#include "buf.h"
#include "diag.h"
#include "fsread.h"
#include "image.h"
#include "items.h"
#include "json.h"
#include "lines.h"
#include "provider.h"
#include "reasoning.h"
#include "request.h"
#include "settings.h"
#include "utf8.h"
#include "wire.h"

#define PROMPT_MAX (8u << 20)	/* largest system prompt read from stdin */

static const char usage[] =
    "usage: mc-request [-q] [-p PROVIDER] [-m MODEL] [--api API]\n"
    "                  [--items FILE] [--tools FILE] [--no-stream]\n"
    "                  [--max-output-tokens N] [--reasoning LEVEL] [--schema FILE]\n"
    "                  [--body] [--pretty]\n"
    "                  [PROMPT]\n"
    "       mc-request --serve [--cache-key] [--status-fd N] [-q] [-p PROVIDER]\n"
    "                  [-m MODEL] [--api API] [--tools FILE]\n"
    "                  [--no-stream] [--max-output-tokens N] [--reasoning LEVEL]\n"
    "                  [--schema FILE]\n"
    "\n"
    "Read the system prompt on stdin and write the provider request envelope.\n"
    "With --serve, stdin is a session's lines, and each {\"type\":\"request\"} line\n"
    "is answered with the envelope of the items so far, one line each.\n"
    "\n"
    "  -p, --provider NAME      provider (openai, anthropic, openrouter, ollama,\n"
    "                           llamacpp, vllm, or one from settings.json)\n"
    "  -m, --model ID           model\n"
    "  --api API                chat, responses or messages, overriding the\n"
    "                           provider's\n"
    "  --items FILE             conversation items, JSON Lines\n"
    "  --tools FILE             tool definitions, a JSON array\n"
    "  --no-stream              ask for one answer instead of a stream\n"
    "  --max-output-tokens N    cap the answer at N tokens\n"
    "  --reasoning LEVEL        reasoning effort: minimal, low, medium, high or off\n"
    "  --schema FILE            the answer must be JSON matching the JSON Schema in\n"
    "                           FILE (structured output, strict)\n"
    "  --body                   write only the body the provider gets\n"
    "  --pretty                 indent the JSON document\n"
    "  --serve                  build request after request for one session\n"
    "  --cache-key              with --serve: give each envelope its cache_key\n"
    "  --status-fd N            with --serve: say on descriptor N what became of\n"
    "                           each request; stdout has the envelopes alone\n"
    "  -q                       no warnings on stderr\n"
    "  -h, --help               show this help\n"
    "  --version                show the version\n"
    "\n"
    "PROMPT, when given, is appended as the last user message.\n";

/* The system prompt on stdin; "" when stdin is a terminal or empty. */
static char *
read_system(void)
{
	struct mc_buf b = {0};

	if (isatty(STDIN_FILENO))
		return mc_buf_steal(&b);
	if (mc_fd_slurp(STDIN_FILENO, PROMPT_MAX, &b) == -1) {
		if (errno == EFBIG)
			mc_err("standard input: the system prompt is over the %u-byte limit", PROMPT_MAX);
		else
			mc_err("standard input: %s", strerror(errno));
		mc_buf_free(&b);
		return NULL;
	}
	if (memchr(b.data ? b.data : "", '\0', b.len) != NULL) {
		mc_err("standard input: the system prompt contains a NUL byte");
		mc_buf_free(&b);
		return NULL;
	}
	if (!mc_utf8_valid(b.data, b.len)) {
		mc_err("standard input: the system prompt is not valid UTF-8");
		mc_buf_free(&b);
		return NULL;
	}
	return mc_buf_steal(&b);
}

/* What a run builds from: the provider, the members around the items,
 * and the items as they come, checked. */
struct build {
	struct mc_provider p;
	struct mc_request rq;
	struct mc_settings s;
	struct mc_wire *w;
	struct mc_items_check *chk;
	const char *items_name;	/* what the items' lines are called in errors */
	cJSON *tools;		/* checked (mc_request_tools), or NULL */
	char *system;
};

/*
 * The images an item holds by reference, read from $MC_HOME/blobs and
 * put in as base64 ("data" beside each reference) for the wire to send;
 * read once, when the item comes (--serve keeps what the wire built). A
 * model that takes no images gets a note instead (wire.c): nothing is
 * read. 0, or -1 with "NAME:LINE: blob ..." in err.
 */
static int
build_images(struct build *b, cJSON *it, char *err, size_t errsz)
{
	struct mc_buf raw = {0}, enc = {0};
	char where[256], why[512];
	cJSON *r;
	int rc = 0;

	if (!b->p.images)
		return 0;
	cJSON_ArrayForEach(r, mc_json_arr(it, "images")) {
		raw.len = enc.len = 0;
		if (mc_blob_get(b->s.home, mc_json_str(r, "blob"), MC_IMAGE_MAX, &raw, why,
		    sizeof why) == -1) {
			mc_items_check_where(b->chk, where, sizeof where);
			snprintf(err, errsz, "%s: image %.100s: %s", where, mc_json_str(r, "name"), why);
			rc = -1;
			break;
		}
		mc_base64_encode(raw.data, raw.len, &enc);
		mc_json_add_owned(r, "data", mc_buf_steal(&enc));
	}
	mc_buf_free(&raw);
	mc_buf_free(&enc);
	return rc;
}

/* The next line of items: checked, then built in. 0, or -1 with the
 * reason in err. */
static int
build_line(struct build *b, const char *s, size_t n, char *err, size_t errsz)
{
	cJSON *it;
	int r;

	if ((r = mc_items_check_line(b->chk, s, n, &it, err, errsz)) == 1) {
		if (build_images(b, it, err, errsz) == -1) {
			cJSON_Delete(it);
			return -1;
		}
		mc_wire_add(b->w, it);
	}
	return r == -1 ? -1 : 0;
}

/* The lines of the items file at path, built in. */
static int
build_file(struct build *b, const char *path, char *err, size_t errsz)
{
	struct mc_buf t = {0};
	const char *p, *end, *nl;
	int r = 0;

	if (mc_slurp_path(path, MC_ITEMS_MAX, &t, err, errsz) == -1) {
		mc_buf_free(&t);
		return -1;
	}
	for (p = t.data ? t.data : "", end = p + t.len; r == 0 && p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		r = build_line(b, p, (size_t)(nl - p), err, errsz);
	}
	mc_buf_free(&t);
	return r;
}

/* The tools document text (len bytes, called name), checked, as the
 * request's tools from now on. */
static int
build_tools(struct build *b, const char *name, const char *text, size_t len, char *err,
    size_t errsz)
{
	cJSON *t;

	if ((t = mc_request_tools(name, text, len, &b->s, err, errsz)) == NULL)
		return -1;
	cJSON_Delete(b->tools);
	b->rq.tools = b->tools = t;
	return 0;
}

static void
build_free(struct build *b)
{
	mc_wire_free(b->w);
	mc_items_check_free(b->chk);
	cJSON_Delete(b->tools);
	cJSON_Delete((cJSON *)b->rq.schema);
	free(b->system);
	mc_provider_free(&b->p);
	mc_settings_free(&b->s);
}

/* Write the len bytes at p and a newline on stdout: 0, or -1. */
static int
put_line(const char *p, size_t len)
{
	return mc_write_all(STDOUT_FILENO, p, len) == -1 ||
	    mc_write_all(STDOUT_FILENO, "\n", 1) == -1 ? -1 : 0;
}

/* One request of the items given: the envelope, its body alone, or the
 * envelope indented. */
static int
once(struct build *b, const char *prompt, int body_only, int pretty)
{
	struct mc_buf out = {0};
	char err[256];
	cJSON *doc;
	int r;

	if (prompt != NULL) {
		mc_wire_add(b->w, mc_item_message("user", prompt));
	}
	if (mc_wire_items(b->w) == 0) {
		mc_err("%s: no conversation items, and no PROMPT", b->items_name);
		return MC_EXIT_FAIL;
	}
	if (body_only)
		mc_wire_body(b->w, &out);
	else
		mc_wire_envelope(b->w, 1, &out);
	if (pretty) {
		if ((doc = mc_json_parse(out.data, out.len, err, sizeof err)) == NULL) {
			mc_err("the request built is no JSON: %s", err);	/* never */
			mc_buf_free(&out);
			return MC_EXIT_FAIL;
		}
		r = mc_json_write(stdout, doc, 1);
		cJSON_Delete(doc);
	} else
		r = put_line(out.data, out.len);
	mc_buf_free(&out);
	return r == -1 && errno != EPIPE ? MC_EXIT_FAIL : MC_EXIT_OK;
}

/*
 * --serve: the lines of stdin are a session's lines (its header and
 * bookkeeping skipped, as in an items file), each built in as it comes,
 * and lines of mc-request's own:
 *   {"type":"system","text":S}    the system prompt from now on
 *   {"type":"tools","tools":[…]}  the tool definitions from now on
 *   {"type":"reset","name":S}     the items forgotten (a new session);
 *                                 the lines from here on are S's, from 1
 *   {"type":"request"}            write the envelope of what is there
 * Each request gets one line: the envelope, or {"type":"error","message"}
 * when an item was rejected (the first such line is named, and every
 * request says it until a reset: the session cannot be sent as it is).
 * With a status descriptor (--status-fd), stdout has the envelopes only,
 * and each request's line on the descriptor says what became of it:
 * {"type":"envelope","bytes":N} (the envelope's N bytes with its newline
 * follow on stdout, to be passed on whole without a look) or the error.
 */

/* The name of mc-request's own line at s: "request", "system", "tools",
 * "reset" when s is {"type":"NAME"... (white space allowed), else NULL. */
static const char *
own_line(const char *s, size_t n)
{
	static const char *const own[] = { "request", "system", "tools", "reset", NULL };
	const char *e = s + n, *t;
	size_t i, k;

#define WS(p) while ((p) < e && strchr(" \t\r", *(p)) != NULL) (p)++
	WS(s);
	if (s == e || *s++ != '{')
		return NULL;
	WS(s);
	if ((size_t)(e - s) < 6 || memcmp(s, "\"type\"", 6) != 0)
		return NULL;
	s += 6;
	WS(s);
	if (s == e || *s++ != ':')
		return NULL;
	WS(s);
#undef WS
	if (s == e || *s++ != '"')
		return NULL;
	for (t = s; t < e && *t != '"'; t++)
		;
	for (i = 0; own[i] != NULL; i++)
		if ((k = strlen(own[i])) == (size_t)(t - s) && memcmp(s, own[i], k) == 0)
			return own[i];
	return NULL;
}

/* A request's error as its line, {"type":"error","message"} with its
 * newline, in out. */
static void
error_line(const char *failed, struct mc_buf *out)
{
	cJSON *e = mc_json_new_obj();
	size_t n;
	char *t;

	mc_json_add_str(e, "type", "error");
	mc_json_add_str(e, "message", failed);
	t = mc_json_compact(e, &n);
	cJSON_Delete(e);
	out->len = 0;
	mc_buf_add(out, t, n);
	mc_buf_addc(out, '\n');
	free(t);
}

/* What became of a request, on the status descriptor. */
static int
put_status(int fd, size_t bytes, const char *failed, struct mc_buf *scratch)
{
	char line[64];
	size_t n;

	if (failed != NULL) {
		error_line(failed, scratch);
		return mc_write_all(fd, scratch->data, scratch->len);
	}
	n = (size_t)snprintf(line, sizeof line, "{\"type\":\"envelope\",\"bytes\":%zu}\n", bytes);
	return mc_write_all(fd, line, n);
}

static int
serve(struct build *b, int key, int status_fd)
{
	struct mc_lines in = { .fd = STDIN_FILENO, .cap = MC_ITEMS_MAX };
	struct mc_buf out = {0}, t = {0}, piece[2] = {{0}};
	struct iovec iov[MC_WIRE_PIECES + 1];
	size_t n, i;
	char err[1024], failed[1024] = "", *line;
	const char *type;
	cJSON *doc;
	size_t len;
	int r;

	while ((r = mc_lines_next(&in, &line, &len)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			mc_err("standard input: %s", errno == EFBIG ?
			    "a line over the items size limit" : strerror(errno));
			break;
		}
		/* mc-request's own lines are told apart by their type, which
		 * comes first; a session line is checked as an item. */
		if ((type = own_line(line, len)) == NULL) {
			if (failed[0] == '\0' && build_line(b, line, len, err, sizeof err) == -1)
				snprintf(failed, sizeof failed, "%s", err);
			continue;
		}
		doc = cJSON_ParseWithLength(line, len);
		if (strcmp(type, "system") == 0 && mc_json_str(doc, "text") != NULL &&
		    mc_utf8_valid(mc_json_str(doc, "text"), strlen(mc_json_str(doc, "text")))) {
			free(b->system);
			b->rq.system = b->system = mc_strdup(mc_json_str(doc, "text"));
			mc_wire_set(b->w, &b->rq);
		} else if (strcmp(type, "tools") == 0) {
			free(t.data);
			t.data = mc_json_compact(cJSON_GetObjectItemCaseSensitive(doc, "tools"), &t.len);
			if (build_tools(b, "tools", t.data, t.len, err, sizeof err) == 0)
				mc_wire_set(b->w, &b->rq);
			else if (failed[0] == '\0')
				snprintf(failed, sizeof failed, "%s", err);
		} else if (strcmp(type, "system") == 0) {
			if (failed[0] == '\0')
				snprintf(failed, sizeof failed, "system: expected a UTF-8 string \"text\"");
		} else if (strcmp(type, "reset") == 0) {
			mc_wire_clear(b->w);
			mc_items_check_free(b->chk);
			b->chk = mc_items_check_new(mc_json_str(doc, "name") ? mc_json_str(doc, "name") :
			    b->items_name);
			failed[0] = '\0';
		} else if (status_fd >= 0) {
			/* The status first: the envelope may be more than the
			 * pipe holds, and is read only once it is known. Its
			 * pieces are written as they lie, with no copy. */
			n = failed[0] ? 0 : mc_wire_pieces(b->w, 1, key, piece, iov);
			iov[n++] = (struct iovec){ "\n", 1 };
			for (i = 0, len = 0; i < n; i++)
				len += iov[i].iov_len;
			if (put_status(status_fd, len, failed[0] ? failed : NULL, &out) == -1 ||
			    (!failed[0] && mc_writev_all(STDOUT_FILENO, iov, (int)n) == -1)) {
				cJSON_Delete(doc);
				break;
			}
		} else {
			out.len = 0;
			if (failed[0] != '\0')
				error_line(failed, &out);
			else {
				mc_wire_envelope(b->w, key, &out);
				mc_buf_addc(&out, '\n');
			}
			if (mc_write_all(STDOUT_FILENO, out.data, out.len) == -1) {
				cJSON_Delete(doc);
				break;
			}
		}
		cJSON_Delete(doc);
	}
	mc_buf_free(&out);
	mc_buf_free(&t);
	mc_buf_free(&piece[0]);
	mc_buf_free(&piece[1]);
	mc_buf_free(&in.buf);
	return r == 0 ? MC_EXIT_OK : errno == EPIPE ? MC_EXIT_OK : MC_EXIT_FAIL;
}

int
main(int argc, char *argv[])
{
	enum { OPT_API = 256, OPT_ITEMS, OPT_TOOLS, OPT_NO_STREAM, OPT_MAX,
		OPT_BODY, OPT_PRETTY, OPT_SCHEMA, OPT_SERVE, OPT_KEY, OPT_STATUS,
		OPT_REASONING };
	static const struct option longopts[] = {
		{ "provider", required_argument, NULL, 'p' },
		{ "model", required_argument, NULL, 'm' },
		{ "api", required_argument, NULL, OPT_API },
		{ "items", required_argument, NULL, OPT_ITEMS },
		{ "tools", required_argument, NULL, OPT_TOOLS },
		{ "no-stream", no_argument, NULL, OPT_NO_STREAM },
		{ "max-output-tokens", required_argument, NULL, OPT_MAX },
		{ "schema", required_argument, NULL, OPT_SCHEMA },
		{ "reasoning", required_argument, NULL, OPT_REASONING },
		{ "body", no_argument, NULL, OPT_BODY },
		{ "pretty", no_argument, NULL, OPT_PRETTY },
		{ "serve", no_argument, NULL, OPT_SERVE },
		{ "cache-key", no_argument, NULL, OPT_KEY },
		{ "status-fd", required_argument, NULL, OPT_STATUS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, MC_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct mc_provider_opts po = {0};
	struct build b = { .rq = { .stream = 1 } };
	const char *items_path = NULL, *tools_path = NULL, *schema_path = NULL, *prompt = NULL;
	struct mc_buf tools_text = {0};
	char err[1024], schema_name[65];
	cJSON *schema;
	int c, body_only = 0, pretty = 0, serving = 0, key = 0, status = MC_EXIT_FAIL, bad = 0;
	int status_fd = -1;

	mc_init("mc-request", argv);
	while ((c = getopt_long(argc, argv, "+hm:p:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			po.provider = optarg;
			break;
		case 'm':
			po.model = optarg;
			break;
		case 'q':
			mc_quiet = 1;
			break;
		case OPT_API:
			if (strcmp(optarg, "chat") != 0 && strcmp(optarg, "responses") != 0 &&
			    strcmp(optarg, "messages") != 0)
				return mc_usage_error("--api: expected \"chat\", \"responses\" or "
				    "\"messages\", not \"%s\"", optarg);
			po.api = optarg;
			break;
		case OPT_ITEMS:
			if (strcmp(optarg, "-") == 0)
				return mc_usage_error("--items: \"-\" is not allowed: standard input is the system prompt");
			items_path = optarg;
			break;
		case OPT_TOOLS:
			if (strcmp(optarg, "-") == 0)
				return mc_usage_error("--tools: \"-\" is not allowed: standard input is the system prompt");
			tools_path = optarg;
			break;
		case OPT_NO_STREAM:
			b.rq.stream = 0;
			break;
		case OPT_MAX:
			b.rq.max_output_tokens = (int)mc_opt_num("--max-output-tokens", optarg, 1,
			    INT_MAX, &bad);
			break;
		case OPT_REASONING:
			if (!mc_reasoning_valid(optarg))
				return mc_usage_error("--reasoning: expected minimal, low, medium, high "
				    "or off, not \"%s\"", optarg);
			b.rq.reasoning = optarg;
			break;
		case OPT_SCHEMA:
			if (strcmp(optarg, "-") == 0)
				return mc_usage_error("--schema: \"-\" is not allowed: standard input is the system prompt");
			schema_path = optarg;
			break;
		case OPT_BODY:
			body_only = 1;
			break;
		case OPT_PRETTY:
			pretty = 1;
			break;
		case OPT_SERVE:
			serving = 1;
			break;
		case OPT_KEY:
			key = 1;
			break;
		case OPT_STATUS:
			status_fd = (int)mc_opt_num("--status-fd", optarg, 3, INT_MAX, &bad);
			break;
		default:	/* -h, --version or a bad option */
			return mc_opt_exit(c, usage);
		}
		if (bad)
			return MC_EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		return mc_usage_error("unexpected argument: %s (quote the PROMPT as one argument)",
		    argv[1]);
	if (argc == 1)
		prompt = argv[0];
	if (serving && (prompt != NULL || body_only || pretty || items_path != NULL))
		return mc_usage_error("--serve takes its items on stdin and writes envelopes one "
		    "per line: no PROMPT, --items, --body or --pretty");
	if (key && !serving)
		return mc_usage_error("--cache-key goes with --serve (an envelope alone has one)");
	if (status_fd != -1 && !serving)
		return mc_usage_error("--status-fd goes with --serve");
	if (status_fd != -1 && fcntl(status_fd, F_GETFD) == -1)
		return mc_usage_error("--status-fd %d: not an open descriptor", status_fd);
	if (!serving && prompt == NULL && items_path == NULL)
		return mc_usage_error("nothing to ask: give a PROMPT, --items FILE, or both");

	if (prompt != NULL && !mc_utf8_valid(prompt, strlen(prompt))) {
		mc_err("PROMPT: not valid UTF-8");
		goto out;
	}
	if (prompt != NULL && *prompt == '\0') {
		mc_err("PROMPT: empty");
		goto out;
	}
	if (mc_settings_load(&b.s, err, sizeof err) == -1) {
		mc_err("%s", err);
		goto out;
	}
	mc_settings_warn(&b.s);
	if (mc_provider_resolve(&b.s, &po, &b.p, err, sizeof err) == -1) {
		mc_err("%s", err);
		goto out;
	}
	if (strcmp(b.p.api, "responses") == 0 && b.rq.max_output_tokens > 0 &&
	    b.rq.max_output_tokens < 16) {
		mc_err("--max-output-tokens: the Responses API needs at least 16, not %ld",
		    b.rq.max_output_tokens);
		goto out;
	}
	if (strcmp(b.p.api, "messages") == 0 && schema_path != NULL) {
		mc_err("--schema: the messages API has no structured output; use chat or responses");
		goto out;
	}
	if (tools_path != NULL && (mc_slurp_path(tools_path, MC_TOOLS_MAX, &tools_text, err,
	    sizeof err) == -1 || build_tools(&b, tools_path, tools_text.data ? tools_text.data : "",
	    tools_text.len, err, sizeof err) == -1)) {
		mc_err("%s", err);
		goto out;
	}
	if (schema_path != NULL) {
		if ((schema = mc_request_schema_read(schema_path, err, sizeof err)) == NULL) {
			mc_err("%s", err);
			goto out;
		}
		mc_request_schema_name(schema_path, schema_name);
		b.rq.schema = schema;
		b.rq.schema_name = schema_name;
	}
	if (!serving && (b.rq.system = b.system = read_system()) == NULL)
		goto out;
	b.w = mc_wire_new(&b.p);
	mc_wire_set(b.w, &b.rq);
	b.items_name = items_path != NULL ? items_path : "stdin";
	b.chk = mc_items_check_new(b.items_name);
	if (items_path != NULL && build_file(&b, items_path, err, sizeof err) == -1) {
		mc_err("%s", err);
		goto out;
	}
	status = serving ? serve(&b, key, status_fd) : once(&b, prompt, body_only, pretty);
out:
	build_free(&b);
	mc_buf_free(&tools_text);
	return mc_finish(status);
}
