#!/usr/bin/env bats
# Per-model settings (SPEC §26): models.ID.family, models.ID.tools
# include/exclude (schemas and dispatch, MCP tools included),
# models.ID.tool_descriptions; "*" for every model, a specific entry
# winning field by field.

load helper
load fake
load mc

# models JSON [MODEL]: the fake provider (model MODEL, fake-model by
# default), one MCP server "srv" (t/fake-mcp.py), and "models": JSON
models() {
	jq -nc --arg url "$FAKE_URL" --arg model "${2:-fake-model}" --arg mcp "$MC_TOP/t/fake-mcp.py" \
		--argjson models "$1" '{provider: "fake", model: $model,
		  providers: {fake: {base_url: $url, api: "chat", api_key_env: null}},
		  mcp_servers: {srv: {command: "python3", args: [$mcp], approve: false, timeout_s: 10}},
		  models: $models}' > "$MC_HOME/settings.json"
}

# names N: request N's tool names, sorted, joined by commas
names() {
	fake_request "$1" '[.body.tools[].function.name] | sort | join(",")'
}

@test "tools.include offers only the tools named, MCP ones too; a call to another is refused, not run" {
	fake_start "[$(calls "$(call c1 bash '{"command":"touch ran"}')" "$(call c2 srv__echo '{"text":"hi"}')"),
	  $(text done)]"
	models '{"fake-model":{"tools":{"include":["read","srv__echo"]}}}'
	run --separate-stderr mc --yes 'go' </dev/null
	assert_success
	assert_equal "$stderr" ""
	assert_equal "$(names 1)" "read,srv__echo"
	[ ! -e ran ]
	assert_equal "$(tool_content 2 c1)" "error: this tool is not offered to this model (models.ID.tools in the settings); use the tools you were given."
	assert_equal "$(tool_content 2 c2)" hi
}

@test "tools.exclude removes the tools named, from schemas and dispatch; an unknown name is a warning naming it" {
	fake_start "[$(calls "$(call c1 srv__count '{}')"), $(text done)]"
	models '{"fake-model":{"tools":{"exclude":["bash","srv__count","no_such_tool"]}}}'
	run --separate-stderr mc --yes 'go' </dev/null
	assert_success
	assert_equal "$stderr" "mc: warning: $MC_HOME/settings.json: models.fake-model.tools.exclude names no tool of this session: no_such_tool (for model fake-model)"
	n=$(names 1)
	[[ ,$n, != *,bash,* && ,$n, != *,srv__count,* ]]
	[[ ,$n, == *,read,* && ,$n, == *,srv__echo,* ]]
	[[ $(tool_content 2 c1) == 'error: this tool is not offered to this model'* ]]
	# another model is offered everything
	fake_start "[$(text done)]"
	models '{"fake-model":{"tools":{"exclude":["bash"]}}}' other-model
	run --separate-stderr mc 'go' </dev/null
	assert_success
	[[ ,$(names 1), == *,bash,* ]]
}

@test "tool_descriptions replace a tool's description for that model; an unknown name is a warning" {
	fake_start "[$(text done)]"
	models '{"fake-model":{"tool_descriptions":{"read":"Read a file. Prefer this over bash cat.","nope":"x"}}}'
	run --separate-stderr mc 'go' </dev/null
	assert_success
	assert_equal "$stderr" "mc: warning: $MC_HOME/settings.json: models.fake-model.tool_descriptions names no tool of this session: nope (for model fake-model)"
	assert_equal "$(fake_request 1 '.body.tools[] | select(.function.name == "read") | .function.description')" \
		"Read a file. Prefer this over bash cat."
	[[ $(fake_request 1 '.body.tools[] | select(.function.name == "grep") | .function.description') != "" ]]
}

@test "\"*\" applies to every model; a specific entry wins field by field" {
	fake_start "[$(text done)]"
	models '{"*":{"tools":{"exclude":["bash"]},"tool_descriptions":{"read":"star read"}},
	  "fake-model":{"tool_descriptions":{"read":"my read"}}}'
	run --separate-stderr mc 'go' </dev/null
	assert_success
	# its own tool_descriptions, the "*" tools
	assert_equal "$(fake_request 1 '.body.tools[] | select(.function.name == "read") | .function.description')" "my read"
	[[ ,$(names 1), != *,bash,* ]]
	fake_start "[$(text done)]"
	models '{"*":{"tools":{"exclude":["bash"]},"tool_descriptions":{"read":"star read"}}}' other
	run --separate-stderr mc 'go' </dev/null
	assert_success
	assert_equal "$(fake_request 1 '.body.tools[] | select(.function.name == "read") | .function.description')" "star read"
}

@test "family: the family's settings apply to the model, its own win; its prompt overrides too" {
	fake_start "[$(text done)]"
	models '{"big":{"tools":{"include":["read","grep"]},
	    "tool_descriptions":{"grep":"family grep"}},
	  "fake-model":{"family":"big","tool_descriptions":{"read":"own read"}}}'
	jq '.prompt = {model_overrides: [{match: "big", sections: {role: {action: "replace", content: "You are the big one."}}}]}' \
		"$MC_HOME/settings.json" > "$MC_HOME/s.json" && mv "$MC_HOME/s.json" "$MC_HOME/settings.json"
	run --separate-stderr mc 'go' </dev/null
	assert_success
	assert_equal "$(names 1)" "grep,read"
	# tool_descriptions is one field: the model's own wins whole
	assert_equal "$(fake_request 1 '.body.tools[] | select(.function.name == "read") | .function.description')" "own read"
	[[ $(fake_request 1 '.body.tools[] | select(.function.name == "grep") | .function.description') != "family grep" ]]
	[[ $(fake_request 1 '.body.messages[0].content') == *"You are the big one."* ]]
}

@test "a family that names its own model, or a cycle, is an error naming it, before anything is sent" {
	fake_start "[$(text done)]"
	models '{"fake-model":{"family":"fake-model"}}'
	run --separate-stderr mc 'go' </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: models.fake-model.family: names the model itself"
	models '{"a":{"family":"b"},"b":{"family":"c"},"c":{"family":"a"}}'
	run --separate-stderr mc 'go' </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: models.a.family: a cycle: a -> b -> c -> a"
	models '{"fake-model":{"tools":{"include":["read"],"exclude":["bash"]}}}'
	run --separate-stderr mc 'go' </dev/null
	assert_failure 1
	assert_equal "$stderr" "mc: $MC_HOME/settings.json: models.fake-model.tools: \"include\" or \"exclude\", not both"
	assert_equal "$(fake_count)" 0
}

@test "/model: the next request is filtered for the new model" {
	fake_start "[$(text one), $(text two)]"
	models '{"fake-model":{"tools":{"include":["read"]}}}'
	on_tty "mc"
	wait_prompt 1
	keys 'first' Enter
	wait_for one
	wait_prompt 2
	keys '/model other' Enter
	keys 'second' Enter
	wait_for two
	keys '/exit' Enter
	assert_equal "$(wait_status)" 0
	assert_equal "$(names 1)" read
	[[ ,$(names 2), == *,bash,* ]]
}
