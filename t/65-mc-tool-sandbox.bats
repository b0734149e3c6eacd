#!/usr/bin/env bats
# mc-tool: SPEC 17, the sandbox of the bash tool (tools.sandbox, mc-tool sandbox).

load helper
load tool

setup_file_local() {
	# The command's temporary directory is writable; the rest of the
	# test's tree, outside the working directory, must not be.
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	mkdir -p "$TMPDIR"
}

probe() { # abi | seccomp
	python3 "$MC_TOP/t/lib/sandbox.py" "$@"
}

# valgrind 3.19 knows neither Landlock's system calls nor seccomp(2): under
# it mc-tool finds no kernel support, whatever the kernel has.
no_valgrind() {
	[ -z "${MC_VALGRIND:-}" ] || skip "valgrind does not pass Landlock's and seccomp's calls through"
}

need_landlock() { # [ABI]
	no_valgrind
	[ "$(probe abi)" -ge "${1:-1}" ] || skip "kernel has no Landlock${1:+ of ABI $1}"
}

need_seccomp() {
	no_valgrind
	probe seccomp || skip "kernel takes no seccomp filter"
}

# nosys NAME... -- CMD...: CMD on a kernel without those system calls.
nosys() {
	no_valgrind
	run --separate-stderr python3 "$MC_TOP/t/lib/sandbox.py" nosys "$@"
	[ "$status" -ne 77 ] || skip "cannot simulate a kernel without $1 here"
	out=$(printf '%s' "$output" | jq -j .output 2>/dev/null || true)
}

# listen tcp|udp: a listener on 127.0.0.1 in the background; its port in
# ./port, and ./got once something arrives.
listen() {
	python3 - "$1" >/dev/null 2>&1 3>&- <<-'EOF' &
		import socket, sys
		udp = sys.argv[1] == "udp"
		s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM if udp else socket.SOCK_STREAM)
		s.bind(("127.0.0.1", 0))
		if not udp:
		    s.listen(1)
		open("port.new", "w").write(str(s.getsockname()[1]))
		__import__("os").rename("port.new", "port")
		s.settimeout(20)
		try:
		    s.recvfrom(16) if udp else s.accept()
		    open("got", "w").write("yes")
		except socket.timeout:
		    pass
	EOF
	listener=$!
	tries=0
	while [ ! -s port ] && [ $((tries += 1)) -lt 200 ]; do sleep 0.05; done
	[ -s port ]
}

stop_listener() {
	kill "$listener" 2>/dev/null || true
	wait "$listener" 2>/dev/null || true
}

# The commands a sandboxed bash runs to reach the listener.
tcp_cmd() {
	printf 'python3 -c "import socket; socket.create_connection((\\"127.0.0.1\\", %s), 5); print(\\"connected\\")"' "$(cat port)"
}
udp_cmd() {
	printf 'python3 -c "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b\\"x\\", (\\"127.0.0.1\\", %s)); print(\\"sent\\")"' "$(cat port)"
}

bash_call() { # COMMAND: a bash call, its output in $out
	call bash "$(jq -cn --arg c "$1" '{command:$c}')"
}

