#!/usr/bin/env bats
# mc's hooks (SPEC §13): pre_tool before approval, post_tool after the
# output, session_start once per session, stop when the model is done;
# their timeouts, their settings' errors, their --json approval events;
# and the tool environment (SPEC §14) that bash and hooks both get.

load helper
load fake
load mc

# A hook script in the repository's parent, out of the model's way:
# script NAME BODY writes $BATS_TEST_TMPDIR/NAME and prints its path.
script() {
	printf '#!/bin/sh\n%s\n' "$2" > "$BATS_TEST_TMPDIR/$1"
	chmod +x "$BATS_TEST_TMPDIR/$1"
	printf '%s' "$BATS_TEST_TMPDIR/$1"
}

# last_user N: the content of request N's last user message
last_user() {
	fake_request "$1" '[.body.messages[] | select(.role == "user")][-1].content'
}

@test "pre_tool: exit 2 denies bash before it runs; the hook's stderr is the tool output the model reads" {
	local deny
	deny=$(script deny 'cat > "$0.in"; pwd > "$0.pwd"; echo "no bash here: use read" >&2; exit 2')
	fake_start "[$(calls "$(call c1 bash '{"command":"touch ran"}')"), $(answers ok | jq -c '.[0]')]"
	hooks "{\"pre_tool\":[{\"match\":\"^bash\$\",\"command\":\"$deny\"}]}"
	run --separate-stderr mc --yes 'make a file' </dev/null
	assert_success
	assert_output ok
	[ ! -e ran ]
	assert_equal "$(tool_content 2 c1)" "no bash here: use read"
	assert_equal "$stderr" "mc: hooks.pre_tool[0] refused bash: no bash here: use read"
	# its stdin: the function_call item, one JSON line; its directory: the working one
	assert_equal "$(jq -c . "$deny.in")" '{"type":"function_call","call_id":"c1","name":"bash","arguments":"{\"command\":\"touch ran\"}"}'
	assert_equal "$(wc -l < "$deny.in")" 1
	assert_equal "$(cat "$deny.pwd")" "$W"
}

@test "pre_tool: exit 0 goes on to approval: a one-shot run without --yes still refuses bash, with --yes it runs" {
	local ok
	ok=$(script ok 'cat >/dev/null; echo x >> "$0.count"; echo "fine" >&2')
	fake_start "[$(calls "$(call c1 bash '{"command":"touch ran"}')"), $(answers done | jq -c '.[0]'),
	  $(calls "$(call c2 bash '{"command":"touch ran"}')"), $(answers done | jq -c '.[0]')]"
	hooks "{\"pre_tool\":[{\"command\":\"$ok\"}]}"
	run --separate-stderr mc 'make a file' </dev/null
	assert_success
	[ ! -e ran ]
	assert_equal "$(wc -l < "$ok.count")" 1
	[[ $(tool_content 2 c1) == refused:* ]]
	assert_equal "$stderr" "mc: refused bash (one-shot runs need --yes to run write, edit or bash)"
	run --separate-stderr mc --yes 'make a file' </dev/null
	assert_success
	[ -e ran ]
	assert_equal "$(wc -l < "$ok.count")" 2
	assert_equal "$stderr" ""
}

@test "pre_tool: another exit status is a warning and the call goes on" {
	local odd
	odd=$(script odd 'echo "oops: the linter is missing" >&2; echo more >&2; exit 1')
	fake_start "[$(calls "$(call c1 bash '{"command":"touch ran"}')"), $(answers done | jq -c '.[0]')]"
	hooks "{\"pre_tool\":[{\"command\":\"$odd\"}]}"
	run --separate-stderr mc --yes 'make a file' </dev/null
	assert_success
	[ -e ran ]
	assert_equal "$stderr" "mc: warning: hooks.pre_tool[0]: exit status 1: oops: the linter is missing"
	[[ $(tool_content 2 c1) == *'[exit status 0]'* ]]
}

