#!/usr/bin/env bats
# mc-request: SPEC §4 (the two mappings, cache identity, item checks) and §6 (providers).

load helper

setup_file_local() {
	T=$BATS_TEST_TMPDIR
	printf 'You are mc.' > "$T/sys"
	: > "$T/empty"
}

# items LINE...: write the items file $T/items.jsonl
items() {
	printf '%s\n' "$@" > "$T/items.jsonl"
}

# tools: a tools file with read and bash
tools() {
	printf '%s\n' '[{"name":"read","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},{"name":"bash","description":"Run a command","parameters":{"type":"object","properties":{"cmd":{"type":"string"}}}}]' > "$T/tools.json"
}

U='{"type":"message","role":"user","content":"read a.c"}'
A='{"type":"message","role":"assistant","content":"Reading."}'
C1='{"type":"function_call","call_id":"c1","name":"read","arguments":"{\"path\":\"a.c\"}"}'
C2='{"type":"function_call","call_id":"c2","name":"read","arguments":"{\"path\":\"b.c\"}"}'
O1='{"type":"function_call_output","call_id":"c1","output":"int a;"}'
O2='{"type":"function_call_output","call_id":"c2","output":"int b;"}'

# --- the plain question --------------------------------------------------

@test "chat: plain question, system prompt as messages[0]" {
	run --separate-stderr mc-request -p ollama -m llama3 --body "Hi?" < "$T/sys"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" '{"model":"llama3","messages":[{"role":"system","content":"You are mc."},{"role":"user","content":"Hi?"}],"stream":true,"stream_options":{"include_usage":true}}'
}

@test "responses: plain question, system prompt as instructions, store false" {
	run --separate-stderr mc-request -m gpt-5.1 --body "Hi?" < "$T/sys"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" '{"model":"gpt-5.1","instructions":"You are mc.","input":[{"type":"message","role":"user","content":"Hi?"}],"store":false,"stream":true}'
}

@test "the envelope: version, provider, api, url, key variable, cache key, body" {
	run --separate-stderr mc-request -m gpt-5.1 "Hi?" < "$T/sys"
	assert_success
	assert_equal "$(jqo -c 'keys_unsorted')" '["version","provider","api","url","api_key_env","cache_key","body"]'
	assert_equal "$(jqo .version)" 1
	assert_equal "$(jqo .provider)" openai
	assert_equal "$(jqo .api)" responses
	assert_equal "$(jqo .url)" https://api.openai.com/v1/responses
	assert_equal "$(jqo .api_key_env)" OPENAI_API_KEY
	assert_regex "$(jqo .cache_key)" '^[0-9a-f]{64}$'
	assert_equal "$(jqo .body.model)" gpt-5.1
}

@test "empty stdin: no system message and no instructions" {
	run --separate-stderr mc-request -p vllm -m m --body "Hi?" < "$T/empty"
	assert_success
	assert_equal "$output" '{"model":"m","messages":[{"role":"user","content":"Hi?"}],"stream":true,"stream_options":{"include_usage":true}}'
	run --separate-stderr mc-request -m m --body "Hi?" < "$T/empty"
	assert_success
	assert_equal "$output" '{"model":"m","input":[{"type":"message","role":"user","content":"Hi?"}],"store":false,"stream":true}'
}

@test "the system prompt never travels as user input" {
	printf 'SECRET-RULES' > "$T/sys2"
	for api in chat responses; do
		run --separate-stderr mc-request -m m --api $api --body "Hi?" < "$T/sys2"
		assert_success
		assert_equal "$(jqo '[.. | objects | select(.role == "user") | .content] | join("|")')" "Hi?"
	done
}

@test "system_role developer puts the prompt in a developer message" {
	settings '{"providers":{"ollama":{"system_role":"developer"}}}'
	run --separate-stderr mc-request -p ollama -m m --body "Hi?" < "$T/sys"
	assert_success
	assert_equal "$(jqo -c '.messages[0]')" '{"role":"developer","content":"You are mc."}'
}

@test "--no-stream leaves out stream and stream_options" {
	run --separate-stderr mc-request -p ollama -m m --no-stream --body "Hi?" < "$T/sys"
	assert_success
	assert_equal "$output" '{"model":"m","messages":[{"role":"system","content":"You are mc."},{"role":"user","content":"Hi?"}]}'
	run --separate-stderr mc-request -m m --no-stream --body "Hi?" < "$T/sys"
	assert_success
	assert_equal "$output" '{"model":"m","instructions":"You are mc.","input":[{"type":"message","role":"user","content":"Hi?"}],"store":false}'
}

@test "--max-output-tokens: each API's own name" {
	run --separate-stderr mc-request -m m --max-output-tokens 2048 --body "Hi?" < "$T/sys"
	assert_success
	assert_equal "$(jqo -c '[.max_output_tokens, .max_completion_tokens, .max_tokens]')" '[2048,null,null]'
	run --separate-stderr mc-request -m m --api chat --max-output-tokens 2048 --body "Hi?" < "$T/sys"
	assert_success
	assert_equal "$(jqo -c '[.max_output_tokens, .max_completion_tokens, .max_tokens]')" '[null,2048,null]'
	for p in ollama llamacpp vllm openrouter; do
		run --separate-stderr mc-request -p $p -m m --max-output-tokens 7 --body "Hi?" < "$T/sys"
		assert_success
		assert_equal "$(jqo -c '[.max_output_tokens, .max_completion_tokens, .max_tokens]')" '[null,null,7]'
	done
}

@test "--max-output-tokens under 16 is refused for the Responses API" {
	run --separate-stderr mc-request -m m --max-output-tokens 15 "Hi?" < "$T/sys"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-request: --max-output-tokens: the Responses API needs at least 16, not 15"
}

# --- multi-turn history --------------------------------------------------

@test "multi-turn history maps to messages and input items in order" {
	items "$U" '{"type":"message","role":"assistant","content":"It declares a."}'
	run --separate-stderr mc-request -p ollama -m m --items "$T/items.jsonl" --body "And b.c?" < "$T/sys"
	assert_success
	assert_equal "$output" '{"model":"m","messages":[{"role":"system","content":"You are mc."},{"role":"user","content":"read a.c"},{"role":"assistant","content":"It declares a."},{"role":"user","content":"And b.c?"}],"stream":true,"stream_options":{"include_usage":true}}'
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" --body "And b.c?" < "$T/sys"
	assert_success
	assert_equal "$output" '{"model":"m","instructions":"You are mc.","input":[{"type":"message","role":"user","content":"read a.c"},{"type":"message","role":"assistant","content":"It declares a."},{"type":"message","role":"user","content":"And b.c?"}],"store":false,"stream":true}'
}

