#!/usr/bin/env bats
# mc-send: SPEC §5, driven against the scripted fake provider.

load helper
load fake

KEY=sk-test-Zq8Wv3Tn5Rb7Yx1Kc4Hm
CHAT_TEXT='The project builds with `make`; run `make test` to execute the suite.

Tests live in `tests/`.'
RESP_TEXT='Run `make test` from the project root; it builds and runs every test in `tests/`.'
CALL1='{"type":"function_call","call_id":"call_Vb3kQ9xLm2TzR7pYw4NcA1sE","name":"read_file","arguments":"{\"path\":\"README.md\",\"max_bytes\":40000}"}'
CALL2='{"type":"function_call","call_id":"call_Hq8Zt1uWd5KfJ3oXn6GbP0yC","name":"read_file","arguments":"{\"path\":\"Makefile\",\"max_bytes\":8000}"}'

setup_file_local() {
	export FAKE_API_KEY=$KEY
	export MC_RETRY_BASE_MS=1
}

# serve ENTRY...: start the fake with these script entries
serve() {
	local IFS=,
	fake_start "[$*]"
}

# sse FIXTURE [EXTRA]: a script entry replaying a fixture in 7-byte chunks
sse() {
	printf '{"sse_file":"%s","chunk":7%s}' "$FAKE_FIXTURES/$1" "${2:+,$2}"
}

# envelope API [BODY]: write env.json for the fake
envelope() {
	fake_envelope "$@" > "$BATS_TEST_TMPDIR/env.json"
}

# send ARGS...: run mc-send on env.json
send() {
	run --separate-stderr mc-send "$@" < "$BATS_TEST_TMPDIR/env.json"
}

# ---- interface ----

@test "--help and --version go to stdout" {
	run --separate-stderr mc-send --help
	assert_success
	assert_line --index 0 --partial "usage: mc-send"
	assert_equal "$stderr" ""
	run --separate-stderr mc-send --version
	assert_success
	assert_output --regexp '^mc-send \(mc\) [0-9]'
}

@test "usage errors exit 2 before any request" {
	serve "$(sse chat-stream-text.sse)"
	envelope chat
	send --events --items
	assert_failure 2
	assert_equal "$stderr" "mc-send: --events and --items cannot be used together
Try 'mc-send --help' for more information."
	send --retries -1
	assert_failure 2
	assert_regex "$stderr" "^mc-send: --retries: -1 is too small"
	send --idle-timeout x
	assert_failure 2
	send extra
	assert_failure 2
	send --bogus
	assert_failure 2
	assert_equal "$(fake_count)" 0
}

@test "empty stdin and invalid JSON are refused" {
	run --separate-stderr mc-send < /dev/null
	assert_failure 1
	assert_equal "$stderr" "mc-send: no envelope on stdin"
	run --separate-stderr mc-send <<< '{"version":'
	assert_failure 1
	assert_equal "$stderr" "mc-send: envelope: invalid JSON at line 1, column 12"
}

@test "an envelope missing any field is refused, naming the field" {
	serve "$(sse chat-stream-text.sse)"
	envelope chat
	for f in version provider api url api_key_env body; do
		jq -c "del(.$f)" "$BATS_TEST_TMPDIR/env.json" > "$BATS_TEST_TMPDIR/bad.json"
		run --separate-stderr mc-send < "$BATS_TEST_TMPDIR/bad.json"
		assert_failure 1
		assert_equal "$output" ""
		assert_regex "$stderr" "^mc-send: envelope: $f: missing"
	done
	assert_equal "$(fake_count)" 0
}

@test "an envelope without a cache_key is sent (mc-request --serve leaves it out when nothing caches)" {
	serve "$(sse chat-stream-text.sse)" "$(sse chat-stream-text.sse)"
	envelope chat
	jq -c 'del(.cache_key)' "$BATS_TEST_TMPDIR/env.json" > "$BATS_TEST_TMPDIR/nokey.json"
	run --separate-stderr mc-send < "$BATS_TEST_TMPDIR/nokey.json"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(fake_count)" 1
	run --separate-stderr mc-send --cache < "$BATS_TEST_TMPDIR/nokey.json"
	assert_success
	assert_equal "$stderr" "mc-send: warning: envelope: no cache_key: the answer is not cached"
}

@test "the body is sent as its bytes came, not written again; a body that is no JSON is refused" {
	# The fake answers only a body that holds the bytes as written: spaces
	# and an escaped slash that a writer would make otherwise.
	serve "$(jq -cn --arg f "$FAKE_FIXTURES/chat-stream-text.sse" \
		'{sse_file: $f, when: "{ \"x_pad\" : \"a\\/b\" ,"}')"
	envelope chat
	jq -c . "$BATS_TEST_TMPDIR/env.json" | sed 's|"body":{|"body": { "x_pad" : "a\\/b" ,|' \
		> "$BATS_TEST_TMPDIR/odd.json"
	run --separate-stderr mc-send < "$BATS_TEST_TMPDIR/odd.json"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(fake_count)" 1
	for bad in '"body":{"a":tru}' '"body":{"a":01}' '"body":{"a":"\x"}' '"body":{"a":[1,]}'; do
		printf '%s,%s}\n' "$(jq -c 'del(.body)' "$BATS_TEST_TMPDIR/env.json" | sed 's/}$//')" "$bad" \
			> "$BATS_TEST_TMPDIR/bad.json"
		run --separate-stderr mc-send < "$BATS_TEST_TMPDIR/bad.json"
		assert_failure 1
		assert_regex "$stderr" '^mc-send: envelope: invalid JSON at line 1, column [0-9]+$'
	done
	assert_equal "$(fake_count)" 1
}

@test "an envelope written with white space (jq ., Python's json.dumps) is read as a compact one" {
	serve "$(sse chat-stream-text.sse)" "$(sse chat-stream-text.sse)"
	envelope chat
	jq . "$BATS_TEST_TMPDIR/env.json" > "$BATS_TEST_TMPDIR/pretty.json"
	run --separate-stderr mc-send < "$BATS_TEST_TMPDIR/pretty.json"
	assert_success
	assert_output "$CHAT_TEXT"
	python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' \
		"$BATS_TEST_TMPDIR/env.json" > "$BATS_TEST_TMPDIR/spaced.json"
	run --separate-stderr mc-send --serve < "$BATS_TEST_TMPDIR/spaced.json"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(fake_count)" 2
}

@test "an envelope with an invalid field is refused, naming the field" {
	serve "$(sse chat-stream-text.sse)"
	envelope chat
	for bad in '.version = 2' '.provider = ""' '.api = "completions"' '.url = "ftp://x"' \
	    '.url = 7' '.api_key_env = "A B"' '.cache_key = "xyz"' '.body = []' '.body.stream = "yes"'; do
		jq -c "$bad" "$BATS_TEST_TMPDIR/env.json" > "$BATS_TEST_TMPDIR/bad.json"
		run --separate-stderr mc-send < "$BATS_TEST_TMPDIR/bad.json"
		assert_failure 1
		field=${bad%% =*}
		assert_regex "$stderr" "^mc-send: envelope: ${field#.}: "
	done
	assert_equal "$(fake_count)" 0
}

@test "the key variable must be set" {
	serve "$(sse chat-stream-text.sse)"
	envelope chat
	unset FAKE_API_KEY
	send
	assert_failure 1
	assert_equal "$stderr" "mc-send: FAKE_API_KEY is not set: the provider fake needs it (export FAKE_API_KEY=...)"
	assert_equal "$(fake_count)" 0
}

# ---- the request ----

@test "POSTs the body with the key as a bearer token" {
	serve "$(sse chat-stream-text.sse)"
	envelope chat '{"model":"m","messages":[{"role":"user","content":"é ✓"}],"stream":true}'
	send
	assert_success
	assert_equal "$(fake_request 1 .method)" POST
	assert_equal "$(fake_request 1 .path)" /v1/chat/completions
	assert_equal "$(fake_request 1 .headers.authorization)" "Bearer $KEY"
	assert_equal "$(fake_request 1 .headers.accept)" "text/event-stream"
	assert_equal "$(fake_request 1 '.headers["content-type"]')" "application/json"
	assert_equal "$(fake_request 1 | jq -c .body)" '{"model":"m","messages":[{"role":"user","content":"é ✓"}],"stream":true}'
}

