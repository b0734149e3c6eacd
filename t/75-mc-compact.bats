#!/usr/bin/env bats
# mc-compact: SPEC §12 (compaction) against the fake provider, and the
# fragment it asks mc-render for (mc-render --fragment, --print-default).

load helper
load fake

setup_file_local() {
	export MC_RG="$BATS_TEST_TMPDIR/no-such-rg"
	S="$BATS_TEST_TMPDIR/session.jsonl"
	: > "$S"
}

# use_fake [JQ]: settings for the fake provider (chat, no key), changed by
# the jq expression JQ when given (e.g. '.models["fake-model"].context_window = 900').
use_fake() {
	settings "$(jq -nc --arg url "$FAKE_URL" "{provider: \"fake\", model: \"fake-model\",
	  providers: {fake: {base_url: \$url, api: \"chat\", api_key_env: null}}} | ${1:-.}")"
}

# answer TEXT [FINISH]: a script of one streamed chat answer
answer() {
	jq -nc --arg t "$1" --arg f "${2:-stop}" '[{answer: {api: "chat", text: $t, finish_reason: $f}}]'
}

# the items, each appended to the session file $S
msg() { jq -nc --arg r "$1" --arg c "$2" '{type: "message", role: $r, content: $c}' >> "$S"; }
call() { jq -nc --arg i "$1" '{type: "function_call", call_id: $i, name: "read", arguments: "{}"}' >> "$S"; }
out() { jq -nc --arg i "$1" --arg o "$2" '{type: "function_call_output", call_id: $i, output: $o}' >> "$S"; }
usage() { printf '{"type":"usage","input_tokens":%s,"output_tokens":%s,"cached_tokens":0,"provider":"fake","model":"fake-model"}\n' "$1" "$2" >> "$S"; }
header() { printf '{"type":"session","version":1,"id":"s1","provider":"fake","model":"fake-model","cwd":"/"}\n' >> "$S"; }

# pad N: N bytes of text
pad() { head -c "$1" /dev/zero | tr '\0' "${2:-x}"; }

# compact ARGS...: run mc-compact on $S
compact() {
	run --separate-stderr mc-compact "$@" < "$S"
}

# tail_is N: stdout after the summary is the last N lines of $S, byte for byte
tail_is() {
	diff <(tail -n "$1" "$S") <(printf '%s\n' "$output" | tail -n +2)
	assert_equal "$(printf '%s\n' "$output" | wc -l)" $(($1 + 1))
}

# the summary request's messages (chat)
req() { fake_request 1 "$1"; }

stderr_has() {
	[[ "$stderr" == *"$1"* ]] && return 0
	printf 'stderr lacks: %s\nstderr: %s\n' "$1" "$stderr" >&2
	return 1
}

# three turns of about 100 tokens each (two items apiece)
three_turns() {
	header
	msg user "first question $(pad 200)"
	msg assistant "first answer $(pad 200)"
	msg user "second question $(pad 200)"
	msg assistant "second answer $(pad 200)"
	msg user "third question $(pad 200)"
	msg assistant "third answer $(pad 200)"
}

# ---- the output ----

@test "the summary item first, then the kept tail verbatim; one request" {
	fake_start "$(answer '  Summary: the user asked two questions.  ')"
	use_fake
	three_turns
	compact --keep-tokens 150
	assert_success
	assert_equal "$(printf '%s\n' "$output" | head -n 1)" \
		'{"type":"message","role":"user","content":"<Conversation-Summary>\nSummary: the user asked two questions.\n</Conversation-Summary>"}'
	tail_is 2
	assert_equal "$(fake_count)" 1
	[[ "$stderr" =~ ^'mc-compact: compacted 4 items (about '[0-9]+' tokens) into a summary of about 5 tokens; kept 2 items (about '[0-9]+' tokens); about '[0-9]+' tokens before, about '[0-9]+' after'$ ]]
	# The request: the compact fragment, the four older items, the question.
	assert_equal "$(req '.body.messages | length')" 6
	assert_equal "$(req '.body.messages[0].role')" system
	assert_equal "$(req '.body.messages[0].content')" "$(mc-render --fragment compact)"
	assert_equal "$(req '.body.messages[1].content')" "first question $(pad 200)"
	assert_equal "$(req '.body.messages[4].content')" "second answer $(pad 200)"
	assert_equal "$(req '.body.messages[5].role')" user
	req '.body.messages[5].content' | grep -q '^Write the summary of the conversation above'
	assert_equal "$(req '.body.tools // "none"')" none
}

@test "the tail is kept byte for byte, not written again" {
	fake_start "$(answer 'S.')"
	use_fake
	msg user "old $(pad 400)"
	msg assistant "old answer $(pad 400)"
	printf '{ "type" : "message", "content" : "caf\\u00e9 \xc3\xa9", "role" : "user" }\r\n' >> "$S"
	printf '{"role":"assistant","type":"message","content":"ok"}' >> "$S"	# no final newline
	compact --keep-tokens 40
	assert_success
	assert_equal "$(printf '%s\n' "$output" | sed -n 2p)" \
		"$(printf '{ "type" : "message", "content" : "caf\\u00e9 \xc3\xa9", "role" : "user" }\r')"
	assert_equal "$(printf '%s\n' "$output" | sed -n 3p)" '{"role":"assistant","type":"message","content":"ok"}'
	assert_equal "$(printf '%s\n' "$output" | wc -l)" 3
}

@test "reasoning items (Messages' thinking blocks) are compacted like the rest" {
	fake_start "$(answer 'S.')"
	use_fake
	msg user "old $(pad 400)"
	printf '{"type":"reasoning","text":"hm","api":"messages","data":{"type":"thinking","signature":"S"}}\n' >> "$S"
	call c1
	out c1 "$(pad 400)"
	msg assistant "old answer $(pad 400)"
	msg user "new question"
	printf '{"type":"reasoning","text":"","api":"messages","data":{"type":"redacted_thinking","data":"R"}}\n' >> "$S"
	msg assistant "new answer"
	compact --keep-tokens 80
	assert_success
	tail_is 3
	# the summary request sends the old ones on (chat leaves reasoning out)
	assert_equal "$(req '.body.messages | map(.role) | join(" ")')" 'system user assistant tool assistant user'

}

# ---- where the tail starts ----

@test "a session ending in calls and outputs: the tail starts at a call, never at an output" {
	fake_start "$(answer 'S.')"
	use_fake
	msg user "first $(pad 400)"
	msg assistant "answer $(pad 400)"
	msg user 'read a and b'
	call c1
	out c1 "$(pad 300)"
	call c2
	out c2 "$(pad 300)"
	# 200 tokens would hold the last three items alone: the tail would open
	# with c1's output, orphaned; it starts at the call c2 instead. No user
	# message starts a tail that fits: the turn is cut at a step.
	compact --keep-tokens 200
	assert_success
	tail_is 2
	assert_equal "$(printf '%s\n' "$output" | sed -n 2p | jq -r '.type + " " + .call_id')" 'function_call c2'
	# summarized: the two first messages, the request, c1 and its output
	assert_equal "$(req '.body.messages | length')" 7
	assert_equal "$(req '.body.messages[4].tool_calls[0].id')" c1
	assert_equal "$(req '.body.messages[5].tool_call_id')" c1
}

@test "a last turn larger than --keep-tokens is kept whole" {
	fake_start "$(answer 'S.')"
	use_fake
	msg user "first $(pad 400)"
	msg assistant "answer $(pad 400)"
	msg user 'go on'
	call c1
	out c1 "$(pad 3000)"
	msg assistant 'done'
	compact --keep-tokens 1
	assert_success
	tail_is 4
}

@test "a user message between a call and its output is no place to start" {
	fake_start "$(answer 'S.')"
	use_fake
	msg user "first $(pad 400)"
	call c1
	msg user 'meanwhile'
	out c1 "$(pad 100)"
	msg user 'last'
	msg assistant 'fine'
	# 'meanwhile' would fit; starting there would leave c1's output orphaned.
	compact --keep-tokens 120
	assert_success
	tail_is 2
	assert_equal "$(printf '%s\n' "$output" | sed -n 2p | jq -r .content)" last
}

@test "one long turn: the tail starts at the first call of a group, and a summary request holds the rest" {
	fake_start "$(answer 'S.')"
	use_fake
	header
	msg user 'fix the build'
	for i in 1 2 3 4; do
		call "c$i"
		out "c$i" "$(pad 400)"
	done
	usage 900 30
	# one answer with two calls, then their outputs: about 165 tokens
	call c5
	call c6
	out c5 "$(pad 200)"
	out c6 "$(pad 200)"
	# 180 tokens would hold a tail from c6 too, but that would leave c5's
	# output without its call: the group is kept together, from c5.
	compact --keep-tokens 180
	assert_success
	tail_is 4
	assert_equal "$(printf '%s\n' "$output" | sed -n 2p | jq -r .call_id)" c5
	# the request: the user's message, four calls and their outputs, the question
	assert_equal "$(req '.body.messages | length')" 11
	assert_equal "$(req '.body.messages[1].content')" 'fix the build'
	assert_equal "$(fake_count)" 1
}

@test "one long turn: the tail may start at an assistant message" {
	fake_start "$(answer 'S.')"
	use_fake
	msg user 'look around'
	call c1
	out c1 "$(pad 2000)"
	msg assistant 'Halfway: the log says the parser fails.'
	call c2
	out c2 "$(pad 100)"
	compact --keep-tokens 100
	assert_success
	tail_is 3
	assert_equal "$(printf '%s\n' "$output" | sed -n 2p | jq -r .role)" assistant
}

@test "one long turn: the tail never starts at a call right after its reasoning (the thinking block goes with its tool_use)" {
	fake_start "$(answer 'S.')"
	use_fake
	msg user 'look around'
	call c1
	out c1 "$(pad 2000)"
	printf '{"type":"reasoning","text":"%s","api":"messages","data":{"type":"thinking","signature":"S"}}\n' "$(pad 400)" >> "$S"
	call c2
	out c2 "$(pad 100)"
	# 80 tokens hold c2 and its output, not the reasoning before them: c2
	# is no place to start, and the kept tail holds the reasoning with it
	compact --keep-tokens 80
	assert_success
	[ "$(printf '%s\n' "$output" | sed -n 2p | jq -r .type)" != function_call ] ||
		[ "$(printf '%s\n' "$output" | sed -n 2p | jq -r .call_id)" != c2 ]
	printf '%s\n' "$output" | tail -n +2 | jq -se 'any(.type == "reasoning")' >/dev/null
}

@test "a user message that fits is preferred to a step further back" {
	fake_start "$(answer 'S.')"
	use_fake
	msg user "first $(pad 400)"
	call c1
	out c1 "$(pad 400)"
	msg assistant 'ok'
	msg user 'next'
	msg assistant "sure $(pad 100)"
	# a step (c1) fits too when keep is large; the user message 'next' is
	# the earliest turn that fits and wins over a longer tail from c1
	compact --keep-tokens 250
	assert_success
	tail_is 2
	assert_equal "$(printf '%s\n' "$output" | sed -n 2p | jq -r .content)" next
}

@test "model lines are bookkeeping: skipped, not written out" {
	fake_start "$(answer 'S.')"
	use_fake
	three_turns
	printf '{"type":"model","provider":"fake","model":"other-model"}\n' >> "$S"
	msg user 'and now?'
	compact --keep-tokens 150
	assert_success
	printf '%s\n' "$output" | grep -v -q '"type":"model"'
	assert_equal "$(printf '%s\n' "$output" | tail -n 1 | jq -r .content)" 'and now?'
	assert_equal "$(printf '%s\n' "$output" | jq -s 'map(select(.type == "model")) | length')" 0
}

@test "nothing to compact: the items go out unchanged, no request" {
	fake_start '[]'
	use_fake
	three_turns
	usage 500 20
	compact --keep-tokens 100000
	assert_success
	diff <(grep -v '"type":"session"' "$S" | grep -v '"type":"usage"') <(printf '%s\n' "$output")
	stderr_has 'mc-compact: nothing to compact: the 6 items (about '
	stderr_has 'fit in the 100000 tokens kept'
	assert_equal "$(fake_count)" 0
}

@test "nothing to compact: one turn is kept whole" {
	fake_start '[]'
	use_fake
	msg user 'do it'
	call c1
	out c1 "$(pad 4000)"
	msg assistant 'done'
	compact --keep-tokens 10
	assert_success
	diff "$S" <(printf '%s\n' "$output")
	stderr_has 'are one turn, which is kept whole'
	assert_equal "$(fake_count)" 0
}

@test "nothing to compact: no items at all" {
	fake_start '[]'
	use_fake
	header
	compact --keep-tokens 10
	assert_success
	assert_output ''
	assert_equal "$stderr" 'mc-compact: nothing to compact: no conversation items'
}

# ---- the summary request ----

@test "old large tool outputs are cut in the request; the tail keeps its own whole" {
	fake_start "$(answer 'S.')"
	use_fake
	big="BEGIN$(pad 10000)END"
	msg user 'read the log'
	call c1
	out c1 "$big"
	out_small=$(pad 2048 y)
	call c2
	out c2 "$out_small"
	msg assistant 'read it'
	msg user 'and the other'
	call c3
	out c3 "$big"
	msg assistant 'done'
	compact --keep-tokens 3000
	assert_success
	tail_is 4
	sent=$(req '.body.messages[] | select(.role == "tool" and .tool_call_id == "c1") | .content')
	[ "${#sent}" -le 2048 ]
	[[ "$sent" == BEGIN* ]]
	[[ "$sent" == *END ]]
	[[ "$sent" == *'[... '*' bytes cut from the middle of this output ...]'* ]]
	# 2 KiB exactly is not over the limit.
	assert_equal "$(req '.body.messages[] | select(.tool_call_id == "c2") | .content')" "$out_small"
	assert_equal "$(printf '%s\n' "$output" | sed -n 4p | jq -r .output)" "$big"
}

@test "the user's prompts/compact.md is the request's system prompt" {
	fake_start "$(answer 'S.')"
	use_fake
	mkdir -p "$MC_HOME/prompts"
	printf '\nSummarize tersely on {{operating_system}}.\n\n' > "$MC_HOME/prompts/compact.md"
	three_turns
	compact --keep-tokens 150
	assert_success
	assert_equal "$(req '.body.messages[0].content')" "Summarize tersely on $(uname -s)."
}

@test "a bad variable in prompts/compact.md: an error naming the file, no request" {
	fake_start '[]'
	use_fake
	mkdir -p "$MC_HOME/prompts"
	printf 'Summarize {{TOOLS_LIST}}\n' > "$MC_HOME/prompts/compact.md"
	three_turns
	compact --keep-tokens 150
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" "mc-render: $MC_HOME/prompts/compact.md: unsupported variable {{TOOLS_LIST}}"
	assert_equal "$(fake_count)" 0
}

@test "--focus reaches the request's question" {
	fake_start "$(answer 'S.')"
	use_fake
	three_turns
	compact --keep-tokens 150 --focus 'the parser bug'
	assert_success
	req '.body.messages[-1].content' | grep -qx 'Focus the summary on: the parser bug'
}

@test "the Responses API: the fragment as instructions, the summary from its events" {
	fake_start '[{"answer":{"api":"responses","text":"Summary over responses."}}]'
	use_fake '.providers.fake.api = "responses"'
	three_turns
	compact --keep-tokens 150
	assert_success
	assert_equal "$(printf '%s\n' "$output" | head -n 1 | jq -r .content)" \
		"$(printf '<Conversation-Summary>\nSummary over responses.\n</Conversation-Summary>')"
	assert_equal "$(req .body.instructions)" "$(mc-render --fragment compact)"
	assert_equal "$(req '.body.input | length')" 5
}

@test "the provider key goes to mc-send alone, not to mc-render or mc-request" {
	fake_start "$(answer 'S.')"
	use_fake '.providers.fake.api_key_env = "FAKE_API_KEY"'
	three_turns
	# the suite beside a copy of mc-compact, its mc-request and mc-render
	# wrapped to record their environment
	mkdir suite
	cp "$MC_BIN/mc-compact" "$MC_BIN/mc-send" suite/
	for p in mc-request mc-render; do
		printf '#!/bin/sh\nenv > "%s/%s.env"\nexec "%s/%s" "$@"\n' "$PWD" "$p" "$MC_BIN" "$p" > "suite/$p"
		chmod +x "suite/$p"
	done
	FAKE_API_KEY=sk-test-compact run --separate-stderr suite/mc-compact --keep-tokens 150 < "$S"
	assert_success
	assert_equal "$(fake_request 1 .headers.authorization)" 'Bearer sk-test-compact'
	[ -s mc-request.env ] && [ -s mc-render.env ]
	! grep -q sk-test-compact mc-request.env mc-render.env
}

@test "while the summary is asked for, neither mc-compact nor its mc-send shows the key in /proc/PID/environ" {
	fake_start "[{\"delay\": 30, \"answer\": {\"api\": \"chat\", \"text\": \"S.\"}}]"
	use_fake '.providers.fake.api_key_env = "FAKE_API_KEY"'
	three_turns
	FAKE_API_KEY=sk-test-compact mc-compact --keep-tokens 150 < "$S" >/dev/null 2>err &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		[ -s "$FAKE_LOG/1.json" ] && break
		sleep 0.05
	done
	procs=$(tree "$pid")
	seen=0
	for p in $procs; do
		case $(cat /proc/$p/comm 2>/dev/null) in mc-compact|mc-send) ;; *) continue ;; esac
		seen=$((seen + 1))
		! tr '\0' '\n' < /proc/$p/environ | grep -q sk-test || echo "LEAK $p $(cat /proc/$p/comm)"
	done > leaks
	kill "$pid"
	wait "$pid" || true
	assert_equal "$(cat leaks)" ""
	assert_equal "$(fake_request 1 .headers.authorization)" 'Bearer sk-test-compact'
	assert_equal "$seen" 2
}

