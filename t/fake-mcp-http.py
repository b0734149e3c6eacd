#!/usr/bin/env python3
"""fake-mcp-http.py: a scripted MCP server over HTTP on 127.0.0.1, for tests only.

usage: fake-mcp-http.py --port-file FILE --log FILE [option...]

Binds a free port, writes it to --port-file (by rename, so a reader sees
it whole) and serves until killed. --log gets one JSON line per HTTP
request: {"http": METHOD, "path", "session", "version", "auth",
"accept", "xapi" (the X-Api header), "body"}.

  --mode M        streamable (default): POST /mcp answered as JSON, or as an
                  event stream for tools/call; legacy: POST /mcp is refused
                  (405), GET /mcp is the older transport's event stream
                  naming /messages?s=ID, whose POSTs are answered there
  --sse-all       answer every request as an event stream
  --forget        after the first tools/call, forget the session (404)
  --html          answer every POST with a web page (text/html)
  --not-rpc       answer every POST with JSON that is not JSON-RPC
  --hang          take POSTs and never answer
  --refuse N      answer every request with status N and the body "bad token"
  --version V     the protocolVersion answered (default: the one asked for)
  --stream-change on the session's GET stream (streamable), once the first
                  tools/list was answered: the tools change and
                  notifications/tools/list_changed is sent
  --mark FILE     create FILE when tools/list is asked after a change
  --endpoint URL  legacy: the endpoint event names URL (default /messages?s=ID)

The session id is "s1" (then "s2" after --forget); a request after
initialize without it, or without MCP-Protocol-Version, is answered 400.

Tools: echo {text}; rich {} (text, image, audio, embedded text and blob
resources, a resource link); structured {} (structuredContent only);
progress {} (two notifications/progress, a warning and a debug log
message, then "done"); roots {} (asks roots/list in its event stream and
answers with what came back); change {} (sends
notifications/tools/list_changed; tools/list then also has "added");
slowtask {} (execution.taskSupport "required": answered only as a task,
whose tasks/result is "task done"); stucktask {} (the same, but its
tasks/result comes only after tasks/cancel, as an error). Resources: mem://a (text),
mem://b (a blob), template mem://{name}. Prompts: greet {name, tone}.
"""
import argparse
import json
import os
import queue
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--port-file", required=True)
ap.add_argument("--log", required=True)
ap.add_argument("--mode", default="streamable")
ap.add_argument("--sse-all", action="store_true")
ap.add_argument("--forget", action="store_true")
ap.add_argument("--html", action="store_true")
ap.add_argument("--not-rpc", action="store_true")
ap.add_argument("--hang", action="store_true")
ap.add_argument("--refuse", type=int)
ap.add_argument("--version")
ap.add_argument("--stream-change", action="store_true")
ap.add_argument("--mark")
ap.add_argument("--endpoint")
A = ap.parse_args()

LOCK = threading.Lock()
STATE = {"session": None, "n": 0, "changed": False, "calls": 0}
CANCELLED = threading.Event()  # tasks/cancel came
LISTED = threading.Event()  # the first tools/list was answered
WAITING = {}            # id of a request we sent -> queue for its answer
STREAMS = {}            # legacy session -> queue of messages for its stream
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def log(obj):
    with LOCK, open(A.log, "a") as f:
        f.write(json.dumps(obj) + "\n")


def tools():
    t = [
        {"name": "echo", "description": "Echo text.",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
         "annotations": {"readOnlyHint": True}},
        {"name": "rich", "description": "Every content type.", "inputSchema": {"type": "object"}},
        {"name": "structured", "description": "Structured only.", "inputSchema": {"type": "object"}},
        {"name": "progress", "description": "Reports progress.", "inputSchema": {"type": "object"}},
        {"name": "roots", "description": "Asks for roots.", "inputSchema": {"type": "object"}},
        {"name": "change", "description": "Changes the tool list.", "inputSchema": {"type": "object"}},
        {"name": "slowtask", "description": "Only as a task.", "inputSchema": {"type": "object"},
         "execution": {"taskSupport": "required"}},
        {"name": "stucktask", "description": "A task that never ends.", "inputSchema": {"type": "object"},
         "execution": {"taskSupport": "required"}},
    ]
    if STATE["changed"]:
        t.append({"name": "added", "description": "Added later.", "inputSchema": {"type": "object"}})
    return t


def rpc(mid, result=None, error=None):
    m = {"jsonrpc": "2.0", "id": mid}
    if error is not None:
        m["error"] = error
    else:
        m["result"] = result
    return m


def note(method, params):
    return {"jsonrpc": "2.0", "method": method, "params": params}


def text(s):
    return {"content": [{"type": "text", "text": s}]}