@test "items alone, without a PROMPT" {
	items "$U"
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" --body < "$T/empty"
	assert_success
	assert_equal "$output" '{"model":"m","input":[{"type":"message","role":"user","content":"read a.c"}],"store":false,"stream":true}'
}

@test "a session header on line 1 and blank lines are skipped" {
	items '{"type":"session","version":1,"model":"m"}' '' "$U" '   ' "$A"
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" --body < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '[.input[].role]')" '["user","assistant"]'
}

@test "members an item does not define are not sent" {
	items '{"type":"message","role":"user","content":"hi","ts":"2026-01-01","id":"x"}'
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" --body < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '.input')" '[{"type":"message","role":"user","content":"hi"}]'
}

# --- tool calls ----------------------------------------------------------

@test "chat: one tool call folds into the assistant message, output as role tool" {
	items "$U" "$A" "$C1" "$O1"
	run --separate-stderr mc-request -p ollama -m m --items "$T/items.jsonl" --body < "$T/sys"
	assert_success
	assert_equal "$output" '{"model":"m","messages":[{"role":"system","content":"You are mc."},{"role":"user","content":"read a.c"},{"role":"assistant","content":"Reading.","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.c\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"int a;"}],"stream":true,"stream_options":{"include_usage":true}}'
}

@test "responses: one tool call and its output pass as items" {
	items "$U" "$A" "$C1" "$O1"
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" --body < "$T/sys"
	assert_success
	assert_equal "$output" '{"model":"m","instructions":"You are mc.","input":[{"type":"message","role":"user","content":"read a.c"},{"type":"message","role":"assistant","content":"Reading."},{"type":"function_call","call_id":"c1","name":"read","arguments":"{\"path\":\"a.c\"}"},{"type":"function_call_output","call_id":"c1","output":"int a;"}],"store":false,"stream":true}'
}

@test "chat: two parallel calls fold into one assistant message" {
	items "$U" "$A" "$C1" "$C2" "$O1" "$O2"
	run --separate-stderr mc-request -p ollama -m m --items "$T/items.jsonl" --body < "$T/sys"
	assert_success
	assert_equal "$output" '{"model":"m","messages":[{"role":"system","content":"You are mc."},{"role":"user","content":"read a.c"},{"role":"assistant","content":"Reading.","tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.c\"}"}},{"id":"c2","type":"function","function":{"name":"read","arguments":"{\"path\":\"b.c\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"int a;"},{"role":"tool","tool_call_id":"c2","content":"int b;"}],"stream":true,"stream_options":{"include_usage":true}}'
}

@test "responses: two parallel calls and outputs pass as items, in order" {
	items "$U" "$A" "$C1" "$C2" "$O1" "$O2"
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" --body < "$T/sys"
	assert_success
	assert_equal "$output" '{"model":"m","instructions":"You are mc.","input":[{"type":"message","role":"user","content":"read a.c"},{"type":"message","role":"assistant","content":"Reading."},{"type":"function_call","call_id":"c1","name":"read","arguments":"{\"path\":\"a.c\"}"},{"type":"function_call","call_id":"c2","name":"read","arguments":"{\"path\":\"b.c\"}"},{"type":"function_call_output","call_id":"c1","output":"int a;"},{"type":"function_call_output","call_id":"c2","output":"int b;"}],"store":false,"stream":true}'
}

@test "chat: calls with no assistant message before them get one with null content" {
	items "$U" "$C1" "$C2" "$O1" "$O2" "$A" \
	    '{"type":"function_call","call_id":"c3","name":"bash","arguments":"{}"}'
	printf '%s\n' '{"type":"function_call_output","call_id":"c3","output":"ok"}' >> "$T/items.jsonl"
	run --separate-stderr mc-request -p ollama -m m --items "$T/items.jsonl" --body < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '[.messages[] | [.role, .content, ([.tool_calls[]?.id] | join(","))]]')" \
	    '[["user","read a.c",""],["assistant",null,"c1,c2"],["tool","int a;",""],["tool","int b;",""],["assistant","Reading.","c3"],["tool","ok",""]]'
}

@test "chat: a call after a tool output starts a new assistant message" {
	items "$U" "$A" "$C1" "$O1" "$C2" "$O2"
	run --separate-stderr mc-request -p ollama -m m --items "$T/items.jsonl" --body < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '[.messages[] | [.role, .content, ([.tool_calls[]?.id] | join(","))]]')" \
	    '[["user","read a.c",""],["assistant","Reading.","c1"],["tool","int a;",""],["assistant",null,"c2"],["tool","int b;",""]]'
}

@test "tools: nested for chat, flat with strict false for responses" {
	tools
	run --separate-stderr mc-request -p ollama -m m --tools "$T/tools.json" --body "Hi?" < "$T/empty"
	assert_success
	assert_equal "$(jqo -c .tools)" '[{"type":"function","function":{"name":"read","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}},{"type":"function","function":{"name":"bash","description":"Run a command","parameters":{"type":"object","properties":{"cmd":{"type":"string"}}}}}]'
	run --separate-stderr mc-request -m m --tools "$T/tools.json" --body "Hi?" < "$T/empty"
	assert_success
	assert_equal "$(jqo -c .tools)" '[{"type":"function","name":"read","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},"strict":false},{"type":"function","name":"bash","description":"Run a command","parameters":{"type":"object","properties":{"cmd":{"type":"string"}}},"strict":false}]'
}

@test "tools: a tool without parameters takes none; strict passes through" {
	printf '%s\n' '[{"name":"now","strict":true}]' > "$T/t.json"
	run --separate-stderr mc-request -p ollama -m m --tools "$T/t.json" --body "Hi?" < "$T/empty"
	assert_success
	assert_equal "$(jqo -c .tools)" '[{"type":"function","function":{"name":"now","parameters":{"type":"object","properties":{}},"strict":true}}]'
	run --separate-stderr mc-request -m m --tools "$T/t.json" --body "Hi?" < "$T/empty"
	assert_success
	assert_equal "$(jqo -c .tools)" '[{"type":"function","name":"now","parameters":{"type":"object","properties":{}},"strict":true}]'
}

@test "tools.disabled removes tools from the request" {
	tools
	settings '{"tools":{"disabled":["bash"]}}'
	for api in chat responses; do
		run --separate-stderr mc-request -m m --api $api --tools "$T/tools.json" --body "Hi?" < "$T/empty"
		assert_success
		assert_equal "$(jqo -c '[.tools[] | .name // .function.name]')" '["read"]'
	done
	settings '{"tools":{"disabled":["bash","read"]}}'
	run --separate-stderr mc-request -m m --tools "$T/tools.json" --body "Hi?" < "$T/empty"
	assert_success
	assert_equal "$(jqo 'has("tools")')" false
}

