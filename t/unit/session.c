/* session: whole lines, 0600, torn-line and interrupted-call repair, latest per directory. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "json.h"
#include "session.h"

static int fail;

#define CHECK(c, msg) do { if (!(c)) { printf("session: %s\n", msg); fail = 1; } } while (0)

static char *
slurp(const char *path)
{
	static char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	n = fd == -1 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd != -1)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void
add(struct mc_session *s, const char *json)
{
	char err[256];
	cJSON *item = cJSON_Parse(json);

	CHECK(item != NULL && mc_session_append(s, item, err, sizeof err) == 0, "append failed");
	cJSON_Delete(item);
}

/* Files of the sessions directory (hidden ones too), counted. */
static int
files_in(const char *home)
{
	char cmd[512];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof cmd, "ls -A '%s/sessions' | wc -l", home);
	if ((p = popen(cmd, "r")) != NULL) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

/* mc_session_create_items: the compacted session, whole from the start. */
static void
created_with_items(const char *home)
{
	static const char items[] =
	    "{\"type\":\"message\",\"role\":\"user\",\"content\":\"<Conversation-Summary>S</Conversation-Summary>\"}\n"
	    "{\"type\":\"function_call\",\"call_id\":\"k1\",\"name\":\"read\",\"arguments\":\"{}\"}\n"
	    "{\"type\":\"function_call_output\",\"call_id\":\"k1\",\"output\":\"ok\"}\n";
	struct mc_session s, r;
	struct stat st;
	char err[512], *text;
	cJSON *more = cJSON_Parse("{\"compacted_from\":\"20260101-000000-abc123\"}");
	int before = files_in(home);

	CHECK(mc_session_create_items(&s, home, "/repo", "fake", "m", more, items, sizeof items - 1,
	    err, sizeof err) == 0, err);
	CHECK(s.fd != -1 && s.items == 3 && mc_session_has_call(&s, "k1"), "items not taken");
	CHECK(s.lines.len == sizeof items - 1 && memcmp(s.lines.data, items, s.lines.len) == 0,
	    "lines differ");
	CHECK(strcmp(mc_json_str(s.header, "compacted_from"), "20260101-000000-abc123") == 0,
	    "compacted_from not in the header");
	CHECK(stat(s.path, &st) == 0 && (st.st_mode & 0777) == 0600, "compacted file is not 0600");
	CHECK(files_in(home) == before + 1, "a temporary file was left behind");
	text = slurp(s.path);
	CHECK(strncmp(text, "{\"type\":\"session\",\"id\":\"", 24) == 0 &&
	    strstr(text, "\"compacted_from\":\"20260101-000000-abc123\"}\n{") != NULL &&
	    strcmp(strchr(text, '\n') + 1, items) == 0, "file is not header then items");
	CHECK(mc_session_open(&r, home, s.id, err, sizeof err) == -1 &&
	    strstr(err, "in use") != NULL, "the new file is not locked");
	add(&s, "{\"type\":\"message\",\"role\":\"user\",\"content\":\"more\"}");
	CHECK(s.items == 4 && strstr(slurp(s.path), "\"content\":\"more\"}\n") != NULL,
	    "append after create_items");
	mc_session_close(&s);

	/* Bad items: an error naming the line, no file left. */
	before = files_in(home);
	CHECK(mc_session_create_items(&s, home, "/repo", NULL, NULL, NULL, "{\"type\":\n", 10,
	    err, sizeof err) == -1 && strstr(err, ":2: ") != NULL, "bad items accepted");
	CHECK(files_in(home) == before, "a failed create left a file");

	/* In memory: no file, no id. */
	CHECK(mc_session_create_items(&s, NULL, "/repo", NULL, NULL, more, items, sizeof items - 1,
	    err, sizeof err) == 0 && s.fd == -1 && s.path == NULL && s.id == NULL && s.items == 3,
	    "memory session");
	mc_session_close(&s);
	cJSON_Delete(more);
}

static void
turn_at(const cJSON *item, size_t off, void *arg)
{
	struct mc_buf *b = arg;

	mc_buf_printf(b, "%zu:%s;", off, mc_json_str(item, "content"));
}

