# t/mc.bash: helpers for the driver's tests (t/7*.bats, t/81-mc-mcp-session.bats):
# the fake provider as the suite's provider, scripted answers and calls,
# session files, and a pseudo-terminal (tmux) to run mc on. Load with
# `load mc` after `load helper` and `load fake`.

# Point the suite at the fake: provider "fake", chat API, no key.
use_fake() {
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}}}"
}

# answer TEXT...: a script of one streamed chat answer per argument.
answers() {
	local s="[" a
	for a in "$@"; do
		s+=$(jq -nc --arg t "$a" '{answer:{api:"chat",text:$t}}'),
	done
	printf '%s]' "${s%,}"
}

session_files() {
	ls "$MC_HOME"/sessions/*.jsonl 2>/dev/null
}

# every line of every session file is a JSON object
whole_lines() {
	local f
	for f in $(session_files); do
		[ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" = '\n' ] || return 1
		jq -e 'type == "object"' "$f" >/dev/null || return 1
	done
}

# calls JSON...: one chat answer asking for the given calls (each {call_id,name,arguments})
# text TEXT: one chat answer (an entry of a script)
# Both with the usage [input, output] of $USAGE (the fake's [10,5] by default).
calls() {
	jq -nc --argjson c "[$(IFS=,; echo "$*")]" --argjson u "${USAGE:-[10,5]}" \
		'{answer:{api:"chat",calls:$c,usage:$u}}'
}
text() {
	jq -nc --arg t "$1" --argjson u "${USAGE:-[10,5]}" '{answer:{api:"chat",text:$t,usage:$u}}'
}
# ask_script CALL...: an answer with each call, one call a step, then "all done".
ask_script() {
	local s="[" c
	for c in "$@"; do
		s+="$(calls "$c"),"
	done
	printf '%s{"answer":{"api":"chat","text":"all done"}}]' "$s"
}
# own_tmpdir: a temporary directory of the test's own as TMPDIR (the test
# tree itself is under /tmp, which would otherwise count as TMPDIR)
own_tmpdir() {
	mkdir -p "$BATS_TEST_TMPDIR/tmp"
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
}
call() { # ID NAME ARGS-JSON
	jq -nc --arg id "$1" --arg n "$2" --arg a "$3" '{call_id:$id,name:$n,arguments:$a}'
}

# keyscan: a script that reads the environ of every process of the suite
# (comm mc*), not only the command's ancestors, and says LEAK PID COMM
# where it holds the key; "seen N" counts the environs it could read.
keyscan() {
	cat > scan.sh <<'EOS'
seen=0
for d in /proc/[0-9]*; do
	case $(cat $d/comm 2>/dev/null) in mc*) ;; *) continue ;; esac
	{ tr '\0' '\n' < $d/environ > env.txt; } 2>/dev/null || continue
	[ -s env.txt ] || continue
	seen=$((seen + 1))
	grep -q "$1" env.txt && echo "LEAK ${d#/proc/} $(cat $d/comm)"
done
echo "seen $seen"
EOS
}

# --- a pseudo-terminal (tmux) ---

teardown_local() {
	[ -n "${TMUX_SOCK:-}" ] && tmux -S "$TMUX_SOCK" kill-server 2>/dev/null
	return 0
}

# on_tty CMD: run CMD in a detached tmux pane; its exit status goes to $W/../status.
# PAGER is cat there (/prompt's pager), whatever pager the machine has.
# Each call has a socket of its own: a server just killed may still hold
# the last one while it goes.
on_tty() {
	TTY_N=$((${TTY_N:-0} + 1))
	TMUX_SOCK="$BATS_TEST_TMPDIR/tmux.$TTY_N.sock"
	STATUS="$BATS_TEST_TMPDIR/status"
	tmux -S "$TMUX_SOCK" -f /dev/null new-session -d -x 120 -y 50 \
		"cd '$W' && env PATH='$PATH' HOME='$HOME' MC_HOME='$MC_HOME' LC_ALL=C.UTF-8 PAGER=cat $1; echo \$? > '$STATUS'; sleep 600"
}
# compact_on_tty: the last session compacted by /compact in `mc -c` on a
# terminal, which then ends
compact_on_tty() {
	on_tty 'mc -c'
	wait_for 'mc>'
	keys '/compact' Enter
	wait_for 'goes on in'
	keys C-d
	assert_equal "$(wait_status)" 0
}
# keys KEY...: typed into the pane. A Ctrl-D alone waits (a few seconds at
# most, then is typed all the same) for the session's prompt to be the
# pane's last line: one typed ahead while a turn ends is read by no one.
keys() {
	local i
	if [ "$*" = C-d ]; then
		for ((i = 0; i < 100; i++)); do
			[[ $(pane | grep -v '^[[:space:]]*$' | tail -n 1) =~ ^mc\>[[:space:]]*$ ]] && break
			sleep 0.05
		done
	fi
	tmux -S "$TMUX_SOCK" send-keys -t 0 "$@"
}
pane() {
	tmux -S "$TMUX_SOCK" capture-pane -p -J -S -200 -t 0 "$@"
}
# wait_lines N GREP-ARGS...: until N lines of the pane match (a bound, not
# a timing check)
wait_lines() {
	local i n=$1
	shift
	for ((i = 0; i < 400; i++)); do
		[ "$(pane | grep -c "$@")" -ge "$n" ] && return 0
		sleep 0.05
	done
	echo "never saw $n line(s) matching: $*" >&2
	pane >&2
	return 1
}
# wait_for TEXT: until the pane shows TEXT
wait_for() {
	wait_lines 1 -F -- "$1"
}
# wait_count N TEXT: until TEXT is on N lines of the pane
wait_count() {
	wait_lines "$1" -F -- "$2"
}
# wait_prompt N: until the Nth prompt is shown (the session reads again)
wait_prompt() {
	wait_lines "$1" '^mc>'
}
wait_status() {
	local i
	for ((i = 0; i < 400; i++)); do
		[ -s "$STATUS" ] && cat "$STATUS" && return 0
		sleep 0.05
	done
	pane >&2
	return 1
}

# hooks JSON [MORE]: the fake as the provider, "hooks": JSON, and MORE
# (more top-level members, e.g. "tools":{...}).
hooks() {
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}},
	  \"hooks\":$1${2:+,$2}}"
}

# tool_content N ID: the content of request N's tool message for call ID
tool_content() {
	fake_request "$1" ".body.messages[] | select(.role == \"tool\" and .tool_call_id == \"$2\") | .content"
}

# project: a git repository with two committed files, old.txt and gone.txt
# (the checkpoint tests, t/82 and t/83)
project() {
	printf 'one\ntwo\n' > old.txt
	echo 'will go' > gone.txt
	git init -q
	git -c user.name=t -c user.email=t@t add -A
	git -c user.name=t -c user.email=t@t commit -qm start
}