@test "an empty tools array sends no tools member" {
	printf '[]\n' > "$T/t.json"
	run --separate-stderr mc-request -p ollama -m m --tools "$T/t.json" --body "Hi?" < "$T/empty"
	assert_success
	assert_equal "$(jqo 'has("tools")')" false
}

@test "invalid tools files: each message names the file and the entry" {
	check() {
		printf '%s\n' "$1" > "$T/t.json"
		run --separate-stderr mc-request -m m --tools "$T/t.json" "Hi?" < "$T/empty"
		assert_failure 1
		assert_output ""
		assert_equal "$stderr" "mc-request: $T/t.json: $2"
	}
	check '[{"name" "a"}]' 'invalid JSON at line 1, column 10'
	check '{"name":"a"}' 'expected a JSON array of tools'
	check '["a"]' '[0]: expected an object'
	check '[{"description":"x"}]' '[0]: missing "name"'
	check '[{"name":""}]' '[0].name: expected a non-empty string'
	check '[{"name":"a","description":1}]' '[0].description: expected a string'
	check '[{"name":"a","parameters":"x"}]' '[0].parameters: expected a JSON Schema object'
	check '[{"name":"a","strict":"yes"}]' '[0].strict: expected true or false'
	check '[{"name":"a"},{"name":"a"}]' '[1].name: tool "a" is defined twice'
}

@test "a list of 5,000 tools keeps its order; a name defined twice is found however far apart" {
	jq -nc '[range(5000) | {name: "t\(.)", description: "d"}]' > "$T/t.json"
	run --separate-stderr mc-request -p ollama -m m --tools "$T/t.json" --body "Hi?" < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '[.tools[].function.name] == [range(5000) | "t\(.)"]')" true
	jq -c '. + [{name: "t1"}]' "$T/t.json" > "$T/twice.json"
	run --separate-stderr mc-request -p ollama -m m --tools "$T/twice.json" --body "Hi?" < "$T/empty"
	assert_failure 1
	assert_equal "$stderr" "mc-request: $T/twice.json: [5000].name: tool \"t1\" is defined twice"
	# A disabled tool is out of the request before the check, as it was.
	settings '{"tools":{"disabled":["t1"]}}'
	run --separate-stderr mc-request -p ollama -m m --tools "$T/twice.json" --body "Hi?" < "$T/empty"
	assert_success
	assert_equal "$(jqo '.tools | length')" 4999
}

# --- providers -----------------------------------------------------------

@test "each built-in provider: URL, API and key variable, with no settings file" {
	rm -f "$MC_HOME/settings.json"
	check() {
		run --separate-stderr mc-request -p "$1" -m m "Hi?" < "$T/empty"
		assert_success
		assert_equal "$(jqo -c '[.provider, .api, .url, .api_key_env]')" "$2"
	}
	check openai '["openai","responses","https://api.openai.com/v1/responses","OPENAI_API_KEY"]'
	check openrouter '["openrouter","chat","https://openrouter.ai/api/v1/chat/completions","OPENROUTER_API_KEY"]'
	check ollama '["ollama","chat","http://127.0.0.1:11434/v1/chat/completions",null]'
	check llamacpp '["llamacpp","chat","http://127.0.0.1:8080/v1/chat/completions",null]'
	check vllm '["vllm","chat","http://127.0.0.1:8000/v1/chat/completions",null]'
}

@test "--api chat on openai uses the chat URL" {
	run --separate-stderr mc-request -m m --api chat "Hi?" < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '[.api, .url]')" '["chat","https://api.openai.com/v1/chat/completions"]'
}

@test "precedence of the provider: -p > MC_PROVIDER > settings > openai" {
	run --separate-stderr mc-request -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo .provider)" openai
	settings '{"provider":"vllm"}'
	run --separate-stderr mc-request -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo .provider)" vllm
	MC_PROVIDER=llamacpp run --separate-stderr mc-request -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo .provider)" llamacpp
	MC_PROVIDER=llamacpp run --separate-stderr mc-request -p ollama -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo .provider)" ollama
}

@test "precedence of the model: -m > MC_MODEL > settings" {
	settings '{"model":"from-settings"}'
	run --separate-stderr mc-request "Hi?" < "$T/empty"
	assert_success
	assert_equal "$(jqo .body.model)" from-settings
	MC_MODEL=from-env run --separate-stderr mc-request "Hi?" < "$T/empty"
	assert_equal "$(jqo .body.model)" from-env
	MC_MODEL=from-env run --separate-stderr mc-request -m from-option "Hi?" < "$T/empty"
	assert_equal "$(jqo .body.model)" from-option
}

@test "precedence of the base URL: MC_BASE_URL > settings > built-in" {
	run --separate-stderr mc-request -p ollama -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo .url)" http://127.0.0.1:11434/v1/chat/completions
	settings '{"providers":{"ollama":{"base_url":"http://10.0.0.5:11434/v1/"}}}'
	run --separate-stderr mc-request -p ollama -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo .url)" http://10.0.0.5:11434/v1/chat/completions
	MC_BASE_URL=http://127.0.0.1:9999/x run --separate-stderr mc-request -p ollama -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo .url)" http://127.0.0.1:9999/x/chat/completions
	assert_equal "$(jqo .provider)" ollama
}

@test "precedence of the API: --api > settings > built-in" {
	run --separate-stderr mc-request -p vllm -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo .api)" chat
	settings '{"providers":{"vllm":{"api":"responses"}}}'
	run --separate-stderr mc-request -p vllm -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo -c '[.api, .url]')" '["responses","http://127.0.0.1:8000/v1/responses"]'
	run --separate-stderr mc-request -p vllm -m m --api chat "Hi?" < "$T/empty"
	assert_equal "$(jqo -c '[.api, .url]')" '["chat","http://127.0.0.1:8000/v1/chat/completions"]'
}

@test "settings may change a built-in's key variable, or clear it" {
	settings '{"providers":{"openai":{"api_key_env":"WORK_OPENAI_KEY"},"openrouter":{"api_key_env":null}}}'
	run --separate-stderr mc-request -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo .api_key_env)" WORK_OPENAI_KEY
	run --separate-stderr mc-request -p openrouter -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo .api_key_env)" null
}

@test "a provider defined in settings" {
	settings '{"provider":"corp","model":"big","providers":{"corp":{"base_url":"https://llm.corp.example/v1","api":"chat","api_key_env":"CORP_KEY"}}}'
	run --separate-stderr mc-request --max-output-tokens 100 "Hi?" < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '[.provider, .api, .url, .api_key_env, .body.model, .body.max_tokens]')" \
	    '["corp","chat","https://llm.corp.example/v1/chat/completions","CORP_KEY","big",100]'
}

