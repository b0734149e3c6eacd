#!/usr/bin/env bats
# mc's hook phases after_assistant and after_reasoning, and each hook's
# on_failure policy (SPEC §26): ignore, warn (the default), block
# (pre_tool only), fail (the run ends, exit 1, naming the hook); a
# post_tool failure keeps target_ran: true.

load helper
load fake
load mc

# talk_and_call TEXT CALL: one chat answer with text and a call
talk_and_call() {
	jq -nc --arg t "$1" --argjson c "$2" '{answer:{api:"chat",text:$t,calls:[$c]}}'
}

@test "after_assistant: each answer's text, with the session; a failing one warns by default and the run goes on" {
	local log=$BATS_TEST_TMPDIR/after
	fake_start "[$(talk_and_call 'let me look' "$(call c1 bash '{"command":"true"}')"),
	  $(answers 'all done' | jq -c '.[0]')]"
	hooks "{\"after_assistant\":[{\"command\":\"cat >> $log; echo >> $log\"},
	  {\"command\":\"echo no linter >&2; exit 3\"}]}"
	run --separate-stderr mc --yes 'look' </dev/null
	assert_success
	assert_output "$(printf 'let me look\nall done')"
	f=$(session_files)
	assert_equal "$(jq -sc 'map(.text)' "$log")" '["let me look","all done"]'
	assert_equal "$(jq -sc 'map(.session) | unique' "$log")" "[\"$(basename "$f" .jsonl)\"]"
	assert_equal "$stderr" "$(printf '%s\n%s' 'mc: warning: hooks.after_assistant[1]: exit status 3: no linter' \
		'mc: warning: hooks.after_assistant[1]: exit status 3: no linter')"
}

@test "after_assistant does not run for an answer that only calls tools" {
	local log=$BATS_TEST_TMPDIR/after
	fake_start "[$(calls "$(call c1 bash '{"command":"true"}')"), $(answers done | jq -c '.[0]')]"
	hooks "{\"after_assistant\":[{\"command\":\"jq -r .text >> $log\"}]}"
	run --separate-stderr mc --yes 'go' </dev/null
	assert_success
	assert_equal "$(cat "$log")" done
}

@test "on_failure ignore: a failing hook says nothing and the call goes on" {
	fake_start "[$(calls "$(call c1 bash '{"command":"touch ran"}')"), $(answers done | jq -c '.[0]')]"
	hooks '{"pre_tool":[{"command":"echo broken >&2; exit 1","on_failure":"ignore"}],
	  "post_tool":[{"command":"exit 9","on_failure":"ignore"}]}'
	run --separate-stderr mc --yes 'go' </dev/null
	assert_success
	assert_equal "$stderr" ""
	[ -e ran ]
	assert_equal "$(tool_content 2 c1)" "$(printf '(no output)\n[exit status 0]')"
}

@test "on_failure block: a pre_tool hook that fails refuses the call; the model reads why, the run goes on" {
	fake_start "[$(calls "$(call c1 bash '{"command":"touch ran"}')"), $(answers done | jq -c '.[0]')]"
	hooks '{"pre_tool":[{"match":"bash","command":"echo the linter is missing >&2; exit 1","on_failure":"block"}]}'
	run --separate-stderr mc --yes 'go' </dev/null
	assert_success
	assert_output done
	[ ! -e ran ]
	assert_equal "$(tool_content 2 c1)" "error: not run: the hook hooks.pre_tool[0] failed (exit status 1: the linter is missing)."
	assert_equal "$stderr" 'mc: hooks.pre_tool[0] failed (exit status 1: the linter is missing); on_failure "block" refuses the call'
	# a timeout is a failure too
	fake_start "[$(calls "$(call c1 bash '{"command":"touch ran"}')"), $(answers done | jq -c '.[0]')]"
	hooks '{"pre_tool":[{"command":"sleep 30","timeout_s":1,"on_failure":"block"}]}'
	run --separate-stderr mc --yes 'go' </dev/null
	assert_success
	[ ! -e ran ]
	[[ $(tool_content 2 c1) == "error: not run: the hook hooks.pre_tool[0] failed (timed out after 1 s;"* ]]
}