@test "-p and -m reach the request" {
	fake_start "$(answer 'S.')"
	use_fake '.provider = "openai" | .model = "other" | .providers.other = .providers.fake'
	three_turns
	compact --keep-tokens 150 -p other -m chosen-model
	assert_success
	assert_equal "$(req .body.model)" chosen-model
}

# ---- failures: one request at most, nothing written ----

@test "a context-overflow error: exit 1, one request, nothing written" {
	fake_start '[{"status":400,"json":{"error":{"message":"This model'"'"'s maximum context length is 8192 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}}]'
	use_fake
	three_turns
	compact --keep-tokens 150
	assert_failure 1
	assert_output ''
	stderr_has 'mc-compact: the summary request does not fit the model'"'"'s context window'
	stderr_has 'maximum context length is 8192 tokens'
	assert_equal "$(fake_count)" 1
}

@test "llama.cpp's overflow error is one too" {
	fake_start '[{"status":400,"json":{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}}]'
	use_fake
	three_turns
	compact --keep-tokens 150
	assert_failure 1
	assert_output ''
	stderr_has 'does not fit the model'"'"'s context window'
	assert_equal "$(fake_count)" 1
}

@test "another provider error: exit 1 with mc-send's message, nothing written" {
	fake_start '[{"status":401,"json":{"error":{"message":"Incorrect API key provided"}}}]'
	use_fake
	three_turns
	compact --keep-tokens 150
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" 'mc-send: HTTP 401 from fake: Incorrect API key provided (no key was sent: providers.fake.api_key_env is null)'
	assert_equal "$(fake_count)" 1
}

