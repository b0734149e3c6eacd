#!/usr/bin/env bats
# Reasoning (SPEC §21, its first two bullets): --reasoning and
# models.ID.reasoning mapped per API; reasoning from every stream shape
# (fixtures made from the published formats: llama.cpp's and OpenRouter's
# chat deltas, Responses summary events, Messages thinking deltas) as
# reasoning events, kept as reasoning items, sent back in a Responses tool
# loop; never in the answer's text.

load helper
load fake
load mc

setup_file_local() {
	export FAKE_API_KEY=sk-test-R3as0n1ngKeyXyZ
	export MC_RETRY_BASE_MS=1
	F=$FAKE_FIXTURES
}

# body API ARGS...: mc-request's body for a one-message request
body() {
	local api=$1
	shift
	run --separate-stderr mc-request -m gpt-5 --api "$api" --body "$@" hi </dev/null
}

sse() {
	printf '{"sse_file":"%s","chunk":5}' "$F/$1"
}

send() { # API ARGS...
	fake_envelope "$1" > env.json
	shift
	run --separate-stderr mc-send "$@" < env.json
}

# ---- the mapping ----

@test "--reasoning: Chat reasoning_effort, Responses reasoning and include, Messages thinking" {
	body chat --reasoning low
	assert_success
	assert_equal "$(jqo .reasoning_effort)" low
	body responses --reasoning high
	assert_success
	assert_equal "$(jqo -c '[.reasoning, .include, .store]')" \
		'[{"effort":"high","summary":"auto"},["reasoning.encrypted_content"],false]'
	for l in minimal:1024 low:4096 medium:10000 high:32000; do
		body messages --reasoning "${l%%:*}"
		assert_success
		assert_equal "$(jqo -c .thinking)" "{\"type\":\"enabled\",\"budget_tokens\":${l#*:}}"
		# max_tokens stays above the budget: raised by the answer's own limit
		assert [ "$(jqo .max_tokens)" -gt "${l#*:}" ]
	done
	body messages --reasoning medium --max-output-tokens 20000
	assert_equal "$(jqo -c '[.thinking.budget_tokens, .max_tokens]')" '[10000,20000]'
	body messages --reasoning medium --max-output-tokens 5000
	assert_equal "$(jqo -c '[.thinking.budget_tokens, .max_tokens]')" '[10000,15000]'
}

@test "no reasoning asked, or off: the body is unchanged" {
	for api in chat responses messages; do
		body "$api"
		plain=$output
		body "$api" --reasoning off
		assert_success
		assert_equal "$output" "$plain"
		[[ $plain != *reasoning* && $plain != *thinking* && $plain != *'"include"'* ]]
	done
}

@test "models.ID.reasoning wins over its family's and \"*\"; --reasoning over both" {
	settings '{"models":{"*":{"reasoning":"low"},"fam":{"reasoning":"high"},"gpt-5":{"reasoning":"minimal"},"g2":{"family":"fam"}}}'
	body chat
	assert_equal "$(jqo -r .reasoning_effort)" minimal
	run --separate-stderr mc-request -m other --api chat --body hi </dev/null
	assert_equal "$(jqo -r .reasoning_effort)" low
	run --separate-stderr mc-request -m g2 --api chat --body hi </dev/null
	assert_equal "$(jqo -r .reasoning_effort)" high
	body chat --reasoning medium
	assert_equal "$(jqo -r .reasoning_effort)" medium
	body chat --reasoning off
	assert_equal "$(jqo -c .reasoning_effort)" null
	settings '{"models":{"gpt-5":{"reasoning":"off"},"*":{"reasoning":"high"}}}'
	body responses
	assert_equal "$(jqo -c .reasoning)" null
}

@test "a bad level: a usage error naming it, from mc-request and mc; a bad setting names its key" {
	body chat --reasoning huge
	assert_failure 2
	assert_equal "$stderr" 'mc-request: --reasoning: expected minimal, low, medium, high or off, not "huge"
Try '"'"'mc-request --help'"'"' for more information.'
	run --separate-stderr mc --reasoning max hi </dev/null
	assert_failure 2
	[[ ${stderr%%$'\n'*} == 'mc: --reasoning: expected minimal, low, medium, high or off, not "max"' ]]
	settings '{"models":{"gpt-5":{"reasoning":"lots"}}}'
	body chat
	assert_failure
	[[ $stderr == *'models.gpt-5.reasoning'*'"minimal"'* ]]
}

