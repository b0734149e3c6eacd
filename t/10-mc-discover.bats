#!/usr/bin/env bats
# mc-discover: SPEC §1 and the shared rules of §0 it exercises.

load helper

# mkfile PATH SIZE: a UTF-8 file of exactly SIZE bytes
mkfile() {
	mkdir -p "$(dirname "$1")"
	head -c "$2" /dev/zero | tr '\0' 'a' > "$1"
}

@test "no instruction files: a valid empty document, exit 0" {
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo '.instructions | length')" 0
	assert_equal "$(jqo '.diagnostics | length')" 0
	assert_equal "$(jqo .version)" 1
	assert_equal "$(jqo .root)" "$(pwd -P)"
	assert_equal "$(jqo .mc_home)" "$MC_HOME"
	assert_equal "${#lines[@]}" 1
}

@test "order: user, repo, then configured paths in array order" {
	echo user > "$MC_HOME/AGENTS.md"
	echo repo > AGENTS.md
	echo one > "$BATS_TEST_TMPDIR/one.md"
	echo two > "$BATS_TEST_TMPDIR/two.md"
	settings "{\"knowledge\":{\"instructions\":{\"additional_markdown_paths\":[\"$BATS_TEST_TMPDIR/two.md\",\"$BATS_TEST_TMPDIR/one.md\"]}}}"
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$(jqo '[.instructions[].source] | join(",")')" "user,repo,configured,configured"
	assert_equal "$(jqo '[.instructions[].content] | join("") | rtrimstr("\n")')" "$(printf 'user\nrepo\ntwo\none')"
	assert_equal "$(jqo '[.instructions[] | .index // "-"] | join(",")')" "-,-,0,1"
	assert_equal "$(jqo '.instructions[1].path')" "$(pwd -P)/AGENTS.md"
	assert_equal "$(jqo '.instructions[1].bytes')" 5
}

@test "-C DIR changes the working directory" {
	mkdir -p other
	echo other > other/AGENTS.md
	echo here > AGENTS.md
	run --separate-stderr mc-discover -C other
	assert_success
	assert_equal "$(jqo .root)" "$(pwd -P)/other"
	assert_equal "$(jqo '.instructions[0].content')" "other"
}

@test "-C to a missing directory is exit 1 naming it" {
	run --separate-stderr mc-discover -C nowhere
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-discover: nowhere: No such file or directory"
}

@test "no parent-directory scan and no CLAUDE.md" {
	echo parent > "$BATS_TEST_TMPDIR/AGENTS.md"
	echo claude > CLAUDE.md
	mkdir sub
	run --separate-stderr mc-discover -C sub
	assert_success
	assert_equal "$(jqo '.instructions | length')" 0
}

@test "the same canonical file is loaded once" {
	echo repo > AGENTS.md
	ln -s AGENTS.md alias.md
	settings "{\"knowledge\":{\"instructions\":{\"additional_markdown_paths\":[\"$W/AGENTS.md\",\"$W/alias.md\",\"$W/./AGENTS.md\"]}}}"
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$(jqo '.instructions | length')" 1
	assert_equal "$(jqo '.instructions[0].source')" repo
}

@test "a file of exactly 256 KiB is loaded" {
	mkfile AGENTS.md 262144
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$(jqo '.instructions[0].bytes')" 262144
}

@test "a file over 256 KiB is dropped whole with an error naming size and cap" {
	mkfile AGENTS.md 262145
	echo small > "$BATS_TEST_TMPDIR/small.md"
	settings "{\"knowledge\":{\"instructions\":{\"additional_markdown_paths\":[\"$BATS_TEST_TMPDIR/small.md\"]}}}"
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$(jqo '[.instructions[].source] | join(",")')" configured
	assert_equal "$(jqo '.diagnostics[0].severity')" error
	assert_equal "$(jqo '.diagnostics[0].path')" "$(pwd -P)/AGENTS.md"
	assert_equal "$(jqo '.diagnostics[0].message')" "file is 262145 bytes, over the 262144-byte cap; not loaded"
	assert_equal "$stderr" "mc-discover: $(pwd -P)/AGENTS.md: file is 262145 bytes, over the 262144-byte cap; not loaded"
}

