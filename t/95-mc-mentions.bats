#!/usr/bin/env bats
# Mentions (SPEC §25): @path of a text file attaches it before the message
# as a <Context File=PATH> block, @dir/ lists the folder; what cannot be
# attached is said naming the word, and nothing is sent.

load helper
load fake
load mc

# ctx FILE CONTENT...: the blocks the message carries, then a line "x"
# (which the caller drops: $(...) would drop the newlines before it)
ctx() {
	while [ $# -gt 1 ]; do
		printf '<Context File=%s>\n%s</Context>\n\n' "$1" "$2"
		shift 2
	done
	printf x
}

@test "mentions: @file attaches the text file before the message, once; the message is sent as typed" {
	fake_start "$(answers one two)"
	use_fake
	mkdir -p src
	printf 'int main(void);\n' > src/main.c
	printf 'notes\n' > NOTES
	run --separate-stderr mc 'look at @src/main.c, then (@NOTES) and @src/main.c again.' </dev/null
	assert_success
	assert_output one
	assert_equal "$stderr" ''
	b=$(ctx src/main.c $'int main(void);\n' NOTES $'notes\n')
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" \
		"${b%x}look at @src/main.c, then (@NOTES) and @src/main.c again."
	# the blocks are in the session as user messages before the message
	assert_equal "$(jq -rs '[.[] | select(.type == "message" and .role == "user") | .content[0:22]] | join("|")' $(session_files))" \
		'<Context File=src/main|<Context File=NOTES>
n|look at @src/main.c, t'
}

@test "mentions: @dir/ lists the folder one level down, sorted, folders with a slash" {
	fake_start "$(answers one)"
	use_fake
	mkdir -p src/sub/deeper
	touch src/b.c src/a.c src/.hidden src/sub/deeper/x
	run --separate-stderr mc 'what is in @src/' </dev/null
	assert_success
	b=$(ctx src/ $'src/.hidden\nsrc/a.c\nsrc/b.c\nsrc/sub/\n')
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" "${b%x}what is in @src/"
}

@test "mentions: a folder past the page's entries is listed to the cap and says how many more" {
	fake_start "$(answers one)"
	use_fake
	mkdir big
	(cd big && seq -f 'f%05g' 1 2005 | xargs touch)
	run --separate-stderr mc 'see @big' </dev/null
	assert_success
	fake_request 1 '.body.messages[-1].content' > got
	assert_equal "$(grep -c '^big/f' got)" 2000
	grep -qx '\[5 more entries not listed; the model can list them with find\]' got
	grep -qx 'big/f02000' got
}

@test "mentions: a word that is no path is text: emails, @ at the end, decorators, code" {
	fake_start "$(answers one two)"
	use_fake
	msg=$'mail a@b.com or @alice, see @ and @Override\n@pytest.fixture(scope="x")\n@dataclass\n`@src/nope.c` and\n```\n@src/missing.c\n```\n@nosuch:x@'
	run --separate-stderr mc "$msg" </dev/null
	assert_success
	assert_equal "$stderr" ''
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" "$msg"
	assert_equal "$(fake_request 1 '.body.messages | length')" 2
	# piped input is fenced: its @words are text
	run --separate-stderr mc 'see below' <<<'@src/missing.c'
	assert_success
	assert_equal "$stderr" ''
}

@test "mentions: missing, binary, over-cap, outside and a symlink out are each said naming the word; nothing is sent" {
	own_tmpdir
	fake_start "$(answers one)"
	use_fake
	mkdir -p src
	printf 'ok\n' > src/ok.c
	printf 'a\0b' > blob.bin
	head -c 300000 /dev/zero | tr '\0' x > big.txt
	seq 1 2001 > long.txt
	echo secret > "$BATS_TEST_TMPDIR/outside.txt"
	ln -s "$BATS_TEST_TMPDIR/outside.txt" link.txt
	mkfifo pipe
	for t in "@src/missing.c|mc: @src/missing.c: no such file or directory (in \`backticks\` it is sent as text)" \
		"@blob.bin|mc: @blob.bin: not a text file (3 bytes, binary)" \
		"@big.txt|mc: @big.txt: 300000 bytes, over the 262144-byte cap of a mention (the read tool's page); ask the model to read it" \
		"@long.txt|mc: @long.txt: 2001 lines, over the 2000-line cap of a mention (the read tool's page); ask the model to read it" \
		"@../outside.txt|mc: @../outside.txt: $BATS_TEST_TMPDIR/outside.txt is outside the workspace (the working directory, --add-dir, tools.add_dirs or \$TMPDIR)" \
		"@link.txt|mc: @link.txt: a symbolic link to $BATS_TEST_TMPDIR/outside.txt is outside the workspace (the working directory, --add-dir, tools.add_dirs or \$TMPDIR)" \
		"@pipe|mc: @pipe: not a regular file"; do
		run --separate-stderr mc "see @src/ok.c and ${t%%|*}" </dev/null
		assert_failure 1
		assert_output ''
		assert_equal "$stderr" "${t#*|}"
	done
	# at most 16 files a message
	seq -f 'm%g.txt' 1 17 | xargs touch
	run --separate-stderr mc "$(seq -f '@m%g.txt' 1 17 | paste -sd ' ')" </dev/null
	assert_failure 1
	assert_equal "$stderr" 'mc: @m17.txt: at most 16 mentions a message'
	assert_equal "$(fake_count)" 0
	assert_equal "$(session_files)" ''
	# --add-dir takes the outside directory into the workspace
	run --separate-stderr mc --add-dir .. 'see @link.txt' </dev/null
	assert_success
	[[ $(fake_request 1 '.body.messages[-1].content') == '<Context File=link.txt>'$'\n''secret'* ]]
}

@test "mentions: @file in an interactive line; one that cannot be attached leaves the session as it was" {
	fake_start "$(answers one)"
	use_fake
	printf 'hello\n' > a.txt
	on_tty mc
	wait_prompt 1
	keys 'read @gone/a.txt' Enter
	wait_for 'mc: @gone/a.txt: no such file or directory'
	wait_prompt 2
	keys 'read @a.txt' Enter
	wait_for one
	wait_prompt 3
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(fake_count)" 1
	b=$(ctx a.txt $'hello\n')
	assert_equal "$(fake_request 1 '.body.messages[-1].content')" "${b%x}read @a.txt"
}

@test "!COMMAND: run in the sandbox without the model, its output shown; the next request carries it" {
	fake_start "$(answers one)"
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":\"MYKEY\"}}}"
	on_tty 'MYKEY=zq81secret mc'
	wait_prompt 1
	keys '!' Enter
	wait_for 'mc: !: no command (!COMMAND runs COMMAND in the sandbox)'
	keys '!echo hi from sh; env | grep -c zq81secret; exit 3' Enter
	wait_for '[exit status 3]'
	wait_prompt 3
	# nothing was sent by it
	assert_equal "$(fake_count)" 0
	pane | grep -qx 'hi from sh'
	pane | grep -qx 0
	# output is cut as the bash tool cuts it
	keys '!seq 1 40000' Enter
	wait_for '[exit status 0]'	# (the earlier prompts have scrolled away)
	keys 'what did it say?' Enter
	wait_for one
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(fake_count)" 1
	fake_request 1 '.body.messages[-1].content' > sent
	exp=$(printf 'I ran a command in the sandbox:\n```\n$ echo hi from sh; env | grep -c zq81secret; exit 3\nhi from sh\n0\n[exit status 3]\n```\n\nI ran a command in the sandbox:\n```\n$ seq 1 40000\n1\n2\n')
	assert_equal "$(head -c ${#exp} sent)" "$exp"
	[ "$(wc -c < sent)" -lt 70000 ]
	grep -q '^\[\.\.\. [0-9]* bytes cut from the middle of this output \.\.\.\]$' sent
	assert_equal "$(tail -n 4 sent)" "$(printf '[exit status 0]\n```\n\nwhat did it say?')"
	# in the session: the command's message is no turn of the user's, the title is the message's
	f=$(session_files)
	assert_equal "$(jq -rs '[.[] | select(.shell)] | length' "$f")" 2
	assert_equal "$(jq -rs '[.[] | select(.type == "title")][0].title' "$f")" 'what did it say?'
	run --separate-stderr mc sessions
	[[ $output == *'what did it say?'* ]]
}

@test "!COMMAND: Ctrl-C stops the command, not the session; what it printed is kept; a session it begins has its session_start hooks first" {
	fake_start "$(answers one)"
	hooks '{"session_start":[{"command":"echo from the hook"}]}'
	on_tty mc
	wait_prompt 1
	keys '!echo started; sleep 97' Enter
	wait_for ': started'	# the status line (progress.c): the command runs
	keys C-c
	wait_for '[interrupted by the user: the command and every process it started were killed]'
	wait_prompt 2
	keys 'and now?' Enter
	wait_for one
	wait_prompt 3
	keys C-d
	assert_equal "$(wait_status)" 0
	[[ $(fake_request 1 '.body.messages[-1].content') == '<Context File=hook:0>'$'\n''from the hook'$'\n''</Context>'*$'$ echo started; sleep 97\nstarted\n[interrupted by the user'*'and now?' ]]
	run pgrep -f 'sleep 97'
	assert_failure
}

@test "Tab: after @ it completes file and folder names of the working directory; elsewhere it is a tab" {
	fake_start "$(answers one)"
	use_fake
	mkdir -p alps/inner .hid
	printf 'a\n' > alpha.txt
	touch beta.c alps/inner/deep.txt
	on_tty mc
	wait_prompt 1
	keys 'see @al' Tab
	wait_for 'mc> see @alp'
	keys Tab	# two names: listed
	wait_for 'alpha.txt  alps/'
	keys h Tab 'and @alps' Tab i Tab d Tab ' (@./b' Tab ') @.h' Tab ' x' Tab 'y'
	wait_for 'mc> see @alpha.txt and @alps/inner/deep.txt  (@./beta.c ) @.hid/ x'
	keys Enter
	wait_for one
	wait_prompt 3
	keys C-d
	assert_equal "$(wait_status)" 0
	[[ $(fake_request 1 '.body.messages[-1].content') == *'</Context>'$'\n\n''see @alpha.txt and @alps/inner/deep.txt  (@./beta.c ) @.hid/ x'$'\t''y' ]]
	assert_equal "$(fake_request 1 '.body.messages[-1].content' | grep -c '^<Context File=')" 4
}
