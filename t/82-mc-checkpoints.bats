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

project() {
	printf 'one\ntwo\n' > old.txt
	echo 'will go' > gone.txt
	git init -q
	git -c user.name=t -c user.email=t@t add -A
	git -c user.name=t -c user.email=t@t commit -qm start
}

@test "mc rewind: a one-shot turn's write, edit and bash changes are put back; .git is untouched" {
	project
	dotgit > before.git
	fake_start "$(changes)"
	use_fake
	run --separate-stderr mc --yes 'change things'
	assert_success
	assert_equal "$(cat new.txt)" 'made by mc'
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
	assert_equal "$(cat old.txt)" "$(printf 'one\ntwo')"
	assert_equal "$(cat gone.txt)" 'will go'
	dotgit | diff before.git -
	diff before.git after.git
	ls "$MC_HOME"/checkpoints/git/*/HEAD
}