def call(msg, send, ask):
    """Answer tools/call; send(m) sends a message before the answer."""
    p = msg.get("params", {})
    name = p.get("name")
    args = p.get("arguments") or {}
    token = (p.get("_meta") or {}).get("progressToken")
    if name == "echo":
        return text(args.get("text", ""))
    if name == "rich":
        return {"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "mem://a", "mimeType": "text/plain", "text": "inside"}},
            {"type": "resource", "resource": {"uri": "mem://b", "mimeType": "application/octet-stream", "blob": "AAAAAA=="}},
            {"type": "resource_link", "uri": "file:///x/y.txt", "name": "y.txt"},
        ]}
    if name == "structured":
        return {"content": [], "structuredContent": {"answer": 42}}
    if name == "progress":
        for i in (1, 2):
            if token is not None:
                send(note("notifications/progress", {"progressToken": token, "progress": i, "total": 2,
                                                     "message": "step %d" % i}))
        send(note("notifications/message", {"level": "warning", "logger": "fake", "data": "careful now"}))
        send(note("notifications/message", {"level": "debug", "data": "chatter"}))
        return text("done")
    if name == "roots":
        got = ask("roots/list", {})
        return text(json.dumps(got))
    if name == "change":
        STATE["changed"] = True
        send(note("notifications/tools/list_changed", {}))
        return text("changed")
    if name == "added":
        return text("added works")
    if name == "stucktask" and "task" in p:
        return {"task": {"taskId": "t-stuck", "status": "working"}}
    if name == "slowtask":
        if "task" not in p:
            return None  # an error: below
        return {"task": {"taskId": "t-1", "status": "working", "createdAt": "2025-11-25T00:00:00Z",
                         "lastUpdatedAt": "2025-11-25T00:00:00Z", "ttl": 60000, "pollInterval": 100}}
    return None