@test "a provider defined in settings needs base_url and api" {
	settings '{"providers":{"corp":{"api":"chat"}}}'
	run --separate-stderr mc-request -p corp -m m "Hi?" < "$T/empty"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-request: $MC_HOME/settings.json: providers.corp.base_url: required for a provider that is not built in"
	settings '{"providers":{"corp":{"base_url":"http://x/v1"}}}'
	run --separate-stderr mc-request -p corp -m m "Hi?" < "$T/empty"
	assert_failure 1
	assert_equal "$stderr" "mc-request: $MC_HOME/settings.json: providers.corp.api: required for a provider that is not built in"
}

@test "an unknown provider says how to define one" {
	run --separate-stderr mc-request -p nosuch -m m "Hi?" < "$T/empty"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-request: -p: unknown provider \"nosuch\": use openai, anthropic, openrouter, ollama, llamacpp, vllm or openai-compatible, or define it under \"providers\" in $MC_HOME/settings.json"
	MC_PROVIDER=nosuch run --separate-stderr mc-request -m m "Hi?" < "$T/empty"
	assert_failure 1
	assert_regex "$stderr" '^mc-request: MC_PROVIDER: unknown provider "nosuch"'
	settings '{"provider":"nosuch"}'
	run --separate-stderr mc-request -m m "Hi?" < "$T/empty"
	assert_failure 1
	assert_regex "$stderr" "^mc-request: $MC_HOME/settings.json: provider: unknown provider \"nosuch\""
}

@test "no model: exit 1 saying how to set one" {
	run --separate-stderr mc-request "Hi?" < "$T/empty"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-request: no model for provider openai: pass -m MODEL, set MC_MODEL, or set \"model\" in $MC_HOME/settings.json"
}

@test "a base URL that is not http(s) is refused, naming its source" {
	MC_BASE_URL=ftp://x run --separate-stderr mc-request -m m "Hi?" < "$T/empty"
	assert_failure 1
	assert_equal "$stderr" "mc-request: MC_BASE_URL: expected an http:// or https:// URL: ftp://x"
	settings '{"providers":{"ollama":{"base_url":"localhost:11434"}}}'
	run --separate-stderr mc-request -p ollama -m m "Hi?" < "$T/empty"
	assert_failure 1
	assert_equal "$stderr" "mc-request: $MC_HOME/settings.json: providers.ollama.base_url: expected an http:// or https:// URL: localhost:11434"
}

@test "an invalid settings file is an error naming the setting" {
	settings '{"providers":{"ollama":{"api":"rest"}}}'
	run --separate-stderr mc-request -p ollama -m m "Hi?" < "$T/empty"
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" '^mc-request: .*/settings.json: providers.ollama.api: expected one of "chat", "responses" or "messages"$'
}

@test "unknown settings keys are warnings, silenced by -q" {
	settings '{"colour":"blue"}'
	run --separate-stderr mc-request -m m "Hi?" < "$T/empty"
	assert_success
	assert_equal "$stderr" "mc-request: warning: $MC_HOME/settings.json: unknown setting colour"
	run --separate-stderr mc-request -q -m m "Hi?" < "$T/empty"
	assert_success
	assert_equal "$stderr" ""
}

@test "the envelope holds the key variable's name, never the key" {
	export OPENAI_API_KEY=sk-test-do-not-print-4242 OPENROUTER_API_KEY=sk-or-secret-4343
	for p in openai openrouter; do
		run --separate-stderr mc-request -p $p -m m "Hi?" < "$T/sys"
		assert_success
		refute_output --partial sk-
		refute_output --partial 4242
		refute_output --partial 4343
		assert_equal "$stderr" ""
	done
}

# --- cache identity ------------------------------------------------------

# key ARGS...: the cache key of mc-request ARGS with $T/sysk on stdin
key() {
	mc-request "$@" < "$T/sysk" | jq -r .cache_key
}

@test "identical inputs give an identical envelope, byte for byte" {
	items "$U" "$A" "$C1" "$O1"
	tools
	printf 'You are mc.' > "$T/sysk"
	mc-request -m m --items "$T/items.jsonl" --tools "$T/tools.json" "next" < "$T/sysk" > "$T/e1"
	mc-request -m m --items "$T/items.jsonl" --tools "$T/tools.json" "next" < "$T/sysk" > "$T/e2"
	run cmp "$T/e1" "$T/e2"
	assert_success
	[ -s "$T/e1" ]
}

@test "the cache key changes with the provider, model, system prompt and each item" {
	items "$U" "$A" "$C1" "$O1"
	printf 'You are mc.' > "$T/sysk"
	base=$(key -m m --items "$T/items.jsonl" "next")
	assert_regex "$base" '^[0-9a-f]{64}$'
	assert_equal "$(key -m m --items "$T/items.jsonl" "next")" "$base"
	refute [ "$(key -p vllm -m m --items "$T/items.jsonl" "next")" = "$base" ]
	refute [ "$(key -m m2 --items "$T/items.jsonl" "next")" = "$base" ]
	refute [ "$(key -m m --items "$T/items.jsonl" "next!")" = "$base" ]
	refute [ "$(key -m m --items "$T/items.jsonl")" = "$base" ]
	printf 'You are mc!' > "$T/sysk"
	refute [ "$(key -m m --items "$T/items.jsonl" "next")" = "$base" ]
	printf 'You are mc.' > "$T/sysk"
	# Each item changed by one byte: its content, name, arguments, id, output.
	cp "$T/items.jsonl" "$T/orig.jsonl"
	for swap in 's/read a\.c/read a.d/' 's/"Reading\."/"Reading!"/' 's/"name":"read"/"name":"reaD"/' \
	    's/a\.c\\"}"/a.C\\"}"/' 's/"c1"/"c9"/g' 's/int a;/int A;/' 's/"role":"assistant"/"role":"user"/'; do
		sed "$swap" "$T/orig.jsonl" > "$T/items.jsonl"
		run cmp -s "$T/orig.jsonl" "$T/items.jsonl"
		assert_failure
		refute [ "$(key -m m --items "$T/items.jsonl" "next")" = "$base" ]
	done
	# Dropping an item, or reordering two, changes it too.
	printf '%s\n' "$U" "$A" > "$T/items.jsonl"
	refute [ "$(key -m m --items "$T/items.jsonl" "next")" = "$base" ]
	printf '%s\n' "$A" "$U" "$C1" "$O1" > "$T/items.jsonl"
	refute [ "$(key -m m --items "$T/items.jsonl" "next")" = "$base" ]
}

@test "the cache key: moving bytes between fields changes it" {
	printf 'ab' > "$T/sysk"
	k1=$(key -m m "c")
	printf 'a' > "$T/sysk"
	k2=$(key -m m "bc")
	refute [ "$k1" = "$k2" ]
	# The model and the provider name are fields of their own too.
	settings '{"providers":{"o":{"base_url":"http://x/v1","api":"chat"},"ol":{"base_url":"http://x/v1","api":"chat"}}}'
	printf 'x' > "$T/sysk"
	refute [ "$(key -p ol -m lama "q")" = "$(key -p o -m llama "q")" ]
	printf '%s\n' '{"type":"message","role":"user","content":"ab"}' > "$T/i1"
	printf '%s\n' '{"type":"message","role":"user","content":"a"}' > "$T/i2"
	refute [ "$(key -m m --items "$T/i1" "c")" = "$(key -m m --items "$T/i2" "bc")" ]
}

