#!/usr/bin/env bats
# Modes (SPEC §22): --mode default|accept-edits|plan|yes (--yes is yes),
# permissions.mode, /mode and /go; plan mode offers only read-only tools
# and adds the plan fragment (prompts/plan.md) to the turn. And "always
# for PREFIX" in the approval question.

load helper
load fake
load mc

setup_file_local() {
	own_tmpdir
}

# settings: the fake as provider, with EXTRA-JSON merged in
use_fake_with() {
	jq -nc --arg u "$FAKE_URL" --argjson x "${1:-{\}}" '{provider: "fake", model: "fake-model",
	  providers: {fake: {base_url: $u, api: "chat", api_key_env: null}}} + $x' > "$MC_HOME/settings.json"
}

# the approval events of the run: DECISION BY RULE, one a line
approvals() {
	printf '%s\n' "$output" | jq -r 'select(.type == "approval") | "\(.decision) \(.by) \(.rule // "-")"'
}

# the tools request N offered, sorted, comma-separated
offered() {
	fake_request "$1" '[.body.tools[].function.name] | sort | join(",")'
}

@test "--mode: unknown modes and --yes with another mode are usage errors; --mode yes is --yes" {
	run --separate-stderr mc --mode careful hi
	assert_failure 2
	[[ $stderr == 'mc: --mode: unknown mode "careful" (default, accept-edits, plan or yes)'* ]]
	run --separate-stderr mc --yes --mode plan hi
	assert_failure 2
	[[ $stderr == 'mc: --yes is --mode yes: not with --mode plan'* ]]
	fake_start "[$(calls "$(call c1 bash '{"command":"echo ran"}')"), $(text done)]"
	use_fake
	run --separate-stderr mc --json --mode yes go
	assert_success
	assert_equal "$(approvals)" 'allowed yes mode yes'
	assert_equal "$(fake_request 2 '.body.messages[-1].content')" $'ran\n[exit status 0]'
}

@test "accept-edits: write and edit inside the working directory run unasked; outside, and bash, still ask" {
	printf 'old\n' > f.txt
	fake_start "[$(calls "$(call c1 write '{"path":"sub/new.txt","content":"x"}')" \
	    "$(call c2 edit '{"path":"f.txt","old_string":"old","new_string":"new"}')" \
	    "$(call c3 write "$(jq -nc --arg p "$BATS_TEST_TMPDIR/out.txt" '{path: $p, content: "x"}')")" \
	    "$(call c4 bash '{"command":"echo ran"}')"), $(text done)]"
	use_fake
	run --separate-stderr mc --json --mode accept-edits go
	assert_success
	assert_equal "$(approvals)" "$(printf '%s\n' 'allowed mode mode accept-edits' \
		'allowed mode mode accept-edits' 'refused policy -' 'refused policy -')"
	assert_equal "$(cat sub/new.txt)" x
	assert_equal "$(cat f.txt)" new
	[ ! -e "$BATS_TEST_TMPDIR/out.txt" ]
	# the settings' mode, which --mode overrides
	fake_stop
	fake_start "[$(calls "$(call c1 write '{"path":"g.txt","content":"x"}')"), $(text done),
	  $(calls "$(call c2 write '{"path":"h.txt","content":"x"}')"), $(text done)]"
	use_fake_with '{"permissions":{"mode":"accept-edits"}}'
	run --separate-stderr mc --json go
	assert_equal "$(approvals)" 'allowed mode mode accept-edits'
	run --separate-stderr mc --json --mode default go
	assert_equal "$(approvals)" 'refused policy -'
	[ -e g.txt ] && [ ! -e h.txt ]
}

@test "plan: only read-only tools are offered (MCP ones by readOnlyHint), the plan fragment leads the turn, other calls are refused" {
	fake_start "[$(calls "$(call c1 write '{"path":"w.txt","content":"x"}')" "$(call c2 read '{"path":"r.txt"}')"),
	  $(text 'the plan')]"
	echo readable > r.txt
	use_fake_with "$(jq -nc --arg py "$MC_TOP/t/fake-mcp.py" \
		'{mcp_servers: {srv: {command: "python3", args: [$py, "--read-only", "count"], timeout_s: 10}}}')"
	run --separate-stderr mc --json --mode plan 'plan it' </dev/null
	assert_success
	assert_equal "$(offered 1)" 'find,grep,read,srv__count'
	[[ $(fake_request 1 '.body.messages[1].content') == '<Plan-Mode>'*'</Plan-Mode>'*'plan it' ]]
	assert_equal "$(approvals)" "$(printf '%s\n' 'refused mode mode plan' 'allowed policy -')"
	[[ $(fake_request 2 '.body.messages[-2].content') == 'refused: this is plan mode'* ]]
	[[ $(fake_request 2 '.body.messages[-1].content') == *'1	readable' ]]
	[[ $stderr == *'mc: refused write: plan mode offers only read, grep, find and read-only MCP tools'* ]]
	[ ! -e w.txt ]
}