@test "api_key_env null sends no Authorization header" {
	serve "$(sse chat-stream-text.sse)"
	FAKE_KEY_ENV= envelope chat
	send
	assert_success
	assert_equal "$(fake_request 1 '.headers.authorization // "none"')" none
}

# ---- output modes and dialects ----

@test "text: chat stream in small chunks, written as it arrives" {
	serve "$(sse chat-stream-text.sse)"
	envelope chat
	send
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" "$CHAT_TEXT"
}

@test "text: the output ends with one newline" {
	serve "$(sse chat-stream-text.sse)"
	envelope chat
	mc-send < "$BATS_TEST_TMPDIR/env.json" > "$BATS_TEST_TMPDIR/out"
	printf '%s\n' "$CHAT_TEXT" | cmp - "$BATS_TEST_TMPDIR/out"
}

@test "text: responses stream in small chunks" {
	serve "$(sse responses-stream-text.sse)"
	envelope responses
	send
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" "$RESP_TEXT"
	assert_equal "$(fake_request 1 .path)" /v1/responses
}

@test "text: one byte at a time, CRLF line ends" {
	serve "$(sse chat-stream-text.sse '"chunk":1,"newline":"crlf"')" \
	    "$(sse responses-stream-text.sse '"chunk":1,"newline":"crlf"')"
	envelope chat
	send
	assert_success
	assert_equal "$output" "$CHAT_TEXT"
	envelope responses
	send
	assert_success
	assert_equal "$output" "$RESP_TEXT"
}

@test "text: CR line ends and a stream with no length (closed at the end)" {
	serve "$(sse chat-stream-text.sse '"newline":"cr","framing":"close"')"
	envelope chat
	send
	assert_success
	assert_equal "$output" "$CHAT_TEXT"
}

@test "comments, keep-alives and multi-line data" {
	serve '{"sse":": hello\n\n: OPENROUTER PROCESSING\n\ndata: {\"choices\":[{\"index\":0,\ndata:  \"delta\":{\"content\":\"multi\"}}]}\n\n:ping\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" line\"}}]}\n\ndata: [DONE]\n\n","chunk":3}'
	envelope chat
	send
	assert_success
	assert_equal "$output" "multi line"
}

@test "reasoning never leaks into the text" {
	serve '{"events":[{"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"SECRET1"}}]},{"choices":[{"index":0,"delta":{"reasoning":"SECRET2","content":"ok"}}]},{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}],"done":true}' \
	    '{"events":[["response.reasoning_summary_text.delta",{"type":"response.reasoning_summary_text.delta","delta":"SECRET3"}],["response.output_text.delta",{"type":"response.output_text.delta","delta":"fine"}],["response.completed",{"type":"response.completed","response":{"status":"completed","output":[]}}]]}'
	envelope chat
	send --items
	assert_success
	# kept apart, as a reasoning item (SPEC §21)
	assert_equal "$output" '{"type":"reasoning","text":"SECRET1SECRET2","api":"chat"}
{"type":"message","role":"assistant","content":"ok"}'
	envelope responses
	send
	assert_success
	assert_equal "$output" fine
}

@test "--events: chat parallel tool calls in many fragments" {
	serve "$(sse chat-stream-toolcall.sse '"chunk":3')"
	envelope chat
	send --events
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" '{"type":"tool_call","call_id":"call_Vb3kQ9xLm2TzR7pYw4NcA1sE","name":"read_file","arguments":"{\"path\":\"README.md\",\"max_bytes\":40000}"}
{"type":"tool_call","call_id":"call_Hq8Zt1uWd5KfJ3oXn6GbP0yC","name":"read_file","arguments":"{\"path\":\"Makefile\",\"max_bytes\":8000}"}
{"type":"usage","input_tokens":388,"output_tokens":52,"cached_tokens":256}
{"type":"done","finish_reason":"tool_calls"}'
}

@test "--events: responses parallel tool calls in many fragments" {
	serve "$(sse responses-stream-toolcall.sse '"chunk":3')"
	envelope responses
	send --events
	assert_success
	# the reasoning item first (its encrypted content, to be sent back)
	assert_equal "$(jqo -c 'select(.type == "reasoning_item") | [.api, .data.id]')" \
		'["responses","rs_68a1f1d14e7c8190b2c3d4e5f6a7b8c90a1b2c3d4e5f6a7b"]'
	output=$(printf '%s\n' "$output" | tail -n +2)
	assert_equal "$output" '{"type":"tool_call","call_id":"call_Vb3kQ9xLm2TzR7pYw4NcA1sE","name":"read_file","arguments":"{\"path\":\"README.md\",\"max_bytes\":40000}"}
{"type":"tool_call","call_id":"call_Hq8Zt1uWd5KfJ3oXn6GbP0yC","name":"read_file","arguments":"{\"path\":\"Makefile\",\"max_bytes\":8000}"}
{"type":"usage","input_tokens":402,"output_tokens":84,"cached_tokens":0}
{"type":"done","finish_reason":"tool_calls"}'
}

@test "--events: text deltas, usage and done" {
	serve "$(sse responses-stream-text.sse)"
	envelope responses
	send --events
	assert_success
	assert_equal "$(jqo -s -j 'map(select(.type == "text") | .delta) | add')" "$RESP_TEXT"
	assert_equal "$(jqo -s -c '.[-2:]')" '[{"type":"usage","input_tokens":436,"output_tokens":19,"cached_tokens":384},{"type":"done","finish_reason":"stop"}]'
}

@test "an answer cut by the output limit: done length, exit 3, a note, the item incomplete" {
	serve '{"answer":{"api":"chat","text":"cut short","finish_reason":"length"}}' \
	    '{"answer":{"api":"responses","text":"cut short","finish_reason":"length"}}' \
	    '{"answer":{"api":"chat","text":"cut short","finish_reason":"length"}}' \
	    '{"answer":{"api":"responses","text":"cut short","finish_reason":"length","stream":false}}'
	note="mc-send: the answer was cut by the output limit (finish_reason length); --max-output-tokens raises it"
	envelope chat
	send --events
	assert_failure 3
	assert_equal "$(jqo -s -c '.[-1]')" '{"type":"done","finish_reason":"length"}'
	assert_equal "$stderr" "$note"
	envelope responses
	send --events
	assert_failure 3
	assert_equal "$(jqo -s -c '.[-1]')" '{"type":"done","finish_reason":"length"}'
	envelope chat
	send --items
	assert_failure 3
	assert_equal "$output" '{"type":"message","role":"assistant","content":"cut short","status":"incomplete"}'
	assert_equal "$stderr" "$note"
	envelope responses
	send
	assert_failure 3
	assert_equal "$output" "cut short"
	assert_equal "$stderr" "$note"
}

@test "a reasoning-only answer cut by the output limit is reported, not silent" {
	serve '{"events":[{"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"Let me think"}}]},{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}],"done":true}' \
	    '{"events":[["response.reasoning_summary_text.delta",{"type":"response.reasoning_summary_text.delta","delta":"hmm"}],["response.incomplete",{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"reasoning","summary":[]}]}}]]}'
	envelope chat
	send
	assert_failure 3
	assert_equal "$output" ""
	assert_equal "$stderr" "mc-send: the answer was cut by the output limit (finish_reason length); --max-output-tokens raises it"
	envelope responses
	send --items
	assert_failure 3
	assert_equal "$output" ""
	assert_regex "$stderr" "cut by the output limit"
}

@test "--items: the message, then each call in order" {
	serve '{"answer":{"api":"chat","text":"Let me look.","calls":[{"call_id":"c1","name":"read","arguments":"{\"path\":\"a.c\"}"},{"call_id":"c2","name":"bash","arguments":"{\"cmd\":\"ls -l\"}"}]}}' \
	    '{"answer":{"api":"responses","text":"Let me look.","calls":[{"call_id":"c1","name":"read","arguments":"{\"path\":\"a.c\"}"},{"call_id":"c2","name":"bash","arguments":"{\"cmd\":\"ls -l\"}"}]}}'
	want='{"type":"message","role":"assistant","content":"Let me look."}
{"type":"function_call","call_id":"c1","name":"read","arguments":"{\"path\":\"a.c\"}"}
{"type":"function_call","call_id":"c2","name":"bash","arguments":"{\"cmd\":\"ls -l\"}"}'
	envelope chat
	send --items
	assert_success
	assert_equal "$output" "$want"
	envelope responses
	send --items
	assert_success
	assert_equal "$output" "$want"
}

