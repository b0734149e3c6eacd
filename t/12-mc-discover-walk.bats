#!/usr/bin/env bats
# mc-discover: the opt-in settings of SPEC §1, knowledge.instructions.walk_up
# and knowledge.instructions.file_names.

load helper

setup_file_local() {
	# HOME bounds the walk; here it is the test's own directory, so that
	# nothing above the test's tree can ever be looked at.
	export HOME="$BATS_TEST_TMPDIR"
}

# mkfile PATH SIZE: a UTF-8 file of exactly SIZE bytes
mkfile() {
	mkdir -p "$(dirname "$1")"
	head -c "$2" /dev/zero | tr '\0' 'a' > "$1"
}

walk_up() {
	settings '{"knowledge":{"instructions":{"walk_up":true}}}'
}

# names JSON-ARRAY [MORE-SETTINGS]: knowledge.instructions.file_names
names() {
	settings "{\"knowledge\":{\"instructions\":{\"file_names\":$1${2:+,$2}}}}"
}

# mono: a monorepo at $W: AGENTS.md at its top, packages/a/AGENTS.md,
# nothing in packages/ or packages/a/src/
mono() {
	mkdir -p "$W/.git" "$W/packages/a/src"
	echo root > "$W/AGENTS.md"
	echo pkg-a > "$W/packages/a/AGENTS.md"
}

# what: "source:content" of each instruction, comma-separated
what() {
	jqo '[.instructions[] | .source + ":" + (.content | rtrimstr("\n"))] | join(",")'
}

# prompt_files: the paths of the <Context File=...> lines of the rendered
# prompt, relative to the test's directory
prompt_files() {
	printf '%s' "$output" | mc-render | sed -n "s|^<Context File=$BATS_TEST_TMPDIR/\\(.*\\)>\$|\\1|p" |
	    paste -sd, -
}

@test "walk_up: a monorepo's top and package files, listed nearest first after repo" {
	mono
	# Off by default: nothing above the working directory.
	run --separate-stderr mc-discover -C packages/a/src
	assert_success
	assert_equal "$(jqo '.instructions | length')" 0
	walk_up
	run --separate-stderr mc-discover -C packages/a/src
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(what)" "ancestor:pkg-a,ancestor:root"
	assert_equal "$(jqo '[.instructions[].path] | join(",")')" "$W/packages/a/AGENTS.md,$W/AGENTS.md"
	echo src > packages/a/src/AGENTS.md
	echo user > "$MC_HOME/AGENTS.md"
	run --separate-stderr mc-discover -C packages/a/src
	assert_success
	assert_equal "$(what)" "user:user,repo:src,ancestor:pkg-a,ancestor:root"
}

@test "walk_up: the prompt puts the farthest first, the working directory's own file last" {
	mono
	walk_up
	echo src > packages/a/src/AGENTS.md
	echo one > "$BATS_TEST_TMPDIR/one.md"
	settings "{\"knowledge\":{\"instructions\":{\"walk_up\":true,\"additional_markdown_paths\":[\"$BATS_TEST_TMPDIR/one.md\"]}}}"
	run --separate-stderr mc-discover -C packages/a/src
	assert_success
	assert_equal "$(prompt_files)" "repo/AGENTS.md,repo/packages/a/AGENTS.md,repo/packages/a/src/AGENTS.md,one.md"
}

@test "walk_up: the working directory at the repository's top has no ancestors" {
	mono
	walk_up
	# An enclosing repository does not matter: the nearest .git is the top.
	mkdir "$BATS_TEST_TMPDIR/.git"
	echo above > "$BATS_TEST_TMPDIR/AGENTS.md"
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$(what)" "repo:root"
	run --separate-stderr mc-discover -C packages/a
	assert_success
	assert_equal "$(what)" "repo:pkg-a,ancestor:root"
}

@test "walk_up: a .git file (a worktree or submodule) marks the top too" {
	mono
	rmdir .git
	echo "gitdir: /elsewhere/.git/worktrees/w" > .git
	mkdir -p "$BATS_TEST_TMPDIR/.git"
	echo above > "$BATS_TEST_TMPDIR/AGENTS.md"
	walk_up
	run --separate-stderr mc-discover -C packages/a/src
	assert_success
	assert_equal "$(what)" "ancestor:pkg-a,ancestor:root"
}

@test "walk_up: the nearest .git wins: a nested repository stops the walk" {
	mono
	mkdir packages/a/.git
	walk_up
	run --separate-stderr mc-discover -C packages/a/src
	assert_success
	assert_equal "$(what)" "ancestor:pkg-a"
}

