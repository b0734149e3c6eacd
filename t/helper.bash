# t/helper.bash: common set-up for the bats suite. Load with `load helper`.
# Every test runs in its own temp directory with a fake HOME; nothing
# touches the real home directory or the network.

bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

setup() {
	export LC_ALL=C
	: "${MC_BIN:=$BATS_TEST_DIRNAME/../bin}"
	: "${MC_TOP:=$BATS_TEST_DIRNAME/..}"
	export PATH="$MC_BIN:$PATH"
	export HOME="$BATS_TEST_TMPDIR/home"
	export MC_HOME="$HOME/.magi-code"
	unset MC_PROVIDER MC_MODEL MC_BASE_URL NO_COLOR
	unset OPENAI_API_KEY OPENROUTER_API_KEY
	mkdir -p "$HOME" "$MC_HOME" "$BATS_TEST_TMPDIR/repo"
	W="$BATS_TEST_TMPDIR/repo"
	cd "$W" || return 1
	if declare -F setup_file_local >/dev/null; then setup_file_local; fi
}

# settings JSON: write $MC_HOME/settings.json
settings() {
	printf '%s\n' "$1" > "$MC_HOME/settings.json"
}

# jqo FILTER: apply jq to $output (the program's stdout)
jqo() {
	printf '%s' "$output" | jq -r "$@"
}

# unprivileged CMD...: run CMD as nobody when the tests run as root, who
# reads everything, so that permission rules can be tested at all. The
# directories above the test's temp tree are made traversable for it.
unprivileged() {
	if [ "$(id -u)" -ne 0 ]; then
		"$@"
		return
	fi
	local d=$BATS_TEST_TMPDIR
	while [ "$d" != / ]; do
		chmod o+x "$d"
		d=$(dirname "$d")
	done
	chmod o+rx "$BATS_TEST_TMPDIR"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PATH="$PATH" HOME="$HOME" MC_HOME="$MC_HOME" LC_ALL=C "$@"
}

# tree PID: PID and its descendants, one per line
tree() {
	local p
	echo "$1"
	for p in $(pgrep -P "$1"); do
		tree "$p"
	done
}

# wait_gone PID...: until none of them runs, for at most 5 s (a bound,
# not a timing check); then the same as alive
wait_gone() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ -z "$(alive "$@")" ] && break
		sleep 0.05
	done
	alive "$@"
}

# alive PID...: those still running (zombies are not)
alive() {
	local p
	for p in "$@"; do
		[ -d "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] && echo "$p"
	done
	return 0
}
