#!/usr/bin/env bats
# The small things a new user met (issue 37 item 10), each on its own:
# messages that name the way on, a banner that says what is on, output
# to the terminal it is meant for.

load helper
load fake
load mc

@test "mc(1): the fields of mc sessions --json render without stray quotes" {
	run --separate-stderr bash -c "mandoc -Tascii '$MC_TOP/man/mc.1' | col -b | tr -s ' \n' ' '"
	assert_success
	[[ $output == *'with the keys id, created, updated, cwd, model, parent, turns, input_tokens, output_tokens, cached_tokens, first and title (null when the session has no title line),'* ]] ||
		fail "the field list: $(grep -o 'one JSON object a line.\{0,200\}' <<<"$output")"
}

@test "mc sessions with none says so on stderr, and nothing on stdout" {
	run --separate-stderr mc sessions
	assert_success
	assert_output ''
	assert_equal "$stderr" "mc: no sessions of this directory ($W); mc sessions --all lists every directory's"
	run --separate-stderr mc sessions --all --json
	assert_success
	assert_output ''
	assert_equal "$stderr" "mc: no sessions in $MC_HOME"
}

@test "a 401 names where the key came from: the variable, the command or the file" {
	fake_start '[{"status":401,"json":{"error":{"message":"Incorrect API key provided"}},"times":3}]'
	jq -nc --arg url "$FAKE_URL" '{provider: "fake", model: "m",
	  providers: {fake: {base_url: $url, api: "chat", api_key_env: "MY_FAKE_KEY"}}}' > "$MC_HOME/settings.json"
	MY_FAKE_KEY=sk-wrong run --separate-stderr mc --no-session hi </dev/null
	assert_failure 1
	assert_equal "$stderr" 'mc-send: HTTP 401 from fake: Incorrect API key provided (check the key in $MY_FAKE_KEY)'
	jq -nc --arg url "$FAKE_URL" '{provider: "fake", model: "m",
	  providers: {fake: {base_url: $url, api: "chat", api_key_cmd: "cat key.txt"}}}' > "$MC_HOME/settings.json"
	echo sk-wrong > key.txt
	run --separate-stderr mc --no-session hi </dev/null
	assert_failure 1
	assert_equal "$stderr" 'mc-send: HTTP 401 from fake: Incorrect API key provided (check the key that api_key_cmd prints: cat key.txt)'
}

@test "an instruction file over the cap stops the run naming --keep-going" {
	fake_start "$(answers fine)"
	use_fake
	head -c 300000 /dev/zero | tr '\0' a > AGENTS.md
	run --separate-stderr mc --no-session hi </dev/null
	assert_failure 1
	assert_equal "$(sed -n 2p <<<"$stderr")" \
		'mc: stopped: an instruction file was refused (above); fix it, or run mc --keep-going to go on without it'
	assert_equal "$(fake_count)" 0
	run --separate-stderr mc --no-session --keep-going hi </dev/null
	assert_success
	[[ $stderr != *stopped* ]]
}

@test "a message whose turn failed is sent again with the next, and mc says so" {
	fake_start '[{"status":400,"json":{"error":{"message":"not now"}}},
	  {"answer":{"api":"chat","text":"now it works"}}, {"answer":{"api":"chat","text":"and again"}}]'
	use_fake
	run --separate-stderr mc 'first try' </dev/null
	assert_failure 1
	run --separate-stderr mc -c 'second try' </dev/null
	assert_success
	assert_output 'now it works'
	assert_equal "$stderr" 'mc: the last message got no answer (its turn failed or was cancelled); it is sent again, before this one'
	run --separate-stderr mc -c 'third' </dev/null
	assert_success
	assert_equal "$stderr" ''
}

@test "an empty settings file says it is empty" {
	: > "$MC_HOME/settings.json"
	run --separate-stderr mc prompt
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: the file is empty: settings are one JSON object, {} for none (see mc-formats(5))"
	printf ' \n\n' > "$MC_HOME/settings.json"
	run --separate-stderr mc-tool list
	assert_failure 1
	assert_equal "$stderr" "mc-tool: $MC_HOME/settings.json: the file is empty (only white space): settings are one JSON object, {} for none (see mc-formats(5))"
}

