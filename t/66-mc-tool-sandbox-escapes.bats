#!/usr/bin/env bats
# mc-tool: SPEC 19, the sandbox's second round: each rule `mc-tool sandbox`
# reports as enforced, attacked as a malicious model would.

load helper
load tool

setup_file_local() {
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	mkdir -p "$TMPDIR"
}

# valgrind knows neither Landlock's system calls nor seccomp(2).
no_valgrind() {
	[ -z "${MC_VALGRIND:-}" ] || skip "valgrind does not pass Landlock's and seccomp's calls through"
}

# need RULE-LINE-PREFIX: skip unless `mc-tool sandbox` reports that line,
# e.g. need "other processes: hidden".
need() {
	no_valgrind
	mc-tool sandbox 2>/dev/null | grep -q "^$1" || skip "this kernel does not enforce: $1"
}

bash_call() { # COMMAND: a bash call, its output in $out
	call bash "$(jq -cn --arg c "$1" '{command:$c}')"
}

# wait_for FILE: until FILE exists (a background helper is ready).
wait_for() {
	local tries=0
	while [ ! -s "$1" ] && [ $((tries += 1)) -lt 200 ]; do sleep 0.05; done
	[ -s "$1" ]
}

stop_helper() {
	kill "$helper" 2>/dev/null || true
	wait "$helper" 2>/dev/null || true
}

@test "sandbox: no terminal of the user's: no /dev/pts/N, no /dev/tty, no TIOCSTI even into its own" {
	need "terminals: none of the user's"
	o=$(outside)
	# A terminal the test holds, as the user's shell would: whatever is
	# typed into it lands in $o/typed.
	python3 - "$o" >/dev/null 2>&1 3>&- <<-'EOF' &
		import os, pty, select, sys, time
		m, s = pty.openpty()
		open(sys.argv[1] + "/pty.new", "w").write(os.ttyname(s))
		os.rename(sys.argv[1] + "/pty.new", sys.argv[1] + "/pty")
		end = time.time() + 20
		while time.time() < end:
		    if select.select([s], [], [], 0.1)[0]:
		        open(sys.argv[1] + "/typed", "ab").write(os.read(s, 100))
	EOF
	helper=$!
	wait_for "$o/pty"
	pts=$(cat "$o/pty")
	bash_call 'python3 - '"$pts"' <<EOF
import fcntl, os, pty, sys, termios
try:
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
    print("opened", sys.argv[1])
    fcntl.ioctl(fd, termios.TIOCSTI, b"x")
    fcntl.ioctl(fd, termios.TIOCSTI, b"\n")
    print("typed into it")
except OSError as e:
    print("user pts:", e.strerror)
try:
    os.open("/dev/tty", os.O_RDWR)
    print("opened /dev/tty")
except OSError as e:
    print("tty:", e.strerror)
# A pty of its own, its controlling terminal: still no TIOCSTI.
pid, fd = pty.fork()
if pid == 0:
    try:
        fcntl.ioctl(0, termios.TIOCSTI, b"x")
        os.write(1, b"own: typed\n")
    except OSError as e:
        os.write(1, ("own: " + e.strerror + "\n").encode())
    os._exit(0)
print(os.read(fd, 100).decode().strip())
os.waitpid(pid, 0)
EOF'
	sleep 0.3
	stop_helper
	assert_success
	[ ! -e "$o/typed" ] || fail "typed into the user's terminal: $(cat "$o/typed")"
	[[ "$out" == *"user pts: No such file or directory"* ]] || fail "$out"
	[[ "$out" == *"tty: No such device or address"* ]] || fail "$out"
	[[ "$out" == *"own: Permission denied"* ]] || fail "$out"
	[[ "$out" != *opened* && "$out" != *typed* ]] || fail "$out"
}

