#!/usr/bin/env python3
"""compare.py: mc-send's answers beside the SDK's, case by case, for make diff-anthropic.

usage: compare.py CASES.json SDK.jsonl MCDIR   (MCDIR/NAME.events: mc-send --events)
Both sides are brought to one form: the reasoning blocks, the text joined,
the tool calls (input as parsed JSON), the stop reason in mc's words
(mc-send(1): end_turn and stop_sequence stop, tool_use tool_calls,
max_tokens length; stop with calls is tool_calls), and the usage with
input as the sum of input, cache read and cache creation. A failed answer
is compared only as failed. Exit 1 when a case differs other than as
KNOWN says (each with why mc-send is right).
"""
import json
import os
import sys

STOP = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls",
        "max_tokens": "length", "model_context_window_exceeded": "length", None: "stop"}


# Where mc-send and the SDK part, and why mc-send is right.
KNOWN = {
    "no-event-lines": "events without an `event:` line: the SDK dispatches on the SSE event "
    "name alone and finds none; mc-send reads the data's own \"type\", which the API "
    "always sends and which names the event as well",
    "tool-bad-json": "a tool input that is not JSON once joined: the SDK's partial-JSON "
    "parser makes it {} and the tool would run without its arguments; mc-send fails the "
    "answer, naming the tool",
}


def sdk_form(line):
    if "error" in line:
        return {"failed": True}
    m = line["message"]
    out = {"reasoning": [], "text": "", "calls": []}
    for b in m["content"]:
        t = b.get("type")
        if t == "thinking":
            out["reasoning"].append({"text": b.get("thinking", ""),
                                     "data": {"type": "thinking", "signature": b.get("signature", "")}})
        elif t == "redacted_thinking":
            out["reasoning"].append({"text": "", "data": {"type": "redacted_thinking",
                                                          "data": b.get("data")}})
        elif t == "text":
            out["text"] += b.get("text", "")
        elif t == "tool_use":
            out["calls"].append({"id": b["id"], "name": b["name"], "input": b.get("input")})
    stop = STOP.get(m.get("stop_reason"), m.get("stop_reason"))
    if stop == "stop" and out["calls"]:
        stop = "tool_calls"
    out["stop"] = stop
    u = m.get("usage") or {}
    read = u.get("cache_read_input_tokens") or 0
    made = u.get("cache_creation_input_tokens") or 0
    out["usage"] = [u.get("input_tokens", 0) + read + made, u.get("output_tokens", 0), read, made]
    return out


def mc_form(path):
    out = {"reasoning": [], "text": "", "calls": []}
    with open(path, encoding="utf-8") as f:
        for raw in f:
            e = json.loads(raw)
            t = e["type"]
            if t == "error":
                return {"failed": True}
            if t == "text":
                out["text"] += e["delta"]
            elif t == "reasoning_item":
                out["reasoning"].append({"text": e["text"], "data": e.get("data")})
            elif t == "tool_call":
                out["calls"].append({"id": e["call_id"], "name": e["name"],
                                     "input": json.loads(e["arguments"] or "{}")})
            elif t == "usage":
                out["usage"] = [e["input_tokens"], e["output_tokens"], e["cached_tokens"],
                                e.get("cache_write_tokens", 0)]
            elif t == "done":
                out["stop"] = e["finish_reason"]
    if "stop" not in out:
        return {"failed": True}
    return out


def main():
    cases = json.load(open(sys.argv[1]))
    sdk = {}
    for raw in open(sys.argv[2], encoding="utf-8"):
        line = json.loads(raw)
        sdk[line["case"]] = line
    differ = 0
    for name in cases:
        a = sdk_form(sdk[name]) if name in sdk else {"missing": True}
        b = mc_form(os.path.join(sys.argv[3], name + ".events"))
        if a == b:
            print("same     %s" % name)
        elif name in KNOWN:
            print("known    %s: %s" % (name, KNOWN[name]))
        else:
            differ += 1
            print("DIFFERS  %s\n  sdk: %s\n  mc:  %s" % (
                name, json.dumps(a, ensure_ascii=False)[:600],
                json.dumps(b, ensure_ascii=False)[:600]))
            if "error" in sdk.get(name, {}):
                print("  sdk error: %s" % sdk[name]["error"][:300])
    known = sum(1 for n in cases if n in KNOWN)
    print("%d cases: %d the same, %d known differences (above), %d unexplained" % (
        len(cases), len(cases) - differ - known, known, differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
