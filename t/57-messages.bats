#!/usr/bin/env bats
# The Anthropic Messages API (SPEC §20): mc-request's body, mc-send's
# exchange and stream, and a whole mc tool loop, against fixtures made
# from Anthropic's published API reference (t/fixtures/api/messages-*).

load helper
load fake
load mc

KEY=sk-ant-test-Zq8Wv3Tn5Rb7Yx1Kc4Hm

setup_file_local() {
	export FAKE_API_KEY=$KEY
	export MC_RETRY_BASE_MS=1
	F=$FAKE_FIXTURES
	printf 'You are mc, a coding agent.' > "$BATS_TEST_TMPDIR/sys"
	SYS=$BATS_TEST_TMPDIR/sys
}

# body ARGS...: mc-request's body for Claude with the pinned session and tools
body() {
	run --separate-stderr mc-request -p anthropic -m claude-sonnet-4-5 --items "$F/messages-items.jsonl" \
		--tools "$F/messages-tools.json" --body "$@" < "$SYS"
}

# the cache breakpoints of a body: where each is, as jq paths
marks() {
	jq -c '[paths(type == "object" and has("cache_control")) | map(tostring) | join(".")]'
}

# ---- mc-request ----

@test "anthropic: the Messages URL, its key variable" {
	run --separate-stderr mc-request -p anthropic -m claude-sonnet-4-5 "Hi?" < "$SYS"
	assert_success
	assert_equal "$(jqo -c '[.provider, .api, .url, .api_key_env]')" \
		'["anthropic","messages","https://api.anthropic.com/v1/messages","ANTHROPIC_API_KEY"]'
	# another provider with api messages: its base_url + /messages
	settings '{"providers":{"gw":{"base_url":"http://127.0.0.1:9/v1/","api":"messages","api_key_env":"GW_KEY"}}}'
	run --separate-stderr mc-request -p gw -m m "Hi?" < "$SYS"
	assert_success
	assert_equal "$(jqo -c '[.api, .url]')" '["messages","http://127.0.0.1:9/v1/messages"]'
	run --separate-stderr mc-request -m m --api messages "Hi?" < "$SYS"
	assert_equal "$(jqo -c '[.api, .url]')" '["messages","https://api.openai.com/v1/messages"]'
}

@test "body: every block type, merged roles, tool_result with is_error, thinking unchanged, as pinned" {
	body
	assert_success
	assert_equal "$stderr" ""
	diff -u "$F/messages-request.json" <(jqo .)
}

@test "prompt caching: system, last tool, last user message; off with prompt_cache false" {
	body
	assert_equal "$(marks <<<"$output")" '["system.0","messages.4.content.0","tools.1"]'
	assert_equal "$(jqo -c '.system[0].cache_control')" '{"type":"ephemeral"}'
	settings '{"providers":{"anthropic":{"prompt_cache":false}}}'
	body
	assert_success
	assert_equal "$(marks <<<"$output")" '[]'
	# the rest is the same body
	assert_equal "$(jqo -c .)" "$(jq -c 'walk(if type == "object" then del(.cache_control) else . end)' "$F/messages-request.json")"
}

@test "prompt caching: the last user message is marked when an assistant message ends the request" {
	head -7 "$F/messages-items.jsonl" > items.jsonl
	run --separate-stderr mc-request -p anthropic -m claude-x --items items.jsonl --body < "$SYS"
	assert_success
	assert_equal "$(marks <<<"$output")" '["system.0","messages.0.content.1"]'
	assert_equal "$(jqo -c '.messages | map(.role)')" '["user","assistant"]'
}

@test "text of white space or nothing is not sent; the roles around it join" {
	printf '%s\n' '{"type":"message","role":"user","content":"hi"}' \
		'{"type":"message","role":"assistant","content":" \n\t"}' \
		'{"type":"message","role":"user","content":"again"}' > items.jsonl
	run --separate-stderr mc-request -p anthropic -m claude-x --items items.jsonl --body < /dev/null
	assert_success
	assert_equal "$(jqo -c '.messages | map([.role, (.content | map(.text))])')" '[["user",["hi","again"]]]'
}