@test "--items: no message item when the answer has no text" {
	serve "$(sse chat-stream-toolcall.sse)" "$(sse responses-stream-toolcall.sse)"
	envelope chat
	send --items
	assert_success
	assert_equal "$output" "$CALL1
$CALL2"
	envelope responses
	send --items
	assert_success
	assert_equal "$(printf '%s\n' "$output" | tail -n +2)" "$CALL1
$CALL2"
	assert_equal "$(jqo -r .type | head -1)" reasoning
}

@test "--items-out: text streamed and the items written to a file" {
	serve "$(sse chat-stream-text.sse)" "$(sse responses-stream-toolcall.sse)"
	envelope chat
	send --items-out "$BATS_TEST_TMPDIR/items"
	assert_success
	assert_equal "$output" "$CHAT_TEXT"
	assert_equal "$(jq -r .content "$BATS_TEST_TMPDIR/items")" "$CHAT_TEXT"
	assert_equal "$(jq -c 'del(.content)' "$BATS_TEST_TMPDIR/items")" '{"type":"message","role":"assistant"}'
	envelope responses
	send --events --items-out "$BATS_TEST_TMPDIR/items"
	assert_success
	assert_equal "$(jqo -s length)" 5
	assert_equal "$(tail -n +2 "$BATS_TEST_TMPDIR/items")" "$CALL1
$CALL2"
}

@test "--items-out: empty when the exchange fails before any text" {
	serve '{"status":400,"json":{"error":{"message":"bad request"}}}'
	envelope chat
	echo stale > "$BATS_TEST_TMPDIR/items"
	send --items-out "$BATS_TEST_TMPDIR/items"
	assert_failure 1
	assert_equal "$(cat "$BATS_TEST_TMPDIR/items")" ""
}

@test "a stream cut after text: the text so far is an incomplete message, then the error" {
	serve '{"answer":{"api":"chat","text":"partial answer here","calls":[{"call_id":"c1","name":"f","arguments":"{}"}]},"cut_after":400}' \
	    '{"answer":{"api":"responses","text":"partial answer here"},"cut_after":1200}' \
	    '{"answer":{"api":"chat","text":"partial answer here"},"cut_after":400}'
	envelope chat
	echo stale > "$BATS_TEST_TMPDIR/items"
	send --items-out "$BATS_TEST_TMPDIR/items"
	assert_failure 1
	assert_equal "$output" "partial "
	assert_regex "$stderr" "^mc-send: the answer from fake was cut: "
	assert_equal "$(cat "$BATS_TEST_TMPDIR/items")" '{"type":"message","role":"assistant","content":"partial ","status":"incomplete"}'
	envelope responses
	send --events
	assert_failure 1
	assert_equal "$(jqo -s -c 'map(.type) | unique')" '["error","text"]'
	assert_equal "$(jqo -s -r '.[-1].type')" error
	envelope chat
	send --items
	assert_failure 1
	assert_equal "$output" '{"type":"message","role":"assistant","content":"partial ","status":"incomplete"}'
}

@test "non-streamed answers: chat and responses JSON" {
	serve '{"answer":{"api":"chat","stream":false,"text":"plain","calls":[{"call_id":"c1","name":"f","arguments":"{}"}],"usage":[3,4]}}' \
	    '{"answer":{"api":"responses","stream":false,"text":"plain","calls":[{"call_id":"c1","name":"f","arguments":"{}"}],"usage":[3,4]}}'
	want='{"type":"text","delta":"plain"}
{"type":"tool_call","call_id":"c1","name":"f","arguments":"{}"}
{"type":"usage","input_tokens":3,"output_tokens":4,"cached_tokens":0}
{"type":"done","finish_reason":"tool_calls"}'
	envelope chat '{"model":"m","messages":[],"stream":false}'
	send --events
	assert_success
	assert_equal "$output" "$want"
	assert_equal "$(fake_request 1 .headers.accept)" application/json
	envelope responses '{"model":"m","input":[]}'
	send --events
	assert_success
	assert_equal "$output" "$want"
}

# ---- errors ----

@test "401: the provider's message, exit 1, no retry" {
	serve "{\"status\":401,\"body_file\":\"$FAKE_FIXTURES/error-401.json\"}" "$(sse chat-stream-text.sse)"
	envelope chat
	send
	assert_failure 1
	assert_equal "$output" ""
	assert_equal "$stderr" "mc-send: HTTP 401 from fake: Incorrect API key provided: sk-proj-****************************************************7Q2a. You can find your API key at https://platform.openai.com/account/api-keys. (check the key in \$FAKE_API_KEY)"
	assert_equal "$(fake_count)" 1
}

@test "--events: an HTTP error is an error event too" {
	serve "{\"status\":401,\"body_file\":\"$FAKE_FIXTURES/error-401.json\"}"
	envelope chat
	send --events
	assert_failure 1
	assert_equal "$(jqo -c '{type, status, code}')" '{"type":"error","status":401,"code":"invalid_api_key"}'
	assert_equal "$(jqo .message)" "HTTP 401 from fake: Incorrect API key provided: sk-proj-****************************************************7Q2a. You can find your API key at https://platform.openai.com/account/api-keys. (check the key in \$FAKE_API_KEY)"
}

@test "error bodies: integer code, no wrapper, a plain string, text, nothing" {
	serve '{"status":400,"json":{"error":{"message":"bad model","code":400}}}' \
	    '{"status":404,"json":{"message":"no such route","code":"not_found"}}' \
	    '{"status":403,"json":{"error":"forbidden here"}}' \
	    '{"status":422,"json":{"detail":[{"loc":["body","model"],"msg":"field required","type":"missing"}]}}' \
	    '{"status":400,"body":"<html>\n<h1>Bad Request</h1>\n</html>","headers":{"Content-Type":"text/html"}}' \
	    '{"status":404}'
	envelope chat
	for want in "HTTP 400 from fake: bad model" "HTTP 404 from fake for $FAKE_URL/chat/completions: no such route" \
	    "HTTP 403 from fake: forbidden here" "HTTP 422 from fake: field required" \
	    "HTTP 400 from fake: <html>" "HTTP 404 from fake for $FAKE_URL/chat/completions: Not Found"; do
		send --retries 0
		assert_failure 1
		assert_equal "$stderr" "mc-send: $want"
	done
}

@test "an error object inside a 200 stream (OpenAI) ends with exit 1 after the text" {
	serve '{"events":[{"choices":[{"index":0,"delta":{"content":"Hello"}}]},{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}]}'
	envelope chat
	send
	assert_failure 1
	assert_equal "$output" "Hello"
	assert_equal "$stderr" "mc-send: error from fake: The server had an error while processing your request."
	assert_equal "$(fake_count)" 1
}

@test "an OpenRouter error chunk with finish_reason error" {
	serve '{"events":[{"id":"gen-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]},{"id":"gen-1","object":"chat.completion.chunk","provider":"X","error":{"code":502,"message":"Provider disconnected"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}]}'
	envelope chat
	send --events
	assert_failure 1
	assert_equal "$(jqo -s -c '.[-1]')" '{"type":"error","status":502,"message":"Provider disconnected"}'
	assert_equal "$stderr" "mc-send: error from fake: Provider disconnected"
}

@test "a legacy error: field (older llama.cpp)" {
	serve '{"sse":"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"}}]}\n\nerror: {\"code\":500,\"message\":\"slot unavailable\",\"type\":\"server_error\"}\n\n"}'
	envelope chat
	send
	assert_failure 1
	assert_equal "$output" par
	assert_equal "$stderr" "mc-send: error from fake: slot unavailable"
}

@test "responses: an error event and response.failed" {
	serve '{"events":[["response.output_text.delta",{"type":"response.output_text.delta","delta":"A"}],["error",{"type":"error","code":"rate_limit_exceeded","message":"Too many tokens","param":null}]]}' \
	    '{"events":[["response.failed",{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The model failed"}}}]]}'
	envelope responses
	send --events
	assert_failure 1
	assert_equal "$(jqo -s -c '.')" '[{"type":"text","delta":"A"},{"type":"error","code":"rate_limit_exceeded","message":"Too many tokens"}]'
	assert_equal "$stderr" "mc-send: error from fake: Too many tokens"
	send
	assert_failure 1
	assert_equal "$stderr" "mc-send: error from fake: The model failed"
}

