#!/usr/bin/env bats
# Checkpoints and rewind (SPEC §22): the working tree kept in a shadow git
# repository before a turn's first change; mc rewind puts files and the
# conversation back. The interactive /undo and /rewind are in
# t/83-mc-rewind-tty.bats.

load helper
load fake
load mc

# changes: one answer with a write, an edit and a bash call, then "done".
changes() {
	local w e b
	w=$(call c1 write '{"path":"new.txt","content":"made by mc\n"}')
	e=$(call c2 edit '{"path":"old.txt","old_string":"one","new_string":"ONE"}')
	b=$(call c3 bash '{"command":"echo by bash > bash.txt; rm gone.txt"}')
	printf '[%s,%s]' "$(calls "$w" "$e" "$b")" "$(text done)"
}

# dotgit: every file of .git with its bytes and its time, sorted
dotgit() {
	find .git -printf '%p %y %s %T@ %m\n' | sort
	find .git -type f -exec sha256sum {} + | sort
}

@test "mc rewind: a one-shot turn's write, edit and bash changes are put back; .git is untouched" {
	project
	dotgit > before.git
	fake_start "$(changes)"
	use_fake
	# Nothing of the user's git reaches the shadow repository: not its
	# GIT_* variables, not its configuration (were *.txt excluded,
	# old.txt would not be kept, nor put back), not its hooks.
	printf '*.txt\n' > "$HOME/ignore"
	printf '[core]\n\texcludesFile = %s\n\thooksPath = %s\n' "$HOME/ignore" "$HOME/hooks" > "$HOME/.gitconfig"
	mkdir "$HOME/hooks"
	printf '#!/bin/sh\ntouch %s\n' "$HOME/hooked" > "$HOME/hooks/post-index-change"
	chmod +x "$HOME/hooks/post-index-change"
	GIT_DIR="$W/.git" GIT_INDEX_FILE="$W/.git/index" GIT_WORK_TREE=/ \
		run --separate-stderr mc --yes 'change things'
	assert_success
	echo 'made by mc' | cmp - new.txt
	assert_equal "$(head -n 1 old.txt)" 'ONE'
	[ -e bash.txt ] && [ ! -e gone.txt ]
	dotgit > after.git
	run --separate-stderr mc rewind
	assert_success
	assert_output --partial 'removed  new.txt'
	assert_output --partial 'restored old.txt'
	assert_output --partial 'restored gone.txt'
	assert_output --partial 'files: as before turn 1'
	[ ! -e new.txt ] && [ ! -e bash.txt ]
	printf 'one\ntwo\n' | cmp - old.txt
	echo 'will go' | cmp - gone.txt
	[ ! -e "$HOME/hooked" ]
	dotgit | diff before.git -
	diff before.git after.git
	ls "$MC_HOME"/checkpoints/git/*/HEAD
}

# two_turns: turn 1 writes a.txt, turn 2 b.txt (and changes a.txt), as two one-shot runs.
two_turns() {
	local a b
	a=$(call c1 write '{"path":"a.txt","content":"a1\n"}')
	b=$(call c2 bash '{"command":"echo b > b.txt; echo a2 > a.txt"}')
	fake_start "[$(calls "$a"),$(text one),$(calls "$b"),$(text two)]"
	use_fake
	mc --yes 'first' >/dev/null
	mc -c --yes 'second' >/dev/null
}

@test "mc rewind --list: each turn and what it changed" {
	two_turns
	run --separate-stderr mc rewind --list
	assert_success
	assert_line --index 0 '   1  first'
	assert_line --index 1 '      changed: a.txt (new)'
	assert_line --index 2 '   2  second'
	assert_line --index 3 '      changed: a.txt b.txt (new)'
}

@test "mc rewind TURN --files: the files as before the turn; the conversation stays" {
	two_turns
	old=$(session_files)
	sum=$(sha256sum "$old")
	run --separate-stderr mc rewind --files 2
	assert_success
	assert_output --partial 'restored a.txt'
	assert_output --partial 'removed  b.txt'
	echo a1 | cmp - a.txt
	[ ! -e b.txt ]
	assert_equal "$(session_files)" "$old"
	assert_equal "$(sha256sum "$old")" "$sum"
	run --separate-stderr mc rewind --list
	assert_line --index 3 '      put back since: a.txt b.txt (new)'
	# undo now means turn 1's change
	run --separate-stderr mc rewind

	assert_success
	[ ! -e a.txt ]
}

@test "mc rewind TURN --conversation: a new session file forked from the old, the old as it was" {
	two_turns
	old=$(session_files)
	sum=$(sha256sum "$old")
	run --separate-stderr mc rewind --conversation 2
	assert_success
	assert_output --partial 'conversation: as before turn 2, in the new session'
	assert_equal "$(sha256sum "$old")" "$sum"
	assert_equal "$(cat a.txt)" a2
	new=$(ls "$MC_HOME"/sessions/*.jsonl | grep -vF "$old")
	assert_equal "$(head -n 1 "$new" | jq -r .forked_from)" "$(basename "$old" .jsonl)"
	assert_equal "$(jq -r 'select(.role == "user") | .content' "$new")" first
	# the fork is this directory's latest session, and has turn 1's checkpoint
	run --separate-stderr mc rewind --list
	assert_output "$(printf '   1  first\n      changed: a.txt (new)')"
}

@test "mc rewind TURN: files and conversation both" {
	two_turns
	old=$(session_files)
	run --separate-stderr mc rewind 1
	assert_success
	assert_output --partial 'files: as before turn 1'
	assert_output --partial 'conversation: as before turn 1'
	[ ! -e a.txt ] && [ ! -e b.txt ]
	new=$(ls "$MC_HOME"/sessions/*.jsonl | grep -vF "$old")
	assert_equal "$(sed 1d "$new" | wc -l)" 0
}

@test "mc rewind: a file changed outside mc since is a conflict, named, not overwritten without --force" {
	two_turns
	echo mine > b.txt
	run --separate-stderr mc rewind 2
	assert_failure 1
	assert_equal "$stderr" "$(printf '%s\n' \
		'mc: rewind: b.txt changed outside mc since turn 2' \
		'mc: rewind: nothing was put back: 1 file changed outside mc (--force overwrites)')"
	assert_equal "$(cat b.txt)" mine
	assert_equal "$(cat a.txt)" a2
	assert_equal "$(ls "$MC_HOME"/sessions/*.jsonl | wc -l)" 1
	run --separate-stderr mc rewind --force --files 2
	assert_success
	assert_equal "$stderr" 'mc: rewind: b.txt changed outside mc since turn 2; overwritten (--force)'
	[ ! -e b.txt ]
	assert_equal "$(cat a.txt)" a1
}

@test "mc rewind: a turn that does not exist names the valid range" {
	two_turns
	run --separate-stderr mc rewind 3
	assert_failure 2
	assert_equal "$stderr" "mc: rewind: no turn 3: the session's turns are 1 to 2"
	run --separate-stderr mc rewind --files 0
	assert_failure 2
	assert_equal "$stderr" "mc: rewind: no turn 0: the session's turns are 1 to 2"
	run --separate-stderr mc rewind x
	assert_failure 2
	run --separate-stderr mc rewind --files --conversation 1
	assert_failure 2
	assert_equal "$(cat a.txt)" a2
	[ -e b.txt ]
}

# nogit: a PATH of every program of this one's but git
nogit() {
	local d f
	mkdir -p "$BATS_TEST_TMPDIR/nogit"
	for d in ${PATH//:/ }; do
		[ "$d" = "$MC_BIN" ] && continue
		for f in "$d"/*; do
			[ "${f##*/}" = git ] && continue
			[ -e "$BATS_TEST_TMPDIR/nogit/${f##*/}" ] || ln -s "$f" "$BATS_TEST_TMPDIR/nogit/"
		done
	done 2>/dev/null
	echo "$MC_BIN:$BATS_TEST_TMPDIR/nogit"
}

