#!/usr/bin/env bats
# Images in requests (SPEC §21): an item's "images" references, read from
# $MC_HOME/blobs, sent per API (Chat image_url parts, a user message after
# the tool outputs; Responses input_image, a list output; Messages image
# blocks, in a tool_result too); models.ID.images false sends a note; a
# missing blob or a bad reference is a clear error naming its line.

load helper

# a tiny PNG (its magic bytes and a little more) in $MC_HOME/blobs; HASH and SIZE
setup_file_local() {
	printf '\x89PNG\r\n\x1a\nIHDR-ish' > shot.png
	HASH=$(sha256sum shot.png | cut -c1-64)
	SIZE=$(stat -c %s shot.png)
	B64=$(base64 -w0 shot.png)
	mkdir -p "$MC_HOME/blobs"
	cp shot.png "$MC_HOME/blobs/$HASH"
	REF=$(jq -nc --arg h "$HASH" --argjson n "$SIZE" '{blob:$h,media_type:"image/png",name:"shot.png",bytes:$n}')
}

# items: a user message with the image, a call, its output with the image
items() {
	{
		jq -nc --argjson r "$REF" '{type:"message",role:"user",content:"what is it?",images:[$r]}'
		echo '{"type":"function_call","call_id":"c1","name":"read","arguments":"{\"path\":\"shot.png\"}"}'
		jq -nc --argjson r "$REF" '{type:"function_call_output",call_id:"c1",output:"shot.png: an image",images:[$r]}'
	} > items.jsonl
}

body() { # API [ARGS...]
	local api=$1
	shift
	run --separate-stderr mc-request -m gpt-x --api "$api" --items items.jsonl --body "$@" </dev/null
}

@test "chat: the user's image an image_url part; a tool output's image a user message after the outputs" {
	items
	body chat
	assert_success
	assert_equal "$(jqo -c '.messages[0].content')" \
		"[{\"type\":\"text\",\"text\":\"what is it?\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,$B64\"}}]"
	assert_equal "$(jqo -c '.messages | map(.role)')" '["user","assistant","tool","user"]'
	assert_equal "$(jqo -r '.messages[2].content')" 'shot.png: an image'
	assert_equal "$(jqo -c '.messages[3].content | map(.type)')" '["text","image_url"]'
	assert_equal "$(jqo -r '.messages[3].content[0].text')" '[the images of the output of call c1]'
	assert_equal "$(jqo -r '.messages[3].content[1].image_url.url')" "data:image/png;base64,$B64"
}

@test "chat: two outputs of one answer stay together, the images after both; a user message joins them" {
	{
		echo '{"type":"message","role":"user","content":"look"}'
		echo '{"type":"function_call","call_id":"c1","name":"read","arguments":"{}"}'
		echo '{"type":"function_call","call_id":"c2","name":"read","arguments":"{}"}'
		jq -nc --argjson r "$REF" '{type:"function_call_output",call_id:"c1",output:"one",images:[$r]}'
		jq -nc --argjson r "$REF" '{type:"function_call_output",call_id:"c2",output:"two",images:[$r]}'
		echo '{"type":"message","role":"user","content":"and?"}'
	} > items.jsonl
	body chat
	assert_success
	assert_equal "$(jqo -c '.messages | map(.role)')" '["user","assistant","tool","tool","user"]'
	assert_equal "$(jqo -c '.messages[4].content | map(.type)')" '["text","image_url","text","image_url","text"]'
	assert_equal "$(jqo -r '.messages[4].content[4].text')" 'and?'
}

