#!/usr/bin/env bats
# mc, the driver: SPEC §7 against the fake provider (t/fake-provider.py).

load helper
load fake
load mc

@test "one-shot: the answer streams to stdout, the session holds the turn" {
	fake_start "$(answers 'Hello from the fake.')"
	use_fake
	run --separate-stderr mc 'say hello' </dev/null
	assert_success
	assert_equal "$stderr" ""
	assert_output 'Hello from the fake.'
	assert_equal "$(fake_count)" 1
	assert_equal "$(fake_request 1 .body.stream)" true
	assert_equal "$(fake_request 1 .body.model)" fake-model
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" 'say hello'
	f=$(session_files)
	assert_equal "$(jq -c 'del(.id, .created)' < <(head -1 "$f"))" \
		"{\"type\":\"session\",\"cwd\":\"$(pwd -P)\",\"provider\":\"fake\",\"model\":\"fake-model\",\"title\":\"say hello\"}"
	assert_equal "$(sed -n 2p "$f")" '{"type":"message","role":"user","content":"say hello"}'
	assert_equal "$(sed -n 3p "$f" | jq -r '.role + ": " + .content')" 'assistant: Hello from the fake.'
	# the answer's usage, bookkeeping after it
	assert_equal "$(sed -n 4p "$f" | jq -c '{type, provider, model}')" \
		'{"type":"usage","provider":"fake","model":"fake-model"}'
	assert_equal "$(wc -l < "$f")" 4
}

@test "one-shot: the system prompt travels as the system message, equal to mc prompt" {
	fake_start "$(answers ok)"
	use_fake
	printf 'Always answer in French.\n' > AGENTS.md
	run --separate-stderr mc hi </dev/null
	assert_success
	assert_equal "$(fake_request 1 '.body.messages[0].role')" system
	jq -j '.body.messages[0].content' "$FAKE_LOG/1.json" > sent
	mc prompt > printed
	cmp sent printed
	grep -q 'Always answer in French.' sent
}

@test "piped stdin is appended to the prompt as a fenced block" {
	fake_start "$(answers ok ok ok)"
	use_fake
	printf 'line one\nline two\n' | mc 'explain this' >/dev/null
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" \
		"$(printf 'explain this\n\n```\nline one\nline two\n```')"
	# a fence longer than any run of backticks inside
	printf 'a ```` b' | mc 'look' >/dev/null
	assert_equal "$(fake_request 2 '.body.messages[-1].content')" \
		"$(printf 'look\n\n`````\na ```` b\n`````')"
	# no PROMPT: the piped text alone is the message
	printf 'just this\n' | mc >/dev/null
	assert_equal "$(fake_request 3 '.body.messages[-1].content')" 'just this'
}

@test "piped stdin past the bound is a clear error and nothing is sent" {
	fake_start "$(answers ok)"
	use_fake
	head -c 1048577 /dev/zero | tr '\0' a > big
	run --separate-stderr mc 'summarize' < big
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc: standard input: over the 1048576-byte limit for piped input"
	assert_equal "$(fake_count)" 0
	# at the bound it goes through
	head -c 1048576 big > fits
	run --separate-stderr mc 'summarize' < fits
	assert_success
}

@test "a prompt or piped input that is not UTF-8 is refused before anything is sent" {
	fake_start "$(answers ok)"
	use_fake
	run --separate-stderr mc "$(printf 'bad \377 byte')" </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: PROMPT: not UTF-8 text"
	run --separate-stderr mc 'look' < <(printf 'bin\377ary')
	assert_failure 1
	assert_equal "$stderr" "mc: standard input: not UTF-8 text"
	assert_equal "$(fake_count)" 0
	assert_equal "$(session_files)" ""
}

@test "--dry-run prints the envelope and sends nothing" {
	fake_start "$(answers ok)"
	use_fake
	run --separate-stderr mc --dry-run 'what is 2+2' </dev/null
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo .provider)" fake
	assert_equal "$(jqo .url)" "$FAKE_URL/chat/completions"
	assert_equal "$(jqo '.body.messages[-1].content')" 'what is 2+2'
	assert_equal "$(jqo '.body.messages[0].content')" "$(mc prompt)"
	assert_equal "$(fake_count)" 0
	assert_equal "$(session_files)" ""
}

@test "--dry-run: a repository's ./rg and bin/rg never run from a relative PATH entry" {
	fake_start "$(answers ok)"
	use_fake
	printf '#!/bin/sh\ntouch "%s/ran"\n' "$BATS_TEST_TMPDIR" >rg
	chmod +x rg
	mkdir bin && cp rg bin/
	for path in ".:$PATH" "bin:$PATH"; do
		PATH="$path" run --separate-stderr mc --dry-run hi </dev/null
		assert_success
		[ ! -e "$BATS_TEST_TMPDIR/ran" ] || fail "./rg ran with PATH=$path"
	done
}

@test "--dry-run -c shows the history and leaves the session as it was" {
	fake_start "$(answers 'first answer')"
	use_fake
	mc 'first question' >/dev/null </dev/null
	f=$(session_files)
	cp "$f" before
	run --separate-stderr mc -c --dry-run 'second' </dev/null
	assert_success
	assert_equal "$(jqo '[.body.messages[1:][] | .content] | join("|")')" \
		'first question|first answer|second'
	cmp before "$f"
	assert_equal "$(fake_count)" 1
}

