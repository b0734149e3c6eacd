#!/usr/bin/env bats
# mc acp (SPEC 23): initialize, session/new, session/prompt with the
# answer as agent_message_chunk updates and its stopReason, reasoning as
# agent_thought_chunk, and bad input: a malformed line, an unknown
# method, invalid params, an unknown session. stdout carries protocol
# lines only.

load helper
load fake
load mc
load acp

setup_file_local() {
	own_tmpdir
}

@test "initialize: protocol 1, loadSession, embedded context, images, no auth methods" {
	ACP_BARE=1 acp '[{"send":{"id":1,"method":"initialize","params":{"protocolVersion":1}}},{"wait":1}]'
	assert_success
	assert_equal "$(answer 1 '.result | [.protocolVersion, .agentCapabilities.loadSession,
	  .agentCapabilities.promptCapabilities.embeddedContext, .agentCapabilities.promptCapabilities.image,
	  .authMethods, .agentInfo.name]')" '[1,true,true,true,[],"mc"]'
	assert_equal "$(answer 1 'has("error")')" false
}

@test "session/new makes an mc session in cwd with the four modes; a prompt streams message chunks and ends end_turn" {
	fake_start "$(answers 'hello there friend')"
	use_fake
	acp "$(prompt 3 hi)"
	assert_success
	sid=$(answer 2 '.result.sessionId')
	[[ $sid =~ ^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$ ]]
	assert_equal "$(answer 2 '.result.modes | [.currentModeId, (.availableModes[].id)] | join(",")')" \
		'default,default,accept-edits,plan,yes'
	assert_equal "$(said)" 'hello there friend'
	assert_equal "$(updates agent_message_chunk | wc -l)" 3
	assert_equal "$(answer 3 .result.stopReason)" end_turn
	# the session file is mc's, with the turn and a title
	f=$MC_HOME/sessions/$sid.jsonl
	assert_equal "$(jq -r 'select(.type == "session") | .cwd' "$f")" "$W"
	assert_equal "$(jq -r 'select(.role == "assistant") | .content' "$f")" 'hello there friend'
	assert_equal "$(jq -r 'select(.type == "title") | .title' "$f")" hi
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" hi
	protocol_only
	assert_equal "$(printf '%s\n' "$output" | tail -1)" '{"exit": 0}'
}

@test "reasoning deltas are agent_thought_chunk updates, before the answer's chunks" {
	fake_start '[{"events":[{"choices":[{"delta":{"reasoning_content":"let me think"}}]},
	  {"choices":[{"delta":{"content":"the answer"},"finish_reason":"stop"}]}],"done":true}]'
	use_fake
	acp "$(prompt 3 why)"
	assert_equal "$(updates | jq -r '.sessionUpdate + ":" + (.content.text // "")' | grep chunk)" \
		"$(printf '%s\n' 'agent_thought_chunk:let me think' 'agent_message_chunk:the answer')"
	assert_equal "$(answer 3 .result.stopReason)" end_turn
}

@test "stopReason: max_tokens for an answer cut by the limit, max_turn_requests past --max-steps, refusal" {
	fake_start "[{\"answer\":{\"api\":\"chat\",\"text\":\"cut\",\"finish_reason\":\"length\"}},
	  $(calls "$(call c1 read '{"path":"nothing"}')"), $(calls "$(call c2 read '{"path":"nothing"}')")]"
	use_fake
	ACP_ARGS='--max-steps 1' acp "$(prompt 3 one)" "$(prompt 4 two)"
	assert_equal "$(answer 3 .result.stopReason)" max_tokens
	assert_equal "$(answer 4 .result.stopReason)" max_turn_requests
	fake_stop
	fake_start '[{"events":[{"choices":[{"delta":{"refusal":"no"},"finish_reason":"stop"}]}],"done":true}]'
	use_fake
	acp "$(prompt 3 bad)"
	assert_equal "$(answer 3 .result.stopReason)" refusal
}

@test "a provider error answers the prompt with an error naming it; the session goes on" {
	fake_start "[{\"status\":400,\"json\":{\"error\":{\"message\":\"bad model\"}}}, $(text fine)]"
	use_fake
	acp "$(prompt 3 one)" "$(prompt 4 two)"
	assert_equal "$(answer 3 '.error.code')" -32603
	[[ $(answer 3 '.error.message') == *'bad model'* ]]
	assert_equal "$(answer 4 .result.stopReason)" end_turn
}

