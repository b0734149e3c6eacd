/* repl.c: the interactive session: line editing, history, slash commands. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include "diag.h"
#include "fsread.h"
#include "json.h"
#include "mc.h"

static const char help_text[] =
    "  /help         this list\n"
    "  /prompt       show the system prompt\n"
    "  /skills       list the skills\n"
    "  /context      instruction files, hooks, MCP servers, prompt size and session\n"
    "  /model [ID]   show or change the model\n"
    "  /usage        the session's tokens\n"
    "  /reasoning    the last answer's reasoning, whole\n"
    "  /compact [FOCUS]\n"
    "                summarize the older conversation (FOCUS: what matters most)\n"
    "  /new          start a new session\n"
    "  /fork         go on in a copy of the session (the old one left as it is)\n"
    "  /mode [MODE]  show or change the mode: default, accept-edits, plan or yes\n"
    "  /go [TEXT]    leave plan mode and carry the plan out\n"
    "  /SERVER:NAME [ARGS]\n"
    "                send an MCP server's prompt\n"
    "  /title [TEXT] show or set the session's title\n"
    "  /NAME [ARGS]  run a custom command (listed below)\n"
    "  /undo [--force]\n"
    "                put back the files the last turn changed\n"
    "  /rewind [N [files|conversation|both]] [--force]\n"
    "                list the turns; put files, conversation or both back to\n"
    "                before turn N (the conversation as a new session)\n"
    "  /exit         leave (or Ctrl-D)\n"
    "!COMMAND runs COMMAND in the sandbox; its output joins the conversation.\n"
    "@PATH attaches a file, @DIR/ lists a folder (Tab completes them).\n"
    "End a line with \\ to continue it; a line \"\"\" opens and closes a block.\n"
    "Ctrl-C cancels the answer in flight.\n";

#define PASTE_CAP (1u << 20)	/* characters of one paste */

static char *
el_prompt(EditLine *el)
{
	struct driver *d;

	el_get(el, EL_CLIENTDATA, &d);
	if (d->t.more)
		return "... ";
	return d->t.color ? "\1\033[1m\1mc>\1\033[0m\1 " : "mc> ";
}

/* Pasted text, as it is read. */
struct pasted {
	wchar_t *text;
	size_t n, cap;
	int cr;			/* the last character was a carriage return */
	int cut;		/* over PASTE_CAP: the rest is dropped */
};

/* One character of a paste: a carriage return, or the pair CR LF, is a
 * newline (terminals send a pasted line end as CR). */
static void
paste_add(struct pasted *p, wchar_t c)
{
	wchar_t *t;

	if (c == L'\n' && p->cr) {
		p->cr = 0;
		return;
	}
	if ((p->cr = c == L'\r'))
		c = L'\n';
	if (p->n + 2 > p->cap) {
		if (p->cap >= PASTE_CAP) {
			p->cut = 1;
			return;
		}
		p->cap = p->cap ? p->cap * 2 : 256;
		if ((t = reallocarray(p->text, p->cap, sizeof *t)) == NULL)
			mc_oom();
		p->text = t;
	}
	p->text[p->n++] = c;
}

/*
 * Bound to ESC [ 200 ~, which a terminal in bracketed paste mode sends
 * before pasted text (and ESC [ 201 ~ after it): the text, newlines and
 * all, goes into the line as it is, so that a paste of many lines is one
 * message, sent when the user presses Enter.
 */
static unsigned char
paste(EditLine *el, int ch)
{
	static const wchar_t end[] = L"\033[201~";
	const size_t nend = sizeof end / sizeof end[0] - 1;
	struct pasted p = {0};
	size_t m = 0, i;
	wchar_t c;
	int ok;

	(void)ch;
	while (m < nend && el_wgetc(el, &c) == 1) {
		if (c == end[m]) {
			m++;
			continue;
		}
		/* What began like the end marker was text after all. */
		for (i = 0; i < m; i++)
			paste_add(&p, end[i]);
		if ((m = c == end[0]) == 0)
			paste_add(&p, c);
	}
	ok = !p.cut;
	if (p.n > 0) {
		p.text[p.n] = L'\0';
		ok = el_winsertstr(el, p.text) == 0 && ok;
	}
	free(p.text);
	return ok ? CC_REFRESH : CC_REFRESH_BEEP;
}

/*
 * One entry: a line, lines joined by a trailing backslash, or a block
 * between two lines """. NULL at the end of input (Ctrl-D). With
 * bracketed set, the terminal marks pasted text while a line is read.
 */