@test "the cache key follows the documented serialization" {
	items '{"type":"message","role":"user","content":"résumé"}' "$C1" "$O1"
	tools
	printf 'You are mc.\n' > "$T/sysk"
	for api in chat responses; do
		mc-request -p vllm --api $api -m qwen --items "$T/items.jsonl" --tools "$T/tools.json" \
			--max-output-tokens 77 "next" < "$T/sysk" > "$T/env.json"
		want=$(python3 - "$T/env.json" <<'PY'
import hashlib, json, sys
def f(s):
    b = s.encode("utf-8")
    return len(b).to_bytes(8, "big") + b
env = json.load(open(sys.argv[1], encoding="utf-8"))
body = env["body"]
assert body["stream"] is True
body.pop("stream")
body.pop("stream_options", None)
k = "messages" if "messages" in body else "input"
elems, body[k] = body[k], []
data = f("mc-request cache key 3") + f(env["provider"]) + f(env["url"])
data += f(json.dumps(body, ensure_ascii=False, separators=(",", ":")))
for e in elems:
    data += f(json.dumps(e, ensure_ascii=False, separators=(",", ":")))
print(hashlib.sha256(data).hexdigest())
PY
)
		assert_equal "$(jq -r .cache_key "$T/env.json")" "$want"
	done
}

@test "the cache key covers the tools, the output limit and the URL, not how the answer is sent" {
	items "$U"
	tools
	printf 'sys' > "$T/sysk"
	base=$(key -m m --items "$T/items.jsonl")
	# Streamed or not, the answer is the same; unknown members are not sent.
	assert_equal "$(key -m m --items "$T/items.jsonl" --no-stream)" "$base"
	items '{"type":"message","role":"user","content":"read a.c","ts":1}'
	assert_equal "$(key -m m --items "$T/items.jsonl")" "$base"
	# What the model is given, or may answer with, is part of it.
	withtools=$(key -m m --items "$T/items.jsonl" --tools "$T/tools.json")
	refute [ "$withtools" = "$base" ]
	jq -c '.[0].description = "Read a file!"' "$T/tools.json" > "$T/tools2.json"
	refute [ "$(key -m m --items "$T/items.jsonl" --tools "$T/tools2.json")" = "$withtools" ]
	settings '{"tools":{"disabled":["read"]}}'
	refute [ "$(key -m m --items "$T/items.jsonl" --tools "$T/tools.json")" = "$withtools" ]
	rm "$MC_HOME/settings.json"
	refute [ "$(key -m m --items "$T/items.jsonl" --max-output-tokens 100)" = "$base" ]
	refute [ "$(key -m m --items "$T/items.jsonl" --max-output-tokens 100)" = \
		"$(key -m m --items "$T/items.jsonl" --max-output-tokens 101)" ]
	refute [ "$(key -m m --api chat --items "$T/items.jsonl")" = \
		"$(key -m m --api responses --items "$T/items.jsonl")" ]
	refute [ "$(OPENAI_BASE_URL=http://127.0.0.1:9/v1 key -m m --items "$T/items.jsonl")" = "$base" ]
}

# --- invalid items -------------------------------------------------------

# bad EXPECTED LINE...: the items are refused with "FILE:EXPECTED"
bad() {
	want=$1
	shift
	items "$@"
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" "Hi?" < "$T/sys"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-request: $T/items.jsonl:$want"
}

@test "invalid items: bad JSON, with the line and column" {
	bad '2: invalid JSON at column 19' "$U" '{"type":"message" x}'
	bad '1: invalid JSON at column 1' 'nope'
	bad '1: invalid JSON: unexpected data after the object at column 55' "$U $U"
	# A \u escape needs four hex digits: no string is cut short at a stray one.
	bad '1: invalid JSON at column 45' '{"type":"message","role":"user","content":"a\uZZZZb"}'
}

@test "invalid items: not an object, no type, unknown type" {
	bad '1: expected a JSON object' '["message"]'
	bad '2: missing "type"' "$U" '{"role":"user","content":"x"}'
	bad '1: "type" must be a string' '{"type":1}'
	bad '3: unknown item type "thought" (expected "message", "function_call", "function_call_output" or "reasoning")' \
	    "$U" "$A" '{"type":"thought","summary":[]}'
	bad '3: reasoning: missing "text"' "$U" "$A" '{"type":"reasoning","summary":[]}'
	bad '1: reasoning: "data" needs the "api" it belongs to' '{"type":"reasoning","text":"","data":{}}'
	bad '1: reasoning: "data" must be an object' '{"type":"reasoning","text":"","api":"messages","data":"x"}'
}

@test "invalid items: unknown or missing role" {
	bad '1: message: unknown role "system" (expected "user" or "assistant"; the system prompt comes on standard input)' \
	    '{"type":"message","role":"system","content":"x"}'
	bad '1: message: unknown role "developer" (expected "user" or "assistant"; the system prompt comes on standard input)' \
	    '{"type":"message","role":"developer","content":"x"}'
	bad '1: message: missing "role"' '{"type":"message","content":"x"}'
	bad '1: message: "role" must be a string' '{"type":"message","role":null,"content":"x"}'
}

@test "invalid items: missing or mistyped members" {
	bad '1: message: missing "content"' '{"type":"message","role":"user"}'
	bad '1: message: "content" must be a string' '{"type":"message","role":"user","content":[{"type":"input_text","text":"x"}]}'
	bad '1: function_call: missing "call_id"' '{"type":"function_call","name":"read","arguments":"{}"}'
	bad '1: function_call: missing "name"' '{"type":"function_call","call_id":"c1","arguments":"{}"}'
	bad '1: function_call: missing "arguments"' '{"type":"function_call","call_id":"c1","name":"read"}'
	bad '1: function_call: "arguments" must be a string' '{"type":"function_call","call_id":"c1","name":"read","arguments":{}}'
	bad '1: function_call: empty "call_id"' '{"type":"function_call","call_id":"","name":"read","arguments":"{}"}'
	bad '2: function_call_output: missing "output"' "$C1" '{"type":"function_call_output","call_id":"c1"}'
	bad '2: function_call_output: missing "call_id"' "$C1" '{"type":"function_call_output","output":"x"}'
}

@test "invalid items: a function_call_output without its call" {
	bad '2: function_call_output: no function_call with call_id "c2" before it' "$C1" "$O2"
	# The call must come first.
	bad '1: function_call_output: no function_call with call_id "c1" before it' "$O1" "$C1"
}

