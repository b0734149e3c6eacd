#!/usr/bin/env bats
# mc-mcp: SPEC §14, the tools of MCP servers (list, call, serve), against t/fake-mcp.py.

load helper

FAKE_MCP="$BATS_TEST_DIRNAME/fake-mcp.py"

# fake NAME [ARG...]: one mcp_servers entry running t/fake-mcp.py ARG...
fake() {
	local n=$1
	shift
	for a; do printf '%s\n' "$a"; done |
		jq -ncR --arg n "$n" --arg f "$FAKE_MCP" '{($n): {command: "python3", args: ([$f] + [inputs])}}'
}

# servers ENTRY...: the settings, with these entries as mcp_servers, in order
servers() {
	settings "$(printf '%s\n' "$@" | jq -cs '{mcp_servers: add}')"
}

# mcall NAME ARGS [OPTION...]: `mc-mcp call` with one function_call; the output text is then in $out.
mcall() {
	local name=$1 args=$2
	shift 2
	jq -cn --arg n "$name" --arg a "$args" \
		'{type:"function_call",call_id:"c1",name:$n,arguments:$a}' >"$BATS_TEST_TMPDIR/item"
	run --separate-stderr mc-mcp call "$@" <"$BATS_TEST_TMPDIR/item"
	out=$(printf '%s' "$output" | jq -j .output)
}

# item ID NAME [ARGS]: a function_call line
item() {
	jq -cn --arg i "$1" --arg n "$2" --arg a "${3:-{\}}" '{type:"function_call",call_id:$i,name:$n,arguments:$a}'
}

# serve_start [OPTION...]: `mc-mcp serve` in the background, its stdin a FIFO
# written through fd 8; its stdout in $S_OUT, its stderr in $S_ERR.
serve_start() {
	S_OUT="$BATS_TEST_TMPDIR/serve.out"
	S_ERR="$BATS_TEST_TMPDIR/serve.err"
	mkfifo "$BATS_TEST_TMPDIR/serve.in"
	mc-mcp serve "$@" <"$BATS_TEST_TMPDIR/serve.in" >"$S_OUT" 2>"$S_ERR" 3>&- &
	S_PID=$!
	exec 8>"$BATS_TEST_TMPDIR/serve.in"
}

serve_send() {
	printf '%s\n' "$1" >&8
}

# serve_wait N: until its stdout has N lines (at most 15 s)
serve_wait() {
	local i
	for ((i = 0; i < 150; i++)); do
		[ "$(wc -l <"$S_OUT")" -ge "$1" ] && return 0
		sleep 0.1
	done
	echo "serve_wait: no line $1 in: $(cat "$S_OUT") / $(cat "$S_ERR")" >&2
	return 1
}

# serve_reap: wait for it (at most 15 s, then it is killed and this fails);
# its status in $S_STATUS
serve_reap() {
	local i
	for ((i = 0; i < 150; i++)); do
		kill -0 "$S_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$S_PID" 2>/dev/null; then
		kill -KILL "$S_PID"
		echo "serve_reap: mc-mcp serve did not end" >&2
		return 1
	fi
	S_STATUS=0
	wait "$S_PID" || S_STATUS=$?
	S_PID=
}

# serve_end: close its stdin and reap it
serve_end() {
	exec 8>&-
	serve_reap
}

# line N of its stdout, as a jq filter's result
sline() {
	sed -n "$1p" "$S_OUT" | jq -r "$2"
}

# gone PIDFILE: every process listed there has ended (a zombie has)
gone() {
	local p s
	for p in $(cat "$1"); do
		s=$(awk '/^State:/ {print $2}' "/proc/$p/status" 2>/dev/null) || continue
		if [ -n "$s" ] && [ "$s" != Z ]; then
			echo "process $p is still there ($s): $(tr '\0' ' ' <"/proc/$p/cmdline")" >&2
			return 1
		fi
	done
}

