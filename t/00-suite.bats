#!/usr/bin/env bats
# Rules every program of the suite shares (SPEC §0).

load helper

programs() {
	for p in "$MC_BIN"/mc*; do
		[ -x "$p" ] && basename "$p"
	done
}

@test "every program answers --help on stdout with exit 0" {
	for p in $(programs); do
		run --separate-stderr "$p" --help
		assert_success
		assert_line --index 0 --partial "usage: $p"
		assert_equal "$stderr" ""
	done
}

@test "every program answers --version" {
	for p in $(programs); do
		run --separate-stderr "$p" --version
		assert_success
		assert_output --regexp "^$p \\(mc\\) [0-9]"
	done
}

@test "every program rejects an unknown option with exit 2 and no stdout" {
	for p in $(programs); do
		run --separate-stderr "$p" --no-such-option </dev/null
		assert_failure 2
		assert_output ""
		[ -n "$stderr" ]
	done
}

@test "every program has a man page, and every man page is mandoc -Tlint clean" {
	for p in $(programs); do
		[ -f "$MC_TOP/man/$p.1" ] || fail "no man page for $p"
	done
	[ -f "$MC_TOP/man/mc.7" ]
	run mandoc -Tlint -Wwarning "$MC_TOP"/man/*.[17]
	assert_success
	assert_output ""
}

@test "the driver's files call each other in layers: no file reaches back to itself (scripts/layers)" {
	run "$MC_TOP/scripts/layers" "$MC_TOP"
	assert_success
	assert_output ""
	# and the check sees a circle where there is one
	mkdir -p "$BATS_TEST_TMPDIR/top/cmd/mc"
	printf 'int\na(void)\n{\n\treturn b();\n}\n' >"$BATS_TEST_TMPDIR/top/cmd/mc/one.c"
	printf 'int\nb(void)\n{\n\treturn a();\n}\n' >"$BATS_TEST_TMPDIR/top/cmd/mc/two.c"
	run "$MC_TOP/scripts/layers" "$BATS_TEST_TMPDIR/top"
	assert_failure 1
	assert_line --index 0 'layers: a circle of cmd/mc files: one.c, two.c'
	assert_line '  one.c calls b() of two.c'
}
