#!/usr/bin/env python3
"""fake-provider.py: a scripted OpenAI-style HTTP server on 127.0.0.1, for tests only.

usage: fake-provider.py --script FILE --port-file FILE --log DIR [--idle-exit S]
                        [--tls CERT KEY] [--connect-delay S] [--models FILE]

Binds 127.0.0.1 on a free port, writes the port number to --port-file (by
rename, so a reader never sees half of it), and answers each request with
the next entry of the script. It exits by itself after --idle-exit seconds
(default 60) without a request or a byte sent. Connections are kept alive
(HTTP/1.1) unless an entry says otherwise. --tls serves HTTPS with that
certificate and key (PEM files); --connect-delay waits S seconds after
accepting each new connection, before its TLS handshake (a stand-in for a
far server's round trips). --models serves a GET of a path ending in
/models (the provider's list of models) with the JSON in FILE, outside
the script (the request is logged all the same).

Every request, whatever its method and path, is logged to DIR/N.json
(N = 1, 2, ...): {"n", "conn" (the number of the connection it came on:
1, 2, ... in the order they were accepted), "time", "method", "path",
"headers" (names in lower case), "body" (parsed JSON, or the raw text),
"open" (the requests being answered when it came, itself included)}.
The log holds what the client sent, keys included: use test keys only.

The script is a JSON array; entry i answers request i+1. Once it is used
up, requests get 500 {"error":{"message":"fake provider: no scripted
answer for request N"}}. An entry is an object:

  when          a string, or a list of strings: the entry answers only a
                request whose body (the raw text) holds every one; a
                request takes the first entry left that it matches, so
                that concurrent clients (subagents) get their own answers
  unless        the same, for strings the body must not hold
  status        HTTP status (200)
  headers       extra response headers, {"Retry-After": "1", ...}
  times         serve this entry for this many requests (1)
  delay         seconds to wait before the status line (0)
  wait_file     a path: wait until it exists (at most 30 s) before answering

one body source:
  sse_file      path of a raw SSE file, sent byte for byte (relative paths
                are taken from the script file's directory)
  sse           raw SSE text
  events        list: a string is sent as "data: STRING", an object as
                "data: JSON", a pair ["name", DATA] as "event: name" plus
                data; each followed by a blank line
  done          with events: end with "data: [DONE]" (false)
  answer        {"api": "chat"|"responses"|"messages", "text": "...", "calls":
                [{"call_id", "name", "arguments"}], "stream": true,
                "finish_reason": "stop", "usage": [in, out]}: a whole
                realistic answer, streamed word by word (or one JSON
                document when stream is false); messages also takes
                "thinking": [{"thinking", "signature"} or {"redacted":
                DATA}], blocks before the text, "cache": [read, written]
                and "stop_reason" (else end_turn, or tool_use with calls)
  json          any JSON value, sent as application/json
  body          raw text;  body_file: a file sent byte for byte
  raw           the whole answer, status line and head included, sent byte
                for byte (latin-1); the connection is closed after it
                unless "keep" is true ("chunk" and "chunk_delay" apply)
  endless       {"api": "chat"|"responses", "text": "...", "arguments":
                "..."}: text deltas (or, with arguments, the pieces of one
                tool call's arguments) without end, until the client goes;
                "name": "..." (chat): the pieces of one tool call's name;
                "calls": {"name": "...", "id": "..."}: new tool calls, each
                with that name and id (numbered); "upto": N stops after
                about N bytes, a guard for a cap that does not hold;
                "comments": S: after "text" (chat, once, when given),
                only ": keepalive" comment lines, one every S seconds

how it is sent:
  keepalive_bytes  SSE only: about this many bytes of ": keep-alive"
                comment lines first (for memory tests)
  newline       "lf" (as written), "crlf" or "cr": line ends of SSE text
  chunk         bytes per write (0: all at once)
  chunk_delay   seconds between writes (0)
  framing       "chunked" (default for SSE), "length" (default otherwise)
                or "close" (no length; the end is the connection's close)
  stall_after   after this many body bytes, send nothing for `stall`
                seconds (default 3600) and then go on
  cut_after     after this many body bytes, drop the connection
  close         "header": answer with Connection: close and close after it;
                "silent": close after the answer without saying so first
                (a server that drops idle connections)
"""
import argparse
import json
import os
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATE = {"n": 0, "conns": 0, "last": time.monotonic(), "queue": [], "open": 0}
TLS = None


