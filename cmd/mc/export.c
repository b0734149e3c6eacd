/* export.c: mc sessions export ID [--markdown | --json]: a session as a readable transcript, or as one JSON document. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "items.h"
#include "json.h"
#include "mc.h"
#include "utf8.h"

#define ARGS_CAP 400		/* bytes of a call's arguments shown */
#define OUTPUT_LINES 20		/* lines of a call's output, a context block, reasoning */
#define OUTPUT_CAP 4000		/* and their bytes */

static const char export_usage[] =
    "usage: mc sessions export ID|PREFIX [--markdown | --json]\n"
    "\n"
    "Write session ID (or the one whose id starts with PREFIX) on standard\n"
    "output: a Markdown transcript (the default), or with --json one JSON\n"
    "document of its header and its conversation items.\n"
    "\n"
    "  --markdown  a transcript: messages, tool calls and their outputs (cut)\n"
    "  --json      {\"id\",\"title\",...,\"items\":[...]}, bookkeeping left out\n"
    "  -h, --help  show this help\n";

/* The first lines and bytes of s, and a line saying what was left out. */
static void
capped(struct mc_buf *out, const char *info, const char *s, size_t lines, size_t cap)
{
	size_t n = strlen(s), keep = 0, k = 0, more;
	const char *nl;

	while (keep < n && k < lines && keep < cap) {
		nl = memchr(s + keep, '\n', n - keep);
		keep = nl != NULL ? (size_t)(nl - s) + 1 : n;
		k++;
	}
	if (keep > cap)
		keep = mc_utf8_floor(s, cap);
	mc_buf_fence(out, info, s, keep);
	mc_buf_addc(out, '\n');
	if (keep < n) {
		for (more = 0, nl = s + keep; nl != NULL && *nl; more++)
			nl = (nl = strchr(nl, '\n')) != NULL ? nl + 1 : NULL;
		mc_buf_printf(out, "\n*(cut: %zu more bytes, %zu more line%s)*\n", n - keep, more,
		    more == 1 ? "" : "s");
	}
}

/* A call's arguments on one line, cut past ARGS_CAP bytes. */
static void
arguments(struct mc_buf *out, const char *args)
{
	size_t n = strlen(args), keep = n > ARGS_CAP ? mc_utf8_floor(args, ARGS_CAP) : n;
	struct mc_buf one = {0};
	size_t i;

	for (i = 0; i < keep; i++)
		mc_buf_addc(&one, args[i] == '\n' ? ' ' : args[i]);
	if (keep < n)
		mc_buf_printf(&one, " ... (%zu more bytes)", n - keep);
	mc_buf_fence(out, "json", one.data ? one.data : "", one.len);
	mc_buf_addc(out, '\n');
	mc_buf_free(&one);
}

static void
markdown_item(struct mc_buf *out, const cJSON *item)
{
	const char *type = mc_json_str(item, "type"), *role = mc_json_str(item, "role");
	const char *text;

	if (strcmp(type, "message") == 0 && strcmp(role, "user") == 0 && mc_session_is_turn(item))
		mc_buf_printf(out, "## User\n\n%s\n\n", mc_json_str(item, "content"));
	else if (strcmp(type, "message") == 0 && strcmp(role, "user") == 0) {
		mc_buf_adds(out, "### Context (not typed by the user)\n\n");
		capped(out, "", mc_json_str(item, "content"), OUTPUT_LINES, OUTPUT_CAP);
		mc_buf_addc(out, '\n');
	} else if (strcmp(type, "message") == 0) {
		text = mc_json_str(item, "content");
		mc_buf_printf(out, "## Assistant\n\n%s\n\n", text);
		if ((text = mc_json_str(item, "refusal")) != NULL)
			mc_buf_printf(out, "*Refused:* %s\n\n", text);
	} else if (strcmp(type, "function_call") == 0) {
		mc_buf_printf(out, "### Tool call: %s\n\n", mc_json_str(item, "name"));
		arguments(out, mc_json_str(item, "arguments"));
		mc_buf_addc(out, '\n');
	} else if (strcmp(type, "function_call_output") == 0) {
		mc_buf_adds(out, "Output:\n\n");
		capped(out, "", mc_json_str(item, "output"), OUTPUT_LINES, OUTPUT_CAP);
		mc_buf_addc(out, '\n');
	} else if (strcmp(type, "reasoning") == 0) {
		mc_buf_adds(out, "### Reasoning\n\n");
		capped(out, "", mc_json_str(item, "text"), OUTPUT_LINES, OUTPUT_CAP);
		mc_buf_addc(out, '\n');
	}
}

