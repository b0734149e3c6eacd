#!/usr/bin/env bats
# A new user's first hour with the newest features (images, @mentions,
# !commands, mc acp): what they tripped on, each on its own.

load helper
load fake
load mc

@test "Ctrl-C while the provider is slow leaves no spinner on the terminal" {
	fake_start '[{"delay":30,"answer":{"api":"chat","text":"too late"}},{"delay":30,"answer":{"api":"chat","text":"too late"}}]'
	use_fake
	on_tty 'mc'
	wait_prompt 1
	keys 'slow please' Enter
	wait_for 'waiting for fake'
	keys C-c
	wait_for '(cancelled)'
	run pane
	refute_output --partial 'waiting for fake'
	keys C-d
	assert_equal "$(wait_status)" 0
	# a one-shot run, whose Ctrl-C ends it
	on_tty 'mc "slow too"'
	wait_for 'waiting for fake'
	keys C-c
	assert_equal "$(wait_status)" 130
	run pane
	refute_output --partial 'waiting for fake'
}
