#!/usr/bin/env bats
# mc-discover: SPEC §1 and the shared rules of §0 it exercises.

load helper

@test "no instruction files: a valid empty document, exit 0" {
	run --separate-stderr mc-discover
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo '.instructions | length')" 0
	assert_equal "$(jqo '.diagnostics | length')" 0
	assert_equal "$(jqo .version)" 1
	assert_equal "$(jqo .root)" "$(pwd -P)"
	assert_equal "$(jqo .mc_home)" "$MC_HOME"
}
