#!/usr/bin/env bats
# mc-send --cache: the answer cache (SPEC §15), against the scripted fake provider.

load helper
load fake

KEY=sk-test-Cache7Qw2Er9Ty4Ui1Op

setup_file_local() {
	export FAKE_API_KEY=$KEY MC_RETRY_BASE_MS=1
	unset MC_CACHE
	T=$BATS_TEST_TMPDIR
	printf 'You are a careful test.' > "$T/sys"
}

# An answer of every kind of event: text over several deltas, a call, usage.
ANSWER='{"api":"API","text":"Two lines of answer,\nthe second without its newline","calls":[{"call_id":"call_7Hq2","name":"read","arguments":"{\"path\":\"a.c\"}"}],"usage":[120,30]}'

# answer API [TIMES]: a script entry for ANSWER in that API's shape
answer() {
	printf '{"answer":%s,"times":%s}' "${ANSWER/API/$1}" "${2:-1}"
}

# texts TEXT...: a script of one streamed chat answer per argument
texts() {
	local s="[" a
	for a in "$@"; do
		s+=$(jq -nc --arg t "$a" '{answer:{api:"chat",text:$t}}'),
	done
	printf '%s]' "${s%,}"
}

# use_fake [API [MEMBERS]]: settings naming the fake as provider "fake",
# with more top-level MEMBERS ("cache":{...}) when given
use_fake() {
	settings "{\"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"${1:-chat}\",
	  \"api_key_env\":\"FAKE_API_KEY\"}}${2:+,$2}}"
}

# envelope [MC-REQUEST ARGS...]: $T/env.json for the fake
envelope() {
	mc-request -p fake -m fake-model "$@" < "$T/sys" > "$T/env.json"
}

# send ARGS...: mc-send ARGS on $T/env.json
send() {
	run --separate-stderr mc-send "$@" < "$T/env.json"
}

# entry: the cache file of $T/env.json
entry() {
	printf '%s/cache/%s' "$MC_HOME" "$(jq -r .cache_key "$T/env.json")"
}

# marked: the events on stdin as a replay writes them: the live ones, with
# "cached":true on usage and done (issue 37: a hit is no paid call)
marked() {
	jq -c 'if .type == "usage" or .type == "done" then .cached = true else . end'
}

# entries: how many files the cache directory holds
entries() {
	find "$MC_HOME/cache" -type f ! -name .size 2>/dev/null | wc -l
}

@test "two identical sends make one request; text, --events and --items replay the live bytes" {
	for api in chat responses; do
		rm -rf "$MC_HOME/cache"
		fake_start "[$(answer $api 4)]"
		use_fake $api
		envelope "hello"
		# What each mode writes live, with no cache.
		for m in text events items; do
			send $([ $m = text ] || echo --$m)
			assert_success
			printf '%s\n' "$output" > "$T/live.$m"
			[ -z "$stderr" ]
		done
		send --cache
		assert_success
		assert_equal "$stderr" ""
		assert_equal "$(fake_count)" 4
		[ -f "$(entry)" ]
		for m in text events items; do
			send --cache $([ $m = text ] || echo --$m)
			assert_success
			assert_equal "$stderr" ""
			printf '%s\n' "$output" > "$T/kept.$m"
			if [ $m = events ]; then
				cmp <(marked < "$T/live.$m") "$T/kept.$m"
				# only usage and done differ, by the mark
				assert_equal "$(diff "$T/live.$m" "$T/kept.$m" | grep -c '^>')" 2
			else
				cmp "$T/live.$m" "$T/kept.$m"
			fi
		done
		run --separate-stderr mc-send --cache --items-out "$T/items.jsonl" < "$T/env.json"
		assert_success
		cmp "$T/live.items" "$T/items.jsonl"
		# the text ends in the newline mc-send adds, replayed or live
		assert_equal "$(tail -c 1 "$T/kept.text" | od -An -c | tr -d ' ')" '\n'
		assert_equal "$(fake_count)" 4
		fake_stop
	done
}

