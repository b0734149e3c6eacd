#!/usr/bin/env bats
# mc-send's two transports (SPEC §5, §8): plain HTTP to a local server by its
# own HTTP/1.1 client, everything else (TLS, proxies, names) by libcurl.

load helper
load fake

setup_file_local() {
	export FAKE_API_KEY=sk-test-Zq8Wv3Tn5Rb7Yx1Kc4Hm
	export MC_RETRY_BASE_MS=1
}

serve() {
	local IFS=,
	fake_start "[$*]"
}

envelope() {
	fake_envelope "$@" > "$BATS_TEST_TMPDIR/env.json"
}

send() {
	run --separate-stderr mc-send "$@" < "$BATS_TEST_TMPDIR/env.json"
}

# raw TEXT [EXTRA]: a script entry sending TEXT as the whole answer ($'..' escapes)
raw() {
	jq -nc --arg raw "$1" "{raw: \$raw}${2:+ + $2}"
}

SSE_HI=$'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'

@test "a local provider over plain HTTP: libcurl is not loaded, the head is as libcurl's" {
	serve '{"answer":{"api":"chat","text":"plain"}}'
	envelope chat
	LD_DEBUG=files send
	assert_success
	assert_equal "$output" plain
	[[ $stderr != *libcurl* ]] || fail "libcurl was loaded for $FAKE_URL"
	assert_equal "$(fake_request 1 .path)" /v1/chat/completions
	assert_equal "$(fake_request 1 .headers.host)" "${FAKE_URL:7:-3}"
	assert_regex "$(fake_request 1 '.headers["user-agent"]')" '^mc-send/[0-9]'
	assert_equal "$(fake_request 1 .headers.authorization)" "Bearer $FAKE_API_KEY"
	assert_equal "$(fake_request 1 '.headers["content-type"]')" application/json
	assert_equal "$(fake_request 1 .headers.expect)" null
}

# tiny_server PYTHON: run a one-off server written in Python (its socket is
# `s`, listening; it prints its port first) and set FAKE_URL to it.
tiny_server() {
	python3 -c "import socket, sys, time
$1" > "$BATS_TEST_TMPDIR/port" 2>/dev/null &
	TINY_PID=$!
	local i
	for ((i = 0; i < 100; i++)); do
		[ -s "$BATS_TEST_TMPDIR/port" ] && break
		sleep 0.05
	done
	FAKE_URL=http://${TINY_HOST:-127.0.0.1}:$(head -1 "$BATS_TEST_TMPDIR/port")/v1
}

teardown_local() {
	[ -z "${TINY_PID:-}" ] || kill "$TINY_PID" 2>/dev/null || true
}

@test "localhost: a server on ::1 alone is reached, as libcurl reaches it" {
	python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null ||
		skip "this machine has no IPv6 loopback"
	tiny_server '
s = socket.socket(socket.AF_INET6); s.bind(("::1", 0)); s.listen(4)
print(s.getsockname()[1], flush=True)
c, _ = s.accept()
got = b""
while b"\r\n\r\n" not in got:
    got += c.recv(65536)
sse = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"six\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(sse) + sse)
time.sleep(5)'
	FAKE_URL=http://localhost:${FAKE_URL##*:}
	envelope chat
	send --retries 0
	assert_success
	assert_equal "$output" six
}

@test "an answer that comes before the request's body is all sent is read, not lost" {
	# The server reads the head only, says 401 and hangs up: the rest of
	# an 8 MB body is never read.
	tiny_server '
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4)
print(s.getsockname()[1], flush=True)
for _ in range(2):
    c, _ = s.accept()
    got = b""
    while b"\r\n\r\n" not in got:
        got += c.recv(65536)
    c.sendall(b"HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Type: application/json\r\n"
              b"Content-Length: 36\r\n\r\n{\"error\":{\"message\":\"bad key sk-1\"}}")
    c.close()
time.sleep(5)'
	head -c 8000000 /dev/zero | tr '\0' x > "$BATS_TEST_TMPDIR/big"
	fake_envelope chat | jq -c --rawfile big "$BATS_TEST_TMPDIR/big" \
	    '.body.messages[0].content = $big' > "$BATS_TEST_TMPDIR/env.json"
	send --retries 0
	assert_failure 1
	assert_equal "$stderr" "mc-send: HTTP 401 from fake: bad key sk-1 (check the key in \$FAKE_API_KEY)"
}