@test "a 200 answer that is neither JSON nor SSE (a proxy's page)" {
	serve '{"body":"<!DOCTYPE html>\n<title>Sign in</title>","headers":{"Content-Type":"text/html"}}'
	envelope chat
	send
	assert_failure 1
	assert_equal "$stderr" "mc-send: the answer is neither JSON nor an event stream: <!DOCTYPE html>"
}

@test "a JSON error with status 200 to a streaming request" {
	serve '{"json":{"error":{"message":"quota exceeded","code":"insufficient_quota"}}}'
	envelope chat
	send
	assert_failure 1
	assert_equal "$stderr" "mc-send: error from fake: quota exceeded"
}

# ---- reliability ----

@test "429 with Retry-After: retried after the wait, then the answer" {
	serve "{\"status\":429,\"headers\":{\"Retry-After\":\"1\"},\"body_file\":\"$FAKE_FIXTURES/error-429.json\"}" \
	    "$(sse chat-stream-text.sse)"
	envelope chat
	MC_RETRY_BASE_MS=0 send
	assert_success
	assert_equal "$output" "$CHAT_TEXT"
	assert_regex "$stderr" "^mc-send: warning: HTTP 429 from fake: Rate limit reached for gpt-4.1-mini .*; retry 1 of 3 in 1.0 s$"
	assert_equal "$(fake_count)" 2
	# The second request came no sooner than Retry-After said.
	t1=$(fake_request 1 .time) t2=$(fake_request 2 .time)
	run jq -n "$t2 - $t1 >= 0.95"
	assert_output true
}

@test "Retry-After as an HTTP date, and retry-after-ms" {
	serve '{"status":503,"headers":{"Retry-After":"Wed, 21 Oct 2015 07:28:00 GMT"},"json":{"error":{"message":"later"}}}' \
	    '{"status":429,"headers":{"retry-after-ms":"20","Retry-After":"30"},"json":{"error":{"message":"soon"}}}' \
	    "$(sse chat-stream-text.sse)"
	envelope chat
	send
	assert_success
	assert_equal "$(echo "$stderr" | sed -n 1p)" "mc-send: warning: HTTP 503 from fake: later; retry 1 of 3 in 0.0 s"
	assert_equal "$(echo "$stderr" | sed -n 2p)" "mc-send: warning: HTTP 429 from fake: soon; retry 2 of 3 in 0.0 s"
}

@test "Retry-After is capped by --retry-max-wait" {
	serve '{"status":429,"headers":{"Retry-After":"3600"},"json":{"error":{"message":"wait an hour"}}}' \
	    "$(sse chat-stream-text.sse)"
	envelope chat
	send --retry-max-wait 0 -q
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(fake_count)" 2
}

@test "persistent 5xx from a remote server: gives up after --retries" {
	serve "{\"status\":500,\"body_file\":\"$FAKE_FIXTURES/error-500.json\",\"times\":5}"
	envelope chat
	MC_SEND_REMOTE=1 send --retries 2
	assert_failure 1
	assert_equal "$(fake_count)" 3
	assert_equal "$(echo "$stderr" | grep -c warning)" 2
	assert_equal "$(echo "$stderr" | tail -n 1)" "mc-send: HTTP 500 from fake: The server had an error while processing your request. Sorry about that!"
}

@test "a stream cut mid-answer is an error after the text, not retried" {
	serve '{"answer":{"api":"chat","text":"one two three four five six seven eight nine ten"},"cut_after":900,"chunk":50}' \
	    "$(sse chat-stream-text.sse)"
	envelope chat
	send
	assert_failure 1
	assert_regex "$output" '^one two'
	[ "$output" != "one two three four five six seven eight nine ten" ]
	assert_regex "$stderr" '^mc-send: the answer from fake was cut: '
	assert_equal "$(fake_count)" 1
}

@test "a stream that ends without [DONE] or response.completed is an error" {
	serve '{"answer":{"api":"chat","text":"one two three four five six seven eight nine ten"},"cut_after":900,"framing":"close"}' \
	    '{"answer":{"api":"responses","text":"one two three four five six seven eight nine ten"},"cut_after":2000,"framing":"close"}'
	envelope chat
	send
	assert_failure 1
	assert_regex "$output" '^one two'
	assert_equal "$stderr" "mc-send: the stream ended before [DONE]"
	envelope responses
	send --events
	assert_failure 1
	assert_equal "$(jqo -s -c '.[-1]')" '{"type":"error","message":"the stream ended before response.completed"}'
	assert_equal "$stderr" "mc-send: the stream ended before response.completed"
	assert_equal "$(fake_count)" 2
}

@test "a stall ends with the idle timeout, not retried after text" {
	serve '{"answer":{"api":"chat","text":"slow answer that stalls"},"stall_after":600,"stall":30}' \
	    "$(sse chat-stream-text.sse)"
	envelope chat
	send --idle-timeout 1
	assert_failure 1
	assert_regex "$output" '^slow'
	assert_equal "$stderr" "mc-send: nothing from fake for 1 seconds (--idle-timeout or providers.fake.idle_timeout_s)"
	assert_equal "$(fake_count)" 1
}

@test "SSE comments are not progress: endless keep-alives end with the idle timeout" {
	serve '{"endless":{"comments":0.2,"text":"hi"}}'
	envelope chat
	# timeout(1) only bounds a failure of this test
	run --separate-stderr timeout 60 mc-send --idle-timeout 1 < "$BATS_TEST_TMPDIR/env.json"
	assert_failure 1
	assert_equal "$output" hi
	assert_equal "$stderr" "mc-send: nothing from fake for 1 seconds (--idle-timeout or providers.fake.idle_timeout_s)"
	assert_equal "$(fake_count)" 1
}

@test "--max-time bounds a whole exchange: endless keep-alives, a stream that never ends" {
	serve '{"endless":{"comments":0.2,"text":"hi"}}' '{"endless":{"text":"x"}}'
	envelope chat
	run --separate-stderr timeout 60 mc-send --events --max-time 2 < "$BATS_TEST_TMPDIR/env.json"
	assert_failure 1
	assert_equal "$(jqo -s -c '.[-1]')" '{"type":"error","message":"no whole answer from fake in 2 seconds (--max-time)"}'
	assert_equal "$stderr" "mc-send: no whole answer from fake in 2 seconds (--max-time)"
	run --separate-stderr timeout 60 mc-send --max-time 1 < "$BATS_TEST_TMPDIR/env.json"
	assert_failure 1
	assert_equal "$stderr" "mc-send: no whole answer from fake in 1 seconds (--max-time)"
	assert_equal "$(fake_count)" 2
	send --max-time 0
	assert_failure 2
}

@test "--max-time: no retry is begun that it would end; the attempt's error stands" {
	serve '{"status":503,"headers":{"Retry-After":"30"},"json":{"error":{"message":"busy"}}}' \
	    "$(sse chat-stream-text.sse)"
	envelope chat
	run --separate-stderr timeout 20 mc-send --max-time 5 < "$BATS_TEST_TMPDIR/env.json"
	assert_failure 1
	assert_equal "$stderr" "mc-send: HTTP 503 from fake: busy"
	assert_equal "$(fake_count)" 1
}

@test "the transfer ends at the answer's end, even if the server keeps the connection" {
	serve "$(sse responses-stream-text.sse '"stall_after":10091,"stall":60')" \
	    "$(sse chat-stream-text.sse '"stall_after":7688,"stall":60')"
	envelope responses
	send --idle-timeout 5
	assert_success
	assert_equal "$output" "$RESP_TEXT"
	envelope chat
	send --idle-timeout 5
	assert_success
	assert_equal "$output" "$CHAT_TEXT"
}

@test "no answer before the idle timeout is retried" {
	serve '{"delay":30}' "$(sse chat-stream-text.sse)"
	envelope chat
	send --idle-timeout 1
	assert_success
	assert_equal "$output" "$CHAT_TEXT"
	assert_equal "$stderr" "mc-send: warning: nothing from fake for 1 seconds (--idle-timeout or providers.fake.idle_timeout_s); retry 1 of 3 in 0.0 s"
	assert_equal "$(fake_count)" 2
}