@test "responses: input_image (detail auto, which the schema requires) in the user message; the output a list, its text first" {
	items
	body responses
	assert_success
	assert_equal "$(jqo -c '.input[0].content')" \
		"[{\"type\":\"input_text\",\"text\":\"what is it?\"},{\"type\":\"input_image\",\"image_url\":\"data:image/png;base64,$B64\",\"detail\":\"auto\"}]"
	assert_equal "$(jqo -c '.input[2]')" \
		"{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":[{\"type\":\"input_text\",\"text\":\"shot.png: an image\"},{\"type\":\"input_image\",\"image_url\":\"data:image/png;base64,$B64\",\"detail\":\"auto\"}]}"
}

@test "messages: an image block after the text; in the tool_result, its content after the text" {
	items
	run --separate-stderr mc-request -p anthropic -m claude-x --items items.jsonl --body </dev/null
	assert_success
	assert_equal "$(jqo -c '.messages[0].content')" \
		"[{\"type\":\"text\",\"text\":\"what is it?\"},{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"$B64\"}}]"
	assert_equal "$(jqo -c '.messages[2].content[0] | del(.cache_control)')" \
		"{\"type\":\"tool_result\",\"tool_use_id\":\"c1\",\"content\":[{\"type\":\"text\",\"text\":\"shot.png: an image\"},{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"$B64\"}}]}"
}

@test "models.ID.images false (or \"*\"): a one-line note for each image, nothing read" {
	items
	settings '{"models":{"gpt-x":{"images":false}}}'
	rm "$MC_HOME/blobs/$HASH"	# not read: no error for a missing blob
	body chat
	assert_success
	assert_equal "$(jqo -c '.messages | map(.role)')" '["user","assistant","tool"]'
	assert_equal "$(jqo -r '.messages[0].content')" "$(printf 'what is it?\n[image shot.png not sent: model gpt-x does not take images]')"
	assert_equal "$(jqo -r '.messages[2].content')" "$(printf 'shot.png: an image\n[image shot.png not sent: model gpt-x does not take images]')"
	settings '{"models":{"*":{"images":false},"gpt-y":{"images":true}}}'
	body messages
	assert_success
	assert_equal "$(jqo -r '.messages[2].content[0].content')" "$(printf 'shot.png: an image\n[image shot.png not sent: model gpt-x does not take images]')"
	# a specific model wins over "*": its blob is read, and missing
	run --separate-stderr mc-request -m gpt-y --items items.jsonl --body </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc-request: items.jsonl:1: image shot.png: blob $HASH is not in $MC_HOME/blobs"
	settings '{"models":{"gpt-x":{"images":"no"}}}'
	body chat
	assert_failure
	[[ $stderr == *'models.gpt-x.images'* ]]
}

@test "a missing or changed blob: an error naming the image, the hash and the line" {
	items
	cp "$MC_HOME/blobs/$HASH" keep
	rm "$MC_HOME/blobs/$HASH"
	body responses
	assert_failure 1
	assert_output ''
	assert_equal "$stderr" "mc-request: items.jsonl:1: image shot.png: blob $HASH is not in $MC_HOME/blobs"
	printf 'something else' > "$MC_HOME/blobs/$HASH"
	body responses
	assert_failure 1
	assert_equal "$stderr" "mc-request: items.jsonl:1: image shot.png: blob $MC_HOME/blobs/$HASH does not match its hash (changed on disk?)"
	# the output's image, on line 3
	cp keep "$MC_HOME/blobs/$HASH"
	z=$(printf '0%.0s' {1..64})
	sed -i "3s/$HASH/$z/" items.jsonl
	body chat
	assert_failure 1
	assert_equal "$stderr" "mc-request: items.jsonl:3: image shot.png: blob $z is not in $MC_HOME/blobs"
}

@test "a malformed images member is rejected, naming its line and what is wrong" {
	for bad in '"images":{}' '"images":[1]' '"images":[{"blob":"abc","media_type":"image/png","name":"a","bytes":1}]' \
		"\"images\":[{\"blob\":\"$HASH\",\"media_type\":\"image/bmp\",\"name\":\"a\",\"bytes\":1}]" \
		"\"images\":[{\"blob\":\"$HASH\",\"media_type\":\"image/png\",\"bytes\":1}]" \
		"\"images\":[{\"blob\":\"$HASH\",\"media_type\":\"image/png\",\"name\":\"a\",\"bytes\":0}]" \
		"\"images\":[{\"blob\":\"$HASH\",\"media_type\":\"image/png\",\"name\":\"a\",\"bytes\":20971521}]"; do
		printf '{"type":"message","role":"user","content":"x",%s}\n' "$bad" > items.jsonl
		body chat
		assert_failure 1
		[[ $stderr == "mc-request: items.jsonl:1: message: \"images\""* ]]
	done
	printf '{"type":"message","role":"assistant","content":"x","images":[%s]}\n' "$REF" > items.jsonl
	body chat
	assert_failure 1
	assert_equal "$stderr" 'mc-request: items.jsonl:1: message: "images" belong to a user message'
	# a reference kept, never base64: the item is small
	printf '{"type":"message","role":"user","content":"x","images":[%s]}\n' "$REF" > items.jsonl
	body chat
	assert_success
}

@test "--serve: an image is read and encoded once, when its line comes, not again at each step" {
	items
	mkfifo in
	mc-request --serve -m gpt-x --api messages < in > out.jsonl &
	exec 7> in
	cat items.jsonl >&7
	echo '{"type":"request"}' >&7
	for ((i = 0; i < 100; i++)); do [ -s out.jsonl ] && break; sleep 0.05; done
	# the blob goes: the next step still has the image, encoded as it was
	rm "$MC_HOME/blobs/$HASH"
	echo '{"type":"function_call","call_id":"c2","name":"read","arguments":"{}"}' >&7
	echo '{"type":"function_call_output","call_id":"c2","output":"ok"}' >&7
	echo '{"type":"request"}' >&7
	exec 7>&-
	wait
	assert_equal "$(wc -l < out.jsonl)" 2
	assert_equal "$(sed -n 2p out.jsonl | jq -r '.body.messages[0].content[1].source.data')" "$B64"
	assert_equal "$(sed -n 2p out.jsonl | jq -r '.body.messages[2].content[0].content[1].source.data')" "$B64"
	# a new line naming it after the blob went: the error, and every request says it
	{
		echo '{"type":"request"}'
		jq -nc --argjson r "$REF" '{type:"message",role:"user",content:"again",images:[$r]}'
		echo '{"type":"request"}'
	} | mc-request --serve -m gpt-x > out2.jsonl
	assert_equal "$(sed -n 2p out2.jsonl | jq -r .message)" "stdin:1: image shot.png: blob $HASH is not in $MC_HOME/blobs"
}
