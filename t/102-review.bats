#!/usr/bin/env bats
# A second reading of what landed in session 40 (images, mentions, mc
# acp): Tab completion of @path with names a mention can hold, and the
# client's MCP servers given without args.

load helper
load fake
load mc

@test "Tab: names sharing a first byte of a UTF-8 character complete to the last whole character, then list" {
	fake_start "$(answers one)"
	use_fake
	touch 'café.txt' 'cafè.txt'
	on_tty mc
	wait_prompt 1
	keys 'see @ca' Tab
	wait_for 'mc> see @caf'
	keys Tab	# the names differ in their é and è: listed
	wait_for 'cafè.txt  café.txt'
	keys C-u C-d
	assert_equal "$(wait_status)" 0
}

@test "Tab: a name with white space, which a mention cannot hold, is not offered" {
	fake_start "$(answers one)"
	use_fake
	touch 'my file.txt' 'my.txt'
	on_tty mc
	wait_prompt 1
	keys 'see @my' Tab
	wait_for 'mc> see @my.txt'
	keys Enter
	wait_for one
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
	[[ $(fake_request 1 '.body.messages[-1].content') == '<Context File=my.txt>'* ]]
}

@test "mc acp: a write's diff of a file that is not UTF-8 goes as valid UTF-8 (U+FFFD), the protocol's lines stay JSON text" {
	load acp
	printf 'caf\xe9\n' > latin1.txt
	fake_start "$(ask_script "$(call c1 write '{"path":"latin1.txt","content":"café\n"}')")"
	use_fake
	ACP_ARGS=--yes acp "$(prompt 3 go)"
	assert_equal "$(answer 3 .result.stopReason)" end_turn
	protocol_only
	assert_equal "$(updates tool_call | jq -r '.content[0].oldText')" "$(printf 'caf\xef\xbf\xbd')"
	assert_equal "$(cat latin1.txt)" 'café'
}

@test "mc acp: a client's stdio MCP server given without args or env runs (under make valgrind: nothing of its entry leaks)" {
	load acp
	fake_start "$(answers done)"
	use_fake
	ACP_BARE=1 acp "$(jq -nc --arg w "$W" --arg py "$MC_TOP/t/fake-mcp.py" '[
	  {send: {id: 1, method: "initialize", params: {protocolVersion: 1}}}, {wait: 1},
	  {send: {id: 2, method: "session/new", params: {cwd: $w, mcpServers: [{name: "ed",
	    command: $py}]}}}, {wait: 2},
	  {send: {id: 3, method: "session/prompt", params: {sessionId: "$SESSION",
	    prompt: [{type: "text", text: "hi"}]}}}, {wait: 3}]')"
	assert_success
	assert_equal "$(answer 3 .result.stopReason)" end_turn
	[[ $(fake_request 1 '[.body.tools[].function.name] | join(",")') == *ed__echo* ]]
	assert_equal "$(printf '%s\n' "$output" | tail -1)" '{"exit": 0}'
}

@test "mc acp: a prompt whose @mention cannot be attached is answered with the error naming it, not only on stderr; nothing is sent" {
	load acp
	fake_start "$(answers done)"
	use_fake
	acp "$(prompt 3 'see @nothing.py')" "$(prompt 4 'and `@nothing.py`')"
	assert_equal "$(answer 3 .error.message)" '@nothing.py: no such file or directory (in `backticks` it is sent as text)'
	assert_equal "$(answer 4 .result.stopReason)" end_turn
	assert_equal "$(fake_count)" 1
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" 'and `@nothing.py`'
	protocol_only
}

@test "Tab: a listing shows a name's control characters as ^X, never sent to the terminal" {
	fake_start "$(answers one)"
	use_fake
	touch "$(printf 'a\033[2Jb.txt')" a2.txt
	on_tty mc
	wait_prompt 1
	keys 'see @a' Tab Tab
	wait_for 'a^[[2Jb.txt  a2.txt'
	wait_for 'mc 0.1.0'	# the screen was not cleared
	keys C-u C-d
	assert_equal "$(wait_status)" 0
}

@test "mc acp: a prompt's file:// URIs are decoded (%20, UTF-8): a resource link names the file's path, an embedded resource's block too" {
	load acp
	fake_start "$(answers 'seen')"
	use_fake
	acp "$(jq -nc --arg w "$W" '[{send: {id: 3, method: "session/prompt", params: {sessionId: "$SESSION",
	  prompt: [{type: "text", text: "look at"},
	    {type: "resource_link", uri: ("file://" + $w + "/my%20notes%2Bcaf%C3%A9.md"), name: "my notes+café.md"},
	    {type: "resource", resource: {uri: ("file://" + $w + "/b%20c.c"), text: "int b;\n"}},
	    {type: "resource_link", uri: "https://example.com/a%20b", name: "web"},
	    {type: "resource_link", uri: ("file://" + $w + "/x%FF"), name: "x"}]}}},
	  {wait: 3}]')"
	assert_equal "$(answer 3 .result.stopReason)" end_turn
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" \
		"$(printf '<Context File=%s/b c.c>\nint b;\n</Context>\n\nlook at\n%s/my notes+café.md\nhttps://example.com/a%%20b\nfile://%s/x%%FF' "$W" "$W" "$W")"
}