@test "the 1 MiB total cap drops the file that would pass it; discovery goes on" {
	paths=
	for i in 1 2 3 4 5; do
		mkfile "$BATS_TEST_TMPDIR/c$i.md" 250000
		paths="$paths\"$BATS_TEST_TMPDIR/c$i.md\","
	done
	echo tail > "$BATS_TEST_TMPDIR/tail.md"
	settings "{\"knowledge\":{\"instructions\":{\"additional_markdown_paths\":[${paths}\"$BATS_TEST_TMPDIR/tail.md\"]}}}"
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$(jqo '[.instructions[].index] | map(tostring) | join(",")')" "0,1,2,3,5"
	assert_equal "$(jqo '[.instructions[].bytes] | add')" 1000005
	assert_equal "$(jqo '.diagnostics | length')" 1
	assert_equal "$(jqo '.diagnostics[0].path')" "$BATS_TEST_TMPDIR/c5.md"
	assert_equal "$(jqo '.diagnostics[0].message')" \
		"file is 250000 bytes, over the 1048576-byte cap for all instruction files together (1000000 already loaded); not loaded"
}

@test "a symlink to a file inside its directory is followed" {
	mkdir docs
	echo linked > docs/agents.md
	ln -s docs/agents.md AGENTS.md
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$(jqo '.instructions[0].content')" linked
	assert_equal "$(jqo '.instructions[0].path')" "$(pwd -P)/AGENTS.md"
}

@test "a symlink whose target is outside its directory is refused" {
	echo secret > "$BATS_TEST_TMPDIR/outside.md"
	ln -s ../outside.md AGENTS.md
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$(jqo '.instructions | length')" 0
	assert_equal "$(jqo '.diagnostics[0].path')" "$(pwd -P)/AGENTS.md"
	assert_output --partial "symbolic link refused"
	refute_output --partial secret
	assert_equal "$stderr" "mc-discover: $(pwd -P)/AGENTS.md: symbolic link refused (its target is outside the allowed directory)"
}

@test "a dangling optional link (user or repo) is a missing file, with a warning" {
	ln -s missing.md AGENTS.md
	ln -s gone.md "$MC_HOME/AGENTS.md"
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$(jqo '.instructions | length')" 0
	assert_equal "$(jqo -c '[.diagnostics[] | [.severity, .path, .message]]')" \
	    "[[\"warning\",\"$MC_HOME/AGENTS.md\",\"dangling symbolic link (its target does not exist); skipped\"],[\"warning\",\"$(pwd -P)/AGENTS.md\",\"dangling symbolic link (its target does not exist); skipped\"]]"
	assert_equal "${stderr_lines[1]}" "mc-discover: warning: $(pwd -P)/AGENTS.md: dangling symbolic link (its target does not exist); skipped"
	run --separate-stderr mc-discover -q
	assert_success
	assert_equal "$stderr" ""
}

@test "a dangling link whose target would be outside is still only missing" {
	ln -s ../nowhere/x.md AGENTS.md
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$(jqo '.diagnostics[0].message')" "dangling symbolic link (its target does not exist); skipped"
}

@test "a dangling configured link is an error naming the setting with its index" {
	ln -s gone.md "$BATS_TEST_TMPDIR/link.md"
	settings "{\"knowledge\":{\"instructions\":{\"additional_markdown_paths\":[\"$BATS_TEST_TMPDIR/link.md\"]}}}"
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$stderr" "mc-discover: $MC_HOME/settings.json: knowledge.instructions.additional_markdown_paths[0]: dangling symbolic link (its target does not exist): $BATS_TEST_TMPDIR/link.md"
}