@test "max_tokens: the option, else models.ID.max_output_tokens, else the model's default" {
	for m in claude-opus-4-1 claude-sonnet-4-5 anthropic/claude-haiku-4-5 claude-3-5-haiku-latest claude-3-haiku-20240307 llama-3; do
		run --separate-stderr mc-request -p anthropic -m $m --body "Hi?" < "$SYS"
		printf '%s %s\n' $m "$(jqo .max_tokens)"
	done > got
	printf '%s\n' 'claude-opus-4-1 16384' 'claude-sonnet-4-5 16384' 'anthropic/claude-haiku-4-5 16384' \
		'claude-3-5-haiku-latest 8192' 'claude-3-haiku-20240307 4096' 'llama-3 4096' | diff -u - got
	settings '{"models":{"claude-x":{"max_output_tokens":777}}}'
	run --separate-stderr mc-request -p anthropic -m claude-x --body "Hi?" < "$SYS"
	assert_equal "$(jqo .max_tokens)" 777
	run --separate-stderr mc-request -p anthropic -m claude-x --max-output-tokens 99 --body "Hi?" < "$SYS"
	assert_equal "$(jqo .max_tokens)" 99
	run --separate-stderr mc-request -p anthropic -m claude-x --no-stream --body "Hi?" < "$SYS"
	assert_equal "$(jqo -c '[.max_tokens, .stream]')" '[777,null]'
}

@test "--serve: each request is the one-shot body, the mark moving to the newest user message" {
	f=$F/messages-items.jsonl
	{
		head -3 "$f"; echo '{"type":"request"}'
		sed -n 4,12p "$f"; echo '{"type":"request"}'
		sed -n '13,$p' "$f"; echo '{"type":"request"}'
	} > in.jsonl
	mc-request --serve -p anthropic -m claude-sonnet-4-5 --tools "$F/messages-tools.json" < in.jsonl > out.jsonl
	assert_equal "$(wc -l < out.jsonl)" 3
	for n in 1 2 3; do
		case $n in 1) k=3 ;; 2) k=12 ;; 3) k=99 ;; esac
		head -$k "$f" > items.jsonl
		printf '' | mc-request -p anthropic -m claude-sonnet-4-5 --tools "$F/messages-tools.json" \
			--items items.jsonl --body > want.json
		sed -n ${n}p out.jsonl | jq -S .body > got.json
		diff -u got.json <(jq -S . want.json)
	done
	assert_equal "$(sed -n 2p out.jsonl | jq -c .body | marks)" '["messages.2.content.1","tools.1"]'
	assert_equal "$(sed -n 3p out.jsonl | jq -c .body | marks)" '["messages.4.content.0","tools.1"]'
}

@test "reasoning items: the chat body is as without them; responses takes back only its own" {
	grep -v '"reasoning"' "$F/messages-items.jsonl" > plain.jsonl
	a=$(mc-request -m m --api chat --items "$F/messages-items.jsonl" --body < "$SYS")
	b=$(mc-request -m m --api chat --items plain.jsonl --body < "$SYS")
	assert_equal "$a" "$b"
	a=$(mc-request -m m --api responses --items "$F/messages-items.jsonl" --body < "$SYS")
	b=$(mc-request -m m --api responses --items plain.jsonl --body < "$SYS")
	# the Responses item (encrypted) goes back; Messages' thinking blocks do not
	assert_equal "$(jq -c '.input | map(select(.type == "reasoning"))' <<<"$a")" \
		'[{"type":"reasoning","summary":[{"type":"summary_text","text":"a summary from another API"}],"encrypted_content":"gAAA"}]'
	assert_equal "$(jq -c '.input |= map(select(.type != "reasoning"))' <<<"$a")" "$(jq -c . <<<"$b")"
}

@test "--schema is refused with the messages API" {
	printf '{"type":"object"}' > s.json
	run --separate-stderr mc-request -p anthropic -m claude-x --schema s.json "Hi?" < "$SYS"
	assert_failure 1
	assert_equal "$stderr" 'mc-request: --schema: the messages API has no structured output; use chat or responses'
}

# ---- mc-send ----

sse() {
	printf '{"sse_file":"%s","chunk":7%s}' "$F/$1" "${2:+,$2}"
}