@test "sandbox: no connection to a unix socket outside, by path or abstract; *_SOCK variables kept out" {
	need "unix sockets: refused"
	o=$(outside)
	python3 - "$o" >/dev/null 2>&1 3>&- <<-'EOF' &
		import os, socket, sys, select
		d = sys.argv[1]
		p = socket.socket(socket.AF_UNIX); p.bind(d + "/agent.sock"); p.listen(1)
		a = socket.socket(socket.AF_UNIX); a.bind("\0mc-test-%d" % os.getpid()); a.listen(1)
		open(d + "/abstract.new", "w").write("mc-test-%d" % os.getpid())
		os.rename(d + "/abstract.new", d + "/abstract")
		for s in select.select([p, a], [], [], 20)[0]:
		    s.accept()
		    open(d + "/got", "a").write("path\n" if s is p else "abstract\n")
	EOF
	helper=$!
	wait_for "$o/abstract"
	export SSH_AUTH_SOCK="$o/agent.sock" MY_AGENT_SOCK="$o/agent.sock"
	bash_call 'env | grep _SOCK; python3 - '"$o/agent.sock $(cat "$o/abstract")"' <<EOF
import socket, sys
for name, addr in (("path", sys.argv[1]), ("abstract", "\0" + sys.argv[2])):
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(addr)
        print(name, "connected")
    except OSError as e:
        print(name, e.strerror)
a, b = socket.socketpair()
a.send(b"p")
print("socketpair", b.recv(1).decode())
EOF'
	sleep 0.3
	stop_helper
	assert_success
	[ ! -e "$o/got" ] || fail "connected: $(cat "$o/got")"
	assert_equal "$(printf '%s\n' "$out" | grep -v '^\[')" "$(printf 'path Permission denied\nabstract Permission denied\nsocketpair p')"
}

@test "sandbox: no other process's /proc: the key in the environment of mc-tool's parent stays unseen" {
	need "other processes: hidden"
	bashitem 'echo "ppid $PPID"
cat /proc/$PPID/environ >/dev/null 2>&1 && echo "read the parent"
for f in /proc/[0-9]*/environ; do grep -l sk-parent-secret "$f" 2>/dev/null; done
p=$PPID; while [ "$p" -gt 1 ]; do tr "\0" "\n" </proc/$p/environ 2>/dev/null | grep sk-parent-secret; p=$(awk "{print \$4}" /proc/$p/stat); done
ls /proc | grep -c "^[0-9]"' 60
	# The parent shell of mc-tool holds a key, as make or sh running mc would.
	run --separate-stderr env PARENT_HELD_KEY=sk-parent-secret sh -c 'mc-tool call <item; echo "shell $$" >&2'
	assert_success
	out=$(jqo -j .output)
	[[ "$out" != *sk-parent-secret* ]] || fail "$out"
	[[ "$out" != *"read the parent"* ]] || fail "$out"
	# mc-tool is PID 1 of the namespace; the shell and bats are not there.
	[[ "$out" == "ppid 1"$'\n'* ]] || fail "$out"
	n=$(printf '%s\n' "$out" | sed -n '$!p' | tail -n 1)
	[ "$n" -lt 10 ] || fail "$n processes in /proc: $out"
}

@test "sandbox: .git is read-only: no core.fsmonitor, no hook, no new gitfile; the refusal names the rule" {
	need "other processes: hidden"
	git init -q .
	bash_call 'git config core.fsmonitor "touch $PWD/../pwned"; echo "touch pwned" >.git/hooks/pre-commit; mv .git .git-old; echo x >f'
	assert_success
	[[ "$out" == *"Read-only file system"* ]] || fail "$out"
	[[ "$out" == *"[refused: writes to .git are not allowed inside the sandbox: it is read-only there]"$'\n'* ]] || fail "$out"
	assert_equal "$(git config core.fsmonitor || true)" ""
	[ ! -e .git/hooks/pre-commit ] && [ -d .git ] && [ ! -e .git-old ]
	assert_equal "$(cat f)" x
	run --separate-stderr mc-tool sandbox
	assert_line ".git: read-only: $W/.git (a read-only bind mount)"
	# A worktree's .git is a file naming the repository: it stays too.
	rm -rf .git
	printf 'gitdir: /nowhere\n' >.git
	bash_call 'echo "gitdir: /tmp/evil" >.git'
	assert_equal "$(cat .git)" "gitdir: /nowhere"
	[[ "$out" == *"[refused: writes to .git are not allowed"* ]] || fail "$out"
}