@test "invalid items: a call_id used twice, an output given twice" {
	bad '3: function_call: call_id "c1" already used on line 1' "$C1" "$O1" "$C1"
	bad '3: function_call_output: call_id "c1" (line 1) already has an output' "$C1" "$O1" "$O1"
}

@test "invalid items: a session header after line 1" {
	bad '2: a "session" header is allowed only on line 1' "$U" '{"type":"session"}'
	bad '2: a "session" header is allowed only on line 1' '' '{"type":"session"}'
}

@test "invalid items: not UTF-8" {
	printf '%s\n{"type":"message","role":"user","content":"\377"}\n' "$U" > "$T/items.jsonl"
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" "Hi?" < "$T/sys"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-request: $T/items.jsonl:2: not valid UTF-8"
}

@test "invalid items: a \u0000 escape, which would cut a string short" {
	bad '2: a string holds a NUL character (\u0000)' "$U" '{"type":"message","role":"user","content":"a\u0000b"}'
	# An escaped backslash before u0000 is text, not a NUL.
	items '{"type":"message","role":"user","content":"a\\u0000b"}'
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" --body < "$T/empty"
	assert_success
	assert_equal "$(jqo '.input[0].content')" 'a\u0000b'
}

@test "items with CRLF line endings are read as lines" {
	printf '%s\r\n' "$U" "$A" > "$T/items.jsonl"
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" --body < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '[.input[].content]')" '["read a.c","Reading."]'
}

@test "hostile items: deep nesting is a one-line error" {
	python3 -c 'print("{\"type\":\"message\",\"x\":" + "[" * 5000 + "]" * 5000 + "}")' > "$T/items.jsonl"
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" "Hi?" < "$T/empty"
	assert_failure 1
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 1
	assert_regex "$stderr" "^mc-request: $T/items.jsonl:1: invalid JSON at column [0-9]+$"
}

@test "hostile items: 100,000 parallel calls are checked and folded" {
	python3 - "$T/items.jsonl" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"type":"message","role":"user","content":"go"}\n')
    for i in range(100000):
        f.write('{"type":"function_call","call_id":"c%d","name":"read","arguments":"{}"}\n' % i)
    for i in reversed(range(100000)):
        f.write('{"type":"function_call_output","call_id":"c%d","output":"x"}\n' % i)
PY
	# A hang guard only; quadratic checking would take hours.
	run --separate-stderr timeout 300 mc-request -p ollama -m m --items "$T/items.jsonl" --body < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '[(.messages | length), (.messages[1].tool_calls | length), .messages[-1].tool_call_id]')" '[100002,100000,"c0"]'
}

@test "items files that cannot be read" {
	run --separate-stderr mc-request -m m --items "$T/missing.jsonl" "Hi?" < "$T/sys"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-request: $T/missing.jsonl: No such file or directory"
	run --separate-stderr mc-request -m m --items "$T" "Hi?" < "$T/sys"
	assert_failure 1
	assert_equal "$stderr" "mc-request: $T: Is a directory"
}

@test "items and tools may come from pipes: <(...)" {
	run --separate-stderr bash -c 'mc-request -p ollama -m m --body \
	    --items <(printf "%s\n" "$1") --tools <(printf "[{\"name\":\"read\"}]") < "$2"' _ "$U" "$T/empty"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo -c '[.messages[0].content, .tools[0].function.name]')" '["read a.c","read"]'
}

@test "tools files that cannot be read, or are not UTF-8" {
	run --separate-stderr mc-request -m m --tools "$T/missing.json" "Hi?" < "$T/sys"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-request: $T/missing.json: No such file or directory"
	printf '[{"name":"\377"}]' > "$T/t.json"
	run --separate-stderr mc-request -m m --tools "$T/t.json" "Hi?" < "$T/sys"
	assert_failure 1
	assert_equal "$stderr" "mc-request: $T/t.json: not valid UTF-8"
}

@test "an empty items file and no PROMPT: nothing to send" {
	items '{"type":"session"}'
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" < "$T/sys"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-request: $T/items.jsonl: no conversation items, and no PROMPT"
}

# --- standard input and the PROMPT ---------------------------------------

@test "a system prompt that is not UTF-8, or has a NUL byte, is refused" {
	printf 'bad \377 byte' > "$T/s"
	run --separate-stderr mc-request -m m "Hi?" < "$T/s"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-request: standard input: the system prompt is not valid UTF-8"
	printf 'nul \0 byte' > "$T/s"
	run --separate-stderr mc-request -m m "Hi?" < "$T/s"
	assert_failure 1
	assert_equal "$stderr" "mc-request: standard input: the system prompt contains a NUL byte"
}

@test "a system prompt over 8 MiB is refused" {
	head -c 8388609 /dev/zero | tr '\0' a > "$T/big"
	run --separate-stderr mc-request -m m "Hi?" < "$T/big"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-request: standard input: the system prompt is over the 8388608-byte limit"
	head -c 8388608 /dev/zero | tr '\0' a > "$T/big"
	run --separate-stderr mc-request -m m --body "Hi?" < "$T/big"
	assert_success
	assert_equal "$(jqo '.instructions | length')" 8388608
}

@test "a PROMPT that is not UTF-8 or is empty is refused" {
	run --separate-stderr mc-request -m m $'\xff' < "$T/sys"
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-request: PROMPT: not valid UTF-8"
	run --separate-stderr mc-request -m m "" < "$T/sys"
	assert_failure 1
	assert_equal "$stderr" "mc-request: PROMPT: empty"
}

@test "a PROMPT that starts with a dash follows --" {
	run --separate-stderr mc-request -m m --body -- "-v is verbose?" < "$T/empty"
	assert_success
	assert_equal "$(jqo '.input[0].content')" "-v is verbose?"
}

@test "text passes through exactly: unicode, quotes, newlines" {
	printf 'Règles:\n\t"quoted" \\ ✓\n' > "$T/s"
	run --separate-stderr mc-request -m m --body $'line1\nligne «2» 🙂' < "$T/s"
	assert_success
	assert_equal "$(jqo .instructions)" "$(cat "$T/s")"
	assert_equal "$(jqo '.input[0].content')" $'line1\nligne «2» 🙂'
}

@test "--pretty indents; the compact form is one line" {
	run --separate-stderr mc-request -m m "Hi?" < "$T/sys"
	assert_equal "${#lines[@]}" 1
	run --separate-stderr mc-request -m m --pretty "Hi?" < "$T/sys"
	assert_success
	[ "${#lines[@]}" -gt 5 ]
	assert_equal "$(jqo .body.model)" m
}

# --- usage ---------------------------------------------------------------

