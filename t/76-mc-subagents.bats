#!/usr/bin/env bats
# mc's subagents (SPEC §11): the subagents tool runs child mc runs in
# parallel; their roles, sessions, limits, progress and bounded answers.
# The fake provider answers by request content (its "when" and "unless"),
# since the children's requests come in any order.

load helper
load fake
load mc

# profile ID TEXT: $MC_HOME/subagents/ID.md
profile() {
	mkdir -p "$MC_HOME/subagents"
	printf '%s' "$2" > "$MC_HOME/subagents/$1.md"
}

# Each role's body says SUBAGENT-ROLE: the parent's requests never hold it.
two_profiles() {
	profile explorer $'---\nname: Explorer\ndescription: finds facts\n---\nYou explore the code. SUBAGENT-ROLE\n'
	profile planner $'---\nname: Planner\ndescription: plans work\n---\nYou plan the work. SUBAGENT-ROLE\n'
}

# the scripted entries: for the parent (no subagent's role in its
# prompt), for a child whose request holds NEEDLE
parent_text() { # TEXT [WHEN]
	jq -nc --arg t "$1" --arg w "${2:-}" \
		'{unless:"SUBAGENT-ROLE", when:(if $w == "" then [] else [$w] end),
		  answer:{api:"chat",text:$t,usage:[100,10]}}'
}
parent_calls() { # CALL...
	jq -nc --argjson c "[$(IFS=,; echo "$*")]" \
		'{unless:"SUBAGENT-ROLE", answer:{api:"chat",calls:$c,usage:[100,10]}}'
}
child_text() { # NEEDLE TEXT [MORE-JSON]
	jq -nc --arg w "$1" --arg t "$2" --argjson m "${3:-{\}}" \
		'{when:$w, answer:{api:"chat",text:$t,usage:[20,2]}} + $m'
}
child_calls() { # NEEDLE CALL...
	local w=$1
	shift
	jq -nc --arg w "$w" --argjson c "[$(IFS=,; echo "$*")]" \
		'{when:$w, answer:{api:"chat",calls:$c,usage:[20,2]}}'
}
# subagents_call ID TASKS-JSON: the parent's call of the tool
subagents_call() {
	call "$1" subagents "{\"tasks\":$2}"
}
task() { # AGENT PROMPT
	jq -nc --arg a "$1" --arg p "$2" '{agent:$a,prompt:$p}'
}

