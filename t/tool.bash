# t/tool.bash: calling mc-tool from the tests. Load with `load tool` after `load helper`.

# call NAME ARGS [OPTION...]: run one function_call with ARGS (a JSON text)
# through `mc-tool call OPTION...`; the output text is then in $out.
call() {
	local name=$1 args=$2
	shift 2
	jq -cn --arg n "$name" --arg a "$args" \
		'{type:"function_call",call_id:"c1",name:$n,arguments:$a}' >"$BATS_TEST_TMPDIR/item"
	run --separate-stderr mc-tool call "$@" <"$BATS_TEST_TMPDIR/item"
	out=$(printf '%s' "$output" | jq -j .output)
}

# bashitem COMMAND TIMEOUT: a bash function_call item in ./item.
bashitem() {
	jq -cn --arg c "$1" --argjson t "$2" \
		'{type:"function_call",call_id:"c1",name:"bash",arguments:({command:$c,timeout_s:$t} | tojson)}' >item
}

# A path outside the working directory for escape attempts.
outside() {
	mkdir -p "$BATS_TEST_TMPDIR/outside"
	printf '%s' "$BATS_TEST_TMPDIR/outside"
}
