#!/usr/bin/env bats
# mc's headless contract (SPEC §10): --json events, exit statuses, usage,
# mc sessions, --no-session, --schema.

load helper
load fake
load mc

# the events of $output without what changes from run to run
events() {
	printf '%s\n' "$output" | jq -c 'if .type == "session" then del(.id, .cwd) else . end'
}

@test "--json: a whole run's events, in order, as the pinned file says" {
	printf 'one\ntwo\n' > notes.txt
	fake_start "[$(calls "$(call c1 read '{"path":"notes.txt"}')"),
	  $(calls "$(call c2 bash '{"command":"rm notes.txt"}')"),
	  $(text 'Two lines; I did not delete it.')]"
	use_fake
	run --separate-stderr mc --json 'look at notes.txt, then delete it' </dev/null
	assert_success
	diff -u "$MC_TOP/t/fixtures/mc-json/run.jsonl" <(events)
	# the first line names the session that holds the run
	id=$(printf '%s\n' "$output" | head -1 | jq -r .id)
	[ -f "$MC_HOME/sessions/$id.jsonl" ]
	assert_equal "$(printf '%s\n' "$output" | head -1 | jq -r .cwd)" "$(pwd -P)"
	# every line is one JSON object with a type, nothing else on stdout
	printf '%s\n' "$output" | jq -e 'type == "object" and has("type")' >/dev/null
	[ -f notes.txt ]
	assert_equal "$stderr" 'mc: refused bash (one-shot runs need --yes to run write, edit or bash)'
}

@test "--json: done comes last after a provider error, with the error before it; exit 1" {
	fake_start '[{"status":401,"json":{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}}]'
	use_fake
	run --separate-stderr mc --json 'hi' </dev/null
	assert_failure 1
	assert_equal "$(printf '%s\n' "$output" | tail -2 | jq -c '{type, status, message}' | head -1)" \
		'{"type":"error","status":401,"message":"HTTP 401 from fake: Incorrect API key provided (no key was sent: providers.fake.api_key_env is null)"}'
	assert_equal "$(printf '%s\n' "$output" | tail -1 | jq -c .)" \
		'{"type":"done","reason":"error","steps":1,"usage":{"input_tokens":0,"output_tokens":0,"cached_tokens":0}}'
	# a failure before any request: the driver's own error is an event too
	settings '{"provider":"nosuch","model":"m"}'
	run --separate-stderr mc --json 'hi' </dev/null
	assert_failure 1
	assert_equal "$(printf '%s\n' "$output" | head -1 | jq -r .type)" session
	assert_equal "$(printf '%s\n' "$output" | tail -1 | jq -r .reason)" error
}

@test "--json: Ctrl-C ends the run with done cancelled and status 130; the text so far is kept" {
	fake_start '[{"answer":{"api":"chat","text":"one two three four five six"},"stall_after":700,"stall":60}]'
	use_fake
	mc --json 'story' </dev/null >out 2>err &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q '"type":"text"' out 2>/dev/null && break
		sleep 0.05
	done
	grep -q '"type":"text"' out
	kill -INT "$pid"
	status=0
	wait "$pid" || status=$?
	assert_equal "$status" 130
	assert_equal "$(tail -1 out | jq -r '.type + " " + .reason')" 'done cancelled'
	f=$(session_files)
	assert_equal "$(tail -1 "$f" | jq -r .status)" incomplete
}