# gone_soon PIDFILE: gone, allowing a moment for the dying
gone_soon() {
	local i
	for ((i = 0; i < 20; i++)); do
		gone "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	gone "$1"
}

teardown() {
	if [ -n "${S_PID:-}" ]; then
		kill -KILL "$S_PID" 2>/dev/null || true
	fi
	for f in "$BATS_TEST_TMPDIR"/*.pids; do
		[ -e "$f" ] && xargs -r kill -KILL <"$f" 2>/dev/null || true
	done
}

# --- list ---

@test "list: tools/list in two pages, as mc-tool list writes tools" {
	servers "$(fake files --pages 2 --log "$BATS_TEST_TMPDIR/log")"
	run --separate-stderr mc-mcp list
	assert_success
	assert_equal "$stderr" ""
	assert_equal "${#lines[@]}" 1
	assert_equal "$(jqo -c '[.[].name]')" \
		'["files__echo","files__count","files__fail","files__big","files__image","files__slow","files__die","files__structured","files__stderr"]'
	assert_equal "$(jqo -c '.[0]')" \
		'{"name":"files__echo","description":"Echo the text back.","parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}'
	# An absent or non-object inputSchema becomes an empty object schema.
	assert_equal "$(jqo -c '.[] | select(.name == "files__image") | .parameters')" '{"type":"object","properties":{}}'
	assert_equal "$(jqo -c '.[] | select(.name == "files__structured") | .parameters')" '{"type":"object","properties":{}}'
	# Two pages were asked for, the second with the first's cursor.
	assert_equal "$(jq -c 'select(.method == "tools/list") | .params' "$BATS_TEST_TMPDIR/log")" \
		"$(printf 'null\n{"cursor":"page-1"}')"
}

@test "list: the handshake: initialize, then notifications/initialized, then tools/list" {
	servers "$(fake s --log "$BATS_TEST_TMPDIR/log")"
	run --separate-stderr mc-mcp list
	assert_success
	assert_equal "$(jq -r '.method' "$BATS_TEST_TMPDIR/log" | paste -sd ' ')" \
		"initialize notifications/initialized tools/list"
	assert_equal "$(jq -c 'select(.method == "initialize") | [.jsonrpc, .id, .params.protocolVersion, .params.capabilities, .params.clientInfo.name]' "$BATS_TEST_TMPDIR/log")" \
		'["2.0",1,"2025-11-25",{"roots":{"listChanged":false}},"mc"]'
	assert_regex "$(jq -r 'select(.method == "initialize") | .params.clientInfo.version' "$BATS_TEST_TMPDIR/log")" '^[0-9]+\.[0-9]+'
	assert_equal "$(jq -c 'select(.method == "notifications/initialized") | has("id")' "$BATS_TEST_TMPDIR/log")" false
}

@test "list --pretty: the same array, indented" {
	servers "$(fake a)"
	run --separate-stderr mc-mcp list
	compact=$output
	run --separate-stderr mc-mcp list --pretty
	assert_success
	[ "${#lines[@]}" -gt 10 ]
	assert_equal "$(jqo -c .)" "$(printf '%s' "$compact" | jq -c .)"
}

@test "list: servers in settings order; one that crashes or hangs is named in one line, the others still listed" {
	servers "$(fake zeta)" "$(fake crash --crash 3)" \
		"$(jq -cn --arg f "$FAKE_MCP" '{hang: {command: "python3", args: [$f, "--hang"], timeout_s: 1}}')" \
		"$(fake alpha --tool extra)"
	SECONDS=0
	run --separate-stderr mc-mcp list
	assert_success
	[ "$SECONDS" -lt 5 ]
	assert_equal "$(jqo -c '[.[].name | split("__")[0]] | unique')" '["alpha","zeta"]'
	assert_equal "$(jqo -r '.[0].name, .[-1].name')" "$(printf 'zeta__echo\nalpha__extra')"
	assert_regex "$stderr" '(^|'$'\n'')mc-mcp: server "crash": exited with status 3 before answering initialize($|'$'\n'')'
	assert_regex "$stderr" '(^|'$'\n'')mc-mcp: server "hang": did not answer initialize within 1 s($|'$'\n'')'
	# The crashing server's own stderr is passed on, named.
	assert_regex "$stderr" '(^|'$'\n'')mc-mcp: crash: fake-mcp: crashing on purpose($|'$'\n'')'
	assert_equal "$(printf '%s\n' "$stderr" | grep -c 'server "')" 2
}

@test "list: bad JSON-RPC (junk, a wrong id, an unknown protocol version) is one line naming the server" {
	servers "$(fake junk --junk)" "$(fake wrongid --wrong-id)" "$(fake old --version 1999-01-01)" "$(fake good)"
	run --separate-stderr mc-mcp list
	assert_success
	assert_equal "$(jqo -c '[.[].name | split("__")[0]] | unique')" '["good"]'
	assert_regex "$stderr" 'mc-mcp: server "junk": sent a line that is not JSON-RPC \(invalid JSON at line 1, column 1\): "Server starting\.\.\. this is not JSON"'
	assert_regex "$stderr" 'mc-mcp: server "wrongid": sent an answer with id 101, not the id of the request in flight'
	assert_regex "$stderr" 'mc-mcp: server "old": answered initialize with protocol version "1999-01-01", not one of 2025-11-25, 2025-06-18, 2025-03-26'
	assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 3
}

@test "list: a command not found is named; exit 1 when every server failed, 0 with none configured" {
	settings '{"mcp_servers":{"gone":{"command":"no-such-mcp-server"}}}'
	run --separate-stderr mc-mcp list
	assert_failure 1
	assert_equal "$output" "[]"
	assert_equal "$stderr" 'mc-mcp: server "gone": no-such-mcp-server: not found on PATH'
	settings '{}'
	run --separate-stderr mc-mcp list
	assert_success
	assert_equal "$output" "[]"
	assert_equal "$stderr" ""
}

@test "list: a server with enabled false is not started" {
	servers "$(fake on)" '{"off":{"command":"no-such-mcp-server","enabled":false}}'
	run --separate-stderr mc-mcp list
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jqo -c '[.[].name | split("__")[0]] | unique')" '["on"]'
}

@test "a tool that can only be run as a task is offered, and called as one (SPEC 24)" {
	servers "$(fake a --task-tool)"
	run --separate-stderr mc-mcp list
	assert_success
	assert_equal "$(jqo -c '[.[].name | select(startswith("a__t"))]')" '["a__task"]'
	assert_equal "$stderr" ''
	mcall a__task '{}'
	assert_success
	assert_equal "$out" 'task result'
}

@test "list: a server without the tools capability offers none, with a warning" {
	servers "$(fake bare --no-tools)"
	run --separate-stderr mc-mcp list
	assert_success
	assert_equal "$output" "[]"
	assert_equal "$stderr" 'mc-mcp: warning: server "bare": offers no tools (no "tools" capability)'
}

@test "names: other characters become _, cut to 64; a name taken twice keeps the first" {
	long=$(printf 't%.0s' {1..80})
	servers "$(fake my.srv --tool 'weird.name/with spaces' --tool "$long" --tool 'weird name/with.spaces' --tool 'é' --tool 'get-sum_2')"
	run --separate-stderr mc-mcp list
	assert_success
	assert_equal "$(jqo -r '.[9].name')" "my_srv__weird_name_with_spaces"
	assert_equal "$(jqo -r '.[10].name')" "my_srv__$(printf 't%.0s' {1..56})"
	assert_equal "$(jqo -r '.[10].name | length')" 64
	assert_equal "$(jqo -r '.[11].name')" "my_srv___"
	assert_equal "$(jqo -r '.[12].name')" "my_srv__get-sum_2"
	assert_equal "$(jqo '[.[].name | select(test("^[A-Za-z0-9_-]{1,64}$"))] | length')" 13
	assert_equal "$stderr" 'mc-mcp: warning: server "my.srv": tool "weird name/with.spaces" is left out: its name my_srv__weird_name_with_spaces is taken by tool "weird.name/with spaces" of server "my.srv"'
	# A call by the offered name reaches the tool by its own name.
	mcall my_srv__weird_name_with_spaces '{"text":"odd"}'
	assert_success
	assert_equal "$out" odd
}

@test "names: thousands of tools keep their order; each name taken is left out, the first kept" {
	# a.b's tools all become a_b__NAME, as a_b's do: only "extra" is new.
	servers "$(fake a_b --many 3000)" "$(fake a.b --tool extra --many 2)"
	run --separate-stderr mc-mcp list
	assert_success
	assert_equal "$(jqo -c '[.[].name] == ([.[0:9][].name] + [range(3000) | "a_b__t\(.)"] + ["a_b__extra"])')" true
	assert_equal "$(jqo -c '.[0:9] | map(.name) | .[0:2]')" '["a_b__echo","a_b__count"]'
	assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 11
	assert_equal "$(printf '%s\n' "$stderr" | tail -1)" 'mc-mcp: warning: server "a.b": tool "t1" is left out: its name a_b__t1 is taken by tool "t1" of server "a_b"'
	mcall a_b__t2999 '{"text":"far"}'
	assert_success
	assert_equal "$out" far
}

# --- call ---

@test "call: one function_call_output with the text of the result; only that server runs" {
	servers "$(fake a --log "$BATS_TEST_TMPDIR/log")" "$(fake b --pid-file "$BATS_TEST_TMPDIR/b.pids")"
	mcall a__echo '{"text":"hello"}'
	assert_success
	assert_equal "$stderr" ""
	assert_equal "${#lines[@]}" 1
	assert_equal "$(jqo -c .)" '{"type":"function_call_output","call_id":"c1","output":"hello"}'
	assert_equal "$(jq -c 'select(.method == "tools/call") | .params' "$BATS_TEST_TMPDIR/log")" \
		'{"name":"echo","arguments":{"text":"hello"},"_meta":{"progressToken":"mc-3"}}'
	[ ! -e "$BATS_TEST_TMPDIR/b.pids" ]
}

@test "call: arguments as an object, or empty, are accepted; bad ones are an output" {
	servers "$(fake a)"
	run --separate-stderr mc-mcp call <<<'{"type":"function_call","call_id":"c2","name":"a__echo","arguments":{"text":"obj"}}'
	assert_success
	assert_equal "$(jqo .output)" obj
	mcall a__count ''
	assert_success
	assert_equal "$out" "count 1"
	mcall a__echo '[1,2]'
	assert_success
	assert_equal "$out" "error: the arguments of this a__echo call must be a JSON object; send one JSON object as the tool's schema describes"
	mcall a__echo '{"text":'
	assert_success
	assert_regex "$out" '^error: the arguments of this a__echo call are not valid JSON \(invalid JSON at line 1, column [0-9]+\); '
	mcall a__echo '{"text":"a\u0000b"}'
	assert_success
	assert_regex "$out" '^error: the arguments of this a__echo call hold a NUL character \(\\u0000\); '
}

@test "call: isError is an output starting with error:, not a failure" {
	servers "$(fake a)"
	mcall a__fail '{}'
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$out" "error: it failed"
}

@test "call: a JSON-RPC error answer is an output too" {
	servers "$(fake a --rpc-error)"
	mcall a__echo '{"text":"x"}'
	assert_success
	assert_equal "$out" "error: the MCP server refused the call: invalid arguments for echo (JSON-RPC error -32602)"
}

@test "call: an image is a placeholder line; structuredContent shows when there is no content" {
	servers "$(fake a)"
	mcall a__image '{}'
	assert_success
	assert_equal "$out" "$(printf 'an image:\n[image/png, 100 bytes]')"
	mcall a__structured '{}'
	assert_success
	assert_equal "$out" '{"a":1}'
}

@test "call: output over 64 KiB keeps its head and tail around a marker" {
	servers "$(fake a)"
	mcall a__big '{"bytes":200000}'
	assert_success
	[ "$(printf '%s' "$out" | wc -c)" -le 65536 ]
	[ "$(printf '%s' "$out" | wc -c)" -gt 60000 ]
	assert_regex "$out" 'bytes cut from the middle of this output'
	assert_regex "$out" '^xxxxxxxxxx'
	assert_regex "$out" 'xxxxxxxxxx$'
}

@test "call: an unknown tool is exit 1 with an output naming the tools; a failed server is named" {
	servers "$(fake a)" '{"broken":{"command":"no-such-mcp-server"}}'
	mcall a__nope '{}'
	assert_failure 1
	assert_equal "$stderr" "mc-mcp: unknown tool: a__nope"
	assert_regex "$out" '^error: there is no MCP tool named "a__nope"; the MCP tools are: a__echo, a__count, '
	mcall zz__echo '{}'
	assert_failure 1
	assert_equal "$out" 'error: there is no MCP tool named "zz__echo"; the MCP tools are: none'
	mcall broken__echo '{}'
	assert_failure 1
	assert_equal "$stderr" 'mc-mcp: server "broken": no-such-mcp-server: not found on PATH'
	assert_equal "$out" 'error: the MCP server "broken" of this tool is not running: no-such-mcp-server: not found on PATH'
}

@test "call: a server that dies during the call is named with its status" {
	servers "$(fake a)"
	mcall a__die '{}'
	assert_success
	assert_equal "$stderr" 'mc-mcp: server "a": exited with status 7 during tools/call'
	assert_equal "$out" 'error: the MCP server "a" failed: exited with status 7 during tools/call'
}

@test "call: a call past timeout_s is cancelled and said so" {
	settings "$(jq -cn --arg f "$FAKE_MCP" --arg l "$BATS_TEST_TMPDIR/log" \
		'{mcp_servers: {a: {command: "python3", args: [$f, "--log", $l], timeout_s: 1}}}')"
	SECONDS=0
	mcall a__slow '{"seconds":30}'
	assert_success
	[ "$SECONDS" -lt 10 ]
	assert_equal "$stderr" 'mc-mcp: server "a": did not answer tools/call within 1 s; cancelled'
	assert_equal "$out" 'error: the MCP server "a" did not answer within 1 s; the call was cancelled'
	assert_equal "$(jq -c 'select(.method == "notifications/cancelled") | .params' "$BATS_TEST_TMPDIR/log")" \
		'{"requestId":3,"reason":"timed out"}'
}

@test "call: stdin that is not a function_call item is exit 1" {
	servers "$(fake a)"
	run --separate-stderr mc-mcp call </dev/null
	assert_failure 1
	assert_equal "$output" ""
	assert_equal "$stderr" "mc-mcp: stdin: expected a function_call item, got nothing"
	run --separate-stderr mc-mcp call <<<'{"type":"message","role":"user","content":"hi"}'
	assert_failure 1
	assert_equal "$output" ""
	assert_equal "$stderr" 'mc-mcp: stdin: expected an item of type "function_call"'
	run --separate-stderr mc-mcp call <<<'{"type":"function_call","name":"a__echo","arguments":"{}"}'
	assert_failure 1
	assert_equal "$stderr" "mc-mcp: stdin: a function_call needs string members call_id, name and arguments"
}

@test "the server's requests: ping and roots/list are answered, others refused with -32601, notifications ignored" {
	servers "$(fake a --ask --log "$BATS_TEST_TMPDIR/log")"
	mcall a__echo '{"text":"x"}'
	assert_success
	assert_equal "$out" x
	assert_equal "$(jq -c 'select(.id == "p1")' "$BATS_TEST_TMPDIR/log")" '{"jsonrpc":"2.0","id":"p1","result":{}}'
	assert_equal "$(jq -r 'select(.id == "r1") | .result.roots[0].uri' "$BATS_TEST_TMPDIR/log")" "file://$PWD"
	assert_equal "$(jq -c 'select(.id == "s1") | .error.code' "$BATS_TEST_TMPDIR/log")" -32601
}

@test "the server's stderr is passed on line by line, named; -q keeps it back" {
	servers "$(fake a)"
	mcall a__stderr '{"text":"one\ntwo"}'
	assert_success
	assert_equal "$stderr" "$(printf 'mc-mcp: a: one\nmc-mcp: a: two')"
	mcall a__stderr '{"text":"one\ntwo"}' -q
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$out" ok
}

@test "environment: the tool environment plus the server's env; no key or token; run in -C DIR" {
	mkdir -p "$BATS_TEST_TMPDIR/work"
	settings "$(jq -cn --arg f "$FAKE_MCP" --arg l "$BATS_TEST_TMPDIR/env.json" \
		'{tools: {env: {set: {FROM_SET: "s", SHARED: "from set"}}},
		  mcp_servers: {a: {command: "python3", args: [$f, "--env-log", $l],
		                    env: {FROM_SERVER: "v", SHARED: "from server"}}}}')"
	GITHUB_TOKEN=ghp_secret OPENAI_API_KEY=sk-test MY_PASSWORD=pw PLAIN=kept \
		run --separate-stderr mc-mcp list -C "$BATS_TEST_TMPDIR/work" 7>"$BATS_TEST_TMPDIR/leak"
	assert_success
	# A descriptor mc-mcp was given does not reach the server.
	assert_equal "$(jq -c '.fds | index(7)' "$BATS_TEST_TMPDIR/env.json")" null
	env=$BATS_TEST_TMPDIR/env.json
	assert_equal "$(jq -c '.env | [has("GITHUB_TOKEN"), has("OPENAI_API_KEY"), has("MY_PASSWORD")]' "$env")" '[false,false,false]'
	assert_equal "$(jq -c '.env | [.PLAIN, .FROM_SET, .FROM_SERVER, .SHARED]' "$env")" '["kept","s","v","from server"]'
	assert_equal "$(jq -r .cwd "$env")" "$(cd "$BATS_TEST_TMPDIR/work" && pwd -P)"
	assert_equal "$(jq -r .env.PWD "$env")" "$(cd "$BATS_TEST_TMPDIR/work" && pwd -P)"
	# mc-mcp itself, the servers' parent, holds no provider key (SPEC §17).
	assert_equal "$(jq -c '[.parent[] | select(startswith("OPENAI_API_KEY=") and . != "OPENAI_API_KEY=")]' "$env")" '[]'
	assert_equal "$(jq -c '[.parent[] | select(startswith("PLAIN="))]' "$env")" '["PLAIN=kept"]'
	! grep -q 'sk-test' "$env"
}

# --- serve ---

@test "serve: the tools as one line, then one output line per call; a stateful server keeps its state" {
	servers "$(fake a --pages 2)" "$(fake b)"
	run --separate-stderr mc-mcp list
	tools=$output
	serve_start
	serve_wait 1
	# list's tools, each with its server's name as the settings write it
	assert_equal "$(sed -n 1p "$S_OUT" | jq -c 'map(del(.server))')" "$tools"
	assert_equal "$(sed -n 1p "$S_OUT" | jq -r 'map(.name[:1] == .server) | all')" true
	serve_send "$(item c1 a__count)"
	serve_wait 2
	serve_send "$(item c2 b__echo '{"text":"hi"}')"
	serve_send "$(item c3 a__count)"
	serve_wait 4
	serve_end
	assert_equal "$S_STATUS" 0
	assert_equal "$(sline 2 -c)" '{"type":"function_call_output","call_id":"c1","output":"count 1"}'
	assert_equal "$(sline 3 .output)" hi
	assert_equal "$(sline 4 .output)" "count 2"
	assert_equal "$(wc -l <"$S_OUT")" 4
	assert_equal "$(cat "$S_ERR")" ""
}

@test "serve: an unknown tool, or a bad call, is answered and serving goes on" {
	servers "$(fake a)"
	serve_start
	serve_send "$(item c1 a__nope)"
	serve_send '{"type":"function_call","call_id":"c2","name":"a__echo"}'
	serve_send "$(item c3 a__echo '{"text":"still here"}')"
	serve_wait 4
	serve_end
	assert_equal "$S_STATUS" 0
	assert_regex "$(sline 2 .output)" '^error: there is no MCP tool named "a__nope"'
	assert_equal "$(sline 3 .output)" 'error: mc-mcp could not read this call: a function_call needs string members call_id, name and arguments'
	assert_equal "$(sline 4 .output)" "still here"
}

@test "serve: a line that is not JSON ends it with exit 1, servers stopped" {
	servers "$(fake a --child --pid-file "$BATS_TEST_TMPDIR/a.pids")"
	serve_start
	serve_wait 1
	serve_send 'not json'
	serve_end
	assert_equal "$S_STATUS" 1
	assert_regex "$(cat "$S_ERR")" '^mc-mcp: stdin: invalid JSON at line 1, column [0-9]+$'
	gone_soon "$BATS_TEST_TMPDIR/a.pids"
}

@test "serve: no server process is left after stdin ends, even one that ignores SIGTERM" {
	servers "$(fake a --child --pid-file "$BATS_TEST_TMPDIR/a.pids")" \
		"$(fake b --stubborn --child --pid-file "$BATS_TEST_TMPDIR/b.pids")"
	serve_start
	serve_wait 1
	[ "$(wc -l <"$BATS_TEST_TMPDIR/a.pids")" -eq 2 ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/b.pids")" -eq 2 ]
	SECONDS=0
	serve_end
	assert_equal "$S_STATUS" 0
	# 2 s of grace after stdin closes, 1 s after SIGTERM.
	[ "$SECONDS" -lt 6 ]
	gone_soon "$BATS_TEST_TMPDIR/a.pids"
	gone_soon "$BATS_TEST_TMPDIR/b.pids"
	assert_equal "$(cat "$S_ERR")" ""
}

@test "serve: SIGTERM stops every server and exits 0" {
	servers "$(fake a --child --pid-file "$BATS_TEST_TMPDIR/a.pids")" \
		"$(fake b --stubborn --child --pid-file "$BATS_TEST_TMPDIR/b.pids")"
	serve_start
	serve_wait 1
	kill -TERM "$S_PID"
	serve_reap
	exec 8>&-
	assert_equal "$S_STATUS" 0
	gone_soon "$BATS_TEST_TMPDIR/a.pids"
	gone_soon "$BATS_TEST_TMPDIR/b.pids"
}

@test "serve: SIGINT during a call cancels it, and serving goes on" {
	servers "$(fake a --log "$BATS_TEST_TMPDIR/log")"
	serve_start
	serve_wait 1
	# A SIGINT with no call in flight cancels nothing, then or later.
	kill -INT "$S_PID"
	sleep 0.3
	serve_send "$(item c0 a__count)"
	serve_wait 2
	assert_equal "$(sline 2 .output)" "count 1"
	serve_send "$(item c1 a__slow '{"seconds":30}')"
	for ((i = 0; i < 100; i++)); do
		grep -q '"tools/call"' "$BATS_TEST_TMPDIR/log" 2>/dev/null && break
		sleep 0.1
	done
	SECONDS=0
	kill -INT "$S_PID"
	serve_wait 3
	[ "$SECONDS" -lt 5 ]
	assert_equal "$(sline 3 -c)" '{"type":"function_call_output","call_id":"c1","output":"error: cancelled by the user"}'
	serve_send "$(item c2 a__count)"
	serve_wait 4
	serve_end
	assert_equal "$S_STATUS" 0
	assert_equal "$(sline 4 .output)" "count 2"
	assert_equal "$(jq -c 'select(.method == "notifications/cancelled") | .params' "$BATS_TEST_TMPDIR/log")" \
		'{"requestId":4,"reason":"cancelled by the user"}'
	grep -qx '{"cancelled": 4}' "$BATS_TEST_TMPDIR/log"
}

@test "serve: a server that died is started again once, on its next call" {
	servers "$(fake a)"
	serve_start
	serve_send "$(item c1 a__count)"
	serve_send "$(item c2 a__die)"
	serve_send "$(item c3 a__count)"
	serve_send "$(item c4 a__die)"
	serve_send "$(item c5 a__count)"
	serve_wait 6
	serve_end
	assert_equal "$S_STATUS" 0
	assert_equal "$(sline 2 .output)" "count 1"
	assert_equal "$(sline 3 .output)" 'error: the MCP server "a" failed: exited with status 7 during tools/call'
	assert_equal "$(sline 4 .output)" "count 1"
	assert_equal "$(sline 6 .output)" \
		'error: the MCP server "a" is not running: it stopped again after it was restarted (exited with status 7 during tools/call)'
	assert_equal "$(cat "$S_ERR")" "$(printf '%s\n' \
		'mc-mcp: server "a": exited with status 7 during tools/call' \
		'mc-mcp: server "a": starting it again for this call' \
		'mc-mcp: server "a": exited with status 7 during tools/call')"
}

# --- settings and usage ---

@test "bad settings: exit 1 naming the file and the setting" {
	settings '{"mcp_servers":{"a":{"command":"python3","args":["x",3]}}}'
	run --separate-stderr mc-mcp list
	assert_failure 1
	assert_equal "$output" ""
	assert_equal "$stderr" "mc-mcp: $MC_HOME/settings.json: mcp_servers.a.args[1]: expected a string"
	settings '{"mcp_servers":{"a":{"args":[]}}}'
	run --separate-stderr mc-mcp list
	assert_failure 1
	assert_equal "$stderr" "mc-mcp: $MC_HOME/settings.json: mcp_servers.a.command: missing: the program that runs the server (or \"url\" for a remote one)"
	settings '{"mcp_servers":{"a":{"command":"x","colour":1}}}'
	run --separate-stderr mc-mcp -q list
	assert_failure 1
	assert_equal "$stderr" 'mc-mcp: server "a": x: not found on PATH'
	run --separate-stderr mc-mcp list
	assert_regex "$stderr" "^mc-mcp: warning: $MC_HOME/settings.json: unknown setting mcp_servers.a.colour"
}

@test "usage errors: exit 2 before anything runs" {
	servers "$(fake a --pid-file "$BATS_TEST_TMPDIR/a.pids")"
	for args in "" "frob" "list extra" "call --pretty" "serve --pretty" "--bogus list" "list -C"; do
		# shellcheck disable=SC2086
		run --separate-stderr mc-mcp $args </dev/null
		assert_failure 2
		assert_equal "$output" ""
		assert_regex "$stderr" "^mc-mcp: "
	done
	[ ! -e "$BATS_TEST_TMPDIR/a.pids" ]
}

@test "--help and --version" {
	run --separate-stderr mc-mcp --help
	assert_success
	assert_line --index 0 "usage: mc-mcp [-q] list [-C DIR] [--pretty]"
	assert_line --index 1 "       mc-mcp [-q] call [-C DIR]"
	assert_line --index 2 "       mc-mcp [-q] serve [-C DIR] [--servers FILE]"
	assert_equal "$stderr" ""
	run --separate-stderr mc-mcp --version
	assert_success
	assert_regex "$output" '^mc-mcp \(mc\) [0-9]'
}
