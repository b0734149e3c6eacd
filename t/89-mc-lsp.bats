#!/usr/bin/env bats
# Post-edit diagnostics (SPEC §26): the settings' language servers (lsp),
# Content-Length framing, started on the first write or edit of a
# matching file, waited on for at most lsp.wait_ms, their errors and
# warnings added to the output; a server that fails is said once and
# off; none is left running.

load helper
load fake
load mc

# lsp JSON: the fake provider, and "lsp": JSON
lsp() {
	jq -nc --arg url "$FAKE_URL" --argjson lsp "$1" '{provider: "fake", model: "fake-model",
	  providers: {fake: {base_url: $url, api: "chat", api_key_env: null}}, lsp: $lsp}' \
		> "$MC_HOME/settings.json"
}

# fake MODE [WAIT]: a fake server for .fk files
fake_lsp() {
	lsp "$(jq -nc --arg py "$MC_TOP/t/fake-lsp.py" --arg mode "$1" --arg log "$BATS_TEST_TMPDIR/lsp.log" \
		--arg pids "$BATS_TEST_TMPDIR/lsp.pids" --argjson wait "${2:-20000}" \
		'{fk: {command: "python3", args: [$py, "--mode", $mode, "--log", $log, "--pid-file", $pids],
		  extensions: [".fk"]}, wait_ms: $wait}')"
}

write_call() { # ID PATH CONTENT
	call "$1" write "$(jq -nc --arg p "$2" --arg c "$3" '{path: $p, content: $c}')"
}

@test "a server's errors and warnings join the write's output; an edit is a didChange; a clean file adds nothing" {
	fake_start "[$(calls "$(write_call c1 x.fk $'ok\n  BAD here\nMEH\nHINT')"),
	  $(calls "$(call c2 edit '{"path":"x.fk","old_string":"  BAD here","new_string":"fine"}')"),
	  $(calls "$(call c3 edit '{"path":"x.fk","old_string":"MEH","new_string":"good"}')"),
	  $(text done)]"
	fake_lsp ok
	run --separate-stderr mc --yes 'write it' </dev/null
	assert_success
	assert_equal "$stderr" ""
	[[ $(tool_content 2 c1) == *$'\n\n[diagnostics from lsp.fk]\nx.fk:2:3: error: BAD is not allowed here\nx.fk:3:1: warning: MEH is dubious' ]]
	[[ $(tool_content 2 c1) != *hint* ]]
	# the stale diagnostics of version 1 are not taken for version 2's
	[[ $(tool_content 3 c2) == *$'[diagnostics from lsp.fk]\nx.fk:3:1: warning: MEH is dubious' ]]
	[[ $(tool_content 3 c2) != *stale* ]]
	[[ $(tool_content 4 c3) != *diagnostics* ]]
	# what the server was told, and its own request answered
	assert_equal "$(jq -r '.method // ("reply " + (.id | tostring))' "$BATS_TEST_TMPDIR/lsp.log" | tr '\n' ' ')" \
		'initialize initialized textDocument/didOpen reply q1 textDocument/didChange textDocument/didChange shutdown exit '
	assert_equal "$(jq -r 'select(.method == "textDocument/didOpen") | .params.textDocument | .languageId + " " + .uri' "$BATS_TEST_TMPDIR/lsp.log")" \
		"fk file://$(realpath "$W")/x.fk"
	# started once, gone with the session
	assert_equal "$(wc -l < "$BATS_TEST_TMPDIR/lsp.pids")" 1
	assert_equal "$(wait_gone $(cat "$BATS_TEST_TMPDIR/lsp.pids"))" ""
}

@test "what a server says after an edit's diagnostics is not taken for the next edit's" {
	fake_start "[$(calls "$(write_call c1 x.fk 'BAD')"),
	  $(calls "$(call c2 edit '{"path":"x.fk","old_string":"BAD","new_string":"MEH"}')"), $(text done)]"
	fake_lsp late
	run --separate-stderr mc --yes 'go' </dev/null
	assert_success
	[[ $(tool_content 2 c1) == *'x.fk:1:1: error: BAD is not allowed here' ]]
	[[ $(tool_content 3 c2) == *$'[diagnostics from lsp.fk]\nx.fk:1:1: warning: MEH is dubious' ]]
	[[ $(tool_content 3 c2) != *late* ]]
}

@test "no server for a file it does not take, nor for a read" {
	printf 'BAD\n' > y.fk
	fake_start "[$(calls "$(write_call c1 x.txt 'BAD')" "$(call c2 read '{"path":"y.fk"}')"), $(text done)]"
	fake_lsp ok
	run --separate-stderr mc --yes 'go' </dev/null
	assert_success
	[ ! -e "$BATS_TEST_TMPDIR/lsp.pids" ]
	[[ $(tool_content 2 c1) != *diagnostics* ]]
}

@test "at most 20 diagnostics, the rest counted" {
	fake_start "[$(calls "$(write_call c1 x.fk 'x')"), $(text done)]"
	fake_lsp many
	run --separate-stderr mc --yes 'go' </dev/null
	assert_success
	out=$(tool_content 2 c1)
	assert_equal "$(grep -c ': error: error number' <<<"$out")" 20
	[[ $out == *$'x.fk:20:1: error: error number 19\n(30 more)' ]]
}