def touch():
    STATE["last"] = time.monotonic()


def needles(v):
    return [v] if isinstance(v, str) else list(v or [])


def take(text):
    """The first entry left whose when/unless the request body meets (under LOCK)."""
    for i, e in enumerate(STATE["queue"]):
        if all(w in text for w in needles(e.get("when"))) and \
                not any(u in text for u in needles(e.get("unless"))):
            return STATE["queue"].pop(i)
    return None


def sse_event(data, name=None):
    out = ""
    if name:
        out += "event: %s\n" % name
    if not isinstance(data, str):
        data = json.dumps(data, separators=(",", ":"))
    for line in data.split("\n"):
        out += "data: %s\n" % line
    return out + "\n"


def words(text):
    """Split text into small deltas, keeping every byte."""
    out, cur = [], ""
    for ch in text:
        cur += ch
        if ch in " \n":
            out.append(cur)
            cur = ""
    if cur:
        out.append(cur)
    return out


def chat_answer(a):
    text, calls = a.get("text", ""), a.get("calls", [])
    fin = a.get("finish_reason") or ("tool_calls" if calls else "stop")
    usage = a.get("usage", [10, 5])
    base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk",
            "created": 1755000000, "model": "fake-model"}
    if not a.get("stream", True):
        msg = {"role": "assistant", "content": text or None}
        if calls:
            msg["tool_calls"] = [{"id": c["call_id"], "type": "function",
                                  "function": {"name": c["name"], "arguments": c["arguments"]}}
                                 for c in calls]
        return None, dict(base, object="chat.completion",
                          choices=[{"index": 0, "message": msg, "finish_reason": fin}],
                          usage={"prompt_tokens": usage[0], "completion_tokens": usage[1]})

    def chunk(delta, finish=None):
        return sse_event(dict(base, choices=[{"index": 0, "delta": delta,
                                              "finish_reason": finish}]))
    out = chunk({"role": "assistant", "content": ""})
    for w in words(text):
        out += chunk({"content": w})
    for i, c in enumerate(calls):
        out += chunk({"tool_calls": [{"index": i, "id": c["call_id"], "type": "function",
                                      "function": {"name": c["name"], "arguments": ""}}]})
        args = c["arguments"]
        for j in range(0, len(args), 4):
            out += chunk({"tool_calls": [{"index": i, "function": {"arguments": args[j:j + 4]}}]})
    out += chunk({}, fin)
    out += sse_event(dict(base, choices=[], usage={"prompt_tokens": usage[0],
                                                   "completion_tokens": usage[1]}))
    return out + "data: [DONE]\n\n", None


def responses_answer(a):
    text, calls = a.get("text", ""), a.get("calls", [])
    usage = a.get("usage", [10, 5])
    output = []
    if text:
        output.append({"id": "msg_fake", "type": "message", "status": "completed",
                       "role": "assistant",
                       "content": [{"type": "output_text", "annotations": [], "text": text}]})
    for i, c in enumerate(calls):
        output.append({"id": "fc_fake%d" % i, "type": "function_call", "status": "completed",
                       "call_id": c["call_id"], "name": c["name"], "arguments": c["arguments"]})
    fin = a.get("finish_reason")
    status = "incomplete" if fin == "length" else "completed"
    resp = {"id": "resp_fake", "object": "response", "status": status, "model": "fake-model",
            "output": output, "error": None,
            "incomplete_details": {"reason": "max_output_tokens"} if fin == "length" else None,
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1],
                      "total_tokens": usage[0] + usage[1]}}
    if not a.get("stream", True):
        return None, resp
    seq = [0]

    def ev(name, **kw):
        kw = dict({"type": name}, **kw, sequence_number=seq[0])
        seq[0] += 1
        return sse_event(kw, name)
    out = ev("response.created", response=dict(resp, status="in_progress", output=[], usage=None))
    idx = 0
    if text:
        out += ev("response.output_item.added", output_index=idx,
                  item={"id": "msg_fake", "type": "message", "status": "in_progress",
                        "role": "assistant", "content": []})
        for w in words(text):
            out += ev("response.output_text.delta", item_id="msg_fake", output_index=idx,
                      content_index=0, delta=w)
        out += ev("response.output_text.done", item_id="msg_fake", output_index=idx,
                  content_index=0, text=text)
        out += ev("response.output_item.done", output_index=idx, item=output[0])
        idx += 1
    for i, c in enumerate(calls):
        iid = "fc_fake%d" % i
        out += ev("response.output_item.added", output_index=idx,
                  item={"id": iid, "type": "function_call", "status": "in_progress",
                        "call_id": c["call_id"], "name": c["name"], "arguments": ""})
        args = c["arguments"]
        for j in range(0, len(args), 4):
            out += ev("response.function_call_arguments.delta", item_id=iid,
                      output_index=idx, delta=args[j:j + 4])
        out += ev("response.function_call_arguments.done", item_id=iid, output_index=idx,
                  arguments=args)
        out += ev("response.output_item.done", output_index=idx, item=output[idx])
        idx += 1
    out += ev("response.incomplete" if status == "incomplete" else "response.completed",
              response=resp)
    return out, None


