#!/usr/bin/env bats
# mc acp (SPEC 23): with the client's fs.readTextFile and fs.writeTextFile,
# read, write and edit go through fs/read_text_file and fs/write_text_file
# (the editor's buffers, saved or not); mc-tool still does the call
# (--buffer-in, --buffer-out). Without them, the files on disk.

load helper
load fake
load mc
load acp

setup_file_local() {
	own_tmpdir
}

# the output the model got for call N (its request N+1's last message)
output_of() {
	fake_request "$1" '.body.messages[-1].content'
}

@test "read, edit and write through the client: the editor's text read and edited, the new text given back, the disk untouched" {
	printf 'on disk\n' > f.txt
	fake_start "$(ask_script "$(call c1 read '{"path":"f.txt","offset":2}')" \
	    "$(call c2 edit '{"path":"f.txt","old_string":"two","new_string":"TWO"}')" \
	    "$(call c3 write '{"path":"sub/new.txt","content":"fresh\n"}')")"
	use_fake
	ACP_ARGS=--yes ACP_CAPS='{"fs":{"readTextFile":true,"writeTextFile":true}}' \
		acp "$(jq -nc --arg f "$W/f.txt" '{answers: {files: {($f): "one\ntwo\nthree\n"}}}')" "$(prompt 3 go)"
	assert_equal "$(answer 3 .result.stopReason)" end_turn
	assert_equal "$(output_of 2)" "$(printf '     2\ttwo\n     3\tthree')"
	assert_equal "$(output_of 3)" 'Edited f.txt: replaced 1 occurrence (line 2)'
	assert_equal "$(output_of 4)" 'Created sub/new.txt: 6 bytes, 1 line'
	assert_equal "$(requests fs/read_text_file | jq -r .params.path)" "$(printf '%s\n' "$W/f.txt" "$W/f.txt")"
	assert_equal "$(requests fs/write_text_file | jq -c '.params | [.path, .content]')" \
		"$(printf '%s\n' "[\"$W/f.txt\",\"one\\nTWO\\nthree\\n\"]" "[\"$W/sub/new.txt\",\"fresh\\n\"]")"
	assert_equal "$(cat f.txt)" 'on disk'
	[ ! -e sub/new.txt ]
	protocol_only
}

@test "a file the client cannot read: the call's output says so; with only readTextFile, writes go to disk" {
	fake_start "$(ask_script "$(call c1 read '{"path":"gone.txt"}')" "$(call c2 write '{"path":"w.txt","content":"x"}')" \
	    "$(call c3 edit '{"path":"w.txt","old_string":"x","new_string":"y"}')")"
	use_fake
	ACP_ARGS=--yes ACP_CAPS='{"fs":{"readTextFile":true}}' acp "$(prompt 3 go)"
	assert_equal "$(output_of 2)" "error: $W/gone.txt: the editor could not read it: fs/read_text_file: the client answered: not found: $W/gone.txt"
	assert_equal "$(output_of 3)" 'Created w.txt: 1 bytes, 1 line'
	assert_equal "$(cat w.txt)" y
	assert_equal "$(requests fs/write_text_file)" ''
	assert_equal "$(requests fs/read_text_file | wc -l)" 1
}

@test "without fs capabilities, read, write and edit are mc-tool's on disk, as in the terminal" {
	printf 'disk\n' > f.txt
	fake_start "$(ask_script "$(call c1 read '{"path":"f.txt"}')" \
	    "$(call c2 edit '{"path":"f.txt","old_string":"disk","new_string":"DISK"}')")"
	use_fake
	ACP_ARGS=--yes acp "$(prompt 3 go)"
	assert_equal "$(output_of 2)" "$(printf '     1\tdisk')"
	assert_equal "$(cat f.txt)" DISK
	assert_equal "$(requests fs/read_text_file)$(requests fs/write_text_file)" ''
}

@test "mc-tool call --buffer-in, --buffer-out: the text given is the file's, the new text goes out, the file stays; errors leave the buffer empty" {
	printf 'disk\n' > f.txt
	printf 'one\ntwo\n' > in.txt
	run --separate-stderr mc-tool call --buffer-in in.txt --buffer-out out.txt \
		<<<"$(jq -nc '{type: "function_call", call_id: "e1", name: "edit",
		  arguments: ({path: "f.txt", old_string: "two", new_string: "2"} | tojson)}')"
	assert_success
	assert_equal "$(jq -r .output <<<"$output")" 'Edited f.txt: replaced 1 occurrence (line 2)'
	assert_equal "$(cat out.txt)" "$(printf 'one\n2')"
	assert_equal "$(cat f.txt)" disk
	run --separate-stderr mc-tool call --buffer-in in.txt --buffer-out out2.txt \
		<<<"$(jq -nc '{type: "function_call", call_id: "e2", name: "edit",
		  arguments: ({path: "f.txt", old_string: "disk", new_string: "x"} | tojson)}')"
	[[ $(jq -r .output <<<"$output") == 'error: old_string was not found in f.txt.'* ]]
	[ ! -s out2.txt ]
	run --separate-stderr mc-tool call --buffer-in in.txt \
		<<<"$(jq -nc '{type: "function_call", call_id: "r1", name: "read", arguments: ({path: "f.txt"} | tojson)}')"
	assert_equal "$(jq -r .output <<<"$output")" "$(printf '     1\tone\n     2\ttwo')"
	run --separate-stderr mc-tool list --buffer-in in.txt
	assert_failure 2
	[[ $stderr == 'mc-tool: --buffer-in and --buffer-out apply to call only'* ]]
}

@test "with the client's files, a read of an image is mc-tool's: the image goes to the model, the client is not asked for its text" {
	printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDRpixels' > shot.png
	fake_start "$(ask_script "$(call c1 read '{"path":"shot.png"}')")"
	use_fake
	ACP_ARGS=--yes ACP_CAPS='{"fs":{"readTextFile":true,"writeTextFile":true}}' acp "$(prompt 3 go)"
	assert_equal "$(answer 3 .result.stopReason)" end_turn
	assert_equal "$(requests fs/read_text_file)" ''
	[[ $(fake_request 2 '.body.messages[-1].content[1].image_url.url') == "data:image/png;base64,$(base64 -w0 shot.png)" ]]
	protocol_only
}
