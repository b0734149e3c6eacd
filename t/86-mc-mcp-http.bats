#!/usr/bin/env bats
# mc-mcp, round two (SPEC §24): remote servers over Streamable HTTP and
# HTTP+SSE, versions, roots, logging, progress, list changes, tasks,
# resources, prompts and every content type, against t/fake-mcp-http.py.

load helper
load fake
load mc

FAKE_HTTP="$BATS_TEST_DIRNAME/fake-mcp-http.py"

# http_start [OPTION...]: the fake HTTP MCP server; its port in $HP, its log in $HLOG
http_start() {
	HLOG="$BATS_TEST_TMPDIR/http.log"
	local pf="$BATS_TEST_TMPDIR/http.port" i
	rm -f "$pf"
	python3 "$FAKE_HTTP" --port-file "$pf" --log "$HLOG" "$@" 3>&- &
	HPID=$!
	for ((i = 0; i < 200; i++)); do
		[ -s "$pf" ] && break
		sleep 0.05
	done
	HP=$(cat "$pf")
	touch "$HLOG"
}

teardown() {
	[ -n "${HPID:-}" ] && kill "$HPID" 2>/dev/null
	teardown_local
	fake_stop
}

# remote [EXTRA-JSON]: settings with one server "web" at the fake's URL
remote() {
	settings "$(jq -nc --arg u "http://127.0.0.1:$HP/mcp" --argjson x "${1:-{\}}" \
		'{mcp_servers: {web: ({url: $u, timeout_s: 10} + $x)}}')"
}

item() {
	jq -cn --arg i "$1" --arg n "$2" --arg a "${3:-{\}}" '{type:"function_call",call_id:$i,name:$n,arguments:$a}'
}

# serve LINE...: mc-mcp serve fed these lines; stdout in $output
serve() {
	run --separate-stderr mc-mcp serve < <(printf '%s\n' "$@")
}

# out ID: the output of call ID in $output
out() {
	printf '%s\n' "$output" | jq -rs --arg i "$1" '.[] | select(.call_id? == $i) | .output'
}

@test "http: tools over Streamable HTTP; session id, version and headers kept; DELETE at the end" {
	http_start
	export MY_TOKEN=s3cret
	remote '{"headers": {"Authorization": "Bearer ${MY_TOKEN}", "X-Plain": "yes"}}'
	serve "$(item c1 web__echo '{"text":"hi"}')"
	assert_success
	assert_equal "$(printf '%s\n' "$output" | head -1 | jq -c '[.[] | select(.type == null) | .name] | .[:2]')" \
		'["web__echo","web__rich"]'
	assert_equal "$(out c1)" hi
	# initialize has no session yet; each request after it carries both
	assert_equal "$(jq -rs '[.[] | select(.http == "POST")][0] | [.session, .version, .auth] | @tsv' "$HLOG")" \
		$'\t\tBearer s3cret'
	assert_equal "$(jq -rs '[.[] | select(.body.method? == "tools/call")][0] | [.session, .version, .accept] | @tsv' "$HLOG")" \
		$'s1\t2025-11-25\tapplication/json, text/event-stream'
	assert_equal "$(jq -rs '.[-1] | [.http, .session] | @tsv' "$HLOG")" $'DELETE\ts1'
	# the secret went nowhere but the wire
	run ! grep -rq s3cret "$MC_HOME" <(printf "%s" "$stderr") <(printf "%s" "$output")
}

@test "http: an unset header variable is one line naming it and the server, before connecting" {
	http_start
	unset NO_SUCH_VAR
	remote '{"headers": {"Authorization": "Bearer ${NO_SUCH_VAR}"}}'
	run --separate-stderr mc-mcp list
	assert_failure 1
	assert_equal "$output" "[]"
	assert_equal "$stderr" 'mc-mcp: server "web": headers.Authorization: the variable NO_SUCH_VAR is not set'
	assert_equal "$(wc -c <"$HLOG")" 0
}

@test "http: answers as event streams; a forgotten session (404) is renewed once" {
	http_start --sse-all --forget
	remote
	serve "$(item c1 web__echo '{"text":"one"}')" "$(item c2 web__echo '{"text":"two"}')"
	assert_success
	assert_equal "$(out c1)" one
	assert_equal "$(out c2)" two
	[[ $stderr == *'web: the server forgot session s1 (HTTP 404); starting a new one'* ]]
	assert_equal "$(jq -rs '[.[] | select(.body.method? == "initialize")] | length' "$HLOG")" 2
	assert_equal "$(jq -rs '[.[] | select(.body.method? == "tools/call")][-1].session' "$HLOG")" s2
}

