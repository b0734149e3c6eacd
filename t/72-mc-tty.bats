#!/usr/bin/env bats
# mc on a terminal, as a new user meets it (issue 14): the approval
# prompt (SPEC §7), UTF-8 input, bracketed paste, /model kept in the session.

load helper
load fake
load mc

# rows FROM TO: the pane's lines after the first line holding FROM, up to
# the next line holding TO, each without its first two columns.
rows() {
	pane | awk -v from="$1" -v to="$2" \
		'on && index($0, to) { exit } on { print substr($0, 3) } index($0, from) { on = 1 }'
}

# long_and_hidden N: the fake asks for two bash calls: $long, a command of
# N a's and more, then $bidi, one with hidden characters.
long_and_hidden() {
	long="echo $(printf 'a%.0s' $(seq "$1")); rm -f x"
	bidi=$(printf 'ls # \342\200\256txt.exe\342\201\246 \342\200\213\r\033[2K')
	fake_start "$(ask_script "$(call c1 bash "$(jq -nc --arg c "$long" '{command:$c}')")" \
		"$(call c2 bash "$(jq -nc --arg c "$bidi" '{command:$c}')")")"
	use_fake
}

@test "approval: keys typed while the model works do not answer; only y, yes, n, no, p, prefix, a, always do" {
	fake_start "[$(calls "$(call c1 bash '{"command":"echo 1 > f1"}')" | jq -c '. + {delay: 1.5}'),
	  {\"answer\":{\"api\":\"chat\",\"text\":\"all done\"}}]"
	use_fake
	on_tty mc
	wait_for 'mc>'
	keys 'make a file' Enter
	for ((i = 0; i < 200; i++)); do
		[ -e "$FAKE_LOG/1.json" ] && break
		sleep 0.05
	done
	# type-ahead while the answer is on its way: "yes", then "always"
	keys 'yes' Enter 'always' Enter
	wait_for 'allow bash?'
	keys 'abort' Enter
	wait_for '(answer y or yes, n or no, p or prefix, a or always)'
	keys '  YOLO ' Enter
	wait_count 3 'allow bash?'
	keys ' No ' Enter
	wait_for 'all done'
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
	[ ! -e f1 ]
	assert_equal "$(pane | grep -c 'allow bash?')" 3
	assert_equal "$(fake_request 2 '.body.messages[-1].content')" 'refused: the user did not allow this call.'
}

@test "approval: a long command is shown whole, wrapped; hidden characters are shown escaped" {
	long_and_hidden 280
	on_tty mc
	wait_for 'mc>'
	keys 'go' Enter
	wait_for 'allow bash?'
	assert_equal "$(rows 'bash will run:' 'allow bash?' | tr -d '\n')" "$long"
	[ "$(rows 'bash will run:' 'allow bash?' | wc -l)" -ge 3 ]	# wrapped at 120 columns
	keys n Enter
	wait_count 2 'allow bash?'
	wait_for 'allow bash? [y]es, [n]o, [p] always for `echo`, `rm`, [a]lways for this tool: n'
	assert_equal "$(pane | grep -A1 'bash will run:' | tail -n 1)" \
		'  ls # \u202etxt.exe\u2066 \u200b\r\x1b[2K'
	keys n Enter
	wait_for 'all done'
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
}

@test "a call allowed unasked is announced escaped, and cut with the preview's mark" {
	long_and_hidden 600
	on_tty "mc --yes go"
	assert_equal "$(wait_status)" 0
	wait_for 'all done'
	# 512 bytes of "bash COMMAND", wrapped, then how many more there are
	shown=$(pane | awk '/^> bash echo/ { on = 1 } on && /^  \[\.\.\. / { exit } on { print substr($0, 3) }' | tr -d '\n')
	assert_equal "$shown" "$(printf 'bash %s' "$long" | head -c 512)"
	assert_equal "$(pane | grep -c '^  \[\.\.\. 107 more bytes on this line\]$')" 1
	assert_equal "$(pane | grep -F '> bash ls')" '> bash ls # \u202etxt.exe\u2066 \u200b\r\x1b[2K'
}

@test "approval: write shows the path, the size and the first lines; edit shows a unified diff" {
	seq 1 12 | sed 's/^/line /' > notes.txt
	fake_start "$(ask_script \
		"$(call c1 write "$(jq -nc --arg c "$(seq 1 15 | sed 's/^/row /')"$'\n' '{path:"new.txt",content:$c}')")" \
		"$(call c2 edit '{"path":"notes.txt","old_string":"line 6\nline 7","new_string":"line six\nline 7"}')" \
		"$(call c3 edit '{"path":"gone.txt","old_string":"old\ntext","new_string":"new"}')")"
	use_fake
	on_tty mc
	wait_for 'mc>'
	keys 'go' Enter
	wait_for 'allow write?'
	assert_equal "$(pane | grep 'write will put')" 'write will put 96 bytes, 15 lines, in new.txt (a new file):'
	assert_equal "$(rows 'write will put' 'allow write?')" \
		"$(printf '%s\n' ' 1  row 1' ' 2  row 2' ' 3  row 3' ' 4  row 4' ' 5  row 5' \
			' 6  row 6' ' 7  row 7' ' 8  row 8' ' 9  row 9' '10  row 10' '[... 5 more lines]')"
	keys y Enter
	wait_for 'allow edit?'
	assert_equal "$(rows 'edit will change notes.txt:' 'allow edit?')" \
		"$(printf '%s\n' '--- notes.txt' '+++ notes.txt' '@@ -3,7 +3,7 @@' \
			' line 3' ' line 4' ' line 5' '-line 6' '+line six' ' line 7' ' line 8' ' line 9')"
	keys y Enter
	wait_count 2 'allow edit?'
	wait_for 'gone.txt (it cannot be read here: no such file)'
	assert_equal "$(rows 'gone.txt (it cannot' 'allow edit?' | tail -n 3)" "$(printf '%s\n' '-old' '-text' '+new')"
	keys n Enter
	wait_for 'all done'
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(cat new.txt)" "$(seq 1 15 | sed 's/^/row /')"
	assert_equal "$(sed -n 6p notes.txt)" 'line six'
}

@test "approval: with standard error redirected, the question and the command are still on the terminal" {
	fake_start "$(ask_script "$(call c1 bash '{"command":"echo made > f1"}')")"
	use_fake
	on_tty 'mc 2>log'
	wait_for 'mc>'
	keys 'make a file' Enter
	wait_for 'allow bash?'
	assert_equal "$(rows 'bash will run:' 'allow bash?')" 'echo made > f1'
	keys y Enter
	wait_for 'all done'
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(cat f1)" made
}

@test "interactive: UTF-8 typed on a UTF-8 terminal reaches the model whole" {
	fake_start "$(answers 'ok')"
	use_fake
	on_tty mc	# LC_ALL=C.UTF-8 in the pane
	wait_for 'mc>'
	keys 'Grüße 世界' Enter
	wait_for 'ok'
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" 'Grüße 世界'
}

@test "interactive: a paste of several lines is one message, sent with Enter" {
	fake_start "$(answers 'one answer' 'another')"
	use_fake
	on_tty mc
	wait_for 'mc>'
	tmux -S "$TMUX_SOCK" set-buffer "$(printf 'first line\nsecond line\n\tthird line')"
	tmux -S "$TMUX_SOCK" paste-buffer -p -t 0
	wait_for 'third line'
	keys ' and more' Enter
	wait_for 'one answer'
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(fake_count)" 1
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" \
		"$(printf 'first line\nsecond line\n\tthird line and more')"
}

@test "interactive: /model is kept in the session, and mc -c goes on with it" {
	fake_start "$(answers 'first' 'second')"
	use_fake
	on_tty mc
	wait_for 'mc>'
	keys 'hello' Enter
	wait_for 'first'
	wait_prompt 2
	keys '/model other-model' Enter
	wait_for 'model: other-model'
	keys '/exit' Enter
	assert_equal "$(wait_status)" 0
	run --separate-stderr mc -c 'and again' </dev/null
	assert_success
	assert_output second
	assert_equal "$(fake_request 1 .body.model)" fake-model
	assert_equal "$(fake_request 2 .body.model)" other-model
	# the line that says so is the session's, not the conversation's
	assert_equal "$(fake_request 2 '[.body.messages[] | .role] | join(",")')" 'system,user,assistant,user'
	assert_equal "$(jq -c 'select(.type == "model")' "$(session_files)")" \
		'{"type":"model","provider":"fake","model":"other-model"}'
}

@test "interactive: a turn stopped by --max-steps says that a new prompt goes on" {
	fake_start "[$(calls "$(call c1 read '{"path":"a.txt"}')"),$(text done)]"
	use_fake
	echo hello > "$W/a.txt"
	on_tty 'mc --max-steps 1'
	wait_for 'mc>'
	keys 'look' Enter
	wait_for 'stopped after 1 step'
	wait_prompt 2
	pane | grep -F 'mc: stopped after 1 step (--max-steps); a new prompt ("go on") goes on'
	keys 'go on' Enter
	wait_for 'done'
	wait_prompt 3
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(fake_count)" 2
}

# rule_one_session: AGENTS.md says "Rule one.", and a session on the
# terminal has had its first turn ("hello", answered "first").
rule_one_session() {
	printf 'Rule one.\n' > AGENTS.md
	on_tty mc
	wait_for 'mc>'
	keys 'hello' Enter
	wait_for 'first'
	wait_prompt 2
}

# new_then_third: /new, a message "third" answered "third", and the session left.
new_then_third() {
	local n
	keys '/new' Enter
	wait_for 'new session'
	n=$(pane | grep -c '^mc>')
	keys 'third' Enter
	# the answer, and the prompt after it: a key sent while the model
	# works is type-ahead, which the session may discard
	wait_lines 1 -x -- third
	wait_prompt $((n + 1))
	keys C-d
	assert_equal "$(wait_status)" 0
}

@test "interactive: /new stops at a refused instruction file and keeps the session, unless --keep-going" {
	fake_start "$(answers 'first' 'second' 'third')"
	use_fake
	rule_one_session
	printf 'Rule \377two.\n' > AGENTS.md
	keys '/new' Enter
	wait_for '/new: the prompt could not be built (above); the session goes on as it was'
	assert_equal "$(pane | grep -c 'AGENTS.md: not valid UTF-8 text')" 1
	assert_equal "$(pane | grep -c 'new session')" 0
	n=$(pane | grep -c '^mc>')
	keys 'again' Enter
	wait_for 'second'
	wait_prompt $((n + 1))	# Ctrl-D typed ahead is lost to the switch of terminal modes
	keys C-d
	assert_equal "$(wait_status)" 0
	# the same session, the same prompt
	assert_equal "$(session_files | wc -l)" 1
	assert_equal "$(fake_request 2 '[.body.messages[1:][] | .content] | join(",")')" 'hello,first,again'
	assert_equal "$(fake_request 2 '.body.messages[0].content')" "$(fake_request 1 '.body.messages[0].content')"
	# with --keep-going, /new goes on without the file
	tmux -S "$TMUX_SOCK" kill-server
	on_tty 'mc --keep-going'
	wait_for 'mc>'
	new_then_third
	assert_equal "$(session_files | wc -l)" 2
	assert_equal "$(fake_request 3 '[.body.messages[1:][] | .content] | join(",")')" 'third'
}

@test "interactive: /model keeps the prompt frozen, says when an override applies; /new renders it" {
	fake_start "$(answers 'first' 'second' 'third')"
	jq -nc --arg url "$FAKE_URL" '{provider: "fake", model: "fake-model",
	  providers: {fake: {base_url: $url, api: "chat", api_key_env: null}},
	  prompt: {model_overrides: [{match: "other", sections: {context: {action: "append", content: "OTHER-MODEL-NOTE"}}}]}}' \
		> "$MC_HOME/settings.json"
	rule_one_session
	printf 'Rule two.\n' > AGENTS.md
	keys '/model other-model' Enter
	wait_for 'model: other-model (the prompt stays as it is; a per-model prompt override for it applies from the next launch or /new)'
	keys 'again' Enter
	wait_for 'second'
	wait_prompt 4
	assert_equal "$(fake_request 2 .body.model)" other-model
	# neither the override for other-model nor the changed AGENTS.md reached the prompt
	assert_equal "$(fake_request 2 '.body.messages[0].content')" "$(fake_request 1 '.body.messages[0].content')"
	[[ $(fake_request 2 '.body.messages[0].content') == *'Rule one.'* ]]
	# /new renders both
	new_then_third
	sys=$(fake_request 3 '.body.messages[0].content')
	[[ $sys == *'Rule two.'* && $sys == *OTHER-MODEL-NOTE* && $sys != *'Rule one.'* ]]
}

