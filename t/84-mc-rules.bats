#!/usr/bin/env bats
# Approval rules (SPEC §22): permissions.allow, ask and deny in the
# settings, bash commands split by lib/shell.c into simple commands, every
# one allowed for the whole to be; deny beats ask beats allow; the rule
# that decided in the approval event and on stderr.

load helper
load fake
load mc

setup_file_local() {
	own_tmpdir
}

# rules PERMISSIONS-JSON: the fake as provider, and these permissions
# (written again by each fake started after)
rules() {
	PERMS=$1
	jq -nc --arg u "${FAKE_URL:-http://127.0.0.1:9/v1}" --argjson p "$1" '{provider: "fake",
	  model: "fake-model", providers: {fake: {base_url: $u, api: "chat", api_key_env: null}},
	  permissions: $p}' > "$MC_HOME/settings.json"
}

# one CALL-NAME ARGS-JSON: the fake asks for one call, then says done
one() {
	fake_start "[$(calls "$(call c1 "$1" "$2")"), $(text done)]"
	[ -z "${PERMS:-}" ] || rules "$PERMS"
}

# bash_call COMMAND: one bash call of COMMAND
bash_call() {
	one bash "$(jq -nc --arg c "$1" '{command: $c}')"
}

# the approval event of the run: DECISION BY RULE
approval() {
	printf '%s\n' "$output" | jq -r 'select(.type == "approval") | "\(.decision) \(.by) \(.rule // "-")"'
}

# what the model read back
read_back() {
	fake_request 2 '.body.messages[-1].content'
}

@test "a rule that does not parse is an error naming its index in the settings" {
	for c in 'allow 2 "bash(a &&"' 'deny 0 "foo(bar)"' 'ask 1 "edit(../x)"' 'allow 1 "bash()"' \
		'deny 1 "bash(echo $(id):*)"' 'allow 0 "ba sh"'; do
		read -r list at bad <<< "$c"
		# the bad rule at index i
		p=$(jq -nc --arg l "$list" --argjson b "$bad" --argjson i "$at" \
			'{($l): ((["read", "bash(git status)"][:$i]) + [$b])}')
		rules "$p"
		run --separate-stderr mc --dry-run hi
		assert_failure 1
		[[ $stderr == "mc: $MC_HOME/settings.json: permissions.$list[$at]: \"${bad:1:-1}\": "* ]] ||
			{ echo "$c: $stderr"; false; }
	done
	rules '{"allow":"bash"}'
	run --separate-stderr mc --dry-run hi
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: permissions.allow: expected an array of rules"
	rules '{"mode":"careful"}'
	run --separate-stderr mc --dry-run hi
	[[ $stderr == "mc: $MC_HOME/settings.json: permissions.mode: expected one of \"default\""* ]]
}

@test "bash(exact) allows that command, word for word after quotes, and nothing longer" {
	bash_call "echo 'hello'"
	rules '{"allow":["bash(echo hello)"]}'
	run --separate-stderr mc --json go
	assert_success
	assert_equal "$(approval)" 'allowed rule bash(echo hello)'
	assert_equal "$stderr" 'mc: bash: allowed by the rule bash(echo hello) (permissions.allow[0])'
	assert_equal "$(read_back)" $'hello\n[exit status 0]'
	fake_stop
	bash_call 'echo hello there'
	run --separate-stderr mc --json go
	assert_equal "$(approval)" 'refused policy -'
	[[ $(read_back) == 'refused: this one-shot run'* ]]
}

@test "bash(prefix:*) allows at a word boundary; a compound command needs every part allowed" {
	rules '{"allow":["bash(echo:*)","bash(git status)"]}'
	for c in 'echo a b c' 'echo a && echo b || echo c; echo d | echo e' $'echo a\necho b' \
		'echo "a; rm -rf x"' 'echo a > inside.txt 2>/dev/null' \
		"echo a > $TMPDIR/t2 2>&1"; do
		bash_call "$c"
		run --separate-stderr mc --json go
		assert_equal "$(approval)" 'allowed rule bash(echo:*)'
		fake_stop
	done
	[ -s inside.txt ]
	touch keep
	for c in 'echox a' 'echo a && rm -f keep' 'echo a; rm -f keep' 'rm -f keep | echo a' \
		$'echo a\nrm -f keep' 'echo a & rm -f keep' 'git status; rm -f keep'; do
		bash_call "$c"
		run --separate-stderr mc --json go
		assert_equal "$(approval)" 'refused policy -'
		fake_stop
	done
	[ -e keep ]
	bash_call 'echo a; git status'
	run --separate-stderr mc --json go
	assert_equal "$(approval)" 'allowed rule bash(echo:*), bash(git status)'
}