@test "on_failure block is for pre_tool only; an unknown policy is an error naming the setting" {
	fake_start "[$(answers ok | jq -c '.[0]')]"
	hooks '{"post_tool":[{"command":"true","on_failure":"block"}]}'
	run --separate-stderr mc 'hi' </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: hooks.post_tool[0].on_failure: \"block\" is for pre_tool hooks only (it refuses the call); use \"ignore\", \"warn\" or \"fail\""
	hooks '{"stop":[{"command":"true","on_failure":"panic"}]}'
	run --separate-stderr mc 'hi' </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: hooks.stop[0].on_failure: expected one of \"ignore\", \"warn\", \"block\" or \"fail\""
	assert_equal "$(fake_count)" 0
}

@test "on_failure fail in pre_tool: the call is not run, the run ends with exit 1 naming the hook, the session stays whole" {
	fake_start "[$(calls "$(call c1 bash '{"command":"touch ran"}')" "$(call c2 bash '{"command":"touch ran2"}')"),
	  $(answers done | jq -c '.[0]')]"
	hooks '{"pre_tool":[{"command":"echo policy server down >&2; exit 1","on_failure":"fail"}]}'
	run --separate-stderr mc --yes 'go' </dev/null
	assert_failure 1
	[ ! -e ran ] && [ ! -e ran2 ]
	assert_equal "$stderr" 'mc: hooks.pre_tool[0] failed (exit status 1: policy server down); on_failure "fail" ends the run'
	assert_equal "$(fake_count)" 1
	f=$(session_files)
	assert_equal "$(jq -r 'select(.type == "function_call_output") | .output' "$f")" \
		"$(printf '%s\n%s' 'error: not run: the hook hooks.pre_tool[0] failed (exit status 1: policy server down) and the run ends.' \
		'error: not run: the hook hooks.pre_tool[0] failed and ended the run.')"
	# the session goes on with mc -c: every call has its output
	fake_start "[$(answers resumed | jq -c '.[0]')]"
	hooks '{}'
	run --separate-stderr mc -c 'again' </dev/null
	assert_success
	assert_output resumed
}

@test "post_tool failure keeps target_ran: true for the model, the session and --json; fail ends the run after it" {
	fake_start "[$(calls "$(call c1 bash '{"command":"echo hello"}')"), $(answers done | jq -c '.[0]')]"
	hooks '{"post_tool":[{"command":"echo formatter crashed >&2; exit 1"}]}'
	run --separate-stderr mc --yes 'go' </dev/null
	assert_success
	assert_equal "$stderr" "mc: warning: hooks.post_tool[0]: exit status 1: formatter crashed"
	want=$(printf 'hello\n[exit status 0]\n(the hook hooks.post_tool[0] failed after the tool ran: exit status 1: formatter crashed; target_ran: true)')
	assert_equal "$(tool_content 2 c1)" "$want"
	f=$(session_files)
	assert_equal "$(jq -c 'select(.type == "function_call_output") | .target_ran' "$f")" true
	rm -f "$f"
	fake_start "[$(calls "$(call c1 bash '{"command":"echo hello"}')"), $(answers done | jq -c '.[0]')]"
	hooks '{"post_tool":[{"command":"echo formatter crashed >&2; exit 1","on_failure":"fail"}]}'
	run --separate-stderr mc --json --yes 'go' </dev/null
	assert_failure 1
	assert_equal "$(fake_count)" 1
	assert_equal "$(jqo -c 'select(.type == "tool_output") | [.output, .target_ran]')" "$(jq -nc --arg o "$want" '[$o, true]')"
	assert_equal "$(jqo -r 'select(.type == "done") | .reason')" error
	assert_equal "$(jq -c 'select(.type == "function_call_output") | .target_ran' "$(session_files)")" true
	[[ $stderr == *'hooks.post_tool[0] failed (exit status 1: formatter crashed); on_failure "fail" ends the run'* ]]
}