@test "--json: --timeout ends a run of endless keep-alives as Ctrl-C would: done timeout, status 124" {
	fake_start '[{"endless":{"comments":0.2,"text":"so far"}}]'
	use_fake
	# timeout(1) only bounds a failure of this test
	run --separate-stderr timeout 60 mc --json --timeout 1 'story' </dev/null
	assert_failure 124
	assert_equal "$(jqo -s -r '.[-1] | .type + " " + .reason')" 'done timeout'
	assert_equal "$(jqo -s -r '[.[] | select(.type == "text") | .delta] | join("")')" 'so far'
	assert_equal "$stderr" "mc: stopped after 1 seconds (--timeout or MC_TIMEOUT)"
	f=$(session_files)
	assert_equal "$(tail -1 "$f" | jq -r .status)" incomplete
	# what the model reads next says the deadline stopped it, not the user
	assert_equal "$(tail -1 "$f" | jq -r .content)" "so far
(stopped by the run's --timeout)"
}

@test "MC_TIMEOUT bounds a one-shot run too, a tool call's command ended with it; --timeout wins" {
	fake_start "[$(calls "$(call c1 bash '{"command":"sleep 301.25"}')"), $(text never)]"
	use_fake
	MC_TIMEOUT=1 run --separate-stderr timeout 60 mc --yes 'wait' </dev/null
	assert_failure 124
	assert_equal "$stderr" "mc: stopped after 1 seconds (--timeout or MC_TIMEOUT)"
	# (by its command line: its pid may be another namespace's)
	run pgrep -f 'sleep 301[.]25'
	assert_failure
	assert_equal "$(fake_count)" 1
	assert_equal "$(grep function_call_output "$(session_files)" | jq -r .output)" \
		"error: the run's --timeout ended this call."
	MC_TIMEOUT=x run --separate-stderr mc --timeout 2 --dry-run hi </dev/null
	assert_failure 2
	assert_regex "$stderr" "^mc: --timeout is for one-shot runs"
	MC_TIMEOUT=0 run --separate-stderr mc hi </dev/null
	assert_failure 2
	assert_regex "$stderr" "^mc: MC_TIMEOUT: 0 is too small \\(1 to "
	run --separate-stderr mc --timeout 0 hi </dev/null
	assert_failure 2
}

@test "--json: text events reach a reader of the pipe as they happen" {
	fake_start '[{"answer":{"api":"chat","text":"early words then a long pause"},"stall_after":700,"stall":60}]'
	use_fake
	mkfifo pipe
	mc --json 'go' </dev/null >pipe 2>/dev/null &
	pid=$!
	# the reader sees the session and a text event while the answer stalls
	timeout 20 sh -c 'while IFS= read -r l; do
		case $l in *"\"type\":\"text\""*) echo seen; exit 0;; esac
	done' <pipe > seen
	kill -INT "$pid"
	wait "$pid" || true
	assert_equal "$(cat seen)" seen
}

# stopped_short [N]: the fake answers a read call, then N (1) answers
# the output limit cuts
stopped_short() {
	local cut i s
	cut=$(jq -nc '{answer:{api:"chat",text:"cut sh",finish_reason:"length"}}')
	printf 'x\n' > a.txt
	s="$(calls "$(call c1 read '{"path":"a.txt"}')")"
	for ((i = 0; i < ${1:-1}; i++)); do
		s+=",$cut"
	done
	fake_start "[$s]"
	use_fake
}

@test "exit statuses: 3 for --max-steps and for an answer cut by the output limit, said on stderr, no error event" {
	stopped_short 2
	run --separate-stderr mc --json --max-steps 1 'look' </dev/null
	assert_failure 3
	assert_equal "$(printf '%s\n' "$output" | jq -r .type | tr '\n' ' ')" \
		'session tool_call usage approval tool_output done '
	assert_equal "$(printf '%s\n' "$output" | tail -1 | jq -r .reason)" max_steps
	assert_equal "$stderr" 'mc: stopped after 1 step (--max-steps); `mc -c` goes on'
	run --separate-stderr mc -c --max-output-tokens 5 'again' </dev/null
	assert_failure 3
	assert_output 'cut sh'
	assert_equal "$(printf '%s\n' "$stderr" | grep '^mc:')" \
		'mc: the answer was cut by the output limit (--max-output-tokens); `mc -c` goes on'
	assert_equal "$(fake_request 2 .body.max_tokens)" 5
	f=$(session_files)
	assert_equal "$(grep -v '"usage"' "$f" | tail -1 | jq -c '[.content, .status]')" '["cut sh","incomplete"]'
	run --separate-stderr mc --json -c 'more' </dev/null
	assert_failure 3
	assert_equal "$(printf '%s\n' "$output" | jq -r .type | tr '\n' ' ')" 'session text text usage done '
	assert_equal "$(printf '%s\n' "$output" | tail -1 | jq -r .reason)" length
}

