#!/usr/bin/env bats
# mc-tool: SPEC §9, the agent's tools (list, call and each tool).

load helper
load tool

# --- list ---

@test "list: the six tools, each a name, a description and an object schema" {
	run --separate-stderr mc-tool list
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo -c '[.[].name]')" '["read","write","edit","bash","grep","find"]'
	assert_equal "$(jqo '[.[] | select((.description | length) > 40)] | length')" 6
	assert_equal "$(jqo '[.[] | select(.parameters.type == "object" and .parameters.additionalProperties == false)] | length')" 6
	assert_equal "$(jqo -c '.[] | select(.name == "edit") | .parameters.required')" '["path","old_string","new_string"]'
	assert_equal "$(jqo -c '.[] | select(.name == "read") | .parameters.properties.limit')" \
		"$(jqo -c '.[] | select(.name == "read") | .parameters.properties.limit | {type:"integer",description,minimum:1,maximum:2000}')"
	assert_equal "$(jqo '.[] | select(.name == "bash") | .parameters.properties.timeout_s.type')" integer
	assert_equal "$(jqo '.[] | select(.name == "edit") | .parameters.properties.replace_all.type')" boolean
	# Every schema property has a type and a description.
	assert_equal "$(jqo '[.[].parameters.properties[] | select(.type == null or .description == null)] | length')" 0
	assert_equal "${#lines[@]}" 1
}

@test "list --pretty: the same array, indented" {
	run --separate-stderr mc-tool list
	compact=$output
	run --separate-stderr mc-tool list --pretty
	assert_success
	[ "${#lines[@]}" -gt 10 ]
	assert_equal "$(jqo -c .)" "$(printf '%s' "$compact" | jq -c .)"
}

@test "list: tools.disabled tools are absent" {
	settings '{"tools":{"disabled":["bash","write"]}}'
	run --separate-stderr mc-tool list
	assert_success
	assert_equal "$(jqo -c '[.[].name]')" '["read","edit","grep","find"]'
}

@test "invalid settings: exit 1 naming the file and the setting" {
	settings '{"tools":{"disabled":"bash"}}'
	run --separate-stderr mc-tool list
	assert_failure 1
	assert_equal "$output" ""
	assert_equal "$stderr" "mc-tool: $MC_HOME/settings.json: tools.disabled: expected an array of strings"
}

@test "settings warnings go to stderr, unless -q" {
	settings '{"tools":{"disabled":[],"colour":1}}'
	run --separate-stderr mc-tool list
	assert_success
	assert_equal "$stderr" "mc-tool: warning: $MC_HOME/settings.json: unknown setting tools.colour"
	assert_equal "$(jqo length)" 6
	run --separate-stderr mc-tool -q list
	assert_success
	assert_equal "$stderr" ""
}

@test "usage errors: exit 2 before anything runs" {
	for args in "" "frob" "list extra" "list -C ." "list --touched-out f" "call --pretty" "--bogus list" "call --touched-out="; do
		# shellcheck disable=SC2086
		run --separate-stderr mc-tool $args </dev/null
		assert_failure 2
		assert_equal "$output" ""
		assert_regex "$stderr" "^mc-tool: "
	done
	[ ! -e f ]
}

@test "--help and --version" {
	run --separate-stderr mc-tool --help
	assert_success
	assert_line --index 0 "usage: mc-tool [-q] list [--pretty]"
	assert_equal "$stderr" ""
	run --separate-stderr mc-tool --version
	assert_success
	assert_regex "$output" '^mc-tool \(mc\) [0-9]'
}

# --- call: the protocol ---

@test "call: one function_call_output line with the call_id" {
	printf 'x\n' >a.txt
	printf '%s\n' '{"type":"function_call","call_id":"call_9","name":"read","arguments":"{\"path\":\"a.txt\"}","id":"fc_1"}' >item
	run --separate-stderr mc-tool call <item
	assert_success
	assert_equal "$stderr" ""
	assert_equal "${#lines[@]}" 1
	assert_equal "$(jqo -c 'keys')" '["call_id","output","type"]'
	assert_equal "$(jqo .type)" function_call_output
	assert_equal "$(jqo .call_id)" call_9
}

@test "call: arguments given as an object are accepted too" {
	printf 'x\n' >a.txt
	run --separate-stderr mc-tool call <<<'{"type":"function_call","call_id":"c2","name":"read","arguments":{"path":"a.txt"}}'
	assert_success
	assert_equal "$(jqo .output)" "$(printf '     1\tx')"
}

@test "call: stdin that is not a function_call item is exit 1" {
	run --separate-stderr mc-tool call </dev/null
	assert_failure 1
	assert_equal "$output" ""
	assert_equal "$stderr" "mc-tool: stdin: expected a function_call item, got nothing"
	run --separate-stderr mc-tool call <<<'{"type":"function_call",'
	assert_failure 1
	assert_regex "$stderr" '^mc-tool: stdin: invalid JSON at line [0-9]+, column [0-9]+$'
	run --separate-stderr mc-tool call <<<'{"type":"message","role":"user","content":"hi"}'
	assert_failure 1
	assert_equal "$stderr" 'mc-tool: stdin: expected an item of type "function_call"'
	run --separate-stderr mc-tool call <<<'{"type":"function_call","name":"read","arguments":"{}"}'
	assert_failure 1
	assert_equal "$output" ""
	assert_regex "$stderr" 'call_id'
}

@test "call: an unknown tool is exit 1, with an output the model can read" {
	call frobnicate '{}'
	assert_failure 1
	assert_equal "$stderr" "mc-tool: unknown tool: frobnicate"
	assert_equal "$out" 'error: there is no tool named "frobnicate"; the tools are: read, write, edit, bash, grep, find'
}

@test "call: a disabled tool is refused at dispatch, exit 1, nothing run" {
	settings '{"tools":{"disabled":["write","bash"]}}'
	call write '{"path":"new.txt","content":"x"}'
	assert_failure 1
	assert_equal "$stderr" "mc-tool: tool disabled by tools.disabled in $MC_HOME/settings.json: write"
	assert_equal "$out" 'error: the write tool is disabled in this session; the tools are: read, edit, grep, find'
	[ ! -e new.txt ]
	call bash '{"command":"touch ran"}'
	assert_failure 1
	[ ! -e ran ]
	call read '{"path":"nothing"}'
	assert_success
}

