# t/fake.bash: run the scripted fake provider (t/fake-provider.py) from bats. Load with `load fake` after `load helper`.
#
#   fake_start SCRIPT [OPTION...]
#                       SCRIPT is the JSON script itself (text starting with
#                       '[') or a file holding it; see the header of
#                       t/fake-provider.py for its format and OPTIONs (--tls
#                       CERT KEY, --connect-delay S). Starts the fake on
#                       127.0.0.1 and sets:
#                         FAKE_URL  http://127.0.0.1:PORT/v1 (https with --tls)
#                         FAKE_LOG  directory with each received request as N.json
#                         FAKE_PID  the server's process id
#                       Fails (with the server's stderr) when it does not come
#                       up within 10 seconds.
#   fake_stop           stops it; the teardown below calls it.
#   fake_envelope API [BODYJSON]
#                       prints a request envelope (SPEC §4) for the fake:
#                       API chat → $FAKE_URL/chat/completions, responses →
#                       $FAKE_URL/responses, messages → $FAKE_URL/messages; provider $FAKE_PROVIDER (default
#                       "fake"); api_key_env $FAKE_KEY_ENV (default
#                       FAKE_API_KEY; set it empty for null); body BODYJSON
#                       (default: a minimal streaming body for API).
#   fake_request N [JQ] prints request N's log (or runs jq JQ on it).
#   fake_count          prints how many requests the fake received.
#   FAKE_FIXTURES       the repository's copies of the shared API fixtures.
#   FAKE_IDLE_EXIT      seconds after which an idle fake exits by itself (60).
#
# This file defines teardown(); a test file that needs its own should
# define teardown_local instead, which is called first.

# shellcheck disable=SC2034 # used by the tests that load this file
FAKE_FIXTURES="${MC_TOP:-$BATS_TEST_DIRNAME/..}/t/fixtures/api"

fake_start() {
	local script=$1 dir i scheme=http
	shift
	[[ " $* " == *" --tls "* ]] && scheme=https
	dir=$(mktemp -d "$BATS_TEST_TMPDIR/fake.XXXXXX")
	if [ "${script:0:1}" = "[" ]; then
		printf '%s\n' "$script" > "$dir/script.json"
	else
		cp "$script" "$dir/script.json"
	fi
	FAKE_LOG="$dir/log"
	mkdir -p "$FAKE_LOG"
	# Tests never go through a proxy.
	unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
	export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
	python3 "$BATS_TEST_DIRNAME/fake-provider.py" --script "$dir/script.json" \
		--port-file "$dir/port" --log "$FAKE_LOG" --idle-exit "${FAKE_IDLE_EXIT:-60}" "$@" \
		</dev/null >"$dir/stdout" 2>"$dir/stderr" 3>&- &
	FAKE_PID=$!
	for ((i = 0; i < 200; i++)); do
		[ -s "$dir/port" ] && break
		if ! kill -0 "$FAKE_PID" 2>/dev/null; then
			break
		fi
		sleep 0.05
	done
	if [ ! -s "$dir/port" ]; then
		echo "fake_start: the fake provider did not start:" >&2
		cat "$dir/stderr" >&2
		fake_stop
		return 1
	fi
	FAKE_URL="$scheme://127.0.0.1:$(cat "$dir/port")/v1"
	export FAKE_URL FAKE_LOG FAKE_PID
}

fake_stop() {
	if [ -n "${FAKE_PID:-}" ]; then
		kill "$FAKE_PID" 2>/dev/null || true
		wait "$FAKE_PID" 2>/dev/null || true
		FAKE_PID=
	fi
}

fake_envelope() {
	local api=$1 body=${2:-} path key
	case $api in
	chat)
		path=/chat/completions
		[ -n "$body" ] ||
			body='{"model":"fake-model","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}'
		;;
	responses)
		path=/responses
		[ -n "$body" ] ||
			body='{"model":"fake-model","input":[{"role":"user","content":"hi"}],"store":false,"stream":true}'
		;;
	messages)
		path=/messages
		[ -n "$body" ] ||
			body='{"model":"fake-model","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"max_tokens":1024,"stream":true}'
		;;
	*)
		echo "fake_envelope: API is chat, responses or messages" >&2
		return 1
		;;
	esac
	key=${FAKE_KEY_ENV-FAKE_API_KEY}
	jq -nc --arg provider "${FAKE_PROVIDER:-fake}" --arg api "$api" \
		--arg url "$FAKE_URL$path" --arg key "$key" --argjson body "$body" \
		'{version: 1, provider: $provider, api: $api, url: $url,
		  api_key_env: (if $key == "" then null else $key end),
		  cache_key: "0123456789abcdef", body: $body}'
}

fake_request() {
	if [ $# -ge 2 ]; then
		jq -r "$2" "$FAKE_LOG/$1.json"
	else
		cat "$FAKE_LOG/$1.json"
	fi
}

fake_count() {
	local n=0 f
	for f in "$FAKE_LOG"/*.json; do
		[ -e "$f" ] && n=$((n + 1))
	done
	echo "$n"
}

teardown() {
	if declare -F teardown_local >/dev/null; then teardown_local; fi
	fake_stop
}

# cache_replays ENVELOPE: mc-send --cache --events asked twice; the second
# is answered from the cache (one request to the fake), byte for byte as
# the first but for "cached":true on usage and done. Leaves $output as the
# replay's.
cache_replays() {
	local live
	run --separate-stderr mc-send --cache --events < "$1"
	assert_success
	live=$output
	run --separate-stderr mc-send --cache --events < "$1"
	assert_success
	assert_equal "$(fake_count)" 1
	# the live events, with "cached":true on usage and done (a hit is no paid call)
	assert_equal "$output" "$(jq -c 'if .type == "usage" or .type == "done" then .cached = true else . end' <<<"$live")"
}