@test "a refused file's diagnostic carries its source, and its index when configured" {
	mkfifo AGENTS.md
	printf 'caf\351\n' > "$BATS_TEST_TMPDIR/bad.md"
	settings "{\"knowledge\":{\"instructions\":{\"additional_markdown_paths\":[\"rel.md\",\"$BATS_TEST_TMPDIR/bad.md\"]}}}"
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$(jqo -c '[.diagnostics[] | [.source, .index, .path]]')" \
	    "[[\"repo\",null,\"$(pwd -P)/AGENTS.md\"],[null,null,\"$MC_HOME/settings.json\"],[\"configured\",1,\"$BATS_TEST_TMPDIR/bad.md\"]]"
}

@test "a FIFO is refused without blocking" {
	mkfifo AGENTS.md
	run --separate-stderr timeout 10 mc-discover
	assert_failure 1
	assert_equal "$(jqo '.diagnostics[0].message')" "not a regular file"
}

@test "a directory named AGENTS.md is refused" {
	mkdir AGENTS.md
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$(jqo '.diagnostics[0].message')" "not a regular file"
}

@test "invalid UTF-8 is refused with a diagnostic naming the file" {
	printf 'caf\351\n' > AGENTS.md
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$(jqo '.instructions | length')" 0
	assert_equal "$(jqo '.diagnostics[0].message')" "not valid UTF-8 text"
	assert_equal "$(jqo '.diagnostics[0].path')" "$(pwd -P)/AGENTS.md"
}

@test "a NUL byte inside the file is refused" {
	printf 'a\000b\n' > AGENTS.md
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$(jqo '.diagnostics[0].message')" "not valid UTF-8 text"
}

@test "valid multi-byte UTF-8 is carried unchanged" {
	printf 'caf\303\251 \360\237\231\202\n' > AGENTS.md
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$(jqo '.instructions[0].content')" "$(printf 'caf\303\251 \360\237\231\202')"
}

@test "an unreadable file is an error diagnostic" {
	echo private > AGENTS.md
	chmod 000 AGENTS.md
	run --separate-stderr unprivileged mc-discover
	assert_failure 1
	assert_equal "$(jqo '.diagnostics[0].message')" "Permission denied"
	assert_equal "$(jqo '.diagnostics[0].path')" "$(pwd -P)/AGENTS.md"
	refute_output --partial private
}

@test "a missing configured file is an error naming the setting with its index" {
	echo ok > "$BATS_TEST_TMPDIR/ok.md"
	settings "{\"knowledge\":{\"instructions\":{\"additional_markdown_paths\":[\"$BATS_TEST_TMPDIR/ok.md\",\"$BATS_TEST_TMPDIR/gone.md\"]}}}"
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$(jqo '.diagnostics[0].path')" "$MC_HOME/settings.json"
	assert_equal "$(jqo '.diagnostics[0].message')" "knowledge.instructions.additional_markdown_paths[1]: no such file: $BATS_TEST_TMPDIR/gone.md"
	assert_equal "$stderr" "mc-discover: $MC_HOME/settings.json: knowledge.instructions.additional_markdown_paths[1]: no such file: $BATS_TEST_TMPDIR/gone.md"
	assert_equal "$(jqo '.instructions[0].index')" 0
}

@test "a relative configured path is an error naming the indexed setting" {
	echo ok > "$BATS_TEST_TMPDIR/ok.md"
	settings "{\"knowledge\":{\"instructions\":{\"additional_markdown_paths\":[\"$BATS_TEST_TMPDIR/ok.md\",\"$BATS_TEST_TMPDIR/ok.md\",\"rel/team.md\"]}}}"
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$(jqo '.instructions | length')" 1
	assert_equal "$(jqo '.diagnostics[0].path')" "$MC_HOME/settings.json"
	assert_equal "$stderr" "mc-discover: $MC_HOME/settings.json: knowledge.instructions.additional_markdown_paths[2]: path must be absolute: rel/team.md"
}

@test "a configured path not ending in .md is an error naming the indexed setting" {
	echo x > "$BATS_TEST_TMPDIR/notes.txt"
	settings "{\"knowledge\":{\"instructions\":{\"additional_markdown_paths\":[\"$BATS_TEST_TMPDIR/notes.txt\"]}}}"
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$(jqo '.instructions | length')" 0
	assert_equal "$(jqo '.diagnostics[0].message')" "knowledge.instructions.additional_markdown_paths[0]: path must end in .md: $BATS_TEST_TMPDIR/notes.txt"
}

@test "a setting of the wrong type is exit 1 naming the file and the setting path" {
	settings '{"knowledge":{"instructions":{"additional_markdown_paths":["/a.md",7]}}}'
	run --separate-stderr mc-discover
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-discover: $MC_HOME/settings.json: knowledge.instructions.additional_markdown_paths[1]: expected a string"
}

@test "a non-array setting is exit 1 naming the setting" {
	settings '{"knowledge":{"instructions":{"additional_markdown_paths":"/a.md"}}}'
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$stderr" "mc-discover: $MC_HOME/settings.json: knowledge.instructions.additional_markdown_paths: expected an array of strings"
}

@test "invalid JSON in settings names the file, line and column" {
	printf '{\n  "provider": "openai",\n  "model": oops\n}\n' > "$MC_HOME/settings.json"
	run --separate-stderr mc-discover
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-discover: $MC_HOME/settings.json: invalid JSON at line 3, column 12"
}

@test "a settings file that is not an object is an error" {
	settings '[1,2]'
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$stderr" "mc-discover: $MC_HOME/settings.json: expected a JSON object"
}

@test "an unknown setting is a warning, and -q silences it" {
	settings '{"knowledge":{"instructoins":{}}}'
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$stderr" "mc-discover: warning: $MC_HOME/settings.json: unknown setting knowledge.instructoins"
	assert_equal "$(jqo '.diagnostics[0].severity')" warning
	run --separate-stderr mc-discover -q
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo '.diagnostics[0].severity')" warning
}

@test "--keep-going writes the document and exits 0 despite errors" {
	mkfifo AGENTS.md
	run --separate-stderr mc-discover --keep-going
	assert_success
	assert_equal "$(jqo '.diagnostics[0].severity')" error
	assert_equal "$stderr" "mc-discover: $(pwd -P)/AGENTS.md: not a regular file"
}

@test "MC_HOME defaults to HOME/.magi-code" {
	unset MC_HOME
	echo from-home > "$HOME/.magi-code/AGENTS.md"
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$(jqo .mc_home)" "$HOME/.magi-code"
	assert_equal "$(jqo '.instructions[0].content')" from-home
}

@test "no MC_HOME and no HOME is exit 1" {
	run --separate-stderr env -u HOME -u MC_HOME "$MC_BIN/mc-discover"
	assert_failure 1
	assert_equal "$stderr" "mc-discover: neither MC_HOME nor an absolute HOME is set"
}

@test "--pretty writes the same document indented" {
	echo repo > AGENTS.md
	compact=$(mc-discover)
	run --separate-stderr mc-discover --pretty
	assert_success
	[ "${#lines[@]}" -gt 3 ]
	assert_equal "$(jqo -c .)" "$(printf '%s' "$compact" | jq -c .)"
}

@test "--touched: guides from the path up to the root, nearest first" {
	mkdir -p a/b/c
	echo root > AGENTS.md
	echo A > a/AGENTS.md
	echo C > a/b/c/AGENTS.md
	run --separate-stderr mc-discover --touched a/b/c/file.c
	assert_success
	assert_equal "$(jqo '[.instructions[].content | rtrimstr("\n")] | join(",")')" "C,A"
	assert_equal "$(jqo '[.instructions[].source] | unique | join(",")')" touched
	assert_equal "$(jqo '.instructions[0].path')" "$(pwd -P)/a/b/c/AGENTS.md"
}

@test "--touched: a directory counts itself; several paths; no duplicates" {
	mkdir -p a/b x
	echo A > a/AGENTS.md
	echo B > a/b/AGENTS.md
	echo X > x/AGENTS.md
	run --separate-stderr mc-discover --touched a/b x/new.c "$W/a/b/y.c"
	assert_success
	assert_equal "$(jqo '[.instructions[].content | rtrimstr("\n")] | join(",")')" "B,A,X"
}

@test "--touched leaves out files the startup order loads" {
	mkdir -p team
	echo team > team/AGENTS.md
	echo repo > AGENTS.md
	settings "{\"knowledge\":{\"instructions\":{\"additional_markdown_paths\":[\"$W/team/AGENTS.md\"]}}}"
	run --separate-stderr mc-discover --touched team/x.c
	assert_success
	assert_equal "$(jqo '.instructions | length')" 0
}

@test "--touched: links only to targets inside the root" {
	mkdir -p a b
	echo shared > b/guide.md
	ln -s ../b/guide.md a/AGENTS.md
	echo secret > "$BATS_TEST_TMPDIR/secret.md"
	mkdir -p c
	ln -s "$BATS_TEST_TMPDIR/secret.md" c/AGENTS.md
	run --separate-stderr mc-discover --touched a/f c/f
	assert_failure 1
	assert_equal "$(jqo '[.instructions[].content | rtrimstr("\n")] | join(",")')" shared
	assert_equal "$(jqo '.diagnostics[0].path')" "$(pwd -P)/c/AGENTS.md"
	refute_output --partial secret
}

@test "--touched: a path outside the root gives no guides, with a warning" {
	mkdir -p "$BATS_TEST_TMPDIR/elsewhere"
	echo E > "$BATS_TEST_TMPDIR/elsewhere/AGENTS.md"
	run --separate-stderr mc-discover --touched ../elsewhere/f.c
	assert_success
	assert_equal "$(jqo '.instructions | length')" 0
	assert_equal "$(jqo '.diagnostics[0].severity')" warning
}

@test "--touched: the per-file cap applies" {
	mkfile a/AGENTS.md 262145
	run --separate-stderr mc-discover --touched a/f
	assert_failure 1
	assert_equal "$(jqo '.instructions | length')" 0
	assert_equal "$(jqo '.diagnostics[0].message')" "file is 262145 bytes, over the 262144-byte cap; not loaded"
}

@test "usage errors exit 2 before any output" {
	run --separate-stderr mc-discover --bogus
	assert_failure 2
	assert_output ""
	run --separate-stderr mc-discover --touched
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "mc-discover: --touched needs at least one PATH"
	run --separate-stderr mc-discover stray
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "mc-discover: unexpected argument: stray"
	run --separate-stderr mc-discover -C
	assert_failure 2
	assert_output ""
}

@test "--help prints usage on stdout and exits 0; --version" {
	run --separate-stderr mc-discover --help
	assert_success
	assert_line --index 0 --partial "usage: mc-discover"
	assert_equal "$stderr" ""
	run --separate-stderr mc-discover --version
	assert_success
	assert_output --regexp '^mc-discover \(mc\) [0-9]+\.[0-9]+'
}

@test "a closed pipe ends quietly with status 0" {
	mkfile AGENTS.md 200000
	run bash -c 'mc-discover 2>"$BATS_TEST_TMPDIR/err" | head -c 10 >/dev/null; echo "${PIPESTATUS[0]}"'
	assert_output 0
	assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" ""
}

@test "a failed write to stdout is exit 1" {
	run --separate-stderr bash -c 'mc-discover > /dev/full'
	assert_failure 1
	assert_equal "$stderr" "mc-discover: stdout: No space left on device"
}

@test "control characters in a diagnostic are escaped on stderr" {
	mkdir -p "$(printf 'a\033[31m')"
	settings "{\"knowledge\":{\"instructions\":{\"additional_markdown_paths\":[\"$W/$(printf 'a\\u001b[31m')/x.md\"]}}}"
	run --separate-stderr mc-discover
	assert_failure 1
	[[ "$stderr" != *$'\033'* ]]
	assert_equal "$stderr" "mc-discover: $MC_HOME/settings.json: knowledge.instructions.additional_markdown_paths[0]: no such file: $W/a^[[31m/x.md"
}