@test "mc prompt prints exactly what the pipeline prints; --stats passes through" {
	printf '# rules\nBe brief.\n' > AGENTS.md
	mkdir -p .agents/skills/review
	printf -- '---\ndescription: Review code.\n---\nbody\n' > .agents/skills/review/SKILL.md
	mc-discover -q --keep-going | mc-skills -q --keep-going | mc-render > want
	run --separate-stderr mc prompt
	assert_success
	assert_equal "$stderr" ""
	mc prompt > got
	cmp want got
	grep -q 'Be brief.' got
	grep -q 'review: Review code.' got
	mc-discover -q --keep-going | mc-skills -q --keep-going | mc-render --stats > want
	mc prompt --stats > got
	# the table, then the tool schemas sent beside the prompt
	cmp want <(head -n -1 got)
	n=$(mc-tool list | tr -d '\n' | wc -c)
	[[ $(tail -n 1 got) == "schemas    mc-tool      "*"$n "*"sent beside the prompt: "*" tool schemas" ]]
	mc-discover -q --keep-going | mc-skills -q --keep-going | mc-render -m m1 > want
	mc prompt -m m1 > got
	cmp want got
}

@test "-c carries the history of this directory's latest session" {
	fake_start "$(answers 'answer one' 'answer two' 'elsewhere')"
	use_fake
	mc 'question one' >/dev/null </dev/null
	run --separate-stderr mc -c 'question two' </dev/null
	assert_success
	assert_output 'answer two'
	assert_equal "$(fake_request 2 '[.body.messages[1:][] | .role + ":" + .content] | join("|")')" \
		'user:question one|assistant:answer one|user:question two'
	assert_equal "$(session_files | wc -l)" 1
	# two turns, each with its usage line
	assert_equal "$(grep -vc '"type":"usage"' "$(session_files)")" 5
	assert_equal "$(grep -c '"type":"usage"' "$(session_files)")" 2
	# another directory has no session to continue
	mkdir ../other && cd ../other
	run --separate-stderr mc -c 'hello' </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: no session to continue in $(pwd -P)"
	# --session ID resumes a given one from anywhere
	id=$(basename "$(session_files)" .jsonl)
	run --separate-stderr mc --session "$id" 'three' </dev/null
	assert_success
	assert_equal "$(fake_request 3 '.body.messages | length')" 6
}

@test "a provider error keeps the user's message in the session" {
	fake_start '[{"status":401,"json":{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}},
	  {"answer":{"api":"chat","text":"now it works"}}]'
	use_fake
	run --separate-stderr mc 'do not lose me' </dev/null
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-send: HTTP 401 from fake: Incorrect API key provided (no key was sent: providers.fake.api_key_env is null)"
	f=$(session_files)
	assert_equal "$(tail -1 "$f")" '{"type":"message","role":"user","content":"do not lose me"}'
	run --separate-stderr mc -c 'again' </dev/null
	assert_success
	# (kept, and sent with the next one as one message: SPEC §16)
	assert_equal "$(fake_request 2 '[.body.messages[1:][] | .content] | join("|")')" \
		$'do not lose me\n\nagain'
}

@test "a failing stage is its own one-line message and exit 1" {
	printf '{"model": 5}\n' > "$MC_HOME/settings.json"
	run --separate-stderr mc 'hi' </dev/null
	assert_failure 1
	assert_output ""
	assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 1
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: model: expected a string"
	# a provider mc-request does not know (from the environment: one -p
	# names is mc's usage error)
	settings '{}'
	MC_PROVIDER=no-such-provider run --separate-stderr mc 'hi' </dev/null
	assert_failure 1
	assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 1
	[[ $stderr == mc-request:* ]]
}

@test "usage errors are exit 2 before anything happens" {
	run --separate-stderr mc -c --session abc hi
	assert_failure 2
	run --separate-stderr mc --session ../etc/passwd hi
	assert_failure 2
	run --separate-stderr mc --stats hi
	assert_failure 2
	run --separate-stderr mc prompt -c
	assert_failure 2
	run --separate-stderr mc </dev/null
	assert_failure 2
	[[ $stderr == *'nothing to ask'* ]]
	[ ! -e "$MC_HOME/sessions" ]
}

@test "session files are 0600 and whole lines after the driver is killed mid-answer" {
	fake_start '[{"answer":{"api":"chat","text":"one two three four five six seven eight"},
	  "stall_after":500,"stall":30}]'
	use_fake
	umask 022
	mc 'tell me a story' </dev/null >out 2>err &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		[ -s out ] && break
		sleep 0.05
	done
	[ -s out ]
	kill -9 "$pid"
	wait "$pid" || true
	f=$(session_files)
	assert_equal "$(stat -c %a "$f")" 600
	assert_equal "$(stat -c %a "$MC_HOME/sessions")" 700
	whole_lines
	assert_equal "$(tail -1 "$f" | jq -r .content)" 'tell me a story'
	fake_stop
	# the session resumes after the kill
	fake_start "$(answers 'the end')"
	use_fake
	run --separate-stderr mc -c 'go on' </dev/null
	assert_success
	assert_equal "$(fake_request 1 '[.body.messages[1:][] | .content] | join("|")')" \
		$'tell me a story\n\ngo on'
	whole_lines
}