@test "an unasked 100 Continue, or a 2xx head, before the body is read: the body is sent whole" {
	# The server answers the head at once, then reads all of an 8 MB body
	# before the rest of its answer: sending must go on meanwhile.
	tiny_server '
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4)
print(s.getsockname()[1], flush=True)
sse = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"whole\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
for first in (b"HTTP/1.1 100 Continue\r\n\r\n", b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"):
    c, _ = s.accept()
    got = b""
    while b"\r\n\r\n" not in got:
        got += c.recv(65536)
    head, _, body = got.partition(b"\r\n\r\n")
    n = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")][0])
    c.sendall(first)
    while len(body) < n:
        body += c.recv(1 << 20)
    if first.startswith(b"HTTP/1.1 100"):
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(sse) + sse)
    else:
        c.sendall(b"%x\r\n" % len(sse) + sse + b"\r\n0\r\n\r\n")
    print(len(body), flush=True)
time.sleep(5)'
	head -c 8000000 /dev/zero | tr '\0' x > "$BATS_TEST_TMPDIR/big"
	fake_envelope chat | jq -c --rawfile big "$BATS_TEST_TMPDIR/big" \
	    '.body.messages[0].content = $big' > "$BATS_TEST_TMPDIR/env.json"
	send --retries 0 --idle-timeout 20
	assert_success
	assert_equal "$output" whole
	send --retries 0 --idle-timeout 20
	assert_success
	assert_equal "$output" whole
	local want
	want=$(jq -c .body "$BATS_TEST_TMPDIR/env.json" | tr -d '\n' | wc -c)
	assert_equal "$(sed -n 2,3p "$BATS_TEST_TMPDIR/port" | tr '\n' ' ')" "$want $want "
}

@test "localhost is reached on whichever of its addresses the server listens" {
	serve '{"answer":{"api":"chat","text":"local"}}'
	local port=${FAKE_URL:17:-3}
	FAKE_URL=http://localhost:$port/v1
	envelope chat
	send
	assert_success
	assert_equal "$output" local
	assert_equal "$(fake_request 1 .headers.host)" "localhost:$port"
}

@test "http_proxy or all_proxy: the request goes through the proxy, by libcurl" {
	serve '{"answer":{"api":"chat","text":"one"}}' '{"answer":{"api":"chat","text":"two"}}'
	local proxy=${FAKE_URL%/v1}
	unset NO_PROXY no_proxy
	# Nothing listens on port 9: only the proxy can answer.
	FAKE_URL=http://127.0.0.1:9/v1
	envelope chat
	http_proxy=$proxy LD_DEBUG=files send
	assert_success
	assert_equal "$output" one
	[[ $stderr == *libcurl* ]] || fail "libcurl was not loaded"
	assert_equal "$(fake_request 1 .path)" http://127.0.0.1:9/v1/chat/completions
	all_proxy=$proxy no_proxy=example.com,127.0.0.2 send
	assert_success
	assert_equal "$output" two
	assert_equal "$(fake_request 2 .path)" http://127.0.0.1:9/v1/chat/completions
}

@test "no_proxy naming the host, or *, goes around the proxy, without libcurl" {
	serve '{"answer":{"api":"chat","text":"one"}}' '{"answer":{"api":"chat","text":"two"}}'
	unset NO_PROXY no_proxy
	envelope chat
	# The proxy is dead: only a direct request is answered.
	http_proxy=http://127.0.0.1:9 no_proxy=example.com,.127.0.0.1 LD_DEBUG=files send --retries 0
	assert_success
	assert_equal "$output" one
	[[ $stderr != *libcurl* ]] || fail "libcurl was loaded"
	assert_equal "$(fake_request 1 .path)" /v1/chat/completions
	ALL_PROXY=http://127.0.0.1:9 NO_PROXY='*' send --retries 0
	assert_success
	assert_equal "$output" two
}