@test "call: bad arguments are exit 0 with an output explaining the problem" {
	call read '{"path":'
	assert_success
	assert_equal "$stderr" ""
	assert_regex "$out" '^error: the arguments of this read call are not valid JSON \(invalid JSON at line 1, column [0-9]+\); send one JSON object, e\.g\. \{"path":\.\.\.\}$'
	call read '["a"]'
	assert_success
	assert_equal "$out" "error: the arguments of this read call must be a JSON object"
	call read '{}'
	assert_success
	assert_equal "$out" 'error: read needs the argument "path"'
	call read ''
	assert_success
	assert_equal "$out" 'error: read needs the argument "path"'
	call read '{"path":3}'
	assert_equal "$out" 'error: read: argument "path" must be a string'
	call read '{"path":"a","limit":0}'
	assert_equal "$out" 'error: read: argument "limit" must be an integer from 1 to 2000'
	call read '{"path":"a","offset":1.5}'
	assert_equal "$out" 'error: read: argument "offset" must be an integer of at least 1'
	call edit '{"path":"a","old_string":"x","new_string":"y","replace_all":"yes"}'
	assert_equal "$out" 'error: edit: argument "replace_all" must be true or false'
	call read '{"file_path":"a"}'
	assert_success
	assert_equal "$out" 'error: read has no argument "file_path"; its arguments are path, offset, limit'
}

@test "call: optional arguments given as null count as absent" {
	printf 'one\n' >a.txt
	call read '{"path":"a.txt","offset":null,"limit":null}'
	assert_success
	assert_equal "$out" "$(printf '     1\tone')"
}

@test "call -C DIR: the call runs in DIR; a missing DIR is exit 1" {
	mkdir -p sub
	printf 'in sub\n' >sub/f
	call read '{"path":"f"}' -C sub
	assert_success
	assert_equal "$out" "$(printf '     1\tin sub')"
	call write '{"path":"g","content":"x"}' -C sub --touched-out touched
	assert_success
	assert_equal "$(cat touched)" "g"
	[ -f sub/g ] && [ ! -e sub/touched ]
	call bash '{"command":"pwd"}' -C sub
	assert_equal "$out" "$(printf '%s\n[exit status 0]' "$(cd sub && pwd -P)")"
	call read '{"path":"f"}' -C nowhere
	assert_failure 1
	assert_equal "$output" ""
	assert_equal "$stderr" "mc-tool: nowhere: No such file or directory"
}

# --- read ---

@test "read: numbered lines" {
	printf 'alpha\n\tbeta\n\ngamma' >a.txt
	call read '{"path":"a.txt"}'
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$out" "$(printf '     1\talpha\n     2\t\tbeta\n     3\t\n     4\tgamma')"
}

@test "read: offset and limit, with a note saying how to read on" {
	seq 1 10 >n.txt
	call read '{"path":"n.txt","offset":3,"limit":2}'
	assert_success
	assert_equal "$out" "$(printf '     3\t3\n     4\t4\n\n[Showing lines 3-4 of 10. To read on, call read with offset=5.]')"
	call read '{"path":"n.txt","offset":9}'
	assert_equal "$out" "$(printf '     9\t9\n    10\t10')"
	call read '{"path":"n.txt","offset":11}'
	assert_success
	assert_equal "$out" "error: offset 11 is past the end of n.txt, which has 10 lines"
}

@test "read: at most 2000 lines per call" {
	seq 1 2500 >n.txt
	call read '{"path":"n.txt"}'
	assert_success
	assert_equal "$(printf '%s\n' "$out" | grep -c '^ *[0-9]*	')" 2000
	assert_equal "$(printf '%s\n' "$out" | tail -n 1)" "[Showing lines 1-2000 of 2500. To read on, call read with offset=2001.]"
	call read '{"path":"n.txt","offset":2001}'
	assert_equal "$(printf '%s\n' "$out" | head -n 1)" "$(printf '  2001\t2001')"
	assert_equal "$(printf '%s\n' "$out" | tail -n 1)" "$(printf '  2500\t2500')"
}

@test "read: a page never exceeds the output cap, and paging loses no line" {
	# 3000 lines of 100 bytes: more than the 64 KiB output cap holds.
	awk 'BEGIN { for (i = 1; i <= 3000; i++) printf "%05d%095d\n", i, 0 }' >wide.txt
	call read '{"path":"wide.txt"}'
	assert_success
	[ "$(printf '%s' "$out" | wc -c)" -le 65536 ]
	refute_regex "$out" 'bytes cut'
	last=$(printf '%s\n' "$out" | grep '^ *[0-9]*	' | tail -n 1 | cut -f 1 | tr -d ' ')
	[ "$last" -gt 100 ] && [ "$last" -lt 2000 ]
	assert_regex "$out" "To read on, call read with offset=$((last + 1))\.\]$"
	call read "{\"path\":\"wide.txt\",\"offset\":$((last + 1)),\"limit\":1}"
	assert_equal "$(printf '%s' "$out" | head -n 1 | cut -f 2 | cut -c 1-5)" "$(printf '%05d' $((last + 1)))"
}

@test "read: a very long line is shown cut, with a marker" {
	awk 'BEGIN { for (i = 0; i < 10000; i++) printf "x"; printf "\nnext\n" }' >long.txt
	call read '{"path":"long.txt"}'
	assert_success
	assert_equal "$(printf '%s\n' "$out" | head -n 1 | grep -o 'x' | wc -l)" 8192
	assert_regex "$(printf '%s\n' "$out" | head -n 1)" 'x \[\.\.\. line cut: 1808 more bytes\]$'
	assert_equal "$(printf '%s\n' "$out" | sed -n 2p)" "$(printf '     2\tnext')"
}

@test "read: missing file, directory, FIFO, empty file are outputs, not failures" {
	call read '{"path":"nope.c"}'
	assert_success
	assert_equal "$out" "error: nope.c: No such file or directory"
	mkdir d
	call read '{"path":"d"}'
	assert_success
	assert_equal "$out" "error: d is a directory; use find to list the files in it"
	mkfifo fifo
	call read '{"path":"fifo"}'
	assert_success
	assert_equal "$out" "error: fifo is not a regular file"
	: >empty
	call read '{"path":"empty"}'
	assert_success
	assert_equal "$out" "(empty is empty)"
}

@test "read: a binary file is reported, not shown" {
	printf 'ELF\000\001\002binary' >prog
	call read '{"path":"prog"}'
	assert_success
	assert_equal "$out" "prog is a binary file (12 bytes); not shown. Use bash (e.g. file, xxd or od) to inspect it."
}

@test "read: invalid UTF-8 becomes U+FFFD, with a note; the output stays valid JSON" {
	printf 'caf\351 ok\n\303\251t\303\251\n' >latin.txt
	call read '{"path":"latin.txt"}'
	assert_success
	printf '%s' "$output" | iconv -f UTF-8 -t UTF-8 >/dev/null
	assert_equal "$(printf '%s\n' "$out" | head -n 2)" "$(printf '     1\tcaf\357\277\275 ok\n     2\t\303\251t\303\251')"
	assert_regex "$out" 'latin.txt is not valid UTF-8; invalid bytes are shown as U\+FFFD'
}

@test "read: a file outside the working directory can be read" {
	o=$(outside)
	printf 'far\n' >"$o/far.txt"
	call read "{\"path\":\"$o/far.txt\"}"
	assert_success
	assert_equal "$out" "$(printf '     1\tfar')"
}