@test "a resumed session gives an interrupted tool call its output" {
	fake_start "$(answers ok)"
	use_fake
	mkdir -p "$MC_HOME/sessions"
	{
		printf '{"type":"session","id":"s1","created":"x","cwd":"%s","provider":"fake","model":"fake-model"}\n' "$(pwd -P)"
		printf '{"type":"message","role":"user","content":"list files"}\n'
		printf '{"type":"function_call","call_id":"c1","name":"bash","arguments":"{\\"command\\":\\"ls\\"}"}\n'
		printf '{"type":"message","role":"assist'
	} > "$MC_HOME/sessions/s1.jsonl"
	run --separate-stderr mc --session s1 'and now?' </dev/null
	assert_success
	[[ $stderr == *"removed a torn last line"* ]]
	assert_equal "$(fake_request 1 '.body.messages[3].role')" tool
	assert_equal "$(fake_request 1 '.body.messages[3].tool_call_id')" c1
	[[ $(fake_request 1 '.body.messages[3].content') == *interrupted* ]]
	whole_lines
}

@test "control sequences from the model are stripped on a terminal, kept in a pipe" {
	text=$(printf 'safe \033]0;pwned\007\033[31mred\033[0m \033[2Jend')
	fake_start "$(answers "$text" "$text")"
	use_fake
	# a pipe gets the text byte for byte
	mc 'colours' </dev/null > piped
	grep -q "$(printf '\033')\\[31m" piped
	# a terminal does not
	script -qec "mc -c 'colours again' </dev/null 2>/dev/null" /dev/null > tty
	grep -q 'safe red end' tty
	run grep -c "$(printf '\033')" tty
	assert_output 0
}

# --- the interactive session, through a pseudo-terminal (tmux) ---

@test "interactive: a question, its answer, /prompt, /exit" {
	fake_start "$(answers 'The answer is 42.')"
	use_fake
	printf 'House rule: tabs, not spaces.\n' > AGENTS.md
	on_tty mc
	wait_for 'mc>'
	keys 'what is the answer?' Enter
	wait_for 'The answer is 42.'
	wait_prompt 2
	keys '/prompt' Enter
	wait_for 'House rule: tabs, not spaces.'
	keys '/exit' Enter
	assert_equal "$(wait_status)" 0
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" 'what is the answer?'
	assert_equal "$(stat -c %a "$MC_HOME/history")" 600
	grep -q 'what\\040is\\040the\\040answer?' "$MC_HOME/history"
	f=$(session_files)
	assert_equal "$(jq -r 'select(.type != "usage") | .role' "$f" | tail -n 2 | tr '\n' ' ')" \
		'user assistant '
}

@test "interactive: Ctrl-C cancels the answer in flight and keeps the question; Ctrl-D leaves" {
	fake_start '[{"answer":{"api":"chat","text":"one two three four five six seven eight"},
	  "stall_after":500,"stall":60},
	  {"answer":{"api":"chat","text":"second answer"}}]'
	use_fake
	on_tty mc
	wait_for 'mc>'
	keys 'first question' Enter
	wait_for 'one'
	keys C-c
	wait_for '(cancelled)'
	wait_prompt 2
	keys 'line one \' Enter 'line two' Enter
	wait_for 'second answer'
	# Ctrl-D typed ahead would be lost to the switch of terminal modes
	wait_prompt 3
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(fake_request 2 '[.body.messages[1:][] | .role + ":" + .content] | join("|")')" \
		"$(printf 'user:first question|assistant:one \n(cancelled by the user)|user:line one \nline two')"
	whole_lines
}

# chunk DELTA-JSON [FINISH]: one chat completion chunk as an SSE event
chunk() {
	jq -nc --argjson d "$1" --arg f "${2:-}" \
		'{id:"c",object:"chat.completion.chunk",created:1,model:"fake-model",
		  choices:[{index:0,delta:$d,finish_reason:(if $f == "" then null else $f end)}]}' |
		sed 's/^/data: /; s/$/\n/'
}

@test "interactive: the text of a cancelled answer stays in the session, marked cut; a half-streamed call does not" {
	# Text, then a call that stalls half way through its arguments.
	local head tail
	head=$(chunk '{"role":"assistant","content":""}'
		chunk '{"content":"Half of "}'
		chunk '{"content":"the answer."}'
		chunk '{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"read","arguments":""}}]}'
		chunk '{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}')
	tail=$(chunk '{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a\"}"}}]}'
		chunk '{}' tool_calls
		printf 'data: [DONE]\n')
	fake_start "$(jq -nc --arg h "$head"$'\n\n' --arg t "$tail"$'\n\n' \
		'[{sse: ($h + $t), stall_after: ($h | length), stall: 60},
		  {answer: {api: "chat", text: "the rest"}}]')"
	use_fake
	on_tty mc
	wait_for 'mc>'
	keys 'first question' Enter
	wait_for 'Half of the answer.'
	# SIGINT to the driver alone: it stops mc-send itself. The pane's shell
	# has no other child (by name it may be valgrind's, under make valgrind).
	kill -INT "$(pgrep -n -P "$(tmux -S "$TMUX_SOCK" display -p -t 0 '#{pane_pid}')")"
	wait_for '(cancelled)'
	wait_prompt 2
	f=$(session_files)
	assert_equal "$(jq -sc '[.[1:][] | [.type, .role, .content, .status]]' "$f")" \
		'[["message","user","first question",null],["message","assistant","Half of the answer.\n(cancelled by the user)","incomplete"]]'
	keys 'go on' Enter
	wait_for 'the rest'
	wait_prompt 3
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(fake_request 2 '[.body.messages[1:][] | .role + ":" + .content] | join("|")')" \
		"$(printf 'user:first question|assistant:Half of the answer.\n(cancelled by the user)|user:go on')"
	whole_lines
	# and a resumed session carries it too
	run --separate-stderr mc -c --dry-run 'again' </dev/null
	assert_success
	assert_equal "$(jqo '.body.messages[2].content')" "$(printf 'Half of the answer.\n(cancelled by the user)')"
}

