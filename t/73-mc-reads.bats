#!/usr/bin/env bats
# Reads outside the workspace (SPEC §19): read, grep and find on a path
# outside the working directory, --add-dir and tools.add_dirs need
# approval like bash; $TMPDIR and skill:// do not. Paths are resolved:
# "..", absolute paths and symbolic links out are caught alike.

load helper
load fake
load mc

# The outside world: $OUT/secret.txt beside the repository, and a
# temporary directory of the run's own (the test tree is under /tmp).
setup_file_local() {
	OUT="$BATS_TEST_TMPDIR/outside"
	mkdir -p "$OUT" "$BATS_TEST_TMPDIR/tmp"
	printf 'the secret\n' > "$OUT/secret.txt"
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
}

# one_read ARGS-JSON [NAME]: the fake asks for one call (read by default), then says done
one_read() {
	fake_start "[$(calls "$(call c1 "${2:-read}" "$1")"), $(text done)]"
	use_fake
}

# what the model read back: the last message of the second request
read_back() {
	fake_request 2 '.body.messages[-1].content'
}

# the approval event of the run: DECISION BY
approval() {
	printf '%s\n' "$output" | jq -r 'select(.type == "approval") | "\(.decision) \(.by)"'
}

@test "a read outside the working directory: a one-shot run refuses it, naming why; --yes allows it" {
	one_read "$(jq -nc --arg p "$OUT/secret.txt" '{path:$p}')"
	run --separate-stderr mc --json 'read it'
	assert_success
	[[ $(read_back) == "refused: read of $OUT/secret.txt is outside the working directory; one-shot runs need --yes or --add-dir"* ]]
	assert_equal "$(approval)" 'refused policy'
	assert_equal "$stderr" "mc: refused read of $OUT/secret.txt (outside the working directory: one-shot runs need --yes or --add-dir to read there)"
	fake_stop
	one_read "$(jq -nc --arg p "$OUT/secret.txt" '{path:$p}')"
	run --separate-stderr mc --json --yes 'read it'
	assert_success
	[[ $(read_back) == *'the secret'* ]]
	assert_equal "$(approval)" 'allowed yes'
}

@test "a ../ path, a symbolic link to a file or a directory outside, grep and find there: all refused" {
	ln -s "$OUT/secret.txt" link
	ln -s "$OUT" dirlink
	mkdir sub
	for c in 'read {"path":"../outside/secret.txt"}' 'read {"path":"sub/../../outside/secret.txt"}' \
		'read {"path":"link"}' 'read {"path":"dirlink/secret.txt"}' 'read {"path":"dirlink/missing"}' \
		'grep {"pattern":"secret","path":".."}' 'grep {"pattern":"secret","path":"dirlink"}' \
		'find {"glob":"*","path":"../outside"}' 'find {"glob":"*","path":"/"}'; do
		one_read "${c#* }" "${c%% *}"
		run --separate-stderr mc --json 'look'
		assert_success
		echo "$c: $(read_back)"
		[[ $(read_back) == "refused: ${c%% *} of /"*" is outside the working directory;"* ]]
		[[ $(read_back) != *'the secret'* ]]
		fake_stop
	done
	# the path named is the one read: the link's target
	one_read '{"path":"link"}'
	run --separate-stderr mc --json 'look'
	[[ $(read_back) == "refused: read of $OUT/secret.txt is"* ]]
}

