#!/usr/bin/env bats
# mc-skills: SPEC §2 (discovery, frontmatter, skill:// reads) and the §0 rules it exercises.

load helper

setup_file_local() {
	R="$W/.agents/skills"		# repo
	U="$MC_HOME/skills"		# user
	L="$HOME/.agents/skills"	# legacy
	C="$BATS_TEST_TMPDIR/conf"	# configured roots live below here
}

# mkskill DIR [DESCRIPTION]: DIR/SKILL.md with a description and a body
mkskill() {
	mkdir -p "$1"
	printf -- '---\ndescription: %s\n---\n# %s\n' "${2:-about ${1##*/}}" "${1##*/}" >"$1/SKILL.md"
}

# skills: run mc-skills on an empty stdin
skills() {
	run --separate-stderr mc-skills "$@" </dev/null
}

names() {
	jqo -c '[.skills[].name]'
}

# ---- the document ----------------------------------------------------------

@test "no skills: a new document with an empty list, exit 0" {
	skills
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo -c .skills)" "[]"
	assert_equal "$(jqo -c .diagnostics)" "[]"
	assert_equal "$(jqo .version)" 1
	assert_equal "$(jqo .root)" "$(pwd -P)"
	assert_equal "$(jqo .mc_home)" "$MC_HOME"
}

@test "each skill has name, description, path, source and enabled" {
	mkskill "$R/review" "Review code changes for correctness."
	skills
	assert_success
	assert_equal "$(jqo -c '.skills[0] | keys_unsorted')" '["name","description","path","source","enabled"]'
	assert_equal "$(jqo -c '.skills[0]')" \
	    "{\"name\":\"review\",\"description\":\"Review code changes for correctness.\",\"path\":\"$(pwd -P)/.agents/skills/review/SKILL.md\",\"source\":\"repo\",\"enabled\":true}"
}

@test "mc-discover | mc-skills carries the instructions, diagnostics and unknown keys through" {
	echo "# guide" >AGENTS.md
	mkskill "$R/review"
	printf '\377\n' >"$MC_HOME/AGENTS.md"	# an error diagnostic upstream
	run --separate-stderr bash -c 'mc-discover --keep-going 2>/dev/null | jq -c ". + {extra: {k: [1,2]}}" | mc-skills'
	assert_success		# the error was not this run's
	assert_equal "$stderr" ""
	assert_equal "$(jqo '.instructions[0].content')" "# guide"
	assert_equal "$(jqo '.diagnostics | length')" 1
	assert_equal "$(jqo '.diagnostics[0].path')" "$MC_HOME/AGENTS.md"
	assert_equal "$(jqo -c .extra)" '{"k":[1,2]}'
	assert_equal "$(names)" '["review"]'
	assert_equal "$(jqo -c keys_unsorted)" '["version","root","mc_home","instructions","extra","skills","diagnostics"]'
}

@test "an earlier skills list is replaced, diagnostics are appended" {
	mkskill "$R/new"
	mkdir "$R/Bad"
	echo x >"$R/Bad/SKILL.md"
	doc='{"version":1,"root":"'"$W"'","skills":[{"name":"old"}],"diagnostics":[{"severity":"warning","message":"first"}]}'
	run --separate-stderr mc-skills -q <<<"$doc"
	assert_success
	assert_equal "$(names)" '["new"]'
	assert_equal "$(jqo '.diagnostics | length')" 2
	assert_equal "$(jqo '.diagnostics[0].message')" first
	assert_equal "$(jqo '.diagnostics[1].path')" "$(pwd -P)/.agents/skills/Bad"
}

@test "repeated skills and diagnostics keys: the first is the one used, compact as pretty" {
	mkskill "$R/new"
	mkdir "$R/Bad"
	echo x >"$R/Bad/SKILL.md"
	doc='{"version":1,"root":"'"$W"'","diagnostics":[],"skills":[1],"diagnostics":[2],"skills":[3]}'
	run --separate-stderr mc-skills -q <<<"$doc"
	assert_success
	compact=$output
	# jq keeps the last of a repeated key: look at the text itself.
	assert_output --partial '"diagnostics":[2],"skills":[3],"skills":[{"name":"new"'
	assert_output --partial 'invalid skill name'
	run --separate-stderr mc-skills -q --pretty <<<"$doc"
	assert_success
	assert_equal "$(printf '%s' "$output" | tr -d ' \t\n')" "$(printf '%s' "$compact" | tr -d ' \t\n')"
}

@test "stdin of the wrong shape: the member at fault named as mc-render names it" {
	while IFS='|' read -r doc msg; do
		run --separate-stderr mc-skills -q <<<"$doc"
		assert_failure 1
		assert_output ""
		assert_equal "$stderr" "mc-skills: stdin: $msg"
	done <<-'EOF'
	{"version":2}|version: unsupported document version (expected 1)
	{"root":3}|root: expected a string
	{"diagnostics":{}}|diagnostics: expected an array
	{"instructions":{}}|instructions: expected an array
	{"instructions":[1]}|instructions[0]: expected an object
	{"instructions":[{"path":"/a"}]}|instructions[0].content: missing
	{"skills":"a"}|skills: expected an array
	EOF
}