@test "http: a server that refuses the POST with 4xx is spoken to by the older HTTP+SSE transport" {
	http_start --mode legacy
	remote
	serve "$(item c1 web__echo '{"text":"old"}')" "$(item c2 web__roots)"
	assert_success
	assert_equal "$(out c1)" old
	assert_equal "$(out c2 | jq -r '.roots[0].uri')" "file://$PWD"
	assert_equal "$(jq -rs '[.[] | select(.http == "POST")][1].path' "$HLOG")" '/messages?s=L1'
}

@test "http: the older transport's endpoint must be on the settings' origin: the headers go nowhere else" {
	http_start --mode legacy --endpoint "http://127.0.0.2:1/steal"
	remote '{"headers": {"Authorization": "Bearer x"}, "timeout_s": 2}'
	run --separate-stderr mc-mcp list
	assert_failure 1
	[[ $stderr == *"mc-mcp: web: the event stream names an endpoint elsewhere than http://127.0.0.1:$HP; not used"* ]]
	[[ $stderr == *"mc-mcp: server \"web\": answered initialize with error -32000: http://127.0.0.1:$HP/mcp answered the POST with HTTP 405 Method Not Allowed (\"use GET for the stream\"), and its event stream (the older HTTP+SSE transport) named an endpoint on another origin"* ]]
	assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 2
}

@test "http: a URL that refuses, times out, answers HTML or non-JSON-RPC is one line naming the server" {
	run python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
	dead=$output
	http_start --html
	html=$HP
	HPID1=$HPID
	http_start --not-rpc
	notrpc=$HP
	HPID2=$HPID
	http_start --hang
	settings "$(jq -nc --arg a "http://127.0.0.1:$dead/mcp" --arg b "http://127.0.0.1:$html/mcp" \
		--arg c "http://127.0.0.1:$notrpc/mcp" --arg d "http://127.0.0.1:$HP/mcp" '{mcp_servers: {
		  refused: {url: $a}, html: {url: $b}, notrpc: {url: $c}, hang: {url: $d, timeout_s: 1}}}')"
	run --separate-stderr mc-mcp list
	kill "$HPID1" "$HPID2"
	assert_failure 1
	assert_equal "$output" "[]"
	[[ $stderr == *"mc-mcp: server \"refused\": answered initialize with error -32000: cannot connect to http://127.0.0.1:$dead/mcp: connection refused"* ]]
	[[ $stderr == *"mc-mcp: server \"html\": answered initialize with error -32000: http://127.0.0.1:$html/mcp answered with text/html, not JSON-RPC: \"<!DOCTYPE html> <html><body>Login</body></html> \""* ]]
	[[ $stderr == *'mc-mcp: server "notrpc": sent a message with neither a method nor an id'* ]]
	[[ $stderr == *'mc-mcp: server "hang": did not answer initialize within 1 s'* ]]
	assert_equal "$(printf '%s\n' "$stderr" | wc -l)" 4
}

@test "http: a server that refuses both transports is one line saying how each was refused" {
	http_start --refuse 401
	remote
	run --separate-stderr mc-mcp list
	assert_failure 1
	assert_equal "$stderr" "mc-mcp: server \"web\": answered initialize with error -32000: http://127.0.0.1:$HP/mcp answered the POST with HTTP 401 Unauthorized (\"bad token\"), and the GET of the older HTTP+SSE transport with HTTP 401 Unauthorized"
}

@test "http: a failed server leaves the others: the session goes on without it" {
	http_start
	settings "$(jq -nc --arg u "http://127.0.0.1:$HP/mcp" '{mcp_servers: {
	  web: {url: $u}, gone: {url: "http://127.0.0.1:9/mcp", headers: {"X": "${UNSET_HERE}"}}}}')"
	serve "$(item c1 web__echo '{"text":"still"}')" "$(item c2 gone__x)"
	assert_success
	assert_equal "$(out c1)" still
	[[ $(out c2) == 'error: the MCP server "gone" of this tool is not running: headers.X: the variable UNSET_HERE is not set' ]]
}

