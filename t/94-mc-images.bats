#!/usr/bin/env bats
# mc and images (SPEC §21): mc -a FILE, read of an image, MCP image
# results; stored once in $MC_HOME/blobs by SHA-256, the session holding
# only a reference, resumed sessions sending the image again; the errors
# before anything is sent; models.ID.images false; --json image and
# reasoning events.

load helper
load fake
load mc

setup_file_local() {
	printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDRpixels' > shot.png
	HASH=$(sha256sum shot.png | cut -c1-64)
	SIZE=$(stat -c %s shot.png)
	B64=$(base64 -w0 shot.png)
}

# the image_url of request N's message M, part P
url() {
	fake_request "$1" ".body.messages[$2].content[$3].image_url.url"
}

@test "mc -a: the image goes with the message; the session holds its reference; the blob is stored once" {
	fake_start "[$(text seen), $(text again)]"
	use_fake
	run --separate-stderr mc --json -a shot.png 'what is this?'
	assert_success
	assert_equal "$(url 1 1 1)" "data:image/png;base64,$B64"
	assert_equal "$(fake_request 1 '.body.messages[1].content[0].text')" 'what is this?'
	# --json: a short event, never the bytes
	assert_equal "$(jqo -c 'select(.type == "image")')" \
		"{\"type\":\"image\",\"name\":\"shot.png\",\"media_type\":\"image/png\",\"bytes\":$SIZE,\"blob\":\"$HASH\"}"
	[[ $output != *"$B64"* ]]
	# the session: the reference, no base64
	s=$(session_files)
	assert_equal "$(jq -c 'select(.role == "user") | .images' "$s")" \
		"[{\"blob\":\"$HASH\",\"media_type\":\"image/png\",\"name\":\"shot.png\",\"bytes\":$SIZE}]"
	! grep -q "$B64" "$s"
	assert_equal "$(ls "$MC_HOME/blobs")" "$HASH"
	cmp shot.png "$MC_HOME/blobs/$HASH"
	# the same image again (under another name): stored once, not rewritten
	ino=$(stat -c %i "$MC_HOME/blobs/$HASH")
	cp shot.png other.png
	run --separate-stderr mc --no-session -a other.png 'and this?'
	assert_success
	assert_equal "$(ls -A "$MC_HOME/blobs")" "$HASH"
	assert_equal "$(stat -c %i "$MC_HOME/blobs/$HASH")" "$ino"
	assert_equal "$(url 2 1 1)" "data:image/png;base64,$B64"
}

@test "resumed (mc -c), the image is sent again from the blob; with the blob gone, an error naming it" {
	fake_start "[$(text seen), $(text more), $(text never)]"
	use_fake
	run --separate-stderr mc -a shot.png --attach shot.png 'two of them'
	assert_success
	assert_equal "$(fake_request 1 '.body.messages[1].content | map(.type) | tojson')" '["text","image_url","image_url"]'
	run --separate-stderr mc -c 'and now?'
	assert_success
	assert_equal "$(url 2 1 1)" "data:image/png;base64,$B64"
	assert_equal "$(fake_request 2 '.body.messages | map(.role) | tojson')" '["system","user","assistant","user"]'
	rm "$MC_HOME/blobs/$HASH"
	run --separate-stderr mc -c 'once more'
	assert_failure 1
	[[ $stderr == *"image shot.png: blob $HASH is not in $MC_HOME/blobs"* ]]
	assert_equal "$(fake_count)" 2
}

@test "mc -a with each API: Responses input_image, Messages an image block" {
	fake_start '[{"answer":{"api":"responses","text":"ok"}},{"answer":{"api":"messages","text":"ok"}}]'
	settings "{\"provider\":\"fake\",\"model\":\"gpt-5\",\"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"responses\",\"api_key_env\":null}}}"
	run --separate-stderr mc --no-session -a shot.png 'see'
	assert_success
	assert_equal "$(fake_request 1 '.body.input[0].content | tojson')" \
		"[{\"type\":\"input_text\",\"text\":\"see\"},{\"type\":\"input_image\",\"image_url\":\"data:image/png;base64,$B64\",\"detail\":\"auto\"}]"
	settings "{\"provider\":\"fake\",\"model\":\"claude-x\",\"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"messages\",\"api_key_env\":null}}}"
	run --separate-stderr mc --no-session -a shot.png 'see'
	assert_success
	assert_equal "$(fake_request 2 '.body.messages[0].content[1] | del(.cache_control) | tojson')" \
		"{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"$B64\"}}"
}