@test "a summary cut by the output limit is not written" {
	fake_start "$(answer 'half a summ' length)"
	use_fake
	three_turns
	compact --keep-tokens 150
	assert_failure 1
	assert_output ''
	stderr_has 'cut by the output limit'
	assert_equal "$(fake_count)" 1
}

@test "an empty summary is not written" {
	fake_start "$(answer '   ')"
	use_fake
	three_turns
	compact --keep-tokens 150
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" "mc-compact: the model's summary is empty; nothing written"
}

@test "a head too big for the window: exit 1 before any request" {
	fake_start '[]'
	use_fake
	msg user "$(pad 8000)"
	msg assistant "$(pad 8000)"
	msg user 'last'
	compact --window 4000 --keep-tokens 100
	assert_failure 1
	assert_output ''
	stderr_has 'over 90% of the 4000-token context window (--window)'
	assert_equal "$(fake_count)" 0
}

@test "cutting old tool outputs is what lets a head fit" {
	fake_start "$(answer 'S.')"
	use_fake
	msg user 'read'
	call c1
	out c1 "$(pad 20000)"
	msg user 'last'
	# 20000 bytes are about 5000 tokens, over the window; cut, they fit.
	compact --window 4000 --keep-tokens 100
	assert_success
	assert_equal "$(fake_count)" 1
}