# every request of the fake, as N TIME ROLE-OR-parent, by time
requests() {
	local f
	for f in "$FAKE_LOG"/*.json; do
		jq -r '[.n, .time, ((.body.messages[0].content | capture("<Your-Role Persona=(?<p>[^>]*)>$"; "m").p) // "parent")] | @tsv' "$f"
	done | sort -k2 -n
}

# three_levels: profiles a, b and c (roles A, B, C), for a tree three deep
three_levels() {
	local a
	for a in a b c; do profile "$a" "---
name: $(tr a-z A-Z <<< "$a")
---
Role $a. SUBAGENT-ROLE
"; done
}

# one_explorer PROMPT: the fake, for a parent that gives the explorer one
# task, the child answering "e" and the parent "ok"
one_explorer() {
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(task explorer "$1")]")"),
	  $(child_text 'Persona=Explorer' 'e'),
	  $(parent_text 'ok' '## task 1')]"
	use_fake
}

# the tools a request offered, by name
offered() { # N
	fake_request "$1" '[.body.tools[].function.name] | join(" ")'
}

# the session file of session ID
session_of() {
	printf '%s/sessions/%s.jsonl' "$MC_HOME" "$1"
}

@test "the tool is offered only when a valid profile exists, after the other tools" {
	settings '{"provider":"openai","model":"m"}'
	run --separate-stderr mc --dry-run 'hi'
	assert_success
	assert_equal "$(jqo -c '[.body.tools[].name] | index("subagents")')" null
	# a profile that is not valid offers nothing
	profile broken $'---\nname: Broken\n'
	profile 'Bad_Id' 'x'
	run --separate-stderr mc --dry-run 'hi'
	assert_equal "$(jqo -c '[.body.tools[].name] | index("subagents")')" null
	two_profiles
	run --separate-stderr mc --dry-run 'hi'
	assert_success
	assert_equal "$(jqo -r '.body.tools[-1].name')" subagents
	assert_equal "$(jqo -c '[.body.tools[].name] | length')" 7
	assert_equal "$(jqo -c '.body.tools[-1].parameters.properties.tasks.items.properties.agent.enum')" \
		'["explorer","planner"]'
	assert_equal "$(jqo -c '.body.tools[-1].parameters.properties.tasks | [.minItems, .maxItems]')" '[1,8]'
	# tools.disabled takes it away, like any tool
	settings '{"provider":"openai","model":"m","tools":{"disabled":["subagents"]}}'
	run --separate-stderr mc --dry-run 'hi'
	assert_equal "$(jqo -c '[.body.tools[].name] | index("subagents")')" null
}

@test "two tasks: two child requests with their roles, never the primary --agent body; the aggregate in the parent's next request" {
	two_profiles
	mkdir -p "$MC_HOME/agents"
	printf -- '---\nname: Boss\n---\nPRIMARY-BODY\n' > "$MC_HOME/agents/boss.md"
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(task explorer 'find the entry point'),$(task planner '--help: plan the refactor')]")"),
	  $(child_text 'Persona=Explorer' 'The entry point is main.c.'),
	  $(child_text 'Persona=Planner' 'Step one: split the file.'),
	  $(parent_text 'Both done.' '## task 1')]"
	use_fake
	run --separate-stderr mc --agent boss 'delegate'
	assert_success
	assert_equal "$output" 'Both done.'
	assert_equal "$(fake_count)" 4
	# the children's requests: their role after the parent's guidance, no primary body
	for n in 2 3; do
		sys=$(fake_request $n '.body.messages[0].content')
		[[ $sys == *'<Subagent-Identities>'* ]]
		[[ $sys != *PRIMARY-BODY* ]]
		[[ $sys != *'Persona=Boss'* ]]
		[[ $sys == *'</Additional-Context-Files>'$'\n\n''<Your-Role Persona='* ]]
	done
	first=$(fake_request 1 '.body.messages[0].content')
	[[ $first == *$'<Your-Role Persona=Boss>\nPRIMARY-BODY\n</Your-Role>'* ]]
	explorer=2
	fake_request 2 '.body.messages[0].content' | grep -q 'Persona=Explorer' || explorer=3
	assert_equal "$(fake_request "$explorer" '.body.messages[1].content')" 'find the entry point'
	# a prompt that looks like an option is still the prompt
	assert_equal "$(fake_request $((5 - explorer)) '.body.messages[1].content')" '--help: plan the refactor'
	# the parent's next request holds the aggregate as the call's output
	out=$(fake_request 4 '.body.messages[-1] | select(.role == "tool") | .content')
	assert_equal "$(printf '%s\n' "$out" | grep -c '^## task ')" 2
	printf '%s\n' "$out" | grep -qE '^## task 1: explorer — done, 1 step, 22 tokens, session [0-9]{8}-[0-9]{6}-[0-9a-f]{6}$'
	printf '%s\n' "$out" | grep -qE '^## task 2: planner — done, 1 step, 22 tokens, session '
	[[ $out == *$'\nThe entry point is main.c.\n\n## task 2'* ]]
	[[ $out == *$'\nStep one: split the file.' ]]
}

@test "child sessions: their own files with parent and agent; the parent's holds the call and its output; subagent events; usage in done" {
	two_profiles
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(task explorer 'look'),$(task planner 'plan')]")"),
	  $(child_calls 'Persona=Explorer' "$(call e1 read '{"path":"notes.txt"}')"),
	  $(child_text 'Persona=Explorer' 'notes say hi' '{"when":["Persona=Explorer","hi there"]}'),
	  $(child_text 'Persona=Planner' 'a plan'),
	  $(parent_text 'summed up' '## task 1')]"
	use_fake
	echo 'hi there' > notes.txt
	run --separate-stderr mc --json 'delegate'
	assert_success
	assert_equal "$stderr" ""
	parent=$(printf '%s\n' "$output" | head -1 | jq -r .id)
	# the subagent events, per task: start, steps, done
	ev=$(printf '%s\n' "$output" | jq -c 'select(.type == "subagent")')
	assert_equal "$(jq -c 'select(.task == 1) | [.event, .step, .tool, .status]' <<< "$ev" | tr '\n' ' ')" \
		'["start",null,null,null] ["step",1,"read",null] ["step",2,"read",null] ["done",null,null,"done"] '
	assert_equal "$(jq -c 'select(.task == 2) | .event' <<< "$ev" | tr '\n' ' ')" '"start" "step" "done" '
	assert_equal "$(jq -c 'select(.event == "done" and .task == 1) | [.agent, .steps, .usage]' <<< "$ev")" \
		'["explorer",2,{"input_tokens":40,"output_tokens":4,"cached_tokens":0}]'
	# the children's tokens join the parent's done totals: 2*110 + 44 + 22
	assert_equal "$(printf '%s\n' "$output" | tail -1 | jq -c '[.reason, .usage.input_tokens, .usage.output_tokens]')" \
		'["stop",260,26]'
	# each child's session: its header names the parent and its agent
	for t in 1 2; do
		id=$(jq -r "select(.event == \"done\" and .task == $t) | .session" <<< "$ev")
		f=$(session_of "$id")
		[ -f "$f" ]
		assert_equal "$(head -1 "$f" | jq -c '[.parent, .agent, .model]')" \
			"[\"$parent\",\"$(jq -r "select(.event == \"done\" and .task == $t) | .agent" <<< "$ev")\",\"fake-model\"]"
	done
	id=$(jq -r 'select(.event == "done" and .task == 1) | .session' <<< "$ev")
	assert_equal "$(grep -c '"type":"function_call_output"' "$(session_of "$id")")" 1
	# the parent's session: its messages, the subagents call and its output only
	f=$(session_of "$parent")
	assert_equal "$(jq -r 'select(.type != "usage") | .type + ":" + (.name // .role // "")' "$f" | tr '\n' ' ')" \
		'session: message:user function_call:subagents function_call_output: message:assistant '
	[ "$(head -1 "$f" | jq -r 'has("parent") or has("agent")')" = false ]
	! grep -q 'notes say hi"' "$f" || grep -q '## task 1' "$f"
	assert_equal "$(grep -c '"type":"usage"' "$f")" 2
	whole_lines
	# `mc -c` goes on with the parent, not a child written later
	touch "$(session_of "$id")"
	run --separate-stderr mc -c --dry-run 'and then'
	assert_success
	assert_equal "$(jqo -r '.body.messages[1].content')" 'delegate'
}

@test "mc sessions: a child's session is marked, and names its parent with --json" {
	two_profiles
	one_explorer 'look around'
	run --separate-stderr mc --json 'delegate'
	assert_success
	parent=$(printf '%s\n' "$output" | head -1 | jq -r .id)
	child=$(printf '%s\n' "$output" | jq -r 'select(.type == "subagent" and .event == "done") | .session')
	run --separate-stderr mc sessions --json
	assert_success
	assert_equal "$(jqo -s -S -c 'map({(.id): .parent}) | add')" "$(jq -nSc --arg c "$child" --arg p "$parent" '{($c): $p, ($p): null}')"
	run --separate-stderr mc sessions
	assert_success
	assert_equal "$(grep -c . <<< "$output")" 2
	[[ $(grep "^$child " <<< "$output") == *' tokens  [subagent] look around' ]]
	[[ $(grep "^$parent " <<< "$output") == *' tokens  delegate' ]]
}

@test "an answer is cut to 16 KiB, the whole output to 64 KiB, with markers naming the transcripts" {
	for a in a b c d e; do profile "$a" "---
name: N$a
---
Role $a. SUBAGENT-ROLE
"; done
	big=$(head -c 40000 /dev/zero | tr '\0' 'x')
	small='short answer'
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(task a one)]")"),
	  $(child_text 'Persona=Na' "$big"),
	  $(parent_calls "$(subagents_call s2 "[$(task a one),$(task b two),$(task c three),$(task d four),$(task e five)]")"),
	  $(child_text 'Persona=Na' "$big"), $(child_text 'Persona=Nb' "$small"),
	  $(child_text 'Persona=Nc' "$big"), $(child_text 'Persona=Nd' "$big"), $(child_text 'Persona=Ne' "$big"),
	  $(parent_text 'done')]"
	use_fake
	run --separate-stderr mc --json 'go'
	assert_success
	one=$(printf '%s\n' "$output" | jq -r 'select(.type == "tool_output" and .call_id == "s1") | .output')
	assert_equal "$(printf '%s\n' "$output" | jq -j 'select(.type == "tool_output" and .call_id == "s1") | .output' | wc -c)" 16384
	id=$(printf '%s\n' "$output" | jq -r 'select(.type == "subagent" and .event == "done") | .session' | head -1)
	last=$(printf '%s\n' "$one" | tail -1)
	[[ $last =~ ^\[\.\.\.\ cut\ here:\ ([0-9]+)\ more\ bytes\ of\ this\ answer\;\ the\ whole\ transcript\ is\ in\ (.*)\]$ ]]
	assert_equal "${BASH_REMATCH[2]}" "$(session_of "$id")"
	# what was kept and what was cut make the whole answer
	kept=$(printf '%s\n' "$one" | sed -n 2p | tr -d '\n' | wc -c)
	assert_equal $((kept + BASH_REMATCH[1])) 40000
	grep -q "$big" "$(session_of "$id")"
	five=$(printf '%s\n' "$output" | jq -r 'select(.type == "tool_output" and .call_id == "s2") | .output')
	size=$(printf '%s\n' "$output" | jq -j 'select(.type == "tool_output" and .call_id == "s2") | .output' | wc -c)
	[ "$size" -le 65536 ]
	[ "$size" -gt 65000 ]
	assert_equal "$(printf '%s\n' "$five" | grep -c '^## task ')" 5
	assert_equal "$(printf '%s\n' "$five" | grep -c '^\[\.\.\. cut here: ')" 4
	# the short answer is whole; the others share what is left alike
	[[ $five == *$'\nshort answer\n\n## task 3'* ]]
	sizes=$(printf '%s\n' "$five" | awk '/^## task /{if (n) print n; n=0} {n += length($0) + 1} END {print n}')
	assert_equal "$(printf '%s\n' "$sizes" | sort -u | wc -l)" 3	# the short one, the cut ones (±1 by the marker's digits)
}

@test "disabled_tools narrow the child's tools and its dispatch, not its guidance; ancestors' carry down" {
	profile explorer $'---\nname: Explorer\ndisabled_tools: write, bash\n---\nExplore. SUBAGENT-ROLE\n'
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(task explorer 'write it')]")"),
	  $(child_calls 'Persona=Explorer' "$(call w1 write '{"path":"made.txt","content":"x"}')"),
	  $(child_text 'Persona=Explorer' 'could not'),
	  $(parent_text 'ok' '## task 1')]"
	use_fake
	run --separate-stderr mc --yes --json 'go'
	assert_success
	assert_equal "$(offered 1)" 'read write edit bash grep find subagents'
	assert_equal "$(offered 2)" 'read edit grep find subagents'
	# the same guidance as the parent's
	assert_equal "$(fake_request 2 '.body.messages[0].content' | sed -n '/<Tools>/,/<\/Tools>/p')" \
		"$(fake_request 1 '.body.messages[0].content' | sed -n '/<Tools>/,/<\/Tools>/p')"
	[ ! -e made.txt ]
	assert_equal "$(fake_request 3 '.body.messages[-1].content')" \
		'error: this tool is disabled for this subagent (disabled_tools of its profile); use the tools you were given.'
	# a child of that child cannot have them back
	run --separate-stderr mc --dry-run --subagent explorer --subagent explorer 'x'
	assert_equal "$(jqo -r '[.body.messages[0].content | scan("<Your-Role Persona=Explorer>")] | length')" 2
	printf -- '---\nname: Free\n---\nFree.\n' > "$MC_HOME/subagents/free.md"
	run --separate-stderr mc --dry-run --subagent explorer --subagent free 'x'
	assert_success
	assert_equal "$(jqo -r '[.body.tools[].function.name] | join(" ")')" 'read edit grep find subagents'
	# disabled_tools may take the subagents tool away
	printf -- '---\ndisabled_tools: [subagents]\n---\nNo nesting.\n' > "$MC_HOME/subagents/leaf.md"
	run --separate-stderr mc --dry-run --subagent leaf 'x'
	assert_equal "$(jqo -r '[.body.tools[].function.name] | join(" ")')" 'read write edit bash grep find'
}

@test "children never prompt: refused without --yes, with the reason; allowed with --yes or --allow" {
	two_profiles
	script() {
		echo "[$(parent_calls "$(subagents_call s1 "[$(task explorer 'make it')]")"),
		  $(child_calls 'Persona=Explorer' "$(call b1 bash '{"command":"echo made > made.txt"}')"),
		  $(child_text 'Persona=Explorer' 'tried'),
		  $(parent_text 'ok' '## task 1')]"
	}
	fake_start "$(script)"
	use_fake
	run --separate-stderr mc --json 'go'
	assert_success
	[ ! -e made.txt ]
	out=$(fake_request 3 '.body.messages[-1].content')
	[[ $out == 'refused: a subagent may run write, edit, bash and MCP tools only where its parent session would without asking'* ]]
	# the child said nothing on a terminal of its own: no prompt, no note
	assert_equal "$stderr" ""
	fake_stop
	fake_start "$(script)"
	use_fake
	run --separate-stderr mc --yes --json 'go'
	assert_success
	assert_equal "$(cat made.txt)" made
	rm made.txt
	fake_stop
	fake_start "$(script)"
	use_fake
	run --separate-stderr mc --allow bash --json 'go'
	assert_success
	assert_equal "$(cat made.txt)" made
}

@test "no process of a subagent's run shows the provider key in /proc/PID/environ: the child mc, its mc-send" {
	two_profiles
	keyscan
	export FAKE_SECRET=sk-test-subagent
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(task explorer 'look')]")"),
	  $(child_calls 'Persona=Explorer' "$(call b1 bash '{"command":"sh scan.sh sk-test; echo checked"}')"),
	  $(child_text 'Persona=Explorer' 'looked'),
	  $(parent_text 'ok' '## task 1')]"
	# Unsandboxed: the sandbox's PID namespace would hide the processes
	# the scan must see (t/66 attacks that).
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",\"tools\":{\"sandbox\":{\"mode\":\"off\"}},
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":\"FAKE_SECRET\"}}}"
	run --separate-stderr mc --yes 'go'
	assert_success
	out=$(fake_request 3 '.body.messages[-1].content')
	[[ $out == *checked* && $out != *LEAK* ]] || fail "$out"
	# the parent's mc and mc-send, the child's mc, mc-send and mc-tool
	[[ "$out" =~ seen\ ([0-9]+) ]] || fail "$out"
	[ "$(id -u)" -ne 0 ] || [ "${BASH_REMATCH[1]}" -ge 5 ] || fail "$out"
	assert_equal "$(fake_request 3 '.headers.authorization')" "Bearer sk-test-subagent"
}

@test "a child runs in the mode its parent is in now, not the settings' mode" {
	two_profiles
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(task explorer 'make it')]")"),
	  $(child_calls 'Persona=Explorer' "$(call b1 bash '{"command":"echo made > made.txt"}')"),
	  $(child_text 'Persona=Explorer' 'tried'),
	  $(parent_text 'ok' '## task 1')]"
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",\"permissions\":{\"mode\":\"yes\"},
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}}}"
	# the parent asked for the default mode: its child asks too (and, asking
	# no one, refuses), though the settings say yes
	run --separate-stderr mc --mode default --json 'go'
	assert_success
	[ ! -e made.txt ]
	[[ $(fake_request 3 '.body.messages[-1].content') == 'refused: '* ]]
}

@test "bad calls are the model's to read: 9 tasks, none, an unknown or broken agent, bad arguments" {
	two_profiles
	profile broken $'---\nname: Broken\n'
	nine=$(for i in 1 2 3 4 5 6 7 8 9; do task explorer "t$i"; done | paste -sd,)
	fake_start "[$(parent_calls "$(subagents_call s1 "[$nine]")"),
	  $(parent_calls "$(subagents_call s2 '[]')"),
	  $(parent_calls "$(subagents_call s3 "[$(task explorer ok),$(task ghost boo)]")"),
	  $(parent_calls "$(subagents_call s4 "[$(task broken boo)]")"),
	  $(parent_calls "$(call s5 subagents '{"tasks":"all of them"}')"),
	  $(parent_calls "$(subagents_call s6 '[{"agent":"explorer","prompt":"  "}]')"),
	  $(parent_text 'gave up')]"
	use_fake
	run --separate-stderr mc --json 'go'
	assert_success
	assert_equal "$(fake_count)" 7	# no child ran
	outs=$(printf '%s\n' "$output" | jq -r 'select(.type == "tool_output") | .output')
	assert_equal "$(printf '%s\n' "$outs" | sed -n 1p)" 'error: subagents: 9 tasks; give 1 to 8 per call (call it again for more).'
	assert_equal "$(printf '%s\n' "$outs" | sed -n 2p)" 'error: subagents: 0 tasks; give 1 to 8 per call (call it again for more).'
	assert_equal "$(printf '%s\n' "$outs" | sed -n 3p)" 'error: subagents: tasks[1]: no subagent "ghost"; the subagents are: explorer, planner.'
	assert_equal "$(printf '%s\n' "$outs" | sed -n 4p)" "error: subagents: tasks[0]: $MC_HOME/subagents/broken.md: unterminated frontmatter (no closing --- line)"
	assert_equal "$(printf '%s\n' "$outs" | sed -n 5p)" 'error: subagents: the arguments must be {"tasks":[{"agent":"ID","prompt":"..."}, ...]}'
	assert_equal "$(printf '%s\n' "$outs" | sed -n 6p)" 'error: subagents: tasks[0]: the prompt is empty.'
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.type == "subagent")')" ""
}

@test "parallel: the children's requests overlap in time; max_parallel queues the rest" {
	two_profiles
	script() {
		echo "[$(parent_calls "$(subagents_call s1 "[$(task explorer one),$(task planner two)]")"),
		  $(child_text 'Persona=Explorer' 'e' '{"delay":1}'),
		  $(child_text 'Persona=Planner' 'p' '{"delay":1}'),
		  $(parent_text 'ok' '## task 1')]"
	}
	fake_start "$(script)"
	use_fake
	run --separate-stderr mc --json 'go'
	assert_success
	t2=$(fake_request 2 .time)
	t3=$(fake_request 3 .time)
	# each child's request came while the other's answer was still on its way
	awk -v a="$t2" -v b="$t3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 0.9) }'
	# both started before either was done
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.type == "subagent" and .event != "step") | .event' | tr '\n' ' ')" \
		'start start done done '
	# one at a time: the second starts when the first is done
	fake_stop
	fake_start "$(script)"
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",\"subagents\":{\"max_parallel\":1},
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}}}"
	run --separate-stderr mc --json 'go'
	assert_success
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.type == "subagent" and .event != "step") | "\(.event)\(.task)"' | tr '\n' ' ')" \
		'start1 done1 start2 done2 '
	t2=$(fake_request 2 .time)
	t3=$(fake_request 3 .time)
	awk -v a="$t2" -v b="$t3" 'BEGIN { exit !(b - a >= 1) }'
}

@test "depth: a child may call subagents down to the third level, which is not offered the tool" {
	three_levels
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(task a 'go a')]")"),
	  $(jq -nc --argjson c "[$(subagents_call s2 "[$(task b 'go b')]")]" '{when:"Persona=A", unless:["Persona=B","## task 1"], answer:{api:"chat",calls:$c}}'),
	  $(jq -nc --argjson c "[$(subagents_call s3 "[$(task c 'go c')]")]" '{when:["Persona=A","Persona=B"], unless:["Persona=C","## task 1"], answer:{api:"chat",calls:$c}}'),
	  $(child_text 'Persona=C' 'deep answer'),
	  $(jq -nc '{when:["Persona=B","## task 1: c"], unless:"Persona=C", answer:{api:"chat",text:"b passes it on"}}'),
	  $(jq -nc '{when:["Persona=A","## task 1: b"], unless:"Persona=B", answer:{api:"chat",text:"a passes it on"}}'),
	  $(parent_text 'top answer' '## task 1: a')]"
	use_fake
	run --separate-stderr mc --json 'go deep'
	assert_success
	assert_equal "$(fake_count)" 7
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.type == "text") | .delta' | tr -d '\n')" 'top answer'
	# each level's request: its tools, its roles in order
	for f in "$FAKE_LOG"/*.json; do
		roles=$(jq -r '[.body.messages[0].content | scan("<Your-Role Persona=([A-Z])>")[]] | join("")' "$f")
		tools=$(jq -r '[.body.tools[].function.name] | index("subagents") != null' "$f")
		echo "$roles $tools"
	done | sort -u > levels
	assert_equal "$(cat levels)" "$(printf '%s\n' ' true' 'A true' 'AB true' 'ABC false')"
	# the deepest child's session names its parent, the second level's session
	ids=$(jq -r 'select(.type == "session" and .agent != null) | "\(.agent) \(.id) \(.parent)"' "$MC_HOME"/sessions/*.jsonl)
	b=$(awk '$1 == "b" {print $2}' <<< "$ids")
	assert_equal "$(awk '$1 == "c" {print $3}' <<< "$ids")" "$b"
	# the top run's stream tells of its own children only
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.type == "subagent") | .agent' | sort -u)" a
	# and no level deeper than three
	run --separate-stderr mc --dry-run --subagent a --subagent b --subagent c --subagent a 'x'
	assert_failure 2
	assert_equal "${stderr_lines[0]}" 'mc: --subagent: at most 3 levels of subagents'
}

@test "a profile's model is the child's; a failed child says why; the others still answer" {
	profile explorer $'---\nname: Explorer\nmodel: small-model\n---\nExplore. SUBAGENT-ROLE\n'
	profile planner $'---\nname: Planner\n---\nPlan. SUBAGENT-ROLE\n'
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(task explorer one),$(task planner two)]")"),
	  $(child_text 'Persona=Explorer' 'small answer'),
	  {\"when\":\"Persona=Planner\",\"status\":400,\"json\":{\"error\":{\"message\":\"context too long\"}}},
	  $(parent_text 'ok' '## task 1')]"
	use_fake
	run --separate-stderr mc --json 'go'
	assert_success
	for n in 2 3; do
		if fake_request $n '.body.messages[0].content' | grep -q Persona=Explorer; then
			assert_equal "$(fake_request $n .body.model)" small-model
		else
			assert_equal "$(fake_request $n .body.model)" fake-model
		fi
	done
	assert_equal "$(fake_request 1 .body.model)" fake-model
	out=$(printf '%s\n' "$output" | jq -r 'select(.type == "tool_output") | .output')
	printf '%s\n' "$out" | grep -q '^## task 1: explorer — done, 1 step'
	printf '%s\n' "$out" | grep -q '^## task 2: planner — failed, 1 step, 0 tokens, session '
	printf '%s\n' "$out" | grep -qx '(error: HTTP 400 from fake: context too long)'
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.type == "subagent" and .event == "start" and .task == 1) | .model')" small-model
}

@test "Ctrl-C cancels every child: their processes end, their sessions keep what they did, the parent's too" {
	two_profiles
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(task explorer one),$(task planner two),$(task explorer three)]")"),
	  $(child_text 'Persona=Explorer' 'explorer words then a pause' '{"stall_after":700,"stall":60,"times":2}'),
	  $(child_text 'Persona=Planner' 'planner words then a pause' '{"stall_after":700,"stall":60}')]"
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",\"subagents\":{\"max_parallel\":2},
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}}}"
	mc --json 'go' </dev/null >out 2>err &
	pid=$!
	# both running children have a step under way (their text is coming)
	for ((i = 0; i < 200; i++)); do
		[ "$(jq -r 'select(.type == "subagent" and .event == "step") | .task' out 2>/dev/null | sort -u | wc -l)" -ge 2 ] && break
		sleep 0.05
	done
	procs=$(tree "$pid")
	[ "$(printf '%s\n' "$procs" | wc -l)" -ge 5 ]	# mc, its mc-send, two children and theirs
	kill -INT "$pid"
	status=0
	wait "$pid" || status=$?
	assert_equal "$status" 130
	for ((i = 0; i < 100; i++)); do
		[ -z "$(alive $procs)" ] && break
		sleep 0.05
	done
	assert_equal "$(alive $procs)" ""
	assert_equal "$(tail -1 out | jq -r '.type + " " + .reason')" 'done cancelled'
	assert_equal "$(jq -r 'select(.type == "subagent" and .event == "done") | "\(.task) \(.status)"' out | sort | tr '\n' ' ')" \
		'1 cancelled 2 cancelled 3 cancelled '
	# the third never started
	assert_equal "$(jq -r 'select(.type == "subagent" and .event == "start") | .task' out | sort | tr '\n' ' ')" '1 2 '
	assert_equal "$(fake_count)" 3
	whole_lines
	parent=$(head -1 out | jq -r .id)
	aggregate=$(jq -r 'select(.type == "function_call_output") | .output' "$(session_of "$parent")")
	assert_equal "$(printf '%s\n' "$aggregate" | grep -c '^## task .* cancelled, ')" 3
	printf '%s\n' "$aggregate" | grep -q '^explorer words'
	# each child's session holds its prompt and the words it had, marked cut short
	for id in $(jq -r 'select(.type == "subagent" and .event == "done" and .session != null) | .session' out); do
		f=$(session_of "$id")
		assert_equal "$(jq -r 'select(.type == "message") | .role' "$f" | tr '\n' ' ')" 'user assistant '
		assert_equal "$(tail -1 "$f" | jq -r .status)" incomplete
	done
}

@test "usage errors: --subagent, --parent, --allow" {
	profile explorer $'Explore.\n'
	run --separate-stderr mc --subagent Explorer 'x'
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "mc: --subagent: invalid profile id \"Explorer\" (1 to 64 lower-case letters, digits and '-')"
	run --separate-stderr mc --parent 20250101-000000-abcdef 'x'
	assert_failure 2
	assert_equal "${stderr_lines[0]}" 'mc: --parent goes with --subagent'
	run --separate-stderr mc --parent '../x' --subagent explorer 'x'
	assert_failure 2
	assert_equal "${stderr_lines[0]}" 'mc: --parent: not a session id: ../x'
	run --separate-stderr mc --subagent explorer --agent boss 'x'
	assert_failure 2
	assert_equal "${stderr_lines[0]}" "mc: --agent is the main session's role, --subagent a child's: not both"
	run --separate-stderr mc --subagent explorer -c 'x'
	assert_failure 2
	assert_equal "${stderr_lines[0]}" 'mc: --subagent starts a session of its own: not with -c, --session or -r'
	run --separate-stderr mc --allow '' 'x'
	assert_failure 2
	assert_equal "${stderr_lines[0]}" 'mc: --allow: an empty tool name'
	run --separate-stderr mc sessions --allow bash
	assert_failure 2
	# a profile that is gone is the child's runtime failure, named
	settings '{"provider":"openai","model":"m"}'
	run --separate-stderr mc --dry-run --subagent ghost 'x'
	assert_failure 1
	assert_equal "$stderr" "mc: --subagent ghost: no such profile: $MC_HOME/subagents/ghost.md"
	# `mc prompt` shows a child's prompt
	run --separate-stderr mc prompt --subagent explorer
	assert_success
	assert_equal "$(printf '%s\n' "$output" | tail -3)" $'<Your-Role Persona=explorer>\nExplore.\n</Your-Role>'
}

@test "on a terminal: one status line per child, redrawn in place; an \"always\" answer is the children's leave" {
	two_profiles
	fake_start "[$(parent_calls "$(call c1 bash '{"command":"echo top > top.txt"}')"),
	  $(parent_calls "$(subagents_call s1 "[$(task explorer 'make child.txt'),$(task planner 'wait')]")"),
	  $(child_calls 'Persona=Explorer' "$(call b1 bash '{"command":"echo child > child.txt"}')"),
	  $(child_text 'Persona=Explorer' 'made it' '{"when":["Persona=Explorer","b1"]}'),
	  $(child_text 'Persona=Planner' 'waited' '{"delay":1}'),
	  $(parent_text 'all done' '## task 1')]"
	use_fake
	on_tty mc
	wait_for 'mc>'
	keys 'go' Enter
	wait_for 'allow bash?'
	keys a Enter
	wait_for 'all done'
	wait_prompt 2
	keys C-d
	assert_equal "$(wait_status)" 0
	assert_equal "$(cat top.txt)" top
	assert_equal "$(cat child.txt)" child
	assert_equal "$(pane | grep -c 'subagent 1 explorer')" 1
	assert_equal "$(pane | grep -c 'subagent 2 planner')" 1
	pane | grep -qx '  subagent 1 explorer: done, 2 steps, 44 tokens'
	pane | grep -qx '  subagent 2 planner: done, 1 step, 22 tokens'
}

@test "on a terminal: while a child runs, its line says its step and last tool" {
	two_profiles
	echo 'hi there' > notes.txt
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(task explorer look)]")"),
	  $(child_calls 'Persona=Explorer' "$(call r1 read '{"path":"notes.txt"}')"),
	  $(child_text 'Persona=Explorer' 'found it' '{"when":["Persona=Explorer","hi there"],"delay":3}'),
	  $(parent_text 'all done' '## task 1')]"
	use_fake
	on_tty "mc go"
	# the child's second request stalls: its line holds still
	wait_for 'subagent 1 explorer: step'
	assert_equal "$(pane | grep 'subagent 1 explorer')" '  subagent 1 explorer: step 1, read'
	wait_for 'all done'
	assert_equal "$(wait_status)" 0
	# redrawn in place: one line, now saying how it ended
	assert_equal "$(pane | grep 'subagent 1 explorer')" '  subagent 1 explorer: done, 2 steps, 44 tokens'
}

@test "max_parallel is 4 unless set: of 5 stalling tasks, 4 start before the first is done" {
	profile explorer $'---\nname: Explorer\ndescription: finds facts\n---\nYou explore. SUBAGENT-ROLE\n'
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(for i in 1 2 3 4 5; do task explorer "task $i"; done | paste -sd,)]")"),
	  $(child_text 'Persona=Explorer' 'e' '{"delay":2,"times":5}'),
	  $(parent_text 'ok' '## task 1')]"
	use_fake
	run --separate-stderr mc --json 'go'
	assert_success
	ev=$(printf '%s\n' "$output" | jq -r 'select(.type == "subagent" and .event != "step") | .event')
	# four at once, the fifth queued until one is done
	assert_equal "$(sed -n 1,5p <<< "$ev" | tr '\n' ' ')" 'start start start start done '
	assert_equal "$(grep -c start <<< "$ev") $(grep -c done <<< "$ev")" '5 5'
	assert_equal "$(fake_count)" 7
}

@test "--no-session: the children keep no session either" {
	two_profiles
	one_explorer one
	run --separate-stderr mc --no-session --json 'go'
	assert_success
	assert_equal "$(session_files)" ""
	printf '%s\n' "$output" | jq -r 'select(.type == "tool_output") | .output' | grep -qx '## task 1: explorer — done, 1 step, 22 tokens, session none'
	assert_equal "$(printf '%s\n' "$output" | jq -c 'select(.type == "subagent" and .event == "done") | .session')" null
}

@test "the parent's --max-steps goes to its children: a child stopped by it says so" {
	two_profiles
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(task explorer one)]")"),
	  $(child_calls 'Persona=Explorer' "$(call r1 read '{"path":"notes.txt"}')")]"
	use_fake
	echo hi > notes.txt
	run --separate-stderr mc --json --max-steps 1 'go'
	assert_failure 3
	out=$(printf '%s\n' "$output" | jq -r 'select(.type == "tool_output") | .output')
	printf '%s\n' "$out" | grep -q '^## task 1: explorer — max_steps, 1 step, 22 tokens, session '
	printf '%s\n' "$out" | grep -qx '(stopped by --max-steps after 1 step)'
	assert_equal "$(printf '%s\n' "$output" | tail -1 | jq -r .reason)" max_steps
}

@test "max_total bounds the whole tree: of 28 children over three levels, never more than 3 at the provider at once" {
	three_levels
	tasks() { # AGENT N
		local i
		for ((i = 1; i <= $2; i++)); do task "$1" "go $1 $i"; done | paste -sd,
	}
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(tasks a 4)]")"),
	  $(jq -nc --argjson c "[$(subagents_call s2 "[$(tasks b 2)]")]" '{when:"Persona=A", unless:["Persona=B","## task 1"], times:4, answer:{api:"chat",calls:$c}}'),
	  $(jq -nc --argjson c "[$(subagents_call s3 "[$(tasks c 2)]")]" '{when:["Persona=A","Persona=B"], unless:["Persona=C","## task 1"], times:8, answer:{api:"chat",calls:$c}}'),
	  $(child_text 'Persona=C' 'leaf' '{"delay":0.3,"times":16}'),
	  $(jq -nc '{when:["Persona=B","## task 1: c"], unless:"Persona=C", times:8, answer:{api:"chat",text:"b done"}}'),
	  $(jq -nc '{when:["Persona=A","## task 1: b"], unless:"Persona=B", times:4, answer:{api:"chat",text:"a done"}}'),
	  $(parent_text 'top answer' '## task 1: a')]"
	settings "{\"provider\":\"fake\",\"model\":\"fake-model\",\"subagents\":{\"max_total\":3},
	  \"providers\":{\"fake\":{\"base_url\":\"$FAKE_URL\",\"api\":\"chat\",\"api_key_env\":null}}}"
	run --separate-stderr mc --json 'go wide'
	assert_success
	assert_equal "$(printf '%s\n' "$output" | jq -r 'select(.type == "text") | .delta' | tr -d '\n')" 'top answer'
	assert_equal "$(fake_count)" 42
	# the requests being answered when each came: the top's own, and at most 3 children's
	most=$(jq -s 'map(.open) | max' "$FAKE_LOG"/*.json)
	echo "at most $most at once"
	[ "$most" -le 3 ]
	# every child's answer came back whole
	assert_equal "$(jq -r '.body.messages[] | select(.role == "tool") | .content' "$FAKE_LOG"/*.json |
		grep -c '^## task [0-9]: [abc] — done')" 28
	# the tree's slots are gone with it
	assert_equal "$(ls "$MC_HOME/run" 2>/dev/null)" ''
	# the setting is checked
	settings '{"subagents":{"max_total":0}}'
	run --separate-stderr mc --dry-run 'x'
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: subagents.max_total: expected a whole number from 1"
}

@test "checkpoints: the parent's turn covers its children's changes; a child takes none of its own" {
	two_profiles
	fake_start "[$(parent_calls "$(subagents_call s1 "[$(task explorer 'make it')]")"),
	  $(child_calls 'Persona=Explorer' "$(call b1 bash '{"command":"echo made > made.txt"}')"),
	  $(child_text 'Persona=Explorer' 'made'),
	  $(parent_text 'ok' '## task 1')]"
	use_fake
	run --separate-stderr mc --yes 'go'
	assert_success
	assert_equal "$(cat made.txt)" made
	# one log: the parent's
	assert_equal "$(ls "$MC_HOME"/checkpoints/*.jsonl | wc -l)" 1
	run --separate-stderr mc rewind
	assert_success
	assert_output "$(printf '  removed  made.txt\nfiles: as before turn 1')"
	[ ! -e made.txt ]
}
