#!/usr/bin/env bats
# mc with MCP servers (SPEC §14): their tools offered beside mc-tool's, one
# mc-mcp serve for the session, approval like bash unless "approve": false,
# nothing left running after the session.

load helper
load fake
load mc

# settings for the fake provider and one MCP server "srv" (t/fake-mcp.py ARGS)
use_fake_mcp() {
	local approve=$1
	shift
	local args
	args=$(for a in "$MC_TOP/t/fake-mcp.py" "$@"; do printf '%s\n' "$a"; done | jq -Rcs 'split("\n")[:-1]')
	jq -nc --arg url "${FAKE_URL:-http://127.0.0.1:9/v1}" --argjson args "$args" \
		--argjson approve "$approve" '{provider: "fake", model: "fake-model",
		  providers: {fake: {base_url: $url, api: "chat", api_key_env: null}},
		  mcp_servers: {srv: {command: "python3", args: $args,
		    approve: $approve, timeout_s: 10}}}' > "$MC_HOME/settings.json"
}

@test "the servers' tools travel beside mc-tool's; a stateful server keeps its state through the session" {
	fake_start "[$(calls "$(call c1 srv__count '{}')"), $(calls "$(call c2 srv__count '{}')"), $(text done)]"
	use_fake_mcp false --pid-file "$BATS_TEST_TMPDIR/pids"
	run --separate-stderr mc 'count twice' </dev/null
	assert_success
	assert_output done
	# the request carries both kinds of tool
	assert_equal "$(fake_request 1 '[.body.tools[].function.name] | map(select(. == "read" or . == "srv__count")) | sort | join(",")')" \
		'read,srv__count'
	f=$(session_files)
	assert_equal "$(jq -r 'select(.type == "function_call_output") | .output' "$f" | tr '\n' ' ')" \
		'count 1 count 2 '
	# the server was started once, and is gone with the session
	assert_equal "$(wc -l < "$BATS_TEST_TMPDIR/pids")" 1
	for p in $(cat "$BATS_TEST_TMPDIR/pids"); do
		for ((i = 0; i < 100; i++)); do
			[ -d "/proc/$p" ] || break
			sleep 0.05
		done
		[ ! -d "/proc/$p" ]
	done
}

@test "an MCP tool is refused in a one-shot run without --yes, unless its server says approve: false" {
	fake_start "[$(calls "$(call c1 srv__echo '{"text":"hi"}')"), $(text one),
	  $(calls "$(call c2 srv__echo '{"text":"hi"}')"), $(text two),
	  $(calls "$(call c3 srv__echo '{"text":"hi"}')"), $(text three)]"
	use_fake_mcp true
	run --separate-stderr mc --json 'echo' </dev/null
	assert_success
	assert_equal "$(printf '%s\n' "$output" | jq -c 'select(.type == "approval") | [.decision, .by]')" '["refused","policy"]'
	[[ $stderr == *'refused srv__echo'* ]]
	[[ $(fake_request 2 '.body.messages[-1].content') == refused:* ]]
	run --separate-stderr mc --yes 'echo' </dev/null
	assert_success
	assert_equal "$(fake_request 4 '.body.messages[-1].content')" hi
	use_fake_mcp false
	run --separate-stderr mc --json 'echo' </dev/null
	assert_success
	assert_equal "$(printf '%s\n' "$output" | jq -c 'select(.type == "approval") | [.decision, .by]')" '["allowed","policy"]'
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.type == "tool_output") | .output')" hi
}

@test "a server that fails to start is one warning; the session goes on with mc-tool's tools" {
	fake_start "[$(text fine)]"
	use_fake_mcp false --crash 3
	run --separate-stderr mc 'hi' </dev/null
	assert_success
	assert_output fine
	[[ $stderr == *srv* ]]
	assert_equal "$(fake_request 1 '[.body.tools[].function.name] | map(select(startswith("srv__"))) | length')" 0
}

@test "a dry run shows the MCP tools the request would carry" {
	use_fake_mcp false
	run --separate-stderr mc --dry-run -p ollama -m m 'hi' </dev/null
	assert_success
	[[ ,$(jqo '[.body.tools[].function.name] | join(",")'), == *,srv__echo,*srv__count,* ]]
}

@test "a dry run with 3,000 MCP tools: mc-tool's first, then the server's in its order" {
	use_fake_mcp false --many 3000
	# all of them sent (not deferred to tool_search: t/85)
	jq '.tools.defer_after = 100000' "$MC_HOME/settings.json" > "$MC_HOME/s" && mv "$MC_HOME/s" "$MC_HOME/settings.json"
	run --separate-stderr mc --dry-run -p ollama -m m 'hi' </dev/null
	assert_success
	mine=$(mc-tool list | jq -c '[.[].name]')
	assert_equal "$(jqo -c --argjson mine "$mine" '[.body.tools[].function.name][0:($mine | length)] == $mine')" true
	assert_equal "$(jqo -c --argjson mine "$mine" '[.body.tools[].function.name][($mine | length) + 9:] | .[0:3000] == [range(3000) | "srv__t\(.)"]')" true
}

