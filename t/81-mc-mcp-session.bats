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