def answer(msg, send, ask):
    """The answer to one request (or None for a notification)."""
    method = msg.get("method")
    mid = msg.get("id")
    p = msg.get("params") or {}
    if method is None or mid is None:
        return None
    if method == "initialize":
        v = A.version or p.get("protocolVersion")
        log({"initialize": p})
        return rpc(mid, {"protocolVersion": v, "serverInfo": {"name": "fake-http", "version": "1"},
                         "capabilities": {"tools": {"listChanged": True}, "resources": {},
                                          "prompts": {}, "logging": {}, "tasks": {}}})
    if method == "tools/list":
        if STATE["changed"] and A.mark:
            open(A.mark, "w").close()
        r = rpc(mid, {"tools": tools()})
        LISTED.set()
        return r
    if method == "tools/call":
        r = call(msg, send, ask)
        if r is None:
            return rpc(mid, error={"code": -32602, "message": "no such tool, or not as a task"})
        return rpc(mid, r)
    if method == "tasks/result" and p.get("taskId") == "t-stuck":
        CANCELLED.wait(30)
        return rpc(mid, error={"code": -32603, "message": "cancelled"})
    if method == "tasks/result":
        return rpc(mid, text("task done (%s)" % p.get("taskId")))
    if method == "tasks/cancel":
        CANCELLED.set()
        return rpc(mid, {"taskId": p.get("taskId"), "status": "cancelled"})
    if method == "tasks/get":
        return rpc(mid, {"taskId": p.get("taskId"), "status": "completed"})
    if method == "resources/list":
        return rpc(mid, {"resources": [{"uri": "mem://a", "name": "a", "mimeType": "text/plain"},
                                       {"uri": "mem://b", "name": "b", "mimeType": "application/octet-stream"}]})
    if method == "resources/templates/list":
        return rpc(mid, {"resourceTemplates": [{"uriTemplate": "mem://{name}", "name": "any"}]})
    if method == "resources/read":
        u = p.get("uri")
        if u == "mem://b":
            return rpc(mid, {"contents": [{"uri": u, "mimeType": "application/octet-stream", "blob": "AAAAAA=="}]})
        if u and u.startswith("mem://"):
            return rpc(mid, {"contents": [{"uri": u, "mimeType": "text/plain", "text": "contents of " + u}]})
        return rpc(mid, error={"code": -32002, "message": "Resource not found"})
    if method == "prompts/list":
        return rpc(mid, {"prompts": [{"name": "greet", "description": "Greet someone.",
                                      "arguments": [{"name": "name", "required": True}, {"name": "tone"}]}]})
    if method == "prompts/get":
        a = p.get("arguments") or {}
        return rpc(mid, {"messages": [{"role": "user", "content": {
            "type": "text", "text": "Say hello to %s, %s." % (a.get("name"), a.get("tone", "plainly"))}}]})
    if method == "ping":
        return rpc(mid, {})
    return rpc(mid, error={"code": -32601, "message": "Method not found"})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def record(self, body):
        log({"http": self.command, "path": self.path, "session": self.headers.get("Mcp-Session-Id"),
             "version": self.headers.get("MCP-Protocol-Version"), "auth": self.headers.get("Authorization"),
             "accept": self.headers.get("Accept"), "xapi": self.headers.get("X-Api"), "body": body})

    def reply(self, code, ctype=None, body=b"", headers=None):
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def stream_start(self, headers=None):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def event(self, msg, name=None):
        data = msg if isinstance(msg, str) else json.dumps(msg)
        s = ("event: %s\n" % name if name else "") + "data: " + data + "\n\n"
        self.wfile.write(s.encode())
        self.wfile.flush()

    def refused(self):
        if A.refuse:
            self.reply(A.refuse, "text/plain", b"bad token")
        return A.refuse

    def do_DELETE(self):
        self.record(None)
        with LOCK:
            STATE["session"] = None
        self.reply(200)

    def do_GET(self):
        self.record(None)
        if self.refused():
            return
        if A.mode != "legacy" and A.stream_change and self.path == "/mcp":
            self.stream_start()
            LISTED.wait()
            STATE["changed"] = True
            self.event(note("notifications/tools/list_changed", {}))
            threading.Event().wait()
        if A.mode != "legacy" or self.path != "/mcp":
            self.reply(405, "text/plain", b"no stream here")
            return
        with LOCK:
            STATE["n"] += 1
            sid = "L%d" % STATE["n"]
            q = STREAMS[sid] = queue.Queue()
        self.stream_start()
        self.event(A.endpoint or "/messages?s=" + sid, "endpoint")
        while True:
            m = q.get()
            if m is None:
                break
            try:
                self.event(m, "message")
            except OSError:
                break

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n).decode()
        try:
            msg = json.loads(raw)
        except ValueError:
            msg = None
        self.record(msg)
        if self.refused():
            return
        if A.hang:
            threading.Event().wait()
        if A.html:
            self.reply(200, "text/html", b"<!DOCTYPE html>\n<html><body>Login</body></html>\n")
            return
        if A.not_rpc:
            self.reply(200, "application/json", b'{"hello": "world"}')
            return
        if A.mode == "legacy":
            self.legacy_post(msg)
            return
        self.streamable_post(msg)

    def legacy_post(self, msg):
        if self.path == "/mcp":
            self.reply(405, "text/plain", b"use GET for the stream")
            return
        sid = self.path.split("s=", 1)[-1]
        q = STREAMS.get(sid)
        if q is None:
            self.reply(404, "text/plain", b"no such session")
            return
        self.reply(202)
        if isinstance(msg, dict) and "method" not in msg and msg.get("id") in WAITING:
            WAITING[msg["id"]].put(msg)
            return

        def work():
            a = answer(msg, q.put, lambda m, p: self.ask(m, p, q.put))
            if a is not None:
                q.put(a)
        threading.Thread(target=work, daemon=True).start()

    def ask(self, method, params, send):
        with LOCK:
            STATE["n"] += 1
            rid = "ask%d" % STATE["n"]
            WAITING[rid] = queue.Queue()
        send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        got = WAITING[rid].get(timeout=30)
        return got.get("result")

    def streamable_post(self, msg):
        if not isinstance(msg, dict):
            self.reply(400, "text/plain", b"bad body")
            return
        method = msg.get("method")
        if method == "initialize":
            with LOCK:
                STATE["n"] += 1
                STATE["session"] = "s%d" % STATE["n"]
            self.reply(200, "application/json", json.dumps(answer(msg, None, None)).encode(),
                       {"Mcp-Session-Id": STATE["session"]})
            return
        sid = self.headers.get("Mcp-Session-Id")
        if sid is None or self.headers.get("MCP-Protocol-Version") is None:
            self.reply(400, "text/plain", b"missing Mcp-Session-Id or MCP-Protocol-Version")
            return
        if sid != STATE["session"]:
            self.reply(404, "text/plain", b"session not found")
            return
        if method is None or msg.get("id") is None:
            if method is None and msg.get("id") in WAITING:
                WAITING[msg["id"]].put(msg)
            self.reply(202)
            return
        if method == "tools/call" and A.forget:
            STATE["calls"] += 1
            if STATE["calls"] == 1:
                STATE["session"] = "forgotten"
        if method == "tools/call" or A.sse_all:
            self.stream_start()
            a = answer(msg, self.event, lambda m, p: self.ask(m, p, self.event))
            self.event(a)
            return
        self.reply(200, "application/json", json.dumps(answer(msg, None, None)).encode())


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    tmp = A.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.replace(tmp, A.port_file)
    srv.serve_forever()


main()