@test "--serve: a kept answer is replayed as the same events, in the same session or the next" {
	fake_start "[$(answer chat)]"
	use_fake
	envelope "hello"
	run --separate-stderr mc-send --serve --cache < <(cat "$T/env.json" "$T/env.json")
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(fake_count)" 1
	n=$(printf '%s\n' "$output" | wc -l)
	[ $((n % 2)) -eq 0 ]
	printf '%s\n' "$output" | head -n $((n / 2)) > "$T/first"
	printf '%s\n' "$output" | tail -n $((n / 2)) > "$T/second"
	cmp <(marked < "$T/first") "$T/second"
	assert_equal "$(tail -n 1 "$T/first")" '{"type":"done","finish_reason":"tool_calls"}'
	assert_equal "$(tail -n 1 "$T/second")" '{"type":"done","finish_reason":"tool_calls","cached":true}'
	run --separate-stderr mc-send --serve --cache < "$T/env.json"
	assert_success
	assert_equal "$output" "$(cat "$T/second")"
	assert_equal "$(fake_count)" 1
}

@test "a hit needs neither the network nor the key, and does not load libcurl" {
	fake_start "[$(answer chat)]"
	use_fake
	envelope "hello"
	send --cache --events
	assert_success
	live=$output
	fake_stop
	unset FAKE_API_KEY
	send --cache --events
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" "$(printf '%s\n' "$live" | marked)"
	if [ -z "${MC_VALGRIND:-}" ]; then
		LD_DEBUG=libs mc-send --cache < "$T/env.json" > /dev/null 2> "$T/ld"
		run grep -c 'libcurl' "$T/ld"
		assert_output 0
		# a miss loads it when its request needs it, as one through a
		# proxy does (and then finds no server)
		envelope "another question"
		FAKE_API_KEY=$KEY http_proxy=http://127.0.0.1:9 no_proxy= NO_PROXY= LD_DEBUG=libs \
			mc-send --cache --retries 0 < "$T/env.json" > /dev/null 2> "$T/ld" || true
		grep -q 'libcurl' "$T/ld"
	fi
	# without the key, a miss still says what is missing
	envelope "another question"
	send --cache
	assert_failure 1
	assert_equal "$stderr" "mc-send: FAKE_API_KEY is not set: the provider fake needs it (export FAKE_API_KEY=...)"
}

@test "a cut, failed, refused, length or filtered answer is not kept" {
	for e in \
	    '{"answer":{"api":"chat","text":"one two three four five six"},"cut_after":120,"times":2}' \
	    '{"status":500,"json":{"error":{"message":"boom"}},"times":2}' \
	    '{"events":[{"choices":[{"index":0,"delta":{"content":"par"}}]},{"error":{"message":"The server refused","code":"refused"}}],"times":2}' \
	    '{"answer":{"api":"chat","text":"cut short","finish_reason":"length"},"times":2}' \
	    '{"answer":{"api":"chat","text":"no","finish_reason":"content_filter"},"times":2}'; do
		fake_start "[$e]"
		use_fake
		envelope "hello"
		send --cache --retries 0
		first=$status
		[ "$first" -ne 2 ]
		send --cache --retries 0
		assert_equal "$status" "$first"
		assert_equal "$(fake_count)" 2
		assert_equal "$(entries)" 0
		fake_stop
	done
}

@test "--refresh sends again and keeps the new answer, with --cache too; a failed refresh keeps the old one" {
	fake_start "$(texts first second | jq -c '. + [{"status":500,"json":{"error":{"message":"down"}}}]')"
	use_fake
	envelope "hello"
	send --cache
	assert_output first
	send --cache
	assert_output first
	assert_equal "$(fake_count)" 1
	send --cache --refresh		# the stronger wins, in either order
	assert_success
	assert_output second
	assert_equal "$(fake_count)" 2
	send --cache
	assert_output second
	assert_equal "$(fake_count)" 2
	send --refresh --cache --retries 0
	assert_failure 1
	assert_equal "$(fake_count)" 3
	send --cache
	assert_success
	assert_output second
	assert_equal "$(entries)" 1
}

@test "entries are 0600 in a 0700 directory, made with the home, and hold no key, header or request" {
	fake_start "[$(answer chat 2)]"
	use_fake
	envelope "hello"
	export MC_HOME=$T/newhome
	umask 022
	send --cache
	assert_success
	assert_equal "$(stat -c %a "$MC_HOME")" 700
	assert_equal "$(stat -c %a "$MC_HOME/cache")" 700
	assert_equal "$(stat -c %a "$(entry)")" 600
	assert_equal "$(entries)" 1
	run grep -rF -e "$KEY" -e "${KEY:10}" "$MC_HOME/cache"
	assert_failure 1
	run grep -riF -e authorization -e bearer -e 'careful test' -e fake-model "$MC_HOME/cache"
	assert_failure 1
	# the entry is the answer's events, as --events writes them
	send --events
	assert_equal "$(cat "$(entry)")" "$output"
}