send() {
	fake_envelope messages > env.json
	run --separate-stderr mc-send "$@" < env.json
}

@test "mc-send: x-api-key and anthropic-version, never a Bearer token" {
	fake_start "[$(sse messages-stream-text.sse)]"
	send
	assert_success
	assert_equal "$output" 'Run `make test` from the project root; it builds and runs every test in `tests/`.'
	assert_equal "$(fake_request 1 '.headers["x-api-key"]')" "$KEY"
	assert_equal "$(fake_request 1 '.headers["anthropic-version"]')" 2023-06-01
	assert_equal "$(fake_request 1 '.headers.authorization')" null
	assert_equal "$(fake_request 1 .path)" /v1/messages
}

@test "mc-send --events: text, usage with the cache's counts, done" {
	fake_start "[$(sse messages-stream-text.sse)]"
	send --events
	assert_success
	assert_equal "$(jqo -c 'select(.type != "text")')" \
'{"type":"usage","input_tokens":2520,"output_tokens":21,"cached_tokens":2048,"cache_write_tokens":0}
{"type":"done","finish_reason":"stop"}'
}

@test "mc-send --items: thinking as a reasoning item before the message and the calls" {
	fake_start "[$(sse messages-stream-toolcall.sse)]"
	send --items
	assert_success
	assert_equal "$(jqo -c '[.type, .call_id // .data.type // .role] | join(" ")')" \
'reasoning thinking
message assistant
function_call toolu_01T1x1fJ34qAmk2tNTrN7Up6
function_call toolu_01Hq8Zt1uWd5KfJ3oXn6GbP0'
	assert_equal "$(jqo -c 'select(.type == "reasoning") | [.text, .api, .data.signature[:12]]')" \
		'["The user wants the tests. I should read the README first.","messages","EqQBCgIYAhIM"]'
	assert_equal "$(jqo -c 'select(.type == "function_call") | .arguments' | head -1)" \
		'{"path": "README.md", "max_bytes": 40000}'
	# what mc-send wrote, mc-request sends back unchanged
	printf '{"type":"message","role":"user","content":"hi"}\n%s\n' "$output" > items.jsonl
	jq -c '{type:"function_call_output",call_id,output:"x"} | select(.call_id)' <(printf '%s\n' "$output") >> items.jsonl
	run --separate-stderr mc-request -p anthropic -m claude-x --items items.jsonl --body < "$SYS"
	assert_success
	assert_equal "$(jqo -c '.messages[1].content[0] | [.type, .thinking, .signature == "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds0jjPsiLK7ZwoNyoTq0A1ee4Y1dd4Wm1WPVzwTQLDtqa5a62mP2hOw5SNMY2Ixr4oYDV0X7mGtRdG6rWpQ=="]')" \
		'["thinking","The user wants the tests. I should read the README first.",true]'
	assert_equal "$(jqo -c '.messages[2].content | map(.type)')" '["tool_result","tool_result"]'
}

@test "mc-send: redacted thinking kept whole; stop_sequence is stop" {
	fake_start "[$(sse messages-stream-redacted.sse),$(sse messages-stream-redacted.sse)]"
	send --items
	assert_success
	assert_equal "$(jqo -c 'select(.type == "reasoning") | [.text, .data.type, (.data.data | length)]')" \
		'["","redacted_thinking",114]'
	send --events
	assert_equal "$(jqo -r 'select(.type == "done") | .finish_reason')" stop
}

@test "mc-send: a whole message (no stream)" {
	fake_start "[{\"body_file\":\"$F/messages-message.json\"}]"
	send --events
	assert_success
	assert_equal "$(jqo '.type')" 'reasoning_item
text
tool_call
usage
done'
	assert_equal "$(jqo -c 'select(.type == "usage")')" \
		'{"type":"usage","input_tokens":3895,"output_tokens":503,"cached_tokens":1800,"cache_write_tokens":0}'
}