@test "make deps says when every package is there" {
	run --separate-stderr make --no-print-directory -C "$MC_TOP" deps
	assert_success
	assert_regex "$stderr" '^install-deps: all [0-9]+ packages are installed$'
	# the targets that need them stay quiet
	run --separate-stderr make --no-print-directory -n -C "$MC_TOP" check
	[[ $output == *'scripts/install-deps '$'\n'* || $output == *'scripts/install-deps'$'\n'* ]]
	[[ $output != *'install-deps -v'* ]]
}

@test "the banner says approvals are off under --yes" {
	fake_start "$(answers fine)"
	use_fake
	on_tty 'mc --yes'
	wait_prompt 1
	assert_equal "$(pane | grep -c '^approvals are off (--yes): write, edit, bash and MCP tools run without asking$')" 1
	keys C-d
	assert_equal "$(wait_status)" 0
	tmux -S "$TMUX_SOCK" kill-server
	rm -f "$STATUS"
	on_tty 'mc'
	wait_prompt 1
	assert_equal "$(pane | grep -c '^approvals are off')" 0
	keys C-d
	assert_equal "$(wait_status)" 0
}

@test "interactive output redirected to a file: the prompt and banner stay on the terminal" {
	fake_start "$(answers 'the answer')"
	use_fake
	on_tty "mc > '$BATS_TEST_TMPDIR/out'"
	wait_for 'mc 0.1.0, model fake-model'
	wait_prompt 1
	keys 'question' Enter
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
	grep -qx 'the answer' "$BATS_TEST_TMPDIR/out"
	! grep -q 'mc>' "$BATS_TEST_TMPDIR/out"
	! grep -q 'mc 0.1.0' "$BATS_TEST_TMPDIR/out"
}

@test "a one-word prompt that is a near miss of a command warns, and is sent all the same" {
	fake_start "[$(text one),$(text two),$(text three),$(text four),$(text five)]"
	use_fake
	run --separate-stderr mc --no-session session </dev/null
	assert_success
	assert_output one
	assert_equal "$stderr" 'mc: warning: "session" goes to the model as a prompt; did you mean mc sessions? (mc -- session sends it without this warning)'
	run --separate-stderr mc --no-session help </dev/null
	assert_output two
	assert_equal "$stderr" 'mc: warning: "help" goes to the model as a prompt; did you mean mc --help? (mc -- help sends it without this warning)'
	run --separate-stderr mc --no-session promt </dev/null
	[[ $stderr == *'did you mean mc prompt?'* ]]
	# not for a word that is none of them, nor after --
	run --separate-stderr mc --no-session hello </dev/null
	assert_equal "$stderr" ''
	run --separate-stderr mc --no-session -- session </dev/null
	assert_output five
	assert_equal "$stderr" ''
}