@test "read --touched-out: paths inside the working directory, relative" {
	mkdir -p src
	printf 'x\n' >src/a.c
	o=$(outside)
	printf 'y\n' >"$o/b.c"
	call read '{"path":"src/a.c"}' --touched-out "$BATS_TEST_TMPDIR/touched"
	assert_success
	assert_equal "$(cat "$BATS_TEST_TMPDIR/touched")" "src/a.c"
	call read "{\"path\":\"$W/src/../src/a.c\"}" --touched-out "$BATS_TEST_TMPDIR/touched"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/touched")" "src/a.c"
	call read "{\"path\":\"$o/b.c\"}" --touched-out "$BATS_TEST_TMPDIR/touched"
	assert_success
	[ -f "$BATS_TEST_TMPDIR/touched" ] && [ ! -s "$BATS_TEST_TMPDIR/touched" ]
	call read '{"path":"missing.c"}' --touched-out "$BATS_TEST_TMPDIR/touched"
	[ ! -s "$BATS_TEST_TMPDIR/touched" ]
	call read '{"path":"src/a.c"}' --touched-out "$BATS_TEST_TMPDIR/no/such/dir/t"
	assert_failure 1
	assert_equal "$output" ""
	assert_regex "$stderr" "^mc-tool: .*/no/such/dir/t: No such file or directory$"
}

# needs mc-skills
@test "read skill://: the skill's files through the real mc-skills" {
	mkdir -p .agents/skills/demo/refs
	printf -- '---\nname: demo\ndescription: A demo skill.\n---\nStep one.\nStep two.\n' >.agents/skills/demo/SKILL.md
	printf 'reference text\n' >.agents/skills/demo/refs/notes.md
	call read '{"path":"skill://demo"}'
	assert_success
	assert_equal "$out" "$(printf '     1\t---\n     2\tname: demo\n     3\tdescription: A demo skill.\n     4\t---\n     5\tStep one.\n     6\tStep two.')"
	call read '{"path":"skill://demo/refs/notes.md"}'
	assert_equal "$out" "$(printf '     1\treference text')"
	call read '{"path":"skill://demo/../../../etc/passwd"}'
	assert_success
	assert_regex "$out" '^error: cannot read skill://demo/\.\./\.\./\.\./etc/passwd: mc-skills: '
	call read '{"path":"skill://nosuch"}'
	assert_success
	assert_regex "$out" '^error: cannot read skill://nosuch: mc-skills: '
}

# A copy of mc-tool in a directory of its own, so no mc-skills sits beside it.
lone_tool() {
	# Under make valgrind $MC_BIN holds wrappers, and a copied wrapper
	# still runs the mc-tool that has mc-skills beside it.
	[ -z "${MC_VALGRIND:-}" ] || skip "needs a copy of the binary itself (make check runs it)"
	mkdir -p "$BATS_TEST_TMPDIR/lone" "$BATS_TEST_TMPDIR/fakebin"
	cp "$MC_BIN/mc-tool" "$BATS_TEST_TMPDIR/lone/mc-tool"
}

fake_skills() { # DIR TEXT: an mc-skills that logs its arguments and prints TEXT
	cat >"$1/mc-skills" <<-EOF
		#!/bin/sh
		printf '%s\n' "\$*" >>"$BATS_TEST_TMPDIR/skills.log"
		[ -t 0 ] || cat >/dev/null
		printf '$2\n'
	EOF
	chmod +x "$1/mc-skills"
}

@test "read skill://: mc-skills runs from PATH when none is beside mc-tool" {
	lone_tool
	fake_skills "$BATS_TEST_TMPDIR/fakebin" "from path"
	printf '%s\n' '{"type":"function_call","call_id":"c1","name":"read","arguments":"{\"path\":\"skill://demo/a b.md\"}"}' >item
	PATH="$BATS_TEST_TMPDIR/fakebin:/usr/bin:/bin" run --separate-stderr "$BATS_TEST_TMPDIR/lone/mc-tool" call <item
	assert_success
	assert_equal "$(jqo .output)" "$(printf '     1\tfrom path')"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/skills.log")" "read skill://demo/a b.md"
}

@test "read skill://: mc-skills beside mc-tool wins over PATH" {
	lone_tool
	fake_skills "$BATS_TEST_TMPDIR/fakebin" "from path"
	fake_skills "$BATS_TEST_TMPDIR/lone" "beside"
	printf '%s\n' '{"type":"function_call","call_id":"c1","name":"read","arguments":"{\"path\":\"skill://demo\"}"}' >item
	PATH="$BATS_TEST_TMPDIR/fakebin:/usr/bin:/bin" run --separate-stderr "$BATS_TEST_TMPDIR/lone/mc-tool" call <item
	assert_success
	assert_equal "$(jqo .output)" "$(printf '     1\tbeside')"
}

@test "read skill://: mc-skills runs as a plain filter, not under the bash supervisor" {
	lone_tool
	cat >"$BATS_TEST_TMPDIR/lone/mc-skills" <<-'EOF'
		#!/bin/sh
		# The supervisor gives a command a session of its own.
		me=$(ps -o sid= -p $$) parent=$(ps -o sid= -p $PPID)
		[ "$me" = "$parent" ] && echo "same session" || echo "own session"
	EOF
	chmod +x "$BATS_TEST_TMPDIR/lone/mc-skills"
	printf '%s\n' '{"type":"function_call","call_id":"c1","name":"read","arguments":"{\"path\":\"skill://demo\"}"}' >item
	run --separate-stderr "$BATS_TEST_TMPDIR/lone/mc-tool" call <item
	assert_success
	assert_equal "$(jqo .output)" "$(printf '     1\tsame session')"
}

@test "read skill://: mc-skills failing or missing is an output" {
	lone_tool
	cat >"$BATS_TEST_TMPDIR/fakebin/mc-skills" <<-'EOF'
		#!/bin/sh
		echo "mc-skills: skill://gone: unknown skill" >&2
		exit 1
	EOF
	chmod +x "$BATS_TEST_TMPDIR/fakebin/mc-skills"
	printf '%s\n' '{"type":"function_call","call_id":"c1","name":"read","arguments":"{\"path\":\"skill://gone\"}"}' >item
	PATH="$BATS_TEST_TMPDIR/fakebin:/usr/bin:/bin" run --separate-stderr "$BATS_TEST_TMPDIR/lone/mc-tool" call <item
	assert_success
	assert_equal "$(jqo .output)" "error: cannot read skill://gone: mc-skills: skill://gone: unknown skill"
	rm "$BATS_TEST_TMPDIR/fakebin/mc-skills"
	PATH="$BATS_TEST_TMPDIR/fakebin:/usr/bin:/bin" run --separate-stderr "$BATS_TEST_TMPDIR/lone/mc-tool" call <item
	assert_success
	assert_equal "$(jqo .output)" "error: cannot read skill://gone: mc-skills is not installed (not beside mc-tool nor on PATH)"
}

# --- write ---