static char *
read_entry(struct driver *d, EditLine *el, FILE *ui, int bracketed)
{
	struct mc_buf b = {0};
	const char *line;
	int n, block = 0;
	size_t len;

	for (;;) {
		d->t.more = b.len > 0 || block;
		interrupted = 0;
		if (bracketed) {
			fputs("\033[?2004h", ui);
			fflush(ui);
		}
		line = el_gets(el, &n);
		if (bracketed) {
			fputs("\033[?2004l", ui);
			fflush(ui);
		}
		if (terminated) {
			mc_buf_free(&b);
			return NULL;
		}
		if (interrupted) {	/* Ctrl-C: drop what was typed */
			fputs("^C\n", ui);
			fflush(ui);
			b.len = 0;
			block = 0;
			continue;
		}
		if (line == NULL || n <= 0) {
			if (n == -1 && errno == EINTR)
				continue;
			mc_buf_free(&b);
			putc('\n', ui);
			return NULL;
		}
		len = strlen(line);
		if (len && line[len - 1] == '\n')
			len--;
		if (block) {
			if (len == 3 && memcmp(line, "\"\"\"", 3) == 0)
				break;
			mc_buf_add(&b, line, len);
			mc_buf_addc(&b, '\n');
			continue;
		}
		if (b.len == 0 && len == 3 && memcmp(line, "\"\"\"", 3) == 0) {
			block = 1;
			continue;
		}
		if (len && line[len - 1] == '\\') {
			mc_buf_add(&b, line, len - 1);
			mc_buf_addc(&b, '\n');
			continue;
		}
		mc_buf_add(&b, line, len);
		break;
	}
	mc_buf_adds(&b, "");
	return mc_buf_steal(&b);
}

static void
list_skills(struct driver *d)
{
	const cJSON *e;
	const char *desc, *name;
	cJSON *doc;
	int n = 0;

	if ((doc = stages_context(d)) == NULL)
		return;
	cJSON_ArrayForEach(e, mc_json_arr(doc, "skills")) {
		struct mc_buf b = {0};
		int on = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "enabled"));

		desc = mc_json_str(e, "description");
		name = mc_json_str(e, "name");
		mc_buf_printf(&b, "  %s%s%s%s\n", name ? name : "?", desc && *desc ? ": " : "",
		    desc ? desc : "", on ? "" : " (disabled)");
		show(d, b.data, b.len);
		mc_buf_free(&b);
		n++;
	}
	if (n == 0)
		note(d, "no skills (see mc-skills(1) for where they are found)");
	cJSON_Delete(doc);
}

static void
show_context(struct driver *d)
{
	struct mc_buf b = {0}, stats = {0};
	const cJSON *e;
	cJSON *doc;

	if ((doc = stages_context(d)) == NULL)
		return;
	cJSON_ArrayForEach(e, mc_json_arr(doc, "instructions"))
		mc_buf_printf(&b, "  %s (%s, %.0f bytes)\n", mc_json_str(e, "path"),
		    mc_json_str(e, "source"),
		    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(e, "bytes")));
	if (b.len == 0)
		mc_buf_adds(&b, "  no AGENTS.md instruction files\n");
	cJSON_ArrayForEach(e, mc_json_arr(doc, "diagnostics"))
		mc_buf_printf(&b, "  %s: %s: %s\n", mc_json_str(e, "severity"),
		    mc_json_str(e, "path") ? mc_json_str(e, "path") : "-",
		    mc_json_str(e, "message"));
	hooks_show(d, &b);	/* hooks.c */
	mcp_show(d, &b);	/* mcp.c */
	show(d, b.data, b.len);
	mc_buf_free(&b);

	/* The section table, by the same program that renders the prompt. */
	if ((b.data = cJSON_PrintUnformatted(doc)) == NULL)
		mc_oom();
	cJSON_Delete(doc);
	if (stages_stats(d, b.data, &stats) == 0)
		show(d, stats.data, stats.len);
	free(b.data);
	mc_buf_free(&stats);
	note(d, "prompt: %zu bytes (about %zu tokens); model: %s; provider: %s",
	    d->s.prompt.len, d->s.prompt.len / 4, d->s.model ? d->s.model : "default",
	    d->s.provider ? d->s.provider : "default");
	if (d->s.open)
		note(d, "session %s: %zu items, %zu bytes", d->s.file.id, d->s.file.items,
		    d->s.file.bytes);
	else
		note(d, "session: none yet (created with the first message)");
}

/* /model ID: the next request's model. The prompt stays as it is: it is
 * frozen for the session. */
static void
set_model(struct driver *d, const char *id)
{
	char *m;

	if (*id == '\0') {
		note(d, "model: %s", d->s.model ? d->s.model : "default");
		return;
	}
	if (strcspn(id, " \t") != strlen(id)) {
		mc_err("/model takes one ID");
		return;
	}
	m = mc_strdup(id);
	free(d->s.model);
	d->s.model = m;
	d->s.tell_model = 1;
	session_record(d);
	note(d, "model: %s (the prompt stays as it is; a per-model prompt override for it "
	    "applies from the next launch or /new)", m);
}