def messages_answer(a):
    text, calls = a.get("text", ""), a.get("calls", [])
    usage = a.get("usage", [10, 5])
    read, written = a.get("cache", [0, 0])
    blocks = []
    for t in a.get("thinking", []):
        if "redacted" in t:
            blocks.append({"type": "redacted_thinking", "data": t["redacted"]})
        else:
            blocks.append({"type": "thinking", "thinking": t["thinking"],
                           "signature": t["signature"]})
    if text:
        blocks.append({"type": "text", "text": text})
    for c in calls:
        blocks.append({"type": "tool_use", "id": c["call_id"], "name": c["name"],
                       "input": json.loads(c["arguments"] or "{}")})
    stop = a.get("stop_reason") or ("tool_use" if calls else "end_turn")
    u = {"input_tokens": usage[0], "cache_read_input_tokens": read,
         "cache_creation_input_tokens": written, "output_tokens": usage[1]}
    msg = {"id": "msg_fake", "type": "message", "role": "assistant", "model": "fake-model",
           "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": u}
    if not a.get("stream", True):
        return None, msg
    out = sse_event({"type": "message_start", "message": dict(
        msg, content=[], stop_reason=None, usage=dict(u, output_tokens=1))}, "message_start")
    out += sse_event({"type": "ping"}, "ping")
    for i, b in enumerate(blocks):
        def delta(d):
            return sse_event({"type": "content_block_delta", "index": i, "delta": d},
                             "content_block_delta")
        if b["type"] == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
        elif b["type"] == "text":
            start = {"type": "text", "text": ""}
        elif b["type"] == "tool_use":
            start = dict(b, input={})
        else:
            start = b
        out += sse_event({"type": "content_block_start", "index": i, "content_block": start},
                         "content_block_start")
        if b["type"] == "thinking":
            for w in words(b["thinking"]):
                out += delta({"type": "thinking_delta", "thinking": w})
            out += delta({"type": "signature_delta", "signature": b["signature"]})
        elif b["type"] == "text":
            for w in words(b["text"]):
                out += delta({"type": "text_delta", "text": w})
        elif b["type"] == "tool_use":
            args = calls[i - len(blocks) + len(calls)]["arguments"]
            for j in range(0, len(args), 4):
                out += delta({"type": "input_json_delta", "partial_json": args[j:j + 4]})
        out += sse_event({"type": "content_block_stop", "index": i}, "content_block_stop")
    out += sse_event({"type": "message_delta", "delta": {"stop_reason": stop,
                      "stop_sequence": None}, "usage": {"output_tokens": usage[1]}},
                     "message_delta")
    return out + sse_event({"type": "message_stop"}, "message_stop"), None