@test "bad input: a malformed line is a parse error and mc goes on; unknown methods, invalid params and unknown sessions are errors" {
	fake_start "$(answers ok)"
	use_fake
	acp '[{"raw":"{not json"},{"raw":"[1,2]"},
	  {"send":{"id":3,"method":"session/bogus","params":{}}},{"wait":3},
	  {"send":{"id":4,"method":"session/prompt","params":{"sessionId":"$SESSION","prompt":"hi"}}},{"wait":4},
	  {"send":{"id":5,"method":"session/prompt","params":{"sessionId":"20200101-000000-abcdef",
	    "prompt":[{"type":"text","text":"hi"}]}}},{"wait":5},
	  {"send":{"id":6,"method":"session/new","params":{"cwd":"relative/dir"}}},{"wait":6},
	  {"send":{"id":7,"method":"session/prompt","params":{"sessionId":"$SESSION",
	    "prompt":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}}},{"wait":7},
	  {"send":{"method":"session/cancel","params":{"sessionId":"$SESSION"}}},
	  {"send":{"method":"some/notification","params":{}}}]' "$(prompt 8 hi)"
	assert_success
	assert_equal "$(printf '%s\n' "$output" | jq -c 'select(.id == null and .error) | .error.code')" \
		"$(printf '%s\n' -32700 -32600)"
	assert_equal "$(answer 3 .error.code)" -32601
	assert_equal "$(answer 4 .error.code)" -32602
	assert_equal "$(answer 5 .error.code)" -32602
	[[ $(answer 5 .error.message) == *'unknown session: 20200101-000000-abcdef'* ]]
	assert_equal "$(answer 6 .error.code)" -32602
	[[ $(answer 7 .error.message) == *'image image: not a PNG, JPEG, GIF or WebP image'* ]]
	# a cancel with no turn running, and an unknown notification, are
	# passed over: the next prompt is answered as ever
	assert_equal "$(answer 8 .result.stopReason)" end_turn
	assert_equal "$(said)" ok
	protocol_only
}

@test "requests before initialize are refused; hooks run as in the terminal; stdout carries only protocol lines, whatever the turn prints" {
	ACP_BARE=1 acp '[{"send":{"id":1,"method":"session/new","params":{"cwd":"/"}}},{"wait":1}]'
	assert_equal "$(answer 1 .error.code)" -32600
	# a hook that writes on stdout, a bash call whose output is large
	fake_start "[$(calls "$(call c1 bash '{"command":"seq 1 2000"}')"), $(text done)]"
	use_fake_hooks='{"hooks":{"session_start":[{"command":"echo from-hook"}],"post_tool":[{"command":"echo post"}]}}'
	jq -nc --arg u "$FAKE_URL" --argjson h "$use_fake_hooks" '{provider: "fake", model: "fake-model",
	  providers: {fake: {base_url: $u, api: "chat", api_key_env: null}}} + $h' > "$MC_HOME/settings.json"
	ACP_ARGS=--yes acp "$(prompt 3 go)"
	assert_equal "$(answer 3 .result.stopReason)" end_turn
	protocol_only
	[[ $output != *from-hook* ]]
	# the session_start hook's context leads the session's first message
	[[ $(fake_request 1 '.body.messages[1].content') == '<Context File=hook:0>'*from-hook* ]]
	# the title line comes after the turn
	sid=$(answer 2 .result.sessionId)
	assert_equal "$(jq -r 'select(.type == "title") | .title' "$MC_HOME/sessions/$sid.jsonl")" go
}

@test "an image block goes with the prompt as mc -a's would: stored once in the blobs, sent to the model as an image" {
	fake_start "$(answers 'a tiny png')"
	use_fake
	printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDRpixels' > shot.png
	b64=$(base64 -w0 shot.png)
	hash=$(sha256sum shot.png | cut -c1-64)
	acp "$(jq -nc --arg d "$b64" '[{send: {id: 3, method: "session/prompt", params: {sessionId: "$SESSION",
	  prompt: [{type: "text", text: "what is it?"}, {type: "image", mimeType: "image/png", data: $d,
	    uri: "file:///tmp/shot.png"}]}}}, {wait: 3}]')"
	assert_success
	assert_equal "$(answer 3 .result.stopReason)" end_turn
	assert_equal "$(fake_request 1 '.body.messages[-1].content[0].text')" 'what is it?'
	assert_equal "$(fake_request 1 '.body.messages[-1].content[1].image_url.url')" "data:image/png;base64,$b64"
	cmp shot.png "$MC_HOME/blobs/$hash"
	sid=$(answer 2 .result.sessionId)
	assert_equal "$(jq -c 'select(.role == "user") | .images[0] | [.name, .blob]' "$MC_HOME/sessions/$sid.jsonl")" \
		"[\"shot.png\",\"$hash\"]"
	protocol_only
}