@test "walk_up: outside a repository nothing above the working directory is loaded" {
	mkdir -p packages/a/src
	echo root > AGENTS.md
	echo pkg-a > packages/a/AGENTS.md
	walk_up
	run --separate-stderr mc-discover -C packages/a/src
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo '.instructions | length')" 0
	mkdir .git
	run --separate-stderr mc-discover -C packages/a/src
	assert_success
	assert_equal "$(what)" "ancestor:pkg-a,ancestor:root"
}

@test "walk_up: never above HOME, even when a .git lies above it" {
	mono
	walk_up
	# The repository's top is $W, above the HOME of this test.
	export HOME="$W/packages"
	run --separate-stderr mc-discover -C packages/a/src
	assert_success
	assert_equal "$(jqo '.instructions | length')" 0
	# HOME itself may be the top (a home directory kept in git).
	mkdir packages/.git
	echo home > packages/AGENTS.md
	run --separate-stderr mc-discover -C packages/a/src
	assert_success
	assert_equal "$(what)" "ancestor:pkg-a,ancestor:home"
	# Working in HOME itself: nothing above it.
	run --separate-stderr mc-discover -C packages
	assert_success
	assert_equal "$(what)" "repo:home"
}

@test "walk_up: HOME is compared by its real path" {
	mono
	walk_up
	run --separate-stderr mc-discover -C packages/a/src
	assert_equal "$(what)" "ancestor:pkg-a,ancestor:root"
	ln -s "$W/packages" "$BATS_TEST_TMPDIR/home-link"
	export HOME="$BATS_TEST_TMPDIR/home-link"
	run --separate-stderr mc-discover -C packages/a/src
	assert_success
	assert_equal "$(jqo '.instructions | length')" 0
}

@test "walk_up: the caps apply; the farthest file is the one the total cap drops" {
	mono
	walk_up
	mkfile packages/AGENTS.md 262145
	run --separate-stderr mc-discover -C packages/a/src
	assert_failure 1
	assert_equal "$(what)" "ancestor:pkg-a,ancestor:root"
	assert_equal "$(jqo -c '[.diagnostics[] | [.severity, .source, .path, .message]]')" \
	    "[[\"error\",\"ancestor\",\"$W/packages/AGENTS.md\",\"file is 262145 bytes, over the 262144-byte cap; not loaded\"]]"
	assert_equal "$stderr" "mc-discover: $W/packages/AGENTS.md: file is 262145 bytes, over the 262144-byte cap; not loaded"
	for d in packages/a/src packages/a packages .; do
		mkfile "$d/AGENTS.md" 250000
	done
	mkfile "$MC_HOME/AGENTS.md" 100000
	run --separate-stderr mc-discover -C packages/a/src
	assert_failure 1
	assert_equal "$(jqo '[.instructions[].source] | join(",")')" "user,repo,ancestor,ancestor"
	assert_equal "$(jqo '.diagnostics[0].path')" "$W/AGENTS.md"
	assert_equal "$(jqo '.diagnostics[0].message')" \
	    "file is 250000 bytes, over the 1048576-byte cap for all instruction files together (850000 already loaded); not loaded"
}

@test "walk_up: links follow the same rule, the target inside the link's directory" {
	mono
	walk_up
	mkdir -p packages/a/docs
	echo linked > packages/a/docs/guide.md
	rm packages/a/AGENTS.md
	ln -s docs/guide.md packages/a/AGENTS.md
	echo outside > outside.md
	ln -s ../outside.md packages/AGENTS.md
	run --separate-stderr mc-discover -C packages/a/src
	assert_failure 1
	assert_equal "$(what)" "ancestor:linked,ancestor:root"
	assert_equal "$(jqo '.diagnostics[0].message')" "symbolic link refused (its target is outside the allowed directory)"
	assert_equal "$(jqo '.diagnostics[0].path')" "$W/packages/AGENTS.md"
}

@test "walk_up: a dangling ancestor link is a missing file, with a warning" {
	mono
	walk_up
	ln -s nowhere.md packages/AGENTS.md
	run --separate-stderr mc-discover -C packages/a/src
	assert_success
	assert_equal "$(what)" "ancestor:pkg-a,ancestor:root"
	assert_equal "$stderr" "mc-discover: warning: $W/packages/AGENTS.md: dangling symbolic link (its target does not exist); skipped"
}

@test "walk_up: --touched leaves out the ancestors' files and walks only below the root" {
	mono
	walk_up
	mkdir -p packages/a/src/x
	echo x > packages/a/src/x/AGENTS.md
	run --separate-stderr mc-discover -C packages/a/src
	assert_equal "$(what)" "ancestor:pkg-a,ancestor:root"
	run --separate-stderr mc-discover -C packages/a/src --touched x/f.c
	assert_success
	assert_equal "$(what)" "touched:x"
}