# servers JSON: settings for the fake provider and the MCP servers of
# JSON ({NAME: APPROVE, ...}), each a t/fake-mcp.py
use_fake_servers() {
	jq -nc --arg url "${FAKE_URL:-http://127.0.0.1:9/v1}" --arg py "$MC_TOP/t/fake-mcp.py" \
		--argjson s "$1" '{provider: "fake", model: "fake-model",
		  providers: {fake: {base_url: $url, api: "chat", api_key_env: null}},
		  mcp_servers: ($s | with_entries(.value = {command: "python3", args: [$py],
		    approve: .value, timeout_s: 10}))}' > "$MC_HOME/settings.json"
}

# decisions: each approval event of the --json run in $output, as TOOL:DECISION
decisions() {
	printf '%s\n' "$output" | jq -r 'select(.type == "approval") | .name + ":" + .decision' | sort | tr '\n' ' '
}

@test "approve: false is its server's alone: not a server whose name starts like it, and the name as written" {
	# a__b__echo is server a__b's echo, which asks; a__echo is a's, which does not
	fake_start "[$(calls "$(call c1 a__b__echo '{"text":"hi"}')" "$(call c2 a__echo '{"text":"hi"}')"), $(text one)]"
	use_fake_servers '{"a": false, "a__b": true}'
	run --separate-stderr mc --json 'echo' </dev/null
	assert_success
	assert_equal "$(decisions)" 'a__b__echo:refused a__echo:allowed '
	# the server is the driver's to know, not the model's
	assert_equal "$(fake_request 1 '[.body.tools[] | tostring | select(contains("\"server\""))] | length')" 0
	# the other order in the settings decides nothing
	fake_stop
	fake_start "[$(calls "$(call c1 a__b__echo '{"text":"hi"}')" "$(call c2 a__echo '{"text":"hi"}')"), $(text one)]"
	use_fake_servers '{"a__b": true, "a": false}'
	run --separate-stderr mc --json 'echo' </dev/null
	assert_success
	assert_equal "$(decisions)" 'a__b__echo:refused a__echo:allowed '
	# a server's name that is not a tool name's: my.srv's tools are my_srv__*
	fake_stop
	fake_start "[$(calls "$(call c1 my_srv__echo '{"text":"hi"}')"), $(text one)]"
	use_fake_servers '{"my.srv": false}'
	run --separate-stderr mc --json 'echo' </dev/null
	assert_success
	assert_equal "$(decisions)" 'my_srv__echo:allowed '
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.type == "tool_output") | .output')" hi
}

@test "/new starts the servers afresh: a stateful server keeps nothing of the last session, the old one is gone" {
	fake_start "[$(calls "$(call c1 srv__count '{}')"), $(text one), $(calls "$(call c2 srv__count '{}')"), $(text two)]"
	use_fake_mcp false --pid-file "$BATS_TEST_TMPDIR/pids"
	on_tty mc
	wait_for 'mc>'
	keys 'count' Enter
	wait_prompt 2
	keys '/new' Enter
	wait_for 'new session'
	keys 'count again' Enter
	wait_prompt 4
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(fake_request 2 '.body.messages[-1].content')" 'count 1'
	assert_equal "$(fake_request 4 '.body.messages[-1].content')" 'count 1'
	# the tools once each, in the order they had before /new
	assert_equal "$(fake_request 3 '[.body.tools[].function.name] | join(",")')" \
		"$(fake_request 1 '[.body.tools[].function.name] | join(",")')"
	assert_equal "$(wc -l < "$BATS_TEST_TMPDIR/pids")" 2
	assert_equal "$(wait_gone $(cat "$BATS_TEST_TMPDIR/pids"))" ""
}

@test "/new with MCP servers and a subagent profile: the MCP tools go back where they were, before the subagents tool" {
	fake_start "[$(text one), $(text two)]"
	use_fake_mcp false
	mkdir -p "$MC_HOME/subagents"
	printf -- '---\nname: Explorer\ndescription: finds facts\n---\nYou explore.\n' > "$MC_HOME/subagents/explorer.md"
	on_tty mc
	wait_for 'mc>'
	keys 'hello' Enter
	wait_prompt 2
	keys '/new' Enter
	wait_for 'new session'
	keys 'again' Enter
	# the prompt after the answer: "mc> again" is the third line matching
	wait_prompt 4
	keys C-d
	assert_equal "$(wait_status)" 0
	! pane | grep -q 'out of memory'
	tools=$(fake_request 1 '[.body.tools[].function.name] | join(",")')
	[[ $tools == *srv__count*,subagents ]]
	assert_equal "$(fake_request 2 '[.body.tools[].function.name] | join(",")')" "$tools"
}