# ---- token counts and the window ----

@test "the last usage record counts the conversation; items after it are estimated" {
	fake_start "$(answer 'S.')"
	use_fake
	msg user "one $(pad 400)"
	usage 999 1
	msg assistant "two $(pad 400)"
	usage 50000 100
	msg user 'three'	# 51 bytes as a line: 13 tokens
	msg assistant 'four'	# 56 bytes: 14 tokens
	compact --keep-tokens 30
	assert_success
	stderr_has 'about 50127 tokens before'
	# Usage records are bookkeeping: neither sent nor kept.
	tail_is 2
	assert_equal "$(req '.body.messages | length')" 4
}

@test "the provider's counts beat bytes/4: an overflow's --prompt-tokens, and the last usage record, cut the tail" {
	fake_start "$(answer 'S.' | jq -c '.[0].times = 3')"
	use_fake
	# three items of about 816 tokens by the estimate, a real request of
	# 12761 (a llama.cpp -c 12288 server): the estimate says they fit the
	# 2457 tokens kept
	header
	msg user "first $(pad 1544)"
	msg assistant "answer $(pad 1544)"
	msg user "second $(pad 10)"
	compact --window 12288
	assert_success
	stderr_has 'mc-compact: nothing to compact: the 3 items (about 816 tokens) fit in the 2457 tokens kept'
	assert_equal "$(fake_count)" 0
	compact --window 12288 --prompt-tokens 12761
	assert_success
	tail_is 1
	assert_equal "$(fake_count)" 1
	stderr_has 'mc-compact: compacted 2 items (about '
	stderr_has 'about 12761 tokens before'
	# the same from the last usage record: the items before it are scaled
	# by its count, those after it estimated
	: > "$S"
	header
	msg user "first $(pad 1544)"
	msg assistant "answer $(pad 1544)"
	usage 12000 100
	msg user "second $(pad 10)"
	compact --window 12288
	assert_success
	tail_is 1
	assert_equal "$(fake_count)" 2
	stderr_has 'about 12116 tokens before'
	# the overflow's count is the newer: one below the estimate changes
	# nothing, the usage record's notwithstanding
	compact --window 12288 --prompt-tokens 10
	assert_success
	stderr_has 'nothing to compact: the 3 items (about 816 tokens) fit'
	compact --prompt-tokens 0 --keep-tokens 10
	assert_failure 2
}

