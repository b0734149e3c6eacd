#!/usr/bin/env bats
# mc acp (SPEC 23): tool calls as tool_call / tool_call_update with kind,
# title, locations, rawInput, diffs and output; approvals as
# session/request_permission with allow_once, allow_always, reject_once
# and reject_always, "always" remembered for the session, the settings'
# rules (SPEC 22) first.

load helper
load fake
load mc
load acp

setup_file_local() {
	own_tmpdir
}

# the tool_call and tool_call_update updates: ID STATUS KIND one a line
calls_seen() {
	updates | jq -r 'select(.sessionUpdate | startswith("tool_call")) |
	  "\(.toolCallId) \(.status // "-") \(.kind // "-")"'
}

@test "a bash call: tool_call pending (kind execute, title, rawInput), the permission asked, in_progress, completed with its output" {
	fake_start "[$(calls "$(call c1 bash '{"command":"echo ran"}')"), $(text done)]"
	use_fake
	acp '{"answers":{"permission":["allow_once"]}}' "$(prompt 3 go)"
	assert_equal "$(calls_seen)" "$(printf '%s\n' 'c1 pending execute' 'c1 in_progress -' 'c1 completed -')"
	assert_equal "$(updates tool_call | jq -c '[.title, .rawInput]')" '["bash: echo ran",{"command":"echo ran"}]'
	assert_equal "$(updates tool_call_update | jq -r 'select(.status == "completed") | .content[0].content.text')" \
		"$(printf 'ran\n[exit status 0]')"
	assert_equal "$(requests session/request_permission | jq -r '[.params.toolCall.toolCallId,
	  (.params.options[] | .optionId + "/" + .kind)] | join(" ")')" \
		'c1 allow_once/allow_once allow_prefix/allow_always allow_always/allow_always reject_once/reject_once reject_always/reject_always'
	assert_equal "$(answer 3 .result.stopReason)" end_turn
	assert_equal "$(said)" done
}

@test "reject_once refuses the call (failed, the model told); allow_always and reject_always are remembered for the session" {
	fake_start "$(ask_script "$(call c1 bash '{"command":"echo one"}')" "$(call c2 bash '{"command":"echo two"}')" \
	    "$(call c3 bash '{"command":"echo three"}')" "$(call c4 write '{"path":"w.txt","content":"x"}')" \
	    "$(call c5 write '{"path":"w2.txt","content":"y"}')")"
	use_fake
	acp '{"answers":{"permission":["reject_once","allow_always","reject_always"]}}' "$(prompt 3 go)"
	# c1 refused, c2 allowed always (c3 then unasked), c4 refused always (c5 then unasked)
	assert_equal "$(requests session/request_permission | jq -r .params.toolCall.toolCallId)" \
		"$(printf '%s\n' c1 c2 c4)"
	assert_equal "$(calls_seen | grep -v pending | grep -v in_progress)" \
		"$(printf '%s\n' 'c1 failed -' 'c2 completed -' 'c3 completed -' 'c4 failed -' 'c5 failed -')"
	assert_equal "$(fake_request 2 '.body.messages[-1].content')" 'refused: the user did not allow this call.'
	[[ $(fake_request 6 '.body.messages[-1].content') == 'refused: the user refused this tool for the rest of the session.'* ]]
	[ ! -e w.txt ] && [ ! -e w2.txt ]
	assert_equal "$(answer 3 .result.stopReason)" end_turn
}

@test "allow_prefix: always for the command's prefix; the settings' rules come first (deny refuses unasked)" {
	fake_start "$(ask_script "$(call c1 bash '{"command":"git status"}')" "$(call c2 bash '{"command":"git status"}')" \
	    "$(call c3 bash '{"command":"rm -rf x"}')")"
	use_fake
	jq '. + {permissions: {deny: ["bash(rm:*)"]}}' "$MC_HOME/settings.json" > s && mv s "$MC_HOME/settings.json"
	git init -q . 2>/dev/null || true
	acp '{"answers":{"permission":["allow_prefix"]}}' "$(prompt 3 go)"
	assert_equal "$(requests session/request_permission | jq -r .params.toolCall.toolCallId)" c1
	assert_equal "$(calls_seen | grep -E 'completed|failed')" \
		"$(printf '%s\n' 'c1 completed -' 'c2 completed -' 'c3 failed -')"
	[[ $(fake_request 4 '.body.messages[-1].content') == 'refused: the user'"'"'s settings deny this call'* ]]
}

@test "write and edit: kind edit, the file's location, a diff (oldText, newText) told with the call and when it completes" {
	printf 'one\ntwo\n' > f.txt
	printf 'old\n' > w.txt
	fake_start "$(ask_script "$(call c1 edit '{"path":"f.txt","old_string":"two","new_string":"TWO"}')" \
	    "$(call c2 write '{"path":"w.txt","content":"new\n"}')" "$(call c3 read '{"path":"f.txt","offset":2}')" \
	    "$(call c4 grep '{"pattern":"TWO"}')")"
	use_fake
	acp '{"answers":{"permission":["allow_once","allow_once"]}}' "$(prompt 3 go)"
	assert_equal "$(updates tool_call | jq -c '[.toolCallId, .kind, .locations]')" \
		"$(printf '%s\n' "[\"c1\",\"edit\",[{\"path\":\"$W/f.txt\"}]]" "[\"c2\",\"edit\",[{\"path\":\"$W/w.txt\"}]]" \
		  "[\"c3\",\"read\",[{\"line\":2,\"path\":\"$W/f.txt\"}]]" '["c4","search",[]]')"
	assert_equal "$(updates tool_call | jq -c 'select(.kind == "edit") | .content[0] | [.type, .path, .oldText, .newText]')" \
		"$(printf '%s\n' "[\"diff\",\"$W/f.txt\",\"two\",\"TWO\"]" "[\"diff\",\"$W/w.txt\",\"old\\n\",\"new\\n\"]")"
	assert_equal "$(updates tool_call_update | jq -c 'select(.status == "completed") | .content[0].type')" \
		"$(printf '%s\n' '"diff"' '"diff"' '"content"' '"content"')"
	assert_equal "$(requests session/request_permission | jq -r '.params.toolCall.content[0].newText')" \
		"$(printf '%s\n' TWO new '')"
	assert_equal "$(cat f.txt w.txt)" "$(printf 'one\nTWO\nnew')"
}

@test "the run's mode (--mode accept-edits) is the session's: writes inside the working directory are not asked about" {
	fake_start "$(ask_script "$(call c1 write '{"path":"a.txt","content":"x"}')")"
	use_fake
	ACP_ARGS='--mode accept-edits' acp "$(prompt 3 go)"
	assert_equal "$(requests session/request_permission)" ''
	assert_equal "$(cat a.txt)" x
	assert_equal "$(answer 2 .result.modes.currentModeId)" accept-edits
}

@test "a permission request the client answers cancelled (no session/cancel) refuses the call; the turn goes on" {
	fake_start "$(ask_script "$(call c1 bash '{"command":"touch ran"}')")"
	use_fake
	acp '{"answers":{"permission":["cancelled"]}}' "$(prompt 3 go)"
	assert_equal "$(answer 3 .result.stopReason)" end_turn
	[ ! -e ran ]
	assert_equal "$(fake_request 2 '.body.messages[-1].content')" 'refused: the user did not allow this call.'
	assert_equal "$(said)" 'all done'
}
