#!/usr/bin/env python3
"""fake-acp-client.py: a scripted Agent Client Protocol client, for tests only.

usage: fake-acp-client.py [--timeout S] SCRIPT CMD [ARG...]

Starts CMD (e.g. mc acp) with pipes for stdin and stdout (its stderr is
left as it is), plays the script, and prints every line CMD wrote on its
stdout as it came, one a line; a line that is not JSON is printed as
{"not_json": LINE}, one that is not UTF-8 as {"not_utf8": LINE}. At the end it prints {"exit": STATUS} (the exit status
of CMD, or "timeout" after --timeout seconds, default 20, when CMD was
then killed). Exits 0 unless the script could not be played.

The script is a JSON array of steps, played in order:

  {"send": MESSAGE}     a JSON-RPC message ("jsonrpc":"2.0" added); every
                        string "$SESSION" in it becomes the sessionId of
                        the last session/new answer
  {"raw": TEXT}         TEXT sent as it is, a newline after it
  {"wait": ID}          until the answer to request ID has come
  {"wait_update": KIND} until a session/update of that kind has come
                        (after those already waited for)
  {"sleep": S}
  {"close": true}       close CMD's stdin; the processes below CMD then
                        are noted, and at the end {"left": [PID...]}
                        prints those still running

Requests CMD sends are answered at once, as "answers" says (an object
given as a step of its own, {"answers": {...}}, replacing what it set):

  permission    a list of optionIds, one per session/request_permission
                in turn ("cancelled" answers the outcome cancelled; when
                the list runs out: reject_once)
  files         {PATH: TEXT}: what fs/read_text_file returns for PATH
                (honouring line and limit); other paths get an error
  delay         seconds to wait before answering a permission request

fs/write_text_file is answered {} and the file's new text kept in files.
"""
import json
import os
import subprocess
import sys
import threading
import time

lock = threading.Condition()
got = []             # every message received, in order
state = {"answers": {}, "perm": 0, "session": None, "updates_seen": 0}


def out(obj):
    with lock:
        sys.stdout.write(json.dumps(obj, sort_keys=True) + "\n")
        sys.stdout.flush()


def subst(v):
    if isinstance(v, str):
        return state["session"] if v == "$SESSION" and state["session"] else v
    if isinstance(v, list):
        return [subst(x) for x in v]
    if isinstance(v, dict):
        return {k: subst(x) for k, x in v.items()}
    return v


def send(proc, msg):
    msg = dict(msg)
    msg.setdefault("jsonrpc", "2.0")
    try:
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()
    except (BrokenPipeError, ValueError):
        pass


def answer(proc, m):
    a = state["answers"]
    method, params, rid = m.get("method"), m.get("params") or {}, m.get("id")
    if method == "session/request_permission":
        perms = a.get("permission", [])
        choice = perms[state["perm"]] if state["perm"] < len(perms) else "reject_once"
        state["perm"] += 1
        time.sleep(a.get("delay", 0))
        if choice == "cancelled":
            res = {"outcome": {"outcome": "cancelled"}}
        else:
            res = {"outcome": {"outcome": "selected", "optionId": choice}}
        send(proc, {"id": rid, "result": res})
    elif method == "fs/read_text_file":
        files = a.get("files", {})
        path = params.get("path")
        if path not in files:
            send(proc, {"id": rid, "error": {"code": -32002, "message": "not found: %s" % path}})
            return
        lines = files[path].splitlines(keepends=True)
        start = (params.get("line") or 1) - 1
        end = start + params["limit"] if params.get("limit") else len(lines)
        send(proc, {"id": rid, "result": {"content": "".join(lines[start:end])}})
    elif method == "fs/write_text_file":
        a.setdefault("files", {})[params.get("path")] = params.get("content")
        send(proc, {"id": rid, "result": {}})
    elif rid is not None:
        send(proc, {"id": rid, "error": {"code": -32601, "message": "method not found"}})


def reader(proc):
    for raw in proc.stdout:
        try:    # JSON text is UTF-8 (RFC 8259 8.1): a client may refuse the rest
            line = raw.decode("utf-8").rstrip("\n")
        except UnicodeDecodeError:
            out({"not_utf8": raw.decode("utf-8", "replace").rstrip("\n")})
            continue
        try:
            m = json.loads(line)
        except ValueError:
            out({"not_json": line})
            continue
        out(m)
        if isinstance(m, dict) and isinstance(m.get("result"), dict) and \
                m["result"].get("sessionId"):
            state["session"] = m["result"]["sessionId"]
        if isinstance(m, dict) and m.get("method") and m.get("id") is not None:
            threading.Thread(target=answer, args=(proc, m), daemon=True).start()
        with lock:
            got.append(m)
            lock.notify_all()
    with lock:
        got.append(None)
        lock.notify_all()


def wait_for(pred, deadline):
    with lock:
        while not any(pred(m) for m in got):
            if None in got or time.monotonic() > deadline:
                return False
            lock.wait(0.1)
        return True


def below(pid):
    """The processes below pid, from /proc."""
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    found, todo = [], [pid]
    while todo:
        for k in kids.get(todo.pop(), []):
            found.append(k)
            todo.append(k)
    return found


def running(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def main():
    args = sys.argv[1:]
    timeout = 20.0
    if args[:1] == ["--timeout"]:
        timeout = float(args[1])
        args = args[2:]
    with open(args[0]) as f:
        script = json.load(f)
    proc = subprocess.Popen(args[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    t = threading.Thread(target=reader, args=(proc,), daemon=True)
    t.start()
    deadline = time.monotonic() + timeout
    for step in script:
        if "answers" in step:
            state["answers"] = step["answers"]
        elif "send" in step:
            send(proc, subst(step["send"]))
        elif "raw" in step:
            try:
                proc.stdin.write((step["raw"] + "\n").encode())
                proc.stdin.flush()
            except BrokenPipeError:
                pass
        elif "wait" in step:
            rid = step["wait"]
            wait_for(lambda m: isinstance(m, dict) and m.get("id") == rid and
                     "method" not in m, deadline)
        elif "wait_update" in step:
            kind, n = step["wait_update"], state["updates_seen"]

            def seen(m, kind=kind):
                return isinstance(m, dict) and m.get("method") == "session/update" and \
                    m["params"]["update"].get("sessionUpdate") == kind
            with lock:
                count = sum(1 for m in got if seen(m))
            if count <= n:
                wait_for(lambda m: sum(1 for x in got if seen(x)) > n, deadline)
            state["updates_seen"] = n + 1
        elif "sleep" in step:
            time.sleep(step["sleep"])
        elif step.get("close"):
            state["below"] = below(proc.pid)
            proc.stdin.close()
    if not proc.stdin.closed:
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass
    try:
        status = proc.wait(max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        status = "timeout"
    t.join(2)
    out({"exit": status})
    if "below" in state:
        time.sleep(0.5)
        out({"left": [p for p in state["below"] if running(p)]})


if __name__ == "__main__":
    main()
