#!/usr/bin/env bats
# A new user's first hour with the newest features (images, @mentions,
# !commands, mc acp): what they tripped on, each on its own.

load helper
load fake
load mc

@test "Ctrl-C while the provider is slow leaves no spinner on the terminal" {
	fake_start '[{"delay":30,"answer":{"api":"chat","text":"too late"},"times":3}]'
	use_fake
	on_tty 'mc'
	wait_prompt 1
	keys 'slow please' Enter
	wait_for 'waiting for fake'
	keys C-c
	wait_for '(cancelled)'
	run pane
	refute_output --partial 'waiting for fake'
	# the next message carries the cancelled one, and says it was cancelled, not that it failed
	keys 'next' Enter
	wait_for 'it is sent again'
	run pane
	assert_output --partial 'mc: the last message got no answer (its turn failed or was cancelled); it is sent again, before this one'
	keys C-c
	wait_count 2 '(cancelled)'
	keys C-d
	assert_equal "$(wait_status)" 0
	# a one-shot run, whose Ctrl-C ends it
	rm -f "$STATUS"
	on_tty 'mc "slow too"'
	wait_for 'waiting for fake'
	keys C-c
	assert_equal "$(wait_status)" 130
	run pane
	refute_output --partial 'waiting for fake'
}

@test "an @image over 20 MiB is named as an image over its limit, as -a names it, not as a text file over the page" {
	fake_start "$(answers one)"
	use_fake
	printf '\x89PNG\r\n\x1a\n' > big.png
	truncate -s 21M big.png
	run --separate-stderr mc -a big.png 'what is this' </dev/null
	assert_failure 1
	assert_equal "$stderr" 'mc: -a big.png: 22020096 bytes, over the 20971520-byte (20 MiB) limit for an image'
	run --separate-stderr mc 'what is @big.png' </dev/null
	assert_failure 1
	assert_equal "$stderr" 'mc: @big.png: 22020096 bytes, over the 20971520-byte (20 MiB) limit for an image'
	# a text file that big is still one over the page
	head -c 22020096 /dev/zero | tr '\0' x > big.txt
	run --separate-stderr mc 'what is @big.txt' </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: @big.txt: 22020096 bytes, over the 262144-byte cap of a mention (the read tool's page); ask the model to read it"
	assert_equal "$(fake_count)" 0
}