@test "inside: the working directory, grep and find with no path, \$TMPDIR, skill://" {
	printf 'x marks\n' > here.txt
	ln -s here.txt inlink
	printf 'tmp text\n' > "$TMPDIR/t.txt"
	mkdir -p .agents/skills/demo
	printf -- '---\nname: demo\ndescription: A demo skill.\n---\nStep one.\n' > .agents/skills/demo/SKILL.md
	for c in 'read {"path":"here.txt"}' "read {\"path\":\"$W/inlink\"}" 'grep {"pattern":"marks"}' \
		'find {"glob":"*.txt"}' "read {\"path\":\"$TMPDIR/t.txt\"}" 'read {"path":"skill://demo"}'; do
		one_read "${c#* }" "${c%% *}"
		run --separate-stderr mc --json 'look'
		assert_success
		echo "$c: $(read_back)"
		assert_equal "$(approval)" 'allowed policy'
		[[ $(read_back) != refused* ]]
		fake_stop
	done
	# /tmp stands for an unset TMPDIR: the test tree's outside is under it too
	one_read "$(jq -nc --arg p "$OUT/secret.txt" '{path:$p}')"
	run --separate-stderr env -u TMPDIR mc --json 'read it'
	assert_success
	if [[ $OUT == /tmp/* ]]; then
		[[ $(read_back) == *'the secret'* ]]
	fi
}

@test "--add-dir and tools.add_dirs allow reads there; a bad one is an error naming it" {
	one_read "$(jq -nc --arg p "$OUT/secret.txt" '{path:$p}')"
	run --separate-stderr mc --json --add-dir ../outside 'read it'
	assert_success
	[[ $(read_back) == *'the secret'* ]]
	assert_equal "$(approval)" 'allowed policy'
	fake_stop
	one_read '{"path":"../outside/secret.txt"}'
	jq --arg d "$BATS_TEST_TMPDIR/nowhere" --arg o "$BATS_TEST_TMPDIR/outside/" \
		'.tools.add_dirs = [$d, $o]' "$MC_HOME/settings.json" > s && mv s "$MC_HOME/settings.json"
	run --separate-stderr mc --json 'read it'
	assert_success
	[[ $(read_back) == *'the secret'* ]]
	# errors before anything runs
	run --separate-stderr mc --add-dir nowhere 'x'
	assert_failure 2
	assert_equal "${stderr_lines[0]}" 'mc: --add-dir: nowhere: No such file or directory'
	run --separate-stderr mc --add-dir here.txt 'x'
	assert_failure 2
	settings '{"tools":{"add_dirs":["/ok","rel/dir"]}}'
	run --separate-stderr mc --dry-run 'x'
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: tools.add_dirs[1]: path must be absolute"
}

@test "a subagent reads outside only where its parent could without asking: --yes, --add-dir" {
	mkdir -p "$MC_HOME/subagents"
	printf -- '---\nname: Explorer\ndescription: finds\n---\nYou explore. SUBAGENT-ROLE\n' > "$MC_HOME/subagents/explorer.md"
	script() {
		jq -nc --argjson c "[$(call s1 subagents '{"tasks":[{"agent":"explorer","prompt":"look"}]}')]" \
			'{unless:"SUBAGENT-ROLE", answer:{api:"chat",calls:$c}}'
		jq -nc --argjson c "[$(call r1 read "$(jq -nc --arg p "$OUT/secret.txt" '{path:$p}')")]" \
			'{when:"SUBAGENT-ROLE", unless:"r1", answer:{api:"chat",calls:$c}}'
		jq -nc '{when:["SUBAGENT-ROLE","r1"], answer:{api:"chat",text:"child done"}}'
		jq -nc '{unless:"SUBAGENT-ROLE", answer:{api:"chat",text:"ok"}}'
	}
	# the child's read back: in its second request
	child_read() {
		for f in "$FAKE_LOG"/*.json; do
			jq -r 'select(.body.messages[0].content | contains("SUBAGENT-ROLE")) |
			  .body.messages[-1] | select(.role == "tool") | .content' "$f"
		done
	}
	fake_start "[$(script | paste -sd,)]"
	use_fake
	run --separate-stderr mc --json 'go'
	assert_success
	[[ $(child_read) == "refused: read of $OUT/secret.txt is outside the working directory; a subagent may read outside it only where its parent session could without asking"* ]]
	for opt in --yes "--add-dir=$OUT"; do
		fake_stop
		fake_start "[$(script | paste -sd,)]"
		use_fake
		run --separate-stderr mc --json "$opt" 'go'
		assert_success
		[[ $(child_read) == *'the secret'* ]]
	done
}

@test "on a terminal: a read outside asks, shows the path, and yes reads it" {
	one_read "$(jq -nc --arg p "$OUT/secret.txt" '{path:$p}')"
	on_tty "env TMPDIR='$TMPDIR' mc"
	wait_for 'mc>'
	keys 'read it' Enter
	wait_for 'allow read outside the working directory?'
	pane | grep -F "read will read $OUT/secret.txt, outside the working directory:"
	keys y Enter
	wait_for 'done'
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
	[[ $(read_back) == *'the secret'* ]]
}