@test "mc -a: PNG, JPEG, GIF and WebP by their magic bytes, whatever the file is called" {
	fake_start "[$(text a), $(text b), $(text c), $(text d)]"
	use_fake
	printf '\xff\xd8\xff\xe0\0\x10JFIF' > a.png
	printf 'GIF89a\1\0\1\0' > b.jpg
	printf 'RIFF\x24\0\0\0WEBPVP8 ' > c
	printf 'GIF87a\1\0\1\0' > d.gif
	n=0
	for f in a.png:image/jpeg b.jpg:image/gif c:image/webp d.gif:image/gif; do
		n=$((n + 1))
		run --separate-stderr mc --no-session -a "${f%%:*}" 'what?'
		assert_success
		[[ $(url $n 1 1) == "data:${f#*:};base64,"* ]]
	done
}

@test "mc -a errors, one line each, before anything is sent: not an image, over 20 MiB, unreadable, missing" {
	fake_start "[$(text never)]"
	use_fake
	printf '%%PDF-1.7\n' > doc.pdf
	printf '\x01\x02\x03\x04\x05' > raw.bin
	: > empty.png
	printf '\x89PNG\r\n\x1a\n' > big.png
	truncate -s 21M big.png
	mkdir dir.png
	ln -s nowhere dangling.png
	for c in "doc.pdf:mc: -a doc.pdf: not a PNG, JPEG, GIF or WebP image (text)" \
		"raw.bin:mc: -a raw.bin: not a PNG, JPEG, GIF or WebP image (magic 01 02 03 04)" \
		"empty.png:mc: -a empty.png: not a PNG, JPEG, GIF or WebP image (empty)" \
		"big.png:mc: -a big.png: 22020096 bytes, over the 20971520-byte (20 MiB) limit for an image" \
		"missing.png:mc: -a missing.png: no such file" \
		"dangling.png:mc: -a dangling.png: no such file" \
		"dir.png:mc: -a dir.png: not a regular file"; do
		run --separate-stderr mc --json -a shot.png -a "${c%%:*}" 'what?'
		assert_failure 1
		assert_equal "$stderr" "${c#*:}"
		# --json: the error and done are events; no session is left
		assert_equal "$(jqo 'select(.type == "error") | .message')" "${c#*: }"
		assert_equal "$(jqo -r 'select(.type == "done") | .reason')" error
	done
	assert_equal "$(fake_count)" 0
	assert_equal "$(session_files)" ''
	assert_equal "$(ls "$MC_HOME/blobs" 2>/dev/null)" "$HASH"	# the good one, stored
	# unreadable: as a user who may not read it
	chmod 000 shot.png
	chmod -R o+rwX "$MC_HOME"
	run --separate-stderr unprivileged mc --no-session -a shot.png 'what?'
	chmod 644 shot.png
	assert_failure 1
	[[ $stderr == "mc: -a shot.png: "*"Permission denied"* ]]
	assert_equal "$(fake_count)" 0
	# -a is for a message
	run --separate-stderr mc -a shot.png sessions
	assert_failure 2
	assert_equal "$(head -1 <<<"$stderr")" 'mc: -a attaches an image to a message: not with `mc sessions`'
}