@test "write: creates the file and its parent directories" {
	call write '{"path":"a/b/c.txt","content":"one\ntwo\n"}' --touched-out "$BATS_TEST_TMPDIR/touched"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$out" "Created a/b/c.txt: 8 bytes, 2 lines"
	assert_equal "$(cat a/b/c.txt)" "$(printf 'one\ntwo')"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/touched")" "a/b/c.txt"
}

@test "write: replaces a file atomically, keeping its mode; no temp file is left" {
	printf 'old\n' >run.sh
	chmod 751 run.sh
	ino=$(stat -c %i run.sh)
	call write '{"path":"run.sh","content":"new"}'
	assert_success
	assert_equal "$out" "Wrote run.sh: 3 bytes, 1 line"
	assert_equal "$(cat run.sh)" "new"
	assert_equal "$(stat -c %a run.sh)" 751
	# A new inode: the content was renamed into place, not written over.
	[ "$(stat -c %i run.sh)" != "$ino" ]
	assert_equal "$(ls -A)" "run.sh"
}

@test "write: a new file's mode follows the umask" {
	umask 027
	call write '{"path":"f","content":""}'
	assert_success
	assert_equal "$out" "Created f: 0 bytes, 0 lines"
	assert_equal "$(stat -c %a f)" 640
}

@test "write: no escape through .., absolute paths or symbolic links" {
	o=$(outside)
	mkdir -p sub
	ln -s "$o" out
	printf 'keep\n' >"$o/target"
	ln -s "$o/target" link-out
	ln -s "$o/missing" dangling
	for args in \
		'{"path":"../escape.txt","content":"x"}' \
		'{"path":"sub/../../escape.txt","content":"x"}' \
		"{\"path\":\"$o/escape.txt\",\"content\":\"x\"}" \
		'{"path":"out/escape.txt","content":"x"}' \
		'{"path":"out/new/escape.txt","content":"x"}' \
		'{"path":"link-out","content":"x"}' \
		'{"path":"dangling","content":"x"}'; do
		call write "$args"
		assert_success
		assert_regex "$out" '^error: '
	done
	assert_equal "$(ls -A "$o")" "target"
	assert_equal "$(cat "$o/target")" "keep"
	[ -L link-out ] && [ -L dangling ] && [ ! -e ../escape.txt ]
	call write '{"path":"../escape.txt","content":"x"}'
	assert_equal "$out" "error: ../escape.txt: \"..\" leads outside the working directory $(pwd -P)"
	call write '{"path":"out/escape.txt","content":"x"}'
	assert_equal "$out" "error: out/escape.txt: symbolic link leads outside the working directory $(pwd -P)"
	call write "{\"path\":\"$o/escape.txt\",\"content\":\"x\"}"
	assert_equal "$out" "error: $o/escape.txt: outside the working directory $(pwd -P)"
}

@test "write: a path refused part-way creates no directory on the way" {
	o=$(outside)
	ln -s "$o" out
	for args in \
		'{"path":"new/../../escape.txt","content":"x"}' \
		'{"path":"a/b/../../../outside/escape.txt","content":"x"}' \
		'{"path":"new/../out/deeper/escape.txt","content":"x"}'; do
		call write "$args"
		assert_success
		assert_regex "$out" '^error: .*outside the working directory'
	done
	assert_equal "$(ls -A)" out
	assert_equal "$(ls -A "$o")" ""
	# A missing directory left again by ".." is not needed, so not made.
	call write '{"path":"gone/../in.txt","content":"1"}'
	assert_success
	assert_equal "$(ls -A)" "$(printf 'in.txt\nout')"
}

@test "write: paths that stay inside are fine, also through .. and inner links" {
	mkdir -p sub real
	ln -s real alias
	printf 'old\n' >real/t.txt
	ln -s real/t.txt t-link
	call write '{"path":"sub/../in.txt","content":"1"}'
	assert_success
	assert_equal "$(cat in.txt)" 1
	call write "{\"path\":\"$W/abs.txt\",\"content\":\"2\"}"
	assert_success
	assert_equal "$(cat abs.txt)" 2
	ln -s "$W" "$BATS_TEST_TMPDIR/wlink"
	call write "{\"path\":\"$BATS_TEST_TMPDIR/wlink/via.txt\",\"content\":\"5\"}"
	assert_success
	assert_equal "$(cat via.txt)" 5
	call write '{"path":"alias/x.txt","content":"3"}'
	assert_success
	assert_equal "$(cat real/x.txt)" 3
	# A final link inside: its target is written, the link stays.
	call write '{"path":"t-link","content":"4"}' --touched-out "$BATS_TEST_TMPDIR/touched"
	assert_success
	[ -L t-link ]
	assert_equal "$(cat real/t.txt)" 4
	assert_equal "$(cat "$BATS_TEST_TMPDIR/touched")" "real/t.txt"
}

@test "write: a directory or a file in the way is an output" {
	mkdir d
	printf 'x' >file
	call write '{"path":"d","content":"x"}'
	assert_success
	assert_equal "$out" "error: d: is a directory"
	call write '{"path":"file/x","content":"x"}'
	assert_equal "$out" "error: file/x: file is not a directory"
	call write '{"path":"d/","content":"x"}'
	assert_equal "$out" "error: d/: names a directory, not a file"
}

# --- edit ---

@test "edit: replaces the one occurrence, keeping the mode" {
	printf 'int a = 1;\nint b = 2;\n' >x.c
	chmod 600 x.c
	call edit '{"path":"x.c","old_string":"b = 2","new_string":"b = 3"}' --touched-out "$BATS_TEST_TMPDIR/touched"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$out" "Edited x.c: replaced 1 occurrence (line 2)"
	assert_equal "$(cat x.c)" "$(printf 'int a = 1;\nint b = 3;')"
	assert_equal "$(stat -c %a x.c)" 600
	assert_equal "$(cat "$BATS_TEST_TMPDIR/touched")" "x.c"
	assert_equal "$(ls -A)" "x.c"
}

@test "edit: several occurrences need replace_all" {
	printf 'x\ny\nx\nx\n' >f
	call edit '{"path":"f","old_string":"x","new_string":"z"}'
	assert_success
	assert_equal "$out" "error: old_string occurs 3 times in f (lines 1, 3, 4). Include more surrounding lines to make it unique, or set replace_all to true to replace every occurrence."
	assert_equal "$(cat f)" "$(printf 'x\ny\nx\nx')"
	call edit '{"path":"f","old_string":"x","new_string":"z","replace_all":true}'
	assert_success
	assert_equal "$out" "Edited f: replaced 3 occurrences (lines 1, 3, 4)"
	assert_equal "$(cat f)" "$(printf 'z\ny\nz\nz')"
}

