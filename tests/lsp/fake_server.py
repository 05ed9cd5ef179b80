#!/usr/bin/env python3
"""A scripted language server for the protocol tests (tests/it/lsp_fake.rs): the edge cases real
servers show only now and then, on demand. Standard library only.

Its diagnostics: one error per line containing BROKEN ("broken at line N"). Flags choose how it
reports them:

  --delay MS         publish MS ms after each change (default 0)
  --no-version       publishes carry no version
  --twice            every set is published twice, back to back (intelephense publishes a file's
                     findings again, unversioned, once it has indexed the workspace)
  --stale-first      before each publish, publish the previous version's findings stamped with it
  --progress MS      open a $/progress, publish an empty set at once, the real one MS ms later,
                     then end the progress
  --pull             no publishes: answer textDocument/diagnostic (pull) instead
  --analysis MS      a first analysis of a project for MS ms from the start, inside progress
                     "fake/analysis": pulls made meanwhile are answered at its end, other
                     messages taken meanwhile; later pulls at once
  --check MS         on each didSave, a check run of every open document: progress
                     "fake/check/N" begins, MS ms later it publishes one error per line
                     containing CHECKME ("check found line N"; nothing for a file without any),
                     then the progress ends; a save during a run cancels it first (as
                     rust-analyzer's cargo check does)
  --checks-from N    saves before the Nth start no check run (checks on save turned on later)
  --check-late MS    a save's check run begins MS ms after it (rust-analyzer's begin some 60 ms
                     after the save)
  --check-clears     a check run begins by publishing an empty set for every open document,
                     clearing the last run's findings (as rust-analyzer does)
  --silent           never report anything
  --crash-on WORD    exit(3) when a changed text contains WORD (not at didOpen, so the replay
                     after the restart goes through)
  --exit-at-start    exit(2) before reading anything (a server that cannot start)
  --junk             a line of junk before every frame it writes
  --log PATH         append each document notification it receives to PATH, one JSON line
                     ({"method", "uri", "text"}), for tests of what the daemon sends
"""
import json, sys, threading, time

ARGS = sys.argv[1:]


def flag(name):
    return name in ARGS


def value(name, default=None):
    return ARGS[ARGS.index(name) + 1] if name in ARGS else default


DELAY = int(value("--delay", "0")) / 1000
PROGRESS = value("--progress")
CRASH_ON = value("--crash-on")
out_lock = threading.Lock()
docs = {}  # uri -> (version, text)
previous = {}  # uri -> (version, text) before the latest change
next_id = [1000]


def send(message):
    body = json.dumps(message).encode()
    with out_lock:
        if flag("--junk"):
            sys.stdout.buffer.write(b"fake server: some log line that is not a header\r\n")
        sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        sys.stdout.buffer.flush()


def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            if length is not None:
                break
            continue
        name, _, rest = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(rest)
    return json.loads(sys.stdin.buffer.read(length))


def findings(text):
    return [{
        "range": {"start": {"line": n, "character": 0}, "end": {"line": n, "character": 1}},
        "severity": 1,
        "source": "fake",
        "message": f"broken at line {n + 1}",
    } for n, line in enumerate(text.split("\n")) if "BROKEN" in line]


def publish(uri, version, items):
    params = {"uri": uri, "diagnostics": items}
    if not flag("--no-version"):
        params["version"] = version
    for _ in range(2 if flag("--twice") else 1):
        send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": params})


def report(uri):
    """What a change makes the server say, by the flags."""
    version, text = docs[uri]
    if flag("--silent") or flag("--pull"):
        return
    if flag("--stale-first") and uri in previous:
        old_version, old_text = previous[uri]
        publish(uri, old_version, findings(old_text) + [{
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
            "severity": 1, "source": "fake", "message": f"stale finding of version {old_version}"}])
    if PROGRESS:
        token = f"fake/{version}"
        next_id[0] += 1
        send({"jsonrpc": "2.0", "id": next_id[0], "method": "window/workDoneProgress/create",
              "params": {"token": token}})
        send({"jsonrpc": "2.0", "method": "$/progress",
              "params": {"token": token, "value": {"kind": "begin", "title": "checking"}}})
        publish(uri, version, [])
        time.sleep(int(PROGRESS) / 1000)
        publish(uri, version, findings(text))
        send({"jsonrpc": "2.0", "method": "$/progress",
              "params": {"token": token, "value": {"kind": "end"}}})
        return
    publish(uri, version, findings(text))


STARTED = time.monotonic()
checks = [0]
saves = [0]
running = [None]  # the token of the check run in progress