@test "a usage record with a bad count is an error naming its line" {
	fake_start '[]'
	use_fake
	msg user hi
	printf '{"type":"usage","input_tokens":"many","output_tokens":1}\n' >> "$S"
	compact --keep-tokens 30
	assert_failure 1
	assert_equal "$stderr" 'mc-compact: stdin:2: usage: "input_tokens" must be a whole number'
}

@test "invalid items: exit 1 naming the line" {
	fake_start '[]'
	use_fake
	header
	msg user hi
	usage 10 10
	out nope x
	compact --keep-tokens 30
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" 'mc-compact: stdin:4: function_call_output: no function_call with call_id "nope" before it'
}

# four turns of about 774 tokens each (two lines of 1547 bytes)
four_turns() {
	local i
	for i in 1 2 3 4; do
		msg user "q$i $(pad 1500)"
		msg assistant "a$i $(pad 1500)"
	done
}

@test "the default tail is 20% of models.ID.context_window, the id taken whole" {
	fake_start "$(answer 'S.')"
	use_fake '.model = "fake-1.5" | .models["fake-1.5"].context_window = 10000 |
	  .providers.fake.context_window = 100000'
	four_turns
	compact	# keeps 2000 tokens: two turns
	assert_success
	tail_is 4
	assert_equal "$(req .body.model)" fake-1.5
}