@test "answers from the cache on a terminal: a dim note says they cost nothing; /usage does not count them" {
	fake_start "[$(text 'four')]"
	use_fake
	# MC_CACHE=1 (or cache.enabled): the interactive session's mc-send caches
	on_tty 'env MC_CACHE=1 mc'
	wait_prompt 1
	keys 'two plus two' Enter
	wait_prompt 2
	keys '/usage' Enter
	wait_for 'session: 10 tokens in (0 cached), 5 out'
	[[ $(pane) != *'answered from the cache'* ]]
	keys C-d
	assert_equal "$(wait_status)" 0
	tmux -S "$TMUX_SOCK" kill-server
	# the same question again, in a new session: from the cache
	on_tty 'env MC_CACHE=1 mc'
	wait_prompt 1
	keys 'two plus two' Enter
	wait_for '(answered from the cache: no model call, no tokens spent)'
	wait_prompt 2
	keys '/usage' Enter
	wait_for 'session: 0 tokens in (0 cached), 0 out; this run: 0 in, 0 out'
	[[ $(pane) != *'10 tokens in'* ]]
	keys C-d
	assert_equal "$(wait_status)" 0
	tmux -S "$TMUX_SOCK" kill-server
	# a one-shot run with --cache says it too
	on_tty "mc --cache 'two plus two'"
	wait_for '(answered from the cache: no model call, no tokens spent)'
	assert_equal "$(fake_count)" 1
}