@test "interactive: slash commands, and NO_COLOR" {
	fake_start "$(answers 'fine')"
	use_fake
	mkdir -p .agents/skills/lint
	printf -- '---\ndescription: Run the linters.\n---\n' > .agents/skills/lint/SKILL.md
	on_tty mc
	wait_for 'mc>'
	[[ $(pane -e) == *$'\033['* ]]	# the prompt is bold
	keys '/skills' Enter
	wait_for 'lint: Run the linters.'
	keys '/model other-model' Enter
	wait_for 'model: other-model'
	keys '/nope' Enter
	wait_for 'mc: unknown command /nope'
	keys '//slash first' Enter
	wait_for 'fine'
	wait_prompt 5
	keys '/context' Enter
	wait_for 'session '
	keys '/exit' Enter
	assert_equal "$(wait_status)" 0
	assert_equal "$(fake_request 1 .body.model)" other-model
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" '/slash first'
	tmux -S "$TMUX_SOCK" kill-server
	rm -f "$STATUS"
	NO_COLOR=1 on_tty 'env NO_COLOR=1 mc'
	wait_for 'mc>'
	[[ $(pane -e) != *$'\033['* ]]
	keys '/exit' Enter
	assert_equal "$(wait_status)" 0
}

# --- the agent loop (SPEC §7 with §9) ---