def endless(e):
    """An endless SSE body, as pieces."""
    api = e.get("api", "chat")
    if "comments" in e:
        if "text" in e:
            yield sse_event({"choices": [{"index": 0, "delta": {"content": e["text"]}}]}).encode()
        while True:
            time.sleep(e["comments"])
            yield b": keepalive\n\n"
    if "calls" in e or "name" in e:
        yield from endless_calls(e, api)
        return
    if "arguments" in e:
        piece = e["arguments"]
        if api == "chat":
            yield sse_event({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "id": "call_1", "type": "function",
                 "function": {"name": "f", "arguments": ""}}]}}]}).encode()
            ev = sse_event({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": piece}}]}}]})
        else:
            yield sse_event({"type": "response.output_item.added", "output_index": 0,
                             "item": {"id": "fc_1", "type": "function_call", "call_id": "call_1",
                                      "name": "f", "arguments": ""}},
                            "response.output_item.added").encode()
            ev = sse_event({"type": "response.function_call_arguments.delta", "item_id": "fc_1",
                            "output_index": 0, "delta": piece},
                           "response.function_call_arguments.delta")
    elif api == "chat":
        ev = sse_event({"choices": [{"index": 0, "delta": {"content": e.get("text", "x")}}]})
    else:
        ev = sse_event({"type": "response.output_text.delta", "delta": e.get("text", "x")},
                       "response.output_text.delta")
    block = ev.encode() * max(1, 65536 // len(ev))
    while True:
        yield block


def endless_calls(e, api):
    """Pieces of a tool call's name (chat), or new calls, without end or upto bytes."""
    sent, i, upto = 0, 0, e.get("upto")
    while upto is None or sent < upto:
        if "name" in e:
            # two pieces that differ: a piece equal to the name so far is a repeat
            piece = e["name"] + ("" if i % 2 else "_")
            ev = sse_event({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "id": "call_1", "type": "function",
                 "function": {"name": piece}}]}}]})
        elif api == "chat":
            c = e["calls"]
            ev = sse_event({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": i, "id": c.get("id", "call_") + str(i), "type": "function",
                 "function": {"name": c.get("name", "f") + str(i), "arguments": ""}}]}}]})
        else:
            c = e["calls"]
            ev = sse_event({"type": "response.output_item.added", "output_index": i,
                            "item": {"id": c.get("id", "fc_") + str(i), "type": "function_call",
                                     "call_id": c.get("id", "call_") + str(i),
                                     "name": c.get("name", "f") + str(i), "arguments": ""}},
                           "response.output_item.added")
        piece = ev.encode()
        sent += len(piece)
        i += 1
        yield piece