@test "mc acp: a session/cancel that comes while a prompt is being taken in (its big image stored) cancels it: nothing sent" {
	load acp
	fake_start "$(answers 'not wanted')"
	use_fake
	python3 -c 'import base64, os, sys
sys.stdout.write(base64.b64encode(b"\x89PNG\r\n\x1a\n" + os.urandom(15 << 20)).decode())' > big.b64
	acp "$(jq -nc --rawfile img big.b64 '[{send: {id: 3, method: "session/prompt", params: {sessionId: "$SESSION",
	  prompt: [{type: "text", text: "see"}, {type: "image", data: $img, mimeType: "image/png"}]}}}]')" \
	  '{"send":{"method":"session/cancel","params":{"sessionId":"$SESSION"}}}' '{"wait":3}'
	assert_equal "$(answer 3 .result.stopReason)" cancelled
	assert_equal "$(fake_count)" 0
}

@test "images: the Chat and Responses parts of a user's image and a tool output's are valid by OpenAI's published schema" {
	printf '\x89PNG\r\n\x1a\nIHDR-ish' > shot.png
	hash=$(sha256sum shot.png | cut -c1-64)
	mkdir -p "$MC_HOME/blobs"
	cp shot.png "$MC_HOME/blobs/$hash"
	ref=$(jq -nc --arg h "$hash" --argjson n "$(stat -c %s shot.png)" '{blob:$h,media_type:"image/png",name:"shot.png",bytes:$n}')
	{
		jq -nc --argjson r "$ref" '{type:"message",role:"user",content:"what is it?",images:[$r]}'
		echo '{"type":"function_call","call_id":"c1","name":"read","arguments":"{\"path\":\"shot.png\"}"}'
		jq -nc --argjson r "$ref" '{type:"function_call_output",call_id:"c1",output:"shot.png: an image",images:[$r]}'
	} > items.jsonl
	mc-request -m gpt-x --api chat --items items.jsonl --body </dev/null > chat.json
	mc-request -m gpt-x --api responses --items items.jsonl --body </dev/null > resp.json
	jq -e '.input[0].content[1].type == "input_image" and .input[2].output[1].type == "input_image"' resp.json
	run python3 "$MC_TOP/t/lib/validate-openai.py" "$MC_TOP/t/fixtures/openai-request-schemas.json" \
	    CreateChatCompletionRequest chat.json
	assert_success
	# a user message whose content is a list is both an EasyInputMessage
	# and an InputMessage to the schema's oneOf: each is checked as the first
	jq .input[0] resp.json > user.json
	jq .input[2] resp.json > output.json
	run python3 "$MC_TOP/t/lib/validate-openai.py" "$MC_TOP/t/fixtures/openai-request-schemas.json" \
	    EasyInputMessage user.json
	assert_success
	run python3 "$MC_TOP/t/lib/validate-openai.py" "$MC_TOP/t/fixtures/openai-request-schemas.json" \
	    InputItem output.json
	assert_success
}

@test "mc acp: stdin closed while a command runs, beside the client's MCP server: nothing is left running" {
	load acp
	fake_start "$(ask_script "$(call c1 bash '{"command":"sleep 97"}')")"
	use_fake
	ACP_ARGS=--yes ACP_BARE=1 acp "$(jq -nc --arg w "$W" --arg py "$MC_TOP/t/fake-mcp.py" '[
	  {send: {id: 1, method: "initialize", params: {protocolVersion: 1}}}, {wait: 1},
	  {send: {id: 2, method: "session/new", params: {cwd: $w, mcpServers: [{name: "ed",
	    command: "python3", args: [$py], env: []}]}}}, {wait: 2},
	  {send: {id: 3, method: "session/prompt", params: {sessionId: "$SESSION",
	    prompt: [{type: "text", text: "wait"}]}}}, {wait_update: "tool_call_update"}, {close: true}]')"
	assert_success
	assert_equal "$(printf '%s\n' "$output" | jq -c 'select(has("exit") or has("left"))')" \
		"$(printf '%s\n' '{"exit":0}' '{"left":[]}')"
	run pgrep -f 'sleep 97'
	assert_failure
}
