#!/usr/bin/env bats
# Long sessions cost only what is new (SPEC §18): one mc-request --serve
# for the session, fed only the new lines, whose requests are byte for
# byte what mc-request alone builds from the same items.

load helper
load fake
load mc

# A copy of the suite whose mc-request is a wrapper: it counts its starts
# in $T/starts, keeps what it was given in $T/in.N and what it answered
# in $T/out.N (N its start), and, with $T/die holding K, is killed at its
# K-th request.
wrap_request() {
	T=$BATS_TEST_TMPDIR
	mkdir -p "$T/suite"
	cp "$MC_BIN"/* "$T/suite/"
	mv "$T/suite/mc-request" "$T/suite/mc-request.real"
	cat > "$T/suite/mc-request" <<EOF
#!/bin/sh
echo start >> "$T/starts"
n=\$(wc -l < "$T/starts")
if [ -s "$T/die" ] && [ "\$n" -eq 1 ]; then
	exec python3 "$T/dier.py" "\$(cat "$T/die")" "$T/suite/mc-request.real" "\$@"
fi
tee "$T/in.\$n" | "$T/suite/mc-request.real" "\$@" | tee "$T/out.\$n"
EOF
	chmod +x "$T/suite/mc-request"
	# Passes lines on until the K-th request line, then kills itself.
	cat > "$T/dier.py" <<'EOF'
import os, signal, subprocess, sys
k = int(sys.argv[1])
p = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, close_fds=False)
seen = 0
for line in sys.stdin.buffer:
    if line.startswith(b'{"type":"request"}'):
        seen += 1
        if seen == k:
            os.kill(os.getpid(), signal.SIGKILL)
    p.stdin.write(line)
    p.stdin.flush()
EOF
	export PATH="$T/suite:$PATH"
}

# loop N: a script of N answers each asking for one read, then a text.
loop() {
	local s="[" i
	for ((i = 1; i <= $1; i++)); do
		s+=$(calls "$(call "c$i" read "{\"path\":\"f$i\"}")"),
	done
	printf '%s%s]' "$s" "$(text done)"
}

# alone K N: the body mc-request alone builds from the items the K-th
# request of start N was built from, with the same prompt and tools.
alone() {
	local k=$1 n=$2 filter=${3:-.body}
	python3 - "$T/in.$n" "$k" "$T" <<'EOF'
import json, sys
path, k, T = sys.argv[1], int(sys.argv[2]), sys.argv[3]
system, tools, items, seen = "", None, [], 0
for line in open(path, encoding="utf-8"):
    d = json.loads(line)
    t = d.get("type")
    if t == "system": system = d["text"]
    elif t == "tools": tools = d["tools"]
    elif t == "reset": items = []
    elif t == "request":
        seen += 1
        if seen == k: break
    else: items.append(line)
open(T + "/sys", "w", encoding="utf-8").write(system)
json.dump(tools or [], open(T + "/tools.json", "w"))
open(T + "/items.jsonl", "w", encoding="utf-8").write("".join(items))
EOF
	mc-request.real -q -p fake -m fake-model --items "$T/items.jsonl" --tools "$T/tools.json" \
		< "$T/sys" | jq -cr "$filter"
}

@test "a session starts mc-request once, and each step's request is what mc-request alone builds" {
	wrap_request
	printf 'file %s\n' 1 2 3 4 5 6 > f1
	for i in 2 3 4 5 6; do cp f1 f$i; done
	fake_start "$(loop 6)"
	use_fake
	run --separate-stderr mc --yes 'read them all'
	assert_success
	assert_output done
	assert_equal "$(wc -l < "$T/starts")" 1
	assert_equal "$(fake_count)" 7
	assert_equal "$(wc -l < "$T/out.1")" 7
	# Byte for byte: the envelope's body as sent, and as built alone.
	for k in 1 4 7; do
		sed -n "${k}p" "$T/out.1" | jq -c .body > "$T/got"
		alone "$k" 1 > "$T/want"
		run cmp "$T/got" "$T/want"
		assert_success
		assert_equal "$(jq -c .body "$FAKE_LOG/$k.json")" "$(jq -c . "$T/want")"
	done
	# Only the new lines go in: each item once, whatever the steps.
	assert_equal "$(grep -c '"call_id":"c3","output"' "$T/in.1")" 1
	assert_equal "$(grep -c '"type":"function_call","call_id":"c1"' "$T/in.1")" 1
}

@test "the cache key of a step is the one mc-request alone computes; none is made when nothing caches" {
	wrap_request
	printf 'x\n' > f1
	cp f1 f2
	fake_start "$(jq -cs add <(loop 2) <(loop 1))"
	use_fake
	run --separate-stderr mc --yes --cache 'read'
	assert_success
	assert_equal "$(wc -l < "$T/out.1")" 3
	for k in 1 2 3; do
		got=$(sed -n "${k}p" "$T/out.1" | jq -r .cache_key)
		assert_regex "$got" '^[0-9a-f]{64}$'
		sed -n "${k}p" "$T/out.1" | jq -c .body > "$T/got"
		assert_equal "$got" "$(alone "$k" 1 .cache_key)"
	done
	# Without the cache the envelope has no key: nothing was hashed.
	rm "$T/starts"
	run --separate-stderr mc --yes 'read'
	assert_success
	assert_equal "$(jq -c 'has("cache_key")' "$T/out.1" | sort -u)" false
}

@test "an mc-request that dies mid-session is started again, once, and the session goes on" {
	wrap_request
	printf 'x\n' > f1
	for i in 2 3 4; do cp f1 f$i; done
	echo 3 > "$T/die"
	fake_start "$(loop 4)"
	use_fake
	run --separate-stderr mc --yes 'read'
	assert_success
	assert_output done
	assert_equal "$(wc -l < "$T/starts")" 2
	assert_regex "$stderr" 'mc: warning: mc-request stopped mid-session \(killed by signal 9 \([^)]*\)\); started again, given the session whole'
	assert_equal "$(fake_count)" 5
	# The one started again was given the session whole: its first
	# request is the third step's, the same as alone.
	head -1 "$T/out.2" | jq -c .body > "$T/got"
	alone 1 2 > "$T/want"
	run cmp "$T/got" "$T/want"
	assert_success
	assert_equal "$(jq -c .body "$FAKE_LOG/3.json")" "$(jq -c . "$T/want")"
	# Nothing in the session is lost or twice.
	f=$(session_files)
	assert_equal "$(grep -c '"type":"function_call",' "$f")" 4
	assert_equal "$(grep -c '"type":"function_call_output"' "$f")" 4
}

@test "a session line mc-request rejects is named with the file and line; nothing is sent" {
	fake_start "$(answers one two)"
	use_fake
	run --separate-stderr mc 'hello'
	assert_success
	f=$(session_files)
	printf '%s\n' '{"type":"message","role":"system","content":"sneaky"}' >> "$f"
	run --separate-stderr mc -c 'again'
	assert_failure 1
	assert_regex "$stderr" "mc-request: $f:[0-9]+: message: unknown role \"system\""
	line=$(grep -n sneaky "$f" | cut -d: -f1)
	assert_regex "$stderr" "$f:$line: "
	assert_equal "$(fake_count)" 1
}

@test "mc-request --serve alone: a session's lines in, an envelope per request line out" {
	T=$BATS_TEST_TMPDIR
	{
		echo '{"type":"system","text":"be brief"}'
		echo '{"type":"session","id":"x"}'
		echo '{"type":"message","role":"user","content":"hi"}'
		echo '{"type":"request"}'
		echo '{"type":"message","role":"assistant","content":"hello"}'
		echo '{"type":"usage","input_tokens":3}'
		echo '{"type":"message","role":"user","content":"more"}'
		echo '{"type":"request"}'
		echo '{"type":"function_call_output","call_id":"nope","output":"x"}'
		echo '{"type":"request"}'
		echo '{"type":"reset","name":"again"}'
		echo '{"type":"message","role":"user","content":"fresh"}'
		echo '{"type":"request"}'
	} > "$T/in"
	run --separate-stderr mc-request --serve -p vllm -m m < "$T/in"
	assert_success
	assert_equal "${#lines[@]}" 4
	assert_equal "$(printf '%s\n' "${lines[0]}" | jq -c .body.messages)" \
		'[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]'
	assert_equal "$(printf '%s\n' "${lines[1]}" | jq -c '.body.messages | length')" 4
	assert_equal "$(printf '%s\n' "${lines[1]}" | jq -r 'has("cache_key")')" false
	assert_equal "${lines[2]}" '{"type":"error","message":"stdin:6: function_call_output: no function_call with call_id \"nope\" before it"}'
	assert_equal "$(printf '%s\n' "${lines[3]}" | jq -c '.body.messages[1:]')" '[{"role":"user","content":"fresh"}]'
	# the same as mc-request alone
	printf '%s\n' '{"type":"message","role":"user","content":"fresh"}' > "$T/i"
	assert_equal "${lines[3]}" "$(printf 'be brief' | mc-request -p vllm -m m --items "$T/i" | jq -c 'del(.cache_key)')"
	run mc-request --serve 'prompt'
	assert_failure 2
	run mc-request --cache-key -m m 'x'
	assert_failure 2
}

@test "mc -c gives the session to mc-request as the file is read, and one that a later model line changes is started again" {
	wrap_request
	fake_start "$(jq -cs add <(loop 1) <(loop 0) <(loop 0))"
	use_fake
	printf 'x\n' > f1
	# A first message of 300 KB: the session is given while it is read.
	head -c 300000 /dev/zero | tr '\0' a > big
	run --separate-stderr mc --yes 'read' < big
	assert_success
	rm "$T/starts" "$T"/in.* "$T"/out.*
	run --separate-stderr mc -c 'again'
	assert_success
	assert_equal "$(wc -l < "$T/starts")" 1
	# The first lines came before the prompt: mc-request built while mc
	# read; one reset, one header.
	types=$(jq -r .type "$T/in.1" | paste -sd, -)
	assert_regex "$types" '^reset,session,message,system,tools,function_call,'
	assert_equal "$(grep -c '"type":"reset"' "$T/in.1")" 1
	alone 1 1 > "$T/want"
	head -1 "$T/out.1" | jq -c .body > "$T/got"
	run cmp "$T/got" "$T/want"
	assert_success
	# A model line after the header: the mc-request started at the
	# header is not the one that builds; the session is fed again.
	f=$(session_files)
	printf '%s\n' '{"type":"model","provider":"fake","model":"other-model"}' >> "$f"
	rm "$T/starts" "$T"/in.* "$T"/out.*
	run --separate-stderr mc -c 'third'
	assert_success
	assert_equal "$(wc -l < "$T/starts")" 2
	assert_equal "$(jq -r .body.model "$FAKE_LOG/4.json")" other-model
}
