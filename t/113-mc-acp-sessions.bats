#!/usr/bin/env bats
# mc acp (SPEC 23): session/load replays an mc session's history as
# updates before its answer; session/set_mode and the modes; slash
# commands (custom ones from commands.c) announced and run; embedded
# resources and resource links in a prompt.

load helper
load fake
load mc
load acp

setup_file_local() {
	own_tmpdir
}

@test "session/load: the history replayed (user, agent, tool call and its output), then the answer; a prompt goes on in it" {
	fake_start "[$(calls "$(call c1 read '{"path":"f.txt"}')"), $(text 'it says hi'), $(text 'second')]"
	use_fake
	echo hi > f.txt
	acp "$(prompt 3 'read f.txt')"
	sid=$(answer 2 .result.sessionId)
	ACP_BARE=1 acp "$(jq -nc --arg s "$sid" --arg w "$W" '[
	  {send: {id: 1, method: "initialize", params: {protocolVersion: 1}}}, {wait: 1},
	  {send: {id: 2, method: "session/load", params: {sessionId: $s, cwd: $w, mcpServers: []}}}, {wait: 2},
	  {send: {id: 3, method: "session/prompt", params: {sessionId: $s, prompt: [{type: "text", text: "more"}]}}},
	  {wait: 3},
	  {send: {id: 4, method: "session/load", params: {sessionId: "20200101-000000-abcdef", cwd: $w,
	    mcpServers: []}}}, {wait: 4}]')"
	assert_success
	# the replay comes before the answer to the load
	assert_equal "$(printf '%s\n' "$output" | jq -r 'if .method == "session/update" then
	  .params.update.sessionUpdate + ":" + (.params.update.content.text? // .params.update.status // "")
	  elif .id == 2 then "answer" else empty end' | sed -n 1,5p)" \
		"$(printf '%s\n' 'user_message_chunk:read f.txt' 'tool_call:pending' 'tool_call_update:completed' \
		  'agent_message_chunk:it says hi' answer)"
	assert_equal "$(answer 2 .result.modes.currentModeId)" default
	assert_equal "$(answer 3 .result.stopReason)" end_turn
	assert_equal "$(fake_request 3 '[.body.messages[] | select(.role == "user") | .content] | join(",")')" 'read f.txt,more'
	assert_equal "$(answer 4 .error.code)" -32602
}

@test "session/set_mode: the mode the next turn runs in (plan offers read-only tools, its answer's list a plan update); unknown modes refused; /go leaves plan" {
	fake_start "[$(text "$(printf 'First:\n1. read the code\n- fix it\nthen done')"), $(text '- carried out')]"
	use_fake
	acp '{"send":{"id":3,"method":"session/set_mode","params":{"sessionId":"$SESSION","modeId":"plan"}}}' \
		'{"wait":3}' \
		'{"send":{"id":4,"method":"session/set_mode","params":{"sessionId":"$SESSION","modeId":"careful"}}}' \
		'{"wait":4}' "$(prompt 5 'plan it')" "$(prompt 6 '/go now')"
	assert_equal "$(answer 3 .result)" '{}'
	assert_equal "$(answer 4 .error.code)" -32602
	assert_equal "$(fake_request 1 '[.body.tools[].function.name] | sort | join(",")')" 'find,grep,read'
	assert_equal "$(fake_request 2 '.body.messages[-1].content')" 'Carry out the plan. now'
	assert_equal "$(updates current_mode_update | jq -r .currentModeId)" default
	# one plan update, after the plan-mode turn only
	assert_equal "$(updates plan | jq -c .entries)" \
		'[{"content":"read the code","priority":"medium","status":"pending"},{"content":"fix it","priority":"medium","status":"pending"}]'
	assert_equal "$(answer 6 .result.stopReason)" end_turn
	protocol_only
}

@test "available_commands_update names /compact, /go and the custom commands; a custom command's prompt is sent" {
	mkdir -p .agents/commands
	printf -- '---\ndescription: review a file\nargument-hint: FILE\n---\nReview $1 carefully.\n' > .agents/commands/review.md
	fake_start "$(answers 'reviewed')"
	use_fake
	acp "$(prompt 3 '/review main.c')"
	assert_equal "$(updates available_commands_update | jq -c '[.availableCommands[] | [.name, .description, .input.hint]]')" \
		'[["compact","summarize the older conversation","what matters most"],["go","leave plan mode and carry the plan out","more to say"],["review","review a file","FILE"]]'
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" 'Review main.c carefully.'
	assert_equal "$(answer 3 .result.stopReason)" end_turn
}

@test "a prompt's embedded resource is a context block before the message; a resource link names its path" {
	fake_start "$(answers 'seen')"
	use_fake
	acp "$(jq -nc --arg w "$W" '[{send: {id: 3, method: "session/prompt", params: {sessionId: "$SESSION",
	  prompt: [{type: "text", text: "look at"},
	    {type: "resource_link", uri: ("file://" + $w + "/a.c"), name: "a.c"},
	    {type: "resource", resource: {uri: ("file://" + $w + "/b.c"), text: "int b;\n", mimeType: "text/x-c"}}]}}},
	  {wait: 3}]')"
	assert_equal "$(answer 3 .result.stopReason)" end_turn
	# mc-request joins the two user messages, the context block first
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" \
		"$(printf '<Context File=%s/b.c>\nint b;\n</Context>\n\nlook at\n%s/a.c' "$W" "$W")"
}