@test "usage: a line per answer in the session, the totals in done" {
	printf 'x\n' > a.txt
	fake_start "[$(USAGE='[100,7]' calls "$(call c1 read '{"path":"a.txt"}')"), $(USAGE='[120,9]' text done)]"
	use_fake
	run --separate-stderr mc --json 'read it' </dev/null
	assert_success
	assert_equal "$(printf '%s\n' "$output" | jq -c 'select(.type == "usage") | [.input_tokens, .output_tokens]' | tr '\n' ' ')" \
		'[100,7] [120,9] '
	assert_equal "$(printf '%s\n' "$output" | tail -1 | jq -c .usage)" \
		'{"input_tokens":220,"output_tokens":16,"cached_tokens":0}'
	f=$(session_files)
	assert_equal "$(jq -c 'select(.type == "usage") | [.input_tokens, .provider, .model]' "$f" | tr '\n' ' ')" \
		'[100,"fake","fake-model"] [120,"fake","fake-model"] '
	# mc-request leaves them out of the next request
	run --separate-stderr mc -c --dry-run 'and?' </dev/null
	assert_success
	assert_equal "$(jqo '[.body.messages[] | .role] | join(",")')" 'system,user,assistant,tool,assistant,user'
}

@test "--no-session writes nothing under sessions/" {
	fake_start "[$(text hello)]"
	use_fake
	run --separate-stderr mc --no-session 'hi' </dev/null
	assert_success
	assert_output hello
	[ ! -e "$MC_HOME/sessions" ] || [ -z "$(ls -A "$MC_HOME/sessions")" ]
	run --separate-stderr mc --json --no-session 'hi' </dev/null
	assert_failure 1	# the fake has no second answer
	assert_equal "$(printf '%s\n' "$output" | head -1 | jq -c .id)" null
	[ ! -e "$MC_HOME/sessions" ] || [ -z "$(ls -A "$MC_HOME/sessions")" ]
}

@test "--json and --no-session are for one-shot runs; bad --max-output-tokens" {
	run --separate-stderr mc --json --dry-run hi
	assert_failure 2
	run --separate-stderr mc --json prompt
	assert_failure 2
	run --separate-stderr mc --max-output-tokens 0 hi
	assert_failure 2
	run --separate-stderr mc --all hi
	assert_failure 2
}

@test "--schema: a JSON answer is printed compact; anything else is exit 1" {
	printf '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}\n' > s.json
	fake_start "[$(text '{ "n" : 4 }'), $(text 'four')]"
	use_fake
	run --separate-stderr mc --schema s.json 'two plus two' </dev/null
	assert_success
	assert_output '{"n":4}'
	assert_equal "$(fake_request 1 '.body.response_format.json_schema.schema.required[0]')" n
	run --separate-stderr mc --schema s.json 'again' </dev/null
	assert_failure 1
	assert_output ''
	[[ $stderr == 'mc: --schema: the answer is not JSON'* ]]
}

@test "--schema: an answer that does not match exits 1 naming the first mismatch; the answer is shown" {
	printf '{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}\n' > s.json
	fake_start "[$(text '{"answer":5}'), $(text '{"answer":"five","extra":1}'), $(text '{"answer":"five"}')]"
	use_fake
	run --separate-stderr mc --schema s.json 'five?' </dev/null
	assert_failure 1
	assert_output ''
	assert_equal "${stderr_lines[0]}" 'mc: --schema: the answer does not match the schema at /answer: expected string, got number; it was:'
	assert_equal "${stderr_lines[1]}" '{"answer":5}'
	run --separate-stderr mc --schema s.json 'five?' </dev/null
	assert_failure 1
	assert_equal "${stderr_lines[0]}" 'mc: --schema: the answer does not match the schema at /extra: not allowed: the schema has no such property (additionalProperties is false); it was:'
	run --separate-stderr mc --schema s.json 'five?' </dev/null
	assert_success
	assert_output '{"answer":"five"}'
}