@test "the approval question and its title wrap between words on a narrow terminal" {
	fake_start "[$(calls "$(call c1 write '{"path":"some/rather/long/name.txt","content":"x\n"}')"),
	  {\"answer\":{\"api\":\"chat\",\"text\":\"all done\"}}]"
	use_fake
	on_tty mc
	tmux -S "$TMUX_SOCK" resize-window -t 0 -x 40
	wait_for 'mc>'
	keys 'go' Enter
	wait_for '[a]lways'
	keys 'what' Enter
	wait_count 2 'allow write?'
	# every row ends at a word's end: the words are whole
	rows=$(pane | sed -n '/write will put/,$p' | grep -v '^ *[0-9]  ')
	for w in write will put 2 bytes, line, in some/rather/long/name.txt '(a' new 'file):' \
		allow 'write?' '[y]es,' '[n]o,' '[a]lways' this 'session:' '(answer' y or yes, n no, a 'always)'; do
		grep -qE "(^| )$(sed 's/[][().?*/]/\\&/g' <<<"$w")( |$)" <<<"$rows" || fail "the word $w is cut: $rows"
	done
	[ "$(awk '{ if (length($0) > 39) n++ } END { print n + 0 }' <<<"$rows")" -eq 0 ] || fail "rows over 39 columns: $(awk '{ print length($0) ": " $0 }' <<<"$rows")"
	keys n Enter
	wait_for 'all done'
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
}

@test "/prompt goes through \$PAGER on a terminal" {
	fake_start "$(answers fine)"
	use_fake
	echo 'House rule: tabs, not spaces.' > AGENTS.md
	printf '#!/bin/sh\ncat > "%s"\necho PAGER-DONE\n' "$BATS_TEST_TMPDIR/paged" > pager.sh
	chmod +x pager.sh
	on_tty "env PAGER='$W/pager.sh' mc"
	wait_prompt 1
	keys '/prompt' Enter
	wait_for PAGER-DONE
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
	grep -q 'House rule: tabs, not spaces.' "$BATS_TEST_TMPDIR/paged"
	# the pager had it all: the pane did not
	assert_equal "$(pane | grep -c 'House rule')" 0
}

@test "/context lists the MCP servers, with the tools each gave" {
	fake_start "$(answers fine)"
	jq -nc --arg url "$FAKE_URL" --arg py "$MC_TOP/t/fake-mcp.py" '{provider: "fake", model: "m",
	  providers: {fake: {base_url: $url, api: "chat", api_key_env: null}},
	  mcp_servers: {good: {command: "python3", args: [$py]},
	    bad: {command: "python3", args: [$py, "--crash", "3"]},
	    off: {command: "python3", args: [$py], enabled: false}}}' > "$MC_HOME/settings.json"
	on_tty mc
	wait_prompt 1
	keys '/context' Enter
	wait_for 'MCP server off'
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
	n=$(mc-mcp list 2>/dev/null | jq '[.[] | select(.name | startswith("good__"))] | length')
	assert_equal "$(pane | grep '^  MCP server good:')" "  MCP server good: python3 $MC_TOP/t/fake-mcp.py ($n tools)"
	assert_equal "$(pane | grep '^  MCP server bad:')" \
		"  MCP server bad: python3 $MC_TOP/t/fake-mcp.py --crash 3 (no tools this session: it failed to start, or offers none)"
	assert_equal "$(pane | grep '^  MCP server off:')" "  MCP server off: python3 $MC_TOP/t/fake-mcp.py (disabled)"
}

# an edit's question, as the pane shows it with its escapes (pane -e)
edit_question() {
	seq 1 5 | sed 's/^/line /' > notes.txt
	[ -z "${FAKE_PID:-}" ] || fake_stop
	fake_start "$(jq -nc --argjson c "$(calls "$(call c1 edit '{"path":"notes.txt","old_string":"line 3","new_string":"line three"}')")" \
		'[$c, {answer: {api: "chat", text: "all done"}}]')"
	use_fake
	on_tty "$1"
	wait_prompt 1
	keys 'go' Enter
	wait_for 'allow edit?'
	shown=$(pane -e)
	keys n Enter
	wait_for 'all done'
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
}

@test "the approval diff is red and green on a colour terminal, never with NO_COLOR" {
	edit_question mc
	# (the pane shows where a colour begins; its end is the next one's)
	grep -qxF $'\033[31m  -line 3' <<<"$shown" || fail "no red"
	grep -qF $'\033[32m  +line three' <<<"$shown" || fail "no green"
	grep -qxF "   line 2" <<<"$shown" || fail "the context is coloured"
	tmux -S "$TMUX_SOCK" kill-server
	rm -f "$STATUS"
	edit_question 'env NO_COLOR=1 mc'
	grep -q 'line three' <<<"$shown"
	! grep -qF $'\033[3' <<<"$(grep 'line' <<<"$shown")"
}