@test "providers.NAME.context_window when the model has none" {
	fake_start "$(answer 'S.')"
	use_fake '.providers.fake.context_window = 5000'
	four_turns
	compact	# keeps 1000 tokens: one turn
	assert_success
	tail_is 2
}

@test "--window before the settings" {
	fake_start "$(answer 'S.')"
	use_fake '.models["fake-model"].context_window = 5000'
	four_turns
	compact --window 15000	# keeps 3000 tokens: three turns
	assert_success
	tail_is 6
}

@test "the window check names the setting it used" {
	fake_start '[]'
	use_fake '.models["fake-model"].context_window = 3000'
	four_turns
	compact --keep-tokens 1
	assert_failure 1
	stderr_has 'over 90% of the 3000-token context window (models.fake-model.context_window)'
	assert_equal "$(fake_count)" 0
}

@test "no window known and no --keep-tokens: a usage error" {
	fake_start '[]'
	use_fake
	three_turns
	compact
	assert_failure 2
	assert_output ''
	stderr_has 'mc-compact: the context window of fake-model (provider fake) is unknown: give --keep-tokens N or --window N'
}

@test "usage errors: exit 2 before anything is read or sent" {
	compact --keep-tokens lots
	assert_failure 2
	stderr_has '--keep-tokens: lots is invalid'
	compact --window 0
	assert_failure 2
	compact --focus ''
	assert_failure 2
	stderr_has '--focus: empty'
	compact extra
	assert_failure 2
	compact --window 100 --keep-tokens 100
	assert_failure 2
	stderr_has 'not less than the 100-token context window (--window)'
	compact --bogus
	assert_failure 2
}