@test "agent: tools travel in the request; a call's output goes back; a guide is injected once" {
	mkdir -p sub
	printf 'content A\n' > sub/a.txt
	printf 'content B\n' > sub/b.txt
	printf 'Sub rules.\n' > sub/AGENTS.md
	fake_start "[$(calls "$(call c1 read '{"path":"sub/a.txt"}')"),
	  $(calls "$(call c2 read '{"path":"sub/b.txt"}')"),
	  {\"answer\":{\"api\":\"chat\",\"text\":\"both read\"}}]"
	use_fake
	run --separate-stderr mc 'read the files' </dev/null
	assert_success
	assert_output 'both read'
	assert_equal "$(fake_count)" 3
	assert_equal "$(fake_request 1 '[.body.tools[].function.name] | sort | join(",")')" \
		"$(mc-tool list | jq -r '[.[].name] | sort | join(",")')"
	assert_equal "$(fake_request 2 '.body.messages[3].role')" tool
	assert_equal "$(fake_request 2 '.body.messages[3].content')" "$(printf '     1\tcontent A')"
	assert_equal "$(fake_request 2 '.body.messages[4].content')" \
		"$(printf '<Context File=%s/sub/AGENTS.md>\nSub rules.\n</Context>' "$(pwd -P)")"
	# the same directory again: no second copy of its guide
	assert_equal "$(fake_request 3 '[.body.messages[] | select((.content // "") | startswith("<Context File="))] | length')" 1
	whole_lines
	# nor after a resume
	fake_stop
	fake_start "[$(calls "$(call c3 read '{"path":"sub/a.txt"}')"), {\"answer\":{\"api\":\"chat\",\"text\":\"ok\"}}]"
	use_fake
	run --separate-stderr mc -c 'once more' </dev/null
	assert_success
	assert_equal "$(fake_request 2 '[.body.messages[] | select((.content // "") | startswith("<Context File="))] | length')" 1
}

@test "a guide under a directory whose name holds < and > is injected once, after a resume too" {
	d='odd<b>dir'
	mkdir -p "$d"
	printf 'content A\n' > "$d/a.txt"
	printf 'Odd rules.\n' > "$d/AGENTS.md"
	read_a=$(call c1 read "$(jq -nc --arg p "$d/a.txt" '{path:$p}')")
	fake_start "[$(calls "$read_a"), $(text 'read it')]"
	use_fake
	run --separate-stderr mc 'read it' </dev/null
	assert_success
	assert_equal "$(fake_request 2 '.body.messages[4].content')" \
		"$(printf '<Context File=%s/odd&lt;b&gt;dir/AGENTS.md>\nOdd rules.\n</Context>' "$(pwd -P)")"
	fake_stop
	fake_start "[$(calls "$(call c2 read "$(jq -nc --arg p "$d/a.txt" '{path:$p}')")"), $(text ok)]"
	use_fake
	run --separate-stderr mc -c 'once more' </dev/null
	assert_success
	assert_equal "$(fake_request 2 '[.body.messages[] | select((.content // "") | startswith("<Context File="))] | length')" 1
}

@test "agent: a one-shot run refuses write, edit and bash unless --yes" {
	fake_start "[$(calls "$(call c1 bash '{"command":"echo hi > made"}')"),
	  {\"answer\":{\"api\":\"chat\",\"text\":\"refused then\"}},
	  $(calls "$(call c2 bash '{"command":"echo hi > made"}')"),
	  {\"answer\":{\"api\":\"chat\",\"text\":\"made it\"}}]"
	use_fake
	run --separate-stderr mc 'make a file' </dev/null
	assert_success
	assert_output 'refused then'
	[ ! -e made ]
	[[ $(fake_request 2 '.body.messages[-1].content') == refused:*--yes* ]]
	run --separate-stderr mc --yes 'make a file' </dev/null
	assert_success
	assert_output 'made it'
	assert_equal "$(cat made)" hi
}

@test "agent: --max-steps bounds the loop and leaves a valid session" {
	printf 'x\n' > a.txt
	fake_start "[$(calls "$(call c1 read '{"path":"a.txt"}')"), $(calls "$(call c2 read '{"path":"a.txt"}')")]"
	use_fake
	run --separate-stderr mc --max-steps 1 'look around' </dev/null
	assert_failure 3
	assert_equal "$stderr" 'mc: stopped after 1 step (--max-steps); `mc -c` goes on'
	assert_equal "$(fake_count)" 1
	f=$(session_files)
	assert_equal "$(tail -1 "$f" | jq -r '.type + " " + .call_id')" 'function_call_output c1'
	run --separate-stderr mc --max-steps 0 hi
	assert_failure 2
}

@test "agent: --dry-run shows the tools the request would carry" {
	run --separate-stderr mc --dry-run -p ollama -m m hi </dev/null
	assert_success
	assert_equal "$(jqo '[.body.tools[].function.name] | sort | join(",")')" \
		"$(mc-tool list | jq -r '[.[].name] | sort | join(",")')"
}

@test "interactive: write, edit and bash ask: no, always, then no more questions" {
	fake_start "[$(calls "$(call c1 bash '{"command":"echo 1 > f1"}')"),
	  $(calls "$(call c2 bash '{"command":"echo 2 > f2"}')"),
	  $(calls "$(call c3 bash '{"command":"echo 3 > f3"}')"),
	  {\"answer\":{\"api\":\"chat\",\"text\":\"all done\"}}]"
	use_fake
	on_tty mc
	wait_for 'mc>'
	keys 'make three files' Enter
	wait_for 'allow bash?'
	keys n Enter
	wait_for 'allow bash? [y]es, [n]o, [p] always for `echo`, [a]lways for this tool: n'
	for ((i = 0; i < 200; i++)); do
		[ "$(pane | grep -c 'allow bash?')" -ge 2 ] && break
		sleep 0.05
	done
	keys a Enter
	wait_for 'all done'
	assert_equal "$(pane | grep -c 'allow bash?')" 2
	wait_prompt 2
	keys '/exit' Enter
	assert_equal "$(wait_status)" 0
	[ ! -e f1 ]
	assert_equal "$(cat f2 f3)" "$(printf '2\n3')"
	assert_equal "$(fake_request 2 '.body.messages[-1].content')" 'refused: the user did not allow this call.'
}

# --- defects found in review ---

@test "a call_id the session already holds, or none, gets an id of its own" {
	fake_start '[{"answer":{"api":"chat","calls":[{"call_id":"c1","name":"read","arguments":"{\"path\":\"a.txt\"}"}]}},
	  {"answer":{"api":"chat","text":"one"}},
	  {"answer":{"api":"chat","calls":[{"call_id":"c1","name":"read","arguments":"{\"path\":\"a.txt\"}"}]}},
	  {"answer":{"api":"chat","text":"two"}},
	  {"answer":{"api":"chat","calls":[{"call_id":"c1","name":"read","arguments":"{\"path\":\"a.txt\"}"}]}},
	  {"answer":{"api":"chat","text":"three"}}]'
	use_fake
	echo hi > a.txt
	run --separate-stderr mc 'first' </dev/null
	assert_success
	run --separate-stderr mc -c 'second' </dev/null
	assert_success
	assert_output two
	run --separate-stderr mc -c 'third' </dev/null
	assert_success
	assert_output three
	f=$(session_files)
	assert_equal "$(jq -r 'select(.type=="function_call") | .call_id' "$f" | sort -u | wc -l)" 3
	assert_equal "$(jq -r 'select(.type=="function_call_output") | .call_id' "$f" | sort -u | wc -l)" 3
	# derived, not drawn: a hash of a counter, the name and the arguments
	# (the counter going on while the session holds the id)
	id() { printf 'mc call id 1:%s\0read\0{"path":"a.txt"}' "$1" | sha256sum | cut -c1-24; }
	assert_equal "$(jq -r 'select(.type=="function_call") | .call_id' "$f" | tr '\n' ' ')" \
		"c1 call_$(id 0) call_$(id 1) "
	# and the history stays valid for the next turn
	run --separate-stderr mc-request --items "$f" -m x </dev/null
	assert_success
}

@test "a session in use by another mc is refused, not answered behind its back" {
	fake_start "$(answers one)"
	use_fake
	mc 'first' </dev/null >/dev/null
	f=$(session_files)
	id=$(basename "$f" .jsonl)
	run --separate-stderr flock -n "$f" mc --session "$id" 'again' </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: session $id is in use by another mc"
	assert_equal "$(grep -vc '"type":"usage"' "$f")" 3
}

@test "resume cuts a torn last line even when it ends inside a character" {
	fake_start "$(answers one two)"
	use_fake
	mc 'first' </dev/null >/dev/null
	f=$(session_files)
	printf '{"type":"message","role":"assistant","content":"caf\303' >> "$f"
	run --separate-stderr mc -c 'next' </dev/null
	assert_success
	assert_output two
	whole_lines
	refute grep -q caf "$f"
}

@test "an unknown tool's own explanation reaches the model" {
	fake_start '[{"answer":{"api":"chat","calls":[{"call_id":"c1","name":"teleport","arguments":"{}"}]}},
	  {"answer":{"api":"chat","text":"done"}}]'
	use_fake
	run --separate-stderr mc 'go' </dev/null
	assert_success
	out=$(jq -r 'select(.type=="function_call_output") | .output' "$(session_files)")
	[[ "$out" == *teleport* ]]
	[[ "$out" == *read* ]]	# it names the tools there are
}

@test "a touched path that looks like an option is still a path" {
	fake_start '[{"answer":{"api":"chat","calls":[{"call_id":"c1","name":"read","arguments":"{\"path\":\"-C../x.txt\"}"}]}},
	  {"answer":{"api":"chat","text":"done"}}]'
	use_fake
	mkdir -p -- '-C..'
	echo text > '-C../x.txt'
	echo 'guide for the odd directory' > '-C../AGENTS.md'
	run --separate-stderr mc 'go' </dev/null
	assert_success
	assert_equal "$stderr" ""
	grep -q 'guide for the odd directory' "$(session_files)"
}

@test "--dry-run takes piped input larger than one argument may be" {
	settings '{"provider":"llamacpp","model":"m"}'
	head -c 200000 /dev/zero | tr '\0' a > big
	run --separate-stderr mc --dry-run explain < big
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo '.body.messages[-1].content | length')" $((200000 + 17))
	assert_equal "$(ls "$MC_HOME/sessions" 2>/dev/null | wc -l)" 0
}

