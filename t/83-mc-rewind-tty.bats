#!/usr/bin/env bats
# /undo and /rewind in the interactive session (SPEC §22), on a
# pseudo-terminal; mc rewind for scripts is t/82-mc-checkpoints.bats.

load helper
load fake
load mc

# dotgit: every file of .git with its bytes and its time, sorted
dotgit() {
	find .git -printf '%p %y %s %T@ %m\n' | sort
	find .git -type f -exec sha256sum {} + | sort
}

# A turn of a write, an edit and a bash call, then "done"; a second turn
# of one write; each call allowed "always". $1: more answers, after.
script() {
	local w e b w2
	w=$(call c1 write '{"path":"new.txt","content":"made by mc\n"}')
	e=$(call c2 edit '{"path":"old.txt","old_string":"one","new_string":"ONE"}')
	b=$(call c3 bash '{"command":"echo by bash > bash.txt; rm gone.txt"}')
	w2=$(call c4 write '{"path":"second.txt","content":"2\n"}')
	fake_start "[$(calls "$w" "$e" "$b"),$(text done),$(calls "$w2"),$(text 'done again')${1:+,$1}]"
	use_fake
}

@test "/undo puts back the write, edit and bash changes of the last turn and names them; .git is untouched" {
	project
	dotgit > before.git
	script
	on_tty mc
	wait_for 'mc>'
	keys 'change things' Enter
	wait_for 'allow write?'
	keys a Enter
	wait_for 'allow edit?'
	keys a Enter
	wait_for 'allow bash?'
	keys a Enter
	wait_for 'done'
	wait_prompt 2
	[ -e bash.txt ] && [ ! -e gone.txt ] && [ -e new.txt ]
	keys /undo Enter
	wait_for 'files: as before turn 1'
	for f in 'removed  new.txt' 'restored old.txt' 'removed  bash.txt' 'restored gone.txt'; do
		pane | grep -qF "$f"
	done
	wait_prompt 3
	[ ! -e new.txt ] && [ ! -e bash.txt ]
	printf 'one\ntwo\n' | cmp - old.txt
	echo 'will go' | cmp - gone.txt
	dotgit | diff before.git -
	keys /undo Enter
	wait_for 'nothing to undo: no turn of this session changed files'
	keys C-d
	assert_equal "$(wait_status)" 0
}

@test "/rewind lists the turns; /rewind N conversation goes on in a forked session" {
	project
	script "$(text 'after the rewind')"
	on_tty mc
	wait_for 'mc>'
	keys 'change things' Enter
	for t in write edit bash; do
		wait_for "allow $t?"
		keys a Enter
	done
	wait_prompt 2
	keys 'second turn' Enter
	wait_for 'done again'
	wait_prompt 3
	keys /rewind Enter
	wait_for '/rewind N puts files and conversation back'
	pane | grep -qF '   1  change things'
	pane | grep -qF '      changed: bash.txt (new) gone.txt (removed) new.txt (new) old.txt'
	pane | grep -qF '   2  second turn'
	pane | grep -qF '      changed: second.txt (new)'
	keys '/rewind 7' Enter
	wait_for "mc: rewind: no turn 7: the session's turns are 1 to 2"
	keys '/rewind 0 files' Enter
	wait_for "mc: rewind: no turn 0: the session's turns are 1 to 2"
	old=$(session_files)
	sum=$(sha256sum "$old")
	keys '/rewind 2 conversation' Enter
	wait_for 'conversation: as before turn 2, in the new session'
	[ -e second.txt ]
	assert_equal "$(sha256sum "$old")" "$sum"
	# the next message goes on from before turn 2, in the new file
	keys 'third' Enter
	wait_for 'after the rewind'
	assert_equal "$(fake_request 5 '[.body.messages[] | select(.role == "user") | .content] | join(",")')" \
		'change things,third'
	new=$(ls "$MC_HOME"/sessions/*.jsonl | grep -vF "$old")
	assert_equal "$(jq -r 'select(.role == "user") | .content' "$new" | tr '\n' ,)" 'change things,third,'
	keys C-d
	assert_equal "$(wait_status)" 0
}

@test "/rewind N files and both; a conflict is named and kept until --force" {
	project
	script
	on_tty mc
	wait_for 'mc>'
	keys 'change things' Enter
	for t in write edit bash; do
		wait_for "allow $t?"
		keys a Enter
	done
	wait_prompt 2
	keys 'second turn' Enter
	wait_prompt 3
	keys '/rewind 2 files' Enter
	wait_for 'files: as before turn 2'
	[ ! -e second.txt ] && [ -e new.txt ]
	assert_equal "$(session_files | wc -l)" 1
	echo 'mine' > new.txt
	keys '/rewind 1' Enter
	wait_for 'mc: rewind: new.txt changed outside mc since turn 1'
	wait_for 'nothing was put back: 1 file changed outside mc (--force overwrites)'
	echo mine | cmp - new.txt
	[ -e bash.txt ]
	keys '/rewind 1 --force' Enter
	wait_for 'conversation: as before turn 1'
	[ ! -e new.txt ] && [ ! -e bash.txt ]
	printf 'one\ntwo\n' | cmp - old.txt
	keys C-d
	assert_equal "$(wait_status)" 0
}

@test "a checkpoint that cannot be taken is asked about before the change" {
	: > "$MC_HOME/checkpoints"	# not a directory
	w=$(call c1 write '{"path":"new.txt","content":"x\n"}')
	w2=$(call c2 write '{"path":"new2.txt","content":"x\n"}')
	fake_start "[$(calls "$w"),$(text done),$(calls "$w2"),$(text 'done 2')]"
	use_fake
	on_tty mc
	wait_for 'mc>'
	keys 'write' Enter
	wait_for 'allow write?'
	keys a Enter
	wait_for 'go on without a checkpoint (no /undo for this turn)? [y/N]'
	pane | grep -qF 'mc: no checkpoint could be taken before write: '
	keys n Enter
	wait_prompt 2
	[ ! -e new.txt ]
	keys 'again' Enter
	wait_count 2 'go on without a checkpoint'
	keys y Enter
	wait_for 'done 2'
	[ -e new2.txt ]
	keys C-d
	assert_equal "$(wait_status)" 0
}

@test "after /rewind N conversation, a guide injected from turn N on is injected again when needed" {
	mkdir sub
	printf 'Sub rules.\n' > sub/AGENTS.md
	echo a > sub/a.txt
	echo b > sub/b.txt
	context='[.body.messages[] | select((.content // "") | startswith("<Context File="))] | length'
	fake_start "[$(text hello),$(calls "$(call c1 read '{"path":"sub/a.txt"}')"),$(text read),
	  $(calls "$(call c2 read '{"path":"sub/b.txt"}')"),$(text 'read again')]"
	use_fake
	on_tty mc
	wait_for 'mc>'
	keys 'hi' Enter
	wait_prompt 2
	keys 'read a' Enter
	wait_prompt 3
	assert_equal "$(fake_request 3 "$context")" 1
	keys '/rewind 2 conversation' Enter
	wait_for 'conversation: as before turn 2'
	keys 'read b' Enter
	wait_for 'read again'
	assert_equal "$(fake_request 4 "$context")" 0
	assert_equal "$(fake_request 5 "$context")" 1
	keys C-d
	assert_equal "$(wait_status)" 0
}