@test "a different envelope misses: model, prompt, system prompt, items, tools, output limit" {
	fake_start "[$(answer chat 20)]"
	use_fake
	printf '%s\n' '{"type":"message","role":"user","content":"earlier"}' > "$T/items.jsonl"
	printf '%s\n' '[{"name":"read","description":"Read a file","parameters":{"type":"object"}}]' > "$T/tools.json"
	variants=('hello' '-m other hello' 'hello!' '--items ITEMS hello' '--tools TOOLS hello'
		'--max-output-tokens 50 hello' '--max-output-tokens 51 hello')
	n=0
	for v in "${variants[@]}"; do
		v=${v/ITEMS/$T/items.jsonl}
		v=${v/TOOLS/$T/tools.json}
		# shellcheck disable=SC2086
		envelope $v
		send --cache
		assert_success
		n=$((n + 1))
		assert_equal "$(fake_count)" $n
	done
	printf 'You are a careful test!' > "$T/sys"
	envelope hello
	send --cache
	n=$((n + 1))
	assert_equal "$(fake_count)" $n
	assert_equal "$(entries)" $n
	# and each is kept apart: all of them again ask nothing more
	printf 'You are a careful test.' > "$T/sys"
	for v in "${variants[@]}"; do
		v=${v/ITEMS/$T/items.jsonl}
		v=${v/TOOLS/$T/tools.json}
		# shellcheck disable=SC2086
		envelope $v
		send --cache
		assert_success
	done
	# streamed or not, the answer is the same one
	envelope --no-stream hello
	send --cache
	assert_success
	assert_equal "$(fake_count)" $n
}

@test "cache.max_bytes: the oldest entries go, a hit counts as new, an answer over the bound is not kept" {
	fake_start "$(texts 'answer 1' 'answer 2' 'answer 3' 'answer 4' 'answer 5' 'answer 6' 'answer 7' 'answer 8')"
	use_fake
	# six entries of one size, the first the oldest (not $i: bats's run
	# with --separate-stderr sets it)
	for q in 1 2 3 4 5 6; do
		envelope "question $q"
		send --cache
		ent[q]=$(entry)
		touch -d "-$((7 - q)) hours" "${ent[q]}"
	done
	size=$(stat -c %s "${ent[1]}")
	for q in 2 3 4 5 6; do
		assert_equal "$(stat -c %s "${ent[q]}")" "$size"
	done
	# a leftover of a writer that died, and a file that is not the cache's
	leftover="${ent[1]}.Ab12Cd"
	printf 'half' > "$leftover"
	touch -d '-3 hours' "$leftover"
	printf 'mine' > "$MC_HOME/cache/NOTES"
	# room for four and a half: the seventh answer pushes out the three
	# oldest, and the first, just used, is not one of them
	use_fake chat "\"cache\":{\"max_bytes\":$((size * 9 / 2))}"
	envelope "question 1"
	send --cache
	assert_output 'answer 1'
	envelope "question 7"
	send --cache
	assert_success
	assert_equal "$stderr" ""
	ent[7]=$(entry)
	for q in 1 5 6 7; do
		[ -f "${ent[q]}" ]
	done
	for q in 2 3 4; do
		[ ! -e "${ent[q]}" ]
	done
	[ ! -e "$leftover" ]
	[ -f "$MC_HOME/cache/NOTES" ]
	assert_equal "$(fake_count)" 7
	use_fake chat '"cache":{"max_bytes":10}'
	envelope "question 8"
	send --cache
	assert_success
	assert_output 'answer 8'
	assert_equal "$stderr" "mc-send: warning: cache: the answer's $size bytes are over cache.max_bytes (10); it is not kept"
	[ ! -e "$(entry)" ]
	assert_equal "$(entries)" 5
}