@test "nothing listening on a local server: said once, not retried" {
	serve
	url=$FAKE_URL
	fake_stop
	FAKE_URL=$url envelope chat
	send --retries 3
	assert_failure 1
	assert_equal "$stderr" "mc-send: cannot reach fake at $url/chat/completions: connection refused (is the server running?)"
	send --events
	assert_failure 1
	assert_equal "$(jqo -c '{type, message}')" "{\"type\":\"error\",\"message\":\"cannot reach fake at $url/chat/completions: connection refused (is the server running?)\"}"
}

@test "nothing listening on a remote server: retried quietly, said once" {
	serve
	url=$FAKE_URL
	fake_stop
	FAKE_URL=$url envelope chat
	MC_SEND_REMOTE=1 send --retries 2
	assert_failure 1
	assert_equal "$stderr" "mc-send: cannot reach fake at $url/chat/completions: connection refused (is the server running?)"
}

@test "a local server's 500 is not retried; its 503 is" {
	serve '{"status":500,"json":{"error":{"code":500,"message":"tools param requires --jinja flag","type":"not_supported_error"}}}' \
	    '{"status":503,"json":{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}}' \
	    "$(sse chat-stream-text.sse)"
	envelope chat
	send --events
	assert_failure 1
	assert_equal "$output" '{"type":"error","status":500,"code":"not_supported_error","message":"HTTP 500 from fake: tools param requires --jinja flag"}'
	assert_equal "$(fake_count)" 1
	send
	assert_success
	assert_equal "$output" "$CHAT_TEXT"
	assert_equal "$stderr" "mc-send: warning: HTTP 503 from fake: Loading model; retry 1 of 3 in 0.0 s"
	assert_equal "$(fake_count)" 3
}

@test "SIGINT stops the transfer at once: exit 130, nothing more" {
	serve '{"answer":{"api":"chat","text":"before the stall"},"stall_after":700,"stall":60}'
	envelope chat
	mc-send --items-out "$BATS_TEST_TMPDIR/items" < "$BATS_TEST_TMPDIR/env.json" \
	    > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q before "$BATS_TEST_TMPDIR/out" 2>/dev/null && break
		sleep 0.05
	done
	before=$(cat "$BATS_TEST_TMPDIR/out")
	kill -INT "$pid"
	status=0
	wait "$pid" || status=$?
	assert_equal "$status" 130
	assert_regex "$before" '^before'
	assert_equal "$(cat "$BATS_TEST_TMPDIR/out")" "$before"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ""
	assert_equal "$(cat "$BATS_TEST_TMPDIR/items")" ""
}

@test "SIGINT while waiting to retry: exit 130" {
	serve '{"status":429,"headers":{"Retry-After":"60"},"json":{"error":{"message":"later"}}}'
	envelope chat
	mc-send < "$BATS_TEST_TMPDIR/env.json" > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q retry "$BATS_TEST_TMPDIR/err" 2>/dev/null && break
		sleep 0.05
	done
	kill -INT "$pid"
	status=0
	wait "$pid" || status=$?
	assert_equal "$status" 130
	assert_equal "$(cat "$BATS_TEST_TMPDIR/out")" ""
}

@test "a reader that goes away ends mc-send quietly" {
	serve '{"answer":{"api":"chat","text":"a long answer with many words to write out"},"chunk":40}'
	envelope chat
	run --separate-stderr bash -c 'set -o pipefail; mc-send < "$1" | head -c 3' _ "$BATS_TEST_TMPDIR/env.json"
	assert_success
	assert_output "a l"
	assert_equal "$stderr" ""
}

