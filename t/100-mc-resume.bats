#!/usr/bin/env bats
# mc -r (SPEC §25): a session resumed by its id or a prefix of it, or
# picked on the terminal; the last exchange shown on resume; /fork and
# --fork, which go on in a copy with "forked_from".

load helper
load fake
load mc

# session ID TITLE [CWD]: a session file of one exchange, as mc writes one
session() {
	mkdir -p "$MC_HOME/sessions"
	{
		jq -nc --arg id "$1" --arg t "$2" --arg cwd "${3:-$W}" \
			'{type:"session",id:$id,created:"2026-12-01T10:00:00Z",cwd:$cwd,
			  provider:"fake",model:"fake-model",title:$t}'
		jq -nc --arg t "$2" '{type:"message",role:"user",content:$t}'
		jq -nc --arg t "answer of $1" '{type:"message",role:"assistant",content:$t}'
	} > "$MC_HOME/sessions/$1.jsonl"
}

@test "resume: mc -r PREFIX resumes the one session whose id starts with it; -r ID and --resume=ID too" {
	fake_start "$(answers one two three)"
	use_fake
	session 20261201-100000-aaaaaa 'first one'
	session 20261201-110000-bbbbbb 'second one'
	run --separate-stderr mc -r 20261201-10 'go on' </dev/null
	assert_success
	assert_equal "$output" one
	assert_equal "$(fake_request 1 '[.body.messages[] | .content] | .[1:] | join("|")')" \
		'first one|answer of 20261201-100000-aaaaaa|go on'
	assert_equal "$(tail -1 "$MC_HOME/sessions/20261201-100000-aaaaaa.jsonl" | jq -r .type)" usage
	run --separate-stderr mc --resume=20261201-110000-bbbbbb 'and on' </dev/null
	assert_success
	assert_equal "$(fake_request 2 '.body.messages[1].content')" 'second one'
	run --separate-stderr mc -r20261201-11 'more' </dev/null
	assert_success
	assert_equal "$(fake_request 3 '.body.messages[1].content')" 'second one'
	assert_equal "$(session_files | wc -l)" 2
}

@test "resume: an ambiguous prefix lists the matches, one a line, exit 2; none, a clear error; nothing sent" {
	fake_start "$(answers one)"
	use_fake
	session 20261201-100000-aaaaaa 'first one'
	session 20261201-110000-bbbbbb 'second one'
	session 20261130-090000-cccccc 'elsewhere' /nowhere
	run --separate-stderr mc -r 2026120 'go on' </dev/null
	assert_failure 2
	assert_equal "$output" ''
	[[ "$stderr" == *"2026120: 2 sessions start with it"* ]]
	assert_equal "$(printf '%s\n' "$stderr" | grep -c '^  20261201-1[01]0000-')" 2
	[[ "$stderr" == *"first one"*"(1 turn)"* ]]
	[[ "$stderr" != *cccccc* ]]
	run --separate-stderr mc -r 2027 'go on' </dev/null
	assert_failure 2
	[[ "$stderr" == *"no session 2027: no session id is or starts with it"* ]]
	run --separate-stderr mc -r 'bad/id' 'go on' </dev/null
	assert_failure 2
	[[ "$stderr" == *'not a session id or the start of one: "bad/id"'* ]]
	# another directory's session is found by its id too, as with --session
	run --separate-stderr mc -r 20261130 --dry-run 'x' </dev/null
	assert_success
	assert_equal "$(fake_count)" 0
}

@test "resume: -r without an ID off a terminal is a usage error; -r goes with neither -c nor --session; --fork needs one" {
	run --separate-stderr mc -r </dev/null
	assert_failure 2
	[[ "$stderr" == *"-r without an ID picks a session on a terminal"* ]]
	run --separate-stderr mc -r X -c hi </dev/null
	assert_failure 2
	[[ "$stderr" == *"-c, --session and -r: one of them"* ]]
	run --separate-stderr mc --fork hi </dev/null
	assert_failure 2
	[[ "$stderr" == *"--fork goes with -c, --session or -r"* ]]
	run --separate-stderr mc -c --fork --no-session hi </dev/null
	assert_failure 2
	run --separate-stderr mc sessions -r X
	assert_failure 2
}

@test "resume: mc -r on a terminal lists this directory's sessions newest first and resumes the one picked; a bad number asks again" {
	fake_start "$(answers 'picked answer')"
	use_fake
	session 20261201-100000-aaaaaa 'older one'
	session 20261201-110000-bbbbbb 'newer one'
	session 20261201-120000-cccccc 'not here' /nowhere
	touch -d '2026-12-01 10:00' "$MC_HOME/sessions/20261201-100000-aaaaaa.jsonl"
	touch -d '2026-12-01 11:00' "$MC_HOME/sessions/20261201-110000-bbbbbb.jsonl"
	on_tty 'mc -r'
	wait_for 'resume which session? (1-2'
	pane | grep -q '^   1  2026-12-01 11:00  newer one  (1 turn)$'
	pane | grep -q '^   2  2026-12-01 10:00  older one  (1 turn)$'
	[ "$(pane | grep -c 'not here')" -eq 0 ]
	keys 7 Enter
	wait_for 'not a number from 1 to 2: 7'
	keys 2 Enter
	wait_for 'mc>'
	wait_for 'session 20261201-100000-aaaaaa'
	keys 'go on' Enter
	wait_for 'picked answer'
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(fake_request 1 '.body.messages[1].content')" 'older one'
}

