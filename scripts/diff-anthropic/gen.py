#!/usr/bin/env python3
"""gen.py: the streams of make diff-anthropic, ordinary and odd, as fake-provider.py script entries.

usage: gen.py OUTDIR   writes OUTDIR/script.json (each entry answers the
request whose body names its case) and OUTDIR/cases.json (the case names).
"""
import json
import os
import sys


def ev(name, obj, event_line=True):
    data = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return ("event: %s\n" % name if event_line else "") + "data: %s\n\n" % data


def start(usage=None, **kw):
    u = usage or {"input_tokens": 25, "output_tokens": 1}
    return ev("message_start", {"type": "message_start", "message": dict({
        "id": "msg_diff", "type": "message", "role": "assistant", "content": [],
        "model": "claude-sonnet-4-5", "stop_reason": None, "stop_sequence": None,
        "usage": u}, **kw)})


def bstart(i, block):
    return ev("content_block_start", {"type": "content_block_start", "index": i,
                                      "content_block": block})


def delta(i, d):
    return ev("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d})


def bstop(i):
    return ev("content_block_stop", {"type": "content_block_stop", "index": i})


def text(i, *pieces):
    out = bstart(i, {"type": "text", "text": ""})
    for p in pieces:
        out += delta(i, {"type": "text_delta", "text": p})
    return out + bstop(i)


def tool(i, tid, name, *pieces):
    out = bstart(i, {"type": "tool_use", "id": tid, "name": name, "input": {}})
    for p in pieces:
        out += delta(i, {"type": "input_json_delta", "partial_json": p})
    return out + bstop(i)


def thinking(i, sig, *pieces):
    out = bstart(i, {"type": "thinking", "thinking": "", "signature": ""})
    for p in pieces:
        out += delta(i, {"type": "thinking_delta", "thinking": p})
    return out + delta(i, {"type": "signature_delta", "signature": sig}) + bstop(i)


def end(reason="end_turn", usage=None, seq=None):
    return ev("message_delta", {"type": "message_delta",
                                "delta": {"stop_reason": reason, "stop_sequence": seq},
                                "usage": usage or {"output_tokens": 15}}) + \
        ev("message_stop", {"type": "message_stop"})


PING = ev("ping", {"type": "ping"})
SIG = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds0jjPsiLK7ZwoNyoTq0A1ee4Y1dd4Wm1WPVzwTQLDtqa5a62mP2hOw5SNMY2Ixr4oYDV0X7mGtRdG6rWpQ=="

CASES = [
    # ordinary
    ("text", {}, start() + text(0, "Hello", ", world.") + end()),
    ("text-unicode", {}, start() + text(0, "caf\u00e9 ", "\u6f22\u5b57 ", "\U0001f600 ok") + end()),
    ("tool", {}, start() + text(0, "Reading.") +
     tool(1, "toolu_01A", "read_file", '{"path": "RE', 'ADME.md"}') + end("tool_use")),
    ("two-tools", {}, start() + tool(0, "toolu_01A", "read", '{"path":"a"}') +
     tool(1, "toolu_01B", "bash", '{"command":', '"ls -l"}') + end("tool_use")),
    ("thinking-tool", {}, start() + thinking(0, SIG, "Let me ", "think.") + text(1, "Ok.") +
     tool(2, "toolu_01C", "read", '{"path":"x"}') + end("tool_use")),
    ("redacted", {}, start() + bstart(0, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3p"}) +
     bstop(0) + text(1, "Done.") + end()),
    ("max-tokens", {}, start() + text(0, "cut sho") + end("max_tokens")),
    ("stop-sequence", {}, start() + text(0, "a") + end("stop_sequence", seq="\n\nHuman:")),
    ("refusal", {}, start() + text(0, "I can't") + end("refusal")),
    ("pause-turn", {}, start() + text(0, "working") + end("pause_turn")),
    ("cache-usage", {}, start({"input_tokens": 30, "cache_creation_input_tokens": 1500,
                               "cache_read_input_tokens": 2048, "output_tokens": 1}) +
     text(0, "x") + end()),
    ("delta-usage", {}, start({"input_tokens": 30, "output_tokens": 1}) + text(0, "x") +
     end(usage={"output_tokens": 9, "input_tokens": 31, "cache_read_input_tokens": 7,
                "cache_creation_input_tokens": 5})),
    # odd
    ("crlf", {"newline": "crlf"}, start() + text(0, "line\n", "two") + end()),
    ("cr", {"newline": "cr"}, start() + text(0, "cr only") + end()),
    ("one-byte-chunks", {"chunk": 1}, start() + thinking(0, SIG, "t") + text(1, "\u00e9\U0001f600") +
     tool(2, "toolu_01D", "f", '{"a":[1,', '2]}') + end("tool_use")),
    ("comments", {}, ": keep-alive\n\n" + start() + ": OPENROUTER PROCESSING\n\n" + text(0, "c") +
     ":\n\n" + end()),
    ("pings", {}, PING + start() + PING + text(0, "p") + PING + PING + end() + PING),
    ("unknown-event", {}, start() + ev("future_thing", {"type": "future_thing", "x": 1}) +
     text(0, "u") + end()),
    ("no-event-lines", {}, "".join(
        ev(n, o, False) for n, o in [
            ("message_start", json.loads(start().split("data: ", 1)[1])),
        ]) + text(0, "d").replace("event: content_block_start\n", "")
     .replace("event: content_block_delta\n", "").replace("event: content_block_stop\n", "") +
     end()),
    ("tool-no-deltas", {}, start() + tool(0, "toolu_01E", "list") + end("tool_use")),
    ("tool-empty-deltas", {}, start() + tool(0, "toolu_01F", "f", "", '{"x":', "", "true}", "") +
     end("tool_use")),
    ("tool-escapes", {}, start() + tool(0, "toolu_01G", "f", '{"s":"\\ud83d', '\\ude00 \\u00e9\\n\\"q\\""}') +
     end("tool_use")),
    ("text-split-surrogate", {}, start() + bstart(0, {"type": "text", "text": ""}) +
     'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\ud83d"}}\n\n'
     'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\\ude00b"}}\n\n'
     + bstop(0) + end()),
    ("empty-text-delta", {}, start() + text(0, "", "x", "") + end()),
    ("text-in-start", {}, start() + bstart(0, {"type": "text", "text": "pre"}) +
     delta(0, {"type": "text_delta", "text": "fix"}) + bstop(0) + end()),
    ("signature-in-start", {}, start() + bstart(0, {"type": "thinking", "thinking": "hm", "signature": "S0"}) +
     bstop(0) + text(1, "y") + end()),
    ("citations", {}, start() + bstart(0, {"type": "text", "text": "", "citations": None}) +
     delta(0, {"type": "citations_delta", "citation": {"type": "char_location", "cited_text": "c",
                                                      "document_index": 0, "document_title": None,
                                                      "start_char_index": 0, "end_char_index": 1}}) +
     delta(0, {"type": "text_delta", "text": "cited"}) + bstop(0) + end()),
    ("multiline-data", {}, start() +
     'event: content_block_start\ndata: {"type":"content_block_start",\ndata: "index":0,"content_block":{"type":"text","text":""}}\n\n'
     + delta(0, {"type": "text_delta", "text": "m"}) + bstop(0) + end()),
    ("bom", {}, "\ufeff" + start() + text(0, "b") + end()),
    ("large-text", {}, start() + text(0, *(["0123456789abcdef" * 64] * 100)) + end()),
    ("nested-input", {}, start() + tool(0, "toolu_01H", "f",
                                        '{"a":{"b":[1.5,2e3,-0.0,null,false]},', '"c":"\\u0041"}') +
     end("tool_use")),
    ("many-blocks", {}, start() + "".join(text(i, "t%d " % i) for i in range(20)) + end()),
    # failures: both sides must fail
    ("error-mid-stream", {}, start() + text(0, "part") +
     ev("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})),
    ("error-first", {}, ev("error", {"type": "error", "error": {"type": "api_error",
                                                                "message": "Internal server error"}})),
    ("no-message-stop", {}, start() + text(0, "cut") +
     ev("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                          "usage": {"output_tokens": 2}})),
    ("cut-mid-block", {}, start() + bstart(0, {"type": "text", "text": ""}) +
     delta(0, {"type": "text_delta", "text": "half"})),
    ("tool-bad-json", {}, start() + tool(0, "toolu_01I", "f", '{"a":', '') + end("tool_use")),
]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    script, names = [], []
    for name, how, sse in CASES:
        names.append(name)
        e = {"when": "diff-case <%s>" % name, "sse": sse, "times": 2}
        e.update(how)
        script.append(e)
    with open(os.path.join(out, "script.json"), "w") as f:
        json.dump(script, f, ensure_ascii=False)
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(names, f)


if __name__ == "__main__":
    main()