@test "models.ID.images false: mc -a is an error before sending; a resumed session's image is a note" {
	fake_start "[$(text seen), $(text noted)]"
	use_fake
	run --separate-stderr mc -a shot.png 'look'
	assert_success
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",\"models\":{\"fake-model\":{\"images\":false}},
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}}}"
	run --separate-stderr mc -c -a shot.png 'and this'
	assert_failure 1
	assert_equal "$stderr" "mc: -a shot.png: model fake-model does not take images (models.fake-model.images is false in $MC_HOME/settings.json)"
	assert_equal "$(fake_count)" 1
	run --separate-stderr mc -c 'what was it?'
	assert_success
	assert_equal "$(fake_request 2 '.body.messages[1].content')" \
		"$(printf 'look\n[image shot.png not sent: model fake-model does not take images]')"
	# "*" says it for every model
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",\"models\":{\"*\":{\"images\":false}},
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}}}"
	run --separate-stderr mc -a shot.png 'look'
	assert_failure 1
	[[ $stderr == *'(models.*.images is false in'* ]]
}

@test "read of an image returns it to the model, referenced in the session, the blob stored by the driver" {
	mkdir -p pics
	cp shot.png pics/shot.png
	fake_start "[$(calls "$(call c1 read '{"path":"pics/shot.png"}')"), $(text 'a small png')]"
	use_fake
	run --separate-stderr mc --json 'look at pics/shot.png'
	assert_success
	assert_equal "$(tool_content 2 c1)" "pics/shot.png: an image (image/png, $SIZE bytes), given to you as an image"
	assert_equal "$(fake_request 2 '.body.messages | map(.role) | tojson')" '["system","user","assistant","tool","user"]'
	assert_equal "$(url 2 4 1)" "data:image/png;base64,$B64"
	s=$(session_files)
	assert_equal "$(jq -c 'select(.type == "function_call_output") | .images[0].blob' "$s")" "\"$HASH\""
	! grep -q "$B64" "$s"
	! grep -q image_data "$s"
	assert_equal "$(jqo -c 'select(.type == "image") | [.call_id, .name]')" '["c1","shot.png"]'
	assert_equal "$(jqo 'select(.type == "tool_output") | .output')" \
		"pics/shot.png: an image (image/png, $SIZE bytes), given to you as an image"
	cmp shot.png "$MC_HOME/blobs/$HASH"
}

@test "read of an image: a symlink out of the tree is refused as before; over 20 MiB, an error for the model" {
	own_tmpdir
	mkdir -p "$BATS_TEST_TMPDIR/outside"
	cp shot.png "$BATS_TEST_TMPDIR/outside/secret.png"
	ln -s "$BATS_TEST_TMPDIR/outside/secret.png" link.png
	printf '\x89PNG\r\n\x1a\n' > big.png
	truncate -s 21M big.png
	fake_start "[$(calls "$(call c1 read '{"path":"link.png"}')"), $(text refused),
	  $(calls "$(call c2 read '{"path":"big.png"}')"), $(text big)]"
	use_fake
	run --separate-stderr mc 'look'
	assert_success
	[[ $(tool_content 2 c1) == "refused: read of $BATS_TEST_TMPDIR/outside/secret.png is outside the working directory"* ]]
	assert_equal "$(fake_request 2 '.body.messages | map(.role) | tojson')" '["system","user","assistant","tool"]'
	run --separate-stderr mc 'look'
	assert_success
	assert_equal "$(tool_content 4 c2)" 'error: big.png is an image (image/png) of 22020096 bytes, over the 20971520-byte (20 MiB) limit for one; not shown'
	assert_equal "$(ls -A "$MC_HOME/blobs" 2>/dev/null)" ''
}

@test "an MCP tool's image result is passed on as an image; one whose bytes are no image stays a placeholder" {
	fake_start "[$(calls "$(call c1 srv__photo '{}')"), $(text 'a photo')]"
	jq -nc --arg url "$FAKE_URL" --arg py "$MC_TOP/t/fake-mcp.py" '{provider: "fake", model: "fake-model",
	  providers: {fake: {base_url: $url, api: "chat", api_key_env: null}},
	  mcp_servers: {srv: {command: "python3", args: [$py, "--photo"], approve: false, timeout_s: 10}}}' \
		> "$MC_HOME/settings.json"
	run --separate-stderr mc --json 'take a photo'
	assert_success
	assert_equal "$(tool_content 2 c1)" "$(printf 'a photo:\n[image image-1.png: image/png, 66 bytes]\n[image/png, 16 bytes]')"
	assert_equal "$(fake_request 2 '.body.messages[4].content | map(.type) | tojson')" '["text","image_url"]'
	[[ $(url 2 4 1) == 'data:image/png;base64,iVBORw0KGgo'* ]]
	s=$(session_files)
	assert_equal "$(jq -c 'select(.type == "function_call_output") | .images | map([.name, .media_type, .bytes])' "$s")" \
		'[["image-1.png","image/png",66]]'
	assert_equal "$(ls -A "$MC_HOME/blobs" | wc -l)" 1
}

