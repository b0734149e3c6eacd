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

# llama.cpp's context-overflow error, with its count of the request
llama_overflow() {
	printf '{"status":400,"json":{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":%s,"n_ctx":12288}}}' "$1"
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
	# (the message was compacted with it, as its last item: it is in the
	# new file only, SPEC 12)
	cmp "$(old_file)" "$BATS_TEST_TMPDIR/before.jsonl"
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

@test "with --json, a compaction event; mc -c then goes on in the new session" {
	fake_start "$(script "$(say "first answer $(pad 5000)")" "$(say "second answer $(pad 5000)" 7900 100)" \
		"$(say 'S.')" "$(say 'third answer')" "$(say 'fourth answer')")"
	use_fake
	two_big_turns
	old=$(basename "$(session_files)" .jsonl)
	window '.providers.fake.context_window = 10000'
	run --separate-stderr mc --json -c 'third question'
	assert_success
	new=$(basename "$(new_file)" .jsonl)
	assert_equal "$(jqo -s -c '[.[].type] | map(select(. != "text"))')" '["session","compaction","usage","done"]'
	assert_equal "$(jqo -s -c '.[] | select(.type == "compaction") | [.from, .to]')" "[\"$old\",\"$new\"]"
	before=$(jqo -s '.[] | select(.type == "compaction") | .tokens_before')
	after=$(jqo -s '.[] | select(.type == "compaction") | .tokens_after')
	[ "$before" -gt 8000 ] && [ "$after" -lt "$before" ] && [ "$after" -gt 0 ]
	stderr_has "(providers.fake.context_window), and was compacted; session $old goes on in $new"
	cp "$(old_file)" "$BATS_TEST_TMPDIR/old.jsonl"
	run --separate-stderr mc -c 'fourth question' </dev/null
	assert_success
	assert_output 'fourth answer'
	assert_equal "$stderr" ''
	assert_equal "$(fake_count)" 5
	assert_equal "$(fake_request 5 '.body.messages[1].content' | head -n 1)" '<Conversation-Summary>'
	assert_equal "$(fake_request 5 '.body.messages[-2].content')" 'third answer'
	assert_equal "$(fake_request 5 '.body.messages[-1].content')" 'fourth question'
	assert_equal "$(tail -n 1 "$(new_file)" | jq -r .type)" usage
	cmp "$(old_file)" "$BATS_TEST_TMPDIR/old.jsonl"
	assert_equal "$(session_files | wc -l)" 2
	# mc sessions: the new one first; its summary is no turn, no first prompt
	run --separate-stderr mc sessions --json
	assert_equal "$(jqo -s -c '[.[0].id, .[0].turns, .[0].first, .[1].id, .[1].turns]')" \
		"[\"$new\",2,\"third question\",\"$old\",2]"
}

@test "a context-overflow error: one compaction, the request sent once more" {
	fake_start "$(script "$(say "first answer $(pad 5000)")" "$(say "second answer $(pad 5000)")" \
		"$(overflow)" "$(say 'Summary.')" "$(say 'third answer')")"
	use_fake
	two_big_turns
	# no window known: the overflow alone says it is time
	run --separate-stderr mc -c 'third question' </dev/null
	assert_success
	assert_output 'third answer'
	assert_equal "$(fake_count)" 5
	# request 4 is the summary, request 5 the same request again, compacted
	assert_equal "$(fake_request 4 '.body.messages[0].content')" "$(mc-render --fragment compact)"
	assert_equal "$(fake_request 3 '.body.messages[1].content')" "first question $(pad 5000)"
	assert_equal "$(fake_request 5 '.body.messages[1].content' | head -n 1)" '<Conversation-Summary>'
	assert_equal "$(fake_request 5 '.body.messages[-1].content' | tail -n 1)" 'third question'
	assert_equal "$(fake_request 5 '.body.tools | length')" "$(fake_request 3 '.body.tools | length')"
	stderr_has "mc-send: HTTP 400 from fake: This model's maximum context length is 8192 tokens."
	stderr_has 'mc-compact: compacted 4 items'
	stderr_has "mc: the request did not fit the model's context window: the conversation was compacted and the request is sent once more; session "
	assert_equal "$(session_files | wc -l)" 2
	assert_equal "$(tail -n 2 "$(new_file)" | head -n 1 | jq -r .content)" 'third answer'
}

@test "an overflow the estimate says fits: the provider's n_prompt_tokens decides what is cut (a window set)" {
	fake_start "$(script "$(say "first answer $(pad 1500)")" "$(llama_overflow 12761)" \
		"$(say 'Summary.')" "$(say 'second answer')")"
	use_fake
	run --separate-stderr mc "first question $(pad 1500)" </dev/null
	assert_success
	window '.models["fake-model"].context_window = 12288'
	run --separate-stderr mc --json -c 'second question' </dev/null
	assert_success
	assert_equal "$(jqo -j 'select(.type == "text") | .delta')" 'second answer'
	assert_equal "$(fake_count)" 4
	# mc-send's error event carries the provider's count
	assert_equal "$(jqo -c 'select(.type == "error") | [.code, .prompt_tokens]')" '["exceed_context_size_error",12761]'
	stderr_has 'mc-compact: compacted 2 items (about '
	stderr_has 'about 12761 tokens before'
	stderr_has "mc: the request did not fit the model's context window: the conversation was compacted"
	# the summary and the message kept (merged: both are the user's)
	assert_equal "$(fake_request 4 '.body.messages | length')" 2
	assert_equal "$(fake_request 4 '.body.messages[1].content' | head -n 1)" '<Conversation-Summary>'
	assert_equal "$(fake_request 4 '.body.messages[1].content' | tail -n 1)" 'second question'
}

@test "an overflow again after the retry is a clean failure: no second compaction, no third try" {
	fake_start "$(script "$(say "first answer $(pad 5000)")" "$(say "second answer $(pad 5000)")" \
		"$(overflow)" "$(say 'Summary.')" "$(overflow)" "$(say 'never sent')")"
	use_fake
	two_big_turns
	run --separate-stderr mc --json -c 'third question' </dev/null
	assert_failure 1
	assert_equal "$(fake_count)" 5
	assert_equal "$(jqo -s -c '[.[].type]')" '["session","error","compaction","error","error","done"]'
	assert_equal "$(jqo -s -r '.[-1].reason')" error
	assert_equal "$(jqo -s -r '.[-2].message')" "the request does not fit the model's context window even compacted; it is not sent again"
	stderr_has "mc: the request does not fit the model's context window even compacted; it is not sent again"
	assert_equal "$(grep -c 'mc-compact: compacted' <<<"$stderr")" 1
}

@test "an overflow with nothing to compact fails at once" {
	fake_start "$(script "$(overflow)" "$(say 'never sent')")"
	use_fake
	run --separate-stderr mc "hello $(pad 100)" </dev/null
	assert_failure 1
	assert_equal "$(fake_count)" 1
	stderr_has 'mc-compact: nothing to compact'
	stderr_has "mc: the request does not fit the model's context window, and there is nothing to compact"
	assert_equal "$(session_files | wc -l)" 1
}

@test "a compaction that fails: the turn fails with its message, nothing sent, the session as it was" {
	fake_start "$(script "$(say "first answer $(pad 5000)")" "$(say "second answer $(pad 5000)" 7900 100)" \
		'{"answer":{"api":"chat","text":"Half a summ","finish_reason":"length"}}' "$(say 'never sent')")"
	use_fake
	two_big_turns
	window '.models["fake-model"].context_window = 10000'
	run --separate-stderr mc -c 'third question' </dev/null
	assert_failure 1
	assert_output ''
	assert_equal "$(fake_count)" 3
	stderr_has 'the answer was cut by the output limit'
	stderr_has 'mc: the conversation could not be compacted; nothing was sent'
	assert_equal "$(session_files | wc -l)" 1
	assert_equal "$(ls -A "$MC_HOME/sessions" | wc -l)" 1
	cmp "$(session_files)" <(cat "$BATS_TEST_TMPDIR/before.jsonl"; echo '{"type":"message","role":"user","content":"third question"}')
}

@test "a dry run says a real run would compact, and sends nothing" {
	fake_start "$(script "$(say "first answer $(pad 5000)")" "$(say "second answer $(pad 5000)" 7900 100)")"
	use_fake
	two_big_turns
	window '.models["fake-model"].context_window = 10000'
	run --separate-stderr mc --dry-run -c 'third question' </dev/null
	assert_success
	assert_equal "$(fake_count)" 2
	stderr_has 'mc: the conversation is about '
	stderr_has 'tokens, over 80% of the 10000-token context window (models.fake-model.context_window): a run that sends would compact it first'
	cmp "$(session_files)" "$BATS_TEST_TMPDIR/before.jsonl"
}

@test "/compact FOCUS by hand: the focus reaches the summary request; the session goes on in the new file" {
	fake_start "$(script "$(say "first answer $(pad 5000)")" "$(say "second answer $(pad 5000)")" \
		"$(say 'Summary by hand.')" "$(say 'after the compaction')")"
	use_fake
	two_big_turns
	old=$(basename "$(session_files)" .jsonl)
	on_tty 'mc -c'
	wait_for 'mc>'
	keys '/compact the parser bug' Enter
	wait_for "goes on in"
	wait_prompt 2
	assert_equal "$(fake_count)" 3
	assert_equal "$(fake_request 3 '.body.messages[-1].content' | tail -n 1)" 'Focus the summary on: the parser bug'
	new=$(basename "$(new_file)" .jsonl)
	wait_for 'mc-compact: compacted 2 items'
	wait_for "mc: session $old goes on in $new (the old file is kept as it was)"
	keys 'and now?' Enter
	wait_for 'after the compaction'
	wait_prompt 3
	# a compaction that fails leaves the session as it is
	keys '/compact' Enter
	wait_for 'HTTP 500 from fake'
	wait_prompt 4
	keys '/exit' Enter
	assert_equal "$(wait_status)" 0
	assert_equal "$(fake_count)" 5
	assert_equal "$(fake_request 4 '.body.messages[1].content' | head -n 2 | tail -n 1)" 'Summary by hand.'
	assert_equal "$(fake_request 4 '.body.messages[-1].content')" 'and now?'
	cmp "$(old_file)" "$BATS_TEST_TMPDIR/before.jsonl"
	assert_equal "$(session_files | wc -l)" 2
}

# use IN OUT CALL: an answer asking for one call, with the usage it reports
use() {
	jq -nc --argjson c "$3" --argjson i "$1" --argjson o "$2" \
		'{answer: {api: "chat", calls: [$c], usage: [$i, $o]}}'
}

# files f1 f2 f3 of 30 lines, 3000 bytes each
three_files() {
	local f i
	for f in f1 f2 f3; do
		for ((i = 0; i < 30; i++)); do pad 99 "${f:1}"; echo; done > "$f"
	done
}

@test "one long turn of tool calls compacts in the middle: the tail starts at a call" {
	three_files
	fake_start "$(script "$(use 3000 10 "$(call c1 read '{"path":"f1"}')")" \
		"$(use 5000 10 "$(call c2 read '{"path":"f2"}')")" \
		"$(use 7900 100 "$(call c3 read '{"path":"f3"}')")" \
		"$(say 'Read f1 so far.')" "$(say 'all read')")"
	window '.models["fake-model"].context_window = 10000'
	run --separate-stderr mc --json 'read f1, f2 and f3' </dev/null
	assert_success
	assert_equal "$(fake_count)" 5
	assert_equal "$(jqo -s -c '[.[].type | select(. != "text")]')" \
		'["session","tool_call","usage","approval","tool_output","tool_call","usage","approval","tool_output","tool_call","usage","approval","tool_output","compaction","usage","done"]'
	# request 4: the summary of the request and the first two calls (the
	# last usage, 8000 tokens, scales the estimate of the items it counted:
	# c2 and c3 with their outputs no longer fit the 2000 tokens kept)
	assert_equal "$(fake_request 4 '.body.messages[0].content')" "$(mc-render --fragment compact)"
	assert_equal "$(fake_request 4 '[.body.messages[].role] | join(",")')" 'system,user,assistant,tool,assistant,tool,user'
	assert_equal "$(fake_request 4 '.body.messages[1].content')" 'read f1, f2 and f3'
	assert_equal "$(fake_request 4 '.body.messages[2].tool_calls[0].id')" c1
	# request 5: the summary, then the kept call c3 with its output
	assert_equal "$(fake_request 5 '[.body.messages[].role] | join(",")')" 'system,user,assistant,tool'
	assert_equal "$(fake_request 5 '.body.messages[1].content' | sed -n 2p)" 'Read f1 so far.'
	assert_equal "$(fake_request 5 '.body.messages[2].tool_calls[0].id')" c3
	assert_equal "$(fake_request 5 '.body.messages[3].tool_call_id')" c3
	stderr_has 'mc-compact: compacted 5 items'
	# the new session: the summary, then c3 onwards, then the last answer
	assert_equal "$(jq -r 'select(.type != "usage") | .type + ":" + (.call_id // .role)' "$(new_file)" | tr '\n' ' ')" \
		'session: message:user function_call:c3 function_call_output:c3 message:assistant '
}

@test "--no-session: the compacted conversation stays in memory" {
	three_files
	fake_start "$(script "$(use 3000 10 "$(call c1 read '{"path":"f1"}')")" \
		"$(use 5000 10 "$(call c2 read '{"path":"f2"}')")" \
		"$(use 7900 100 "$(call c3 read '{"path":"f3"}')")" \
		"$(say 'Read f1 so far.')" "$(say 'all read')")"
	window '.models["fake-model"].context_window = 10000'
	run --separate-stderr mc --no-session --json 'read f1, f2 and f3' </dev/null
	assert_success
	assert_equal "$(fake_count)" 5
	assert_equal "$(jqo -s -c '.[] | select(.type == "compaction") | [.from, .to]')" '[null,null]'
	stderr_has 'and was compacted; the session goes on in memory (--no-session)'
	assert_equal "$(fake_request 5 '.body.messages[2].tool_calls[0].id')" c3
	[ ! -e "$MC_HOME/sessions" ] || assert_equal "$(ls -A "$MC_HOME/sessions")" ''
}

@test "guides already injected stay known after a compaction, and after mc -c of the new session" {
	mkdir sub
	printf 'Sub rules.\n' > sub/AGENTS.md
	for f in a b c; do printf '%s\n' "content $f" > "sub/$f.txt"; done
	context='[.body.messages[] | select((.content // "") | startswith("<Context File="))] | length'
	fake_start "$(script "$(use 10 5 "$(call c1 read '{"path":"sub/a.txt"}')")" \
		"$(say "answer $(pad 5000)" 7900 100)" \
		"$(say 'Summary: sub/AGENTS.md says Sub rules.')" \
		"$(use 10 5 "$(call c2 read '{"path":"sub/b.txt"}')")" "$(say 'ok')" \
		"$(use 10 5 "$(call c3 read '{"path":"sub/c.txt"}')")" "$(say 'done')")"
	use_fake
	run --separate-stderr mc 'look' </dev/null
	assert_success
	assert_equal "$(fake_request 2 "$context")" 1
	window '.models["fake-model"].context_window = 10000'
	run --separate-stderr mc -c "more $(pad 5000)" </dev/null
	assert_success
	assert_output 'ok'
	stderr_has 'and was compacted'
	# the guide went into the summary, and is not injected again
	assert_equal "$(fake_request 4 "$context")" 0
	assert_equal "$(fake_request 5 "$context")" 0
	assert_equal "$(head -n 1 "$(new_file)" | jq -c .guides)" "[\"$(pwd -P)/sub/AGENTS.md\"]"
	run --separate-stderr mc -c 'again' </dev/null
	assert_success
	assert_output 'done'
	assert_equal "$(fake_count)" 7
	assert_equal "$(fake_request 7 "$context")" 0
}

@test "the provider key reaches the summary request (mc-compact's mc-send), as it does the others" {
	fake_start "$(script "$(say "first answer $(pad 5000)")" "$(say "second answer $(pad 5000)")" \
		"$(overflow)" "$(say 'Summary.')" "$(say 'third answer')")"
	window '.providers.fake.api_key_env = "FAKE_API_KEY"'
	export FAKE_API_KEY=sk-test-compaction
	two_big_turns
	run --separate-stderr mc -c 'third question' </dev/null
	assert_success
	assert_equal "$(fake_count)" 5
	for n in 1 3 4 5; do
		assert_equal "$(fake_request $n '.headers.authorization')" 'Bearer sk-test-compaction'
	done
}

@test "SIGKILL of the driver during a compaction: mc-compact and its stages die with it" {
	local procs i
	fake_start "$(script "$(say "first answer $(pad 5000)")" "$(say "second answer $(pad 5000)" 7900 100)" \
		"{\"delay\": 60, \"answer\": {\"api\": \"chat\", \"text\": \"S.\"}}" "$(say 'third answer')")"
	use_fake
	two_big_turns
	window '.models["fake-model"].context_window = 10000'
	mc -c 'third question' </dev/null >out 2>err &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		[ -s "$FAKE_LOG/3.json" ] && break
		sleep 0.05
	done
	[ -s "$FAKE_LOG/3.json" ]
	procs=$(tree "$pid")
	# mc-compact, and the mc-send asking for the summary
	for p in $procs; do cat /proc/$p/comm; done | sort > comms
	grep -qx mc-compact comms && [ "$(grep -cx mc-send comms)" -eq 2 ] || fail "$(cat comms)"
	kill -KILL "$pid"
	wait "$pid" || true
	assert_equal "$(wait_gone $procs)" ""
}

@test "the old header's own members carry over; compacted_from names the session just compacted" {
	fake_start "$(script "$(say 'S.')" "$(say 'fine')")"
	window '.models["fake-model"].context_window = 10000'
	mkdir -p "$MC_HOME/sessions"
	old=20260101-000000-aaaaaa
	{
		jq -nc --arg cwd "$(pwd -P)" --arg id $old '{type: "session", id: $id,
		  created: "2026-01-01T00:00:00Z", cwd: $cwd, provider: "fake", model: "fake-model",
		  parent: "20251231-000000-bbbbbb", agent: "reviewer", compacted_from: "20251230-000000-cccccc"}'
		jq -nc --arg c "question $(pad 5000)" '{type: "message", role: "user", content: $c}'
		jq -nc --arg c "answer $(pad 5000)" '{type: "message", role: "assistant", content: $c}'
		echo '{"type":"usage","input_tokens":7900,"output_tokens":100,"cached_tokens":0,"provider":"fake","model":"fake-model"}'
	} > "$MC_HOME/sessions/$old.jsonl"
	chmod 600 "$MC_HOME/sessions/$old.jsonl"
	# a child's session (it has a parent): mc -c never picks one, --session does
	run --separate-stderr mc --session $old 'next' </dev/null
	assert_success
	assert_output fine
	assert_equal "$(head -n 1 "$(ls -t "$MC_HOME"/sessions/*.jsonl | head -n 1)" | jq -c '{parent, agent, compacted_from, provider, model}')" \
		"{\"parent\":\"20251231-000000-bbbbbb\",\"agent\":\"reviewer\",\"compacted_from\":\"$old\",\"provider\":\"fake\",\"model\":\"fake-model\"}"
}

@test "compacted and still past 80% (the prompt alone is): a warning, and no compaction loop" {
	mkdir -p "$MC_HOME/sessions"
	printf 'small\n' > f1
	# a window the system prompt and the tools nearly fill by themselves
	base=$(( ($(mc prompt | wc -c) + $(mc-tool list | wc -c)) / 4 ))
	fake_start "$(script "$(say 'S.')" "$(use $base 5 "$(call c1 read '{"path":"f1"}')")" \
		"$(use $base 5 "$(call c2 read '{"path":"f1"}')")" "$(say 'done')")"
	window ".models[\"fake-model\"].context_window = $base"
	{
		jq -nc --arg cwd "$(pwd -P)" '{type: "session", id: "20260101-000000-aaaaaa",
		  created: "2026-01-01T00:00:00Z", cwd: $cwd, provider: "fake", model: "fake-model"}'
		jq -nc --arg c "question $(pad 2000)" '{type: "message", role: "user", content: $c}'
		jq -nc --arg c "answer $(pad 2000)" '{type: "message", role: "assistant", content: $c}'
		echo "{\"type\":\"usage\",\"input_tokens\":$base,\"output_tokens\":100,\"cached_tokens\":0}"
	} > "$MC_HOME/sessions/20260101-000000-aaaaaa.jsonl"
	run --separate-stderr mc -c 'go on' </dev/null
	assert_success
	assert_output done
	assert_equal "$(fake_count)" 4
	assert_equal "$(grep -c '^mc-compact: ' <<<"$stderr")" 1
	stderr_has "mc: warning: the compacted conversation is still about "
	stderr_has "-token context window (models.fake-model.context_window): no more automatic compaction in this session"
}
