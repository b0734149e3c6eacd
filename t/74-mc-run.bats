#!/usr/bin/env bats
# mc's one turn path (SPEC §7, §8 second round) and what it leaves behind
# (SPEC §17): the dry run is the real run stopped before the network, one
# connection per session, refused instruction files, signals.

load helper
load fake
load mc

@test "the dry run's envelope is the body the provider receives for the same prompt" {
	printf 'Be kind.\n' > AGENTS.md
	fake_start "[$(text ok)]"
	use_fake
	run --separate-stderr mc --dry-run 'what is 2+2?' </dev/null
	assert_success
	printf '%s\n' "$output" | jq -S .body > dry
	run --separate-stderr mc 'what is 2+2?' </dev/null
	assert_success
	jq -S .body "$FAKE_LOG/1.json" > sent
	diff -u dry sent
}

@test "one connection carries every request of a session: a tool loop and the next turn" {
	printf 'x\n' > a.txt
	fake_start "[$(calls "$(call c1 read '{"path":"a.txt"}')"), $(calls "$(call c2 read '{"path":"a.txt"}')"),
	  $(text done), $(text again)]"
	use_fake
	run --separate-stderr mc 'read it twice' </dev/null
	assert_success
	assert_output done
	assert_equal "$(fake_count)" 3
	assert_equal "$(jq -r .conn "$FAKE_LOG"/[123].json | sort -u | wc -l)" 1
	# a new run is a new mc-send, a new connection
	run --separate-stderr mc -c 'and?' </dev/null
	assert_success
	assert_equal "$(fake_request 4 .conn)" 2
}

@test "an instruction file mc-discover refuses stops the run before anything is sent; --keep-going goes on" {
	fake_start "[$(text ok)]"
	use_fake
	head -c 300000 /dev/zero | tr '\0' a > AGENTS.md
	run --separate-stderr mc 'hi' </dev/null
	assert_failure 1
	[[ $stderr == mc-discover:*AGENTS.md*cap* ]]
	assert_equal "$(fake_count)" 0
	[ -z "$(session_files)" ]
	run --separate-stderr mc --keep-going 'hi' </dev/null
	assert_success
	assert_output ok
	[[ $stderr == mc-discover:*AGENTS.md*cap* ]]
	assert_equal "$(fake_count)" 1
}

# run_tool_then SIG: start a run whose bash call sleeps; once the sleep runs,
# send SIG to the driver; sets pid, procs (the driver's tree then), status.
run_tool_then() {
	local marker=$((100000 + RANDOM))
	fake_stop
	fake_start "[$(calls "$(call c1 bash "{\"command\":\"sleep $marker; echo finished > finished\"}")"), $(text never)]"
	use_fake
	mc --yes 'wait a while' </dev/null >out 2>err &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		pgrep -f "^sleep $marker\$" >/dev/null && break
		sleep 0.05
	done
	procs=$(tree "$pid")
	[ "$(printf '%s\n' "$procs" | wc -l)" -ge 5 ]	# mc, mc-send, mc-tool, sh, sleep
	kill -"$1" "$pid"
	status=0
	wait "$pid" || status=$?
	for ((i = 0; i < 100; i++)); do
		[ -z "$(alive $procs)" ] && break
		sleep 0.05
	done
}

@test "SIGTERM and SIGHUP end a run during a tool call: nothing left running, the session valid" {
	local sig
	for sig in TERM HUP; do
		rm -rf "$MC_HOME/sessions" finished
		run_tool_then "$sig"
		assert_equal "$status" $((128 + $(kill -l "$sig")))
		assert_equal "$(alive $procs)" ""
		[ ! -e finished ]
		f=$(session_files)
		assert_equal "$(grep -v '"usage"' "$f" | tail -1 | jq -r '.type + " " + .call_id')" 'function_call_output c1'
	done
}

@test "SIGKILL of the driver during a tool call: mc-send, mc-tool and the command die with it" {
	run_tool_then KILL
	assert_equal "$(alive $procs)" ""
	[ ! -e finished ]
}

@test "no process of the suite, ancestor of the command or not, shows the key in /proc/PID/environ; mc-send alone gets it" {
	export FAKE_SECRET=sk-test-0123456789abcdef
	keyscan
	fake_start "[$(calls "$(call c1 bash '{"command":"sh scan.sh sk-test; echo checked"}')"), $(text done)]"
	# Unsandboxed: the sandbox's PID namespace would hide the other
	# processes (t/66 attacks that), and the scan must see them.
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",\"tools\":{\"sandbox\":{\"mode\":\"off\"}},
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":\"FAKE_SECRET\"}}}"
	run --separate-stderr mc --yes 'look' </dev/null
	assert_success
	out=$(fake_request 2 '.body.messages[-1].content')
	[[ $out != *LEAK* ]] || fail "$out"
	# mc, mc-send and mc-tool at least, for root (not dumpable, they hide
	# their environ from anyone else)
	[[ "$out" =~ seen\ ([0-9]+) ]] || fail "$out"
	[ "$(id -u)" -ne 0 ] || [ "${BASH_REMATCH[1]}" -ge 3 ] || fail "$out"
	[[ $out == *checked* && $out != *sk-test* ]]
	# and the key did reach the provider, from mc-send
	assert_equal "$(fake_request 1 '.headers.authorization')" "Bearer sk-test-0123456789abcdef"
}