@test "without git: before-images of write and edit targets, bash said not to be covered" {
	project
	fake_start "$(changes)"
	use_fake
	p=$(nogit)
	! PATH=$p command -v git
	run --separate-stderr env PATH="$p" mc --yes 'change things'
	assert_success
	assert_equal "$stderr" 'mc: checkpoint: git is not on PATH: what bash changes is not covered (only the files write and edit change are kept)'
	[ ! -e "$MC_HOME/checkpoints/git" ]
	run --separate-stderr env PATH="$p" mc rewind
	assert_success
	assert_output --partial 'removed  new.txt'
	assert_output --partial 'restored old.txt'
	[ ! -e new.txt ]
	printf 'one\ntwo\n' | cmp - old.txt
	# bash's changes stay
	[ -e bash.txt ] && [ ! -e gone.txt ]
}

@test "a checkpoint that cannot be taken is said before the change; --yes goes on, and says so" {
	: > "$MC_HOME/checkpoints"	# not a directory
	w=$(call c1 write '{"path":"new.txt","content":"x\n"}')
	fake_start "[$(calls "$w"),$(text done),$(calls "$w"),$(text done)]"
	use_fake
	run --separate-stderr mc --yes 'write'
	assert_success
	[[ $stderr == "mc: no checkpoint could be taken before write: $MC_HOME/checkpoints"*": Not a directory"$'\n'* ]]
	assert_equal "${stderr##*$'\n'}" 'mc: going on without a checkpoint (--yes)'
	[ -e new.txt ]
	rm new.txt
	# without --yes (write allowed by --allow), nobody agreed: not run
	run --separate-stderr mc --allow write 'write'
	assert_success
	[ ! -e new.txt ]
	assert_equal "$(fake_request 4 '.body.messages[-1].content')" \
		'error: not run: no checkpoint could be taken before this change, and the user did not agree to go on without one.'
}