@test "mc-send: 529 overloaded is retried even from loopback, honouring retry-after; then 429" {
	fake_start "[{\"status\":529,\"headers\":{\"retry-after\":\"0\"},\"body_file\":\"$F/messages-error-overloaded.json\"},
	  {\"status\":429,\"headers\":{\"retry-after\":\"0\"},\"body_file\":\"$F/messages-error-rate.json\"},
	  $(sse messages-stream-text.sse)]"
	send --events
	assert_success
	assert_equal "$(fake_count)" 3
	assert_equal "${stderr_lines[0]}" 'mc-send: warning: HTTP 529 from fake: Overloaded; retry 1 of 3 in 0.0 s'
	assert_equal "${stderr_lines[1]}" 'mc-send: warning: HTTP 429 from fake: Number of request tokens has exceeded your per-minute rate limit; retry 2 of 3 in 0.0 s'
	# a loopback 500 is still not retried
	fake_stop
	fake_start "[{\"status\":500,\"json\":{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}}]"
	send --events
	assert_failure 1
	assert_equal "$(fake_count)" 1
}

@test "mc-send: the error body's message and type; prompt too long" {
	fake_start "[{\"status\":400,\"body_file\":\"$F/messages-error-too-long.json\"}]"
	send --events
	assert_failure 1
	assert_equal "$(jqo -c .)" '{"type":"error","status":400,"code":"invalid_request_error","message":"HTTP 400 from fake: prompt is too long: 208163 tokens > 200000 maximum"}'
}

@test "mc-send: an error event mid-stream, after the text shown; a stream without message_stop" {
	ev() { printf 'event: %s\ndata: %s\n\n' "$1" "$2"; }
	{
		ev message_start '{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":5,"output_tokens":1}}}'
		ev content_block_start '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'
		ev content_block_delta '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}'
	} > cut.sse
	{ cat cut.sse; ev error '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'; } > err.sse
	fake_start "[{\"sse_file\":\"$W/err.sse\"},{\"sse_file\":\"$W/cut.sse\"}]"
	send
	assert_failure 1
	assert_equal "$output" Hello
	assert_equal "$stderr" 'mc-send: error from fake: Overloaded'
	send
	assert_failure 1
	assert_equal "$output" Hello
	assert_equal "$stderr" 'mc-send: the stream ended before message_stop'
}

# ---- mc ----

use_claude() {
	settings "{\"provider\":\"claude\",\"model\":\"claude-sonnet-4-5\",
	  \"providers\":{\"claude\":{\"base_url\":\"$FAKE_URL\",\"api\":\"messages\",\"api_key_env\":\"FAKE_API_KEY\"}}}"
}

