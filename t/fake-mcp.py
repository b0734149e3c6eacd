#!/usr/bin/env python3
"""fake-mcp.py: a scripted MCP server on stdio (JSON-RPC 2.0, one message a line), for tests only.

usage: fake-mcp.py [option...]

  --pages N        give tools/list in N pages, following nextCursor (1)
  --tool NAME      one more tool, called NAME, that echoes like echo (repeatable)
  --read-only NAME tool NAME says readOnlyHint: one of the tools above, or one
                   more echo tool (repeatable)
  --many N         N more tools like --tool, called t0 ... t(N-1), after those
  --crash N        write a line to stderr and exit with status N at once
  --hang           read everything, answer nothing
  --junk           write a line that is not JSON instead of answering initialize
  --wrong-id       answer initialize with an id that was not asked
  --rpc-error      answer every tools/call with JSON-RPC error -32602
  --ask            before answering initialize, send a ping request (id "p1"),
                   a roots/list request (id "r1"), a sampling/createMessage
                   request (id "s1") and a notifications/message
  --version V      the protocolVersion answered (default: the one asked for)
  --no-tools       no "tools" capability
  --photo          one more tool, "photo" {}: a text, a real PNG (a 1x1 image,
                   its magic bytes first) and an image/png whose bytes are no
                   PNG
  --task-tool      one more tool, "task", that can only be run as a task: a
                   tools/call of it with "task" answers with task "tk1", whose
                   tasks/result is "task result"; without "task", an error
  --env-log FILE   write {"env": {...}, "cwd": "...", "parent": [...], "fds": [...]}
                   to FILE at start (parent: the parent's /proc/PID/environ,
                   NAME=value each; fds: the descriptors open here)
  --pid-file FILE  append this process's pid to FILE (and its child's, with --child)
  --child          start `sleep 300` as a child in this process group
  --stubborn       ignore SIGTERM, and stay when stdin ends (only SIGKILL ends it)
  --log FILE       append each message received, one JSON line each

Tools: echo {text}; count {} (a counter kept across calls: "count N", and
structuredContent {"count": N});
fail {} (isError); big {bytes} (that much text, in lines); image {}
(a text and a 100-byte PNG); slow {seconds} (answers after that long,
or never when notifications/cancelled names it, which is logged as
{"cancelled": ID}); die {} (exits 7 without answering); structured {}
(structuredContent only); stderr {text} (writes text to stderr).
"""
import argparse
import base64
import json
import os
import select
import signal
import subprocess
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("--pages", type=int, default=1)
p.add_argument("--tool", action="append", default=[])
p.add_argument("--read-only", action="append", default=[])
p.add_argument("--many", type=int, default=0)
p.add_argument("--crash", type=int)
p.add_argument("--hang", action="store_true")
p.add_argument("--junk", action="store_true")
p.add_argument("--wrong-id", action="store_true")
p.add_argument("--rpc-error", action="store_true")
p.add_argument("--ask", action="store_true")
p.add_argument("--version")
p.add_argument("--no-tools", action="store_true")
p.add_argument("--task-tool", action="store_true")
p.add_argument("--photo", action="store_true")
p.add_argument("--env-log")
p.add_argument("--pid-file")
p.add_argument("--child", action="store_true")
p.add_argument("--stubborn", action="store_true")
p.add_argument("--log")
opt = p.parse_args()
opt.tool += ["t%d" % i for i in range(opt.many)]

if opt.env_log:
    with open("/proc/%d/environ" % os.getppid(), "rb") as f:
        parent = f.read().decode("utf-8", "replace").split("\0")
    fds = sorted(int(n) for n in os.listdir("/proc/self/fd"))
    with open(opt.env_log, "w") as f:
        json.dump({"env": dict(os.environ), "cwd": os.getcwd(), "parent": parent, "fds": fds}, f)
pids = [os.getpid()]
if opt.child:
    pids.append(subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).pid)
if opt.pid_file:
    with open(opt.pid_file, "a") as f:
        f.write("".join("%d\n" % n for n in pids))
if opt.stubborn:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if opt.crash is not None:
    sys.stderr.write("fake-mcp: crashing on purpose\n")
    sys.exit(opt.crash)


# A 1x1 PNG: its signature, IHDR, IDAT and IEND chunks.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def schema(props, required=()):
    return {"type": "object", "properties": props, "required": list(required)}


BUILTIN = ("echo", "count", "fail", "big", "image", "slow", "die", "structured", "stderr")
TOOLS = [
    {"name": "echo", "description": "Echo the text back.",
     "inputSchema": schema({"text": {"type": "string"}}, ["text"])},
    {"name": "count", "description": "Count the calls made so far.", "inputSchema": schema({})},
    {"name": "fail", "description": "Fail, as a tool result.", "inputSchema": schema({})},
    {"name": "big", "description": "Return that many bytes of text.",
     "inputSchema": schema({"bytes": {"type": "integer"}})},
    {"name": "image", "description": "Return an image."},
    {"name": "slow", "description": "Answer after a while.",
     "inputSchema": schema({"seconds": {"type": "number"}})},
    {"name": "die", "description": "Exit without answering.", "inputSchema": schema({})},
    {"name": "structured", "description": "Structured content only.", "inputSchema": "not an object"},
    {"name": "stderr", "description": "Write to stderr.",
     "inputSchema": schema({"text": {"type": "string"}})},
] + [{"name": n, "description": "Echo (extra).", "inputSchema": schema({"text": {"type": "string"}})}
     for n in opt.tool] + [
    {"name": n, "description": "Echo (read-only).", "inputSchema": schema({"text": {"type": "string"}})}
    for n in opt.read_only if n not in BUILTIN and n not in opt.tool]