@test "a level the provider refuses: its 400 shown, and the setting to change named" {
	err='{"error":{"message":"Unsupported value: '"'"'reasoning_effort'"'"' does not support '"'"'minimal'"'"' with this model.","type":"invalid_request_error","param":"reasoning_effort","code":"unsupported_value"}}'
	fake_start "[{\"status\":400,\"json\":$err},{\"status\":400,\"json\":$err},{\"status\":400,\"json\":$err}]"
	use_fake
	run --separate-stderr mc --reasoning minimal hi </dev/null
	assert_failure 1
	[[ $stderr == *"does not support 'minimal' with this model."* ]]
	[[ $stderr == *'mc: the provider refused reasoning level "minimal": pass another --reasoning level, or --reasoning off'* ]]
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",\"models\":{\"*\":{\"reasoning\":\"minimal\"}},
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}}}"
	run --separate-stderr mc hi </dev/null
	assert_failure 1
	[[ $stderr == *"mc: the provider refused reasoning level \"minimal\" (models.*.reasoning in $MC_HOME/settings.json): change it, or pass --reasoning off"* ]]
	# without a level asked for, no such note
	run --separate-stderr mc --reasoning off hi </dev/null
	assert_failure 1
	[[ $stderr != *'refused reasoning'* ]]
}

# ---- the streams ----

@test "llama.cpp reasoning_content: reasoning events, then the text; text mode shows only the answer" {
	fake_start "[$(sse chat-stream-reasoning-llamacpp.sse),$(sse chat-stream-reasoning-llamacpp.sse),$(sse chat-stream-reasoning-llamacpp.sse)]"
	send chat --events
	assert_success
	assert_equal "$(jqo -s -c 'map(select(.type == "reasoning") | .delta)')" \
		'["Okay, the user"," asks for 2+2.","\nThat is 4."]'
	assert_equal "$(jqo -r 'select(.type == "text") | .delta' | tr -d '\n')" '2 + 2 = 4.'
	assert_equal "$(jqo -c 'select(.type == "reasoning_item") | [.text, .api]')" \
		'["Okay, the user asks for 2+2.\nThat is 4.","chat"]'
	send chat
	assert_success
	assert_equal "$output" '2 + 2 = 4.'
	send chat --items
	assert_equal "$(jqo -s -c 'map([.type, .text // .content])')" \
		'[["reasoning","Okay, the user asks for 2+2.\nThat is 4."],["message","2 + 2 = 4."]]'
}

@test "a surrogate pair cut between two reasoning deltas is one character; a lone half at the end is U+FFFD" {
	fake_start "[$(sse chat-stream-reasoning-split-pair.sse),$(sse chat-stream-reasoning-split-pair.sse)]"
	send chat --events
	assert_success
	assert_equal "$(jqo -s -c 'map(select(.type == "reasoning") | .delta)')" \
		'["They smile ","😀 back."," Then ","�"]'
	assert_equal "$(jqo -r 'select(.type == "text") | .delta')" 'Hi.'
	send chat --items
	assert_success
	assert_equal "$(jqo -s -c 'map([.type, .text // .content])')" \
		'[["reasoning","They smile 😀 back. Then �"],["message","Hi."]]'
}

@test "mc-send --cache: a kept answer replays its reasoning deltas and item" {
	fake_start "[$(sse chat-stream-reasoning-llamacpp.sse)]"
	use_fake
	mc-request "hi" < /dev/null > env.json
	cache_replays env.json
	assert_equal "$(jqo -c 'select(.type == "reasoning")' | wc -l)" 3
}

@test "OpenRouter reasoning deltas, beside empty content" {
	fake_start "[$(sse chat-stream-reasoning-openrouter.sse)]"
	send chat --events
	assert_success
	assert_equal "$(jqo -s -c 'map(select(.type == "reasoning" or .type == "text") | [.type, .delta])')" \
		'[["reasoning","Let me think"],["reasoning"," about it."],["text","Four."]]'
}

@test "a non-streamed chat completion: its reasoning_content is a reasoning item, not text" {
	printf '%s' '{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":"Hmm.","content":"Yes."},"finish_reason":"stop"}]}' > "$BATS_TEST_TMPDIR/whole.json"
	fake_start "[{\"body_file\":\"$BATS_TEST_TMPDIR/whole.json\"}]"
	send chat --events
	assert_success
	assert_equal "$(jqo -s -c 'map([.type, .delta // .text])')" \
		'[["text","Yes."],["reasoning_item","Hmm."],["done",null]]'
}

@test "Responses summary deltas, parts a paragraph apart; the item keeps its encrypted content" {
	fake_start "[$(sse responses-stream-reasoning.sse),$(sse responses-stream-reasoning.sse)]"
	send responses --events
	assert_success
	assert_equal "$(jqo -s -c 'map(select(.type == "reasoning") | .delta) | add | tojson')" \
		'"**Reading the README**\n\nI need the file first.\n\nThen I answer."'
	assert_equal "$(jqo -c 'select(.type == "reasoning_item") | [.api, .data.id, (.data.encrypted_content | length)]')" \
		'["responses","rs_0a1b2c3d4e5f60718293a4b5c6d7e8f9",90]'
	# once, though response.completed's output holds it again
	assert_equal "$(jqo -c 'select(.type == "reasoning_item")' | wc -l)" 1
	send responses --items
	assert_equal "$(jqo -r .type | tr '\n' ' ')" 'reasoning function_call '
	assert_equal "$(jqo -r 'select(.type == "reasoning") | .text')" \
		"$(printf '**Reading the README**\n\nI need the file first.\n\nThen I answer.')"
}