# bad SERVER-MODE WANT: a server that fails is said once (WANT, its
# warning), off for the session (a second file is not waited on, nor is
# the server started again) and gone
bad() {
	fake_start "[$(calls "$(write_call c1 x.fk 'BAD')"), $(calls "$(write_call c2 z.fk 'BAD')"), $(text done)]"
	fake_lsp "$1" "${3:-20000}"
	run --separate-stderr mc --yes 'go' </dev/null
	assert_success
	assert_equal "$stderr" "mc: warning: lsp.fk: $2; no diagnostics from it this session"
	[[ $(tool_content 2 c1) != *diagnostics* && $(tool_content 3 c2) != *diagnostics* ]]
	[ -e x.fk ] && [ -e z.fk ]
	assert_equal "$(wc -l < "$BATS_TEST_TMPDIR/lsp.pids")" 1
	assert_equal "$(wait_gone $(cat "$BATS_TEST_TMPDIR/lsp.pids"))" ""
}

@test "a server that crashes is said once and off" {
	bad crash 'it ended'
}

@test "a server that hangs is given up at lsp.wait_ms" {
	bad hang 'no answer to initialize within 4000 ms' 4000
}

@test "a server that answers initialize but never publishes is given up at lsp.wait_ms" {
	bad silent 'no diagnostics for x.fk within 4000 ms' 4000
}

@test "a server that floods is stopped" {
	bad flood 'it sent over 16 MiB for one edit'
}

@test "a server that speaks bad framing is stopped" {
	bad framing 'bad framing: no Content-Length'
}

@test "a server that stops reading holds an edit no longer than lsp.wait_ms" {
	# more than the pipe to it holds (1 MiB)
	head -c 1500000 /dev/zero | tr '\0' a > "$BATS_TEST_TMPDIR/big"
	jq -nc --rawfile c "$BATS_TEST_TMPDIR/big" --argjson more "[$(calls "$(write_call c2 z.fk 'BAD')"), $(text done)]" \
		'[{answer: {api: "chat", calls: [{call_id: "c1", name: "write",
		  arguments: ({path: "x.fk", content: $c} | tojson)}]}}] + $more' > "$BATS_TEST_TMPDIR/script"
	fake_start "$BATS_TEST_TMPDIR/script"
	fake_lsp deaf 4000
	run --separate-stderr mc --yes 'go' </dev/null
	assert_success
	assert_equal "$stderr" "mc: warning: lsp.fk: it did not read what it was sent in time; no diagnostics from it this session"
	assert_equal "$(wc -c < x.fk)" 1500000
	assert_equal "$(wait_gone $(cat "$BATS_TEST_TMPDIR/lsp.pids"))" ""
}

@test "a server that cannot be started is said once" {
	fake_start "[$(calls "$(write_call c1 x.fk 'BAD')"), $(calls "$(write_call c2 z.fk 'BAD')"), $(text done)]"
	lsp '{"fk":{"command":"no-such-language-server","extensions":[".fk"]}}'
	run --separate-stderr mc --yes 'go' </dev/null
	assert_success
	assert_equal "$stderr" "mc: warning: lsp.fk: no-such-language-server: not found on PATH; no diagnostics from it this session"
}

@test "what the server starts goes with it at the session's end" {
	fake_start "[$(calls "$(write_call c1 x.fk 'BAD')"), $(text done)]"
	fake_lsp child
	run --separate-stderr mc --yes 'go' </dev/null
	assert_success
	assert_equal "$(wc -l < "$BATS_TEST_TMPDIR/lsp.pids")" 2
	assert_equal "$(wait_gone $(cat "$BATS_TEST_TMPDIR/lsp.pids"))" ""
}

@test "lsp settings: wrong types are errors naming the setting" {
	fake_start "[$(text done)]"
	lsp '{"c":{"command":"clangd","extensions":".c"}}'
	run --separate-stderr mc 'go' </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: lsp.c.extensions: expected an array of strings"
	lsp '{"wait_ms":"soon"}'
	run --separate-stderr mc 'go' </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: lsp.wait_ms: expected a whole number from 1"
	assert_equal "$(fake_count)" 0
}

@test "clangd: a C file with a type error has it in the output; a clean one has none" {
	command -v clangd >/dev/null || skip "clangd is not installed"
	fake_start "[$(calls "$(write_call c1 bad.c $'int main(void)\n{\n\tint *p = 1.5;\n\treturn 0;\n}\n')"),
	  $(calls "$(write_call c2 clean.c $'int main(void)\n{\n\treturn 0;\n}\n')"), $(text done)]"
	# through sh, for its pid
	lsp "$(jq -nc --arg pids "$BATS_TEST_TMPDIR/lsp.pids" '{c: {command: "sh",
	  args: ["-c", "echo $$ >> \($pids); exec clangd --log=error"], extensions: [".c", ".h"]}, wait_ms: 20000}')"
	run --separate-stderr mc --yes 'write them' </dev/null
	assert_success
	assert_equal "$stderr" ""
	[[ $(tool_content 2 c1) == *$'[diagnostics from lsp.c]\nbad.c:3:'*': error: '*"incompatible type 'double'"* ]]
	[[ $(tool_content 3 c2) != *diagnostics* ]]
	assert_equal "$(wc -l < "$BATS_TEST_TMPDIR/lsp.pids")" 1
	assert_equal "$(wait_gone $(cat "$BATS_TEST_TMPDIR/lsp.pids"))" ""
}