@test "agent: a scripted model reads, edits, runs the build, then answers" {
	printf '#include <stdio.h>\nint main(void) { puts("hello, wrold"); return 0; }\n' > hello.c
	fake_start "[$(calls "$(call c1 read '{"path":"hello.c"}')"),
	  $(calls "$(call c2 edit '{"path":"hello.c","old_string":"wrold","new_string":"world"}')"),
	  $(calls "$(call c3 bash '{"command":"cc -o hello hello.c && ./hello"}')"),
	  {\"answer\":{\"api\":\"chat\",\"text\":\"Fixed the typo; it prints hello, world.\"}}]"
	use_fake
	run --separate-stderr mc --yes 'fix the typo in hello.c' </dev/null
	assert_success
	assert_output 'Fixed the typo; it prints hello, world.'
	grep -q 'hello, world' hello.c
	f=$(session_files)
	assert_equal "$(jq -r 'select(.type != "usage") | .type + ":" + (.name // .role // .call_id // "")' "$f" | tr '\n' ' ')" \
		"session: message:user function_call:read function_call_output:c1 function_call:edit function_call_output:c2 function_call:bash function_call_output:c3 message:assistant "
	assert_equal "$(jq -r 'select(.call_id == "c3" and .type == "function_call_output") | .output' "$f")" \
		"$(printf 'hello, world\n[exit status 0]')"
	assert_equal "$(fake_count)" 4
	whole_lines
}

# --- first contact (issue 14) ---

@test "one-shot: a refused write, edit or bash is said on stderr, once per tool" {
	fake_start "[$(calls "$(call c1 bash '{"command":"echo 1 > f1"}')" "$(call c2 write '{"path":"w","content":"x"}')"),
	  $(calls "$(call c3 bash '{"command":"echo 3 > f3"}')"),
	  {\"answer\":{\"api\":\"chat\",\"text\":\"nothing done\"}}]"
	use_fake
	run --separate-stderr mc 'make files' </dev/null
	assert_success
	assert_output 'nothing done'
	assert_equal "$stderr" "$(printf '%s\n' \
		'mc: refused bash (one-shot runs need --yes to run write, edit or bash)' \
		'mc: refused write (one-shot runs need --yes to run write, edit or bash)')"
	[ ! -e f1 ] && [ ! -e w ] && [ ! -e f3 ]
}

@test "a prompt of blanks only is nothing to ask, given or piped" {
	fake_start "$(answers 'never')"
	use_fake
	run --separate-stderr mc '   ' </dev/null
	assert_failure 2
	[[ $stderr == *'nothing to ask'* ]]
	run --separate-stderr mc <<< $' \t\n\n  '
	assert_failure 2
	[[ $stderr == *'nothing to ask'* ]]
	run --separate-stderr mc ' ' '' <<< $'  \n'
	assert_failure 2
	assert_equal "$(fake_count)" 0
	[ ! -e "$MC_HOME/sessions" ]
	# blank words with piped text: the text alone is the message
	run --separate-stderr mc '  ' <<< 'real question'
	assert_success
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" 'real question'
}

@test "--session takes a session's file as well as its id" {
	fake_start "$(answers one two three)"
	use_fake
	mc 'first' </dev/null >/dev/null
	f=$(session_files)
	run --separate-stderr mc --session "$f" 'second' </dev/null
	assert_success
	assert_output two
	# any spelling of the sessions directory, and a relative path
	(cd "$MC_HOME/sessions" && mc --session "./$(basename "$f")" --dry-run third </dev/null) > env.json
	assert_equal "$(jq -r '.body.messages[1].content' env.json)" first
	run --separate-stderr mc --session "$MC_HOME/sessions/../sessions/$(basename "$f")" 'third' </dev/null
	assert_success
	assert_equal "$(jq -sc '[.[] | select(.role == "user") | .content]' "$f")" '["first","second","third"]'
	# a copy elsewhere is not the session
	cp "$f" elsewhere.jsonl
	mkdir -p other && cp "$f" other/
	run --separate-stderr mc --session other/"$(basename "$f")" 'x' </dev/null
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" "mc: --session: other/$(basename "$f") is not in $MC_HOME/sessions"
	run --separate-stderr mc --session elsewhere.txt 'x' </dev/null
	assert_failure 2
	assert_equal "${stderr%%$'\n'*}" 'mc: --session: not a session id or file: elsewhere.txt'
	assert_equal "$(fake_count)" 3
}

@test "--help names the settings file and the environment" {
	run --separate-stderr mc --help
	assert_success
	for w in '$MC_HOME/settings.json' '~/.magi-code' MC_HOME MC_PROVIDER MC_MODEL MC_BASE_URL \
		OPENAI_API_KEY OPENROUTER_API_KEY api_key_env NO_COLOR; do
		assert_output --partial "$w"
	done
}

@test "a session whose header names a provider that is gone goes on with -p, and remembers it" {
	fake_start "$(answers one two)"
	use_fake
	# -p nosuch is a usage error now (before any session): the environment
	# still names a provider the session takes
	MC_PROVIDER=nosuch run --separate-stderr mc 'first' </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc-request: MC_PROVIDER: unknown provider \"nosuch\": use openai, anthropic, openrouter, ollama, llamacpp, vllm or openai-compatible, or define it under \"providers\" in $MC_HOME/settings.json"
	f=$(session_files)
	assert_equal "$(head -n 1 "$f" | jq -r .provider)" nosuch
	# without -p, the provider comes from the session file, which the message names
	run --separate-stderr mc -c 'again' </dev/null
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc: $f: provider: unknown provider \"nosuch\": use openai, anthropic, openrouter, ollama, llamacpp, vllm or openai-compatible, or define it under \"providers\" in $MC_HOME/settings.json"
	assert_equal "$(fake_count)" 0
	run --separate-stderr mc -c -p fake 'second' </dev/null
	assert_success
	assert_output one
	# the session now says what was used: -c alone goes on with it
	run --separate-stderr mc -c 'third' </dev/null
	assert_success
	assert_output two
	# the failed turn's message goes with the next one (SPEC 16)
	assert_equal "$(fake_request 2 '[.body.messages[] | select(.role == "user") | .content] | join(",")')" \
		"$(printf 'first\n\nsecond,third')"
	assert_equal "$(jq -c 'select(.type == "model")' "$f")" '{"type":"model","provider":"fake","model":"fake-model"}'
}

@test "the session records the provider used when none was named: mc -c goes on with it" {
	fake_start "$(answers one two three)"
	settings '{"model":"fake-model"}'
	# no provider anywhere: MC_BASE_URL makes it openai-compatible
	MC_BASE_URL=$FAKE_URL run --separate-stderr mc 'first' </dev/null
	assert_success
	assert_output one
	f=$(session_files)
	assert_equal "$(head -n 1 "$f" | jq -c '{provider, model}')" \
		'{"provider":"openai-compatible","model":"fake-model"}'
	# without MC_BASE_URL the session does not move to openai: it says what is missing
	run --separate-stderr mc -c 'second' </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: openai-compatible: no base URL: set MC_BASE_URL, or providers.openai-compatible.base_url in $MC_HOME/settings.json"
	assert_equal "$(fake_count)" 1
	# a provider entry for it, and -c goes on with the provider and model of the session
	settings "{\"model\":\"other\",\"providers\":{\"openai-compatible\":{\"base_url\":\"$FAKE_URL\"}}}"
	run --separate-stderr mc -c 'third' </dev/null
	assert_success
	assert_output two
	assert_equal "$(fake_request 2 .body.model)" fake-model
	assert_equal "$(jq -c 'select(.type == "model")' "$f")" ""
	# a session begun with the built-in default records it too
	rm "$f"
	settings '{"model":"m","providers":{"openai":{"base_url":"'"$FAKE_URL"'","api":"chat","api_key_env":null}}}'
	run --separate-stderr mc 'fourth' </dev/null
	assert_success
	assert_output three
	assert_equal "$(head -n 1 "$(session_files)" | jq -c '{provider, model}')" '{"provider":"openai","model":"m"}'
}

@test "a key that is not set is one line naming the variable, without mc-send's line number" {
	fake_start "$(answers never)"
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":\"MC_TEST_NO_KEY\"}}}"
	unset MC_TEST_NO_KEY
	run --separate-stderr mc 'hi' </dev/null
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" 'mc-send: MC_TEST_NO_KEY is not set: the provider fake needs it (export MC_TEST_NO_KEY=...)'
	assert_equal "$(fake_count)" 0
	# the message waits in the session for a run with the key
	assert_equal "$(jq -r 'select(.role == "user") | .content' "$(session_files)")" hi
}

@test "-c of a session of 30,000 tool calls: every item in order, the interrupted one answered" {
	mkdir -p "$MC_HOME/sessions"
	# Call ids alike but for their ends, and outputs that come late and
	# out of order: what a hash of call ids must get right as a scan did.
	python3 - "$(pwd -P)" > "$MC_HOME/sessions/s1.jsonl" <<'PY'
import json, sys
w = lambda o: print(json.dumps(o, separators=(",", ":")))
w({"type": "session", "id": "s1", "created": "x", "cwd": sys.argv[1], "provider": "openai", "model": "m"})
for t in range(100):
    w({"type": "message", "role": "user", "content": "turn %d" % t})
    ids = ["call_%06d" % (t * 300 + c) for c in range(300)]
    for i in ids:
        w({"type": "function_call", "call_id": i, "name": "read", "arguments": "{}"})
    for i in reversed(ids):
        w({"type": "function_call_output", "call_id": i, "output": "out " + i})
    w({"type": "usage", "input_tokens": 1, "output_tokens": 1})
w({"type": "function_call", "call_id": "call_cut", "name": "bash", "arguments": "{}"})
PY
	cp "$MC_HOME/sessions/s1.jsonl" before
	MC_MODEL=m run --separate-stderr mc -c --dry-run next </dev/null
	assert_success
	cmp before "$MC_HOME/sessions/s1.jsonl"
	printf '%s' "$output" | jq -c '.body.input[]' > got
	{
		tail -n +2 before | grep -v '"usage"'
		printf '{"type":"function_call_output","call_id":"call_cut","output":"%s"}\n' \
			'error: this call was interrupted before it finished (the session ended); it may or may not have taken effect'
		printf '{"type":"message","role":"user","content":"next"}\n'
	} > want
	assert_equal "$(wc -l < got)" 60103
	cmp want got
}

# slow_answer: a chat answer of 400 words trickled 64 bytes every 0.15 s,
# about 90 s in all: longer than any bound below
slow_answer() {
	local t
	t=$(printf 'word %.0s' $(seq 400))
	jq -nc --arg t "$t" '{answer:{api:"chat",text:$t},chunk:64,chunk_delay:0.15}'
}

@test "a closed stdout cancels the request at once: mc ends with 0, not at the stream's end" {
	fake_start "[$(slow_answer), $(slow_answer)]"
	use_fake
	# a bound, not a timing check: the stream would take about 90 s
	bash -c 'timeout 10 mc "slow answer" </dev/null 2>err | head -c 20 >got; echo "${PIPESTATUS[0]}" >status'
	assert_equal "$(cat status)" 0
	assert_equal "$(cat got)" 'word word word word '
	[ ! -s err ]
	# what was shown is kept, marked as cut short
	f=$(session_files)
	assert_equal "$(jq -r 'select(.role == "assistant") | .status' "$f")" incomplete
	[[ $(jq -r 'select(.role == "assistant") | .content' "$f") == *'(stopped: the reader of the output went away)' ]]
	# the same with --json: the events' reader goes
	bash -c 'timeout 10 mc --json "slow answer" </dev/null 2>err | head -c 20 >/dev/null; echo "${PIPESTATUS[0]}" >status'
	assert_equal "$(cat status)" 0
}

@test "a --schema file missing, not JSON or not an object and an unknown -p are usage errors: exit 2, nothing started" {
	fake_start "$(answers one)"
	use_fake
	echo '[1]' > list.json
	echo '{"type":' > cut.json
	for args in "--schema $W/missing.json" '--schema list.json' '--schema cut.json' '-p nosuch' \
	    '--json --schema list.json' '--json -p nosuch' '--dry-run -p nosuch'; do
		# shellcheck disable=SC2086
		run --separate-stderr mc $args 'hi' </dev/null
		assert_failure 2
		assert_output ""
		assert_equal "${stderr_lines[1]}" "Try 'mc --help' for more information."
	done
	run --separate-stderr mc --schema "$W/missing.json" 'hi' </dev/null
	assert_equal "${stderr_lines[0]}" "mc: --schema: $W/missing.json: No such file or directory"
	run --separate-stderr mc --schema list.json 'hi' </dev/null
	assert_equal "${stderr_lines[0]}" 'mc: --schema: list.json: expected a JSON Schema object'
	run --separate-stderr mc --schema cut.json 'hi' </dev/null
	assert_equal "${stderr_lines[0]}" 'mc: --schema: cut.json: invalid JSON at line 1, column 9'
	run --separate-stderr mc -p nosuch 'hi' </dev/null
	assert_equal "${stderr_lines[0]}" "mc: -p: unknown provider \"nosuch\": use openai, anthropic, openrouter, ollama, llamacpp, vllm or openai-compatible, or define it under \"providers\" in $MC_HOME/settings.json"
	# nothing was sent, no session was made
	assert_equal "$(fake_count)" 0
	assert_equal "$(session_files)" ""
}