@test "stdin that is not a JSON object: one-line error, exit 1, no output" {
	run --separate-stderr mc-skills <<<'[1,2]'
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-skills: stdin: expected a JSON object (the context document)"
	run --separate-stderr mc-skills <<<'{"version":'
	assert_failure 1
	assert_output ""
	assert_equal "$(wc -l <<<"$stderr")" 1
	assert_regex "$stderr" '^mc-skills: stdin: invalid JSON at line 1, column [0-9]+$'
}

@test "a stdin of white space starts a new document" {
	mkskill "$R/a"
	run --separate-stderr mc-skills <<<$'  \n\t'
	assert_success
	assert_equal "$(names)" '["a"]'
	assert_equal "$(jqo .root)" "$(pwd -P)"
}

@test "the repository is -C DIR, else the document's root, else the working directory" {
	mkdir -p "$BATS_TEST_TMPDIR/other" "$BATS_TEST_TMPDIR/third"
	mkskill "$BATS_TEST_TMPDIR/other/.agents/skills/from-c"
	mkskill "$BATS_TEST_TMPDIR/third/.agents/skills/from-doc"
	mkskill "$R/from-cwd"
	skills -C "$BATS_TEST_TMPDIR/other"
	assert_equal "$(names)" '["from-c"]'
	assert_equal "$(jqo .root)" "$BATS_TEST_TMPDIR/other"
	run --separate-stderr mc-skills <<<'{"root":"'"$BATS_TEST_TMPDIR/third"'"}'
	assert_equal "$(names)" '["from-doc"]'
	run --separate-stderr mc-skills -C "$BATS_TEST_TMPDIR/other" <<<'{"root":"'"$BATS_TEST_TMPDIR/third"'"}'
	assert_equal "$(names)" '["from-c"]'
	skills
	assert_equal "$(names)" '["from-cwd"]'
	skills -C "$BATS_TEST_TMPDIR/nowhere"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-skills: $BATS_TEST_TMPDIR/nowhere: No such file or directory"
}

@test "output is compact by default, indented with --pretty, and deterministic" {
	for n in zeta alpha mid beta; do mkskill "$R/$n"; done
	skills
	assert_equal "$(wc -l <<<"$output")" 1
	first=$output
	skills
	assert_equal "$output" "$first"
	skills --pretty
	assert [ "$(wc -l <<<"$output")" -gt 10 ]
	assert_equal "$(jqo -c .)" "$(printf '%s' "$first" | jq -c .)"
}

# ---- roots and priority ----------------------------------------------------

@test "the four roots, each with its source, sorted by name" {
	mkskill "$L/d-legacy"
	mkskill "$U/c-user"
	mkskill "$C/one/b-conf"
	mkskill "$R/a-repo"
	settings '{"knowledge":{"skills":{"additional_paths":["'"$C/one"'"]}}}'
	skills
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo -c '[.skills[] | [.name, .source]]')" \
	    '[["a-repo","repo"],["b-conf","configured"],["c-user","user"],["d-legacy","legacy"]]'
	assert_equal "$(jqo '.skills[3].path')" "$L/d-legacy/SKILL.md"
	assert_equal "$(jqo '.skills[2].path')" "$U/c-user/SKILL.md"
	assert_equal "$(jqo '.skills[1].path')" "$C/one/b-conf/SKILL.md"
}

@test "priority: repo > configured (later > earlier) > user > legacy" {
	for d in "$L" "$U" "$C/one" "$C/two" "$R"; do mkskill "$d/same" "from $d"; done
	settings '{"knowledge":{"skills":{"additional_paths":["'"$C/one"'","'"$C/two"'"]}}}'
	skills
	assert_equal "$(jqo -c '[.skills[] | [.name, .source, .description]]')" "[[\"same\",\"repo\",\"from $R\"]]"
	rm -r "$R/same"
	skills
	assert_equal "$(jqo -c '[.skills[] | [.source, .description]]')" "[[\"configured\",\"from $C/two\"]]"
	settings '{"knowledge":{"skills":{"additional_paths":["'"$C/two"'","'"$C/one"'"]}}}'
	skills
	assert_equal "$(jqo '.skills[0].description')" "from $C/one"
	settings '{}'
	skills
	assert_equal "$(jqo -c '[.skills[] | [.source, .description]]')" "[[\"user\",\"from $U\"]]"
	rm -r "$U/same"
	skills
	assert_equal "$(jqo -c '[.skills[] | [.source, .description]]')" "[[\"legacy\",\"from $L\"]]"
	assert_equal "$(jqo '.diagnostics | length')" 0
}

@test "a refused SKILL.md does not claim the name: the next root's skill is listed" {
	mkskill "$U/review" "user's review"
	mkdir -p "$R/review"
	printf 'x' >"$BATS_TEST_TMPDIR/target.md"
	ln -s "$BATS_TEST_TMPDIR/target.md" "$R/review/SKILL.md"
	skills
	assert_failure 1
	assert_equal "$(jqo -c '[.skills[] | [.name, .source, .description]]')" '[["review","user","user'"'"'s review"]]'
}

