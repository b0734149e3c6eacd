/* mc-render: assemble the system prompt from the context document, prompt fragments and profiles. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "json.h"
#include "prompts.h"
#include "settings.h"
#include "render.h"

#define MAX_SUBAGENTS 32	/* --subagent nesting depth */

static const char usage[] =
    "usage: mc-render [-q] [--json [--pretty] | --stats] [-m ID] [--agent ID | --subagent ID...]\n"
    "       mc-render --print-default FRAGMENT | --fragment FRAGMENT\n"
    "\n"
    "Read a context document on stdin and write the system prompt.\n"
    "\n"
    "  --agent ID        add the role of the main-session profile $MC_HOME/agents/ID.md\n"
    "  --subagent ID     add the role of $MC_HOME/subagents/ID.md (repeat, ancestors first)\n"
    "  -m, --model ID    apply the first prompt.model_overrides entry matching ID\n"
    "                    (GPT/OpenAI prefixes in any case), over the \"*\" entry\n"
    "  --json            write the prompt, its SHA-256 and its sections as JSON\n"
    "  --pretty          indent the JSON\n"
    "  --stats           write a table of the sections and their share of the prompt\n"
    "  --print-default FRAGMENT\n"
    "                    print the bundled fragment system, tools, skills, compact\n"
    "                    or plan\n"
    "  --fragment FRAGMENT\n"
    "                    print that fragment rendered: $MC_HOME/prompts/FRAGMENT.md\n"
    "                    when there is one, else the bundled one\n"
    "  -q                no warnings on stderr\n"
    "  -h, --help        show this help\n"
    "  --version         show the version\n";

/* Options. */
static const char *agent;
static const char *subagents[MAX_SUBAGENTS];
static int nsubagents;

static int
render(struct render *R, const char *model, int mode, int pretty)
{
	char err[1024];
	unsigned used = 0;
	int empty, f, i;

	if (mc_settings_load(&R->s, err, sizeof err) == -1) {
		mc_err("%s", err);
		return -1;
	}
	if (model == NULL && (model = getenv("MC_MODEL")) != NULL && *model == '\0')
		model = NULL;
	if (model == NULL)
		model = mc_json_str(R->s.root, "model");
	if (check_overrides(R, model, &used) == -1)
		return -1;

	for (f = 0; f < F_N; f++)
		if (load_fragment(R, f, &used) == -1)
			return -1;
	if (used & (1u << MC_TVAR_HAS_RIPGREP))
		R->rg = probe_start(&R->rg_deadline);

	R->doc = mc_json_read_fd_each(0, &empty, "skills", take_skill, R, err, sizeof err);
	if (R->doc == NULL && !empty) {
		mc_err("stdin: %s", err);
		return -1;
	}
	if (R->doc == NULL)
		R->doc = mc_json_new_obj();
	if (check_doc(R) == -1)
		return -1;
	runtime_facts(R, used);
	for (f = 0; f < F_N; f++)
		if (render_text(R, R->frag[f].label, R->frag[f].raw, R->frag[f].rawlen,
		    &R->frag[f].text) == -1)
			return -1;

	R->sec[S_SYSTEM].text = R->frag[F_SYSTEM].text;
	R->sec[S_SYSTEM].source = R->frag[F_SYSTEM].source;
	R->frag[F_SYSTEM].text = (struct mc_buf){0};
	R->sec[S_TOOLS].text = R->frag[F_TOOLS].text;
	R->sec[S_TOOLS].source = R->frag[F_TOOLS].source;
	R->frag[F_TOOLS].text = (struct mc_buf){0};
	build_subagents(R);
	build_skills(R);
	build_context(R);
	R->sec[S_ROLE].source = "generated";
	if (agent != NULL && add_role(R, MC_PROFILE_AGENT, "--agent", agent) == -1)
		return -1;
	for (i = 0; i < nsubagents; i++)
		if (add_role(R, MC_PROFILE_SUBAGENT, "--subagent", subagents[i]) == -1)
			return -1;
	if (apply_override(R) == -1)
		return -1;
	if (mode == 't') {
		assemble(R, stdout);	/* mc_finish reports a failed write */
		return 0;
	}
	assemble(R, NULL);
	if (mode == 'j')
		return write_json(R, pretty);
	write_stats(R);
	return 0;
}

/* --fragment: one fragment rendered as its section would have it (user
 * override or bundled, strict variables, trimmed), for the prompt of
 * another program's request (mc-compact's summary), or a turn's (mc's plan
 * mode). */
