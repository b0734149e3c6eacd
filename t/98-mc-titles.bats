#!/usr/bin/env bats
# Session titles (SPEC §25): the first prompt's first line cut at 60
# characters, /title TEXT, shown by mc sessions; a bookkeeping line never sent.

load helper
load fake
load mc

@test "titles: the first prompt's first line, cut at 60 characters, is the title; never sent; kept by -c" {
	fake_start "$(answers one two)"
	use_fake
	long="   $(printf 'é%.0s' $(seq 70)) tail"
	run --separate-stderr mc "$(printf '\n%s\nsecond line' "$long")" </dev/null
	assert_success
	want=$(printf 'é%.0s' $(seq 60))
	assert_equal "$(head -1 "$(session_files)" | jq -r .title)" "$want"
	run --separate-stderr mc -c 'and then' </dev/null
	assert_success
	assert_equal "$(jq -c 'select(.title)' "$(session_files)" | wc -l)" 1
	assert_equal "$(fake_request 2 '[.body.messages[] | .role] | join(",")')" 'system,user,assistant,user'
	run --separate-stderr mc sessions --json
	assert_success
	assert_equal "$(jqo -r .title)" "$want"
	run --separate-stderr mc sessions
	assert_success
	[[ "$output" == *"$want"* ]]
	[[ "$output" != *tail* ]]
}

@test "titles: an older session without a title line shows its first prompt" {
	fake_start "$(answers one)"
	use_fake
	run --separate-stderr mc 'old style session' </dev/null
	assert_success
	f=$(session_files)
	jq -c 'del(.title)' "$f" > "$f.new" && mv "$f.new" "$f"
	run --separate-stderr mc sessions --json
	assert_equal "$(jqo -r '.title, .first')" "$(printf 'null\nold style session')"
	run --separate-stderr mc sessions
	[[ "$output" == *"old style session"* ]]
}

@test "titles: /title TEXT sets one (before the first message too); mc sessions shows the last" {
	fake_start "$(answers one two)"
	use_fake
	on_tty mc
	wait_for 'mc>'
	keys '/title' Enter
	wait_for 'no title yet'
	keys '/title Fix the parser' Enter
	wait_for 'title: Fix the parser'
	keys 'hello there' Enter
	wait_for 'one'
	wait_prompt 2
	keys '/title Parser, second try' Enter
	wait_for 'title: Parser, second try'
	keys '/title' Enter
	wait_count 2 'title: Parser, second try'
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(head -1 "$(session_files)" | jq -r .title)" 'Fix the parser'
	assert_equal "$(jq -c 'select(.type == "title")' "$(session_files)")" \
		'{"type":"title","title":"Parser, second try"}'
	run --separate-stderr mc sessions
	assert_success
	[[ "$output" == *"Parser, second try"* ]]
	[[ "$output" != *"hello there"* ]]
	run --separate-stderr mc -c again </dev/null
	assert_equal "$(fake_request 2 '[.body.messages[] | .content] | .[1:] | join("|")')" 'hello there|one|again'
}

@test "titles: a compacted session keeps the title in its header; mc sessions knows it" {
	big=$(head -c 5000 /dev/zero | tr '\0' x)
	fake_start "$(answers "one $big" "two $big" 'the summary')"
	use_fake
	run --separate-stderr mc "$(printf 'Compact me later\n%s' "$big")" </dev/null
	assert_success
	run --separate-stderr mc -c "more $big" </dev/null
	assert_success
	old=$(session_files)
	compact_on_tty
	new=$(grep -l '"compacted_from"' $(session_files))
	[ "$new" != "$old" ]
	assert_equal "$(head -1 "$new" | jq -r .title)" 'Compact me later'
	run --separate-stderr mc sessions --json
	assert_equal "$(jqo -r 'select(.id == "'"$(basename "$new" .jsonl)"'") .title')" 'Compact me later'
}