@test "a root reached twice is scanned once, as the higher one" {
	mkskill "$U/solo"
	mkdir -p "$R"
	settings '{"knowledge":{"skills":{"additional_paths":["'"$U"'/"]}}}'
	mkdir "$R/Bad"
	echo x >"$R/Bad/SKILL.md"
	cp -r "$R/Bad" "$U/Bad"
	skills
	assert_success
	assert_equal "$(jqo -c '[.skills[] | [.name, .source, .path]]')" "[[\"solo\",\"configured\",\"$U/solo/SKILL.md\"]]"
	# one warning for $U/Bad, one for $R/Bad: not two for $U
	assert_equal "$(jqo '[.diagnostics[] | select(.path == "'"$U/Bad"'")] | length')" 1
}

@test "configured roots must be absolute; a missing configured root is an error naming the setting with its index" {
	mkskill "$C/ok/fine"
	settings '{"knowledge":{"skills":{"additional_paths":["rel/skills","'"$C/ok"'","'"$C/missing"'"]}}}'
	skills
	assert_failure 1
	assert_equal "$(names)" '["fine"]'
	assert_equal "$(jqo -c '[.diagnostics[] | [.severity, .path, .message]]')" \
	    "[[\"error\",\"$MC_HOME/settings.json\",\"knowledge.skills.additional_paths[0]: path must be absolute: rel/skills\"],[\"error\",\"$MC_HOME/settings.json\",\"knowledge.skills.additional_paths[2]: no such directory: $C/missing\"]]"
	assert_equal "${stderr_lines[0]}" "mc-skills: $MC_HOME/settings.json: knowledge.skills.additional_paths[0]: path must be absolute: rel/skills"
	assert_equal "${stderr_lines[1]}" "mc-skills: $MC_HOME/settings.json: knowledge.skills.additional_paths[2]: no such directory: $C/missing"
	skills --keep-going
	assert_success
}

@test "missing optional roots are quiet; a root that is a file is an error" {
	skills
	assert_success
	assert_equal "$stderr" ""
	mkdir -p "$W/.agents"
	echo x >"$R"
	skills
	assert_failure 1
	assert_equal "$(jqo -c '.diagnostics[0] | [.severity, .path, .message]')" "[\"error\",\"$(pwd -P)/.agents/skills\",\"not a directory\"]"
}

@test "invalid settings: one-line error naming the setting, exit 1" {
	settings '{"knowledge":{"skills":{"disabled":"x"}}}'
	skills
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-skills: $MC_HOME/settings.json: knowledge.skills.disabled: expected an array of strings"
}

# ---- layout and names ------------------------------------------------------

@test "direct and one-level grouped layouts; deeper ones are not skills" {
	mkskill "$R/direct"
	mkskill "$R/group/inner"
	mkskill "$R/group/deeper/too-deep"
	mkskill "$R/Team Skills/spaced-group"
	mkdir -p "$R/group/assets"
	echo "not a skill" >"$R/README.md"
	echo "not a skill" >"$R/group/notes.txt"
	skills
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(names)" '["direct","inner","spaced-group"]'
	assert_equal "$(jqo '.skills[1].path')" "$(pwd -P)/.agents/skills/group/inner/SKILL.md"
	assert_equal "$(jqo '.skills[2].path')" "$(pwd -P)/.agents/skills/Team Skills/spaced-group/SKILL.md"
}

@test "a skill directory's subdirectories are its own files, not skills" {
	mkskill "$R/outer"
	mkskill "$R/outer/nested"
	skills
	assert_equal "$(names)" '["outer"]'
}

@test "the name comes from the directory, never the frontmatter" {
	mkdir -p "$R/real-name"
	printf -- '---\nname: fake-name\ndescription: d\n---\n' >"$R/real-name/SKILL.md"
	skills
	assert_equal "$(names)" '["real-name"]'
}

@test "names outside a-z 0-9 - or longer than 64 are skipped with a warning" {
	long64=$(printf 'a%.0s' {1..64})
	long65=$(printf 'b%.0s' {1..65})
	for n in ok-1 "$long64" Upper under_score "has space" "$long65" "caf$(printf '\303\251')"; do
		mkskill "$R/$n"
	done
	mkskill "$R/grp/Bad.Name"
	mkskill "$R/grp/fine"
	skills
	assert_success
	assert_equal "$(names)" "[\"$long64\",\"fine\",\"ok-1\"]"
	assert_equal "$(jqo '[.diagnostics[] | select(.severity == "warning")] | length')" 6
	assert_equal "$(jqo '[.diagnostics[] | select(.path == "'"$(pwd -P)/.agents/skills/grp/Bad.Name"'")] | .[0].message')" \
	    "invalid skill name (1-64 characters of a-z, 0-9 and -); skipped"
	assert_regex "$stderr" "mc-skills: warning: $(pwd -P)/.agents/skills/Upper: invalid skill name"
	assert_equal "$(grep -c 'warning:' <<<"$stderr")" 6
}

@test "a name with a newline is skipped and shown escaped" {
	mkskill "$R/$(printf 'bad\nname')"
	skills
	assert_success
	assert_equal "$(names)" '[]'
	assert_equal "$(jqo '.diagnostics[0].path')" "$(pwd -P)/.agents/skills/bad\\nname"
	assert_equal "$(wc -l <<<"$stderr")" 1
}

@test "hidden directories are ignored quietly" {
	mkskill "$R/.hidden"
	mkskill "$R/.git/objects"
	mkskill "$R/shown"
	skills
	assert_equal "$(names)" '["shown"]'
	assert_equal "$stderr" ""
}