# maxrss ARGS...: run mc-send ARGS on env.json; print its peak memory in KiB
maxrss() {
	python3 -c '
import resource, subprocess, sys
with open(sys.argv[1]) as env:
    subprocess.run(sys.argv[2:], stdin=env, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$BATS_TEST_TMPDIR/env.json" mc-send "$@"
}

@test "memory is bounded by the answer, not by the stream" {
	serve '{"answer":{"api":"chat","text":"small"}}' \
	    '{"answer":{"api":"chat","text":"small"},"keepalive_bytes":40000000,"chunk":65536}'
	envelope chat
	small=$(maxrss)
	big=$(maxrss --items-out "$BATS_TEST_TMPDIR/items")
	assert_equal "$(fake_count)" 2
	assert_equal "$(cat "$BATS_TEST_TMPDIR/items")" '{"type":"message","role":"assistant","content":"small"}'
	# 40 MB of keep-alives later, no more than a few MB more.
	[ "$big" -lt $((small + 8000)) ]
}

@test "on a terminal, a spinner on stderr until the answer starts" {
	serve "$(sse chat-stream-text.sse '"delay":0.3')" "$(sse chat-stream-text.sse)"
	envelope chat
	export ENV_JSON=$BATS_TEST_TMPDIR/env.json OUT=$BATS_TEST_TMPDIR/out
	run script -qec 'mc-send < "$ENV_JSON" > "$OUT"' /dev/null
	assert_success
	assert_output --partial "waiting for fake"
	assert_output --partial $'\r\e[K'
	assert_equal "$(cat "$OUT")" "$CHAT_TEXT"
	# Not on a pipe.
	send
	assert_success
	assert_equal "$stderr" ""
}

@test "a failed write to stdout is an error" {
	serve "$(sse chat-stream-text.sse)"
	envelope chat
	run --separate-stderr bash -c 'mc-send < "$1" > /dev/full' _ "$BATS_TEST_TMPDIR/env.json"
	assert_failure 1
	assert_equal "$stderr" "mc-send: stdout: No space left on device"
}

# ---- the key ----

@test "the key never appears in any output, even when the provider echoes it" {
	serve "{\"status\":401,\"json\":{\"error\":{\"message\":\"Bad key $KEY given\",\"code\":\"invalid_api_key\"}}}" \
	    "{\"events\":[{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]},{\"error\":{\"message\":\"echo $KEY\"}}]}" \
	    "{\"status\":429,\"headers\":{\"Retry-After\":\"0\"},\"json\":{\"error\":{\"message\":\"$KEY\"}}}" \
	    '{"answer":{"api":"chat","text":"fine","calls":[{"call_id":"c","name":"n","arguments":"{}"}]}}'
	envelope chat
	all=
	send --events
	assert_failure 1
	all+="$output$stderr"
	assert_equal "$stderr" "mc-send: HTTP 401 from fake: Bad key [redacted] given (check the key in \$FAKE_API_KEY)"
	send --items-out "$BATS_TEST_TMPDIR/items"
	assert_failure 1
	all+="$output$stderr$(cat "$BATS_TEST_TMPDIR/items")"
	assert_equal "$stderr" "mc-send: error from fake: echo [redacted]"
	send --items --items-out "$BATS_TEST_TMPDIR/items"
	assert_success
	all+="$output$stderr$(cat "$BATS_TEST_TMPDIR/items")"
	assert_equal "$(fake_request 4 .headers.authorization)" "Bearer $KEY"
	[ -n "$all" ]
	[[ "$all" != *"$KEY"* ]]
	[[ "$all" != *"${KEY:3:12}"* ]]
}

@test "a long message cut inside the echoed key shows none of it" {
	long=$(printf 'a%.0s' {1..2040})
	serve "{\"status\":400,\"json\":{\"error\":{\"message\":\"$long$KEY\"}}}"
	envelope chat
	send
	assert_failure 1
	assert_regex "$stderr" 'aaaa\[redacted\]$'
	[[ "$stderr" != *"${KEY:0:6}"* ]]
}

@test "the key is not in the process arguments" {
	serve '{"answer":{"api":"chat","text":"slow"},"stall_after":400,"stall":60}'
	envelope chat
	mc-send < "$BATS_TEST_TMPDIR/env.json" > "$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q slow "$BATS_TEST_TMPDIR/out" 2>/dev/null && break
		sleep 0.05
	done
	args=$(tr '\0' ' ' < "/proc/$pid/cmdline")
	kill -INT "$pid"
	wait "$pid" || true
	[[ "$args" == *mc-send* ]]	# (under make valgrind: valgrind ... mc-send)
	[[ "$args" != *"$KEY"* ]]
}

# ---- refusals, ids, surrogates, usage ----

@test "a refusal is kept apart from the text: event, item member, done reason, shown" {
	serve '{"events":[{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":""}}]},{"choices":[{"index":0,"delta":{"refusal":"I cannot help "}}]},{"choices":[{"index":0,"delta":{"refusal":"with that."}}]},{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}],"done":true}' \
	    '{"events":[["response.refusal.delta",{"type":"response.refusal.delta","delta":"No."}],["response.completed",{"type":"response.completed","response":{"status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"No."}]}]}}]]}' \
	    '{"events":[{"choices":[{"index":0,"delta":{"refusal":"I cannot help."}}]},{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}],"done":true}'
	envelope chat
	send --events --items-out "$BATS_TEST_TMPDIR/items"
	assert_success
	assert_equal "$output" '{"type":"refusal","delta":"I cannot help "}
{"type":"refusal","delta":"with that."}
{"type":"done","finish_reason":"refusal"}'
	assert_equal "$(cat "$BATS_TEST_TMPDIR/items")" '{"type":"message","role":"assistant","content":"","refusal":"I cannot help with that."}'
	envelope responses
	send --items
	assert_success
	assert_equal "$output" '{"type":"message","role":"assistant","content":"","refusal":"No."}'
	envelope chat
	send
	assert_success
	assert_equal "$output" "I cannot help."
}

@test "--events writes a delta's every kind of character as the JSON writer does" {
	serve '{"events":[{"choices":[{"index":0,"delta":{"content":"q\" b\\ n\n t\t r\r c\u0001\u001f d\u007f é 😀 </>"}}]},{"choices":[{"index":0,"delta":{"refusal":"no\u0008\u000c"}}]},{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}],"done":true}'
	envelope chat
	send --events
	assert_success
	assert_equal "$output" '{"type":"text","delta":"q\" b\\ n\n t\t r\r c\u0001\u001f d'$'\x7f'' é 😀 </>"}
{"type":"refusal","delta":"no\b\f"}
{"type":"done","finish_reason":"refusal"}'
}

@test "a tool call without an id gets a call_ id derived from the answer: the same answer, the same ids" {
	serve '{"events":[{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"type":"function","function":{"name":"read","arguments":"{}"}},{"index":1,"type":"function","function":{"name":"read","arguments":"{}"}}]}}]},{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}],"done":true}' '{"events":[{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"type":"function","function":{"name":"read","arguments":"{}"}},{"index":1,"type":"function","function":{"name":"read","arguments":"{}"}}]}}]},{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}],"done":true}' \
	    '{"events":[["response.output_item.done",{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","name":"read","arguments":"{}","call_id":""}}],["response.completed",{"type":"response.completed","response":{"status":"completed","output":[]}}]]}'
	envelope chat
	send --items
	assert_success
	assert_regex "$(jqo -r .call_id | head -1)" '^call_[0-9a-f]{24}$'
	ids=$(jqo -r .call_id)
	assert_equal "$(sort -u <<<"$ids" | wc -l)" 2
	send --items
	assert_success
	assert_equal "$(jqo -r .call_id)" "$ids"
	envelope responses
	send --events
	assert_success
	assert_equal "$(jqo -r 'select(.type == "tool_call") | .call_id')" "$(head -1 <<<"$ids")"
}

@test "data: [DONE] with trailing white space ends the stream" {
	serve '{"sse":"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\ndata: [DONE]  \n\n","framing":"close"}'
	envelope chat
	send
	assert_success
	assert_equal "$output" ok
	assert_equal "$stderr" ""
}

@test "a surrogate pair split across deltas is joined; a lone half is U+FFFD" {
	serve '{"sse":"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"smile \\ud83d\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\ude00!\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" lone \\udc00.\"}}]}\n\ndata: [DONE]\n\n"}'
	envelope chat
	send --items
	assert_success
	assert_equal "$(jqo -r .content)" "smile 😀! lone �."
}

@test "usage keeps cached_tokens, 0 when the provider gives none" {
	serve "$(sse chat-stream-toolcall.sse)" '{"answer":{"api":"chat","text":"x","usage":[5,6]}}'
	envelope chat
	send --events
	assert_success
	assert_equal "$(jqo -c 'select(.type == "usage")')" '{"type":"usage","input_tokens":388,"output_tokens":52,"cached_tokens":256}'
	send --events
	assert_equal "$(jqo -c 'select(.type == "usage")')" '{"type":"usage","input_tokens":5,"output_tokens":6,"cached_tokens":0}'
}

@test "errors keep the provider's code, or its type: llama.cpp's context overflow" {
	serve "{\"status\":400,\"body_file\":\"$FAKE_FIXTURES/error-llamacpp-context.json\"}" \
	    "{\"status\":400,\"body_file\":\"$FAKE_FIXTURES/error-openai-context.json\"}"
	envelope chat
	send --events
	assert_failure 1
	assert_equal "$(jqo -c '{status, code}')" '{"status":400,"code":"exceed_context_size_error"}'
	send --events
	assert_failure 1
	assert_equal "$(jqo -c '{status, code}')" '{"status":400,"code":"context_length_exceeded"}'
}

@test "a 404 names the URL tried" {
	serve '{"status":404,"body":"404 page not found"}'
	envelope chat
	send
	assert_failure 1
	assert_equal "$stderr" "mc-send: HTTP 404 from fake for $FAKE_URL/chat/completions: 404 page not found"
}

# ---- keys ----

@test "api_key_optional: the key is sent when its variable is set, else none" {
	serve "$(sse chat-stream-text.sse)" "$(sse chat-stream-text.sse)"
	envelope chat
	jq -c '.api_key_optional = true' "$BATS_TEST_TMPDIR/env.json" > "$BATS_TEST_TMPDIR/opt.json"
	run --separate-stderr mc-send < "$BATS_TEST_TMPDIR/opt.json"
	assert_success
	assert_equal "$(fake_request 1 .headers.authorization)" "Bearer $KEY"
	FAKE_API_KEY= run --separate-stderr mc-send < "$BATS_TEST_TMPDIR/opt.json"
	assert_success
	assert_equal "$(fake_request 2 '.headers.authorization // "none"')" none
	jq -c '.api_key_optional = "yes"' "$BATS_TEST_TMPDIR/env.json" > "$BATS_TEST_TMPDIR/opt.json"
	run --separate-stderr mc-send < "$BATS_TEST_TMPDIR/opt.json"
	assert_failure 1
	assert_equal "$stderr" "mc-send: envelope: api_key_optional: must be true or false"
}

@test "a short placeholder key is not redacted out of words; a real one is" {
	serve '{"status":401,"json":{"error":{"message":"fake key ke refused"}}}' \
	    '{"status":401,"json":{"error":{"message":"key sk-abcdefgh refused"}}}'
	envelope chat
	FAKE_API_KEY=ke send
	assert_failure 1
	assert_equal "$stderr" "mc-send: HTTP 401 from fake: fake key ke refused (check the key in \$FAKE_API_KEY)"
	FAKE_API_KEY=sk-abcdefgh send
	assert_failure 1
	assert_equal "$stderr" "mc-send: HTTP 401 from fake: key [redacted] refused (check the key in \$FAKE_API_KEY)"
}

@test "on a terminal with no input, mc-send prints its usage and exits 2" {
	export BIN=$MC_BIN
	run script -qec '"$BIN/mc-send"; echo "status $?"' /dev/null
	assert_output --partial "mc-send: standard input is a terminal"
	assert_output --partial "usage: mc-send"
	assert_output --partial "status 2"
}

# ---- timeouts from the settings ----

@test "timeouts come from providers.NAME in the settings; options win" {
	serve '{"answer":{"api":"chat","text":"slow answer that stalls"},"stall_after":600,"stall":30}' \
	    '{"answer":{"api":"chat","text":"slow answer that stalls"},"stall_after":600,"stall":30}'
	settings '{"providers":{"fake":{"idle_timeout_s":1,"connect_timeout_s":5}}}'
	envelope chat
	SECONDS=0
	send
	assert_failure 1
	assert_equal "$stderr" "mc-send: nothing from fake for 1 seconds (--idle-timeout or providers.fake.idle_timeout_s)"
	[ "$SECONDS" -lt 10 ]
	settings '{"providers":{"fake":{"idle_timeout_s":100}}}'
	send --idle-timeout 2
	assert_failure 1
	assert_equal "$stderr" "mc-send: nothing from fake for 2 seconds (--idle-timeout or providers.fake.idle_timeout_s)"
}

@test "timeout settings must be whole seconds, named when wrong" {
	envelope chat
	for bad in 0 -1 1.5 '"10"'; do
		settings "{\"providers\":{\"fake\":{\"idle_timeout_s\":$bad}}}"
		send
		assert_failure 1
		assert_equal "$stderr" "mc-send: $MC_HOME/settings.json: providers.fake.idle_timeout_s: expected a whole number from 1"
	done
	settings '{"providers":{"ollama":{"connect_timeout_s":true}}}'
	send
	assert_failure 1
	assert_equal "$stderr" "mc-send: $MC_HOME/settings.json: providers.ollama.connect_timeout_s: expected a whole number from 1"
}

# ---- bounds ----

# peak KiB ARGS...: run mc-send ARGS on env.json; set status and rss
peak() {
	python3 -c '
import resource, subprocess, sys
with open(sys.argv[1]) as env:
    r = subprocess.run(sys.argv[2:], stdin=env, stdout=subprocess.DEVNULL, stderr=open(sys.argv[1] + ".err", "w"))
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$BATS_TEST_TMPDIR/env.json" mc-send "$@"
}

# rss_under KIB: peak RSS $rss is under KIB, except under make asan, whose
# shadow memory and quarantine make RSS no measure of the program's own
rss_under() {
	[ -n "${ASAN_OPTIONS:-}" ] || [ "$rss" -lt "$1" ]
}

@test "an endless answer fails cleanly at the 64 MiB cap, memory bounded" {
	serve '{"endless":{"api":"chat","text":"all work and no play makes jack a dull boy "}}' \
	    '{"endless":{"api":"responses","text":"all work and no play "}}' \
	    '{"endless":{"api":"chat","arguments":"{\"a\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}"}}' \
	    '{"endless":{"api":"responses","arguments":"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"}}'
	envelope chat
	read -r st rss < <(peak --events)
	assert_equal "$st" 1
	assert_equal "$(tail -n 1 "$BATS_TEST_TMPDIR/env.json.err")" "mc-send: the answer is over the 64 MiB limit on its text and tool calls"
	rss_under 40000
	envelope responses
	read -r st rss < <(peak --items)
	assert_equal "$st" 1
	rss_under 200000
	envelope chat
	read -r st rss < <(peak)
	assert_equal "$st" 1
	assert_regex "$(cat "$BATS_TEST_TMPDIR/env.json.err")" "over the 64 MiB limit"
	rss_under 200000
	envelope responses
	read -r st rss < <(peak)
	assert_equal "$st" 1
	rss_under 200000
}

@test "tool-call names and ids count in the 64 MiB cap: an endless name, endless calls with big names or ids" {
	# 512 KiB pieces; "upto" stops the fake at 100 MiB should the cap not hold
	big=$(head -c 524288 /dev/zero | tr '\0' n)
	serve "{\"endless\":{\"api\":\"chat\",\"name\":\"$big\",\"upto\":104857600}}" \
	    "{\"endless\":{\"api\":\"chat\",\"calls\":{\"name\":\"$big\"},\"upto\":104857600}}" \
	    "{\"endless\":{\"api\":\"chat\",\"calls\":{\"id\":\"$big\"},\"upto\":104857600}}" \
	    "{\"endless\":{\"api\":\"responses\",\"calls\":{\"name\":\"$big\"},\"upto\":104857600}}"
	for api in chat chat chat responses; do
		envelope $api
		SECONDS=0
		read -r st rss < <(peak --events)
		assert_equal "$st" 1
		assert_equal "$(tail -n 1 "$BATS_TEST_TMPDIR/env.json.err")" "mc-send: the answer is over the 64 MiB limit on its text and tool calls"
		rss_under 200000
		# linear: the name's pieces are not copied again at each
		[ "$SECONDS" -lt 20 ]
	done
}

@test "100,000 tool calls in one answer are decoded in linear time" {
	python3 - "$BATS_TEST_TMPDIR/calls.sse" "$BATS_TEST_TMPDIR/resp.sse" <<'PY'
import json, sys
n = 100000
with open(sys.argv[1], "w") as f:
    for i in range(n):
        f.write("data: %s\n\n" % json.dumps({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": i, "id": "c%d" % i, "type": "function", "function": {"name": "f", "arguments": ""}}]}}]}))
        f.write("data: %s\n\n" % json.dumps({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": i, "function": {"arguments": "{}"}}]}}]}))
    f.write('data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n')
with open(sys.argv[2], "w") as f:
    for i in range(n):
        f.write("data: %s\n\n" % json.dumps({"type": "response.output_item.added", "output_index": i,
            "item": {"id": "fc%d" % i, "type": "function_call", "call_id": "c%d" % i, "name": "f", "arguments": ""}}))
        f.write("data: %s\n\n" % json.dumps({"type": "response.function_call_arguments.delta", "item_id": "fc%d" % i,
            "output_index": i, "delta": "{}"}))
    f.write('data: {"type":"response.completed","response":{"status":"completed","output":[]}}\n\n')
PY
	serve "{\"sse_file\":\"$BATS_TEST_TMPDIR/calls.sse\"}" "{\"sse_file\":\"$BATS_TEST_TMPDIR/resp.sse\"}"
	envelope chat
	# A hang guard only: quadratic lookups take minutes here.
	run --separate-stderr timeout 60 mc-send --events < "$BATS_TEST_TMPDIR/env.json"
	assert_success
	assert_equal "$(jqo -s -c '[length, .[0].call_id, .[-2].call_id, .[-1].finish_reason]')" '[100001,"c0","c99999","tool_calls"]'
	envelope responses
	run --separate-stderr timeout 60 mc-send --events < "$BATS_TEST_TMPDIR/env.json"
	assert_success
	assert_equal "$(jqo -s -c '[length, .[0].call_id, .[-2].call_id, .[-1].finish_reason]')" '[100001,"c0","c99999","tool_calls"]'
}

# ---- --serve: one connection per session ----

# envelopes API...: one compact envelope per line in envs.jsonl
envelopes() {
	local api
	: > "$BATS_TEST_TMPDIR/envs.jsonl"
	for api in "$@"; do
		fake_envelope "$api" >> "$BATS_TEST_TMPDIR/envs.jsonl"
	done
}

# serve_run ARGS...: run mc-send --serve ARGS on envs.jsonl
serve_run() {
	run --separate-stderr mc-send --serve "$@" < "$BATS_TEST_TMPDIR/envs.jsonl"
}

@test "--serve: three envelopes answered in turn over one connection" {
	serve "$(sse chat-stream-text.sse)" "$(sse responses-stream-toolcall.sse)" \
	    '{"answer":{"api":"chat","text":"third","usage":[1,2]}}'
	envelopes chat responses chat
	serve_run
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo -s -c '[.[] | select(.type == "done" or .type == "error") | .finish_reason]')" '["stop","tool_calls","stop"]'
	assert_equal "$(jqo -s -j 'map(select(.type == "text") | .delta) | add')" "${CHAT_TEXT}third"
	assert_equal "$(jqo -s -c '[.[] | select(.type == "tool_call") | .call_id]')" '["call_Vb3kQ9xLm2TzR7pYw4NcA1sE","call_Hq8Zt1uWd5KfJ3oXn6GbP0yC"]'
	# Nothing of an answer follows its done.
	assert_equal "$(jqo -s -r '[.[] | .type] | join(",")' | sed 's/text,//g')" 'usage,done,reasoning_item,tool_call,tool_call,usage,done,usage,done'
	assert_equal "$(fake_count)" 3
	assert_equal "$(for n in 1 2 3; do fake_request $n .conn; done | sort -u)" 1
}

@test "--serve: each answer is flushed whole before the next envelope is read" {
	serve '{"answer":{"api":"chat","text":"first answer"}}' '{"answer":{"api":"chat","text":"second"}}'
	envelopes chat
	coproc SEND { mc-send --serve 2>"$BATS_TEST_TMPDIR/err"; }
	pid=$SEND_PID
	cat "$BATS_TEST_TMPDIR/envs.jsonl" >&"${SEND[1]}"
	got=
	while read -r -t 10 line <&"${SEND[0]}"; do
		got+="$line"$'\n'
		[[ $line == *'"type":"done"'* ]] && break
	done
	assert_regex "$got" '"finish_reason":"stop"'
	assert_equal "$(fake_count)" 1
	cat "$BATS_TEST_TMPDIR/envs.jsonl" >&"${SEND[1]}"
	exec {SEND[1]}>&-
	rest=$(cat <&"${SEND[0]}")
	wait "$pid"
	assert_regex "$rest" '"delta":"second"'
	assert_equal "$(fake_count)" 2
}

@test "--serve: a bad line is one error event naming it, then the next is answered" {
	serve "$(sse chat-stream-text.sse)" '{"answer":{"api":"chat","text":"after"}}'
	envelopes chat
	good=$(cat "$BATS_TEST_TMPDIR/envs.jsonl")
	printf '%s\n' '{"version":' '' '   ' "$(jq -c 'del(.url)' <<<"$good")" "$good" '[1]' "$good" \
	    > "$BATS_TEST_TMPDIR/envs.jsonl"
	serve_run
	assert_success
	assert_equal "$(jqo -s -c '[.[] | select(.type != "text" and .type != "usage")]')" \
	    '[{"type":"error","message":"line 1: envelope: invalid JSON at line 1, column 11"},{"type":"error","message":"line 4: envelope: url: missing"},{"type":"done","finish_reason":"stop"},{"type":"error","message":"line 6: envelope: (document): not a JSON object"},{"type":"done","finish_reason":"stop"}]'
	assert_equal "$stderr" "mc-send: line 1: envelope: invalid JSON at line 1, column 11
mc-send: line 4: envelope: url: missing
mc-send: line 6: envelope: (document): not a JSON object"
	assert_equal "$(fake_count)" 2
}

@test "--serve: a provider error or a missing key ends that answer only" {
	serve '{"status":400,"json":{"error":{"message":"bad request","code":"invalid_value"}}}' \
	    '{"answer":{"api":"chat","text":"fine"}}'
	envelopes chat chat
	FAKE_KEY_ENV=OTHER_KEY fake_envelope chat >> "$BATS_TEST_TMPDIR/envs.jsonl"
	serve_run
	assert_success
	assert_equal "$(jqo -s -c '[.[] | select(.type == "error" or .type == "done")]')" \
	    '[{"type":"error","status":400,"code":"invalid_value","message":"HTTP 400 from fake: bad request"},{"type":"done","finish_reason":"stop"},{"type":"error","message":"OTHER_KEY is not set: the provider fake needs it (export OTHER_KEY=...)"}]'
	assert_equal "$(fake_count)" 2
	assert_equal "$(fake_request 2 .conn)" 1
}

@test "--serve: the key is read for each envelope, and never printed" {
	serve "{\"status\":401,\"json\":{\"error\":{\"message\":\"bad key $KEY\"}}}" '{"answer":{"api":"chat","text":"ok"}}'
	envelopes chat chat
	serve_run
	assert_success
	[[ "$output$stderr" != *"$KEY"* ]]
	assert_equal "$(fake_request 2 .headers.authorization)" "Bearer $KEY"
}

@test "--serve: a server that closes the connection between answers: a new one" {
	serve '{"answer":{"api":"chat","text":"one"},"close":"header"}' \
	    '{"answer":{"api":"chat","text":"two"},"close":"silent"}' \
	    '{"answer":{"api":"chat","text":"three"}}' '{"answer":{"api":"chat","text":"four"}}'
	envelopes chat chat chat chat
	serve_run
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo -s -j 'map(select(.type == "text") | .delta) | add')" onetwothreefour
	assert_equal "$(for n in 1 2 3 4; do fake_request $n .conn; done | tr '\n' ' ')" "1 2 3 3 "
}

@test "--serve goes with events only; usage errors exit 2" {
	envelopes chat
	serve_run --items
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "mc-send: --serve answers with events: --items and --items-out cannot be used with it"
	serve_run --items-out "$BATS_TEST_TMPDIR/x"
	assert_failure 2
	[ ! -e "$BATS_TEST_TMPDIR/x" ]
	run --separate-stderr mc-send --serve --events < /dev/null
	assert_success
}

@test "--serve: end of input exits 0; SIGINT during an answer exits 130" {
	run --separate-stderr mc-send --serve < /dev/null
	assert_success
	assert_equal "$output" ""
	serve '{"answer":{"api":"chat","text":"before the stall"},"stall_after":700,"stall":60}'
	envelopes chat
	mkfifo "$BATS_TEST_TMPDIR/in"
	mc-send --serve < "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
	pid=$!
	exec {w}>"$BATS_TEST_TMPDIR/in"
	cat "$BATS_TEST_TMPDIR/envs.jsonl" >&$w
	for ((i = 0; i < 200; i++)); do
		grep -q before "$BATS_TEST_TMPDIR/out" 2>/dev/null && break
		sleep 0.05
	done
	kill -INT "$pid"
	status=0
	wait "$pid" || status=$?
	exec {w}>&-
	assert_equal "$status" 130
	assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ""
}

# ---- TLS ----

# tls_cert: a throw-away certificate for 127.0.0.1 in $T_CERT, $T_KEY
tls_cert() {
	T_CERT=$BATS_TEST_TMPDIR/cert.pem T_KEY=$BATS_TEST_TMPDIR/key.pem
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -keyout "$T_KEY" -out "$T_CERT" \
	    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
	export CURL_CA_BUNDLE=$T_CERT
}

@test "TLS: an https provider, verified against its certificate" {
	tls_cert
	fake_start "[$(sse chat-stream-text.sse),$(sse chat-stream-text.sse)]" --tls "$T_CERT" "$T_KEY"
	[[ $FAKE_URL == https://127.0.0.1:* ]]
	envelope chat
	send
	assert_success
	assert_equal "$output" "$CHAT_TEXT"
	# Without the CA, the server is not trusted: no connection, no key sent.
	CURL_CA_BUNDLE=/dev/null send --retries 0
	assert_failure 1
	assert_regex "$stderr" '^mc-send: cannot reach fake: '
	assert_equal "$(fake_count)" 1
}

@test "TLS: SSL_CERT_FILE, or a directory in SSL_CERT_DIR, names the trusted certificates" {
	tls_cert
	unset CURL_CA_BUNDLE
	fake_start "[$(sse chat-stream-text.sse),$(sse chat-stream-text.sse)]" --tls "$T_CERT" "$T_KEY"
	envelope chat
	SSL_CERT_FILE=$T_CERT send --retries 0
	assert_success
	assert_equal "$output" "$CHAT_TEXT"
	mkdir "$BATS_TEST_TMPDIR/certs"
	cp "$T_CERT" "$BATS_TEST_TMPDIR/certs/$(openssl x509 -hash -noout -in "$T_CERT").0"
	SSL_CERT_DIR=$BATS_TEST_TMPDIR/certs send --retries 0
	assert_success
	assert_equal "$output" "$CHAT_TEXT"
	# Neither: the system's store does not hold a throw-away certificate.
	mkdir "$BATS_TEST_TMPDIR/empty"
	SSL_CERT_DIR=$BATS_TEST_TMPDIR/empty send --retries 0
	assert_failure 1
	assert_regex "$stderr" '^mc-send: cannot reach fake: '
}

@test "TLS: --serve makes one connection for several envelopes" {
	tls_cert
	fake_start '[{"answer":{"api":"chat","text":"a"}},{"answer":{"api":"responses","text":"b"}},{"answer":{"api":"chat","text":"c"}},{"answer":{"api":"chat","text":"d"}}]' \
	    --tls "$T_CERT" "$T_KEY" --connect-delay 0.2
	envelopes chat responses chat chat
	SECONDS=0
	serve_run
	assert_success
	assert_equal "$(jqo -s -j 'map(select(.type == "text") | .delta) | add')" abcd
	assert_equal "$(fake_count)" 4
	assert_equal "$(for n in 1 2 3 4; do fake_request $n .conn; done | sort -u)" 1
}

@test "--serve: an answer cut by the output limit is said by its done event, not by a note too" {
	serve '{"answer":{"api":"chat","text":"cut short","finish_reason":"length"}}' \
	    '{"answer":{"api":"chat","text":"whole"}}'
	envelopes chat chat
	serve_run
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo -s -c '[.[] | select(.type == "done")]')" \
	    '[{"type":"done","finish_reason":"length"},{"type":"done","finish_reason":"stop"}]'
}