@test "Messages thinking_delta: reasoning events, and the block whole" {
	fake_start "[$(sse messages-stream-toolcall.sse)]"
	send messages --events
	assert_success
	assert_equal "$(jqo -r 'select(.type == "reasoning") | .delta' | tr -d '\n')" \
		'The user wants the tests. I should read the README first.'
	assert_equal "$(jqo -r 'select(.type == "reasoning_item") | .text')" \
		'The user wants the tests. I should read the README first.'
}

# ---- sent back ----

@test "items: Responses reasoning goes back before its call, encrypted, without its id; Chat drops it" {
	printf '%s\n' '{"type":"message","role":"user","content":"read it"}' \
		'{"type":"reasoning","text":"Plan.","api":"responses","data":{"id":"rs_1","encrypted_content":"ENC1"}}' \
		'{"type":"reasoning","text":"Other.","api":"chat"}' \
		'{"type":"function_call","call_id":"c1","name":"read","arguments":"{}"}' \
		'{"type":"function_call_output","call_id":"c1","output":"x"}' > items.jsonl
	run --separate-stderr mc-request -m gpt-5 --api responses --items items.jsonl --body </dev/null
	assert_success
	assert_equal "$(jqo -c '.input[1:3]')" \
		'[{"type":"reasoning","summary":[{"type":"summary_text","text":"Plan."}],"encrypted_content":"ENC1"},{"type":"function_call","call_id":"c1","name":"read","arguments":"{}"}]'
	assert_equal "$(jqo -c '.input | map(.type)')" '["message","reasoning","function_call","function_call_output"]'
	run --separate-stderr mc-request -m gpt-5 --api chat --items items.jsonl --body </dev/null
	assert_success
	[[ $output != *Plan.* && $output != *Other.* ]]
}

@test "mc: a Responses tool loop sends the reasoning item back before the call it led to" {
	printf '# readme\n' > README.md
	fake_start "[$(sse responses-stream-reasoning.sse),{\"answer\":{\"api\":\"responses\",\"text\":\"It is a readme.\"}}]"
	settings "{\"provider\":\"fake\",\"model\":\"gpt-5\",\"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"responses\",\"api_key_env\":\"FAKE_API_KEY\"}}}"
	run --separate-stderr mc --yes --reasoning medium --json 'what is README.md?' </dev/null
	assert_success
	assert_equal "$(fake_count)" 2
	assert_equal "$(fake_request 1 '.body | [.reasoning, .include] | tojson')" \
		'[{"effort":"medium","summary":"auto"},["reasoning.encrypted_content"]]'
	assert_equal "$(fake_request 2 '.body.input | map(.type) | tojson')" \
		'["message","reasoning","function_call","function_call_output"]'
	assert_equal "$(fake_request 2 '.body.input[1].encrypted_content | length')" 90
	# the session keeps it as a reasoning item
	f=$(session_files | head -1)
	assert_equal "$(jq -r 'select(.type == "reasoning") | .data.id' "$f")" rs_0a1b2c3d4e5f60718293a4b5c6d7e8f9
}

# ---- on a terminal ----

@test "on a terminal: reasoning dim, folded to its last line until the answer begins, then cleared; /reasoning shows it whole" {
	d=$BATS_TEST_TMPDIR
	printf 'data: {"choices":[{"index":0,"delta":{"reasoning_content":"First I think.\\nThen I see"}}]}\n\n' > "$d/part1.sse"
	printf 'data: {"choices":[{"index":0,"delta":{"reasoning_content":" it is four."}}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"Four."},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n' > "$d/part2.sse"
	cat "$d/part1.sse" "$d/part2.sse" > "$d/all.sse"
	# the first answer stops after its first delta (until Ctrl-C); the second is whole
	fake_start "[{\"sse_file\":\"$d/all.sse\",\"stall_after\":$(wc -c < "$d/part1.sse"),\"stall\":3600},
	  {\"sse_file\":\"$d/all.sse\"}]"
	use_fake
	on_tty mc
	wait_for 'mc>'
	keys 'what is 2+2?' Enter
	wait_for 'Then I see'
	# only the last line, dim
	assert_equal "$(pane | grep -c 'First I think')" 0
	pane -e | grep -qF $'\e[2mThen I see'
	keys C-c
	wait_prompt 2
	assert_equal "$(pane | grep -c 'Then I see')" 0
	keys 'again' Enter
	wait_for 'Four.'
	wait_prompt 3
	# the answer began: the fold is gone, the answer alone is there
	assert_equal "$(pane | grep -c 'I see\|I think')" 0
	keys '/reasoning' Enter
	wait_for 'Then I see it is four.'
	wait_for 'First I think.'
	wait_prompt 4
	keys C-d
	assert_equal "$(wait_status)" 0
	# the session keeps it as a reasoning item, before the answer
	f=$(session_files | head -1)
	assert_equal "$(jq -r 'select(.type == "reasoning" or .role == "assistant") | .type' "$f" | tail -2 | tr '\n' ' ')" 'reasoning message '
}
