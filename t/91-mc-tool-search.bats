#!/usr/bin/env bats
# Tool search (SPEC §26): past tools.defer_after tool definitions the MCP
# tools are not sent; a tool_search tool finds them by the words of their
# names and descriptions and loads them, offered from the next step on.

load helper
load fake
load mc

# search_settings DEFER_AFTER ARGS...: the fake provider, one MCP server
# "srv" (t/fake-mcp.py ARGS), tools.defer_after when not empty
search_settings() {
	local defer=$1
	shift
	jq -nc --arg url "$FAKE_URL" --arg mcp "$MC_TOP/t/fake-mcp.py" --arg defer "$defer" \
		--argjson args "$(for a in "$@"; do printf '%s\n' "$a"; done | jq -Rcs 'split("\n")[:-1]')" \
		'{provider: "fake", model: "fake-model",
		  providers: {fake: {base_url: $url, api: "chat", api_key_env: null}},
		  mcp_servers: {srv: {command: "python3", args: ([$mcp] + $args), approve: false,
		    timeout_s: 30}}}
		 + (if $defer == "" then {} else {tools: {defer_after: ($defer | tonumber)}} end)' \
		> "$MC_HOME/settings.json"
}

names() {
	fake_request "$1" '[.body.tools[].function.name] | join(",")'
}

body_size() {
	fake_request "$1" .body | jq -c . | wc -c
}

@test "200 MCP tools: the request carries none of them but tool_search, and is small" {
	fake_start "[$(text done), $(text done)]"
	search_settings '' --many 200
	run --separate-stderr mc 'hi' </dev/null
	assert_success
	n=$(names 1)
	[[ ,$n, == *,tool_search,* && ,$n, == *,read,* ]]
	[[ $n != *srv__* ]]
	deferred=$(body_size 1)
	# the same session with every tool sent
	search_settings 100000 --many 200
	run --separate-stderr mc 'hi' </dev/null
	assert_success
	[ "$(fake_request 2 '[.body.tools[].function.name | select(startswith("srv__"))] | length')" -gt 200 ]
	[[ $(names 2) != *tool_search* ]]
	whole=$(body_size 2)
	echo "deferred $deferred bytes, whole $whole bytes" >&3
	[ $((deferred * 4)) -lt "$whole" ]
}

@test "tool_search loads the best matches, offered from the next step; then one is called" {
	fake_start "[$(calls "$(call c1 tool_search '{"query":"T7","limit":3}')"),
	  $(calls "$(call c2 srv__t7 '{"text":"hello from t7"}')"), $(text done)]"
	search_settings '' --many 200
	run --separate-stderr mc 'use t7' </dev/null
	assert_success
	assert_output done
	assert_equal "$stderr" ""
	assert_equal "$(tool_content 2 c1)" "$(printf '%s\n' 'Loaded 3 tools, callable from your next step:' \
		'- srv__t7: Echo (extra).' '- srv__t70: Echo (extra).' '- srv__t71: Echo (extra).' \
		'(8 more match; search again with more words)' | head -c -1)"
	# the next requests offer them, and only them
	assert_equal "$(fake_request 2 '[.body.tools[].function.name | select(startswith("srv__"))] | join(",")')" \
		srv__t7,srv__t70,srv__t71
	[[ ,$(names 1), != *,srv__t7,* ]]
	assert_equal "$(tool_content 3 c2)" "hello from t7"
	assert_equal "$(fake_request 3 '[.body.tools[].function.name | select(startswith("srv__"))] | join(",")')" \
		srv__t7,srv__t70,srv__t71
}

@test "a search that matches nothing says so and loads nothing; a bad call is told how" {
	fake_start "[$(calls "$(call c1 tool_search '{"query":"zebra"}')" "$(call c2 tool_search '{"q":1}')"), $(text done)]"
	search_settings '' --many 200
	run --separate-stderr mc 'look' </dev/null
	assert_success
	assert_equal "$(tool_content 2 c1)" 'No tool not loaded yet matches "zebra"; try other words.'
	assert_equal "$(tool_content 2 c2)" 'error: tool_search takes {"query": "words"}.'
	[[ $(names 2) != *srv__* ]]
}

@test "tools.defer_after: at or under it every tool is sent and there is no tool_search" {
	fake_start "[$(text done), $(calls "$(call c1 tool_search '{"query":"count"}')"), $(text done)]"
	search_settings ''
	run --separate-stderr mc 'hi' </dev/null
	assert_success
	[[ $(names 1) == *srv__count* && $(names 1) != *tool_search* ]]
	# a small threshold defers them; a search by a description's word finds them
	search_settings 3
	run --separate-stderr mc 'hi' </dev/null
	assert_success
	[[ $(names 2) != *srv__* && $(names 2) == *tool_search* ]]
	[[ $(tool_content 3 c1) == $'Loaded 1 tool, callable from your next step:\n- srv__count: Count the calls made so far.' ]]
	[[ $(names 3) == *srv__count* ]]
}

