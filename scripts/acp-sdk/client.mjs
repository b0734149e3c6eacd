// scripts/acp-sdk/client.mjs: make acp-sdk's client. Drives `mc acp` with
// the ACP TypeScript SDK's ClientSideConnection through a prompt, a tool
// call with its permission request (and a read through fs/read_text_file),
// a cancel mid-stream, and a load of the session in a second `mc acp`.
// Prints one line per check; exits 1 when one fails.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [mc, cwd] = process.argv.slice(2);
let failed = 0;

function check(what, ok, got) {
	console.log(`${ok ? "ok" : "FAIL"} ${what}${ok ? "" : ": " + JSON.stringify(got)}`);
	if (!ok) failed++;
}

// A client that keeps every update, answers permission requests with
// allow_once, and holds one buffer, notes.txt, unsaved in "the editor".
function start() {
	const child = spawn(mc, ["acp"], { cwd, stdio: ["pipe", "pipe", "inherit"] });
	const seen = { updates: [], permissions: [], reads: [], onUpdate: null };
	const client = {
		async requestPermission(params) {
			seen.permissions.push(params);
			return { outcome: { outcome: "selected", optionId: "allow_once" } };
		},
		async sessionUpdate(params) {
			seen.updates.push(params.update);
			if (seen.onUpdate) seen.onUpdate(params.update);
		},
		async readTextFile(params) {
			seen.reads.push(params.path);
			return { content: "the editor's unsaved text\n" };
		},
		async writeTextFile() {
			return {};
		},
	};
	const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
	const conn = new acp.ClientSideConnection(() => client, stream);
	return { child, conn, seen };
}

const text = (updates) => updates.filter((u) => u.sessionUpdate === "agent_message_chunk")
	.map((u) => u.content.text).join("");

const a = start();
const init = await a.conn.initialize({
	protocolVersion: acp.PROTOCOL_VERSION,
	clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
});
check("initialize: protocol 1, loadSession", init.protocolVersion === 1 &&
	init.agentCapabilities.loadSession === true, init);
const made = await a.conn.newSession({ cwd, mcpServers: [] });
check("session/new: an mc session id, the four modes", /^\d{8}-\d{6}-[0-9a-f]{6}$/.test(made.sessionId) &&
	made.modes.availableModes.map((m) => m.id).join(",") === "default,accept-edits,plan,yes", made);
const sessionId = made.sessionId;

let r = await a.conn.prompt({ sessionId, prompt: [{ type: "text", text: "say hello" }] });
check("prompt: end_turn", r.stopReason === "end_turn", r);
check("prompt: the answer as agent_message_chunk", text(a.seen.updates) === "hello from mc", text(a.seen.updates));

a.seen.updates = [];
r = await a.conn.prompt({ sessionId, prompt: [{ type: "text", text: "run it" }] });
check("tool call: end_turn", r.stopReason === "end_turn", r);
check("tool call: one permission request, for bash, with the four kinds",
	a.seen.permissions.length === 1 && a.seen.permissions[0].toolCall.toolCallId === "call_1" &&
	["allow_once", "allow_always", "reject_once", "reject_always"].every((k) =>
		a.seen.permissions[0].options.some((o) => o.kind === k)), a.seen.permissions);
const calls = a.seen.updates.filter((u) => u.sessionUpdate === "tool_call");
check("tool call: tool_call updates, kind execute and read",
	calls.map((c) => `${c.toolCallId}:${c.kind}`).join(",") === "call_1:execute,call_2:read", calls);
const done = a.seen.updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
check("tool call: completed with the command's output",
	done.some((u) => u.toolCallId === "call_1" && u.content[0].content.text.startsWith("ran")), done);
check("fs: read through fs/read_text_file, the editor's text read",
	a.seen.reads.length === 1 && a.seen.reads[0] === `${cwd}/notes.txt` &&
	done.some((u) => u.toolCallId === "call_2" && u.content[0].content.text.includes("unsaved text")),
	{ reads: a.seen.reads, done });

a.seen.updates = [];
a.seen.onUpdate = (u) => {
	if (u.sessionUpdate === "agent_message_chunk") {
		a.seen.onUpdate = null;
		a.conn.cancel({ sessionId });
	}
};
r = await a.conn.prompt({ sessionId, prompt: [{ type: "text", text: "keep talking" }] });
check("cancel mid-stream: stopReason cancelled", r.stopReason === "cancelled", r);
a.child.stdin.end();
await new Promise((ok) => a.child.on("exit", ok));
check("the first mc acp exited 0 when its stdin closed", a.child.exitCode === 0, a.child.exitCode);

const b = start();
await b.conn.initialize({ protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
const loaded = await b.conn.loadSession({ sessionId, cwd, mcpServers: [] });
const users = b.seen.updates.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text);
check("session/load: the history replayed before the answer",
	users.join("|") === "say hello|run it|keep talking" && text(b.seen.updates).startsWith("hello from mc"), users);
check("session/load: its modes", loaded.modes.currentModeId === "default", loaded);
b.seen.updates = [];
r = await b.conn.prompt({ sessionId, prompt: [{ type: "text", text: "after the load" }] });
check("a prompt in the loaded session", r.stopReason === "end_turn" && text(b.seen.updates) === "still here", r);
b.child.stdin.end();
await new Promise((ok) => b.child.on("exit", ok));

console.log(failed ? `${failed} check(s) failed` : "all checks passed");
process.exit(failed ? 1 : 0);