@test "--schema: an answer that is not JSON is shown on stderr, and in the error event with --json" {
	printf '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}\n' > s.json
	fake_start "[$(text 'It is four.
Really.'), $(text 'four'), $(text '{"n":"4"}')]"
	use_fake
	run --separate-stderr mc --schema s.json 'two plus two' </dev/null
	assert_failure 1
	assert_output ''
	[[ ${stderr_lines[0]} == 'mc: --schema: the answer is not JSON: '*'; it was:' ]]
	assert_equal "${stderr_lines[1]}" 'It is four.'
	assert_equal "${stderr_lines[2]}" 'Really.'
	run --separate-stderr mc --json --schema s.json 'two plus two' </dev/null
	assert_failure 1
	assert_equal "$(printf '%s\n' "$output" | jq -c 'select(.type == "error") | .answer')" '"four"'
	[[ $(printf '%s\n' "$output" | jq -r 'select(.type == "error") | .message') == '--schema: the answer is not JSON: '* ]]
	assert_equal "$(printf '%s\n' "$output" | jq -c 'select(.type == "error")' | wc -l)" 1
	assert_equal "$(printf '%s\n' "$output" | tail -1 | jq -r .reason)" error
	[[ $stderr == *'four'* ]]
	run --separate-stderr mc --json --schema s.json 'two plus two' </dev/null
	assert_failure 1
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.type == "error") | .message')" \
		'--schema: the answer does not match the schema at /n: expected integer, got string; it was:'
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.type == "error") | .answer')" '{"n":"4"}'
	assert_equal "$(printf '%s\n' "$output" | jq -c 'select(.type == "text")' | wc -l)" 0
}

@test "mc sessions: this directory's, newest first; --all; --json" {
	fake_start "[$(text one), $(text two), $(text three)]"
	use_fake
	USAGE='[10,5]' mc 'first question
second line' </dev/null >/dev/null
	sleep 0.01
	mc 'another' </dev/null >/dev/null
	mkdir ../elsewhere && (cd ../elsewhere && mc 'far away' </dev/null >/dev/null)
	run --separate-stderr mc sessions
	assert_success
	assert_equal "$(printf '%s\n' "$output" | wc -l)" 2
	[[ ${lines[0]} == *'another'* ]]
	[[ ${lines[1]} == *'first question' ]]
	[[ ${lines[1]} == *' 1 turn '*' 15 tokens  first question' ]]
	run --separate-stderr mc sessions --all
	assert_equal "$(printf '%s\n' "$output" | wc -l)" 3
	[[ ${lines[0]} == *'far away'* ]]
	run --separate-stderr mc sessions --json
	assert_success
	assert_equal "$(printf '%s\n' "$output" | jq -c '[.turns, .input_tokens, .output_tokens, .first, .model]' | tail -1)" \
		'[1,10,5,"first question","fake-model"]'
	run --separate-stderr mc sessions -c
	assert_failure 2
}

# only_failure MESSAGE: $output is the session (nothing known of it but
# maybe the cwd), the error MESSAGE, and done with nothing counted
only_failure() {
	assert_equal "$(printf '%s\n' "$output" | jq -c 'if .type == "session" then [.type, .version, .id, .provider, .model] else . end')" \
		"$(printf '%s\n' '["session",1,null,null,null]' \
		  "$(jq -nc --arg m "$1" '{type:"error",message:$m}')" \
		  '{"type":"done","reason":"error","steps":0,"usage":{"input_tokens":0,"output_tokens":0,"cached_tokens":0}}')"
	assert_equal "$stderr" "mc: $1"
}

@test "--json: a run that fails before it begins is events too: session, error, done" {
	settings '{"provider":'
	run --separate-stderr mc --json 'hi' </dev/null
	assert_failure 1
	only_failure "$MC_HOME/settings.json: invalid JSON at line 1, column 13"
	settings '{"hooks":{"pre_tool":[{"command":"true","match":"("}]}}'
	run --separate-stderr mc --json 'hi' </dev/null
	assert_failure 1
	[[ $stderr == "mc: $MC_HOME/settings.json: hooks.pre_tool[0].match: "* ]]
	only_failure "${stderr#mc: }"
	settings '{}'
	run --separate-stderr mc --json 'hi' < <(printf 'caf\351\n')
	assert_failure 1
	only_failure 'standard input: not UTF-8 text'
	assert_equal "$(printf '%s\n' "$output" | head -1 | jq -r .cwd)" "$(pwd -P)"
	# mc-send is nowhere: a copy of mc alone, and a PATH without the suite
	mkdir lone && cp "$MC_BIN/mc" lone/
	run --separate-stderr env PATH=/usr/bin:/bin lone/mc --json 'hi' </dev/null
	assert_failure 1
	only_failure 'mc-send: not found beside mc on PATH'
	# a usage error is no run: plain stderr, nothing on stdout
	run --separate-stderr mc --json </dev/null
	assert_failure 2
	assert_output ''
	[[ $stderr == 'mc: nothing to ask'* ]]
	run --separate-stderr mc --json --session nosuch/x.jsonl 'hi' </dev/null
	assert_failure 2
	assert_output ''
	# mc sessions --json lists; its failure is no run's
	settings '{"provider":'
	run --separate-stderr mc sessions --json
	assert_failure 1
	assert_output ''
}

