#!/usr/bin/env bats
# Progress on a terminal (issue 37 item 5): a status line while a tool
# call runs (tool, elapsed time, last output line), cleared when it ends;
# an interrupted call keeps what it had printed; MCP servers starting
# get a status line, and a start failure names the server's last stderr line.

load helper
load fake
load mc

# bash_answer COMMAND: the fake asks for one bash call running COMMAND, then says "all done".
bash_answer() {
	fake_start "[$(calls "$(call c1 bash "$(jq -nc --arg c "$1" '{command:$c}')")"),
	  {\"answer\":{\"api\":\"chat\",\"text\":\"all done\"}}]"
	use_fake
}

# A command that prints, then waits for the file go (at most 60 s).
WAIT_GO='i=0; while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done'

@test "a running bash call shows a status line: the tool, the time, the last line printed; cleared at its end" {
	bash_answer "echo first line; echo step two; $WAIT_GO; echo finished"
	on_tty "mc --yes go"
	wait_lines 1 -E '^bash, [0-9]+ s: step two$'
	touch go
	assert_equal "$(wait_status)" 0
	wait_for 'all done'
	# the line is gone: what follows was written over it
	assert_equal "$(pane | grep -cE '^bash, [0-9]+ s')" 0
	assert_equal "$(jq -r 'select(.type == "function_call_output") | .output' "$(session_files)")" \
		"$(printf 'first line\nstep two\nfinished\n[exit status 0]')"
}

@test "the status line is the terminal's only: piped stderr gets none" {
	bash_answer "echo printed; touch go"
	run --separate-stderr mc --yes go </dev/null
	assert_success
	assert_output 'all done'
	[[ $stderr != *'bash, '* ]] || fail "a status line on a pipe: $stderr"
}

@test "Ctrl-C during a bash call keeps what it had printed in the session" {
	bash_answer "echo partial output; echo more of it; $WAIT_GO"
	on_tty "mc --yes go"
	wait_lines 1 -E '^bash, [0-9]+ s: more of it$'
	keys C-c
	assert_equal "$(wait_status)" 130
	out=$(jq -r 'select(.type == "function_call_output") | .output' "$(session_files)")
	[[ $out == "partial output"$'\n'"more of it"$'\n'*"[interrupted by the user"* ]] ||
		fail "the output kept: $out"
	assert_equal "$(pane | grep -cE '^bash, [0-9]+ s')" 0
	whole_lines
}

# mcp_settings TIMEOUT ARGS...: the fake provider and one MCP server "srv"
# (t/fake-mcp.py ARGS), timeout_s TIMEOUT.
mcp_settings() {
	local t=$1 args
	shift
	args=$(for a in "$MC_TOP/t/fake-mcp.py" "$@"; do printf '%s\n' "$a"; done | jq -Rcs 'split("\n")[:-1]')
	jq -nc --arg url "${FAKE_URL:-http://127.0.0.1:9/v1}" --argjson args "$args" --argjson t "$t" \
		'{provider: "fake", model: "fake-model",
		  providers: {fake: {base_url: $url, api: "chat", api_key_env: null}},
		  mcp_servers: {srv: {command: "python3", args: $args, approve: false, timeout_s: $t}}}' \
		> "$MC_HOME/settings.json"
}

@test "MCP servers starting show a status line until they are up, cleared before the banner" {
	mcp_settings 3 --hang
	on_tty mc
	wait_lines 1 -E '^MCP servers starting: srv, [0-9]+ s$'
	wait_prompt 1
	assert_equal "$(pane | grep -cE '^MCP servers starting')" 0
	keys C-d
	assert_equal "$(wait_status)" 0
}

@test "an MCP server that fails to start says so before the prompt, with its last line on stderr" {
	mcp_settings 10 --crash 3
	on_tty mc
	wait_prompt 1
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(pane | grep -F 'server "srv"')" \
		'mc-mcp: server "srv": exited with status 3 before answering initialize; its last line on stderr: fake-mcp: crashing on purpose'
	# before the banner and its prompt
	[ "$(pane | grep -n -F 'server "srv"' | cut -d: -f1)" -lt "$(pane | grep -n '^mc ' | cut -d: -f1)" ]
}

@test "a slow MCP call shows a status line with the tool's name" {
	fake_start "[$(calls "$(call c1 srv__slow '{"seconds":2}')"), $(text done)]"
	mcp_settings 10
	on_tty "mc go"
	wait_lines 1 -E '^srv__slow, [0-9]+ s$'
	assert_equal "$(wait_status)" 0
	wait_for done
	assert_equal "$(pane | grep -cE '^srv__slow, ')" 0
}