@test "mc --yes: a tool loop with thinking blocks, sent back unchanged before the tool results" {
	printf 'one\ntwo\n' > notes.txt
	t1='{"thinking":"I should read notes.txt.","signature":"EqQBCgIYAhIMsig1"}'
	fake_start "[{\"answer\":{\"api\":\"messages\",\"thinking\":[$t1,{\"redacted\":\"RED1\"}],\"text\":\"Reading.\",
	    \"calls\":[$(call toolu_1 read '{"path":"notes.txt"}'),$(call toolu_2 bash '{"command":"wc -l notes.txt"}')],
	    \"usage\":[100,20],\"cache\":[0,1500]}},
	  {\"answer\":{\"api\":\"messages\",\"thinking\":[{\"thinking\":\"Two lines.\",\"signature\":\"S2\"}],
	    \"text\":\"It has two lines.\",\"usage\":[30,8],\"cache\":[1500,40]}}]"
	use_claude
	run --separate-stderr mc --yes --json 'how many lines in notes.txt?' </dev/null
	assert_success
	assert_equal "$(fake_count)" 2
	# the second request: the first answer's blocks as they came, then the results
	fake_request 2 '.body.messages[1].content' | jq -c 'map(del(.input))' > got
	assert_equal "$(cat got)" '[{"type":"thinking","thinking":"I should read notes.txt.","signature":"EqQBCgIYAhIMsig1"},{"type":"redacted_thinking","data":"RED1"},{"type":"text","text":"Reading."},{"type":"tool_use","id":"toolu_1","name":"read"},{"type":"tool_use","id":"toolu_2","name":"bash"}]'
	assert_equal "$(fake_request 2 '.body.messages[2].content | map([.type, .tool_use_id, (.content | test("two"))]) | tojson')" \
		'[["tool_result","toolu_1",true],["tool_result","toolu_2",false]]'
	assert_equal "$(fake_request 2 '[.body.messages[2].content[-1].cache_control, .body.messages[0].content[0].cache_control] | tojson')" \
		'[{"type":"ephemeral"},null]'
	assert_equal "$(fake_request 2 '.headers["x-api-key"] | tojson')" "\"$KEY\""
	# the session holds the reasoning items; usage counts the cache
	s=$(session_files)
	assert_equal "$(jq -c 'select(.type == "reasoning") | .data.type' "$s")" '"thinking"
"redacted_thinking"
"thinking"'
	assert_equal "$(jqo -c 'select(.type == "done") | .usage')" \
		'{"input_tokens":3170,"output_tokens":28,"cached_tokens":1500,"cache_write_tokens":1540}'
	assert_equal "$(jq -c 'select(.type == "usage") | [.input_tokens, .cached_tokens, .cache_write_tokens]' "$s")" '[1600,0,1500]
[1570,1500,40]'
	# and mc -c sends it all again, thinking and all
	fake_stop
	fake_start "[{\"answer\":{\"api\":\"messages\",\"text\":\"ok\"}}]"
	use_claude
	run --separate-stderr mc -c 'thanks' </dev/null
	assert_success
	assert_equal "$(fake_request 1 '.body.messages | map(.role) | tojson')" '["user","assistant","user","assistant","user"]'
	assert_equal "$(fake_request 1 '.body.messages[3].content[0].type | tojson')" '"thinking"'
}

@test "mc-send --cache: a kept Messages answer replays its reasoning, calls and cache usage" {
	fake_start "[$(sse messages-stream-toolcall.sse)]"
	settings "{\"providers\":{\"claude\":{\"base_url\":\"$FAKE_URL\",\"api\":\"messages\",\"api_key_env\":\"FAKE_API_KEY\"}}}"
	mc-request -p claude -m claude-x "hi" < "$SYS" > env.json
	cache_replays env.json
	assert_equal "$(jqo -c 'select(.type == "usage") | .cache_write_tokens')" 1500
	run --separate-stderr mc-send --cache --items < env.json
	assert_success
	assert_equal "$(jqo .type | head -1)" reasoning
}

@test "mc: pause_turn keeps the paused answer and sends the request again" {
	fake_start '[{"answer":{"api":"messages","text":"Searching the web","stop_reason":"pause_turn"}},
	  {"answer":{"api":"messages","text":"Found it."}}]'
	use_claude
	run --separate-stderr mc --json 'find it' </dev/null
	assert_success
	assert_equal "$(fake_count)" 2
	assert_equal "$(fake_request 2 '.body.messages | map([.role, .content[0].text]) | tojson')" \
		'[["user","find it"],["assistant","Searching the web"]]'
	assert_equal "$(jqo -c 'select(.type == "done") | [.reason, .steps]')" '["stop",2]'
}

@test "mc: Anthropic's 'prompt is too long' compacts the session and sends the request once more" {
	pad() { head -c "$1" /dev/zero | tr '\0' x; }
	say() { jq -nc --arg t "$1" '{answer: {api: "messages", text: $t}}'; }
	fake_start "[$(say "first answer $(pad 5000)"),$(say "second answer $(pad 5000)"),
	  {\"status\":400,\"body_file\":\"$F/messages-error-too-long.json\"},$(say 'Summary.'),$(say 'third answer')]"
	use_claude
	run --separate-stderr mc "first question $(pad 5000)" </dev/null
	assert_success
	run --separate-stderr mc -c "second question $(pad 5000)" </dev/null
	assert_success
	run --separate-stderr mc -c 'third question' </dev/null
	assert_success
	assert_output 'third answer'
	assert_equal "$(fake_count)" 5
	assert_equal "$(fake_request 5 '.body.messages[0].content[0].text' | head -n 1)" '<Conversation-Summary>'
	[[ "$stderr" == *"mc-send: HTTP 400 from claude: prompt is too long: 208163 tokens > 200000 maximum"* ]]
	[[ "$stderr" == *"the conversation was compacted and the request is sent once more"* ]]
}