@test "--help and --version" {
	run --separate-stderr mc-compact --help
	assert_success
	assert_line --index 0 --partial 'usage: mc-compact [-q] [-p NAME] [-m ID] [--keep-tokens N] [--window N]'
	run --separate-stderr mc-compact --version
	assert_success
	assert_output --regexp '^mc-compact \(mc\) [0-9]'
}

# ---- the fragment ----

@test "mc-render --print-default compact: the bundled fragment byte for byte" {
	mc-render --print-default compact > "$BATS_TEST_TMPDIR/c"
	cmp "$MC_TOP/prompts/compact.md" "$BATS_TEST_TMPDIR/c"
}

@test "mc-render --fragment compact: the bundled fragment rendered, or the user's" {
	run --separate-stderr mc-render --fragment compact </dev/null
	assert_success
	assert_equal "$output" "$(cat "$MC_TOP/prompts/compact.md")"
	mkdir -p "$MC_HOME/prompts"
	printf '  Mine, on {{operating_system}}.\n\n' > "$MC_HOME/prompts/compact.md"
	run --separate-stderr mc-render --fragment compact
	assert_success
	assert_output "Mine, on $(uname -s)."
	run --separate-stderr mc-render --fragment compact --json
	assert_failure 2
	run --separate-stderr mc-render --fragment nothing
	assert_failure 2
	stderr_has 'unknown fragment "nothing" (system, tools, skills, compact or plan)'
}