@test "sandbox: limits: a process flood, a large allocation and a large file are stopped" {
	need "processes: limited"
	settings '{"tools":{"sandbox":{"limits":{"processes":50,"memory_mb":256,"file_mb":1}}}}'
	run --separate-stderr mc-tool sandbox
	assert_line "processes: limited (at least 50 and at most 349 at once, by the PID namespace's pid_max)"
	assert_line "memory: at most 256 MiB of address space per process (RLIMIT_AS)"
	assert_line "file size: at most 1 MiB per file written (RLIMIT_FSIZE)"
	# Children wait on a pipe the flood holds: all alive at once.
	bash_call 'python3 -c "
import os
r, w = os.pipe()
n = 0
try:
    for i in range(3000):
        if os.fork() == 0:
            os.close(w); os.read(r, 1); os._exit(0)
        n += 1
except OSError as e:
    print(\"stopped:\", e.strerror)
print(n)
"'
	assert_success
	n=$(printf '%s\n' "$out" | sed -n 2p)
	[[ "$out" == "stopped: Resource temporarily unavailable"$'\n'* ]] || fail "$out"
	[ "$n" -ge 40 ] && [ "$n" -lt 350 ] || fail "$n processes"
	[[ "$out" == *"[the sandbox allows at least 50 processes at once"* ]] || fail "$out"
	bash_call 'python3 -c "x = bytearray(2 << 30); print(\"allocated\")"'
	[[ "$out" == *MemoryError* && "$out" != *allocated* ]] || fail "$out"
	[[ "$out" == *"[the sandbox limits a process to 256 MiB of address space (tools.sandbox.limits.memory_mb)]"* ]] || fail "$out"
	bash_call 'head -c 3000000 /dev/zero >big'
	assert_equal "$(stat -c %s big)" 1048576
	[[ "$out" == *"[the sandbox limits a file to 1 MiB (tools.sandbox.limits.file_mb)]"* ]] || fail "$out"
	# 0 is no limit.
	settings '{"tools":{"sandbox":{"limits":{"file_mb":0}}}}'
	bash_call 'head -c 3000000 /dev/zero >big'
	assert_equal "$(stat -c %s big)" 3000000
	run --separate-stderr mc-tool sandbox
	assert_line "file size: no limit: tools.sandbox.limits.file_mb is 0"
	assert_line "processes: limited (at least 512 and at most 811 at once, by the PID namespace's pid_max)"
}

@test "sandbox: a limit that is not a whole number from 0 is an error naming the setting" {
	settings '{"tools":{"sandbox":{"limits":{"processes":-1}}}}'
	run --separate-stderr mc-tool sandbox
	assert_failure 1
	assert_equal "$stderr" "mc-tool: $MC_HOME/settings.json: tools.sandbox.limits.processes: expected a whole number from 0 (0: no limit)"
}

@test "sandbox: nothing the command leaves running outlives the call, SIGINT included" {
	need "other processes: hidden"
	bash_call 'sleep 31337 >/dev/null 2>&1 & setsid sleep 31338 >/dev/null 2>&1 & echo started'
	assert_success
	run pgrep -f 'sleep 3133[78]'
	assert_failure
	jq -cn '{type:"function_call",call_id:"c1",name:"bash",arguments:({command:"echo begun >started; sleep 31339 & wait"} | tojson)}' >item
	mc-tool call <item >result 2>err &
	tool=$!
	wait_for started
	sleep 0.2
	kill -INT "$tool"
	status=0
	wait "$tool" || status=$?
	assert_equal "$status" 130
	assert_equal "$(jq -r .output result)" "(no output)
[interrupted by the user: the command and every process it started were killed]"
	run pgrep -f 'sleep 31339'
	assert_failure
}

@test "sandbox on a kernel without user namespaces: mc-tool sandbox says so, require refuses bash" {
	no_valgrind
	run --separate-stderr python3 "$MC_TOP/t/lib/sandbox.py" nosys unshare -- mc-tool sandbox
	[ "$status" -ne 77 ] || skip "cannot simulate a kernel without unshare here"
	assert_failure 1
	why="no user namespace can be made here (unshare: Function not implemented)"
	assert_line "other processes: not restricted: $why"
	assert_line "terminals: not restricted: $why"
	assert_line "processes: not restricted: $why"
	assert_line --partial "bash: runs partly sandboxed; not restricted: terminals, other processes, processes"
	settings '{"tools":{"sandbox":{"mode":"require"}}}'
	bashitem 'echo ran' 60
	run --separate-stderr python3 "$MC_TOP/t/lib/sandbox.py" nosys unshare -- mc-tool call <item
	assert_success
	assert_equal "$(jqo -j .output)" "error: bash is refused: tools.sandbox.mode is \"require\", and this kernel cannot restrict terminals ($why), other processes ($why), processes ($why). \`mc-tool sandbox\` tells more."
}