@test "edit: not found, empty or unchanged old_string, missing file, binary file" {
	printf 'hello\r\nworld\r\n' >crlf
	call edit '{"path":"crlf","old_string":"hello\nworld","new_string":"x"}'
	assert_success
	assert_equal "$out" "error: old_string was not found in crlf. It must match the file exactly, including whitespace and indentation; read the file again and copy the text. Note: the file has CRLF line endings."
	call edit '{"path":"crlf","old_string":"","new_string":"x"}'
	assert_equal "$out" "error: old_string is empty; to create a file or replace all of it, use write"
	call edit '{"path":"crlf","old_string":"hello","new_string":"hello"}'
	assert_equal "$out" "error: old_string and new_string are the same; nothing to change"
	call edit '{"path":"gone.c","old_string":"a","new_string":"b"}'
	assert_success
	assert_equal "$out" "error: gone.c: No such file or directory"
	printf 'a\000b' >bin
	call edit '{"path":"bin","old_string":"a","new_string":"b"}'
	assert_equal "$out" "error: bin is a binary file; edit changes text files only"
	assert_equal "$(od -An -c bin | tr -d ' ')" 'a\0b'
}

@test "edit: no escape through .., absolute paths or symbolic links" {
	o=$(outside)
	printf 'secret\n' >"$o/t"
	ln -s "$o" out
	ln -s "$o/t" t-link
	for args in \
		'{"path":"../outside/t","old_string":"secret","new_string":"x"}' \
		"{\"path\":\"$o/t\",\"old_string\":\"secret\",\"new_string\":\"x\"}" \
		'{"path":"out/t","old_string":"secret","new_string":"x"}' \
		'{"path":"t-link","old_string":"secret","new_string":"x"}'; do
		call edit "$args"
		assert_success
		assert_regex "$out" '^error: .*outside the working directory'
	done
	assert_equal "$(cat "$o/t")" secret
}

# --- bash ---

@test "bash: stdout and stderr merged, exit status reported" {
	call bash '{"command":"echo out; echo err >&2; exit 3"}'
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$out" "$(printf 'out\nerr\n[exit status 3]')"
	call bash '{"command":"printf no-newline"}'
	assert_equal "$out" "$(printf 'no-newline\n[exit status 0]')"
	call bash '{"command":"true"}'
	assert_equal "$out" "$(printf '(no output)\n[exit status 0]')"
	call bash '{"command":"kill -9 $$"}'
	assert_equal "$out" "$(printf '(no output)\n[killed by signal 9 (Killed)]')"
}

@test "bash: stdin is empty and signals are reset for the command" {
	call bash '{"command":"cat; echo end"}'
	assert_success
	assert_equal "$out" "$(printf 'end\n[exit status 0]')"
	# An ignored SIGPIPE would make yes report a write error.
	call bash '{"command":"yes | head -n 2"}'
	assert_equal "$out" "$(printf 'y\ny\n[exit status 0]')"
	# SIGINT, SIGQUIT and SIGPIPE (mask 0x1006) are not ignored in the
	# command, even when mc-tool itself was started with them ignored.
	jq -cn '{type:"function_call",call_id:"c1",name:"bash",arguments:({command:"grep ^SigIgn: /proc/self/status"} | tojson)}' >item
	run --separate-stderr sh -c "trap '' INT QUIT PIPE; exec mc-tool call <item"
	assert_success
	mask=$(jqo .output | sed -n 's/^SigIgn:\t//p')
	[ -n "$mask" ]
	assert_equal "$(( 0x$mask & 0x1006 ))" 0
}

@test "bash: the command has no controlling terminal, even when mc-tool has one" {
	command -v script >/dev/null || skip "script(1) is not installed"
	jq -cn '{type:"function_call",call_id:"c1",name:"bash",arguments:({command:"(: </dev/tty) 2>/dev/null && echo has-tty || echo no-tty"} | tojson)}' >item
	# The check itself: under script(1) a shell does have one.
	run script -qec "sh -c '(: </dev/tty) 2>/dev/null && echo has-tty'" /dev/null
	assert_output --partial has-tty
	run script -qec "mc-tool call <item >result" /dev/null
	assert_success
	assert_equal "$(jq -r .output result)" "$(printf 'no-tty\n[exit status 0]')"
}

# The pids a sandboxed command sees are its PID namespace's, not ours:
# tests that look for them from outside run it unsandboxed (t/66 checks
# the same inside the sandbox).
unsandboxed() {
	settings '{"tools":{"sandbox":{"mode":"off"}}}'
}

@test "bash: the timeout kills the whole process tree" {
	unsandboxed
	call bash '{"command":"sh -c '\''sleep 1000 & echo $! > grandchild; trap \"\" TERM; sleep 1000 & echo $! > stubborn; wait'\'' & echo started; wait","timeout_s":1}'
	assert_success
	assert_equal "$out" "$(printf 'started\n[timed out after 1 s: the command and every process it started were killed]')"
	g=$(cat grandchild) s=$(cat stubborn)
	run kill -0 "$g"
	assert_failure
	run kill -0 "$s"
	assert_failure
}

@test "bash: background processes left when the command ends are stopped" {
	unsandboxed
	call bash '{"command":"sleep 1000 & echo $! > bg; echo done","timeout_s":100}'
	assert_success
	assert_equal "$out" "$(printf 'done\n[exit status 0]\n[processes still running in the background when the command ended were stopped]')"
	run kill -0 "$(cat bg)"
	assert_failure
}

# gone PIDFILE...: none of the processes named in the files is still
# running; survivors are killed, so that a failure leaves nothing behind.
gone() {
	local f pid ok=0
	for f; do
		pid=$(cat "$f") || return 1
		if kill -0 "$pid" 2>/dev/null; then
			kill -9 "$pid"
			echo "process $pid ($f) survived" >&2
			ok=1
		fi
	done
	return "$ok"
}

@test "bash: the timeout also kills processes that left the session" {
	unsandboxed
	# One escapes while its parent, the command, lives on; one is orphaned
	# at once by a double fork. Both hold the output pipe open.
	bashitem 'setsid sleep 300 & echo $! > p1
sh -c '\''setsid sleep 300 & echo $! > p2'\''
echo started; sleep 300' 1
	run --separate-stderr timeout 60 mc-tool call <item
	assert_success
	assert_equal "$(jqo -j .output)" "$(printf 'started\n[timed out after 1 s: the command and every process it started were killed]')"
	gone p1 p2
}

@test "bash: processes that left the session are stopped when the command ends, and theirs" {
	unsandboxed
	# setsid -f forks: the new session's shell is orphaned at once and
	# its child is orphaned only when that shell dies.
	bashitem 'setsid -f sh -c '\''echo $$ > p1; sleep 300 & echo $! > p2.new; mv p2.new p2; wait'\''
setsid sh -c '\''trap "" TERM; sleep 300 & echo $! > p4.new; mv p4.new p4; wait'\'' & echo $! > p3
while [ ! -e p2 ] || [ ! -e p4 ]; do sleep 0.01; done
echo done' 100
	run --separate-stderr timeout 60 mc-tool call <item
	gone p1 p2 p3 p4
	assert_success
	assert_equal "$(jqo -j .output)" "$(printf 'done\n[exit status 0]\n[processes still running in the background when the command ended were stopped]')"
}