@test "--json: a stage that fails says why on stderr, and an error event names it" {
	fake_start "$(answers unused)"
	settings "{\"provider\":\"fake\",
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}}}"
	run --separate-stderr mc --json 'hi' </dev/null
	assert_failure 1
	[[ $stderr == 'mc-request: no model for provider fake: '* ]]
	assert_equal "$(printf '%s\n' "$output" | jq -r .type | paste -sd, -)" session,error,done
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.type == "error") | .message')" \
		'mc-request failed (exit status 1); its message is on stderr'
	assert_equal "$(printf '%s\n' "$output" | tail -1 | jq -c '[.reason, .steps]')" '["error",0]'
	assert_equal "$(fake_count)" 0
}

@test "--json: warnings stay on stderr, not events" {
	fake_start "[$(text hello)]"
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",\"bogus\":1,
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}}}"
	run --separate-stderr mc --json 'hi' </dev/null
	assert_success
	assert_equal "$(printf '%s\n' "$output" | jq -r .type | tr '\n' ' ')" 'session text usage done '
	assert_equal "$stderr" "mc: warning: $MC_HOME/settings.json: unknown setting bogus"
}

@test "--no-session: stopped short, the advice is to run again, not mc -c" {
	stopped_short
	run --separate-stderr mc --no-session --max-steps 1 'look' </dev/null
	assert_failure 3
	assert_equal "$stderr" 'mc: stopped after 1 step (--max-steps); run it again with a larger --max-steps'
	run --separate-stderr mc --no-session --max-output-tokens 5 'again' </dev/null
	assert_failure 3
	assert_output 'cut sh'
	assert_equal "$(printf '%s\n' "$stderr" | grep '^mc:')" \
		'mc: the answer was cut by the output limit (--max-output-tokens); run it again with a larger --max-output-tokens'
	[[ $stderr != *'mc -c'* ]]
}

@test "--schema --json: the answer once, compact, in the text events" {
	printf '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}\n' > s.json
	printf 'x\n' > a.txt
	fake_start "[$(jq -nc --argjson c "[$(call c1 read '{"path":"a.txt"}')]" \
	    '{answer:{api:"chat",text:"Let me look. ",calls:$c}}'), $(text '{ "n" : 4 }')]"
	use_fake
	run --separate-stderr mc --json --schema s.json 'two plus two' </dev/null
	assert_success
	# the deltas joined are exactly one JSON value: the answer, compact
	assert_equal "$(printf '%s\n' "$output" | jq -j 'select(.type == "text") | .delta')" '{"n":4}'
	assert_equal "$(printf '%s\n' "$output" | jq -j 'select(.type == "text") | .delta' | jq -s length)" 1
}

# A chat answer that refuses, in two deltas, with the provider's usage
# (cached: CACHED of its 100 input tokens).
refusal() {
	jq -nc --argjson c "${1:-0}" '{events: [
	  {choices: [{index: 0, delta: {role: "assistant", content: null, refusal: ""}}]},
	  {choices: [{index: 0, delta: {refusal: "I cannot help "}}]},
	  {choices: [{index: 0, delta: {refusal: "with that."}}]},
	  {choices: [{index: 0, delta: {}, finish_reason: "stop"}]},
	  {choices: [], usage: {prompt_tokens: 100, completion_tokens: 5,
	    prompt_tokens_details: {cached_tokens: $c}}}], done: true}'
}

