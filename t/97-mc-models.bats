#!/usr/bin/env bats
# mc models (SPEC §25): the provider's list of models, GET BASE_URL/models
# through mc-send --models, one a line or --json; never the key.

load helper
load fake
load mc

models_file() {
	printf '%s\n' '{"object":"list","data":[{"id":"fake-model","object":"model"},{"id":"fake-large","object":"model"}]}' \
		> "$BATS_TEST_TMPDIR/models.json"
}

# keyed: the fake as the provider, its key in FAKE_KEY
keyed() {
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":\"FAKE_KEY\"}}}"
}

@test "models: one id a line, the raw list with --json, the key sent and never shown" {
	models_file
	fake_start '[]' --models "$BATS_TEST_TMPDIR/models.json"
	keyed
	FAKE_KEY=sk-test-secret-0123456789 run --separate-stderr mc models
	assert_success
	assert_output "$(printf 'fake-model\nfake-large')"
	assert_equal "$(fake_request 1 .method) $(fake_request 1 .path)" 'GET /v1/models'
	assert_equal "$(fake_request 1 '.headers.authorization')" 'Bearer sk-test-secret-0123456789'
	FAKE_KEY=sk-test-secret-0123456789 run --separate-stderr mc models --json
	assert_success
	assert_equal "$(jqo -c '[.data[].id]')" '["fake-model","fake-large"]'
	[[ "$output$stderr" != *sk-test-secret* ]]
	# no model in the settings is no error: the list needs none
	settings "{\"provider\":\"fake\",\"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}}}"
	run --separate-stderr mc models
	assert_success
	assert_equal "${lines[1]}" fake-large
}

@test "models: a provider without a models list says so; a missing key and bad options are said" {
	fake_start '[{"status":404,"json":{"error":{"message":"no route"}}},
	  {"status":401,"json":{"error":{"message":"bad key sk-test-secret-0123456789"}}}]'
	keyed
	FAKE_KEY=sk-test-secret-0123456789 run --separate-stderr mc models
	assert_failure 1
	assert_equal "$stderr" "mc-send: fake has no models list (HTTP 404 for GET $FAKE_URL/models)"
	FAKE_KEY=sk-test-secret-0123456789 run --separate-stderr mc models
	assert_failure 1
	assert_equal "$stderr" "mc-send: HTTP 401 from fake for GET $FAKE_URL/models: bad key [redacted]"
	run --separate-stderr mc models
	assert_failure 1
	assert_equal "$(fake_count)" 2
	[[ "$stderr" == *FAKE_KEY* ]]
	run --separate-stderr mc models -c
	assert_failure 2
	assert_equal "${stderr_lines[0]}" 'mc: `mc models` takes only -p and --json'
}