@test "on_failure fail in after_assistant, session_start and stop: exit 1 naming the hook; calls of that answer get outputs" {
	fake_start "[$(talk_and_call 'let me look' "$(call c1 bash '{"command":"touch ran"}')"),
	  $(answers done | jq -c '.[0]')]"
	hooks '{"after_assistant":[{"command":"exit 4","on_failure":"fail"}]}'
	run --separate-stderr mc --yes 'go' </dev/null
	assert_failure 1
	assert_equal "$stderr" 'mc: hooks.after_assistant[0] failed (exit status 4); on_failure "fail" ends the run'
	[ ! -e ran ]
	assert_equal "$(fake_count)" 1
	assert_equal "$(jq -r 'select(.type == "function_call_output") | .output' "$(session_files)")" \
		'error: not run: the hook hooks.after_assistant[0] failed and ended the run.'
	fake_start "[$(answers never | jq -c '.[0]')]"
	hooks '{"session_start":[{"command":"exit 1","on_failure":"fail"}]}'
	run --separate-stderr mc 'hi' </dev/null
	assert_failure 1
	assert_equal "$stderr" 'mc: hooks.session_start[0] failed (exit status 1); on_failure "fail" ends the run'
	assert_equal "$(fake_count)" 0
	fake_start "[$(answers first | jq -c '.[0]')]"
	hooks '{"stop":[{"command":"exit 1","on_failure":"fail"}]}'
	run --separate-stderr mc --no-session 'hi' </dev/null
	assert_failure 1
	assert_output first
	assert_equal "$stderr" 'mc: hooks.stop[0] failed (exit status 1); on_failure "fail" ends the run'
}

@test "after_reasoning: given the answer's reasoning, from mc-send's reasoning events (a shim adds them)" {
	local log=$BATS_TEST_TMPDIR/reasoned
	# mc-send emits no reasoning events yet (SPEC 21): a shim in its place
	# beside a copy of mc (which starts its siblings) adds two before each
	# answer's first event.
	mkdir -p "$BATS_TEST_TMPDIR/shim"
	ln -s "$MC_BIN"/* "$BATS_TEST_TMPDIR/shim/"
	rm "$BATS_TEST_TMPDIR/shim/mc" "$BATS_TEST_TMPDIR/shim/mc-send"
	cp "$MC_BIN/mc" "$BATS_TEST_TMPDIR/shim/mc"
	cat > "$BATS_TEST_TMPDIR/shim/mc-send" <<EOF
#!/bin/sh
"$MC_BIN/mc-send" "\$@" | python3 -c '
import json, sys
said = False
while True:
    line = sys.stdin.readline()
    if not line:
        break
    ev = json.loads(line)
    if not said and ev.get("type") in ("text", "tool_call"):
        for d in ("think ", "hard"):
            print(json.dumps({"type": "reasoning", "delta": d}))
        said = True
    if ev.get("type") == "done":
        said = False
    sys.stdout.write(line)
    sys.stdout.flush()
'
EOF
	chmod +x "$BATS_TEST_TMPDIR/shim/mc-send"
	fake_start "[$(calls "$(call c1 bash '{"command":"true"}')"), $(answers done | jq -c '.[0]')]"
	hooks "{\"after_reasoning\":[{\"command\":\"jq -c . >> $log\"}],
	  \"after_assistant\":[{\"command\":\"jq -r .text >> $log.text\"}]}"
	run --separate-stderr "$BATS_TEST_TMPDIR/shim/mc" --yes 'go' </dev/null
	assert_success
	assert_output done
	assert_equal "$(jq -r .text "$log")" "$(printf 'think hard\nthink hard')"
	assert_equal "$(cat "$log.text")" done
	# without reasoning, no after_reasoning hook runs
	rm -f "$log"
	fake_start "[$(answers plain | jq -c '.[0]')]"
	hooks "{\"after_reasoning\":[{\"command\":\"jq -c . >> $log\"}]}"
	run --separate-stderr mc 'go' </dev/null
	assert_success
	[ ! -e "$log" ]
	# the hook's failure, as any other's, is its policy's
	fake_start "[$(answers plain | jq -c '.[0]')]"
	hooks '{"after_reasoning":[{"command":"exit 1","on_failure":"fail"}]}'
	run --separate-stderr "$BATS_TEST_TMPDIR/shim/mc" 'go' </dev/null
	assert_failure 1
	assert_output plain
	assert_equal "$stderr" 'mc: hooks.after_reasoning[0] failed (exit status 1); on_failure "fail" ends the run'
}
