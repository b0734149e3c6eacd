#!/usr/bin/env bats
# mc acp (SPEC 23): session/cancel stops the turn as Ctrl-C would (the
# prompt answers cancelled, the session stays valid and goes on); a
# permission request pending is resolved as cancelled and the call
# refused; a client that closes stdin mid-turn ends mc with nothing left
# running.

load helper
load fake
load mc
load acp

setup_file_local() {
	own_tmpdir
}

cancel='{"send":{"method":"session/cancel","params":{"sessionId":"$SESSION"}}}'

@test "session/cancel mid-stream: the prompt answers cancelled, the partial answer is kept, the next prompt goes on" {
	fake_start "[{\"endless\":{\"api\":\"chat\",\"text\":\"word \"}}, $(text again)]"
	use_fake
	acp "$(jq -nc '{send: {id: 3, method: "session/prompt", params: {sessionId: "$SESSION",
	  prompt: [{type: "text", text: "talk"}]}}}')" '{"wait_update":"agent_message_chunk"}' \
		"$cancel" '{"wait":3}' "$(prompt 4 more)"
	assert_success
	assert_equal "$(answer 3 .result.stopReason)" cancelled
	assert_equal "$(answer 4 .result.stopReason)" end_turn
	sid=$(answer 2 .result.sessionId)
	f=$MC_HOME/sessions/$sid.jsonl
	whole_lines
	[[ $(jq -r 'select(.role == "assistant" and .status == "incomplete") | .content' "$f") == word*'(cancelled by the user)' ]]
	assert_equal "$(jq -r 'select(.role == "assistant" and .status == null) | .content' "$f")" again
}

@test "session/cancel while a permission request is pending: resolved as cancelled, the call refused, the prompt cancelled" {
	fake_start "[$(calls "$(call c1 bash '{"command":"touch ran"}')"), $(text never)]"
	use_fake
	acp '{"answers":{"permission":["allow_once"],"delay":3}}' \
		"$(jq -nc '{send: {id: 3, method: "session/prompt", params: {sessionId: "$SESSION",
		  prompt: [{type: "text", text: "go"}]}}}')" '{"wait_update":"tool_call"}' '{"sleep":0.3}' \
		"$cancel" '{"wait":3}'
	assert_equal "$(answer 3 .result.stopReason)" cancelled
	[ ! -e ran ]
	assert_equal "$(updates tool_call_update | jq -r '.status')" failed
	sid=$(answer 2 .result.sessionId)
	assert_equal "$(jq -r 'select(.type == "function_call_output") | .output' "$MC_HOME/sessions/$sid.jsonl")" \
		'error: the user interrupted before this call ran.'
	assert_equal "$(fake_count)" 1
}

@test "session/cancel while a command runs: it is stopped, the turn cancelled" {
	fake_start "[$(calls "$(call c1 bash '{"command":"sleep 30; touch ran"}')"), $(text never)]"
	use_fake
	ACP_ARGS=--yes acp "$(jq -nc '{send: {id: 3, method: "session/prompt", params: {sessionId: "$SESSION",
	  prompt: [{type: "text", text: "go"}]}}}')" '{"wait_update":"tool_call_update"}' '{"sleep":0.5}' \
		"$cancel" '{"wait":3}'
	assert_equal "$(answer 3 .result.stopReason)" cancelled
	[ ! -e ran ]
	assert_equal "$(fake_count)" 1
}

@test "stdin closed mid-turn: the turn ends as Ctrl-C would, the session file stays valid, nothing is left running" {
	fake_start '[{"endless":{"api":"chat","text":"word "}}]'
	use_fake
	acp "$(jq -nc '{send: {id: 3, method: "session/prompt", params: {sessionId: "$SESSION",
	  prompt: [{type: "text", text: "talk"}]}}}')" '{"wait_update":"agent_message_chunk"}' '{"close":true}'
	assert_success
	assert_equal "$(printf '%s\n' "$output" | jq -c 'select(has("exit") or has("left"))')" \
		"$(printf '%s\n' '{"exit":0}' '{"left":[]}')"
	whole_lines
	sid=$(answer 2 .result.sessionId)
	[[ $(jq -r 'select(.role == "assistant") | .content' "$MC_HOME/sessions/$sid.jsonl") == word*'(cancelled by the user)' ]]
}