/* /new: the prompt rendered again, then a new session, with the MCP
 * servers started afresh. An instruction
 * file mc-discover refuses stops it, as at launch, unless --keep-going:
 * the session goes on as it was. */
/* /usage: the session's tokens and this run's; what went into the
 * provider's prompt cache only when it counts that (Messages). */
static void
show_usage(struct driver *d)
{
	char written[64] = "";

	if (d->s.used.written > 0)
		snprintf(written, sizeof written, ", %lld written to the cache", d->s.used.written);
	note(d, "session: %lld tokens in (%lld cached%s), %lld out; this run: %lld in, %lld out",
	    d->s.used.input, d->s.used.cached, written, d->s.used.output, d->s.run.input,
	    d->s.run.output);
}

static void
new_session(struct driver *d)
{
	struct mc_buf b = {0};

	if (stages_prompt(d, 0, d->c.keep_going, -1, &b) == -1) {
		mc_buf_free(&b);
		if (!interrupted)
			mc_err("/new: the prompt could not be built (above); the session goes on "
			    "as it was");
		return;
	}
	session_forget(d);
	mcp_restart(d);
	toolsearch_forget(d);	/* the new session has loaded none */
	mc_buf_free(&d->s.prompt);
	d->s.prompt = b;
	note(d, "new session");
}

/* /title [TEXT]: show the title, or set it (for the header, when the
 * session has not begun; title.c cuts it). */
static void
title_command(struct driver *d, const char *arg)
{
	char buf[256], *t;

	if (*arg == '\0') {
		if (d->s.title != NULL)
			note(d, "title: %s", mc_sanitize(buf, sizeof buf, d->s.title));
		else
			note(d, "no title yet (the first message's first line, or /title TEXT)");
		return;
	}
	if ((t = title_of(arg)) == NULL)
		return;
	if (d->s.open && session_add(d, title_line(t)) == -1) {
		free(t);
		return;
	}
	free(d->s.title);
	d->s.title = t;
	note(d, "title: %s", mc_sanitize(buf, sizeof buf, t));
}

/* A slash command. Returns 1 to leave the session; *send is a message to
 * send as if typed (/go), or NULL. */
static int
command(struct driver *d, const char *line, char **send)
{
	const char *argp = line + strcspn(line, " \t");
	size_t n = (size_t)(argp - line);

	argp += strspn(argp, " \t");
#define IS(s) (n == sizeof(s) - 1 && memcmp(line, s, n) == 0)
	if (IS("/exit") || IS("/quit"))
		return 1;
	if (IS("/help")) {
		fputs(help_text, stdout);
		mcp_help(d);	/* mcp.c: the servers' prompts */
		commands_help(d);	/* commands.c: the custom commands */
	} else if (IS("/prompt")) {	/* pager.c */
		page(d, d->s.prompt.data ? d->s.prompt.data : "", d->s.prompt.len);
	} else if (IS("/skills")) {
		list_skills(d);
	} else if (IS("/context")) {
		show_context(d);
	} else if (IS("/model")) {
		set_model(d, argp);
	} else if (IS("/usage")) {
		show_usage(d);
	} else if (IS("/reasoning")) {	/* thought.c */
		reasoning_slash(d);
	} else if (IS("/compact")) {	/* compact2: SPEC 12, compact.c */
		interrupted = 0;
		compact_run(d, COMPACT_HAND, *argp ? argp : NULL, NULL);
		interrupted = 0;
	} else if (IS("/new")) {
		new_session(d);
	} else if (IS("/fork")) {	/* session.c */
		if (*argp != '\0')
			mc_err("/fork takes no argument");
		else
			session_fork(d);
	} else if (IS("/mode")) {	/* modes.c */
		mode_slash(d, argp);
	} else if (IS("/go")) {
		*send = mode_go(d, argp);
	} else if (mcp_prompt(d, line, send) != 0) {
		;	/* mcp.c: /SERVER:NAME ARGS, a server's prompt (or said why not) */
	} else if (IS("/undo")) {	/* rewind.c */
		rewind_undo(d, argp);
	} else if (IS("/rewind")) {
		rewind_command(d, argp);
	} else if (IS("/title")) {	/* title.c */
		title_command(d, argp);
	} else if (commands_slash(d, line, send) != 0) {
		;	/* commands.c: a custom command's prompt (or said why not) */
	} else {
		mc_err("unknown command %.*s; /help lists them", (int)n, line);
	}
#undef IS
	fflush(stdout);
	return 0;
}