@test "session/new's mcpServers (stdio) run beside the settings' servers; their tools are offered, asked about and called; bad entries are refused" {
	fake_start "[$(calls "$(call c1 ed__echo '{"text":"hi there"}')"), $(text done)]"
	use_fake
	jq --arg py "$MC_TOP/t/fake-mcp.py" '. + {mcp_servers: {mine: {command: "python3", args: [$py, "--no-tools"]}}}' \
		"$MC_HOME/settings.json" > s && mv s "$MC_HOME/settings.json"
	ACP_BARE=1 acp "$(jq -nc --arg w "$W" --arg py "$MC_TOP/t/fake-mcp.py" '[
	  {send: {id: 1, method: "initialize", params: {protocolVersion: 1}}}, {wait: 1},
	  {send: {id: 2, method: "session/new", params: {cwd: $w, mcpServers: [{name: "bad name", command: "x",
	    args: [], env: []}]}}}, {wait: 2},
	  {send: {id: 3, method: "session/new", params: {cwd: $w, mcpServers: [{name: "ed", command: "python3",
	    args: [$py], env: [{name: "ED_VAR", value: "1"}]}]}}}, {wait: 3},
	  {answers: {permission: ["allow_once"]}},
	  {send: {id: 4, method: "session/prompt", params: {sessionId: "$SESSION",
	    prompt: [{type: "text", text: "echo"}]}}}, {wait: 4}]')"
	assert_success
	assert_equal "$(answer 1 .result.agentCapabilities.mcpCapabilities)" '{"http":true,"sse":true}'
	assert_equal "$(answer 2 .error.code)" -32602
	assert_equal "$(answer 4 .result.stopReason)" end_turn
	[[ $(fake_request 1 '[.body.tools[].function.name] | join(",")') == *ed__echo* ]]
	assert_equal "$(requests session/request_permission | jq -r .params.toolCall.toolCallId)" c1
	assert_equal "$(updates tool_call | jq -r .kind)" other
	[[ $(fake_request 2 '.body.messages[-1].content') == *'hi there'* ]]
}

@test "a second session/new in another directory: its AGENTS.md in the prompt, its tools run there; --add-dir still read unasked" {
	mkdir -p other extra
	echo 'OTHER-GUIDE' > other/AGENTS.md
	echo 'extra text' > extra/x.txt
	fake_start "[$(text one), $(calls "$(call c1 bash '{"command":"pwd"}')" \
	    "$(call c2 read "$(jq -nc --arg p "$W/extra/x.txt" '{path: $p}')")"), $(text two)]"
	use_fake
	ACP_ARGS="--add-dir $W/extra" acp "$(prompt 3 first)" \
		"$(jq -nc --arg w "$W/other" '[{send: {id: 4, method: "session/new", params: {cwd: $w, mcpServers: []}}},
		  {wait: 4}, {answers: {permission: ["allow_once"]}}]')" "$(prompt 5 second)"
	assert_equal "$(answer 5 .result.stopReason)" end_turn
	[[ $(fake_request 1 '.body.messages[0].content') != *OTHER-GUIDE* ]]
	[[ $(fake_request 2 '.body.messages[0].content') == *OTHER-GUIDE* ]]
	[ "$(answer 2 .result.sessionId)" != "$(answer 4 .result.sessionId)" ]
	assert_equal "$(requests session/request_permission | jq -r .params.toolCall.toolCallId)" c1
	assert_equal "$(fake_request 3 '[.body.messages[] | select(.role == "tool") | .content] | join("|")')" \
		"$(printf '%s\n[exit status 0]\n|     1\textra text' "$W/other")"
}

@test "session/load replays reasoning as agent_thought_chunk, a refusal as the agent's message" {
	fake_start '[{"events":[{"choices":[{"delta":{"reasoning_content":"thinking hard"}}]},
	  {"choices":[{"delta":{"content":"the answer"},"finish_reason":"stop"}]}],"done":true},
	  {"events":[{"choices":[{"delta":{"refusal":"not that"},"finish_reason":"stop"}]}],"done":true}]'
	use_fake
	acp "$(prompt 3 why)" "$(prompt 4 bad)"
	sid=$(answer 2 .result.sessionId)
	ACP_BARE=1 acp "$(jq -nc --arg s "$sid" --arg w "$W" '[
	  {send: {id: 1, method: "initialize", params: {protocolVersion: 1}}}, {wait: 1},
	  {send: {id: 2, method: "session/load", params: {sessionId: $s, cwd: $w, mcpServers: []}}}, {wait: 2}]')"
	assert_equal "$(updates | jq -r 'select(.content) | .sessionUpdate + ":" + .content.text')" \
		"$(printf '%s\n' 'user_message_chunk:why' 'agent_thought_chunk:thinking hard' \
		  'agent_message_chunk:the answer' 'user_message_chunk:bad' 'agent_message_chunk:not that')"
}

@test "/compact: the session goes on in the compacted file under the id the client knows" {
	pad=$(head -c 6000 /dev/zero | tr '\0' x)
	fake_start "[$(text "first $pad"), $(text "second $pad"), $(text 'S.'), $(text third)]"
	use_fake
	acp "$(prompt 3 "one $pad")" "$(prompt 4 "two $pad")" "$(prompt 5 /compact)" "$(prompt 6 three)"
	sid=$(answer 2 .result.sessionId)
	assert_equal "$(answer 5 .result.stopReason)" end_turn
	assert_equal "$(answer 6 .result.stopReason)" end_turn
	assert_equal "$(fake_request 4 '.body.messages[1].content' | head -n 1)" '<Conversation-Summary>'
	assert_equal "$(fake_request 4 '.body.messages[-1].content')" three
	# every update names the session as the client knows it
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.method == "session/update") | .params.sessionId' |
		sort -u)" "$sid"
	new=$(grep -l '"compacted_from"' "$MC_HOME"/sessions/*.jsonl)
	assert_equal "$(jq -r 'select(.role == "assistant") | .content' "$new" | tail -1)" third
}