@test "the same name twice in one root: the direct one wins, with a warning" {
	mkskill "$R/twin" direct
	mkskill "$R/g1/twin" g1
	mkskill "$R/g2/twin" g2
	mkskill "$R/g1/pair" "pair g1"
	mkskill "$R/g2/pair" "pair g2"
	skills
	assert_success
	assert_equal "$(jqo -c '[.skills[] | [.name, .description]]')" '[["pair","pair g1"],["twin","direct"]]'
	assert_equal "$(jqo '[.diagnostics[] | select(.severity == "warning")] | length')" 3
	assert_equal "$(jqo '.diagnostics[] | select(.path | endswith("g2/pair/SKILL.md")) | .message')" \
	    "skill \"pair\" is also at $(pwd -P)/.agents/skills/g1/pair/SKILL.md in the same root; that one is used"
}

# ---- frontmatter -----------------------------------------------------------

@test "frontmatter: quoted values, CRLF, empty and missing descriptions" {
	mkdir -p "$R/dq" "$R/sq" "$R/crlf" "$R/empty" "$R/none" "$R/nofm" "$R/colon"
	printf -- '---\ndescription: "  Double: quoted  "\n---\n' >"$R/dq/SKILL.md"
	printf -- "---\ndescription: 'single'\n---\n" >"$R/sq/SKILL.md"
	printf -- '---\r\ndescription: with CRLF\r\n---\r\nbody\r\n' >"$R/crlf/SKILL.md"
	printf -- '---\ndescription:\n---\n' >"$R/empty/SKILL.md"
	printf -- '---\nname: none\n---\n' >"$R/none/SKILL.md"
	printf -- '# description: not frontmatter\n' >"$R/nofm/SKILL.md"
	printf -- '---\ndescription: a: b: c\n---\n' >"$R/colon/SKILL.md"
	skills
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo -c '[.skills[] | [.name, .description]]')" \
	    '[["colon","a: b: c"],["crlf","with CRLF"],["dq","Double: quoted"],["empty",""],["nofm",""],["none",""],["sq","single"]]'
}

@test "unterminated frontmatter: a warning naming the file, listed without a description" {
	mkdir -p "$R/open"
	printf -- '---\ndescription: never closed\n# body\n' >"$R/open/SKILL.md"
	skills
	assert_success
	assert_equal "$(jqo -c '.skills[0] | [.name, .description]')" '["open",""]'
	assert_equal "$(jqo -c '.diagnostics[0] | [.severity, .path]')" "[\"warning\",\"$(pwd -P)/.agents/skills/open/SKILL.md\"]"
	assert_regex "$(jqo '.diagnostics[0].message')" 'unterminated frontmatter'
	assert_equal "$stderr" "mc-skills: warning: $(pwd -P)/.agents/skills/open/SKILL.md: unterminated frontmatter (no closing ---); listed without a description"
}

@test "a UTF-8 byte order mark before the frontmatter is accepted" {
	mkdir -p "$R/bom"
	printf -- '\357\273\277---\r\ndescription: after a BOM\r\n---\r\n' >"$R/bom/SKILL.md"
	skills
	assert_success
	assert_equal "$(jqo '.skills[0].description')" "after a BOM"
}

@test "--- inside the body does not end or reopen the frontmatter" {
	mkdir -p "$R/rule"
	printf -- '---\ndescription: first\n---\ntext\n---\ndescription: second\n---\n' >"$R/rule/SKILL.md"
	skills
	assert_equal "$(jqo '.skills[0].description')" "first"
}

@test "description: control characters become spaces, one line, at most 1024 characters" {
	mkdir -p "$R/ctl" "$R/long" "$R/exact"
	printf -- '---\ndescription: a\tb\vc\033[31md\302\205e\342\200\250f\n---\n' >"$R/ctl/SKILL.md"
	long=$(printf '\303\251%.0s' {1..1100})	# 1100 two-byte characters
	printf -- '---\ndescription: %s\n---\n' "$long" >"$R/long/SKILL.md"
	exact=$(printf 'x%.0s' {1..1024})
	printf -- '---\ndescription: %s\n---\n' "$exact" >"$R/exact/SKILL.md"
	skills
	assert_success
	assert_equal "$(jqo '.skills[0].description')" 'a b c [31md e f'
	assert_equal "$(jqo '.skills[1].description')" "$exact"
	assert_equal "$(jqo '.skills[2].description | length')" 1024
	assert_equal "$(jqo '.skills[2].description')" "$(printf '\303\251%.0s' {1..1024})"
	assert_equal "$(jqo '.diagnostics | length')" 1
	assert_equal "$(jqo '.diagnostics[0].message')" "description is 1100 characters, cut to 1024"
}

# ---- refusals --------------------------------------------------------------

@test "a symlinked SKILL.md is refused with an error; discovery goes on" {
	mkskill "$R/fine"
	mkdir -p "$R/linked"
	mkskill "$R/fine-too"
	ln -s ../fine/SKILL.md "$R/linked/SKILL.md"
	skills
	assert_failure 1
	assert_equal "$(names)" '["fine","fine-too"]'
	assert_equal "$(jqo -c '.diagnostics[0] | [.severity, .path]')" "[\"error\",\"$(pwd -P)/.agents/skills/linked/SKILL.md\"]"
	assert_regex "$stderr" "^mc-skills: $(pwd -P)/.agents/skills/linked/SKILL.md: symbolic link refused"
	skills --keep-going
	assert_success
	assert_equal "$(names)" '["fine","fine-too"]'
}