/* The turns of a session's lines: the user's own messages only. */
static void
turns(void)
{
	static const char lines[] =
	    "{\"type\":\"message\",\"role\":\"user\",\"content\":\"one\"}\n"
	    "{\"type\":\"message\",\"role\":\"user\",\"content\":\"<Context File=a/AGENTS.md>x</Context>\"}\n"
	    "{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"user\"}\n"
	    "{\"type\":\"message\",\"role\":\"user\",\"content\":\"<Conversation-Summary>s</Conversation-Summary>\"}\n"
	    "{\"type\":\"message\",\"role\":\"user\",\"content\":\"said\",\"hook\":\"session_start\"}\n"
	    "{\"type\":\"usage\",\"input_tokens\":1}\n"
	    "{\"type\":\"message\",\"role\":\"user\",\"content\":\"two\"}\n"
	    "{\"type\":\"message\",\"role\":\"user\",\"content\":\"torn";
	struct mc_buf b = {0};

	CHECK(mc_session_turns(lines, sizeof lines - 1, turn_at, &b) == 2, "turns miscounted");
	mc_buf_adds(&b, "");
	CHECK(strcmp(b.data, "0:one;386:two;") == 0, "turns' offsets or texts");
	CHECK(mc_session_turns("", 0, NULL, NULL) == 0, "turns of nothing");
	mc_buf_free(&b);
}

int
main(void)
{
	char home[] = "/tmp/mc-unit-session.XXXXXX", err[512], *id, *text, *other;
	struct mc_session s, r;
	struct stat st;
	int fd;

	if (mkdtemp(home) == NULL)
		return 1;
	turns();
	CHECK(mc_session_id_valid("20260101-000000-abc123"), "valid id refused");
	CHECK(!mc_session_id_valid("../x") && !mc_session_id_valid("") &&
	    !mc_session_id_valid("-x") && !mc_session_id_valid("a/b"), "bad id accepted");

	CHECK(mc_session_create(&s, home, "/repo", "openai", NULL, NULL, err, sizeof err) == 0, err);
	CHECK(stat(s.path, &st) == 0 && (st.st_mode & 0777) == 0600, "session file is not 0600");
	add(&s, "{\"type\":\"message\",\"role\":\"user\",\"content\":\"two\\nlines\"}");
	add(&s, "{\"type\":\"function_call\",\"call_id\":\"c1\",\"name\":\"read\",\"arguments\":\"{}\"}");
	add(&s, "{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"ok\"}");
	add(&s, "{\"type\":\"function_call\",\"call_id\":\"c2\",\"name\":\"bash\",\"arguments\":\"{}\"}");
	CHECK(s.items == 4, "items not counted");
	text = slurp(s.path);
	CHECK(strncmp(text, "{\"type\":\"session\",\"id\":\"", 24) == 0, "header not first");
	CHECK(strstr(text, "\"provider\":\"openai\",\"model\":null}\n") != NULL, "header fields");
	CHECK(strstr(text, "two\\nlines\"}\n{") != NULL, "an item is not one line");
	/* A torn line, as a crash in the middle of a write would leave. */
	fd = open(s.path, O_WRONLY | O_APPEND);
	CHECK(fd != -1 && write(fd, "{\"type\":\"mess", 13) == 13, "cannot tear");
	close(fd);
	id = mc_strdup(s.id);
	mc_session_close(&s);

	CHECK(mc_session_open(&r, home, id, err, sizeof err) == 0, err);
	CHECK(r.dropped == 13, "torn line not dropped");
	CHECK(r.repaired == 1, "dangling call c2 not repaired");
	CHECK(strcmp(mc_json_str(r.header, "cwd"), "/repo") == 0, "header cwd");
	text = slurp(r.path);
	CHECK(strstr(text, "\"call_id\":\"c2\",\"output\":\"error: this call was interrupted") != NULL,
	    "no interrupted output for c2");
	CHECK(strstr(text, "{\"type\":\"mess") == strstr(text, "{\"type\":\"message\""),
	    "torn bytes left");
	CHECK(text[strlen(text) - 1] == '\n', "file does not end in a newline");
	mc_session_close(&r);
	CHECK(mc_session_open(&r, home, id, err, sizeof err) == 0 && r.repaired == 0,
	    "repair is not idempotent");
	mc_session_close(&r);

	/* The latest session is per directory. */
	CHECK(mc_session_create(&s, home, "/other", NULL, NULL, NULL, err, sizeof err) == 0, err);
	other = mc_strdup(s.id);
	mc_session_close(&s);
	CHECK(mc_session_latest(home, "/repo", &text, err, sizeof err) == 0 &&
	    strcmp(text, id) == 0, "latest for /repo");
	free(text);
	CHECK(mc_session_latest(home, "/other", &text, err, sizeof err) == 0 &&
	    strcmp(text, other) == 0, "latest for /other");
	free(text);
	CHECK(mc_session_latest(home, "/none", &text, err, sizeof err) == 1, "latest for /none");
	CHECK(mc_session_open(&r, home, "nosuch", err, sizeof err) == -1 &&
	    strstr(err, "no session nosuch") != NULL, "missing session");

	created_with_items(home);

	free(id);
	free(other);
	snprintf(err, sizeof err, "rm -rf '%s'", home);
	if (system(err) != 0)
		return 1;
	return fail;
}