@test "sandbox: bash writes inside the working directory and TMPDIR, nowhere else; reads anywhere" {
	need_landlock
	o=$(outside)
	printf 'outside text\n' >"$o/readable"
	mkdir -p "$o/dir"
	bash_call 'echo in >inside; mkdir -p sub/dir && echo deep >sub/dir/f
echo tmp >"$TMPDIR/t" && cat "$TMPDIR/t"
echo null >/dev/null && echo devnull
cat '"$o"'/readable
echo x >'"$o"'/new || echo refused-new
echo x >>'"$o"'/readable || echo refused-append
mkdir '"$o"'/made || echo refused-mkdir
rm '"$o"'/readable || echo refused-rm
rmdir '"$o"'/dir || echo refused-rmdir
ln -s /etc/passwd '"$o"'/link || echo refused-ln
mv inside '"$o"'/moved || echo refused-mv
echo x >"$HOME/x" || echo refused-home
true >'"$o"'/readable || echo refused-truncate'
	assert_success
	assert_equal "$(printf '%s\n' "$out" | grep -v 'Permission denied\|Invalid cross-device')" \
		"$(printf 'tmp\ndevnull\noutside text\nrefused-new\nrefused-append\nrefused-mkdir\nrefused-rm\nrefused-rmdir\nrefused-ln\nrefused-mv\nrefused-home\nrefused-truncate\n[exit status 0]')"
	assert_equal "$(cat inside sub/dir/f "$TMPDIR/t")" "$(printf 'in\ndeep\ntmp')"
	assert_equal "$(cat "$o/readable")" "outside text"
	[ -d "$o/dir" ] && [ ! -e "$o/new" ] && [ ! -e "$o/made" ] && [ ! -e "$o/link" ] && [ ! -e "$o/moved" ]
	[ ! -e "$HOME/x" ]
}

@test "sandbox: TMPDIR unset or relative means /tmp" {
	need_landlock
	for tmp in "" rel; do
		if [ -z "$tmp" ]; then unset TMPDIR; else export TMPDIR=$tmp; fi
		bash_call 'f=$(mktemp /tmp/mc-sandbox.XXXXXX) && echo made && rm "$f"'
		assert_success
		assert_equal "$out" "$(printf 'made\n[exit status 0]')"
	done
}

@test "sandbox: no TCP connection to a listener on 127.0.0.1" {
	need_seccomp
	listen tcp
	bash_call "$(tcp_cmd)"
	stop_listener
	assert_success
	assert_regex "$out" 'PermissionError: \[Errno 13\] Permission denied'
	assert_regex "$out" '\[exit status 1\]$'
	[ ! -e got ]
}

@test "sandbox: no UDP datagram, no IP socket at all; socketpair still works" {
	need_seccomp
	listen udp
	bash_call "$(udp_cmd); echo status \$?"'
python3 -c "import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)" 2>&1 | tail -n 1
python3 -c "import socket; a, b = socket.socketpair(); a.send(b\"u\"); print(b.recv(1).decode())"'
	sleep 0.3
	stop_listener
	assert_success
	[[ "$out" == *"status 1"* ]]
	[[ "$out" == *$'PermissionError: [Errno 13] Permission denied\nu\n[exit status 0]' ]]
	[ ! -e got ]
}

@test "sandbox: Landlock alone refuses TCP when there is no seccomp filter; UDP is then open" {
	need_landlock 4
	listen tcp
	jq -cn --arg c "$(tcp_cmd)" '{type:"function_call",call_id:"c1",name:"bash",arguments:({command:$c} | tojson)}' >item
	nosys seccomp -- mc-tool call <item
	stop_listener
	assert_success
	assert_regex "$out" 'PermissionError: \[Errno 13\] Permission denied'
	[ ! -e got ]
	nosys seccomp -- mc-tool sandbox
	assert_failure 1
	assert_line "network TCP: refused: no bind or connect (Landlock ABI $(probe abi) TCP rules)"
	assert_line "network UDP: not restricted: seccomp filters are not available (seccomp: Function not implemented)"
	assert_line "bash: runs partly sandboxed; not restricted: network UDP, unix sockets, terminals"
}

@test "sandbox: tools.sandbox.network true lets TCP and UDP through; writes stay confined" {
	need_landlock
	settings '{"tools":{"sandbox":{"network":true}}}'
	listen tcp
	bash_call "$(tcp_cmd); echo x >$(outside)/f || echo refused"
	stop_listener
	assert_success
	assert_equal "$(printf '%s\n' "$out" | grep -v 'Permission denied')" "$(printf 'connected\nrefused\n[exit status 0]')"
	[ -e got ]
	rm got port
	listen udp
	bash_call "$(udp_cmd)"
	tries=0
	while [ ! -e got ] && [ $((tries += 1)) -lt 100 ]; do sleep 0.05; done
	stop_listener
	assert_equal "$out" "$(printf 'sent\n[exit status 0]')"
	[ -e got ]
}