@test "approval on a terminal: an MCP tool is shown with its arguments; no refuses, always stops asking" {
	fake_start "[$(calls "$(call c1 srv__echo '{"text":"first"}')"), $(calls "$(call c2 srv__echo '{"text":"second"}')"),
	  $(calls "$(call c3 srv__echo '{"text":"third"}')"), $(text 'all done')]"
	use_fake_mcp true
	on_tty mc
	wait_for 'mc>'
	keys 'echo thrice' Enter
	wait_for 'allow srv__echo?'
	pane | grep -A1 -F 'srv__echo, an MCP tool, with the arguments:' | tail -n 1 | grep -qF '{"text":"first"}'
	keys n Enter
	wait_count 2 'allow srv__echo?'
	keys a Enter
	wait_for 'all done'
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(pane | grep -c 'allow srv__echo?')" 2
	assert_equal "$(fake_request 2 '.body.messages[-1].content')" 'refused: the user did not allow this call.'
	assert_equal "$(fake_request 3 '.body.messages[-1].content')" second
	assert_equal "$(fake_request 4 '.body.messages[-1].content')" third
}

# slow_call_then SIG: a run whose MCP call takes long; once the server has
# the call, SIG to the driver. Sets pid, procs (the driver's tree and the
# server's pids then) and status.
slow_call_then() {
	local i
	rm -f "$BATS_TEST_TMPDIR/pids" "$BATS_TEST_TMPDIR/mcp.log"
	fake_stop
	fake_start "[$(calls "$(call c1 srv__slow '{"seconds":300}')"), $(text never)]"
	use_fake_mcp false --child --pid-file "$BATS_TEST_TMPDIR/pids" --log "$BATS_TEST_TMPDIR/mcp.log"
	mc 'be slow' </dev/null >out 2>err &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q '"tools/call"' "$BATS_TEST_TMPDIR/mcp.log" 2>/dev/null && break
		sleep 0.05
	done
	grep -q '"tools/call"' "$BATS_TEST_TMPDIR/mcp.log"
	procs="$(tree "$pid") $(cat "$BATS_TEST_TMPDIR/pids")"
	kill -"$1" "$pid"
	status=0
	wait "$pid" || status=$?
}

@test "SIGTERM or SIGKILL of the driver during a slow MCP call: no mc-mcp, server or server's child left" {
	local sig
	for sig in TERM KILL; do
		slow_call_then "$sig"
		assert_equal "$status" $((128 + $(kill -l "$sig")))
		# mc, mc-send, mc-mcp, the server and its child
		[ "$(wc -w <<<"$procs")" -ge 5 ] || fail "$procs"
		assert_equal "$(wait_gone $procs)" ""
	done
}

@test "mc prompt --stats counts every tool schema sent: mc-tool's, the servers', the subagents tool" {
	use_fake_mcp false
	mkdir -p "$MC_HOME/subagents"
	printf -- '---\nname: Scout\ndescription: Looks around.\n---\nLook.\n' > "$MC_HOME/subagents/scout.md"
	run --separate-stderr mc prompt --stats
	assert_success
	assert_equal "$stderr" ""
	# what a session sends, a row per source
	tools=$(mc --dry-run hi </dev/null | jq -c '[.body.tools[].function]')
	want() { jq -c "map(select($1))" <<<"$tools"; }
	mine=$(want '.name != "subagents" and (.name | startswith("srv__") | not)')
	srv=$(want '.name | startswith("srv__")')
	sub=$(want '.name == "subagents"')
	rows=$(grep '^schemas ' <<<"$output")
	assert_equal "$(wc -l <<<"$rows")" 3
	for r in "mc-tool $(printf %s "$mine" | wc -c) $(jq length <<<"$mine")" \
		"mcp $(printf %s "$srv" | wc -c) $(jq length <<<"$srv")" \
		"subagents $(printf %s "$sub" | wc -c) 1"; do
		set -- $r
		grep -Eq "^schemas +$1 +$2 +[0-9]+ +sent beside the prompt: $3 tool schemas?\$" <<<"$rows" ||
			{ echo "no row for $r in: $rows" >&2; return 1; }
	done
	[ "$(jq length <<<"$srv")" -gt 0 ]
	# a tool the settings disable is not sent, nor counted
	jq -c '.tools.disabled = ["subagents"]' "$MC_HOME/settings.json" > s && mv s "$MC_HOME/settings.json"
	run --separate-stderr mc prompt --stats
	assert_success
	assert_equal "$(grep -c '^schemas ' <<<"$output")" 2
}
