#!/usr/bin/env bats
# Custom commands (SPEC §25): Markdown prompts in $MC_HOME/commands/ and
# the repository's .agents/commands/, run as mc /NAME ARGS and /NAME ARGS.

load helper
load fake
load mc

# cmd DIR NAME TEXT: write DIR/NAME.md (NAME may hold a folder)
cmd() {
	mkdir -p "$(dirname "$1/$2")"
	printf '%s' "$3" > "$1/$2.md"
}

@test "commands: mc /NAME ARGS sends the body with \$ARGUMENTS and \$1..\$9; the model is the file's unless -m" {
	fake_start "$(answers one two three)"
	use_fake
	cmd "$MC_HOME/commands" review $'---\ndescription: review a file\nargument-hint: FILE [FOCUS]\nmodel: file-model\n---\nReview $1 for $2.\nAll: $ARGUMENTS'
	run --separate-stderr mc /review lib/a.c "'error handling'" </dev/null
	assert_success
	assert_output one
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" \
		"$(printf 'Review lib/a.c for error handling.\nAll: lib/a.c '"'"'error handling'"'")"
	assert_equal "$(fake_request 1 .body.model)" file-model
	run --separate-stderr mc -m other /review x y </dev/null
	assert_success
	assert_equal "$(fake_request 2 .body.model)" other
	# a body without placeholders gets the arguments after a blank line
	cmd "$MC_HOME/commands" plain 'Say hi.'
	run --separate-stderr mc /plain to all </dev/null
	assert_success
	assert_equal "$(fake_request 3 '.body.messages[-1].content')" "$(printf 'Say hi.\n\nto all')"
}

@test "commands: the repository's win a clash; a subfolder's is DIR:NAME" {
	fake_start "$(answers one two)"
	use_fake
	cmd "$MC_HOME/commands" fix 'user fix'
	cmd "$W/.agents/commands" fix 'repo fix'
	cmd "$MC_HOME/commands" git/commit 'commit $ARGUMENTS'
	run --separate-stderr mc /fix </dev/null
	assert_success
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" 'repo fix'
	run --separate-stderr mc /git:commit now </dev/null
	assert_success
	assert_equal "$(fake_request 2 '.body.messages[-1].content')" 'commit now'
}

@test "commands: bad input is said naming the file, line or token, and nothing is sent" {
	fake_start "$(answers one)"
	use_fake
	cmd "$MC_HOME/commands" two $'---\ndescription: two\n---\n$1 and $7'
	run --separate-stderr mc /two a b </dev/null
	assert_failure 2
	assert_equal "$stderr" 'mc: /two: $7: 2 arguments given'
	cmd "$MC_HOME/commands" badkey $'---\ndescription: x\ncolour: red\n---\nbody'
	run --separate-stderr mc /badkey </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/commands/badkey.md:3: unknown key \"colour\" (description, argument-hint or model)"
	cmd "$MC_HOME/commands" badline $'---\ndescription: x\nno colon here\n---\nbody'
	run --separate-stderr mc /badline </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/commands/badline.md:3: not a \`key: value\` line"
	cmd "$MC_HOME/commands" open $'---\ndescription: x\n'
	run --separate-stderr mc /open </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/commands/open.md:1: the frontmatter has no closing \`---\` line"
	run --separate-stderr mc /nosuch </dev/null
	assert_failure 2
	assert_equal "$stderr" "mc: unknown command /nosuch: no nosuch.md in .agents/commands/ or $MC_HOME/commands/ (mc -- /nosuch asks about the word)"
	run --separate-stderr mc --json /nosuch </dev/null
	assert_failure 2
	assert_equal "$(printf '%s\n' "$output" | tail -1 | jq -c '{type, reason}')" '{"type":"done","reason":"error"}'
	assert_equal "$(fake_count)" 0
	# a path is a prompt, not a command; so is a word after --
	run --separate-stderr mc -- /nosuch </dev/null
	assert_success
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" /nosuch
}

@test "commands: interactive /NAME runs one, /help lists them, errors send nothing" {
	fake_start "$(answers 'the answer')"
	use_fake
	cmd "$MC_HOME/commands" greet $'---\ndescription: greet someone\nargument-hint: NAME\n---\nGreet $1 warmly.'
	cmd "$W/.agents/commands" ops/deploy $'---\ndescription: deploy it\n---\nDeploy.'
	cmd "$MC_HOME/commands" broken $'---\nwhat\n---\nx'
	on_tty mc
	wait_for 'mc>'
	keys '/help' Enter
	wait_for 'greet someone'
	keys '/greet' Enter
	wait_for '$1: 0 arguments given'
	keys '/nosuch' Enter
	wait_for 'unknown command /nosuch'
	keys '/greet Ada' Enter
	wait_for 'the answer'
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(fake_count)" 1
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" 'Greet Ada warmly.'
	pane | grep -q '/ops:deploy'
	pane | grep -q 'deploy it'
	pane | grep -q '/greet NAME'
	pane | grep -q "(unusable: $MC_HOME/commands/broken.md:2: not a"
}