@test "symlinked directories are never traversed: skills, groups, the repo root" {
	mkskill "$BATS_TEST_TMPDIR/elsewhere/via-link"
	mkskill "$BATS_TEST_TMPDIR/elsewhere/grp/via-group"
	mkskill "$R/real"
	ln -s "$BATS_TEST_TMPDIR/elsewhere/via-link" "$R/via-link"
	ln -s "$BATS_TEST_TMPDIR/elsewhere/grp" "$R/grp"
	mkdir -p "$R/g2"
	ln -s "$BATS_TEST_TMPDIR/elsewhere/via-link" "$R/g2/in-group"
	ln -s "$BATS_TEST_TMPDIR/elsewhere/nothing" "$R/dangling"
	skills
	assert_success
	assert_equal "$(names)" '["real"]'
	assert_equal "$(jqo -c '[.diagnostics[] | [.severity, (.path | sub(".*/skills/"; "")), .message]]')" \
	    '[["warning","g2/in-group","symbolic link to a directory; not traversed"],["warning","grp","symbolic link to a directory; not traversed"],["warning","via-link","symbolic link to a directory; not traversed"]]'
	# the repository's .agents/skills itself
	rm -rf "$W/.agents"
	mkdir "$W/.agents"
	ln -s "$BATS_TEST_TMPDIR/elsewhere" "$R"
	skills
	assert_equal "$(names)" '[]'
	assert_equal "$(jqo -c '.diagnostics[0] | [.severity, .path]')" "[\"warning\",\"$(pwd -P)/.agents/skills\"]"
	rm -rf "$W/.agents"
	ln -s "$BATS_TEST_TMPDIR/elsewhere" "$W/.agents"
	skills
	assert_equal "$(names)" '[]'
	assert_equal "$(jqo -c '.diagnostics[0] | [.severity, .path]')" "[\"warning\",\"$(pwd -P)/.agents\"]"
}

@test "a user's root may itself be a link (dotfile managers)" {
	mkskill "$BATS_TEST_TMPDIR/dotfiles/skills/mine"
	ln -s "$BATS_TEST_TMPDIR/dotfiles/skills" "$U"
	skills
	assert_success
	assert_equal "$(jqo -c '[.skills[] | [.name, .source]]')" '[["mine","user"]]'
}