@test "resume: the picker cancels on Enter, q, Ctrl-D (exit 0) and Ctrl-C (exit 130); none to pick is an error" {
	session 20261201-100000-aaaaaa 'only one'
	for k in Enter q C-d; do
		on_tty 'mc -r'
		wait_for 'resume which session?'
		if [ "$k" = q ]; then keys q Enter; else keys "$k"; fi
		assert_equal "$(wait_status)" 0
		pane | grep -q 'no session resumed'
		rm -f "$STATUS"
	done
	on_tty 'mc -r'
	wait_for 'resume which session?'
	keys C-c
	assert_equal "$(wait_status)" 130
	rm -f "$STATUS" "$MC_HOME/sessions/"*
	on_tty 'mc -r'
	assert_equal "$(wait_status)" 1
	pane | grep -q 'no session of this directory'
}

@test "resume: a resumed session shows its last exchange before the prompt, cut to a few lines; a one-shot run does not" {
	fake_start "$(answers "$(printf 'a1\na2\na3\na4\na5\na6')" 'two')"
	use_fake
	run --separate-stderr mc "$(printf 'q1\nq2')" </dev/null
	assert_success
	run --separate-stderr mc -c 'second question' </dev/null
	assert_success
	assert_equal "$output" two
	[[ "$stderr" != *"last exchange"* ]]
	id=$(basename "$(session_files)" .jsonl)
	on_tty "mc --session $id"
	wait_for 'mc>'
	pane | grep -q '^last exchange of this session:$'
	pane | grep -q '^  you> second question$'
	pane | grep -q '^   mc> two$'
	keys C-d
	assert_equal "$(wait_status)" 0
	# the first exchange, cut at four lines of the answer
	f=$(session_files)
	head -n 4 "$f" > "$f.new" && mv "$f.new" "$f"
	on_tty 'mc -c'
	wait_for 'mc>'
	pane | grep -q '^  you> q1$'
	pane | grep -q '^       q2$'
	pane | grep -q '^   mc> a1$'
	pane | grep -q '^       a4$'
	[ "$(pane | grep -c 'a5')" -eq 0 ]
	pane | grep -q '^       \[... 2 more lines\]$'
	keys C-d
	assert_equal "$(wait_status)" 0
}

@test "fork: /fork goes on in a new session file with forked_from; the old file stays as it was" {
	fake_start "$(answers one two)"
	use_fake
	run --separate-stderr mc 'first question' </dev/null
	assert_success
	old=$(session_files)
	oid=$(basename "$old" .jsonl)
	cp "$old" before.jsonl
	on_tty 'mc -c'
	wait_for 'mc>'
	keys '/fork' Enter
	wait_for 'forked from it'
	keys 'after the fork' Enter
	wait_for 'two'
	keys C-d
	assert_equal "$(wait_status)" 0
	cmp "$old" before.jsonl
	new=$(grep -l '"forked_from"' $(session_files))
	[ "$new" != "$old" ]
	assert_equal "$(head -1 "$new" | jq -r '.forked_from, .title')" "$(printf '%s\nfirst question' "$oid")"
	assert_equal "$(jq -r 'select(.type == "message") | .content' "$new" | paste -sd'|')" \
		'first question|one|after the fork|two'
	assert_equal "$(fake_request 2 '[.body.messages[] | .content] | .[1:] | join("|")')" \
		'first question|one|after the fork'
	# mc -c goes on with the fork
	run --separate-stderr mc -c --dry-run 'x' </dev/null
	assert_success
	[[ "$output" == *'after the fork'* ]]
}

@test "fork: mc -c --fork one-shot, and mc --session ID --fork, leave the old file as it was" {
	fake_start "$(answers one two three)"
	use_fake
	run --separate-stderr mc 'first question' </dev/null
	old=$(session_files)
	oid=$(basename "$old" .jsonl)
	cp "$old" before.jsonl
	run --separate-stderr mc -c --fork 'forked question' </dev/null
	assert_success
	assert_equal "$output" two
	[[ "$stderr" == *"session $oid goes on as "*", forked from it"* ]]
	cmp "$old" before.jsonl
	assert_equal "$(session_files | wc -l)" 2
	new=$(grep -l '"forked_from"' $(session_files))
	assert_equal "$(head -1 "$new" | jq -r .forked_from)" "$oid"
	assert_equal "$(jq -r 'select(.type == "message") | .content' "$new" | paste -sd'|')" \
		'first question|one|forked question|two'
	run --separate-stderr mc --session "$oid" --fork --json 'again' </dev/null
	assert_success
	assert_equal "$(session_files | wc -l)" 3
	sid=$(jqo -r 'select(.type == "session") | .id')
	[ "$sid" != "$oid" ]
	assert_equal "$(jqo -r 'select(.type == "session") | .forked_from')" "$oid"
	assert_equal "$(head -1 "$MC_HOME/sessions/$sid.jsonl" | jq -r .forked_from)" "$oid"
	cmp "$old" before.jsonl
}

@test "fork and recap: /fork before the first message says there is nothing to fork; the recap counts the tool calls" {
	echo hello > notes.txt
	fake_start "[$(calls "$(call c1 read '{"path":"notes.txt"}')"),$(text 'it says hello')]"
	use_fake
	on_tty mc
	wait_for 'mc>'
	keys '/fork' Enter
	wait_for 'nothing to fork: no session yet'
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(session_files | wc -l)" 0
	run --separate-stderr mc 'what does notes.txt say?' </dev/null
	assert_success
	rm -f "$STATUS"
	on_tty 'mc -c'
	wait_for 'mc>'
	pane | grep -q '^  you> what does notes.txt say?$'
	pane | grep -q '^       (1 tool call)$'
	pane | grep -q '^   mc> it says hello$'
	keys C-d
	assert_equal "$(wait_status)" 0
}
