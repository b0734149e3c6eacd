#!/usr/bin/env bats
# Keys that live in no environment: providers.NAME.api_key_cmd and
# api_key_file (SPEC §19), carried by the envelope as where the key is,
# resolved by mc-send once for its session.

load helper
load fake

KEY=sk-test-Kc9Pq2Wm7Rt4Zx8Bn3Vh

setup_file_local() {
	export MC_RETRY_BASE_MS=1
	unset FAKE_API_KEY
}

# envelope WHERE: env.json for the fake with the key source WHERE, a jq
# assignment (e.g. '.api_key_cmd = "…"')
envelope() {
	FAKE_KEY_ENV= fake_envelope chat | jq -c "$1" > "$W/env.json"
}

send() {
	run --separate-stderr mc-send "$@" < "$W/env.json"
}

text_answers() { # N: a script of N streamed chat answers
	local s="" i
	for ((i = 0; i < $1; i++)); do
		s+="{\"sse_file\":\"$FAKE_FIXTURES/chat-stream-text.sse\"},"
	done
	fake_start "[${s%,}]"
}

@test "api_key_cmd: the first line of the command's output is the key, resolved once for a session" {
	text_answers 2
	printf '%s\nnot the key\n' "$KEY" > secret
	envelope ".api_key_cmd = \"echo ran >> '$W/runs'; cat '$W/secret'\""
	{ cat env.json; cat env.json; } > two.jsonl
	run --separate-stderr mc-send --serve --events < two.jsonl
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(fake_count)" 2
	assert_equal "$(fake_request 1 .headers.authorization)" "Bearer $KEY"
	assert_equal "$(fake_request 2 .headers.authorization)" "Bearer $KEY"
	# run once for the whole session, not per envelope
	assert_equal "$(wc -l < runs)" 1
	[[ $output != *"$KEY"* ]]
}

@test "api_key_cmd: its stdin is not the envelopes; a CRLF line end is not part of the key" {
	text_answers 2
	envelope ".api_key_cmd = \"cat >/dev/null; printf '$KEY\\\\r\\\\n'\""
	{ cat env.json; cat env.json; } > two.jsonl
	run --separate-stderr mc-send --serve --events < two.jsonl
	assert_success
	assert_equal "$(fake_count)" 2
	assert_equal "$(fake_request 1 .headers.authorization)" "Bearer $KEY"
}

@test "api_key_cmd: a failing command, or an empty first line, is one line naming the setting, never its output" {
	text_answers 1
	envelope ".api_key_cmd = \"echo $KEY; echo $KEY-err >&2; exit 3\""
	send
	assert_failure 1
	assert_equal "$stderr" "mc-send: providers.fake.api_key_cmd: the command failed (exit 3)"
	assert_equal "$output" ""
	envelope '.api_key_cmd = "echo; echo second"'
	send
	assert_failure 1
	assert_equal "$stderr" "mc-send: providers.fake.api_key_cmd: the command printed no key (its first line is empty)"
	envelope '.api_key_cmd = "kill -9 $$"'
	send
	assert_failure 1
	assert_equal "$stderr" "mc-send: providers.fake.api_key_cmd: the command was killed by signal 9"
	envelope '.api_key_cmd = "printf \"a\\tb\\n\""'
	send
	assert_failure 1
	assert_equal "$stderr" "mc-send: the output of api_key_cmd holds a control character"
	assert_equal "$(fake_count)" 0
}

@test "api_key_cmd: a command that hangs is ended after its timeout, and everything it started" {
	text_answers 1
	envelope ".api_key_cmd = \"sleep 300 & echo \$! > '$W/pid'; wait\""
	send
	assert_failure 1
	assert_equal "$stderr" "mc-send: providers.fake.api_key_cmd: the command did not finish in 10 seconds"
	run kill -0 "$(cat pid)"
	assert_failure
	assert_equal "$(fake_count)" 0
}

@test "api_key_file: a file of mode 0600 or stricter gives its first line" {
	text_answers 2
	printf '%s\n# a comment\n' "$KEY" > key
	chmod 600 key
	envelope ".api_key_file = \"$W/key\""
	send
	assert_success
	assert_equal "$(fake_request 1 .headers.authorization)" "Bearer $KEY"
	chmod 400 key
	send
	assert_success
	assert_equal "$(fake_request 2 .headers.authorization)" "Bearer $KEY"
}

@test "api_key_file: a file others may read is refused, naming it and its mode; so is a missing one" {
	text_answers 1
	printf '%s\n' "$KEY" > key
	chmod 644 key
	envelope ".api_key_file = \"$W/key\""
	send
	assert_failure 1
	assert_equal "$stderr" "mc-send: providers.fake.api_key_file: $W/key has mode 0644: others may read it; make it 0600 or stricter (chmod 600 $W/key)"
	chmod 660 key
	send
	assert_failure 1
	assert_regex "$stderr" "has mode 0660: "
	rm key
	send
	assert_failure 1
	assert_regex "$stderr" "^mc-send: providers.fake.api_key_file: $W/key: "
	mkfifo key
	send
	assert_failure 1
	assert_regex "$stderr" "^mc-send: providers.fake.api_key_file: $W/key: "
	[[ $stderr != *"$KEY"* ]]
	assert_equal "$(fake_count)" 0
}

@test "envelope: api_key_cmd and api_key_file are non-empty strings, at most one, the file an absolute path" {
	text_answers 1
	for bad in '.api_key_cmd = ""' '.api_key_cmd = 7' '.api_key_file = "key"' \
	    '.api_key_cmd = "true" | .api_key_file = "/k"'; do
		envelope "$bad"
		send
		assert_failure 1
		assert_regex "$stderr" "^mc-send: envelope: api_key_(cmd|file): "
	done
	assert_equal "$(fake_count)" 0
}

@test "mc-request: the envelope says where the key is (api_key_cmd or api_key_file), never the key" {
	settings '{"provider":"p","model":"m","providers":{"p":{"base_url":"http://127.0.0.1:9/v1","api":"chat","api_key_cmd":"pass show p"}}}'
	run --separate-stderr mc-request hi </dev/null
	assert_success
	assert_equal "$(jqo -c '[.api_key_env, .api_key_cmd, .api_key_file]')" '[null,"pass show p",null]'
	# a built-in provider's variable gives way to the file
	settings '{"provider":"openai","model":"m","providers":{"openai":{"api_key_file":"/k/openai"}}}'
	run --separate-stderr mc-request hi </dev/null
	assert_success
	assert_equal "$(jqo -c '[.api_key_env, .api_key_cmd, .api_key_file]')" '[null,null,"/k/openai"]'
	settings '{"provider":"openai","model":"m","providers":{"openai":{"api_key_file":"k/openai"}}}'
	run --separate-stderr mc-request hi </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc-request: $MC_HOME/settings.json: providers.openai.api_key_file: must be an absolute path"
	settings '{"provider":"openai","model":"m","providers":{"openai":{"api_key_file":"/k","api_key_cmd":"x"}}}'
	run --separate-stderr mc-request hi </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc-request: $MC_HOME/settings.json: providers.openai.api_key_cmd: set it or api_key_file, not both"
}