def check():
    """One check run of every open document, as a workspace-wide tool would. A save during a
    run cancels it (its progress ends, it publishes nothing) and starts a new one."""
    if running[0]:
        send({"jsonrpc": "2.0", "method": "$/progress",
              "params": {"token": running[0], "value": {"kind": "end", "message": "cancelled"}}})
    checks[0] += 1
    token = running[0] = f"fake/check/{checks[0]}"
    send({"jsonrpc": "2.0", "method": "$/progress",
          "params": {"token": token, "value": {"kind": "begin", "title": "check"}}})
    if flag("--check-clears"):
        for uri, (version, _) in list(docs.items()):
            publish(uri, version, [])

    def run():
        time.sleep(int(value("--check")) / 1000)
        with out_lock:
            if running[0] != token:
                return  # Cancelled.
            running[0] = None
        for uri, (version, text) in list(docs.items()):
            found = [{
                "range": {"start": {"line": n, "character": 0}, "end": {"line": n, "character": 1}},
                "severity": 1, "source": "fakecheck", "message": f"check found line {n + 1}",
            } for n, line in enumerate(text.split("\n")) if "CHECKME" in line]
            # A run that finds nothing in a file publishes nothing for it: the last run's
            # findings stay the latest published, and must not be taken for this run's.
            if found:
                publish(uri, version, found)
        send({"jsonrpc": "2.0", "method": "$/progress",
              "params": {"token": token, "value": {"kind": "end"}}})
    threading.Thread(target=run, daemon=True).start()


def analysing(seconds):
    """The progress of a first analysis, open until `seconds` after the start."""
    def progress(kind):
        send({"jsonrpc": "2.0", "method": "$/progress",
              "params": {"token": "fake/analysis", "value": {"kind": kind, "title": "analysis"}}})
    progress("begin")
    threading.Timer(max(0, STARTED + seconds - time.monotonic()), progress, ["end"]).start()


def changed(uri, version, text, opened=False):
    if CRASH_ON and CRASH_ON in text and not opened:
        sys.stderr.write(f"fake server: crashing on {CRASH_ON}\n")
        sys.stderr.flush()
        sys.exit(3)
    if uri in docs:
        previous[uri] = docs[uri]
    docs[uri] = (version, text)

    def later():
        time.sleep(DELAY)
        if docs.get(uri, (None,))[0] == version:
            report(uri)
    threading.Thread(target=later, daemon=True).start()


def capabilities():
    caps = {"textDocumentSync": {"openClose": True, "change": 1, "save": True}}
    if flag("--pull"):
        caps["diagnosticProvider"] = {"interFileDependencies": False, "workspaceDiagnostics": False}
    return caps


def log(method, params):
    if "--log" not in ARGS:
        return
    doc = params.get("textDocument", {})
    changes = params.get("contentChanges") or [{}]
    entry = {"method": method, "uri": doc.get("uri"), "text": doc.get("text", changes[-1].get("text"))}
    with open(value("--log"), "a") as f:
        f.write(json.dumps(entry) + "\n")


def main():
    if flag("--exit-at-start"):
        sys.stderr.write("fake server: cannot start\n")
        sys.exit(2)
    while True:
        message = read()
        method, params = message.get("method"), message.get("params") or {}
        if method and method.startswith("textDocument/did"):
            log(method, params)
        if "id" in message and method is None:
            continue  # A reply to one of our requests.
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": capabilities()}})
        elif method == "initialized" and "--analysis" in ARGS:
            analysing(int(value("--analysis")) / 1000)
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif method == "exit":
            sys.exit(0)
        elif method == "textDocument/didOpen":
            doc = params["textDocument"]
            changed(doc["uri"], doc["version"], doc["text"], opened=True)
        elif method == "textDocument/didChange":
            doc = params["textDocument"]
            changed(doc["uri"], doc["version"], params["contentChanges"][-1]["text"])
        elif method == "textDocument/didSave" and "--check" in ARGS:
            saves[0] += 1
            if saves[0] >= int(value("--checks-from", "1")):
                threading.Timer(int(value("--check-late", "0")) / 1000, check).start()
        elif method == "textDocument/didClose":
            docs.pop(params["textDocument"]["uri"], None)
        elif method == "textDocument/diagnostic":
            uri = params["textDocument"]["uri"]
            items = findings(docs[uri][1]) if uri in docs else []
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": {"kind": "full", "items": items}}
            analysed_at = STARTED + int(value("--analysis") or 0) / 1000
            if time.monotonic() < analysed_at:
                threading.Timer(analysed_at - time.monotonic(), send, [answer]).start()
            else:
                send(answer)
        elif "id" in message:
            send({"jsonrpc": "2.0", "id": message["id"],
                  "error": {"code": -32601, "message": f"unknown method {method}"}})


main()