@test "plan: the fragment is overridable in \$MC_HOME/prompts/plan.md, with strict variables" {
	mkdir -p "$MC_HOME/prompts"
	printf 'PLAN ONLY on {{operating_system}}.\n' > "$MC_HOME/prompts/plan.md"
	fake_start "[$(text 'the plan'), $(text 'again')]"
	use_fake
	run --separate-stderr mc --mode plan 'plan it'
	assert_success
	[[ $(fake_request 1 '.body.messages[1].content') == 'PLAN ONLY on '*$'.\n\nplan it' ]]
	printf 'PLAN {{no_such_thing}}\n' > "$MC_HOME/prompts/plan.md"
	run --separate-stderr mc --mode plan 'plan it'
	assert_failure 1
	[[ $stderr == *"$MC_HOME/prompts/plan.md"*'no_such_thing'* ]]
	assert_equal "$(fake_count)" 1
}

@test "tty: /mode plan, a plan, then /go carries it out in the mode before, with every tool" {
	fake_start "[$(text 'step 1, step 2'),
	  $(calls "$(call c1 write '{"path":"done.txt","content":"x"}')"), $(text 'carried out')]"
	use_fake
	on_tty 'mc --mode accept-edits'
	wait_for 'mc>'
	keys '/mode' Enter
	wait_for 'mode: accept-edits'
	keys '/mode plan' Enter
	wait_for 'mode: plan (read-only tools; /go carries the plan out)'
	keys 'make done.txt' Enter
	wait_for 'step 1, step 2'
	wait_prompt 4
	keys '/go use x' Enter
	wait_for 'carried out'
	wait_prompt 5
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(offered 1)" 'find,grep,read'
	[[ $(fake_request 1 '.body.messages[-1].content') == '<Plan-Mode>'*'make done.txt' ]]
	assert_equal "$(offered 2)" 'bash,edit,find,grep,read,write'
	assert_equal "$(fake_request 2 '.body.messages[-1].content')" 'Carry out the plan. use x'
	# back in accept-edits: the write ran unasked
	pane | grep -q 'mode: accept-edits$'
	! pane | grep -q 'allow write?'
	assert_equal "$(cat done.txt)" x
}

@test "tty: /go outside plan mode and an unknown /mode are said, nothing sent" {
	fake_start "[$(text unused)]"
	use_fake
	on_tty mc
	wait_for 'mc>'
	keys '/go' Enter
	wait_for 'mc: /go: not in plan mode (/mode plan)'
	keys '/mode careful' Enter
	wait_for 'mc: /mode: unknown mode "careful" (default, accept-edits, plan or yes)'
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(fake_count)" 0
}

@test "tty: \"always for PREFIX\" allows the command's first words for the session; the rest still asks" {
	touch keep
	fake_start "$(ask_script "$(call c1 bash '{"command":"ls -a"}')" "$(call c2 bash '{"command":"ls -l && git status --short"}')" \
		"$(call c3 bash '{"command":"ls; rm -f keep"}')" "$(call c4 bash '{"command":"echo $(ls)"}')")"
	use_fake
	on_tty 'mc 2>err.log'
	wait_for 'mc>'
	keys 'go' Enter
	wait_for 'allow bash? [y]es, [n]o, [p] always for `ls`, [a]lways for this tool:'
	keys p Enter
	# ls is allowed now: only git status is offered
	wait_for 'allow bash? [y]es, [n]o, [p] always for `git status`, [a]lways for this tool:'
	keys prefix Enter
	wait_for 'allow bash? [y]es, [n]o, [p] always for `rm`, [a]lways for this tool:'
	keys n Enter
	# a substitution: no prefix to offer
	wait_for 'allow bash? [y]es, [n]o, [a]lways this session:'
	keys p Enter
	wait_for '(answer y or yes, n or no, a or always)'
	keys n Enter
	wait_for 'all done'
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
	[ -e keep ]
	assert_equal "$(pane | grep -c 'allow bash?')" 5
	grep -q 'mc: bash: no rule may allow this command: it has a command substitution' err.log
}

@test "plan: the fragment's message is the session's note, no turn: mc rewind lists the typed message alone" {
	fake_start "[$(text 'the plan')]"
	use_fake_with '{}'
	run --separate-stderr mc --mode plan 'plan it' </dev/null
	assert_success
	jq -se 'map(select(.type == "message" and .mode == "plan")) | length == 1' "$MC_HOME"/sessions/*.jsonl
	run --separate-stderr mc rewind --list
	assert_success
	[[ $output == *'plan it'* ]]
	[[ $output != *'Plan-Mode'* ]]
}
