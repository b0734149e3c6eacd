# t/acp.bash: helpers for mc acp's tests (t/110-*.bats .. t/114-*.bats): the
# scripted ACP client (t/fake-acp-client.py) driving `mc acp`. Load with
# `load acp` after `load helper`, `load fake` and `load mc`.

# acp STEP...: the client's script, the steps given as JSON (the first
# two, initialize and session/new in $W, are added unless ACP_BARE is
# set); runs `mc acp` ($ACP_ARGS before acp) under it, its output (what
# mc wrote, one message a line) in $output, mc's stderr in $stderr.
acp() {
	local steps
	if [ -z "${ACP_BARE:-}" ]; then
		steps=$(jq -nc --arg w "$W" --argjson caps "${ACP_CAPS:-{\}}" '[
		  {send: {id: 1, method: "initialize", params: {protocolVersion: 1,
		    clientCapabilities: $caps}}}, {wait: 1},
		  {send: {id: 2, method: "session/new", params: {cwd: $w, mcpServers: []}}},
		  {wait: 2}]')
	else
		steps='[]'
	fi
	printf '%s\n' "$steps" "$@" | jq -s 'map(if type == "array" then . else [.] end) | add // []' \
		> "$BATS_TEST_TMPDIR/acp-script.json"
	# shellcheck disable=SC2086 # ACP_ARGS: words
	run --separate-stderr python3 "$BATS_TEST_DIRNAME/fake-acp-client.py" --timeout "${ACP_TIMEOUT:-20}" \
		"$BATS_TEST_TMPDIR/acp-script.json" mc ${ACP_ARGS:-} acp
}

# prompt ID TEXT: a session/prompt of TEXT in the session made
prompt() {
	jq -nc --argjson id "$1" --arg t "$2" \
		'[{send: {id: $id, method: "session/prompt", params: {sessionId: "$SESSION",
		  prompt: [{type: "text", text: $t}]}}}, {wait: $id}]'
}

# updates [KIND]: the session/update notifications (of that kind), one a line
updates() {
	printf '%s\n' "$output" | jq -c --arg k "${1:-}" 'select(.method == "session/update") |
	  .params.update | select($k == "" or .sessionUpdate == $k)'
}

# said: the agent's message chunks joined
said() {
	printf '%s\n' "$output" | jq -rj 'select(.method == "session/update") | .params.update |
	  select(.sessionUpdate == "agent_message_chunk") | .content.text'
}

# answer ID [JQ]: the response to request ID (or JQ of it; strings raw)
answer() {
	printf '%s\n' "$output" | jq -rc --argjson id "$1" "select(.id == \$id and .method == null) | ${2:-.}"
}

# requests METHOD: the requests mc sent the client, one a line
requests() {
	printf '%s\n' "$output" | jq -c --arg m "$1" 'select(.method == $m and .id != null)'
}

# every line of stdout is a JSON-RPC 2.0 message (or the client's own
# exit and left lines)
protocol_only() {
	printf '%s\n' "$output" | jq -e -s 'all(.[]; .jsonrpc == "2.0" or has("exit") or has("left"))' >/dev/null
}