@test "framing: length, chunks with LF line ends and extensions, the connection's end" {
	serve "$(raw "HTTP/1.1 200 OK"$'\r\nContent-Length: '"${#SSE_HI}"$'\r\n\r\n'"$SSE_HI" '{keep: true}')" \
	    "$(raw $'HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n5;x=y\ndata:\n'"$(printf %x $((${#SSE_HI} - 5)))"$'\n'"${SSE_HI:5}"$'\n0\nX-Trailer: 1\n\n' '{keep: true}')" \
	    "$(raw $'HTTP/1.0 200 OK\r\n\r\n'"$SSE_HI")" \
	    "$(raw $'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n'"$SSE_HI")"
	envelope chat
	local n
	for n in 1 2 3 4; do
		send --retries 0
		assert_success
		assert_equal "$output" hi
	done
}

@test "--serve keeps the connection after length and chunked answers, not after HTTP/1.0 ones" {
	serve "$(raw "HTTP/1.1 200 OK"$'\r\nContent-Length: '"${#SSE_HI}"$'\r\n\r\n'"$SSE_HI" '{keep: true}')" \
	    "$(raw $'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'"$(printf %x ${#SSE_HI})"$'\r\n'"$SSE_HI"$'\r\n0\r\n\r\n' '{keep: true}')" \
	    "$(raw "HTTP/1.0 200 OK"$'\r\nContent-Length: '"${#SSE_HI}"$'\r\n\r\n'"$SSE_HI" '{keep: true}')" \
	    "$(raw "HTTP/1.0 200 OK"$'\r\nConnection: keep-alive\r\nContent-Length: '"${#SSE_HI}"$'\r\n\r\n'"$SSE_HI" '{keep: true}')" \
	    '{"answer":{"api":"chat","text":"!"}}'
	local i
	: > "$BATS_TEST_TMPDIR/envs.jsonl"
	for i in 1 2 3 4 5; do
		fake_envelope chat >> "$BATS_TEST_TMPDIR/envs.jsonl"
	done
	run --separate-stderr mc-send --serve < "$BATS_TEST_TMPDIR/envs.jsonl"
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(jq -j 'select(.type == "text") | .delta' <<< "$output")" hihihihi!
	assert_equal "$(for i in 1 2 3 4 5; do fake_request $i .conn; done | tr '\n' ' ')" "1 1 1 2 2 "
}

@test "a head that comes a byte at a time, after a 100 Continue" {
	serve "$(raw $'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: '"${#SSE_HI}"$'\r\n\r\n'"$SSE_HI" '{chunk: 1}')"
	envelope chat
	send
	assert_success
	assert_equal "$output" hi
}

@test "an answer that is not HTTP/1, or breaks its framing, is an error naming why" {
	serve "$(raw $'SSH-2.0-OpenSSH_9.2\r\n' '{keep: true}')" \
	    "$(raw $'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')" \
	    "$(raw $'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab')" \
	    "$(raw $'HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n'"${SSE_HI:0:60}")"
	envelope chat
	# A banner that waits for the client: known at its first bytes, not
	# after --idle-timeout.
	send --retries 0 --idle-timeout 60
	assert_failure 1
	assert_equal "$stderr" "mc-send: cannot reach fake: not an HTTP/1 answer"
	send --retries 0
	assert_failure 1
	assert_equal "$stderr" "mc-send: the answer from fake was cut: a chunk without a size"
	send --retries 0
	assert_failure 1
	assert_equal "$stderr" "mc-send: cannot reach fake: two different Content-Lengths"
	# An event came, the others and the body's end did not: cut.
	send --retries 0
	assert_failure 1
	assert_equal "$stderr" "mc-send: the answer from fake was cut: the connection ended before the answer did"
}

@test "a server that closes without answering: retried, then an error" {
	serve "$(raw '' '{times: 2}')" '{"answer":{"api":"chat","text":"third time"}}'
	envelope chat
	send --retries 1
	assert_failure 1
	assert_equal "${stderr_lines[0]}" "mc-send: warning: cannot reach fake: the server closed the connection without an answer; retry 1 of 1 in 0.0 s"
	assert_equal "${stderr_lines[1]}" "mc-send: cannot reach fake: the server closed the connection without an answer"
	assert_equal "$(fake_count)" 2
	send --retries 1
	assert_success
	assert_equal "$output" "third time"
}

@test "an error status's head: its reason when the body says nothing, Retry-After honoured" {
	serve "$(raw $'HTTP/1.1 503 Busy Right Now\r\nRetry-After: 0\r\nContent-Length: 0\r\n\r\n' '{keep: true}')" \
	    '{"answer":{"api":"chat","text":"later"}}'
	envelope chat
	send --retries 1
	assert_success
	assert_equal "$output" later
	assert_equal "${stderr_lines[0]}" "mc-send: warning: HTTP 503 from fake: Busy Right Now; retry 1 of 1 in 0.0 s"
}

@test "connecting times out after --connect-timeout, and Ctrl-C ends the wait" {
	# A listening socket whose backlog is full: connect(2) waits.
	python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(0)
print(s.getsockname()[1], flush=True)
fill = []
for _ in range(64):
    c = socket.socket(); c.setblocking(False)
    try: c.connect(("127.0.0.1", s.getsockname()[1]))
    except BlockingIOError: pass
    fill.append(c)
time.sleep(30)' > "$BATS_TEST_TMPDIR/port" &
	local pid=$! i
	for ((i = 0; i < 100; i++)); do
		[ -s "$BATS_TEST_TMPDIR/port" ] && break
		sleep 0.05
	done
	FAKE_URL=http://127.0.0.1:$(cat "$BATS_TEST_TMPDIR/port")/v1
	envelope chat
	send --retries 0 --connect-timeout 1
	assert_failure 1
	assert_regex "$stderr" '^mc-send: cannot reach fake: connecting to 127\.0\.0\.1 port [0-9]+ timed out after 1 s$'
	mc-send --retries 0 --connect-timeout 30 < "$BATS_TEST_TMPDIR/env.json" 2>/dev/null &
	local send=$!
	sleep 0.5
	kill -INT $send
	local st=0
	wait $send || st=$?
	kill $pid
	assert_equal "$st" 130
}

@test "--preload loads libcurl at the start; without it, a local provider never does" {
	LD_DEBUG=files run --separate-stderr mc-send --serve --preload < /dev/null
	assert_success
	[[ $stderr == *libcurl* ]] || fail "libcurl was not loaded with --preload"
	LD_DEBUG=files run --separate-stderr mc-send --serve < /dev/null
	assert_success
	[[ $stderr != *libcurl* ]] || fail "libcurl was loaded without --preload"
	# A hit from the cache needs no connection at all.
	MC_HOME=$BATS_TEST_TMPDIR/home LD_DEBUG=files run --separate-stderr mc-send --serve --cache \
	    --preload < /dev/null
	assert_success
	[[ $stderr != *libcurl* ]] || fail "libcurl was loaded with --cache"
	run --separate-stderr mc-send --preload=x
	assert_failure 2
}

# mc_send_args BASE-URL: the arguments mc starts mc-send with, for a
# provider at that URL. mc runs its siblings first: a copy of it beside an
# mc-send that notes them (the other programs come from PATH).
mc_send_args() {
	local dir=$BATS_TEST_TMPDIR/bin
	mkdir -p "$dir"
	cp "$(command -v mc)" "$dir/mc"
	printf '#!/bin/sh\necho "$*" > "%s/args"\n' "$dir" > "$dir/mc-send"
	chmod +x "$dir/mc-send"
	settings "{\"provider\":\"p\",\"model\":\"m\",\"providers\":{\"p\":{\"base_url\":\"$1\",
	    \"api\":\"chat\",\"api_key_env\":null}}}"
	rm -f "$dir/args"
	"$dir/mc" --no-session hi > /dev/null 2>&1 < /dev/null || true
	cat "$dir/args"
}

@test "mc passes --preload when its provider's requests go through libcurl, and only then" {
	assert_equal "$(mc_send_args http://127.0.0.1:1/v1)" "--serve"
	assert_equal "$(mc_send_args http://localhost:1/v1)" "--serve"
	assert_equal "$(mc_send_args https://user:secret@127.0.0.1:1/v1)" "--serve --preload"
	assert_equal "$(mc_send_args http://ollama.example:11434/v1)" "--serve --preload"
	assert_equal "$(http_proxy=http://127.0.0.1:9 mc_send_args http://127.0.0.1:1/v1)" \
	    "--serve --preload"
}