@test "bash: children mc-tool had before the command are left alone" {
	bashitem 'echo hi' 100
	# exec keeps the shell's child, which becomes mc-tool's.
	run --separate-stderr timeout 60 sh -c 'sleep 300 >/dev/null 2>&1 & echo $! > inherited; exec mc-tool call <item'
	alive=0
	kill -0 "$(cat inherited)" && alive=1
	kill "$(cat inherited)" || true
	assert_success
	assert_equal "$(jqo -j .output)" "$(printf 'hi\n[exit status 0]')"
	assert_equal "$alive" 1
}

@test "bash: SIGINT to mc-tool kills the command's group and exits 130" {
	unsandboxed
	jq -cn '{type:"function_call",call_id:"c1",name:"bash",arguments:({command:"echo begun; sleep 1000 & echo $! > bg; wait"} | tojson)}' >item
	mc-tool call <item >result 2>err &
	tool=$!
	tries=0
	while [ ! -s bg ] && [ $((tries += 1)) -lt 2000 ]; do sleep 0.05; done
	[ -s bg ]
	kill -INT "$tool"
	status=0
	wait "$tool" || status=$?
	assert_equal "$status" 130
	assert_equal "$(jq -r .output result)" "$(printf 'begun\n[interrupted by the user: the command and every process it started were killed]')"
	run kill -0 "$(cat bg)"
	assert_failure
}

@test "bash: a command over the argument size limit is an output" {
	# valgrind runs exec itself and fails it its own way (status 101)
	[ -z "${MC_VALGRIND:-}" ] || skip "valgrind's exec does not report E2BIG (make check runs it)"
	jq -cn --rawfile big <(head -c 300000 /dev/zero | tr '\0' x) \
		'{type:"function_call",call_id:"c1",name:"bash",arguments:({command:("echo " + $big)} | tojson)}' >item
	run --separate-stderr mc-tool call <item
	assert_success
	assert_equal "$(jqo .output)" "error: the command is 300005 bytes, over the system's limit for one argument; use write to put long text or a script in a file, then run that"
}

@test "bash: timeout_s must be a positive integer" {
	call bash '{"command":"touch ran","timeout_s":0}'
	assert_success
	assert_equal "$out" 'error: bash: argument "timeout_s" must be an integer from 1 to 3600'
	[ ! -e ran ]
}

@test "bash: output over 64 KiB keeps its head and tail, with a marker" {
	call bash '{"command":"seq 1 100000"}'
	assert_success
	bytes=$(printf '%s' "$out" | wc -c)
	[ "$bytes" -le 65536 ] && [ "$bytes" -gt 60000 ]
	assert_equal "$(printf '%s\n' "$out" | head -n 3)" "$(printf '1\n2\n3')"
	assert_equal "$(printf '%s\n' "$out" | tail -n 2)" "$(printf '100000\n[exit status 0]')"
	assert_regex "$out" $'\n\\[\\.\\.\\. [0-9]+ bytes cut from the middle of this output \\.\\.\\.\\]\n'
	# Whole lines on both sides of the marker.
	before=$(printf '%s\n' "$out" | grep -B1 'bytes cut' | head -n 1)
	after=$(printf '%s\n' "$out" | grep -A1 'bytes cut' | tail -n 1)
	[ "$after" -gt "$before" ]
	# The marker counts exactly the bytes left out.
	cut=$(printf '%s\n' "$out" | sed -n 's/^\[\.\.\. \([0-9]*\) bytes cut.*/\1/p')
	kept=$(printf '%s\n' "$out" | grep -v 'bytes cut' | grep -v '^\[exit' | wc -c)
	assert_equal "$((cut + kept))" "$(seq 1 100000 | wc -c)"
}

@test "bash: invalid UTF-8 and NUL in the output become U+FFFD" {
	call bash '{"command":"printf \"a\\377b\\000c\\303\""}'
	assert_success
	printf '%s' "$output" | iconv -f UTF-8 -t UTF-8 >/dev/null
	assert_equal "$out" "$(printf 'a\357\277\275b\357\277\275c\357\277\275\n[exit status 0]')"
}

# --- grep ---

@test "grep: matching lines as path:line:text" {
	mkdir -p src/deep
	printf 'int main;\nfoo bar\n' >src/a.c
	printf 'foo in h\n' >src/deep/b.h
	mkdir -p .git .github
	printf 'foo in git\n' >.git/config
	printf 'foo hidden\n' >.github/ci.yml
	call grep '{"pattern":"fo+ ba"}'
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$out" "src/a.c:2:foo bar"
	call grep '{"pattern":"foo"}'
	assert_equal "$(printf '%s\n' "$out" | sort)" "$(printf '.github/ci.yml:1:foo hidden\nsrc/a.c:2:foo bar\nsrc/deep/b.h:1:foo in h')"
	call grep '{"pattern":"foo","glob":"*.h"}'
	assert_equal "$out" "src/deep/b.h:1:foo in h"
	call grep '{"pattern":"main","path":"src/a.c"}'
	assert_equal "$out" "src/a.c:1:int main;"
	call grep '{"pattern":"-v"}'
	assert_success
	assert_equal "$out" "No matches for -v"
	call grep '{"pattern":"zzz","path":"src","glob":"*.c"}'
	assert_equal "$out" "No matches for zzz in src (files matching *.c)"
}

@test "grep: a bad pattern or path is an output" {
	printf 'x\n' >f
	call grep '{"pattern":"a(b"}'
	assert_success
	assert_regex "$out" '^error: (grep|rg): '
	call grep '{"pattern":"x","path":"nope"}'
	assert_success
	assert_regex "$out" '^error: .*nope'
}

@test "grep: ripgrep is used when present" {
	mkdir -p "$BATS_TEST_TMPDIR/fakebin"
	cat >"$BATS_TEST_TMPDIR/fakebin/rg" <<-'EOF'
		#!/bin/sh
		printf '%s|' "$@"
		echo
	EOF
	chmod +x "$BATS_TEST_TMPDIR/fakebin/rg"
	PATH="$BATS_TEST_TMPDIR/fakebin:$PATH" call grep '{"pattern":"p","path":"src","glob":"*.c"}'
	assert_success
	assert_equal "$out" "--line-number|--no-heading|--with-filename|--color=never|--sort=path|--hidden|--glob=!.git|--glob|*.c|-e|p|--|src|"
}

# --- find ---

@test "find: names at any depth, sorted, directories marked" {
	mkdir -p src/b src/a .git/objects
	touch src/b/z.c src/a/y.c top.c src/a/y.h .git/objects/o.c
	mkdir x.c
	call find '{"glob":"*.c"}'
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$out" "$(printf 'src/a/y.c\nsrc/b/z.c\ntop.c\nx.c/')"
	call find '{"glob":"*.c","path":"src"}'
	assert_equal "$out" "$(printf 'src/a/y.c\nsrc/b/z.c')"
}