@test "file_names: the first name found wins in each directory, in the setting's order" {
	mono
	echo claude-top > CLAUDE.md
	echo claude-home > "$MC_HOME/CLAUDE.md"
	echo agents-home > "$MC_HOME/AGENTS.md"
	echo claude-src > packages/a/src/CLAUDE.md
	names '["CLAUDE.md","AGENTS.md"]' '"walk_up":true'
	run --separate-stderr mc-discover -C packages/a/src
	assert_success
	assert_equal "$(what)" "user:claude-home,repo:claude-src,ancestor:pkg-a,ancestor:claude-top"
	names '["AGENTS.md","CLAUDE.md"]' '"walk_up":true'
	run --separate-stderr mc-discover -C packages/a/src
	assert_success
	assert_equal "$(what)" "user:agents-home,repo:claude-src,ancestor:pkg-a,ancestor:root"
	assert_equal "$(jqo '.instructions[1].path')" "$W/packages/a/src/CLAUDE.md"
}

@test "file_names: the names replace AGENTS.md, for --touched too" {
	mkdir -p a
	echo agents > AGENTS.md
	echo guide > a/GUIDE.md
	echo agents-a > a/AGENTS.md
	names '["GUIDE.md"]'
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$(jqo '.instructions | length')" 0
	run --separate-stderr mc-discover --touched a/f.c
	assert_success
	assert_equal "$(what)" "touched:guide"
}

@test "file_names: --touched leaves out a file the startup order loads under another name" {
	mkdir -p team
	echo team > team/CLAUDE.md
	names '["CLAUDE.md"]'
	run --separate-stderr mc-discover --touched team/x.c
	assert_equal "$(what)" "touched:team"
	names '["CLAUDE.md"]' "\"additional_markdown_paths\":[\"$W/team/CLAUDE.md\"]"
	run --separate-stderr mc-discover --touched team/x.c
	assert_success
	assert_equal "$(jqo '.instructions | length')" 0
}

@test "file_names: a name found but refused is an error; the next name is not tried" {
	mkfifo AGENTS.md
	echo claude > CLAUDE.md
	names '["AGENTS.md","CLAUDE.md"]'
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$(jqo '.instructions | length')" 0
	assert_equal "$stderr" "mc-discover: $W/AGENTS.md: not a regular file"
	rm AGENTS.md
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$(what)" "repo:claude"
}

@test "file_names: a dangling link counts as missing, and the next name is tried" {
	ln -s gone.md AGENTS.md
	echo claude > CLAUDE.md
	names '["AGENTS.md","CLAUDE.md"]'
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$(what)" "repo:claude"
	assert_equal "$stderr" "mc-discover: warning: $W/AGENTS.md: dangling symbolic link (its target does not exist); skipped"
}

@test "file_names: bad entries are errors naming the setting with its index" {
	echo agents > AGENTS.md
	echo claude > CLAUDE.md
	while IFS='|' read -r list msg; do
		names "$list"
		run --separate-stderr mc-discover
		assert_failure 1
		assert_equal "$stderr" "mc-discover: $MC_HOME/settings.json: knowledge.instructions.file_names$msg"
		assert_equal "$(jqo '.diagnostics[0].path')" "$MC_HOME/settings.json"
		assert_equal "$(jqo '.diagnostics[0].severity')" error
	done <<-'EOF'
	["CLAUDE.md","docs/AGENTS.md"]|[1]: not a plain file name: docs/AGENTS.md
	["CLAUDE.md",""]|[1]: empty file name
	[".."]|[0]: not a plain file name: ..
	["/etc/AGENTS.md"]|[0]: not a plain file name: /etc/AGENTS.md
	["A.md","B.md","C.md","D.md","CLAUDE.md"]|[4]: at most 4 file names; this one and the rest are not looked for
	[]|: expected 1 to 4 file names; AGENTS.md is looked for
	EOF
	# A name that is not a string is caught by the settings schema: no document.
	names '["AGENTS.md",3]'
	run --separate-stderr mc-discover
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-discover: $MC_HOME/settings.json: knowledge.instructions.file_names[1]: expected a string"
}

@test "file_names: with --keep-going the good names are used, else AGENTS.md" {
	echo agents > AGENTS.md
	echo claude > CLAUDE.md
	names '["a/b","CLAUDE.md"]'
	run --separate-stderr mc-discover --keep-going
	assert_success
	assert_equal "$(what)" "repo:claude"
	names '["a/b"]'
	run --separate-stderr mc-discover --keep-going
	assert_success
	assert_equal "$(what)" "repo:agents"
	names '["A.md","B.md","C.md","D.md","CLAUDE.md"]'
	run --separate-stderr mc-discover --keep-going
	assert_success
	assert_equal "$(jqo '.instructions | length')" 0
}