@test "usage errors: exit 2 before reading anything" {
	check() {
		run --separate-stderr mc-request "$@" < "$T/sys"
		assert_failure 2
		assert_output ""
		assert_equal "${stderr_lines[-1]}" "Try 'mc-request --help' for more information."
		err=${stderr_lines[0]}
	}
	check -m m --items - "Hi?"
	assert_equal "$err" 'mc-request: --items: "-" is not allowed: standard input is the system prompt'
	check -m m --tools - "Hi?"
	check -m m --api rest "Hi?"
	assert_equal "$err" 'mc-request: --api: expected "chat", "responses" or "messages", not "rest"'
	check -m m --max-output-tokens 0 "Hi?"
	check -m m --max-output-tokens 12abc "Hi?"
	check -m m --max-output-tokens 99999999999 "Hi?"
	check -m m
	check -m m one two
	check --bogus
	# A broken settings file is not read before a usage error.
	settings '{'
	check -m m --api rest "Hi?"
}

@test "--help and --version" {
	run --separate-stderr mc-request --help
	assert_success
	assert_line --index 0 --partial "usage: mc-request"
	assert_equal "$stderr" ""
	run --separate-stderr mc-request --version
	assert_success
	assert_output --regexp '^mc-request \(mc\) [0-9]'
}

@test "the man page is mandoc-lint clean" {
	run mandoc -Tlint -Wwarning "$MC_TOP/man/mc-request.1"
	assert_success
	assert_output ""
}

# --- the OpenAI schema ---------------------------------------------------

