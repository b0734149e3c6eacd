#!/usr/bin/env bats
# mc sessions export ID [--markdown|--json] (SPEC §25): a readable
# transcript of a session, or one JSON document of its items.

load helper
load fake
load mc

# a session of two turns, the first with a read call and reasoning
with_call() {
	printf 'line %s\n' $(seq 50) > notes.txt
	fake_start "[$(calls "$(call c1 read '{"path":"notes.txt"}')"),$(text 'read it'),$(text 'second answer')]"
	use_fake
	run --separate-stderr mc 'Read notes.txt please' </dev/null
	assert_success
	run --separate-stderr mc -c 'and now?' </dev/null
	assert_success
	f=$(session_files)
	id=$(basename "$f" .jsonl)
	# reasoning as a provider's answer leaves it
	jq -c 'if .type == "message" and .content == "read it" then
		({type:"reasoning",text:"I looked at the file"}, .) else . end' "$f" > "$f.new"
	mv "$f.new" "$f"
}

@test "export: markdown (the default): title, id, dates, messages, the tool call and its output cut, reasoning marked" {
	with_call
	run --separate-stderr mc sessions export "${id:0:15}"
	assert_success
	assert_equal "$stderr" ''
	assert_equal "$(printf '%s\n' "$output" | head -1)" '# Read notes.txt please'
	[[ "$output" == *"- Session: $id"* ]]
	[[ "$output" == *"- Created: 20"*"- Updated: 20"* ]]
	[[ "$output" == *"- Directory: $W"* ]]
	[[ "$output" == *$'## User\n\nRead notes.txt please'* ]]
	[[ "$output" == *$'### Tool call: read\n\n```json\n{"path":"notes.txt"}\n```'* ]]
	[[ "$output" == *$'Output:\n\n```\n'*'line 1'*'line 19'* ]]
	[[ "$output" != *'line 21'* ]]
	[[ "$output" == *'*(cut: '*' more lines)*'* ]]
	[[ "$output" == *$'### Reasoning\n\n```\nI looked at the file\n```'* ]]
	[[ "$output" == *$'## Assistant\n\nread it'*$'## User\n\nand now?'*$'## Assistant\n\nsecond answer'* ]]
	# usage and model lines are bookkeeping, not transcript
	[[ "$output" != *input_tokens* ]]
	run --separate-stderr mc sessions export "$id" --markdown
	assert_success
	[[ "$output" == *'### Tool call: read'* ]]
}

@test "export: --json is one document: the header's facts and the items, no bookkeeping" {
	with_call
	run --separate-stderr mc sessions export --json "$id"
	assert_success
	assert_equal "$(printf '%s\n' "$output" | wc -l)" 1
	assert_equal "$(jqo -r '.id, .title, .cwd, .model')" \
		"$(printf '%s\nRead notes.txt please\n%s\nfake-model' "$id" "$W")"
	assert_equal "$(jqo -r '[.items[] | .type] | join(",")')" \
		'message,function_call,function_call_output,reasoning,message,message,message'
	assert_equal "$(jqo -r '.items[1].name + " " + .items[1].arguments')" 'read {"path":"notes.txt"}'
	[[ "$(jqo -r '.items[2].output')" == *'line 50'* ]]
	assert_equal "$(jqo -r '.created | test("^20..-..-..T..:..:..Z$")')" true
	assert_equal "$(jqo -r '.forked_from')" null
}

@test "export: a forked session names what it was forked from" {
	fake_start "$(answers one two)"
	use_fake
	run --separate-stderr mc 'hello' </dev/null
	oid=$(basename "$(session_files)" .jsonl)
	run --separate-stderr mc -c --fork 'again' </dev/null
	assert_success
	new=$(basename "$(grep -l forked_from $(session_files))" .jsonl)
	run --separate-stderr mc sessions export "$new"
	assert_success
	[[ "$output" == *"- Forked from: $oid"* ]]
	run --separate-stderr mc sessions export --json "$new"
	assert_equal "$(jqo -r .forked_from)" "$oid"
}

@test "export: an unknown, ambiguous or bad id is a clear error; bad usage is exit 2" {
	mkdir -p "$MC_HOME/sessions"
	for id in 20261201-100000-aaaaaa 20261201-110000-bbbbbb; do
		printf '{"type":"session","id":"%s","cwd":"/x"}\n' "$id" > "$MC_HOME/sessions/$id.jsonl"
	done
	run --separate-stderr mc sessions export 2026
	assert_failure 2
	assert_equal "$output" ''
	[[ "$stderr" == *"2026: 2 sessions start with it"* ]]
	run --separate-stderr mc sessions export 1999
	assert_failure 2
	[[ "$stderr" == *"no session 1999"* ]]
	run --separate-stderr mc sessions export '../x'
	assert_failure 2
	run --separate-stderr mc sessions export
	assert_failure 2
	[[ "$stderr" == *"one session ID"* ]]
	run --separate-stderr mc sessions export --json --markdown 2026
	assert_failure 2
	run --separate-stderr mc sessions export --bogus 2026
	assert_failure 2
	# a file that is not a session's items
	printf '{"type":"session","id":"20261201-120000-cccccc","cwd":"/x"}\n{"type":"nonsense"}\n' \
		> "$MC_HOME/sessions/20261201-120000-cccccc.jsonl"
	run --separate-stderr mc sessions export 20261201-12
	assert_failure 1
	[[ "$stderr" == *"20261201-120000-cccccc.jsonl:"* ]]
	run --separate-stderr mc sessions export 20261201-100000-aaaaaa --json
	assert_success
	assert_equal "$(jqo -c .items)" '[]'
}