@test "substitution, eval, sh -c, outside redirections and what does not parse always ask" {
	rules '{"allow":["bash(echo:*)","bash(sh:*)","bash(cat:*)","bash(cd:*)"]}'
	for c in 'cd .. && echo x > pwned' 'echo $(touch pwned)' 'echo `touch pwned`' 'echo "$(touch pwned)"' \
		'eval touch pwned' 'sh -c "touch pwned"' "echo x > $BATS_TEST_TMPDIR/pwned" \
		'echo x > ../pwned' 'echo x > ~/pwned' 'echo x > "$HOME/pwned"' 'echo "unterminated' 'cat <(touch pwned)' \
		$'cat <<EOF\n$(touch pwned)\nEOF' '(echo a; touch pwned)' 'if echo; then touch pwned; fi'; do
		bash_call "$c"
		run --separate-stderr mc --json go
		assert_equal "$(approval)" 'refused policy -' || { echo "$c: $output $stderr"; false; }
		[[ $(read_back) == *'no rule of the user'"'"'s may allow this command: it '* ]] ||
			{ echo "$c: $(read_back)"; false; }
		fake_stop
	done
	[ ! -e pwned ] && [ ! -e ../pwned ] && [ ! -e "$BATS_TEST_TMPDIR/pwned" ]
	# a quoted here-document is text, not a substitution
	bash_call $'cat <<\'EOF\'\n$(touch pwned)\nEOF'
	run --separate-stderr mc --json go
	assert_equal "$(approval)" 'allowed rule bash(cat:*)'
	assert_equal "$(read_back)" $'$(touch pwned)\n[exit status 0]'
	[ ! -e pwned ]
	fake_stop
	# "bash" alone allows everything, as "always" for the tool would
	rules '{"allow":["bash"]}'
	bash_call 'echo $(echo sub)'
	run --separate-stderr mc --json go
	assert_equal "$(approval)" 'allowed rule bash'
}

@test "deny beats ask beats allow, --yes included; a denied call never asks" {
	touch keep
	rules '{"allow":["bash"],"ask":["bash(echo secret:*)"],"deny":["bash(rm:*)","read(.env)"]}'
	bash_call 'echo a && rm -f keep'
	run --separate-stderr mc --json --yes go
	assert_success
	assert_equal "$(approval)" 'refused rule bash(rm:*)'
	assert_equal "$stderr" 'mc: refused bash: the rule bash(rm:*) (permissions.deny[0]) denies it'
	[[ $(read_back) == "refused: the user's settings deny this call (the rule bash(rm:*))."* ]]
	[ -e keep ]
	fake_stop
	bash_call 'echo secret stuff'
	run --separate-stderr mc --json --yes go
	assert_equal "$(approval)" 'refused rule bash(echo secret:*)'
	[[ $stderr == *'mc: refused bash: the rule bash(echo secret:*) (permissions.ask[0]) asks first, and this run has no one to ask'* ]]
	fake_stop
	printf 'KEY=1\n' > .env
	mkdir -p sub && printf 'KEY=2\n' > sub/.env
	for p in .env sub/.env; do
		one read "$(jq -nc --arg p "$p" '{path: $p}')"
		run --separate-stderr mc --json --yes go
		assert_equal "$(approval)" 'refused rule read(.env)'
		[[ $(read_back) != *KEY* ]]
		fake_stop
	done
}

@test "path rules: globs relative to the working directory, for write, edit and read" {
	mkdir -p src/deep other
	printf 'old\n' > src/deep/a.txt
	printf 'old\n' > other/b.txt
	rules '{"allow":["edit(src/**)","write(/docs/*.md)"],"ask":["read(secrets/)"]}'
	one edit '{"path":"src/deep/a.txt","old_string":"old","new_string":"new"}'
	run --separate-stderr mc --json go
	assert_equal "$(approval)" 'allowed rule edit(src/**)'
	assert_equal "$(cat src/deep/a.txt)" new
	fake_stop
	one edit '{"path":"other/b.txt","old_string":"old","new_string":"new"}'
	run --separate-stderr mc --json go
	assert_equal "$(approval)" 'refused policy -'
	assert_equal "$(cat other/b.txt)" old
	fake_stop
	one write '{"path":"docs/a.md","content":"x"}'
	run --separate-stderr mc --json go
	assert_equal "$(approval)" 'allowed rule write(/docs/*.md)'
	fake_stop
	one write '{"path":"docs/sub/a.md","content":"x"}'
	run --separate-stderr mc --json go
	assert_equal "$(approval)" 'refused policy -'
	fake_stop
	# a path outside the working directory matches no path rule
	one edit "$(jq -nc --arg p "$BATS_TEST_TMPDIR/src/x" '{path: $p, old_string: "a", new_string: "b"}')"
	run --separate-stderr mc --json go
	assert_equal "$(approval)" 'refused policy -'
	fake_stop
	mkdir secrets && echo s > secrets/k
	one read '{"path":"secrets/k"}'
	run --separate-stderr mc --json go
	assert_equal "$(approval)" 'refused rule read(secrets/)'
}

@test "mcp__server__tool and mcp__server rules name MCP tools" {
	fake_start "[$(calls "$(call c1 srv__echo '{"text":"hi"}')"), $(text one),
	  $(calls "$(call c2 srv__count '{}')"), $(text two),
	  $(calls "$(call c3 srv__count '{}')"), $(text three)]"
	mcp_rules() {
		jq -nc --arg u "$FAKE_URL" --arg py "$MC_TOP/t/fake-mcp.py" --argjson p "$1" \
			'{provider: "fake", model: "fake-model",
			  providers: {fake: {base_url: $u, api: "chat", api_key_env: null}},
			  mcp_servers: {srv: {command: "python3", args: [$py], timeout_s: 10}},
			  permissions: $p}' > "$MC_HOME/settings.json"
	}
	mcp_rules '{"allow":["mcp__srv__echo"]}'
	run --separate-stderr mc --json go </dev/null
	assert_equal "$(approval)" 'allowed rule mcp__srv__echo'
	run --separate-stderr mc --json go </dev/null
	assert_equal "$(approval)" 'refused policy -'
	mcp_rules '{"deny":["mcp__srv"]}'
	run --separate-stderr mc --json --yes go </dev/null
	assert_equal "$(approval)" 'refused rule mcp__srv'
}