@test "sandbox: tools.sandbox.writable adds directories and files; a missing one is a warning" {
	need_landlock
	o=$(outside)
	mkdir -p "$o/extra"
	touch "$o/file"
	settings "$(jq -cn --arg d "$o/extra" --arg f "$o/file" --arg m "$o/missing" \
		'{tools:{sandbox:{writable:[$d,$f,$m]}}}')"
	bash_call "mkdir $o/extra/sub && echo a >$o/extra/sub/f && echo b >$o/file && echo ok; echo c >$o/other || echo refused"
	assert_success
	assert_equal "$(printf '%s\n' "$out" | grep -v 'Permission denied')" "$(printf 'ok\nrefused\n[exit status 0]')"
	assert_equal "$stderr" "mc-tool: warning: sandbox: $o/missing: No such file or directory; not writable"
	assert_equal "$(cat "$o/extra/sub/f" "$o/file")" "$(printf 'a\nb')"
	call bash '{"command":"true"}' -q
	assert_equal "$stderr" ""
	run --separate-stderr mc-tool sandbox
	assert_line "writable: $o/missing: No such file or directory; left out"
	assert_line --partial ", $o/extra, $o/file (Landlock ABI"
}

@test "sandbox: a relative tools.sandbox.writable path is an error naming the setting" {
	settings '{"tools":{"sandbox":{"writable":["/ok","rel/dir"]}}}'
	for sub in "call" "sandbox" "list"; do
		run --separate-stderr mc-tool "$sub" </dev/null
		assert_failure 1
		assert_equal "$output" ""
		assert_equal "$stderr" "mc-tool: $MC_HOME/settings.json: tools.sandbox.writable[1]: path must be absolute: rel/dir"
	done
}

@test "sandbox: mode off lets bash write anywhere and reach the network" {
	settings '{"tools":{"sandbox":{"mode":"off"}}}'
	listen tcp
	bash_call "echo x >$(outside)/f && echo wrote; $(tcp_cmd)"
	stop_listener
	assert_success
	assert_equal "$out" "$(printf 'wrote\nconnected\n[exit status 0]')"
	[ -e got ] && [ -e "$(outside)/f" ]
}

@test "sandbox: the command cannot signal processes outside it" {
	need_landlock 6
	sleep 300 >/dev/null 2>&1 3>&- &
	victim=$!
	bash_call "kill $victim && echo killed; sleep 30 & p=\$!; kill \$p && echo own; wait \$p; true"
	alive=0
	kill -0 "$victim" && alive=1
	kill "$victim"
	assert_success
	assert_equal "$alive" 1
	# Landlock's scope refuses it, and the PID namespace does not even
	# show it.
	[[ "$out" =~ "kill: "("Operation not permitted"|"No such process").*$'\nown\n'.*"[exit status 0]"$ ]] || fail "$out"
	[[ "$out" != *killed* ]]
}