@test "versions: 2025-11-25 asked, 2025-06-18 and 2025-03-26 taken, roots offered" {
	http_start --version 2025-03-26
	remote
	serve "$(item c1 web__echo '{"text":"v"}')"
	assert_equal "$(out c1)" v
	assert_equal "$(jq -rs 'map(select(.initialize))[0].initialize | [.protocolVersion, (.capabilities.roots | has("listChanged"))] | @tsv' "$HLOG")" \
		$'2025-11-25\ttrue'
	assert_equal "$(jq -rs '[.[] | select(.body.method? == "tools/call")][0].version' "$HLOG")" 2025-03-26
	kill "$HPID"
	http_start --version 2024-11-05
	remote
	run --separate-stderr mc-mcp list
	assert_equal "$stderr" 'mc-mcp: server "web": answered initialize with protocol version "2024-11-05", not one of 2025-11-25, 2025-06-18, 2025-03-26'
}

@test "roots: the working directory, asked for in a call's event stream" {
	http_start
	remote
	mkdir "sub dir"
	cd "sub dir"
	serve "$(item c1 web__roots)"
	assert_equal "$(out c1 | jq -c .roots)" "[{\"uri\":\"file://${PWD// /%20}\",\"name\":\"sub dir\"}]"
}

@test "progress and a call's log lines go out as lines before the output; elsewhere logging from warning up is on stderr, with -q too" {
	http_start
	remote
	run --separate-stderr mc-mcp -q serve < <(item c1 web__progress)
	# the latest progress counts: two that come at once may be one line
	assert_equal "$(printf '%s\n' "$output" | sed '1d;$d' | jq -c 'select(.type == "progress") | [.type, .server, .progress, .total, .message]' | tail -1)" \
		'["progress","web",2,2,"step 2"]'
	assert_equal "$(printf '%s\n' "$output" | sed '1d;$d' | jq -c 'select(.type != "progress")')" \
		'{"type":"log","text":"web: warning fake: careful now"}'
	assert_equal "$(out c1)" done
	assert_equal "$stderr" ''
	run --separate-stderr mc-mcp -q call < <(item c1 web__progress)
	assert_equal "$(jq -r .output <<<"$output")" done
	assert_equal "$stderr" 'mc-mcp: web: warning fake: careful now'
	assert_equal "$(jq -rs '[.[] | select(.body.method? == "tools/call")][0].body.params._meta.progressToken | type' "$HLOG")" string
}

@test "tools/list_changed: the new list goes out before the next output" {
	http_start
	remote
	serve "$(item c1 web__change)" "$(item c2 web__added)"
	assert_equal "$(printf '%s\n' "$output" | sed -n 2p | jq -c '[.[] | .name | select(. == "web__added")]')" '["web__added"]'
	assert_equal "$(printf '%s\n' "$output" | sed -n 3p | jq -r .output)" changed
	assert_equal "$(out c2)" 'added works'
}

@test "tasks: a task-only tool is offered, called as a task and its result awaited" {
	http_start
	remote
	serve "$(item c1 web__slowtask)"
	assert_equal "$(printf '%s\n' "$output" | head -1 | jq -r '.[] | select(.name == "web__slowtask") | .name')" web__slowtask
	assert_equal "$(out c1)" 'task done (t-1)'
	assert_equal "$(jq -rs '[.[] | select(.body.method? == "tools/call")][0].body.params.task | has("ttl")' "$HLOG")" true
	assert_equal "$(jq -rs '[.[] | select(.body.method? == "tasks/result")][0].body.params.taskId' "$HLOG")" t-1
}

@test "tasks: a task call that times out is cancelled with tasks/cancel" {
	http_start
	remote '{"timeout_s": 1}'
	mkfifo "$BATS_TEST_TMPDIR/in"
	mc-mcp serve <"$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	spid=$!
	exec 8>"$BATS_TEST_TMPDIR/in"
	item c1 web__stucktask >&8
	for ((i = 0; i < 300; i++)); do
		jq -e 'select(.body.method? == "tasks/cancel")' "$HLOG" >/dev/null 2>&1 && break
		sleep 0.05
	done
	exec 8>&-
	wait "$spid"
	assert_equal "$(jq -rs '[.[] | select(.body.method? == "tasks/cancel")][0].body.params.taskId' "$HLOG")" t-stuck
	assert_equal "$(jq -r 'select(.call_id? == "c1") | .output' "$BATS_TEST_TMPDIR/out")" \
		'error: the MCP server "web" did not answer within 1 s; the call was cancelled'
	assert_equal "$(cat "$BATS_TEST_TMPDIR/err")" 'mc-mcp: server "web": did not answer tools/call within 1 s; cancelled'
}

