#!/usr/bin/env bats
# mc completion bash|zsh|fish (SPEC §25): scripts completing options,
# subcommands, custom slash commands and the settings' models.

load helper

# complete_bash LINE: what the bash script completes for LINE (the last
# word the one completed), one a line
complete_bash() {
	bash -c '
		source /dev/stdin
		COMP_LINE=$1
		read -ra COMP_WORDS <<<"$1"
		[[ $1 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_mc
		printf "%s\n" "${COMPREPLY[@]}"
	' bash "$1" < <(mc completion bash)
}

@test "completion: the bash script is valid bash and completes options, subcommands, commands, models" {
	run mc completion bash
	assert_success
	mc completion bash | bash -n
	run complete_bash 'mc --mo'
	assert_output "$(printf -- '--model\n--mode')"
	run complete_bash 'mc --mode p'
	assert_output plan
	run complete_bash 'mc ses'
	assert_output sessions
	run complete_bash 'mc completion z'
	assert_output zsh
	settings '{"model":"gpt-5.1","models":{"*":{},"qwen3":{},"gpt-5.1":{}}}'
	run complete_bash 'mc -m '
	assert_output "$(printf 'gpt-5.1\nqwen3')"
	run complete_bash 'mc --provider oll'
	assert_output ollama
	mkdir -p "$MC_HOME/commands/git" .agents/commands
	printf 'x' > "$MC_HOME/commands/git/commit.md"
	printf 'x' > .agents/commands/review.md
	run complete_bash 'mc /'
	assert_output "$(printf '/review\n/git:commit')"
}

@test "completion: every option of mc --help is completed" {
	script=$(mc completion bash)
	for o in $(mc --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		[[ "$script" == *"$o"* ]] || fail "mc completion bash lacks $o"
	done
}

@test "completion: zsh and fish scripts are valid where those shells are installed; bad shells are usage errors" {
	run mc completion zsh
	assert_success
	assert_line --index 0 '#compdef mc'
	if command -v zsh >/dev/null; then mc completion zsh | zsh -n; fi
	run mc completion fish
	assert_success
	assert_line --partial 'complete -c mc -l model -s m -x'
	if command -v fish >/dev/null; then mc completion fish | fish -n; fi
	run --separate-stderr mc completion tcsh
	assert_failure 2
	assert_equal "${stderr_lines[0]}" 'mc: usage: mc completion bash|zsh|fish'
}

@test "completion: make install puts the scripts where bash, zsh and fish look" {
	cd "$MC_TOP"
	run make -s install DESTDIR="$BATS_TEST_TMPDIR/root" PREFIX=/usr
	assert_success
	bash -n "$BATS_TEST_TMPDIR/root/usr/share/bash-completion/completions/mc"
	[ -s "$BATS_TEST_TMPDIR/root/usr/share/zsh/site-functions/_mc" ]
	[ -s "$BATS_TEST_TMPDIR/root/usr/share/fish/vendor_completions.d/mc.fish" ]
	run make -s uninstall DESTDIR="$BATS_TEST_TMPDIR/root" PREFIX=/usr
	assert_success
	[ ! -e "$BATS_TEST_TMPDIR/root/usr/share/bash-completion/completions/mc" ]
	[ ! -e "$BATS_TEST_TMPDIR/root/usr/share/zsh/site-functions/_mc" ]
}

@test "completion: mc sessions completes export; -r, --resume and --fork are completed" {
	run complete_bash 'mc sessions ex'
	assert_output export
	run complete_bash 'mc sessions --a'
	assert_output -- --all
	run complete_bash 'mc --fork'
	assert_output -- --fork
	run complete_bash 'mc --res'
	assert_output -- --resume
	run mc completion fish
	assert_line "complete -c mc -n '__fish_seen_subcommand_from sessions' -f -a export"
}