def load_body(entry, base):
    """Returns (bytes, content type, is_sse)."""
    def path(p):
        return p if os.path.isabs(p) else os.path.join(base, p)
    sse = None
    if "sse_file" in entry:
        with open(path(entry["sse_file"]), "rb") as f:
            sse = f.read().decode("utf-8")
    elif "sse" in entry:
        sse = entry["sse"]
    elif "events" in entry:
        sse = ""
        for e in entry["events"]:
            if isinstance(e, list):
                sse += sse_event(e[1], e[0])
            else:
                sse += sse_event(e)
        if entry.get("done"):
            sse += "data: [DONE]\n\n"
    elif "answer" in entry:
        a = entry["answer"]
        sse, doc = {"chat": chat_answer, "responses": responses_answer,
                    "messages": messages_answer}[a.get("api", "chat")](a)
        if doc is not None:
            return json.dumps(doc).encode(), "application/json", False
    elif "json" in entry:
        return json.dumps(entry["json"]).encode(), "application/json", False
    elif "body_file" in entry:
        with open(path(entry["body_file"]), "rb") as f:
            return f.read(), "application/octet-stream", False
    else:
        return entry.get("body", "").encode(), "text/plain", False
    pad = int(entry.get("keepalive_bytes", 0))
    if pad:
        sse = ": keep-alive\n\n" * (pad // 14 + 1) + sse
    nl = entry.get("newline", "lf")
    if nl == "crlf":
        sse = sse.replace("\n", "\r\n")
    elif nl == "cr":
        sse = sse.replace("\n", "\r")
    return sse.encode(), "text/event-stream", True


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-provider/1"

    def log_message(self, fmt, *args):
        pass

    def setup(self):
        with LOCK:
            STATE["conns"] += 1
            self.conn = STATE["conns"]
        touch()
        time.sleep(ARGS.connect_delay)
        if TLS is not None:
            self.request.settimeout(30)
            self.request = TLS.wrap_socket(self.request, server_side=True)
            self.request.settimeout(None)
        super().setup()

    def do_GET(self):
        self.serve()

    def do_POST(self):
        self.serve()

    def serve(self):
        touch()
        n_len = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n_len) if n_len else b""
        text = raw.decode("utf-8", "replace")
        with LOCK:
            STATE["n"] += 1
            n = STATE["n"]
            if ARGS.models and self.command == "GET" and self.path.endswith("/models"):
                with open(ARGS.models) as f:
                    entry = {"json": json.load(f)}
            else:
                entry = take(text)
            STATE["open"] += 1
            opened = STATE["open"]
        try:
            body = json.loads(raw.decode("utf-8"))
        except ValueError:
            body = raw.decode("utf-8", "replace")
        rec = {"n": n, "conn": self.conn, "time": time.time(), "method": self.command, "path": self.path,
               "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body,
               "open": opened}
        tmp = os.path.join(ARGS.log, ".%d.tmp" % n)
        with open(tmp, "w") as f:
            json.dump(rec, f)
        os.replace(tmp, os.path.join(ARGS.log, "%d.json" % n))
        if entry is None:
            entry = {"status": 500, "json": {"error": {
                "message": "fake provider: no scripted answer for request %d" % n}}}
        try:
            self.answer(entry)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self.close_connection = True
        finally:
            with LOCK:
                STATE["open"] -= 1

    def answer(self, e):
        time.sleep(e.get("delay", 0))
        for _ in range(600):
            if "wait_file" not in e or os.path.exists(e["wait_file"]):
                break
            time.sleep(0.05)
        if "endless" in e:
            self.answer_endless(e["endless"])
            return
        if "raw" in e:
            self.answer_raw(e)
            return
        data, ctype, sse = load_body(e, BASE)
        framing = e.get("framing", "chunked" if sse else "length")
        close = e.get("close") or ("cut_after" in e or framing == "close") and "header"
        self.send_response(e.get("status", 200))
        hdrs = {k.lower(): (k, v) for k, v in e.get("headers", {}).items()}
        if "content-type" not in hdrs:
            self.send_header("Content-Type", ctype)
        for k, v in hdrs.values():
            self.send_header(k, str(v))
        if framing == "chunked":
            self.send_header("Transfer-Encoding", "chunked")
        elif framing == "length":
            self.send_header("Content-Length", str(len(data)))
        if close == "header":
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        touch()
        self.close_connection = bool(close)
        size = e.get("chunk", 0) or len(data) or 1
        stall_at, cut_at = e.get("stall_after"), e.get("cut_after")
        sent = 0
        while sent < len(data):
            end = min(sent + size, len(data))
            for mark in (stall_at, cut_at):
                if mark is not None and sent < mark < end:
                    end = mark
            if end > sent:
                self.send_piece(data[sent:end], framing)
                sent = end
                touch()
            if cut_at is not None and sent >= cut_at:
                self.cut()
                return
            if stall_at is not None and sent >= stall_at:
                stall_at = None
                time.sleep(e.get("stall", 3600))
            elif e.get("chunk_delay"):
                time.sleep(e["chunk_delay"])
        if cut_at is not None:
            self.cut()
            return
        if framing == "chunked":
            self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def answer_raw(self, e):
        data = e["raw"].encode("latin-1")
        size = e.get("chunk", 0) or len(data) or 1
        for at in range(0, len(data), size):
            self.wfile.write(data[at:at + size])
            self.wfile.flush()
            if e.get("chunk_delay"):
                time.sleep(e["chunk_delay"])
        self.close_connection = not e.get("keep", False)

    def answer_endless(self, e):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for piece in endless(e):
            self.send_piece(piece, "chunked")
            touch()

    def send_piece(self, piece, framing):
        if framing == "chunked":
            self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
        else:
            self.wfile.write(piece)
        self.wfile.flush()

    def cut(self):
        self.wfile.flush()
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.connection.close()


def watchdog(limit):
    while True:
        time.sleep(0.5)
        if time.monotonic() - STATE["last"] > limit:
            os._exit(0)


def main():
    global ARGS, BASE
    ap = argparse.ArgumentParser(description="scripted fake provider for tests")
    ap.add_argument("--script", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--idle-exit", type=float, default=60)
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    ap.add_argument("--connect-delay", type=float, default=0)
    ap.add_argument("--models")
    ARGS = ap.parse_args()
    global TLS
    if ARGS.tls:
        TLS = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        TLS.load_cert_chain(ARGS.tls[0], ARGS.tls[1])
    BASE = os.path.dirname(os.path.abspath(ARGS.script))
    with open(ARGS.script) as f:
        script = json.load(f)
    if not isinstance(script, list):
        sys.exit("fake-provider: the script must be a JSON array")
    for e in script:
        for _ in range(int(e.get("times", 1))):
            STATE["queue"].append(e)
    os.makedirs(ARGS.log, exist_ok=True)
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.replace(tmp, ARGS.port_file)
    threading.Thread(target=watchdog, args=(ARGS.idle_exit,), daemon=True).start()
    srv.serve_forever()


if __name__ == "__main__":
    main()