@test "api_key_cmd: while a tool runs, the key is in no process's environ or argv, and reached the provider" {
	key=sk-cmd-5Tq8Lm2Xv7Rb4Nw9
	printf '%s\n' "$key" > "$BATS_TEST_TMPDIR/secret"
	chmod 600 "$BATS_TEST_TMPDIR/secret"
	fake_start "[$(calls "$(call c1 bash '{"command":"touch waiting; while [ ! -e go ]; do sleep 0.1; done; echo resumed"}')"), $(text done)]"
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",
	    \"api_key_cmd\":\"cat '$BATS_TEST_TMPDIR/secret'\"}}}"
	mc --yes 'look' </dev/null >out 2>err &
	pid=$!
	for ((i = 0; i < 200; i++)); do [ -e waiting ] && break; sleep 0.05; done
	[ -e waiting ] || { kill "$pid"; fail "the tool call did not start: $(cat err)"; }
	seen=0
	for d in /proc/[0-9]*; do
		for f in environ cmdline; do
			tr '\0' '\n' < "$d/$f" > scan.txt 2>/dev/null || continue
			case $(cat "$d/comm" 2>/dev/null) in mc | mc-send) seen=$((seen + 1)) ;; esac
			! grep -q "$key" scan.txt || fail "the key is in $d/$f ($(cat "$d/comm"))"
		done
	done
	touch go
	wait "$pid"
	assert_equal "$(cat out)" done
	# mc's and mc-send's environ and argv, for root (others cannot read them)
	[ "$(id -u)" -ne 0 ] || [ "$seen" -ge 4 ] || fail "read only $seen of mc's and mc-send's files"
	assert_equal "$(fake_request 1 '.headers.authorization')" "Bearer $key"
	assert_equal "$(fake_request 2 '.headers.authorization')" "Bearer $key"
}

@test "where the kernel cannot sandbox bash, the session says so once, on stderr (with --json too)" {
	py="$MC_TOP/t/lib/sandbox.py"
	fake_start "[$(text one), $(text two)]"
	use_fake
	run --separate-stderr python3 "$py" nosys landlock seccomp unshare -- mc 'hi' </dev/null
	[ "$status" -eq 77 ] && skip "cannot hide Landlock, seccomp and namespaces here"
	assert_success
	assert_equal "$(printf '%s\n' "$stderr" | grep -c 'warning: bash runs unsandboxed')" 1
	run --separate-stderr python3 "$py" nosys landlock seccomp unshare -- mc --json 'hi' </dev/null
	assert_success
	assert_equal "$(printf '%s\n' "$stderr" | grep -c 'warning: bash runs unsandboxed')" 1
	[[ $output != *unsandboxed* ]]
	# with the sandbox there is nothing to say; mode off is the user's choice
	run --separate-stderr mc -c 'hi' </dev/null
	[[ $stderr != *unsandboxed* ]]
}

@test "unknown settings are said once per run, not once per stage; a provider is blamed on where it came from" {
	fake_start "[$(text one)]"
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",\"bogus\":1,
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}}}"
	run --separate-stderr mc 'hi' </dev/null
	assert_success
	assert_equal "$stderr" "mc: warning: $MC_HOME/settings.json: unknown setting bogus"
	MC_PROVIDER=nosuch run --separate-stderr mc 'hi' </dev/null
	assert_failure 1
	[[ $stderr == *'mc-request: MC_PROVIDER: unknown provider "nosuch"'* ]]
	run --separate-stderr mc -p nosuch 'hi' </dev/null
	assert_failure 2	# checked by mc itself, before any stage
	[[ $stderr == 'mc: -p: unknown provider "nosuch"'* ]]
}

@test "a stream cut after text keeps that text in the session, marked incomplete; the next turn is valid" {
	fake_start '[{"answer":{"api":"chat","text":"alpha beta gamma delta epsilon zeta eta theta"},"cut_after":700},
	  {"answer":{"api":"chat","text":"again"}}]'
	use_fake
	run --separate-stderr mc 'tell me' </dev/null
	assert_failure 1
	[[ $output == alpha* ]]
	f=$(session_files)
	last=$(grep -v '"type":"usage"' "$f" | tail -1)
	assert_equal "$(printf '%s' "$last" | jq -r '.role + " " + .status')" 'assistant incomplete'
	[[ $(printf '%s' "$last" | jq -r .content) == "$output"* ]]
	run --separate-stderr mc -c 'go on' </dev/null
	assert_success
	assert_equal "$(fake_request 2 '[.body.messages[1:][] | .role] | join(",")')" 'user,assistant,user'
}

@test "a directory whose name is not UTF-8: sessions work there, and mc -c finds them" {
	fake_start "[$(text one), $(text two)]"
	use_fake
	d=$(printf 'odd-\377-dir')
	mkdir "$d" && cd "$d"
	run --separate-stderr mc 'hi' </dev/null
	assert_success
	assert_output one
	f=$(session_files)
	head -1 "$f" | jq -e . >/dev/null
	[[ $(head -1 "$f" | jq -r .cwd) == */odd-$'\xef\xbf\xbd'-dir ]]
	run --separate-stderr mc -c 'again' </dev/null
	assert_success
	assert_output two
	assert_equal "$(session_files | wc -l)" 1
	run --separate-stderr mc sessions
	assert_success
	assert_equal "$(printf '%s\n' "$output" | wc -l)" 1
}

@test "a touched guide whose path holds markup is named as the prompt names files, with no tag in it" {
	d='odd<b>dir'
	mkdir -p "$d"
	printf 'Guide here.\n' > "$d/AGENTS.md"
	printf 'x\n' > "$d/f.txt"
	fake_start "[$(calls "$(call c1 read "{\"path\":\"$d/f.txt\"}")"), $(text done)]"
	use_fake
	run --separate-stderr mc 'read it' </dev/null
	assert_success
	assert_equal "$(fake_request 2 '.body.messages[-1].content' | head -n 1)" \
		"<Context File=$(pwd -P)/odd&lt;b&gt;dir/AGENTS.md>"
}