@test "mc-tool sandbox: one line per rule, exit 0 when bash runs sandboxed as configured" {
	need_landlock 6
	need_seccomp
	abi=$(probe abi)
	run --separate-stderr mc-tool sandbox
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$output" "mode: auto
writes: only under $W, $TMPDIR, $(for d in /dev/null /dev/zero /dev/full /dev/tty /dev/ptmx /dev/pts /dev/shm; do [ -e $d ] && printf '%s, ' $d; done | sed 's/, $//') (Landlock ABI $abi)
reads: not restricted
network TCP: refused: no bind or connect (Landlock ABI $abi TCP rules and the seccomp filter on socket())
network UDP: refused: no IP socket at all (the seccomp filter on socket(): AF_NETLINK only)
unix sockets: refused: no connection to a path or abstract socket (the seccomp filter: no socket(AF_UNIX), socketpair(2) allowed; Landlock's abstract socket scoping)
terminals: none of the user's: no controlling terminal, no /dev/pts/N of theirs, no TIOCSTI or TIOCLINUX (a session of its own, a /dev/pts of its own in a mount namespace, and the seccomp filter)
other processes: hidden: /proc shows the command's own processes only (user, PID and mount namespaces, and a /proc of its own)
.git: none: no .git in or above the working directory
processes: limited (at least 512 and at most 811 at once, by the PID namespace's pid_max)
memory: at most 8192 MiB of address space per process (RLIMIT_AS)
file size: at most 4096 MiB per file written (RLIMIT_FSIZE)
signals: only to processes inside the sandbox (Landlock ABI $abi scoping)
bash: sandboxed"
	run --separate-stderr mc-tool -q sandbox
	assert_success
	assert_equal "$output" ""
	mkdir sub
	run --separate-stderr mc-tool sandbox -C sub
	assert_line --partial "writes: only under $W/sub, "
	settings '{"tools":{"sandbox":{"network":true}}}'
	run --separate-stderr mc-tool sandbox
	assert_success
	assert_line "network TCP: open: tools.sandbox.network is true"
	assert_line "network UDP: open: tools.sandbox.network is true"
	settings '{"tools":{"sandbox":{"mode":"off"}}}'
	run --separate-stderr mc-tool sandbox
	assert_failure 1
	assert_line "mode: off"
	assert_line 'writes: not restricted: tools.sandbox.mode is "off"'
	assert_line 'bash: runs unsandboxed: tools.sandbox.mode is "off"'
	run --separate-stderr mc-tool -q sandbox
	assert_failure 1
	assert_equal "$output" ""
	run --separate-stderr mc-tool sandbox --touched-out f
	assert_failure 2
}

@test "sandbox on a kernel without Landlock: auto runs bash quietly, require refuses, sandbox exits 1" {
	need_seccomp
	o=$(outside)
	bashitem "echo x >$o/auto && echo wrote" 60
	nosys landlock -- mc-tool call <item
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$out" "$(printf 'wrote\n[exit status 0]')"
	nosys landlock seccomp -- mc-tool sandbox
	assert_failure 1
	assert_line "writes: not restricted: this kernel has no Landlock"
	assert_line "bash: runs partly sandboxed; not restricted: writes, network TCP, network UDP, unix sockets, terminals"
	nosys landlock seccomp -- mc-tool -q sandbox
	assert_failure 1
	assert_equal "$output" ""
	settings '{"tools":{"sandbox":{"mode":"require"}}}'
	bashitem "echo x >$o/require && echo wrote" 60
	nosys landlock -- mc-tool call <item
	assert_success
	assert_equal "$out" 'error: bash is refused: tools.sandbox.mode is "require", and this kernel cannot restrict writes (this kernel has no Landlock). `mc-tool sandbox` tells more.'
	[ ! -e "$o/require" ]
	nosys landlock -- mc-tool sandbox
	assert_failure 1
	assert_line 'bash: refused: tools.sandbox.mode is "require"; not restricted: writes'
	# require on a kernel that has it all runs the command.
	need_landlock
	run --separate-stderr mc-tool call <item
	assert_success
	assert_equal "$(jqo -j .output | grep -v 'Permission denied\|^\[the sandbox may have refused')" "$(printf '[exit status 2]')"
	bashitem "echo inside >f && cat f" 60
	run --separate-stderr mc-tool call <item
	assert_equal "$(jqo -j .output)" "$(printf 'inside\n[exit status 0]')"
}

@test "sandbox: mc-tool's own output and --touched-out still arrive from inside it" {
	need_landlock
	o=$(outside)
	bashitem 'echo hello' 60
	run --separate-stderr mc-tool call --touched-out "$o/touched" <item
	assert_success
	assert_equal "$(jqo -j .output)" "$(printf 'hello\n[exit status 0]')"
	[ -e "$o/touched" ]
}