@test "find: a glob with a slash matches the path; ** spans directories" {
	mkdir -p src/a/b
	touch src/top.h src/a/one.h src/a/b/two.h src/a/b/two.c
	call find '{"glob":"src/**/*.h"}'
	assert_success
	assert_equal "$out" "$(printf 'src/a/b/two.h\nsrc/a/one.h\nsrc/top.h')"
	call find '{"glob":"src/*/*.h"}'
	assert_equal "$out" "src/a/one.h"
	call find '{"glob":"**/b/*"}'
	assert_equal "$out" "$(printf 'src/a/b/two.c\nsrc/a/b/two.h')"
	call find '{"glob":"a/**","path":"src"}'
	assert_equal "$out" "$(printf 'src/a/b/\nsrc/a/b/two.c\nsrc/a/b/two.h\nsrc/a/one.h')"
}

@test "find: symbolic links to directories are listed, not entered" {
	o=$(outside)
	touch "$o/far.c"
	ln -s "$o" linked
	touch near.c
	call find '{"glob":"*"}'
	assert_success
	assert_equal "$out" "$(printf 'linked\nnear.c')"
}

@test "find: no match and a bad path are outputs" {
	call find '{"glob":"*.zig"}'
	assert_success
	assert_equal "$out" "No paths match *.zig under ."
	call find '{"glob":"*","path":"nope"}'
	assert_success
	assert_equal "$out" "error: nope: No such file or directory"
	touch f
	call find '{"glob":"*","path":"f"}'
	assert_equal "$out" "error: f is not a directory"
}

# --- defects found in review ---

@test "write and edit refuse a NUL character instead of cutting the content at it" {
	call write '{"path":"n.txt","content":"abc\u0000def"}'
	assert_success
	assert_equal "$out" 'error: the arguments of this write call hold a NUL character (\u0000); no path, pattern or text may contain one'
	[ ! -e n.txt ]
	printf 'abc\n' > e.txt
	call edit '{"path":"e.txt","old_string":"abc","new_string":"x\u0000y"}'
	assert_success
	assert_equal "$(cat e.txt)" abc
}

@test "a raw \\u0000 in the item on stdin is refused" {
	printf '{"type":"function_call","call_id":"c1","name":"write","arguments":{"path":"n.txt","content":"a\\u0000b"}}' > item
	run --separate-stderr mc-tool call < item
	assert_failure 1
	assert_equal "$stderr" 'mc-tool: stdin: a string holds a NUL character (\u0000) at line 1, column 95'
	[ ! -e n.txt ]
}

@test "C1 control characters in a tool name never reach stderr raw" {
	jq -cn '{type:"function_call",call_id:"c1",name:"x\u009b2J\u001b[31m",arguments:"{}"}' > item
	run --separate-stderr mc-tool call < item
	assert_failure 1
	[[ "$stderr" != *$'\302\233'* ]]
	[[ "$stderr" != *$'\033'* ]]
	[[ "$stderr" == *'x?2J^[[31m'* ]]
}

@test "the commands a tool runs never see a provider's key" {
	settings '{"providers":{"mine":{"base_url":"http://127.0.0.1:9/v1","api":"chat","api_key_env":"MY_KEY"}}}'
	OPENAI_API_KEY=sk-test-openai OPENROUTER_API_KEY=sk-test-router MY_KEY=sk-test-mine KEEP=visible \
		call bash '{"command":"env"}'
	assert_success
	[[ "$out" != *sk-test* ]]
	[[ "$out" == *KEEP=visible* ]]
}

# --- the tool environment (SPEC 14) ---

@test "bash: the tool environment leaves out secrets by the default globs, adds tools.env.set" {
	settings '{"tools":{"env":{"set":{"MC_SET":"from settings","KEEP":"replaced"}}}}'
	GITHUB_TOKEN=xyzzy-gh AWS_SECRET_ACCESS_KEY=xyzzy-aws OPENAI_API_KEY=sk-test-openai \
		DB_password=xyzzy-db my_api_key=xyzzy-k KEEP=visible PLAIN=plain \
		call bash '{"command":"env"}'
	assert_success
	assert_equal "$stderr" ""
	for name in GITHUB_TOKEN AWS_SECRET_ACCESS_KEY OPENAI_API_KEY DB_password my_api_key; do
		[[ "$out" != *"$name="* ]] || fail "$name reached bash"
	done
	[[ "$out" != *xyzzy* && "$out" != *sk-test* ]]
	[[ $'\n'"$out" == *$'\nPLAIN=plain\n'* ]]
	[[ $'\n'"$out" == *$'\nMC_SET=from settings\n'* ]]
	[[ $'\n'"$out" == *$'\nKEEP=replaced\n'* ]]
}

@test "bash: tools.env.exclude replaces the default globs; provider keys stay out anyway" {
	settings '{"tools":{"env":{"exclude":["custom_*"]}}}'
	CUSTOM_NAME=c-secret GITHUB_TOKEN=gh-visible OPENAI_API_KEY=sk-test-openai \
		call bash '{"command":"env"}'
	assert_success
	[[ "$out" != *CUSTOM_NAME* ]]
	[[ "$out" != *sk-test-openai* ]]
	[[ $'\n'"$out" == *$'\nGITHUB_TOKEN=gh-visible\n'* ]]
}

@test "mc-tool.1 documents the tool environment's default exclude globs" {
	page=$(mandoc -Tascii "$MC_TOP/man/mc-tool.1" | col -b)
	for glob in '*KEY*' '*SECRET*' '*TOKEN*' '*PASSWORD*' tools.env.exclude tools.env.set; do
		[[ "$page" == *"$glob"* ]] || fail "mc-tool.1 does not mention $glob"
	done
}

# --- containment (SPEC 17) ---