@test "pre_tool: match picks tools by name; hooks run in order and the first deny wins" {
	local log=$BATS_TEST_TMPDIR/order
	printf 'x\n' > a.txt
	fake_start "[$(calls "$(call c1 read '{"path":"a.txt"}')" "$(call c2 bash '{"command":"touch ran"}')"),
	  $(answers done | jq -c '.[0]')]"
	hooks "{\"pre_tool\":[
	  {\"command\":\"echo first \$(jq -r .name) >> $log\"},
	  {\"match\":\"bash|write\",\"command\":\"echo second >> $log; echo second says no >&2; exit 2\"},
	  {\"match\":\"bash\",\"command\":\"echo third >> $log; echo third says no >&2; exit 2\"},
	  {\"match\":\"^rea\",\"command\":\"echo fourth >> $log\"}]}"
	run --separate-stderr mc --yes 'read, then run' </dev/null
	assert_success
	assert_equal "$(cat "$log")" "$(printf 'first read\nfourth\nfirst bash\nsecond')"
	[[ $(tool_content 2 c1) == *$'1\tx'* ]]
	assert_equal "$(tool_content 2 c2)" "second says no"
	[ ! -e ran ]
}

@test "pre_tool with --json: a deny is an approval event by \"hook\", then the tool output" {
	fake_start "[$(calls "$(call c1 bash '{"command":"touch ran"}')"), $(answers ok | jq -c '.[0]')]"
	hooks '{"pre_tool":[{"match":"bash","command":"echo not today >&2; exit 2"}]}'
	run --separate-stderr mc --json --yes 'make a file' </dev/null
	assert_success
	assert_equal "$(jqo -c 'select(.type == "approval")')" \
		'{"type":"approval","call_id":"c1","name":"bash","decision":"refused","by":"hook"}'
	assert_equal "$(jqo 'select(.type == "tool_output") | .output')" 'not today'
	assert_equal "$(jqo -r 'select(.type == "done") | .reason')" stop
	[ ! -e ran ]
}

@test "pre_tool and post_tool hooks read a large call whole, or none of it, without a hang" {
	head -c 2000000 /dev/zero | tr '\0' a > "$BATS_TEST_TMPDIR/big"
	jq -nc --rawfile c "$BATS_TEST_TMPDIR/big" --argjson done "$(answers done | jq -c '.[0]')" \
		'[{answer:{api:"chat",calls:[{call_id:"c1",name:"write",
		  arguments:({path:"big.txt",content:$c} | tojson)}]}}, $done]' > "$BATS_TEST_TMPDIR/script"
	fake_start "$BATS_TEST_TMPDIR/script"
	hooks "{\"pre_tool\":[{\"command\":\"jq -r .arguments | jq -r .content | wc -c > $BATS_TEST_TMPDIR/size\"},
	  {\"command\":\"exit 0\"}],
	  \"post_tool\":[{\"command\":\"true\"}, {\"command\":\"wc -c > $BATS_TEST_TMPDIR/post\"}]}"
	run --separate-stderr mc --yes 'write it' </dev/null
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(cat "$BATS_TEST_TMPDIR/size")" 2000001
	[ "$(cat "$BATS_TEST_TMPDIR/post")" -gt 2000000 ]
	assert_equal "$(wc -c < big.txt)" 2000000
}