@test "the index .size: the entries' total, rebuilt when missing or not whole, right after puts at once" {
	fake_start "$(texts a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 'a longer answer in place of a5')"
	use_fake
	ix=$MC_HOME/cache/.size
	total() {
		find "$MC_HOME/cache" -type f ! -name .size -printf '%s\n' | awk '{ s += $1 } END { printf "%020d\n", s }'
	}
	envelope q1
	send --cache
	assert_success
	assert_equal "$(cat "$ix")" "$(total)"
	assert_equal "$(stat -c %a "$ix")" 600
	# missing, not in its form, or past the bound: the directory is read
	rm "$ix"
	envelope q2
	send --cache
	assert_equal "$(cat "$ix")" "$(total)"
	printf 'junk\n' > "$ix"
	envelope q3
	send --cache
	assert_equal "$(cat "$ix")" "$(total)"
	printf '%020d\n' 99999999999 > "$ix"
	envelope q4
	send --cache
	assert_equal "$(cat "$ix")" "$(total)"
	assert_equal "$(entries)" 4
	# six writers at once: each waits for the lock, no size is lost
	for q in 5 6 7 8 9 10; do
		mc-request -p fake -m fake-model "q$q" < "$T/sys" > "$T/env$q.json"
	done
	pids=()
	for q in 5 6 7 8 9 10; do
		mc-send --cache < "$T/env$q.json" > /dev/null &
		pids+=($!)
	done
	wait "${pids[@]}"
	assert_equal "$(entries)" 10
	assert_equal "$(cat "$ix")" "$(total)"
	assert_equal "$(fake_count)" 10
	# an entry replaced counts once, at its new size
	run --separate-stderr mc-send --refresh < "$T/env5.json"
	assert_success
	assert_equal "$(entries)" 10
	assert_equal "$(cat "$ix")" "$(total)"
}

@test "MC_CACHE=1 and cache.enabled turn it on; MC_CACHE=0 turns the setting off; a bad MC_CACHE is exit 1" {
	fake_start "[$(answer chat 20)]"
	use_fake
	envelope "hello"
	send
	send
	assert_equal "$(fake_count)" 2
	assert_equal "$(entries)" 0
	MC_CACHE=1 send
	MC_CACHE=1 send
	assert_success
	assert_equal "$(fake_count)" 3
	use_fake chat '"cache":{"enabled":true}'
	envelope "hello again"
	send
	send
	assert_equal "$(fake_count)" 4
	envelope "hello once more"
	MC_CACHE=0 send
	MC_CACHE=0 send
	assert_equal "$(fake_count)" 6
	MC_CACHE= send
	assert_equal "$(fake_count)" 7
	send
	assert_equal "$(fake_count)" 7
	MC_CACHE=yes send
	assert_failure 1
	assert_output ""
	assert_equal "$stderr" "mc-send: MC_CACHE: yes is not 0 or 1"
	assert_equal "$(fake_count)" 7
}

@test "a cache_key that is not 64 lowercase hex digits: said once, nothing cached" {
	fake_start "[$(answer chat 6)]"
	fake_envelope chat > "$T/env.json"
	send --cache
	assert_success
	assert_equal "$stderr" "mc-send: warning: envelope: cache_key: not 64 lowercase hex digits: the answer is not cached"
	send --cache
	assert_equal "$(fake_count)" 2
	jq -c '.cache_key = ("AB" * 32)' "$T/env.json" > "$T/upper.json"
	run --separate-stderr mc-send --serve --cache < <(cat "$T/upper.json" "$T/upper.json")
	assert_success
	assert_equal "$stderr" "mc-send: warning: envelope: cache_key: not 64 lowercase hex digits: the answer is not cached"
	assert_equal "$(fake_count)" 4
	assert_equal "$(entries)" 0
	# without --cache, no word about it
	send
	assert_equal "$stderr" ""
}

@test "a kept answer that is not a whole one is said, asked again and replaced" {
	fake_start "$(texts first second third)"
	use_fake
	envelope "hello"
	send --cache
	e=$(entry)
	head -n 1 "$e" > "$T/cut"
	cp "$T/cut" "$e"
	send --cache
	assert_success
	assert_output second
	assert_equal "$stderr" "mc-send: warning: cache: $e: no done event; asking fake again"
	send --cache
	assert_output second
	assert_equal "$stderr" ""
	printf '{"type":"text","delta":"x"}\nnot json\n' > "$e"
	send --cache
	assert_output third
	assert_regex "$stderr" "^mc-send: warning: cache: $e: line 2: .*; asking fake again\$"
	assert_equal "$(fake_count)" 3
}