@test "results keep every content type: text, an image passed on, audio markers, resources, links, structured" {
	http_start
	remote
	serve "$(item c1 web__rich)" "$(item c2 web__structured)"
	# the PNG (a real one) goes on as an image for mc to store (SPEC 21)
	assert_equal "$(printf '%s\n' "$output" | jq -c 'select(.call_id? == "c1") | .image_data | map([.name, .media_type, (.data | length)])')" \
		'[["image-1.png","image/png",96]]'
	assert_equal "$(out c1)" 'hello
[image image-1.png: image/png, 70 bytes]
[audio/wav, 3 bytes]
[resource mem://a]
inside
[resource mem://b, application/octet-stream, 4 bytes]
[resource link file:///x/y.txt: y.txt]'
	assert_equal "$(out c2)" '{"answer":42}'
}

@test "resources: listed with templates; read of mcp://SERVER/URI; a resource that is not text is an error" {
	http_start
	remote
	serve "$(item c1 read '{"path":"mcp://web/mem://a"}')" "$(item c2 read '{"path":"mcp://web/mem://b"}')" \
		"$(item c3 read '{"path":"mcp://nope/x"}')"
	assert_equal "$(printf '%s\n' "$output" | head -1 | jq -c '[.[] | select(.type != null) | [.type, .uri // .name]]')" \
		'[["mcp_resource","mem://a"],["mcp_resource","mem://b"],["mcp_template","mem://{name}"],["mcp_prompt","web:greet"]]'
	assert_equal "$(out c1)" 'contents of mem://a'
	assert_equal "$(out c2)" 'error: the resource mem://b of the MCP server "web" is not text (application/octet-stream, 4 bytes)'
	assert_equal "$stderr" 'mc-mcp: server "web": resource mem://b is not text'
	assert_equal "$(out c3)" 'error: no MCP server "nope" is running'
}

@test "prompts: a prompt line gets the messages, its words given to the arguments in order" {
	http_start
	remote
	serve '{"type":"prompt","call_id":"p1","name":"web:greet","arguments":"Ann very warmly"}' \
		'{"type":"prompt","call_id":"p2","name":"web:nope","arguments":""}'
	assert_equal "$(out p1)" 'Say hello to Ann, very warmly.'
	assert_equal "$(out p2)" 'error: the MCP server "web" has no prompt "nope"'
}

# use_remote: settings for the fake provider and the fake HTTP server as "web"
use_remote() {
	jq -nc --arg url "$FAKE_URL" --arg u "http://127.0.0.1:$HP/mcp" '{provider: "fake", model: "fake-model",
	  providers: {fake: {base_url: $url, api: "chat", api_key_env: null}},
	  mcp_servers: {web: {url: $u, approve: false,
	    headers: {"X-Api": "k-${WEB_SECRET}"}}}}' > "$MC_HOME/settings.json"
	export WEB_SECRET=zq81secret
}

@test "mc: the model reads mcp://SERVER/URI with read; resources are named in read's description" {
	http_start
	fake_start "[$(calls "$(call c1 read '{"path":"mcp://web/mem://a"}')"), $(text done)]"
	use_remote
	run --separate-stderr mc 'read it' </dev/null
	assert_success
	assert_output done
	[[ $(fake_request 1 '.body.tools[].function | select(.name == "read") | .description') == *'MCP resources, read with path mcp://SERVER/URI: mcp://web/mem://a (a) mcp://web/mem://b (b) mcp://web/mem://{name} (any)'* ]]
	assert_equal "$(fake_request 2 '.body.messages[-1].content')" 'contents of mem://a'
	# the header's value reached the server, and neither the session nor the provider
	assert_equal "$(jq -rs '[.[] | select(.xapi)][0].xapi' "$HLOG")" k-zq81secret
	[ -n "$(session_files)" ]
	run ! grep -rq zq81secret "$MC_HOME" "$FAKE_LOG" <(printf "%s" "$stderr")
}

@test "mc: @SERVER:URI in a message attaches the resource before it; one that cannot be read stops the turn, nothing sent" {
	http_start
	fake_start "[$(text done)]"
	use_remote
	run --separate-stderr mc 'look at @web:mem://a, and @nosuch:x stays' </dev/null
	assert_success
	# the block, then the message as typed (chat joins the two user messages)
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" \
		"$(printf '<Context File=mcp://web/mem://a>\ncontents of mem://a\n</Context>\n\nlook at @web:mem://a, and @nosuch:x stays')"
	run --separate-stderr mc 'and @web:mem://b' </dev/null
	assert_failure 1
	[[ $stderr == *'mc: @web:mem://b: '* ]]
	assert_equal "$(fake_count)" 1
}

@test "mc: a server's changed tool list is offered at the next step" {
	http_start
	fake_start "[$(calls "$(call c1 web__change '{}')"), $(calls "$(call c2 web__added '{}')"), $(text done)]"
	use_remote
	run --separate-stderr mc 'change' </dev/null
	assert_success
	assert_output done
	assert_equal "$(fake_request 1 '[.body.tools[].function.name | select(. == "web__added")] | length')" 0
	assert_equal "$(fake_request 2 '[.body.tools[].function.name | select(startswith("web__"))] | sort | join(",")')" \
		'web__added,web__change,web__echo,web__progress,web__rich,web__roots,web__slowtask,web__structured,web__stucktask'
	assert_equal "$(fake_request 3 '.body.messages[-1].content')" 'added works'
}

@test "mc on a terminal: /help lists the servers' prompts, /SERVER:NAME ARGS sends one; progress shows on the status line, a server's warning on a line of its own" {
	http_start
	fake_start "[$(text first), $(calls "$(call c1 web__progress '{}')"), $(text 'all done')]"
	use_remote
	on_tty mc
	wait_for 'mc>'
	keys '/help' Enter
	wait_for 'MCP prompts:'
	wait_for 'Greet someone.'
	pane | grep -qx '  /web:greet name tone'
	tmux -S "$TMUX_SOCK" pipe-pane -t 0 "cat >> '$BATS_TEST_TMPDIR/raw'"
	keys '/web:greet Bob loudly' Enter
	wait_for first
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" 'Say hello to Bob, loudly.'
	keys 'go on' Enter
	wait_for 'all done'
	# Ctrl-D at the prompt, not typed ahead while the turn ends
	wait_prompt 4
	keys C-d
	assert_equal "$(wait_status)" 0
	grep -aq 'web: step 2 (100%)' "$BATS_TEST_TMPDIR/raw"
	# the status line was cleared before the server's warning and the answer
	[[ $(pane) != *'web: step'* ]]
	pane | grep -qx 'mc: mc-mcp: web: warning fake: careful now'
}

@test "tools/list_changed between calls: serve sends the new list unasked; mc takes it before its next step" {
	http_start --stream-change --mark "$BATS_TEST_TMPDIR/relisted"
	remote
	serve_fifo="$BATS_TEST_TMPDIR/in"
	mkfifo "$serve_fifo"
	mc-mcp serve <"$serve_fifo" >"$BATS_TEST_TMPDIR/serve.out" 2>"$BATS_TEST_TMPDIR/serve.err" 3>&- &
	spid=$!
	exec 8>"$serve_fifo"
	for ((i = 0; i < 300; i++)); do
		[ "$(wc -l <"$BATS_TEST_TMPDIR/serve.out")" -ge 2 ] && break
		sleep 0.05
	done
	exec 8>&-
	wait "$spid"
	assert_equal "$(sed -n 1p "$BATS_TEST_TMPDIR/serve.out" | jq '[.[] | select(.name == "web__added")] | length')" 0
	assert_equal "$(sed -n 2p "$BATS_TEST_TMPDIR/serve.out" | jq -r '.[] | select(.name == "web__added") | .name')" web__added
	kill "$HPID"
	rm -f "$BATS_TEST_TMPDIR/relisted"
	http_start --stream-change --mark "$BATS_TEST_TMPDIR/relisted"
	echo text >notes.txt
	# the first answer waits until the server was asked for its new tools
	fake_start "[$(calls "$(call c1 read '{"path":"notes.txt"}')" | jq -c --arg f "$BATS_TEST_TMPDIR/relisted" '. + {wait_file: $f}'),
	  $(text done)]"
	use_remote
	run --separate-stderr mc 'look' </dev/null
	assert_success
	assert_output done
	assert_equal "$(fake_request 2 '[.body.tools[].function.name | select(. == "web__added")] | length')" 1
}

@test "http: through libcurl (here by a proxy) alike: POST, the event-stream answer, DELETE" {
	http_start
	settings '{"mcp_servers": {"web": {"url": "http://mcp.invalid/mcp", "timeout_s": 10}}}'
	http_proxy="http://127.0.0.1:$HP" no_proxy= NO_PROXY= serve "$(item c1 web__echo '{"text":"curl"}')" "$(item c2 web__progress)"
	assert_success
	assert_equal "$(out c1)" curl
	assert_equal "$(out c2)" done
	assert_equal "$(jq -rs '[.[] | select(.body.method? == "tools/call")][0] | [.path, .session] | @tsv' "$HLOG")" \
		$'http://mcp.invalid/mcp\ts1'
	assert_equal "$(jq -rs '.[-1] | [.http, .session] | @tsv' "$HLOG")" $'DELETE\ts1'
}