@test "mc --json: the model's reasoning as reasoning events, beside the text" {
	fake_start "[{\"sse_file\":\"$FAKE_FIXTURES/chat-stream-reasoning-llamacpp.sse\",\"chunk\":5}]"
	use_fake
	run --separate-stderr mc --json 'what is 2+2?'
	assert_success
	assert_equal "$(jqo -s -c 'map(select(.type == "reasoning") | .delta)')" \
		'["Okay, the user"," asks for 2+2.","\nThat is 4."]'
	assert_equal "$(jqo -s -c 'map(select(.type == "reasoning" or .type == "text") | .type) | unique')" '["reasoning","text"]'
	assert_equal "$(jqo -r 'select(.type == "text") | .delta' | tr -d '\n')" '2 + 2 = 4.'
}

@test "on a terminal: an attached image is a short line (name, type, size), never its bytes" {
	fake_start "[$(text 'seen it')]"
	use_fake
	on_tty "mc -a shot.png"
	wait_for 'mc>'
	keys 'what is this?' Enter
	wait_for 'seen it'
	pane | grep -qF "[image shot.png, image/png, $SIZE bytes]"
	! pane | grep -qF "$B64"
	assert_equal "$(url 1 1 1)" "data:image/png;base64,$B64"
}

@test "@path of an image attaches it as mc -a does, after -a's; images false and a bad mention send nothing" {
	fake_start "[$(text seen), $(text again)]"
	use_fake
	printf 'GIF89a\1\1\1\1\xf7\1\1' > anim.gif	# no NUL: told by its magic
	GIF=$(base64 -w0 anim.gif)
	run --separate-stderr mc -a shot.png 'compare @anim.gif with it'
	assert_success
	assert_equal "$(fake_request 1 '.body.messages[1].content[0].text')" 'compare @anim.gif with it'
	assert_equal "$(url 1 1 1)" "data:image/png;base64,$B64"
	assert_equal "$(url 1 1 2)" "data:image/gif;base64,$GIF"
	assert_equal "$(jq -c 'select(.role == "user") | .images | map(.name)' "$(session_files)")" \
		'["shot.png","anim.gif"]'
	# a later mention that fails: nothing sent, neither image kept for the next message
	run --separate-stderr mc --no-session -a shot.png 'see @anim.gif and @gone.txt'
	assert_failure 1
	assert_equal "$stderr" 'mc: @gone.txt: no such file or directory (in `backticks` it is sent as text)'
	assert_equal "$(fake_count)" 1
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",\"models\":{\"fake-model\":{\"images\":false}},
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}}}"
	run --separate-stderr mc --no-session 'see @anim.gif'
	assert_failure 1
	assert_equal "$stderr" "mc: @anim.gif: model fake-model does not take images (models.fake-model.images is false in $MC_HOME/settings.json)"
	assert_equal "$(fake_count)" 1
}

@test "@image in an interactive line: attached to that message only" {
	fake_start "[$(text 'seen it'), $(text plain)]"
	use_fake
	on_tty mc
	wait_prompt 1
	keys 'what is @shot.png?' Enter
	wait_for 'seen it'
	wait_prompt 2
	keys 'and now?' Enter
	wait_for plain
	pane | grep -qF "[image shot.png, image/png, $SIZE bytes]"
	assert_equal "$(url 1 1 1)" "data:image/png;base64,$B64"
	assert_equal "$(fake_request 2 '.body.messages[-1].content')" 'and now?'
}
