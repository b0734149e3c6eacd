#!/usr/bin/env bats
# The README's recipes, run as written (issue 37): every code block after
# a line <!-- readme-test: KIND --> is taken from README.md itself, so
# that the recipes and this test cannot drift apart. KIND is
#   chat        each line of the ```sh block runs, in order, in a copy of
#               the repository; those marked "# needs a model" against
#               the fake provider, speaking Chat Completions
#   responses   the same, the fake speaking the Responses API
#   file NAME   the block is written to NAME in the copy, for the blocks
#               after it
# and `make demo` shows each step as the command it runs.

load helper
load fake
load mc

README="${MC_TOP:-$BATS_TEST_DIRNAME/..}/README.md"
ANSWER="The fake answer has several words in it."

# blocks: each marked block as N KIND ARG LINE (separated by \037), one line of the
# block a line (a line ending in \ joined to the next).
blocks() {
	awk '
		/^<!-- readme-test: .* -->$/ { kind = $3; arg = $4 == "-->" ? "" : $4; next }
		kind != "" && /^```/ && !f { f = 1; n++; next }
		f && /^```/ { f = 0; kind = ""; next }
		f && /\\$/ { sub(/\\$/, ""); part = part $0; next }
		f { print n "\037" kind "\037" arg "\037" part $0; part = "" }' "$README"
}

# The copy of the repository the recipes run in, with bin/ on PATH.
setup_file_local() {
	TOP="$BATS_TEST_TMPDIR/top"
	mkdir -p "$TOP"
	tar -C "$MC_TOP" --exclude=./build --exclude=./bin --exclude=./.git -cf - . |
		tar -C "$TOP" -xf -
}

# run_recipes KIND: the lines of the blocks of KIND (and the files before
# them), against a fake that answers $ANSWER in that API's stream; RAN
# counts them.
run_recipes() {
	local want=$1 n kind arg line pre="" before
	RAN=0
	fake_start "[{\"answer\":{\"api\":\"$want\",\"text\":\"$ANSWER\"},\"times\":100}]"
	use_fake
	export MC_BASE_URL=$FAKE_URL
	# Nothing but the fake may be reached.
	export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9
	while IFS=$'\037' read -r n kind arg line; do
		if [ "$kind" = file ]; then
			printf '%s\n' "$line" >> "$TOP/$arg"
			continue
		fi
		[ "$kind" = "$want" ] || continue
		[[ -z ${line// /} || $line == \#* ]] && continue
		if [[ $line == export\ * ]]; then
			pre+="$line"$'\n'
			continue
		fi
		# A server of one's own (llama-server, ollama) is the fake here.
		[[ $line =~ ^(llama-server|ollama)\  ]] && continue
		before=$(fake_count)
		run --separate-stderr bash -o pipefail -c "cd '$TOP' && $pre$line" </dev/null
		[ "$status" -eq 0 ] || fail "exit $status: $line: $stderr"
		if [[ $line == *"asks nothing again"* ]]; then
			[ "$(fake_count)" -eq "$before" ] || fail "asked the model again: $line"
		elif [[ $line == *"# needs a model"* && $line != make\ * ]]; then
			[ "$(fake_count)" -gt "$before" ] || fail "the fake was not asked: $line"
			# the answer as the fake streamed it, word by word, whole
			grep -qxF -- "$ANSWER" <<<"$output" ||
				fail "the answer is not one line of the output: $line"$'\n'"$output"
		else
			[ -n "$output" ] || fail "no output: $line"
		fi
		RAN=$((RAN + 1))
	done < <(blocks)
}

@test "README: the recipes of Chat Completions providers run as written" {
	run_recipes chat
	[ "$RAN" -ge 15 ] || fail "only $RAN recipes ran"
	# the Makefile recipe wrote a summary per C file of cmd/
	for f in "$TOP"/cmd/*.c; do
		grep -qxF -- "$ANSWER" "${f%.c}.summary" || fail "no summary of $f"
	done
}

@test "README: the OpenAI recipe runs as written, against a Responses fake" {
	run_recipes responses
	[ "$RAN" -ge 1 ] || fail "no recipe ran"
	assert_equal "$(fake_request 1 '.path')" /v1/responses
}

@test "README: the MCP example lets npx install its server (-y)" {
	local args
	args=$(awk '/"mcp_servers"/ { f = 1 } f { print } f && /^```/ { exit }' "$README" |
		sed '/^```/d' | jq -c '.mcp_servers[] | select(.command == "npx") | .args')
	[ -n "$args" ] || fail "no npx example in the README"
	assert_equal "$(jq -r '.[0]' <<<"$args")" -y
}

@test "README: how long make check takes, and what ~/.magi-code holds" {
	grep -A2 '^`make check` runs' "$README" | grep -q 'minutes' || fail "no word on how long make check takes"
	grep -q '^### Where `mc` keeps things: `~/.magi-code`' "$README" || fail "no section on the home"
	local f
	for f in settings.json sessions/ history cache/; do
		grep -q "^- \`$f" "$README" || fail "the home's $f is not explained"
	done
}

@test "make demo shows each step as the command it runs" {
	local out="$BATS_TEST_TMPDIR/demo" labels=0 cmd want got
	mkdir -p "$TOP/bin"
	cp "$MC_BIN"/* "$TOP/bin/"
	run --separate-stderr sh "$TOP/scripts/demo"
	[ "$status" -eq 0 ] || fail "demo: $stderr"
	# Each label, run by hand, prints what the demo printed under it.
	sh "$TOP/scripts/demo" > "$out" 2>&1
	while IFS= read -r cmd; do
		labels=$((labels + 1))
		want=$(awk -v l="\$ $cmd" 'f && /^\$ / { exit } f { print } $0 == l { f = 1 }' "$out" |
			grep -v '^(no provider configured' | sed '/^$/d')
		got=$(cd "$TOP" && PATH=$TOP/bin:$PATH bash -c "$cmd" 2>&1 | sed '/^$/d')
		assert_equal "$got" "$want"
	done < <(sed -n 's/^\$ //p' "$out")
	[ "$labels" -ge 4 ] || fail "only $labels steps shown"
}