static char *
history_path(const struct driver *d)
{
	return mc_path_join(d->c.set.home, "history");
}

static void
history_save(const struct driver *d, History *h)
{
	char *path = history_path(d);
	HistEvent ev;
	int fd;

	/* Create it private first: the history holds what the user typed. */
	mkdir(d->c.set.home, 0700);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) != -1) {
		fchmod(fd, 0600);
		close(fd);
		history(h, &ev, H_SAVE, path);
	}
	free(path);
}

/*
 * The banner, on the terminal the line editor writes to: the version,
 * the model, the session, and, under --yes, that nothing is asked.
 */
static void
banner(const struct driver *d, FILE *ui)
{
	const char *dim = d->t.color ? "\033[2m" : "", *off = d->t.color ? "\033[0m" : "";

	fprintf(ui, "%smc %s, model %s%s%s. /help for commands, Ctrl-D to leave.%s\n", dim,
	    MC_VERSION, d->s.model ? d->s.model : "default", d->s.open ? ", session " : "",
	    d->s.open ? d->s.file.id : "", off);
	if (d->c.yes)
		fprintf(ui, "%sapprovals are off (--yes): write, edit, bash and MCP tools run "
		    "without asking%s\n", dim, off);
	fflush(ui);
}

int
interactive(struct driver *d)
{
	struct termios quiet;
	EditLine *el;
	History *h;
	HistEvent ev;
	char *line, *path, *send;
	const char *term;
	int r, bracketed;
	FILE *ui = stdout;

	h = history_init();
	history(h, &ev, H_SETSIZE, 1000);
	history(h, &ev, H_SETUNIQUE, 1);
	path = history_path(d);
	history(h, &ev, H_LOAD, path);
	free(path);
	/* Answers redirected to a file: the prompt, the banner and what is
	 * typed still go to the terminal. */
	if (!isatty(STDOUT_FILENO) && (ui = fopen("/dev/tty", "we")) == NULL)
		ui = stdout;
	d->t.el = el = el_init("mc", stdin, ui, stderr);
	el_set(el, EL_CLIENTDATA, d);
	el_set(el, EL_EDITOR, "emacs");
	el_set(el, EL_SIGNAL, 1);
	el_set(el, EL_HIST, history, h);
	el_set(el, EL_PROMPT_ESC, el_prompt, '\1');
	el_source(el, NULL);
	/* The wide call: the narrow one copies the two names and never frees them. */
	el_wset(el, EL_ADDFN, L"mc-paste", L"take pasted text as it is", paste);
	el_set(el, EL_BIND, "\\e[200~", "mc-paste", NULL);
	el_wset(el, EL_ADDFN, L"mc-complete", L"complete an @path", tab_complete);
	el_set(el, EL_BIND, "^I", "mc-complete", NULL);
	term = getenv("TERM");
	bracketed = isatty(fileno(ui)) && !(term && strcmp(term, "dumb") == 0);

	banner(d, ui);
	if (d->s.open)
		recap(d, ui);	/* recap.c: a resumed session's last exchange */
	while ((line = read_entry(d, el, ui, bracketed)) != NULL) {
		if (line[strspn(line, " \t\n")] == '\0') {
			free(line);
			continue;
		}
		history(h, &ev, H_ENTER, line);
		history_save(d, h);
		if (line[0] == '/' && line[1] != '/') {
			send = NULL;
			r = command(d, line, &send);
			free(line);
			if (r)
				break;
			if ((line = send) == NULL)
				continue;
		}
		interrupted = 0;
		/* Keys typed while the answer streams are not echoed into it;
		 * they wait, and the next prompt reads them. */
		if ((d->t.tio_ok = tcgetattr(STDIN_FILENO, &d->t.tio) == 0)) {
			quiet = d->t.tio;
			quiet.c_lflag &= ~(tcflag_t)ECHO;
			tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
		}
		r = MC_EXIT_OK;
		if (line[0] == '!')	/* bang.c: a command of the user's, in the sandbox */
			bang_run(d, line);
		else	/* "//..." sends a message that starts with one slash. */
			r = outcome_status(turn(d, line[0] == '/' ? line + 1 : line));
		if (d->t.tio_ok)
			tcsetattr(STDIN_FILENO, TCSANOW, &d->t.tio);
		if (r == MC_EXIT_INTR && !terminated)
			note(d, "(cancelled)");
		interrupted = 0;
		free(line);
		if (terminated || hooks_fatal(d))	/* on_failure "fail" ends the session */
			break;
	}
	el_end(el);
	d->t.el = NULL;
	if (ui != stdout)
		fclose(ui);
	history_end(h);
	return hooks_fatal(d) ? MC_EXIT_FAIL : MC_EXIT_OK;
}