for t in TOOLS:
    if t["name"] in opt.read_only:
        t["annotations"] = {"readOnlyHint": True}
if opt.photo:
    TOOLS.append({"name": "photo", "description": "Return a photo.", "inputSchema": schema({})})
if opt.task_tool:
    TOOLS.append({"name": "task", "description": "A task.", "inputSchema": schema({}),
                  "execution": {"taskSupport": "required"}})


class Reader:
    """Lines from fd 0, with a timeout."""

    def __init__(self):
        self.buf = b""
        self.eof = False

    def line(self, timeout=None):
        deadline = None if timeout is None else time.time() + timeout
        while b"\n" not in self.buf:
            if self.eof:
                if self.buf:
                    line, self.buf = self.buf, b""
                    return line
                return None
            wait = None if deadline is None else max(0, deadline - time.time())
            if not select.select([0], [], [], wait)[0]:
                return ""
            chunk = os.read(0, 65536)
            if not chunk:
                self.eof = True
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line


rd = Reader()
counter = 0
pending = []


def log(msg):
    if opt.log:
        with open(opt.log, "a") as f:
            f.write(json.dumps(msg) + "\n")


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def text(s, is_error=False):
    r = {"content": [{"type": "text", "text": s}]}
    if is_error:
        r["isError"] = True
    return r


def receive(timeout=None):
    if pending and timeout is None:
        return pending.pop(0)
    line = rd.line(timeout)
    if line is None or line == "":
        return line
    msg = json.loads(line)
    log(msg)
    return msg


def slow(mid, seconds):
    end = time.time() + seconds
    while time.time() < end:
        msg = receive(end - time.time())
        if msg is None:
            return None
        if msg == "":
            break
        if msg.get("method") == "notifications/cancelled" and msg["params"]["requestId"] == mid:
            log({"cancelled": mid})
            return None
        pending.append(msg)
    return text("slept %g s" % seconds)


def call(mid, params):
    global counter
    name, args = params["name"], params.get("arguments") or {}
    if opt.rpc_error:
        return {"error": {"code": -32602, "message": "invalid arguments for " + name}}
    if name == "echo" or name in opt.tool or name in opt.read_only:
        return {"result": text(args.get("text", ""))}
    if name == "count":
        counter += 1
        return {"result": dict(text("count %d" % counter), structuredContent={"count": counter})}
    if name == "fail":
        return {"result": text("it failed", True)}
    if name == "big":
        n = int(args["bytes"])
        return {"result": text(("x" * 99 + "\n") * (n // 100) + "x" * (n % 100))}
    if name == "photo" and opt.photo:
        png = base64.b64encode(PNG).decode()
        junk = base64.b64encode(b"not a png at all").decode()
        return {"result": {"content": [{"type": "text", "text": "a photo:"},
                                       {"type": "image", "mimeType": "image/png", "data": png},
                                       {"type": "image", "mimeType": "image/png", "data": junk}]}}
    if name == "image":
        data = base64.b64encode(bytes(range(100))).decode()
        return {"result": {"content": [{"type": "text", "text": "an image:"},
                                       {"type": "image", "mimeType": "image/png", "data": data}]}}
    if name == "slow":
        r = slow(mid, float(args.get("seconds", 1)))
        return None if r is None else {"result": r}
    if name == "die":
        sys.exit(7)
    if name == "structured":
        return {"result": {"content": [], "structuredContent": {"a": 1}}}
    if name == "stderr":
        sys.stderr.write(args.get("text", "") + "\n")
        sys.stderr.flush()
        return {"result": text("ok")}
    if name == "task" and opt.task_tool:
        if "task" not in params:
            return {"error": {"code": -32601, "message": "task is only run as a task"}}
        return {"result": {"task": {"taskId": "tk1", "status": "working"}}}
    return {"error": {"code": -32602, "message": "unknown tool " + name}}


def main():
    per_page = max(1, -(-len(TOOLS) // opt.pages))
    while True:
        msg = receive()
        if msg is None:
            break
        method, mid = msg.get("method"), msg.get("id")
        if opt.hang or mid is None or method is None:
            continue
        answer = None
        if method == "initialize":
            if opt.junk:
                sys.stdout.write("Server starting... this is not JSON\n")
                sys.stdout.flush()
                continue
            if opt.ask:
                send({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": "hello"}})
                send({"jsonrpc": "2.0", "id": "p1", "method": "ping"})
                send({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"})
                send({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage"})
                for _ in range(3):
                    pending.append(receive())
            caps = {} if opt.no_tools else {"tools": {}}
            answer = {"result": {"protocolVersion": opt.version or msg["params"]["protocolVersion"],
                                 "capabilities": caps, "serverInfo": {"name": "fake", "version": "1"}}}
            if opt.wrong_id:
                mid = mid + 100
        elif method == "tools/list":
            cursor = (msg.get("params") or {}).get("cursor")
            page = int(cursor.split("-")[1]) if cursor else 0
            result = {"tools": TOOLS[page * per_page:(page + 1) * per_page]}
            if (page + 1) * per_page < len(TOOLS):
                result["nextCursor"] = "page-%d" % (page + 1)
            answer = {"result": result}
        elif method == "tools/call":
            answer = call(mid, msg["params"])
            if answer is None:
                continue
        elif method == "tasks/result" and opt.task_tool:
            answer = {"result": text("task result")}
        else:
            answer = {"error": {"code": -32601, "message": "Method not found"}}
        send(dict(jsonrpc="2.0", id=mid, **answer))
    while opt.stubborn:
        time.sleep(1)


main()