@test "/new starts a session with no tool loaded" {
	fake_start "[$(calls "$(call c1 tool_search '{"query":"t7","limit":1}')"), $(text one), $(text two)]"
	search_settings '' --many 200
	on_tty "mc"
	wait_prompt 1
	keys 'first' Enter
	wait_for one
	wait_prompt 2
	keys '/new' Enter
	wait_for 'new session'
	keys 'second' Enter
	wait_for two
	keys '/exit' Enter
	assert_equal "$(wait_status)" 0
	[[ $(names 2) == *srv__t7* ]]
	[[ $(names 3) != *srv__* ]]
}

@test "mc prompt --stats counts the schemas a request would carry: the deferred ones not" {
	search_settings '' --many 200
	run --separate-stderr mc prompt --stats </dev/null
	assert_success
	n=$(mc --dry-run -p ollama -m m hi </dev/null | jq '.body.tools | length')
	grep -Eq "^schemas +mc-tool +[0-9]+ +[0-9]+ +sent beside the prompt: $n tool schemas\$" <<<"$output"
	! grep -q '^schemas +mcp' <<<"$output"
}

srv_names() {
	fake_request "$1" '[.body.tools[].function.name | select(startswith("srv__"))] | join(",")'
}

@test "a resumed session offers the tools it had loaded from its first request; one called by name is loaded and kept too" {
	fake_start "[$(calls "$(call c1 tool_search '{"query":"t7","limit":1}')"), $(text one),
	  $(calls "$(call c2 srv__t70 '{"text":"again"}')"), $(text two), $(text three)]"
	search_settings '' --many 200
	run --separate-stderr mc 'first' </dev/null
	assert_success
	# the load is a bookkeeping line after the search's output
	f=$(session_files)
	assert_equal "$(jq -c 'select(.type == "tools_loaded")' "$f")" '{"type":"tools_loaded","names":["srv__t7"]}'
	assert_equal "$(jq -r 'select(.type == "function_call_output" or .type == "tools_loaded") | .type' "$f" | tr '\n' ,)" \
		function_call_output,tools_loaded,
	run --separate-stderr mc -c 'second' </dev/null
	assert_success
	assert_output two
	assert_equal "$stderr" ""
	assert_equal "$(srv_names 3)" srv__t7
	# a deferred tool the model calls by name runs, is loaded, and is kept
	assert_equal "$(tool_content 4 c2)" again
	assert_equal "$(srv_names 4)" srv__t7,srv__t70
	assert_equal "$(jq -c 'select(.type == "tools_loaded") | .names' "$f" | tr '\n' ' ')" '["srv__t7"] ["srv__t70"] '
	run --separate-stderr mc -c 'third' </dev/null
	assert_success
	assert_equal "$(srv_names 5)" srv__t7,srv__t70
	# what the session sends never holds the line
	[[ $(fake_request 5 .body.messages) != *tools_loaded* ]]
}

@test "a compacted session keeps the tools loaded in its header; resumed, it offers them" {
	big=$(head -c 5000 /dev/zero | tr '\0' x)
	fake_start "[$(calls "$(call c1 tool_search '{"query":"t7","limit":1}')"), $(text "one $big"),
	  $(text "two $big"), $(text 'the summary'), $(text after)]"
	search_settings '' --many 200
	run --separate-stderr mc "use t7 $big" </dev/null
	assert_success
	run --separate-stderr mc -c "more $big" </dev/null
	assert_success
	compact_on_tty
	new=$(grep -l '"compacted_from"' $(session_files))
	assert_equal "$(head -1 "$new" | jq -c .tools_loaded)" '["srv__t7"]'
	run --separate-stderr mc -c 'go on' </dev/null
	assert_success
	assert_output after
	assert_equal "$(srv_names 5)" srv__t7
}

@test "tool_search is not refused by the model's tools.include, and plan mode offers it" {
	fake_start "[$(calls "$(call c1 tool_search '{"query":"T7","limit":1}')"), $(text done),
	  $(text plan)]"
	# past defer_after once the model's own filter has been applied
	search_settings 2 --many 200
	jq '.models = {"fake-model": {tools: {include: ["read", "srv__t7", "srv__t70", "srv__t71"]}}}' "$MC_HOME/settings.json" \
		> "$BATS_TEST_TMPDIR/s" && mv "$BATS_TEST_TMPDIR/s" "$MC_HOME/settings.json"
	run --separate-stderr mc 'use t7' </dev/null
	assert_success
	[[ ,$(names 1), == *,tool_search,* && ,$(names 1), != *,srv__t7,* ]]
	[[ $(tool_content 2 c1) == 'Loaded 1 tool'* ]]
	[[ ,$(names 2), == *,srv__t7,* ]]
	run --separate-stderr mc --mode plan 'plan it' </dev/null
	assert_success
	[[ ,$(names 3), == *,tool_search,* ]]
}