/* The header's member key, when the session has it, as a list entry. */
static void
fact(struct mc_buf *out, const cJSON *header, const char *key, const char *label)
{
	const char *v = mc_json_str(header, key);

	if (v != NULL)
		mc_buf_printf(out, "- %s: %s\n", label, v);
}

static void
markdown(struct mc_buf *out, const struct mc_session_info *in, const char *updated,
    const cJSON *items)
{
	const cJSON *h = in->header, *e;
	char name[256];

	session_name(in, name, sizeof name);	/* sessions.c */
	mc_buf_printf(out, "# %s\n\n", *name ? name : in->id);
	mc_buf_printf(out, "- Session: %s\n", in->id);
	fact(out, h, "created", "Created");
	mc_buf_printf(out, "- Updated: %s\n", updated);
	fact(out, h, "cwd", "Directory");
	fact(out, h, "provider", "Provider");
	fact(out, h, "model", "Model");
	fact(out, h, "forked_from", "Forked from");
	fact(out, h, "compacted_from", "Compacted from");
	fact(out, h, "parent", "Subagent of");
	mc_buf_addc(out, '\n');
	cJSON_ArrayForEach(e, items)
		markdown_item(out, e);
}

static void
json_doc(struct mc_buf *out, const struct mc_session_info *in, const char *updated,
    cJSON *items)
{
	static const char *const keys[] = { "created", "cwd", "provider", "model", "forked_from",
	    "compacted_from", "parent", NULL };
	cJSON *o = mc_json_new_obj();
	char *s;
	size_t i, n;

	mc_json_add_str(o, "id", in->id);
	mc_json_add_str(o, "title", in->title);
	mc_json_add_str(o, "updated", updated);
	for (i = 0; keys[i] != NULL; i++)
		mc_json_add_str(o, keys[i], mc_json_str(in->header, keys[i]));
	mc_json_add(o, "items", cJSON_Duplicate(items, 1));
	s = mc_json_compact(o, &n);
	mc_buf_add(out, s, n);
	mc_buf_addc(out, '\n');
	free(s);
	cJSON_Delete(o);
}

/* Session id of home written as asked: 0, or -1 after saying why. */
static int
export(const char *home, const char *id, int json, struct mc_buf *out)
{
	struct mc_session_info in;
	struct mc_session s;
	char err[1024], updated[32];
	cJSON *items = NULL;
	struct tm tm;
	int r = -1;

	if (mc_session_info(home, id, &in, err, sizeof err) == -1) {
		mc_err("%s", err);
		return -1;
	}
	if (mc_session_read(&s, home, id, err, sizeof err) == -1)
		mc_err("%s", err);
	else if ((items = mc_items_parse(s.path, s.lines.data ? s.lines.data : "", s.lines.len,
	    err, sizeof err)) == NULL)
		mc_err("%s", err);
	else {
		gmtime_r(&in.mtime.tv_sec, &tm);
		strftime(updated, sizeof updated, "%Y-%m-%dT%H:%M:%SZ", &tm);
		if (json)
			json_doc(out, &in, updated, items);
		else
			markdown(out, &in, updated, items);
		r = 0;
	}
	cJSON_Delete(items);
	mc_session_close(&s);
	mc_session_info_free(&in);
	return r;
}

int
export_main(int argc, char *argv[])
{
	enum { OPT_MARKDOWN = 256, OPT_JSON };
	static const struct option longopts[] = {
		{ "markdown", no_argument, NULL, OPT_MARKDOWN },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct mc_settings set = {0};
	struct mc_buf out = {0};
	char err[1024], *id = NULL;
	int c, json = -1, status = MC_EXIT_FAIL;

	argv[0] = (char *)mc_progname;	/* getopt's messages are mc's */
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_MARKDOWN:
		case OPT_JSON:
			if (json != -1 && json != (c == OPT_JSON))
				return mc_usage_error("sessions export: --markdown or --json, not both");
			json = c == OPT_JSON;
			break;
		case 'h':
			return mc_opt_exit(c, export_usage);
		default:
			fputs("Try 'mc sessions export --help' for more information.\n", stderr);
			return MC_EXIT_USAGE;
		}
	}
	if (argc - optind != 1)
		return mc_usage_error("sessions export: one session ID (or the start of one)");
	if (mc_settings_load(&set, err, sizeof err) == -1) {
		mc_err("%s", err);
		return MC_EXIT_FAIL;
	}
	if ((status = session_find(set.home, argv[optind], &id)) == -1)	/* resume.c */
		status = export(set.home, id, json == 1, &out) == 0 ? MC_EXIT_OK : MC_EXIT_FAIL;
	fwrite(out.data ? out.data : "", 1, out.len, stdout);
	mc_buf_free(&out);
	mc_settings_free(&set);
	free(id);
	return mc_finish(status);
}