@test "SKILL.md over 1 MiB is refused; exactly 1 MiB is loaded" {
	mkdir -p "$R/big" "$R/edge"
	{ printf -- '---\ndescription: big\n---\n'; head -c 1048576 /dev/zero | tr '\0' x; } >"$R/big/SKILL.md"
	head=$'---\ndescription: edge\n---\n'
	{ printf '%s' "$head"; head -c $((1048576 - ${#head})) /dev/zero | tr '\0' x; } >"$R/edge/SKILL.md"
	assert_equal "$(stat -c %s "$R/edge/SKILL.md")" 1048576
	skills
	assert_failure 1
	assert_equal "$(names)" '["edge"]'
	assert_equal "$(jqo -c '.diagnostics[0] | [.severity, .path, .message]')" \
	    "[\"error\",\"$(pwd -P)/.agents/skills/big/SKILL.md\",\"file is 1048601 bytes, over the 1048576-byte cap; not loaded\"]"
}

@test "non-UTF-8, NUL bytes, FIFOs and directories named SKILL.md are refused" {
	mkdir -p "$R/latin1" "$R/nul" "$R/fifo" "$R/dir/SKILL.md" "$R/ok"
	printf -- '---\ndescription: caf\351\n---\n' >"$R/latin1/SKILL.md"
	printf -- '---\ndescription: x\n---\na\0b' >"$R/nul/SKILL.md"
	mkfifo "$R/fifo/SKILL.md"
	mkskill "$R/ok"
	run --separate-stderr timeout 10 mc-skills </dev/null
	assert_failure 1
	assert_equal "$(names)" '["ok"]'
	assert_equal "$(jqo -c '[.diagnostics[] | [(.path | sub(".*/skills/"; "")), .message]]')" \
	    '[["dir/SKILL.md","not a regular file"],["fifo/SKILL.md","not a regular file"],["latin1/SKILL.md","not valid UTF-8 text"],["nul/SKILL.md","not valid UTF-8 text"]]'
	assert_equal "$(wc -l <<<"$stderr")" 4
	# diagnostics come in path order whatever order the directory lists
	assert_equal "${stderr_lines[2]}" "mc-skills: $(pwd -P)/.agents/skills/latin1/SKILL.md: not valid UTF-8 text"
}

@test "an unreadable SKILL.md or skill directory is an error naming it" {
	mkskill "$R/locked"
	mkskill "$R/sealed"
	mkskill "$R/ok"
	chmod 000 "$R/locked/SKILL.md"
	chmod 000 "$R/sealed"
	run --separate-stderr unprivileged mc-skills </dev/null
	chmod 755 "$R/sealed"
	assert_failure 1
	assert_equal "$(names)" '["ok"]'
	assert_equal "$(jqo -c '[.diagnostics[] | [(.path | sub(".*/skills/"; "")), .message]]')" \
	    '[["locked/SKILL.md","Permission denied"],["sealed","Permission denied"]]'
}

@test "disabled skills stay listed with enabled false" {
	mkskill "$R/on"
	mkskill "$U/off"
	settings '{"knowledge":{"skills":{"disabled":["off","not-there"]}}}'
	skills
	assert_success
	assert_equal "$(jqo -c '[.skills[] | [.name, .enabled]]')" '[["off",false],["on",true]]'
}

@test "-q keeps warnings off stderr but in the document" {
	mkskill "$R/Bad"
	skills -q
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo '.diagnostics[0].severity')" warning
}

@test "errors are printed even with -q, and set exit 1 unless --keep-going" {
	mkdir -p "$R/bad"
	printf '\377' >"$R/bad/SKILL.md"
	skills -q
	assert_failure 1
	assert_equal "$stderr" "mc-skills: $(pwd -P)/.agents/skills/bad/SKILL.md: not valid UTF-8 text"
	assert_equal "$(jqo '.skills | length')" 0
	skills -q --keep-going
	assert_success
}

@test "thousands of skills, direct and grouped, all found and sorted" {
	mkdir -p "$R" "$U"
	for i in $(seq 1 2500); do
		mkdir "$R/s$i"
		printf -- '---\ndescription: skill %d\n---\n' "$i" >"$R/s$i/SKILL.md"
	done
	for g in 1 2 3 4 5; do
		for i in $(seq 1 200); do
			mkdir -p "$U/grp$g/g$g-$i"
			printf -- '---\ndescription: grouped %d %d\n---\n' "$g" "$i" >"$U/grp$g/g$g-$i/SKILL.md"
		done
	done
	mkdir "$U/s7"
	printf -- '---\ndescription: shadowed\n---\n' >"$U/s7/SKILL.md"
	skills
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo '.skills | length')" 3500
	assert_equal "$(jqo '[.skills[].name] == ([.skills[].name] | sort)')" true
	assert_equal "$(jqo '[.skills[].name] | unique | length')" 3500
	assert_equal "$(jqo -c '.skills[] | select(.name == "s7") | [.source, .description]')" '["repo","skill 7"]'
	assert_equal "$(jqo -c '.skills[] | select(.name == "g3-150") | [.source, .description, .path]')" \
	    "[\"user\",\"grouped 3 150\",\"$U/grp3/g3-150/SKILL.md\"]"
	assert_equal "$(jqo '[.skills[] | select(.source == "user")] | length')" 1000
}

@test "hundreds of skills: exact names and diagnostics in path order, every run" {
	local P i n long exp_names="" exp_diags=""
	mkdir -p "$R"
	P=$(cd "$R" && pwd -P)
	long=$(printf '%1030s' '' | tr ' ' x)
	for i in $(seq -w 0 199); do
		n=s$i
		case $((10#$i % 25)) in
		3)	mkdir "$R/$n"
			ln -s ../s000/SKILL.md "$R/$n/SKILL.md"
			exp_diags+="$P/$n/SKILL.md	symbolic link refused; SKILL.md must be a regular file"$'\n' ;;
		7)	mkdir "$R/$n"
			printf '\377\n' >"$R/$n/SKILL.md"
			exp_diags+="$P/$n/SKILL.md	not valid UTF-8 text"$'\n' ;;
		11)	mkdir "$R/$n"
			printf -- '---\ndescription: open\n' >"$R/$n/SKILL.md"
			exp_diags+="$P/$n/SKILL.md	unterminated frontmatter (no closing ---); listed without a description"$'\n'
			exp_names+="$n	$P/$n/SKILL.md"$'\n' ;;
		19)	mkskill "$R/$n" "$long"
			exp_diags+="$P/$n/SKILL.md	description is 1030 characters, cut to 1024"$'\n'
			exp_names+="$n	$P/$n/SKILL.md"$'\n' ;;
		*)	mkskill "$R/$n"
			exp_names+="$n	$P/$n/SKILL.md"$'\n' ;;
		esac
	done
	for i in 0 1 2; do
		mkskill "$R/Bad$i"
		exp_diags+="$P/Bad$i	invalid skill name (1-64 characters of a-z, 0-9 and -); skipped"$'\n'
	done
	# Two groups of the same 70 names: g1 wins, g2's are diagnosed; g2/g-05
	# has two diagnostics, which keep the order they were made in.
	for i in $(seq -w 0 69); do
		mkskill "$R/g1/g-$i"
		mkskill "$R/g2/g-$i" "$([ "$i" = 05 ] && echo "$long")"
		exp_names+="g-$i	$P/g1/g-$i/SKILL.md"$'\n'
		[ "$i" = 05 ] && exp_diags+="$P/g2/g-05/SKILL.md	description is 1030 characters, cut to 1024"$'\n'
		exp_diags+="$P/g2/g-$i/SKILL.md	skill \"g-$i\" is also at $P/g1/g-$i/SKILL.md in the same root; that one is used"$'\n'
	done
	mkskill "$R/g1/s005"
	exp_diags+="$P/g1/s005/SKILL.md	skill \"s005\" is also at $P/s005/SKILL.md in the same root; that one is used"$'\n'
	skills
	assert_failure 1
	local first=$output
	assert_equal "$(jqo '.skills[] | "\(.name)\t\(.path)"')" "$(sort <<<"${exp_names%$'\n'}")"
	assert_equal "$(jqo '.diagnostics[] | "\(.path)\t\(.message)"')" \
	    "$(sort -s -t $'\t' -k1,1 <<<"${exp_diags%$'\n'}")"
	skills
	assert_equal "$output" "$first"
}