@test "post_tool: exit 2 appends its stderr to the output the model reads; it gets the call and the output" {
	local post
	post=$(script post 'cat > "$0.in"; echo "lint: 3 warnings in hello.c" >&2; exit 2')
	fake_start "[$(calls "$(call c1 bash '{"command":"echo hello"}')"), $(answers done | jq -c '.[0]')]"
	hooks "{\"post_tool\":[{\"match\":\"bash\",\"command\":\"$post\"},
	  {\"match\":\"write\",\"command\":\"echo never >&2; exit 2\"},
	  {\"command\":\"echo odd >&2; exit 5\"}]}"
	run --separate-stderr mc --yes 'say hello' </dev/null
	assert_success
	# the failing one (a warning) tells the model the tool ran (SPEC 26)
	read_out=$(printf 'hello\n[exit status 0]\nlint: 3 warnings in hello.c\n%s' \
		'(the hook hooks.post_tool[2] failed after the tool ran: exit status 5: odd; target_ran: true)')
	assert_equal "$(tool_content 2 c1)" "$read_out"
	assert_equal "$(jq -r '.call.call_id + " " + .call.name' "$post.in")" "c1 bash"
	assert_equal "$(jq -r .output "$post.in")" "$(printf 'hello\n[exit status 0]')"
	assert_equal "$stderr" "mc: warning: hooks.post_tool[2]: exit status 5: odd"
	# the session keeps what the model read
	assert_equal "$(jq -r 'select(.type == "function_call_output") | .output' "$(session_files)")" \
		"$read_out"
}

@test "post_tool: only calls that ran have post_tool hooks, not refused or denied ones" {
	local log=$BATS_TEST_TMPDIR/post
	printf 'x\n' > a.txt
	fake_start "[$(calls "$(call c1 bash '{"command":"echo hello"}')" "$(call c2 read '{"path":"a.txt"}')" \
	  "$(call c3 grep '{"pattern":"x"}')"), $(answers done | jq -c '.[0]')]"
	hooks "{\"pre_tool\":[{\"match\":\"grep\",\"command\":\"exit 2\"}],
	  \"post_tool\":[{\"command\":\"jq -r .call.name >> $log\"}]}"
	run --separate-stderr mc 'say hello' </dev/null
	assert_success
	assert_equal "$(cat "$log")" read
	assert_equal "$(tool_content 2 c3)" "error: the hook hooks.pre_tool[0] refused this call."
}

@test "post_tool: the subagents tool's output has its hooks too, before it joins the session" {
	local post
	mkdir -p "$MC_HOME/subagents"
	printf -- '---\nname: Explorer\ndescription: finds facts\n---\nYou explore.\n' \
		> "$MC_HOME/subagents/explorer.md"
	post=$(script post 'cat > "$0.in"; echo "reviewed by the hook" >&2; exit 2')
	fake_start "[$(calls "$(call s1 subagents '{"tasks":[{"agent":"explorer","prompt":"look"}]}')"),
	  $(answers 'found it' 'done' | jq -c '.[]' | paste -sd,)]"
	hooks "{\"post_tool\":[{\"match\":\"^subagents$\",\"command\":\"$post\"}]}"
	run --separate-stderr mc --yes 'delegate' </dev/null
	assert_success
	assert_equal "$(fake_count)" 3
	assert_equal "$(jq -r .call.name "$post.in")" subagents
	[[ $(jq -r .output "$post.in") == '## task 1: explorer — done'*$'\nfound it' ]]
	[[ $(tool_content 3 s1) == '## task 1: explorer — done'*$'\nfound it\nreviewed by the hook' ]]
	# the parent's session (no "parent" in its header) keeps what the model read
	f=$(for f in $(session_files); do head -1 "$f" | jq -e 'has("parent")' >/dev/null || echo "$f"; done)
	[[ $(jq -r 'select(.type == "function_call_output") | .output' "$f") == *$'\nfound it\nreviewed by the hook' ]]
}

@test "session_start: its stdout is added once, before the first message; mc -c does not add it again" {
	local start
	start=$(script start 'cat > "$0.in"; echo x >> "$0.count"; echo "Build with make -j2."; echo "Branch: main"')
	fake_start "[$(answers one two | jq -c '.[]' | paste -sd,)]"
	hooks "{\"session_start\":[{\"command\":\"$start\"},
	  {\"command\":\"echo this one failed; exit 1\"},
	  {\"command\":\"echo ' '\"}]}"
	run --separate-stderr mc 'first' </dev/null
	assert_success
	assert_equal "$stderr" "mc: warning: hooks.session_start[1]: exit status 1"
	assert_equal "$(fake_request 1 '.body.messages[] | select(.role == "user") | .content')" \
		"$(printf '<Context File=hook:0>\nBuild with make -j2.\nBranch: main\n</Context>\n\nfirst')"
	f=$(session_files)
	assert_equal "$(jq -c '{session, cwd}' "$start.in")" \
		"$(jq -nc --arg s "$(basename "$f" .jsonl)" --arg c "$W" '{session: $s, cwd: $c}')"
	run --separate-stderr mc -c 'second' </dev/null
	assert_success
	assert_equal "$(wc -l < "$start.count")" 1
	assert_equal "$(fake_request 2 '[.body.messages[] | select(.content | tostring | contains("File=hook:"))] | length')" 1
	assert_equal "$(grep -c 'File=hook:' "$f")" 1
}

@test "session_start: once per interactive session, again after /new; /context lists the hooks" {
	local start
	start=$(script start 'echo x >> "$0.count"; echo "context from a hook"')
	fake_start "[$(answers one two three | jq -c '.[]' | paste -sd,)]"
	hooks "{\"session_start\":[{\"command\":\"$start\",\"timeout_s\":5}],
	  \"pre_tool\":[{\"match\":\"bash|write\",\"command\":\"exit 0\",\"on_failure\":\"block\"}],
	  \"stop\":[{\"command\":\"exit 0\"}]}"
	on_tty "mc"
	wait_prompt 1
	keys 'first' Enter
	wait_for one
	wait_prompt 2
	keys 'second' Enter
	wait_for two
	wait_prompt 3
	assert_equal "$(wc -l < "$start.count")" 1
	keys '/context' Enter
	wait_for 'hooks.stop[0]'
	pane | grep -F '  hooks.pre_tool[0] (match bash|write, 60 s, on_failure block): exit 0'
	pane | grep -F "  hooks.session_start[0] (5 s): $start"
	pane | grep -F '  hooks.stop[0] (60 s): exit 0'
	keys '/new' Enter
	wait_for 'new session'
	keys 'third' Enter
	wait_for three
	keys '/exit' Enter
	assert_equal "$(wait_status)" 0
	assert_equal "$(wc -l < "$start.count")" 2
	assert_equal "$(fake_request 2 '[.body.messages[] | select(.content | tostring | contains("File=hook:0"))] | length')" 1
	assert_equal "$(fake_request 3 '.body.messages[1].content')" \
		"$(printf '<Context File=hook:0>\ncontext from a hook\n</Context>\n\nthird')"
}

@test "stop: exit 2 sends the model back to work with its stderr as a user message, until the hook is content" {
	local stop
	stop=$(script stop 'cat > "$0.in.$(cat "$0.n" 2>/dev/null || echo 0)"
n=$(( $(cat "$0.n" 2>/dev/null || echo 0) + 1 )); echo $n > "$0.n"
[ $n -ge 3 ] && exit 0
echo "the tests fail: make check" >&2; exit 2')
	fake_start "[$(answers first second third | jq -c '.[]' | paste -sd,)]"
	hooks "{\"stop\":[{\"command\":\"$stop\"}]}"
	run --separate-stderr mc 'fix it' </dev/null
	assert_success
	assert_equal "$output" "$(printf 'first\nsecond\nthird')"
	assert_equal "$(fake_count)" 3
	assert_equal "$(last_user 2)" "the tests fail: make check"
	assert_equal "$(last_user 3)" "the tests fail: make check"
	assert_equal "$(cat "$stop.n")" 3
	f=$(session_files)
	assert_equal "$(jq -c '{session, answer}' "$stop.in.0")" \
		"$(jq -nc --arg s "$(basename "$f" .jsonl)" '{session: $s, answer: "first"}')"
	assert_equal "$(jq -r .answer "$stop.in.2")" third
	assert_equal "$(grep -c 'sends the model back to work: the tests fail' <<<"$stderr")" 2
}

@test "stop: the hook's message is marked in the session, never sent so; mc sessions counts no turn for it" {
	fake_start "[$(answers first second | jq -c '.[]' | paste -sd,)]"
	hooks "{\"stop\":[{\"command\":\"[ -e $BATS_TEST_TMPDIR/n ] && exit 0; touch $BATS_TEST_TMPDIR/n; echo not yet >&2; exit 2\"}]}"
	run --separate-stderr mc 'fix it' </dev/null
	assert_success
	f=$(session_files)
	assert_equal "$(jq -c 'select(.type == "message" and .role == "user")' "$f" | tr '\n' ' ')" \
		'{"type":"message","role":"user","content":"fix it"} {"type":"message","role":"user","content":"not yet\n","hook":"hooks.stop[0]"} '
	# the provider reads a plain user message
	assert_equal "$(fake_request 2 | jq -c '.body.messages[-1]')" '{"role":"user","content":"not yet\n"}'
	run --separate-stderr mc sessions --json
	assert_success
	assert_equal "$(jqo -c '[.turns, .first]')" '[1,"fix it"]'
	# nor is it the first prompt when the user's own message is gone
	grep -v '"content":"fix it"' "$f" > "$f.new" && mv "$f.new" "$f"
	run --separate-stderr mc sessions --json
	assert_equal "$(jqo -c '[.turns, .first]')" '[0,null]'
}

@test "stop: a hook that always exits 2 is bounded by --max-steps (exit 3); other statuses are warnings" {
	fake_start "[$(answers a b c d e | jq -c '.[]' | paste -sd,)]"
	hooks '{"stop":[{"command":"echo warn >&2; exit 7"},{"command":"exit 2"}]}'
	run --separate-stderr mc --max-steps 3 'never done' </dev/null
	assert_failure 3
	assert_equal "$(fake_count)" 3
	assert_equal "$(last_user 3)" "The hook hooks.stop[1] says the work is not done yet."
	assert_equal "$(grep -c 'warning: hooks.stop\[0\]: exit status 7: warn' <<<"$stderr")" 3
	[[ $stderr == *'stopped after 3 steps (--max-steps)'* ]]
}

@test "a hook that hangs is stopped at its timeout_s with a warning, and nothing it started is left running" {
	local hang pids
	hang=$(script hang 'echo $$ > "$0.pids"; sleep 300 & echo $! >> "$0.pids"
setsid sleep 301 & echo $! >> "$0.pids"; wait')
	fake_start "[$(calls "$(call c1 bash '{"command":"touch ran"}')"), $(answers done | jq -c '.[0]')]"
	hooks "{\"pre_tool\":[{\"command\":\"$hang\",\"timeout_s\":1}]}"
	SECONDS=0
	run --separate-stderr mc --yes 'make a file' </dev/null
	assert_success
	[ "$SECONDS" -lt 30 ]	# a bound, not a timing check
	assert_equal "$stderr" "mc: warning: hooks.pre_tool[0]: timed out after 1 s; it and every process it started were stopped"
	[ -e ran ]	# a warning: the call went on
	pids=$(cat "$hang.pids")
	assert_equal "$(wc -w <<<"$pids")" 3
	assert_equal "$(alive $pids)" ""
}

@test "a bad match or a hook without a command is an error naming the setting, before anything is sent" {
	fake_start "[$(answers ok | jq -c '.[0]')]"
	hooks '{"pre_tool":[{"match":"bash","command":"true"},{"match":"a(b","command":"true"}]}'
	run --separate-stderr mc 'hi' </dev/null
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: hooks.pre_tool[1].match: not a regular expression (POSIX ERE): Unmatched ( or \\("
	hooks '{"stop":[{"command":"true"},{"match":"x"}]}'
	run --separate-stderr mc 'hi' </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: hooks.stop[1].command: missing: a hook is a command to run"
	hooks '{"post_tool":{"command":"true"}}'
	run --separate-stderr mc 'hi' </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: hooks.post_tool: expected an array"
	assert_equal "$(fake_count)" 0
	[ -z "$(session_files)" ]
}

@test "the tool environment: GITHUB_TOKEN, provider keys and tools.env.exclude names reach neither bash nor a hook; tools.env.set does" {
	fake_start "[$(calls "$(call c1 bash '{"command":"env > bash.env"}')"), $(answers done | jq -c '.[0]')]"
	hooks "{\"pre_tool\":[{\"command\":\"env > $BATS_TEST_TMPDIR/hook.env\"}]}" \
		'"tools":{"env":{"exclude":["*TOKEN*","MY_PRIVATE"],"set":{"HOOKED":"yes"}}}'
	GITHUB_TOKEN=gh-secret MY_PRIVATE=private-value OPENAI_API_KEY=sk-test PLAIN=kept \
		run --separate-stderr mc --yes 'show the environment' </dev/null
	assert_success
	for f in bash.env "$BATS_TEST_TMPDIR/hook.env"; do
		run grep -E '^(GITHUB_TOKEN|MY_PRIVATE|OPENAI_API_KEY)=' "$f"
		assert_failure 1
		grep -qx 'HOOKED=yes' "$f"
		grep -qx 'PLAIN=kept' "$f"
	done
}

# hung_hook SCRIPT [PGREP]: mc --yes in the background ($pid), its call's
# pre_tool hook the script SCRIPT (it writes its shell's and a child's
# pids to $hang.pids); back once both are written (and PGREP matches).
hung_hook() {
	local i
	hang=$(script hang "$1")
	fake_start "[$(calls "$(call c1 bash '{"command":"touch ran"}')"), $(answers done | jq -c '.[0]')]"
	hooks "{\"pre_tool\":[{\"command\":\"$hang\"}]}"
	mc --yes 'make a file' </dev/null >out 2>err &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		[ "$(wc -l 2>/dev/null < "$hang.pids")" = 2 ] &&
			{ [ -z "${2:-}" ] || pgrep -x -f "$2" >/dev/null; } && break
		sleep 0.05
	done
}

@test "SIGTERM while a hook runs ends the run as it would a tool: the hook stopped, the session valid" {
	local hang pids status=0
	hung_hook 'echo $$ > "$0.pids"; sleep 300 & echo $! >> "$0.pids"; wait'
	pids=$(cat "$hang.pids")
	kill -TERM "$pid"
	wait "$pid" || status=$?
	assert_equal "$status" 143
	assert_equal "$(alive $pids)" ""
	[ ! -e ran ]
	assert_equal "$(fake_count)" 1
	assert_equal "$(jq -r 'select(.type == "function_call_output") | .call_id' "$(session_files)")" c1
	whole_lines
}

@test "SIGKILL of the driver while a hook runs: the hook's shell and its process group die with it" {
	local hang pids
	hung_hook 'echo $$ > "$0.pids"; sleep 977 & echo $! >> "$0.pids"; sleep 978; echo finished > "$0.done"' \
	    'sleep 978'
	pids="$(cat "$hang.pids") $(pgrep -x -f 'sleep 978')"
	assert_equal "$(wc -w <<<"$pids")" 3
	kill -KILL "$pid"
	wait "$pid" || true
	assert_equal "$(wait_gone $pids)" ""
	[ ! -e "$hang.done" ] && [ ! -e ran ]
}

@test "--help and mc(1) tell of the hooks and the tool environment" {
	run --separate-stderr mc --help
	assert_success
	assert_output --partial '"hooks"'
	assert_output --partial 'HOOKS in mc(1)'
	grep -qx '.Sh HOOKS' "$MC_TOP/man/mc.1"
	grep -qx '.Sh TOOL ENVIRONMENT' "$MC_TOP/man/mc.1"
	grep -qx '.Ss The tool environment' "$MC_TOP/man/mc-tool.1"
}