@test "generated bodies validate against OpenAI's schema" {
	# The parts of OpenAI's document the tests need, carried in the repository.
	schemas=$MC_TOP/t/fixtures/openai-request-schemas.json
	py=/usr/bin/python3
	[ -x $py ] || py=python3
	tools
	mkdir -p "$T/chat" "$T/resp"
	items "$U" "$A" "$C1" "$C2" "$O1" "$O2" "$A" \
	    '{"type":"function_call","call_id":"c3","name":"bash","arguments":"{\"cmd\":\"ls\"}"}' \
	    '{"type":"function_call_output","call_id":"c3","output":"a.c"}' \
	    '{"type":"function_call","call_id":"c4","name":"bash","arguments":"{}"}' \
	    '{"type":"function_call_output","call_id":"c4","output":""}' \
	    '{"type":"usage","input_tokens":5,"output_tokens":6,"cached_tokens":0,"provider":"openai","model":"m"}' \
	    "$U" '{"type":"message","role":"assistant","content":"cut","status":"incomplete"}' \
	    "$U" '{"type":"message","role":"assistant","content":"","refusal":"No."}'
	printf '%s\n' '{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}' > "$T/answer.json"
	n=0
	for args in "" "--no-stream" "--max-output-tokens 64" "--tools $T/tools.json" \
	    "--items $T/items.jsonl" "--items $T/items.jsonl --tools $T/tools.json --max-output-tokens 4096" \
	    "--schema $T/answer.json"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		mc-request -m gpt-4.1-mini --api chat --body $args "Where are the tests?" < "$T/sys" > "$T/chat/$n.json"
		# shellcheck disable=SC2086
		mc-request -p ollama -m m --body $args "Where are the tests?" < "$T/empty" > "$T/chat/$n-ollama.json"
		# shellcheck disable=SC2086
		mc-request -m gpt-4.1-mini --body $args "Where are the tests?" < "$T/sys" > "$T/resp/$n.json"
		# shellcheck disable=SC2086
		mc-request -m gpt-4.1-mini --body $args "Where are the tests?" < "$T/empty" > "$T/resp/$n-nosys.json"
	done
	run $py "$MC_TOP/t/lib/validate-openai.py" "$schemas" \
	    CreateChatCompletionRequest "$T"/chat/*.json
	assert_success
	assert_equal "$(grep -c ': ok$' <<<"$output")" 14
	run $py "$MC_TOP/t/lib/validate-openai.py" "$schemas" \
	    CreateResponse "$T"/resp/*.json
	assert_success
	assert_equal "$(grep -c ': ok$' <<<"$output")" 14
	# The validator itself rejects a wrong body, and a wrong schema format.
	printf '{"model":"m","input":[{"type":"message","role":"system","content":1}],"store":"no"}\n' > "$T/wrong.json"
	run $py "$MC_TOP/t/lib/validate-openai.py" "$schemas" CreateResponse "$T/wrong.json"
	assert_failure
	printf '{"messages":[{"role":"tool","content":"x"}]}\n' > "$T/wrong.json"
	run $py "$MC_TOP/t/lib/validate-openai.py" "$schemas" CreateChatCompletionRequest "$T/wrong.json"
	assert_failure
	jq -c '.response_format.json_schema.strict = "yes"' "$T/chat/7.json" > "$T/wrong.json"
	run $py "$MC_TOP/t/lib/validate-openai.py" "$schemas" CreateChatCompletionRequest "$T/wrong.json"
	assert_failure
	jq -c '.text.format.type = "json"' "$T/resp/7.json" > "$T/wrong.json"
	run $py "$MC_TOP/t/lib/validate-openai.py" "$schemas" CreateResponse "$T/wrong.json"
	assert_failure
}

@test "the tests read nothing outside the repository" {
	# (the patterns are split so that this file does not match itself)
	run grep -rln -e '\.\./'"shared" -e '/work/'"shared" -e 'MC_'"SHARED" "$MC_TOP/t" \
	    --include='*.bats' --include='*.bash' --include='*.py'
	assert_output ""
}

# --- robustness of the history (SPEC §16) ---------------------------------

@test "consecutive user messages are sent as one, joined by a blank line" {
	items "$U" '{"type":"message","role":"user","content":"are you there?"}' "$A" \
	    '{"type":"message","role":"user","content":"again"}'
	run --separate-stderr mc-request -p ollama -m m --items "$T/items.jsonl" --body "and now?" < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '[.messages[] | [.role, .content]]')" \
	    '[["user","read a.c\n\nare you there?"],["assistant","Reading."],["user","again\n\nand now?"]]'
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" --body "and now?" < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '.input')" \
	    '[{"type":"message","role":"user","content":"read a.c\n\nare you there?"},{"type":"message","role":"assistant","content":"Reading."},{"type":"message","role":"user","content":"again\n\nand now?"}]'
}

@test "an incomplete answer is sent as it was; status is not sent" {
	items "$U" '{"type":"message","role":"assistant","content":"The file decl","status":"incomplete"}'
	for api in chat responses; do
		run --separate-stderr mc-request -m m --api $api --items "$T/items.jsonl" --body "go on" < "$T/empty"
		assert_success
		assert_equal "$(jqo -c '[(.messages // .input)[] | select(.role == "assistant")]')" \
		    "[{$([ $api = responses ] && printf '"type":"message",')\"role\":\"assistant\",\"content\":\"The file decl\"}]"
	done
}

@test "a refusal is not sent as the assistant's words; a refusal-only answer is left out" {
	items "$U" '{"type":"message","role":"assistant","content":"","refusal":"I cannot help with that."}' \
	    '{"type":"message","role":"user","content":"please"}' \
	    '{"type":"message","role":"assistant","content":"Fine.","refusal":"partly"}'
	run --separate-stderr mc-request -p ollama -m m --items "$T/items.jsonl" --body < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '.messages')" '[{"role":"user","content":"read a.c\n\nplease"},{"role":"assistant","content":"Fine."}]'
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" --body < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '.input')" '[{"type":"message","role":"user","content":"read a.c\n\nplease"},{"type":"message","role":"assistant","content":"Fine."}]'
}

@test "usage lines of a session are skipped, anywhere; never sent" {
	items '{"type":"session","id":"s"}' "$U" "$A" \
	    '{"type":"usage","input_tokens":120,"output_tokens":30,"cached_tokens":100,"provider":"openai","model":"m"}' \
	    '{"type":"message","role":"user","content":"next"}'
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" --body < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '[.input[].content]')" '["read a.c","Reading.","next"]'
	[[ "$output" != *usage* ]]
	# They do not count as conversation either.
	items '{"type":"usage","input_tokens":1,"output_tokens":1}'
	run --separate-stderr mc-request -m m --items "$T/items.jsonl" < "$T/empty"
	assert_failure 1
	assert_equal "$stderr" "mc-request: $T/items.jsonl: no conversation items, and no PROMPT"
}

@test "invalid refusal and status members are refused" {
	bad '1: message: "refusal" belongs to an assistant message' '{"type":"message","role":"user","content":"x","refusal":"no"}'
	bad '2: message: "refusal" must be a string' "$U" '{"type":"message","role":"assistant","content":"","refusal":1}'
	bad '2: message: "status" must be "completed" or "incomplete"' "$U" '{"type":"message","role":"assistant","content":"x","status":"cut"}'
}

# --- --schema --------------------------------------------------------------

@test "--schema: json_schema for chat, text.format for responses, named by the file" {
	printf '%s\n' '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}' > "$T/count lines.v2.json"
	run --separate-stderr mc-request -p ollama -m m --schema "$T/count lines.v2.json" --body "How many?" < "$T/empty"
	assert_success
	assert_equal "$(jqo -c .response_format)" '{"type":"json_schema","json_schema":{"name":"count_lines_v2","schema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false},"strict":true}}'
	run --separate-stderr mc-request -m m --schema "$T/count lines.v2.json" --body "How many?" < "$T/empty"
	assert_success
	assert_equal "$(jqo -c .text)" '{"format":{"type":"json_schema","name":"count_lines_v2","schema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false},"strict":true}}'
	long=$(printf 'x%.0s' {1..80})
	cp "$T/count lines.v2.json" "$T/$long.json"
	run --separate-stderr mc-request -m m --schema "$T/$long.json" --body "How many?" < "$T/empty"
	assert_equal "$(jqo -r .text.format.name)" "${long:0:64}"
}

@test "--schema changes the cache key; without it the key is as before" {
	printf '{"type":"object"}\n' > "$T/s.json"
	a=$(mc-request -m m "Hi?" < "$T/empty" | jq -r .cache_key)
	b=$(mc-request -m m --schema "$T/s.json" "Hi?" < "$T/empty" | jq -r .cache_key)
	[ "$a" != "$b" ]
}

@test "--schema: a bad file is exit 1 naming it" {
	check() {
		run --separate-stderr mc-request -m m --schema "$1" "Hi?" < "$T/empty"
		assert_failure 1
		assert_output ""
		assert_equal "$stderr" "mc-request: $2"
	}
	check "$T/none.json" "$T/none.json: No such file or directory"
	printf '{"type":' > "$T/s.json"
	check "$T/s.json" "$T/s.json: invalid JSON at line 1, column 8"
	printf '["object"]' > "$T/s.json"
	check "$T/s.json" "$T/s.json: expected a JSON Schema object"
	printf '{"title":"\377"}' > "$T/s.json"
	check "$T/s.json" "$T/s.json: not valid UTF-8"
	run --separate-stderr mc-request -m m --schema - "Hi?" < "$T/empty"
	assert_failure 2
}

# --- providers: first contact ----------------------------------------------

@test "MC_BASE_URL with no provider chosen: an OpenAI-compatible server there" {
	MC_BASE_URL=http://127.0.0.1:8080/v1/ run --separate-stderr mc-request -m m "Hi?" < "$T/empty"
	assert_success
	assert_equal "$(jqo -c '[.provider, .api, .url, .api_key_env, .api_key_optional, .body.model]')" \
	    '["openai-compatible","chat","http://127.0.0.1:8080/v1/chat/completions","OPENAI_API_KEY",true,"m"]'
	# A provider chosen anywhere keeps its own API, with the URL.
	MC_BASE_URL=http://127.0.0.1:8080/v1 run --separate-stderr mc-request -p openai -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo -c '[.provider, .api, .url, has("api_key_optional")]')" '["openai","responses","http://127.0.0.1:8080/v1/responses",false]'
	# Without a URL, openai-compatible says how to give one.
	run --separate-stderr mc-request -p openai-compatible -m m "Hi?" < "$T/empty"
	assert_failure 1
	assert_equal "$stderr" "mc-request: openai-compatible: no base URL: set MC_BASE_URL, or providers.openai-compatible.base_url in $MC_HOME/settings.json"
}

@test "OPENAI_BASE_URL is openai's base URL unless settings or MC_BASE_URL say otherwise" {
	OPENAI_BASE_URL=https://gw.example/v1 run --separate-stderr mc-request -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo -c '[.provider, .url]')" '["openai","https://gw.example/v1/responses"]'
	OPENAI_BASE_URL=https://gw.example/v1 run --separate-stderr mc-request -p ollama -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo .url)" http://127.0.0.1:11434/v1/chat/completions
	settings '{"providers":{"openai":{"base_url":"https://set.example/v1"}}}'
	OPENAI_BASE_URL=https://gw.example/v1 run --separate-stderr mc-request -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo .url)" https://set.example/v1/responses
	OPENAI_BASE_URL=gw.example run --separate-stderr mc-request -p openai -m m "Hi?" < "$T/empty"
	assert_equal "$(jqo .url)" https://set.example/v1/responses
	rm "$MC_HOME/settings.json"
	OPENAI_BASE_URL=gw.example run --separate-stderr mc-request -m m "Hi?" < "$T/empty"
	assert_failure 1
	assert_equal "$stderr" "mc-request: OPENAI_BASE_URL: expected an http:// or https:// URL: gw.example"
}