# ---- usage -----------------------------------------------------------------

@test "usage: --help, --version, bad flags and commands" {
	run --separate-stderr mc-skills --help
	assert_success
	assert_line --index 0 'usage: mc-skills [-q] [--pretty] [--keep-going] [-C DIR]'
	assert_line --index 1 '       mc-skills [-q] [-C DIR] read skill://NAME[/PATH]'
	run --separate-stderr mc-skills --version
	assert_success
	assert_output --regexp '^mc-skills \(mc\) [0-9]'
	run --separate-stderr mc-skills --bogus </dev/null
	assert_failure 2
	assert_output ""
	run --separate-stderr mc-skills list </dev/null
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "mc-skills: unknown command: list"
	run --separate-stderr mc-skills read
	assert_failure 2
	run --separate-stderr mc-skills read skill://a skill://b
	assert_failure 2
	run --separate-stderr mc-skills read /etc/passwd
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "mc-skills: not a skill:// URI: /etc/passwd"
	run --separate-stderr mc-skills --pretty read skill://a
	assert_failure 2
	run --separate-stderr mc-skills -C
	assert_failure 2
}

# ---- mc-skills read --------------------------------------------------------

@test "read skill://NAME prints SKILL.md byte for byte" {
	mkdir -p "$R/crlf"
	printf -- '---\r\ndescription: x\r\n---\r\nbody\r\nno newline at end' >"$R/crlf/SKILL.md"
	mc-skills read skill://crlf </dev/null >"$BATS_TEST_TMPDIR/out"
	cmp "$R/crlf/SKILL.md" "$BATS_TEST_TMPDIR/out"
	mc-skills read skill://crlf/SKILL.md </dev/null >"$BATS_TEST_TMPDIR/out"
	cmp "$R/crlf/SKILL.md" "$BATS_TEST_TMPDIR/out"
}

@test "read skill://NAME/PATH prints a file inside the skill, grouped or not" {
	mkskill "$R/a"
	mkdir -p "$R/a/refs/deep"
	printf 'guide\n' >"$R/a/refs/deep/guide.md"
	mkskill "$U/grp/b"
	printf 'bee\n' >"$U/grp/b/notes.txt"
	run --separate-stderr mc-skills read skill://a/refs/deep/guide.md
	assert_success
	assert_output guide
	assert_equal "$stderr" ""
	run --separate-stderr mc-skills read skill://a/./refs//deep/guide.md
	assert_success
	assert_output guide
	run --separate-stderr mc-skills read skill://b/notes.txt
	assert_success
	assert_output bee
}

@test "read takes -C DIR and does not read stdin" {
	mkskill "$BATS_TEST_TMPDIR/other/.agents/skills/there" "over there"
	run --separate-stderr mc-skills -C "$BATS_TEST_TMPDIR/other" read skill://there <<<'not json'
	assert_success
	assert_line --index 1 'description: over there'
	run --separate-stderr mc-skills read skill://there </dev/null
	assert_failure 1
}

@test "read refuses .. anywhere in the path" {
	mkskill "$R/a"
	mkskill "$R/b"
	mkdir -p "$R/a/refs"
	for ref in ../b/SKILL.md refs/../../b/SKILL.md .. refs/.. ../a/SKILL.md; do
		run --separate-stderr mc-skills read "skill://a/$ref"
		assert_failure 1
		assert_output ""
		assert_equal "$stderr" "mc-skills: skill://a/$ref: \"..\" refused; the path must stay inside the skill directory"
	done
}

@test "read refuses absolute paths" {
	mkskill "$R/a"
	for ref in /etc/passwd //etc/passwd "/$(pwd -P)/.agents/skills/a/SKILL.md"; do
		run --separate-stderr mc-skills read "skill://a/$ref"
		assert_failure 1
		assert_output ""
		assert_regex "$stderr" '^mc-skills: skill://a//.*: absolute path refused'
	done
}

@test "read refuses symlinks anywhere on the way, even to files inside the skill" {
	mkskill "$R/a"
	mkskill "$R/b"
	mkdir -p "$R/a/refs"
	printf 'inside\n' >"$R/a/refs/real.md"
	ln -s real.md "$R/a/refs/link.md"
	ln -s refs "$R/a/linkdir"
	ln -s ../b "$R/a/other-skill"
	ln -s /etc "$R/a/etc"
	run --separate-stderr mc-skills read skill://a/refs/link.md
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-skills: skill://a/refs/link.md: refs/link.md is a symbolic link; refused"
	run --separate-stderr mc-skills read skill://a/linkdir/real.md
	assert_failure 1
	assert_equal "$stderr" "mc-skills: skill://a/linkdir/real.md: linkdir is a symbolic link; refused"
	run --separate-stderr mc-skills read skill://a/other-skill/SKILL.md
	assert_failure 1
	assert_regex "$stderr" 'other-skill is a symbolic link; refused$'
	run --separate-stderr mc-skills read skill://a/etc/passwd
	assert_failure 1
	assert_regex "$stderr" 'etc is a symbolic link; refused$'
	run --separate-stderr mc-skills read skill://a/refs/real.md
	assert_success
	assert_output inside
}