@test "bash: no ancestor of the command shows the provider key in /proc/PID/environ" {
	# Unsandboxed: Landlock would hide the ancestors' environ from the
	# command, and the walk must see them to prove anything.
	settings '{"tools":{"sandbox":{"mode":"off"}}}'
	bashitem 'p=$PPID; seen=0; leaked=
while [ "$p" -gt 1 ]; do
	if [ -r /proc/$p/environ ] && tr "\0" "\n" </proc/$p/environ >env.$p 2>/dev/null && [ -s env.$p ]; then
		seen=$((seen + 1))
		grep -q sk-test-ancestor env.$p && leaked="$leaked $p"
	fi
	[ "$p" = "$STOP" ] && break
	p=$(sed "s/.*) //" /proc/$p/stat | cut -d" " -f2)
done
grep -q "^MC_HOME=" env.$PPID && echo "mc-tool environ read"
echo "seen $seen leaked:[$leaked]"' 60
	STOP=$$ OPENAI_API_KEY=sk-test-ancestor run --separate-stderr mc-tool call <item
	assert_success
	out=$(jqo -j .output)
	[[ "$out" == *"mc-tool environ read"* ]]
	[[ "$out" == *"leaked:[]"* ]] || fail "$out"
	[[ "$out" =~ seen\ ([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 2 ]
}

@test "mc-tool and the command die with the driver, even when it is SIGKILLed" {
	bashitem 'echo $$ > cmdpid; sleep 997; echo finished > finished' 600
	sh -c 'echo $$ > parent; mc-tool call <item >result 2>err; echo after > after' >/dev/null 2>&1 3>&- &
	tries=0
	while ! { [ -s cmdpid ] && pgrep -s "$(cat cmdpid)" -f 'sleep 997' >/dev/null; } &&
		[ $((tries += 1)) -lt 200 ]; do sleep 0.05; done
	[ -s cmdpid ] && [ -s parent ]
	sid=$(cat cmdpid)
	tool=$(pgrep -P "$(cat parent)" | head -n 1)
	kill -9 "$(cat parent)"
	tries=0
	while { pgrep -s "$sid" >/dev/null || kill -0 "$tool" 2>/dev/null; } && [ $((tries += 1)) -lt 100 ]; do
		sleep 0.05
	done
	left=$(pgrep -s "$sid" || true)
	[ -z "$left" ] || kill -9 $left
	alive=0
	kill -0 "$tool" 2>/dev/null && { alive=1; kill -9 "$tool"; }
	assert_equal "$left" ""
	assert_equal "$alive" 0
	sleep 0.2
	[ ! -e finished ] && [ ! -e after ]
}

@test "find: ** on a 40-level tree takes time linear in the depth" {
	deep=$(printf 'd%d/' $(seq 1 40))
	mkdir -p "$deep"
	touch "${deep}x.h" "${deep}x.c" d1/top.h
	jq -cn '{type:"function_call",call_id:"c1",name:"find",arguments:({glob:"**/*.h"} | tojson)}' >item
	run --separate-stderr timeout 10 mc-tool call <item
	assert_success
	assert_equal "$(jqo -j .output)" "$(printf '%sx.h\nd1/top.h' "$deep")"
	jq -cn '{type:"function_call",call_id:"c1",name:"find",arguments:({glob:"d1/**/d40/**/*.h"} | tojson)}' >item
	run --separate-stderr timeout 10 mc-tool call <item
	assert_success
	assert_equal "$(jqo -j .output)" "${deep}x.h"
}

@test "find: ** matches any number of directories, at the end one or more" {
	mkdir -p a/b/c
	touch a/x.h a/b/c/y.h
	call find '{"glob":"a/**/*.h"}'
	assert_equal "$out" "$(printf 'a/b/c/y.h\na/x.h')"
	call find '{"glob":"**/b/**"}'
	assert_equal "$out" "$(printf 'a/b/c/\na/b/c/y.h')"
	call find '{"glob":"**/**/c"}'
	assert_equal "$out" "a/b/c/"
	call find '{"glob":"a/b"}'
	assert_equal "$out" "a/b/"
	call find '{"glob":"**/a/**/c/*.h"}'
	assert_equal "$out" "a/b/c/y.h"
}

@test "grep and find take timeout_s, default 120, like bash" {
	run --separate-stderr mc-tool list
	for t in grep find; do
		assert_equal "$(jqo -c ".[] | select(.name == \"$t\") | .parameters.properties.timeout_s | [.type, .minimum, .maximum]")" '["integer",1,3600]'
	done
	mkdir -p "$BATS_TEST_TMPDIR/fakebin"
	printf '#!/bin/sh\necho $$ > %s/rgpid\nexec sleep 300\n' "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/fakebin/rg"
	chmod +x "$BATS_TEST_TMPDIR/fakebin/rg"
	PATH="$BATS_TEST_TMPDIR/fakebin:$PATH" call grep '{"pattern":"x","timeout_s":1}'
	assert_success
	assert_equal "$out" "error: rg failed: the search timed out; narrow path or glob, or raise timeout_s"
	run kill -0 "$(cat "$BATS_TEST_TMPDIR/rgpid")"
	assert_failure
	call find '{"glob":"*","timeout_s":0}'
	assert_equal "$out" 'error: find: argument "timeout_s" must be an integer from 1 to 3600'
}

@test "grep: a repository's ./rg never runs, whatever empty or relative entries PATH has" {
	printf '#!/bin/sh\ntouch "%s/ran"\n' "$BATS_TEST_TMPDIR" >rg
	cp rg grep
	chmod +x rg grep
	mkdir bin && cp rg grep bin/
	printf 'needle\n' >f.txt
	for path in ":$MC_BIN:/usr/bin:/bin" "$MC_BIN:/usr/bin::/bin" "$MC_BIN:/usr/bin:/bin:" \
	    ".:$MC_BIN:/usr/bin:/bin" "bin:$MC_BIN:/usr/bin:/bin" "./:$MC_BIN:/usr/bin:/bin"; do
		PATH="$path" call grep '{"pattern":"needle","path":"f.txt"}'
		assert_success
		assert_equal "$out" "f.txt:1:needle"
		[ ! -e "$BATS_TEST_TMPDIR/ran" ] || fail "./rg ran with PATH=$path"
	done
}

@test "edit: a result over the write cap is refused before it is built" {
	# 4 Mi lines of "a": replacing each a by 20 bytes would make 84 MiB.
	yes a | head -c 8388608 >big
	before=$(cksum <big)
	call edit '{"path":"big","old_string":"a","new_string":"0123456789abcdefghij","replace_all":true}'
	assert_success
	assert_equal "$out" "error: the edit would make big 88080384 bytes, over the 67108864-byte limit of a write; nothing was changed"
	assert_equal "$(cksum <big)" "$before"
	call edit '{"path":"big","old_string":"a","new_string":"bc","replace_all":true}'
	assert_regex "$out" '^Edited big: replaced 4194304 occurrences'
	assert_equal "$(head -n 1 big)" bc
}

@test "write and edit refuse paths inside .git, however they are named" {
	mkdir -p .git/hooks sub/.git
	printf '[core]\n' >.git/config
	printf '[core]\n' >sub/.git/config
	ln -s .git gitlink
	ln -s .git/config cfg
	for p in .git/config .git/hooks/pre-commit sub/.git/config gitlink/config cfg .GIT/config \
		new/.git/hooks/x ./sub/../.git/config "$PWD/.git/config"; do
		call write "$(jq -cn --arg p "$p" '{path:$p,content:"[core]\n\tfsmonitor = evil\n"}')"
		assert_success
		assert_equal "$out" "error: $p: is inside a .git directory, whose config and hooks run commands; write and edit do not change it (git itself, through bash, does)"
		call edit "$(jq -cn --arg p "$p" '{path:$p,old_string:"[core]",new_string:"[core]\n\tfsmonitor = evil"}')"
		assert_regex "$out" "^error: .*is inside a .git directory"
	done
	assert_equal "$(cat .git/config)" "[core]"
	assert_equal "$(cat sub/.git/config)" "[core]"
	[ ! -e .git/hooks/pre-commit ] && [ ! -e new ] && [ ! -e .GIT ]
	call write '{"path":".gitignore","content":"x\n"}'
	assert_equal "$out" "Created .gitignore: 2 bytes, 1 line"
	call write '{"path":"r.git/config","content":"x\n"}'
	assert_equal "$out" "Created r.git/config: 2 bytes, 1 line"
}