@test "checkpoints: .gitignore is honoured; files over 8 MiB are noted, not stored, and left as they are" {
	printf 'ignored/\n' > .gitignore
	mkdir ignored && echo x > ignored/a
	head -c 9000000 /dev/zero > big.bin
	echo small > grows.bin
	b=$(call c1 bash '{"command":"echo y > ignored/a; echo z > small.txt; echo more >> big.bin; head -c 9000000 /dev/zero >> grows.bin"}')
	fake_start "[$(calls "$b"),$(text done)]"
	use_fake
	run --separate-stderr mc --yes 'go'
	assert_success
	assert_equal "$stderr" "$(printf '%s\n' \
		'mc: checkpoint: big.bin is over 8 MiB: not stored; a rewind leaves it as it is' \
		'mc: checkpoint: grows.bin is over 8 MiB: not stored; a rewind leaves it as it is')"
	repo=$(ls -d "$MC_HOME"/checkpoints/git/*)
	run env GIT_DIR="$repo" git ls-files
	assert_output "$(printf '.gitignore\nsmall.txt')"
	run --separate-stderr mc rewind
	assert_success
	assert_output "$(printf '  removed  small.txt\nfiles: as before turn 1')"
	assert_equal "$(cat ignored/a)" y
	assert_equal "$(stat -c %s big.bin)" 9000005
	assert_equal "$(stat -c %s grows.bin)" 9000006
}

@test "an MCP tool is checkpointed before, unless its server says readOnlyHint" {
	args=$(jq -nc --arg py "$MC_TOP/t/fake-mcp.py" '[$py, "--read-only", "peek"]')
	fake_start "[$(calls "$(call c1 srv__peek '{"text":"a"}')"),$(text one),$(calls "$(call c2 srv__echo '{"text":"b"}')"),$(text two)]"
	jq -nc --arg url "$FAKE_URL" --argjson args "$args" '{provider: "fake", model: "fake-model",
	  providers: {fake: {base_url: $url, api: "chat", api_key_env: null}},
	  mcp_servers: {srv: {command: "python3", args: $args, approve: false}}}' > "$MC_HOME/settings.json"
	run --separate-stderr mc 'peek'
	assert_success
	[ ! -e "$MC_HOME/checkpoints" ]
	# what the server said is not the model's to read
	assert_equal "$(fake_request 1 '[.body.tools[].function | select(.name == "srv__peek") | keys[]] | join(",")')" \
		'description,name,parameters'
	run --separate-stderr mc -c 'echo'
	assert_success
	run --separate-stderr mc rewind --list
	assert_output "$(printf '   1  peek\n      (no change)\n   2  echo\n      changed: nothing')"
}

@test "the setting checkpoints.enabled false takes none" {
	fake_start "[$(calls "$(call c1 write '{"path":"new.txt","content":"x\n"}')"),$(text done)]"
	use_fake
	jq '. + {checkpoints: {enabled: false}}' "$MC_HOME/settings.json" > s && mv s "$MC_HOME/settings.json"
	run --separate-stderr mc --yes 'write'
	assert_success
	[ -e new.txt ] && [ ! -e "$MC_HOME/checkpoints" ]
	run --separate-stderr mc rewind
	assert_success
	assert_output 'nothing to undo: no turn of this session changed files'
}

@test "checkpoints of a directory that holds MC_HOME leave MC_HOME out" {
	cd "$HOME"
	echo mine > notes.txt
	fake_start "[$(calls "$(call c1 bash '{"command":"echo changed > notes.txt"}')"),$(text done)]"
	use_fake
	run --separate-stderr mc --yes 'go'
	assert_success
	repo=$(ls -d "$MC_HOME"/checkpoints/git/*)
	run env GIT_DIR="$repo" git ls-files
	assert_output notes.txt
	run --separate-stderr mc rewind
	assert_success
	assert_output "$(printf '  restored notes.txt\nfiles: as before turn 1')"
	echo mine | cmp - notes.txt
}

@test "without git, a write or edit target over 8 MiB is noted, not kept, and left as it is" {
	head -c 9000000 /dev/zero > big.txt
	echo small > small.txt
	w=$(call c1 edit '{"path":"big.txt","old_string":"\u0000\u0000","new_string":"x"}')
	w2=$(call c2 write '{"path":"small.txt","content":"changed\n"}')
	fake_start "[$(calls "$w" "$w2"),$(text done)]"
	use_fake
	p=$(nogit)
	run --separate-stderr env PATH="$p" mc --yes 'change them'
	assert_success
	[[ $stderr == *'mc: checkpoint: big.txt is over 8 MiB: not stored; a rewind leaves it as it is'* ]]
	run --separate-stderr env PATH="$p" mc rewind
	assert_success
	assert_output "$(printf '  restored small.txt\nfiles: as before turn 1')"
	echo small | cmp - small.txt
}

@test "mc rewind: usage errors exit 2 before anything is read or changed" {
	for args in '--bogus' '1 2' '--list 1' '--list --force' '--conversation' '--session ../x 1'; do
		# shellcheck disable=SC2086 # the words are the arguments
		run --separate-stderr mc rewind $args
		assert_failure 2
		[[ $stderr == mc:* ]]
	done
	run --separate-stderr mc rewind --help
	assert_success
	assert_line --index 0 'usage: mc rewind [--session ID] [--list] [--force] [--files | --conversation] [TURN]'
	[ ! -e "$MC_HOME/checkpoints" ]
	# no session: said, exit 1
	run --separate-stderr mc rewind
	assert_failure 1
	assert_equal "$stderr" 'mc: rewind: no session of this directory'
}

@test "checkpoints keep the bytes as they are, whatever the project's .gitattributes say" {
	printf '* text eol=crlf\n*.bin filter=lfs\n' > .gitattributes
	printf 'one\r\ntwo\n' > mixed.txt
	printf '\0\1\2' > data.bin
	fake_start "[$(calls "$(call c1 bash '{"command":"echo x > mixed.txt; echo y > data.bin"}')"),$(text done)]"
	use_fake
	run --separate-stderr mc --yes 'go'
	assert_success
	run --separate-stderr mc rewind
	assert_success
	printf 'one\r\ntwo\n' | cmp - mixed.txt
	printf '\0\1\2' | cmp - data.bin
}

@test "--timeout during a checkpoint stops the turn before the change; a turn cut short still records what it changed" {
	mkdir fakegit
	printf '#!/bin/sh\nexec sleep 30\n' > fakegit/git
	chmod +x fakegit/git
	# one request of each run: the first stops at the checkpoint, the second in bash
	fake_start "[$(calls "$(call c1 write '{"path":"new.txt","content":"x\n"}')"),
	  $(calls "$(call c2 bash '{"command":"echo x > made.txt; exec sleep 30"}')")]"
	use_fake
	run --separate-stderr env PATH="$W/fakegit:$PATH" mc --yes --timeout 1 'write'
	assert_failure 124
	[ ! -e new.txt ]
	[[ $stderr != *'going on without'* ]]
	assert_equal "$(jq -r 'select(.type == "function_call_output") | .output' "$(session_files)")" \
		"error: the run's --timeout came before this call ran."
	rm "$(session_files)"
	run --separate-stderr mc --yes --timeout 2 'bash'
	assert_failure 124
	[ -e made.txt ]
	assert_equal "$(jq -s 'map(select(.after)) | length' "$MC_HOME"/checkpoints/*.jsonl)" 1
	run --separate-stderr mc rewind
	assert_success
	assert_output "$(printf '  removed  made.txt\nfiles: as before turn 1')"
}