@test "a cache that cannot be used is a warning: the answer is out, the status unchanged" {
	fake_start "$(texts first second third fourth)"
	use_fake
	envelope "hello"
	# the directory is a file
	printf 'not a directory' > "$MC_HOME/cache"
	send --cache
	assert_success
	assert_output first
	assert_equal "$stderr" "mc-send: warning: cache: $MC_HOME/cache: Not a directory; asking fake
mc-send: warning: cache: $MC_HOME/cache: Not a directory; the answer is not kept"
	rm "$MC_HOME/cache"
	# an entry that is a symbolic link is not followed, and is replaced
	send --cache
	e=$(entry)
	mv "$e" "$T/elsewhere"
	ln -s "$T/elsewhere" "$e"
	send --cache
	assert_success
	assert_output third
	assert_regex "$stderr" "^mc-send: warning: cache: $e: symbolic link refused.*; asking fake\$"
	[ -f "$e" ] && [ ! -L "$e" ]
	# no home at all: said once, and sent
	HOME= MC_HOME= run --separate-stderr mc-send --cache < "$T/env.json"
	assert_success
	assert_output fourth
	assert_equal "$stderr" "mc-send: warning: neither MC_HOME nor HOME is set: answers are not cached"
	assert_equal "$(fake_count)" 4
}

# --- the driver ---

# use_fake_mc: settings for the driver: provider fake, no key
use_fake_mc() {
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}}}"
}

@test "a Makefile rule with mc --cache run twice makes one request" {
	fake_start "$(texts 'A summary of a.c.' 'A summary of the new a.c.')"
	use_fake_mc
	printf '%%.summary: %%.c\n\tmc --cache --no-session '"'"'Summarize this file'"'"' < $< > $@\n' > Makefile
	printf 'int main(void) { return 0; }\n' > a.c
	run --separate-stderr make -s -f Makefile a.summary
	assert_success
	assert_equal "$(cat a.summary)" 'A summary of a.c.'
	rm a.summary
	run --separate-stderr make -s -f Makefile a.summary
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(cat a.summary)" 'A summary of a.c.'
	assert_equal "$(fake_count)" 1
	# make reruns the rule for a newer a.c; the same content asks nothing
	touch -d '+1 minute' a.c
	run --separate-stderr make -s -f Makefile a.summary
	assert_success
	assert_equal "$(fake_count)" 1
	printf 'int main(void) { return 1; }\n' > a.c
	run --separate-stderr make -s -f Makefile a.summary
	assert_success
	assert_equal "$(cat a.summary)" 'A summary of the new a.c.'
	assert_equal "$(fake_count)" 2
}

@test "mc --cache: each step of a tool loop is kept by its own envelope; --refresh asks again, with --cache too; MC_CACHE=1 reaches mc-send" {
	printf 'int a;\n' > a.c
	fake_start "[$(jq -nc '{answer:{api:"chat",calls:[{call_id:"c1",name:"read",arguments:"{\"path\":\"a.c\"}"}]}}'),
		$(jq -nc '{answer:{api:"chat",text:"a.c declares a."}}'),
		$(jq -nc '{answer:{api:"chat",text:"fresh"}}'),
		$(jq -nc '{answer:{api:"chat",text:"from MC_CACHE"}}')]"
	use_fake_mc
	run --separate-stderr mc --cache --no-session 'what is in a.c?'
	assert_success
	assert_output --partial 'a.c declares a.'
	first=$output
	assert_equal "$(fake_count)" 2
	run --separate-stderr mc --cache --no-session 'what is in a.c?'
	assert_success
	assert_equal "$output" "$first"
	assert_equal "$(fake_count)" 2
	run --separate-stderr mc --cache --refresh --no-session 'what is in a.c?'	# --refresh wins
	assert_success
	assert_output fresh
	assert_equal "$(fake_count)" 3
	MC_CACHE=1 run --separate-stderr mc --no-session 'bye'
	assert_output 'from MC_CACHE'
	MC_CACHE=1 run --separate-stderr mc --no-session 'bye'
	assert_output 'from MC_CACHE'
	assert_equal "$(fake_count)" 4
}

@test "mc --cache and --refresh are for one-shot runs" {
	run --separate-stderr mc --cache --dry-run hello
	assert_failure 2
	assert_regex "$stderr" '^mc: --cache is for one-shot runs \(mc --cache PROMPT\)'
	run --separate-stderr mc --refresh prompt
	assert_failure 2
	assert_regex "$stderr" '^mc: --refresh is for one-shot runs'
	run --separate-stderr mc --cache sessions
	assert_failure 2
}