@test "read: a symlinked skill directory or SKILL.md is not a skill" {
	mkskill "$BATS_TEST_TMPDIR/elsewhere/linked"
	mkdir -p "$R"
	ln -s "$BATS_TEST_TMPDIR/elsewhere/linked" "$R/linked"
	mkdir -p "$R/file-link"
	ln -s "$BATS_TEST_TMPDIR/elsewhere/linked/SKILL.md" "$R/file-link/SKILL.md"
	run --separate-stderr mc-skills read skill://linked
	assert_failure 1
	assert_equal "$stderr" "mc-skills: skill://linked: no such skill: linked"
	run --separate-stderr mc-skills read skill://file-link
	assert_failure 1
	assert_equal "$stderr" "mc-skills: skill://file-link: no such skill: file-link"
}

@test "read never reaches another skill's directory, not even a shadowed one of the same name" {
	mkskill "$R/a" "repo a"
	mkskill "$U/a" "user a"
	printf 'user only\n' >"$U/a/extra.md"
	run --separate-stderr mc-skills read skill://a/extra.md
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-skills: skill://a/extra.md: no such file in the skill directory"
	run --separate-stderr mc-skills read skill://a
	assert_success
	assert_line --index 1 'description: repo a'
}

@test "read follows the listing: a refused SKILL.md falls back to the lower root" {
	mkskill "$U/a" "user a"
	mkdir -p "$R/a"
	printf 'caf\351\n' >"$R/a/SKILL.md"
	run --separate-stderr mc-skills read skill://a
	assert_success
	assert_equal "$stderr" ""
	assert_line --index 1 'description: user a'
}

@test "read: unknown, invalid and disabled skills are exit 1" {
	mkskill "$R/off"
	settings '{"knowledge":{"skills":{"disabled":["off"]}}}'
	run --separate-stderr mc-skills read skill://nope
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-skills: skill://nope: no such skill: nope"
	run --separate-stderr mc-skills read skill://off
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-skills: skill://off: skill off is disabled (knowledge.skills.disabled)"
	run --separate-stderr mc-skills read skill://off/SKILL.md
	assert_failure 1
	for bad in skill:// skill://../etc skill://Off "skill://$(printf 'x%.0s' {1..65})"; do
		run --separate-stderr mc-skills read "$bad"
		assert_failure 1
		assert_output ""
		assert_regex "$stderr" '^mc-skills: skill://.*: invalid skill name'
	done
}

@test "read: missing files, directories, FIFOs, non-UTF-8 and files over 1 MiB are exit 1" {
	mkskill "$R/a"
	mkdir -p "$R/a/dir"
	mkfifo "$R/a/pipe"
	printf 'caf\351\n' >"$R/a/latin1.txt"
	head -c 1048577 /dev/zero | tr '\0' x >"$R/a/big.txt"
	head -c 1048576 /dev/zero | tr '\0' y >"$R/a/edge.txt"
	run --separate-stderr mc-skills read skill://a/missing.md
	assert_failure 1
	assert_equal "$stderr" "mc-skills: skill://a/missing.md: no such file in the skill directory"
	run --separate-stderr mc-skills read skill://a/missing/x.md
	assert_failure 1
	run --separate-stderr mc-skills read skill://a/dir
	assert_failure 1
	assert_equal "$stderr" "mc-skills: skill://a/dir: dir is a directory, not a file"
	run --separate-stderr mc-skills read skill://a/dir/
	assert_failure 1
	assert_equal "$stderr" "mc-skills: skill://a/dir/: dir/ names a directory, not a file"
	run --separate-stderr mc-skills read skill://a/SKILL.md/x
	assert_failure 1
	assert_equal "$stderr" "mc-skills: skill://a/SKILL.md/x: SKILL.md is not a directory"
	run --separate-stderr timeout 10 mc-skills read skill://a/pipe
	assert_failure 1
	assert_equal "$stderr" "mc-skills: skill://a/pipe: pipe is not a regular file"
	run --separate-stderr mc-skills read skill://a/latin1.txt
	assert_failure 1
	assert_equal "$stderr" "mc-skills: skill://a/latin1.txt: not valid UTF-8 text"
	run --separate-stderr mc-skills read skill://a/big.txt
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-skills: skill://a/big.txt: file is 1048577 bytes, over the 1048576-byte cap"
	mc-skills read skill://a/edge.txt </dev/null >"$BATS_TEST_TMPDIR/out"
	cmp "$R/a/edge.txt" "$BATS_TEST_TMPDIR/out"
}

@test "a closed reader is not an error, for the document and for read" {
	mkskill "$R/a"
	head -c 900000 /dev/zero | tr '\0' z >"$R/a/long.txt"
	run bash -c 'set -o pipefail; mc-skills read skill://a/long.txt | head -c 10'
	assert_success
	assert_output zzzzzzzzzz
	for i in $(seq 1 2000); do mkdir "$R/s$i" && echo x >"$R/s$i/SKILL.md"; done
	run bash -c 'set -o pipefail; mc-skills </dev/null | head -c 10'
	assert_success
	assert_output '{"version"'
}
