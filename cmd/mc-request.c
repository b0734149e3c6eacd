/* mc-request: turn a system prompt, conversation items and tools into a provider request envelope. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bsd/stdlib.h>

#include "buf.h"
#include "diag.h"
#include "fsread.h"
#include "items.h"
#include "json.h"
#include "provider.h"
#include "request.h"
#include "settings.h"
#include "utf8.h"

#define PROMPT_MAX (8u << 20)	/* largest system prompt read from stdin */

static const char usage[] =
    "usage: mc-request [-q] [-p PROVIDER] [-m MODEL] [--api chat|responses]\n"
    "                  [--items FILE] [--tools FILE] [--no-stream]\n"
    "                  [--max-output-tokens N] [--schema FILE] [--body] [--pretty]\n"
    "                  [PROMPT]\n"
    "\n"
    "Read the system prompt on stdin and write the provider request envelope.\n"
    "\n"
    "  -p, --provider NAME      provider (openai, openrouter, ollama, llamacpp,\n"
    "                           vllm, or one from settings.json)\n"
    "  -m, --model ID           model\n"
    "  --api chat|responses     API mode, overriding the provider's\n"
    "  --items FILE             conversation items, JSON Lines\n"
    "  --tools FILE             tool definitions, a JSON array\n"
    "  --no-stream              ask for one answer instead of a stream\n"
    "  --max-output-tokens N    cap the answer at N tokens\n"
    "  --schema FILE            the answer must be JSON matching the JSON Schema in\n"
    "                           FILE (structured output, strict)\n"
    "  --body                   write only the body the provider gets\n"
    "  --pretty                 indent the JSON document\n"
    "  -q                       no warnings on stderr\n"
    "  -h, --help               show this help\n"
    "  --version                show the version\n"
    "\n"
    "PROMPT, when given, is appended as the last user message.\n";

/* The JSON Schema in path, checked: an object. NULL with the reason in err. */
static cJSON *
read_schema(const char *path, char *err, size_t errsz)
{
	struct mc_buf b = {0};
	char why[256];
	cJSON *doc = NULL;

	if (mc_slurp_path(path, MC_TOOLS_MAX, &b, err, errsz) == -1)
		goto out;
	if (!mc_utf8_valid(b.data, b.len))
		snprintf(err, errsz, "%s: not valid UTF-8", path);
	else if ((doc = mc_json_parse(b.data ? b.data : "", b.len, why, sizeof why)) == NULL)
		snprintf(err, errsz, "%s: %s", path, why);
	else if (mc_json_nul_escape(b.data, b.len) != NULL)
		snprintf(err, errsz, "%s: a string holds a NUL character (\\u0000)", path);
	else if (!cJSON_IsObject(doc))
		snprintf(err, errsz, "%s: expected a JSON Schema object", path);
	else
		goto out;
	cJSON_Delete(doc);
	doc = NULL;
out:
	mc_buf_free(&b);
	return doc;
}

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

int
main(int argc, char *argv[])
{
	enum { OPT_API = 256, OPT_ITEMS, OPT_TOOLS, OPT_NO_STREAM, OPT_MAX,
		OPT_BODY, OPT_PRETTY, OPT_SCHEMA };
	static const struct option longopts[] = {
		{ "provider", required_argument, NULL, 'p' },
		{ "model", required_argument, NULL, 'm' },
		{ "api", required_argument, NULL, OPT_API },
		{ "items", required_argument, NULL, OPT_ITEMS },
		{ "tools", required_argument, NULL, OPT_TOOLS },
		{ "no-stream", no_argument, NULL, OPT_NO_STREAM },
		{ "max-output-tokens", required_argument, NULL, OPT_MAX },
		{ "schema", required_argument, NULL, OPT_SCHEMA },
		{ "body", no_argument, NULL, OPT_BODY },
		{ "pretty", no_argument, NULL, OPT_PRETTY },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, MC_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct mc_provider_opts po = {0};
	struct mc_provider p = {0};
	struct mc_request rq = { .stream = 1 };
	struct mc_settings s = {0};
	const char *items_path = NULL, *tools_path = NULL, *schema_path = NULL, *prompt = NULL;
	struct mc_buf tools_text = {0};
	char err[1024], *system = NULL, schema_name[65];
	cJSON *items = NULL, *tools = NULL, *schema = NULL, *out = NULL;
	int c, body_only = 0, pretty = 0, status = MC_EXIT_FAIL, bad = 0;

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
			if (strcmp(optarg, "chat") != 0 && strcmp(optarg, "responses") != 0)
				return mc_usage_error("--api: expected \"chat\" or \"responses\", not \"%s\"",
				    optarg);
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
			rq.stream = 0;
			break;
		case OPT_MAX:
			rq.max_output_tokens = (int)mc_opt_num("--max-output-tokens", optarg, 1,
			    INT_MAX, &bad);
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
	if (prompt == NULL && items_path == NULL)
		return mc_usage_error("nothing to ask: give a PROMPT, --items FILE, or both");

	if (prompt != NULL && !mc_utf8_valid(prompt, strlen(prompt))) {
		mc_err("PROMPT: not valid UTF-8");
		goto out;
	}
	if (prompt != NULL && *prompt == '\0') {
		mc_err("PROMPT: empty");
		goto out;
	}
	if (mc_settings_load(&s, err, sizeof err) == -1) {
		mc_err("%s", err);
		goto out;
	}
	mc_settings_warn(&s);
	if (mc_provider_resolve(&s, &po, &p, err, sizeof err) == -1) {
		mc_err("%s", err);
		goto out;
	}
	if (strcmp(p.api, "responses") == 0 && rq.max_output_tokens > 0 &&
	    rq.max_output_tokens < 16) {
		mc_err("--max-output-tokens: the Responses API needs at least 16, not %ld",
		    rq.max_output_tokens);
		goto out;
	}
	if (items_path != NULL) {
		if ((items = mc_items_load(items_path, err, sizeof err)) == NULL) {
			mc_err("%s", err);
			goto out;
		}
	} else
		items = mc_json_new_arr();
	if (prompt != NULL)
		mc_json_push(items, mc_item_message("user", prompt));
	if (cJSON_GetArraySize(items) == 0) {
		mc_err("%s: no conversation items, and no PROMPT", items_path);
		goto out;
	}
	if (tools_path != NULL) {
		if (mc_slurp_path(tools_path, MC_TOOLS_MAX, &tools_text, err, sizeof err) == -1 ||
		    (tools = mc_request_tools(tools_path, tools_text.data ? tools_text.data : "",
		    tools_text.len, &s, err, sizeof err)) == NULL) {
			mc_err("%s", err);
			goto out;
		}
	}
	if (schema_path != NULL) {
		if ((schema = read_schema(schema_path, err, sizeof err)) == NULL) {
			mc_err("%s", err);
			goto out;
		}
		mc_request_schema_name(schema_path, schema_name);
		rq.schema = schema;
		rq.schema_name = schema_name;
	}
	if ((system = read_system()) == NULL)
		goto out;

	rq.system = system;
	rq.items = items;
	rq.tools = tools;
	out = body_only ? mc_request_body(&p, &rq) : mc_request_envelope(&p, &rq);
	status = MC_EXIT_OK;
	if (mc_json_write(stdout, out, pretty) == -1 && errno != EPIPE)
		status = MC_EXIT_FAIL;
out:
	cJSON_Delete(out);
	cJSON_Delete(items);
	cJSON_Delete(tools);
	cJSON_Delete(schema);
	mc_buf_free(&tools_text);
	free(system);
	mc_provider_free(&p);
	mc_settings_free(&s);
	return mc_finish(status);
}