static int
print_fragment(struct render *R, int f)
{
	struct fragment *F = &R->frag[f];
	char err[1024];
	unsigned used = 0;

	if (mc_settings_load(&R->s, err, sizeof err) == -1) {
		mc_err("%s", err);
		return -1;
	}
	if (load_fragment(R, f, &used) == -1)
		return -1;
	if (used & (1u << MC_TVAR_HAS_RIPGREP))
		R->rg = probe_start(&R->rg_deadline);
	runtime_facts(R, used);
	if (render_text(R, F->label, F->raw, F->rawlen, &F->text) == -1)
		return -1;
	if (F->text.len > 0) {
		fwrite(F->text.data, 1, F->text.len, stdout);
		putchar('\n');
	}
	return 0;		/* mc_finish reports a failed write */
}

static void
render_free(struct render *R)
{
	int i;

	for (i = 0; i < F_ALL; i++) {
		free(R->frag[i].label);
		free(R->frag[i].raw);
		mc_buf_free(&R->frag[i].text);
	}
	for (i = 0; i < S_N; i++)
		mc_buf_free(&R->sec[i].text);
	mc_buf_free(&R->prompt);
	free(R->term);
	if (R->rg != -1)	/* a failure came before its answer was wanted */
		probe_end(R->rg);
	mc_buf_free(&R->skills);
	cJSON_Delete(R->bad_skill);
	cJSON_Delete(R->doc);
	mc_settings_free(&R->s);
}

static int
check_id(const char *opt, enum mc_profile_kind k, const char *id)
{
	if (mc_profile_id_valid(k, id, strlen(id)))
		return 0;
	return mc_usage_error("%s: invalid profile id \"%s\" (%s)", opt, id, mc_profile_id_rule(k));
}

int
main(int argc, char *argv[])
{
	enum { OPT_AGENT = 256, OPT_SUBAGENT, OPT_JSON, OPT_PRETTY, OPT_STATS,
		OPT_DEFAULT, OPT_FRAGMENT };
	static const struct option longopts[] = {
		{ "agent", required_argument, NULL, OPT_AGENT },
		{ "subagent", required_argument, NULL, OPT_SUBAGENT },
		{ "model", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "pretty", no_argument, NULL, OPT_PRETTY },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "print-default", required_argument, NULL, OPT_DEFAULT },
		{ "fragment", required_argument, NULL, OPT_FRAGMENT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, MC_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct render R = { .rg = -1 };
	const char *model = NULL, *print_default = NULL, *fragment = NULL, *opt, *name;
	const struct mc_prompt *p;
	int c, json = 0, stats = 0, pretty = 0, f, status;

	mc_init("mc-render", argv);
	while ((c = getopt_long(argc, argv, "+hm:q", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_AGENT:
			if (check_id("--agent", MC_PROFILE_AGENT, optarg) != 0)
				return MC_EXIT_USAGE;
			agent = optarg;
			break;
		case OPT_SUBAGENT:
			if (check_id("--subagent", MC_PROFILE_SUBAGENT, optarg) != 0)
				return MC_EXIT_USAGE;
			if (nsubagents == MAX_SUBAGENTS)
				return mc_usage_error("--subagent: at most %d profiles", MAX_SUBAGENTS);
			subagents[nsubagents++] = optarg;
			break;
		case 'm':
			model = optarg;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_PRETTY:
			pretty = 1;
			break;
		case OPT_STATS:
			stats = 1;
			break;
		case OPT_DEFAULT:
			print_default = optarg;
			break;
		case OPT_FRAGMENT:
			fragment = optarg;
			break;
		case 'q':
			mc_quiet = 1;
			break;
		default:	/* -h, --version or a bad option */
			return mc_opt_exit(c, usage);
		}
	}
	if (optind < argc)
		return mc_usage_error("unexpected argument: %s", argv[optind]);
	if (json && stats)
		return mc_usage_error("--json and --stats cannot be used together");
	if (agent != NULL && nsubagents > 0)
		return mc_usage_error("--agent is for the main session, --subagent for a child: not both");
	if (print_default != NULL || fragment != NULL) {
		opt = print_default != NULL ? "--print-default" : "--fragment";
		name = print_default != NULL ? print_default : fragment;
		if (json || stats || agent || nsubagents || model || (print_default && fragment))
			return mc_usage_error("%s takes no other option", opt);
		if ((f = fragment_index(name)) == -1)
			return mc_usage_error("%s: unknown fragment \"%s\" (system, tools, skills, compact "
			    "or plan)", opt, name);
		if (fragment != NULL) {
			status = print_fragment(&R, f) == -1 ? MC_EXIT_FAIL : MC_EXIT_OK;
			render_free(&R);
			return mc_finish(status);
		}
		if ((p = bundled(f)) == NULL) {
			mc_err("no bundled fragment %s.md (a build problem)", fragment_names[f]);
			return MC_EXIT_FAIL;
		}
		fwrite(p->data, 1, p->len, stdout);
		return mc_finish(MC_EXIT_OK);
	}

	status = render(&R, model, json ? 'j' : stats ? 's' : 't', pretty) == -1 ?
	    MC_EXIT_FAIL : MC_EXIT_OK;
	render_free(&R);
	return mc_finish(status);
}
