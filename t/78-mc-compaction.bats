#!/usr/bin/env bats
# mc compacts long sessions (SPEC §12, the driver's part): before a request
# past 80% of a known window, once after a context-overflow error (then one
# retry), and by hand with /compact; a new session file each time.

load helper
load fake
load mc

# window JQ: the fake's settings (t/mc.bash), changed by JQ (e.g. a window)
window() {
	use_fake
	jq -c "$1" "$MC_HOME/settings.json" > "$BATS_TEST_TMPDIR/s.json"
	mv "$BATS_TEST_TMPDIR/s.json" "$MC_HOME/settings.json"
}

# say TEXT [IN OUT]: a chat answer with TEXT and the usage it reports
say() {
	jq -nc --arg t "$1" --argjson i "${2:-10}" --argjson o "${3:-5}" \
		'{answer: {api: "chat", text: $t, usage: [$i, $o]}}'
}

# script ENTRY...: the fake's script
script() {
	local IFS=,
	printf '[%s]' "$*"
}

# a provider's context-overflow error, as OpenAI words it
overflow() {
	printf '%s' '{"status":400,"json":{"error":{"message":"This model'"'"'s maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}}'
}

# pad N: N bytes of text
pad() { head -c "$1" /dev/zero | tr '\0' "${2:-x}"; }

stderr_has() {
	[[ "$stderr" == *"$1"* ]] && return 0
	printf 'stderr lacks: %s\nstderr: %s\n' "$1" "$stderr" >&2
	return 1
}

# the only session file whose header has no compacted_from, and the other
old_file() { grep -L '"compacted_from"' $(session_files); }
new_file() { grep -l '"compacted_from"' $(session_files); }

# two turns of about 2500 tokens each, the last answer's usage 7900 + 100:
# past 80% of a 10000-token window with any message after it
two_big_turns() {
	run --separate-stderr mc "first question $(pad 5000)" </dev/null
	assert_success
	run --separate-stderr mc -c "second question $(pad 5000)" </dev/null
	assert_success
	cp "$(session_files)" "$BATS_TEST_TMPDIR/before.jsonl"
}

@test "past 80% of the window: one summary request, then the request, which opens with the summary" {
	fake_start "$(script "$(say "first answer $(pad 5000)")" "$(say "second answer $(pad 5000)" 7900 100)" \
		"$(say 'The user asked two questions.')" "$(say 'third answer')")"
	use_fake
	two_big_turns
	window '.models["fake-model"].context_window = 10000'
	run --separate-stderr mc -c 'third question'
	assert_success
	assert_output 'third answer'
	assert_equal "$(fake_count)" 4
	# request 3: the summary, written from the compact fragment
	assert_equal "$(fake_request 3 '.body.messages[0].content')" "$(mc-render --fragment compact)"
	assert_equal "$(fake_request 3 '.body.messages | length')" 6
	assert_equal "$(fake_request 3 '.body.tools // "none"')" none
	# request 4: the prompt, the summary, the kept message
	assert_equal "$(fake_request 4 '.body.messages[0].role')" system
	fake_request 4 '.body.messages[1].content' | head -n 2 | diff - <(printf '<Conversation-Summary>\nThe user asked two questions.\n')
	assert_equal "$(fake_request 4 '.body.messages[-1].content' | tail -n 1)" 'third question'
	[[ "$(fake_request 4 '.body.messages | tostring')" != *'first question'* ]]
	# never silent
	[[ "$stderr" =~ 'mc-compact: compacted 4 items (about '[0-9]+' tokens) into a summary of about 5 tokens; kept 1 item' ]]
	[[ "$stderr" =~ 'mc: the conversation reached about '([0-9]+)' tokens, over 80% of the 10000-token context window (models.fake-model.context_window), and was compacted; session '([0-9a-f-]+)' goes on in '([0-9a-f-]+)' (the old file is kept as it was)' ]]
	[ "${BASH_REMATCH[1]}" -gt 8000 ]
	assert_equal "${BASH_REMATCH[2]}" "$(basename "$(old_file)" .jsonl)"
	assert_equal "${BASH_REMATCH[3]}" "$(basename "$(new_file)" .jsonl)"
	assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 2
	# the old file as it was; the new one from it
	assert_equal "$(session_files | wc -l)" 2
	# (the message was added before the compaction, which then left it alone)
	cmp "$(old_file)" <(cat "$BATS_TEST_TMPDIR/before.jsonl"; echo '{"type":"message","role":"user","content":"third question"}')
	assert_equal "$(head -n 1 "$(new_file)" | jq -r .compacted_from)" "$(head -n 1 "$(old_file)" | jq -r .id)"
	assert_equal "$(basename "$(new_file)" .jsonl)" "$(head -n 1 "$(new_file)" | jq -r .id)"
	assert_equal "$(sed -n 2p "$(new_file)" | jq -r .content | head -n 1)" '<Conversation-Summary>'
	assert_equal "$(sed -n 3p "$(new_file)" | jq -r .content)" 'third question'
	assert_equal "$(sed -n 4p "$(new_file)" | jq -r .content)" 'third answer'
	[ "$(stat -c %a "$(new_file)")" = 600 ]
	whole_lines
	# nothing else left in the sessions directory
	assert_equal "$(ls -A "$MC_HOME/sessions" | wc -l)" 2
}
