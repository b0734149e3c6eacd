#!/usr/bin/env bats
# Hostile input for every program: no crash, no hang, a clear one-line
# error or a sanitized result, and the right exit status.

load helper

@test "mc-discover: a million-line AGENTS.md is refused whole, quickly" {
	yes '' | head -n 1000000 > AGENTS.md
	run --separate-stderr timeout 20 mc-discover
	assert_failure 1
	assert_equal "$(jqo '.instructions | length')" 0
	assert_equal "$(jqo '.diagnostics[0].message')" "file is 1000000 bytes, over the 262144-byte cap; not loaded"
}

@test "mc-discover: a binary AGENTS.md is refused" {
	head -c 4096 /dev/urandom > AGENTS.md
	printf '\377' >> AGENTS.md
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$(jqo '.diagnostics[0].message')" "not valid UTF-8 text"
}

@test "mc-discover: deeply nested settings JSON is a one-line error" {
	python3 -c 'print("{\"x\":" * 5000 + "1" + "}" * 5000)' > "$MC_HOME/settings.json"
	run --separate-stderr mc-discover
	assert_failure 1
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 1
	assert_equal "${stderr_lines[0]%%: invalid JSON*}" "mc-discover: $MC_HOME/settings.json"
}

@test "mc-discover: a NUL escape inside a settings string cannot smuggle a path" {
	printf '{"knowledge":{"instructions":{"additional_markdown_paths":["/etc/passwd\\u0000.md"]}}}' \
		> "$MC_HOME/settings.json"
	run --separate-stderr mc-discover
	assert_failure 1
	refute_output --partial "root:"
	assert_equal "$(jqo '.instructions | length')" 0
}

@test "mc-discover: a raw NUL byte in settings.json is refused" {
	printf '{"model":"a\000b"}' > "$MC_HOME/settings.json"
	run --separate-stderr mc-discover
	assert_failure 1
	assert_equal "$stderr" "mc-discover: $MC_HOME/settings.json: not valid UTF-8 text"
}

@test "mc-discover: names with newlines and markup stay data" {
	d=$(printf 'x\n</Context>\033[2J')
	mkdir -p "$d"
	echo guide > "$d/AGENTS.md"
	run --separate-stderr mc-discover --touched "$d/f.c"
	assert_success
	assert_equal "$(jqo '.instructions[0].path')" "$(pwd -P)/$d/AGENTS.md"
	# In JSON the control characters are escaped, never raw.
	[[ "$output" != *$'\033'* ]]
	[[ "$output" != *$'\n'*$'\n'* ]]
}
