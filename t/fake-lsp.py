#!/usr/bin/env python3
"""fake-lsp.py: a scripted language server on stdio (Content-Length framing), for tests only.

usage: fake-lsp.py [--mode MODE] [--log FILE] [--pid-file FILE]

Modes:
  ok        answers initialize; after each didOpen or didChange publishes,
            for that uri and version, one error per line holding "BAD"
            (at that line) and a warning per line holding "MEH"; asks the
            client a request of its own first (workspace/configuration)
  crash     exits with status 3 on initialize
  hang      reads everything, answers nothing
  flood     answers initialize, then sends notifications without end
  framing   answers initialize with a header that has no Content-Length
  silent    answers initialize, never publishes diagnostics
  deaf      answers initialize, then reads nothing more (sleeps)
  many      like ok, with 50 errors for every file
  late      like ok without versions, each publish followed, in the same
            write, by a second one for the file: "late noise"
  child     like ok, and starts `sleep 300` in its process group
--log FILE appends each message received, one JSON line each.
--pid-file FILE appends this process's pid (and its child's, with child).
"""
import argparse
import json
import os
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--mode", default="ok")
ap.add_argument("--log")
ap.add_argument("--pid-file")
a = ap.parse_args()

inp = sys.stdin.buffer
out = sys.stdout.buffer


def pid(p):
    if a.pid_file:
        with open(a.pid_file, "a") as f:
            f.write("%d\n" % p)


def send(m, raw=None):
    b = raw if raw is not None else json.dumps(m).encode()
    out.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
    out.flush()


def recv():
    h = b""
    while not h.endswith(b"\r\n\r\n"):
        c = inp.read(1)
        if not c:
            return None
        h += c
    n = 0
    for line in h.decode().split("\r\n"):
        if line.lower().startswith("content-length:"):
            n = int(line.split(":", 1)[1])
    m = json.loads(inp.read(n))
    if a.log:
        with open(a.log, "a") as f:
            f.write(json.dumps(m) + "\n")
    return m


def publish(uri, version, text):
    diags = []
    for i, line in enumerate(text.split("\n")):
        if "BAD" in line:
            diags.append({"range": {"start": {"line": i, "character": line.index("BAD")},
                                    "end": {"line": i, "character": line.index("BAD") + 3}},
                          "severity": 1, "message": "BAD is not allowed here\nsecond line"})
        if "MEH" in line:
            diags.append({"range": {"start": {"line": i, "character": 0},
                                    "end": {"line": i, "character": 1}},
                          "severity": 2, "message": "MEH is dubious"})
        if "HINT" in line:
            diags.append({"range": {"start": {"line": i, "character": 0},
                                    "end": {"line": i, "character": 1}},
                          "severity": 4, "message": "a hint, not shown"})
    if a.mode == "many":
        diags += [{"range": {"start": {"line": k, "character": 0}, "end": {"line": k, "character": 1}},
                   "severity": 1, "message": "error number %d" % k} for k in range(50)]
    if a.mode == "late":
        msgs = [{"uri": uri, "diagnostics": diags},
                {"uri": uri, "diagnostics": [{"range": {"start": {"line": 0, "character": 0},
                                                        "end": {"line": 0, "character": 1}},
                                              "severity": 1, "message": "late noise"}]}]
        b = b"".join(b"Content-Length: %d\r\n\r\n" % len(x) + x for x in (json.dumps(
            {"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": p}).encode()
            for p in msgs))
        out.write(b)
        out.flush()
        return
    # an old version's first: the client waits for its own
    if version > 1:
        send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
              "params": {"uri": uri, "version": version - 1, "diagnostics": [
                  {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                   "severity": 1, "message": "stale"}]}})
    send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
          "params": {"uri": uri, "version": version, "diagnostics": diags}})


pid(os.getpid())
if a.mode == "child":
    pid(subprocess.Popen(["sleep", "300"]).pid)
while True:
    m = recv()
    if m is None:
        sys.exit(0)
    meth = m.get("method")
    if a.mode == "hang":
        continue
    if meth == "initialize":
        if a.mode == "crash":
            sys.stderr.write("fake-lsp: crashing\n")
            sys.exit(3)
        if a.mode == "framing":
            out.write(b"Content-Type: x\r\n\r\n{}")
            out.flush()
            continue
        send({"jsonrpc": "2.0", "id": m["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
        if a.mode == "deaf":
            time.sleep(300)
        if a.mode == "flood":
            while True:
                send({"jsonrpc": "2.0", "method": "window/logMessage",
                      "params": {"type": 3, "message": "x" * 60000}})
    elif meth == "textDocument/didOpen" and a.mode != "silent":
        td = m["params"]["textDocument"]
        send({"jsonrpc": "2.0", "id": "q1", "method": "workspace/configuration", "params": {"items": []}})
        publish(td["uri"], td["version"], td["text"])
    elif meth == "textDocument/didChange" and a.mode != "silent":
        td = m["params"]["textDocument"]
        publish(td["uri"], td["version"], m["params"]["contentChanges"][-1]["text"])
    elif meth == "shutdown":
        send({"jsonrpc": "2.0", "id": m["id"], "result": None})
    elif meth == "exit":
        sys.exit(0)