@test "a refusal: refusal events, done refusal, exit 0, kept apart in the session" {
	fake_start "[$(refusal), $(refusal)]"
	use_fake
	run --separate-stderr mc --json 'do a bad thing' </dev/null
	assert_success
	assert_equal "$(printf '%s\n' "$output" | jq -c 'select(.type != "session" and .type != "usage")')" \
		'{"type":"refusal","delta":"I cannot help "}
{"type":"refusal","delta":"with that."}
{"type":"done","reason":"refusal","steps":1,"usage":{"input_tokens":100,"output_tokens":5,"cached_tokens":0}}'
	assert_equal "$stderr" ''
	f=$(session_files)
	assert_equal "$(jq -c 'select(.role == "assistant")' "$f")" \
		'{"type":"message","role":"assistant","content":"","refusal":"I cannot help with that."}'
	# without --json the refusal is shown, and the status is the same
	run --separate-stderr mc -c 'please' </dev/null
	assert_success
	assert_output 'I cannot help with that.'
}

@test "cached tokens: in done, the session's usage line and mc sessions, counted once" {
	fake_start "[$(refusal 80)]"
	use_fake
	run --separate-stderr mc --json 'hi' </dev/null
	assert_success
	assert_equal "$(printf '%s\n' "$output" | tail -1 | jq -c .usage)" \
		'{"input_tokens":100,"output_tokens":5,"cached_tokens":80}'
	f=$(session_files)
	assert_equal "$(jq -c 'select(.type == "usage") | [.input_tokens, .output_tokens, .cached_tokens]' "$f")" '[100,5,80]'
	run --separate-stderr mc sessions --json
	assert_equal "$(jqo -c '[.input_tokens, .output_tokens, .cached_tokens]')" '[100,5,80]'
	run --separate-stderr mc sessions
	[[ $output == *' 105 tokens  hi' ]]
}

@test "interactive: one dim usage line per turn, its steps' tokens summed; /usage the session's" {
	printf 'x\n' > a.txt
	fake_start "[$(USAGE='[100,7]' calls "$(call c1 read '{"path":"a.txt"}')"), $(USAGE='[120,9]' text 'it holds x')]"
	use_fake
	on_tty mc
	wait_for 'mc>'
	keys 'read a.txt' Enter
	wait_for 'it holds x'
	wait_prompt 2
	assert_equal "$(pane | grep 'tokens in')" '220 tokens in, 16 out'
	keys '/usage' Enter
	wait_for 'session: '
	assert_equal "$(pane | grep -o 'session: .*')" 'session: 220 tokens in (0 cached), 16 out; this run: 220 in, 16 out'
	wait_prompt 3	# Ctrl-D typed ahead is lost to the switch of terminal modes
	keys C-d
	assert_equal "$(wait_status)" 0
}

@test "--cache: an answer from the cache is marked cached, and its tokens are not spent" {
	fake_start "[$(text 'four')]"
	use_fake
	run --separate-stderr mc --json --cache 'two plus two' </dev/null
	assert_success
	assert_equal "$(jqo -c 'select(.type == "usage")')" \
		'{"type":"usage","input_tokens":10,"output_tokens":5,"cached_tokens":0}'
	assert_equal "$(jqo -c 'select(.type == "done") | [.usage.input_tokens, .cached]')" '[10,null]'
	sleep 0.01
	run --separate-stderr mc --json --cache 'two plus two' </dev/null
	assert_success
	assert_equal "$(fake_count)" 1
	assert_equal "$(jqo -j 'select(.type == "text") | .delta')" four
	assert_equal "$(jqo -c 'select(.type == "usage")')" \
		'{"type":"usage","input_tokens":10,"output_tokens":5,"cached_tokens":0,"cached":true}'
	assert_equal "$(jqo -c 'select(.type == "done")')" \
		'{"type":"done","reason":"stop","steps":1,"usage":{"input_tokens":0,"output_tokens":0,"cached_tokens":0},"cached":true}'
	# not on a terminal: no note
	assert_equal "$stderr" ''
	# the session's usage line says so; mc sessions counts no tokens for it
	id=$(jqo -r 'select(.type == "session") | .id')
	assert_equal "$(jq -c 'select(.type == "usage") | .cached' "$MC_HOME/sessions/$id.jsonl")" true
	run --separate-stderr mc sessions --json
	assert_equal "$(jqo -s -c 'map([.input_tokens, .output_tokens])')" '[[0,0],[10,5]]'
	run --separate-stderr mc sessions
	[[ ${lines[0]} == *' 0 tokens  two plus two' ]]
	[[ ${lines[1]} == *' 15 tokens  two plus two' ]]
}
