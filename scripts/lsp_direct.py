"""A minimal LSP client over a server's stdio, for scripts/bench-lsp.py: it measures a server's
own latency (change sent -> current diagnostics received) with the same settling rule coderd uses,
so the daemon's overhead is the difference. Standard library only."""

import json
import os
import subprocess
import threading
import time
import urllib.parse


def uri_of(path):
    return "file://" + urllib.parse.quote(path)


class Server:
    def __init__(self, argv, root, settings=None, init_options=None, env=None, check_progress=None):
        self.proc = subprocess.Popen(argv, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env or os.environ.copy())
        self.settings = settings or {}
        self.lock = threading.Condition()
        self.next_id = 1
        self.replies = {}
        self.findings = {}  # uri -> (version, seq, items)
        self.seq = 0
        self.last_publish = 0.0
        self.progress = set()
        self.pull = None  # identifier when the server offers pull diagnostics
        # Check runs on save (rust-analyzer's cargo check), by progress token prefix: runs begun,
        # whether the latest is open, the publish counter at its begin; the count at the last save.
        self.check_progress = check_progress
        self.checks = (0, False, 0)
        self.check_mark = 0
        self.last_pulled = []  # the pull part of the last `settled` answer
        threading.Thread(target=self._read, daemon=True).start()
        caps = {
            "window": {"workDoneProgress": True},
            "workspace": {"configuration": True, "workspaceFolders": True,
                          "diagnostics": {"refreshSupport": True}},
            "textDocument": {
                "synchronization": {"didSave": True},
                "publishDiagnostics": {"versionSupport": True},
                "diagnostic": {"dynamicRegistration": True},
                # scripts/bench-serena.py picks symbols by their names' ranges.
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
            },
        }
        result = self.request("initialize", {
            "processId": os.getpid(), "rootUri": uri_of(root),
            "workspaceFolders": [{"uri": uri_of(root), "name": "ws"}],
            "initializationOptions": init_options, "capabilities": caps,
        }, timeout=60)
        provider = result.get("capabilities", {}).get("diagnosticProvider")
        if provider is not None:
            self.pull = provider.get("identifier") if isinstance(provider, dict) else None
            self.pull = self.pull or ""
        self.notify("initialized", {})
        self.notify("workspace/didChangeConfiguration", {"settings": self.settings})

    def _send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, timeout=10):
        with self.lock:
            rid = self.next_id
            self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        with self.lock:
            while rid not in self.replies:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(method)
                self.lock.wait(left)
            return self.replies.pop(rid)

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    if length is not None:
                        break
                    continue
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            message = json.loads(out.read(length))
            self._handle(message)

    def _handle(self, m):
        method = m.get("method")
        if method is None:
            with self.lock:
                self.replies[m["id"]] = m.get("result") or {}
                self.lock.notify_all()
            return
        params = m.get("params") or {}
        if "id" in m:
            result = None
            if method == "workspace/configuration":
                result = [self._setting(i.get("section")) for i in params.get("items", [])]
            elif method == "client/registerCapability":
                for r in params.get("registrations", []):
                    if r["method"] == "textDocument/diagnostic":
                        with self.lock:
                            self.pull = (r.get("registerOptions") or {}).get("identifier") or ""
                            # A waiting `settled` switches to pulling (pyright registers late).
                            self.lock.notify_all()
            self._send({"jsonrpc": "2.0", "id": m["id"], "result": result})
            return
        with self.lock:
            if method == "textDocument/publishDiagnostics":
                self.seq += 1
                self.last_publish = time.monotonic()
                self.findings[params["uri"]] = (params.get("version"), self.seq, params["diagnostics"])
            elif method == "$/progress":
                kind = params.get("value", {}).get("kind")
                if self.check_progress and str(params["token"]).startswith(self.check_progress):
                    begun, _, began_seq = self.checks
                    self.checks = (begun + 1, True, self.seq) if kind == "begin" else \
                        (begun, False, began_seq) if kind == "end" else self.checks
                elif kind == "begin":
                    self.progress.add(str(params["token"]))
                elif kind == "end":
                    self.progress.discard(str(params["token"]))
            self.lock.notify_all()

    def _setting(self, section):
        value = self.settings
        for key in (section or "").split("."):
            if key:
                value = (value or {}).get(key) if isinstance(value, dict) else None
        return value

    def open(self, path, language_id, text, version):
        """Opens a document whose text is also on disk (a server that checks saved files is told
        it was saved, as coderd does)."""
        with self.lock:
            self.check_mark = self.checks[0]
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri_of(path), "languageId": language_id, "version": version, "text": text}})
        if self.check_progress:
            self.notify("textDocument/didSave", {"textDocument": {"uri": uri_of(path)}})

    def change(self, path, text, version):
        with self.lock:
            self.check_mark = self.checks[0]
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri_of(path), "version": version},
                                               "contentChanges": [{"text": text}]})
        self.notify("textDocument/didSave", {"textDocument": {"uri": uri_of(path)}})

    def settled(self, path, version, sent_seq, quiet=0.150, timeout=10):
        """The diagnostics for `version`: a pull answer, or the first publish about it followed
        by `quiet` seconds without publishes or open progress (coderd's rule)."""
        uri = uri_of(path)
        deadline = time.monotonic() + timeout
        with self.lock:
            while self.pull is None:
                found = self.findings.get(uri)
                now = time.monotonic()
                if found and (found[0] >= version if found[0] is not None else found[1] > sent_seq):
                    if not self.progress and now >= self.last_publish + quiet:
                        return found[2]
                    self.lock.wait(max(0.001, self.last_publish + quiet - now))
                    continue
                if now > deadline:
                    raise TimeoutError("diagnostics")
                self.lock.wait(deadline - now)
        params = {"textDocument": {"uri": uri}}
        if self.pull:
            params["identifier"] = self.pull
        items = self.request("textDocument/diagnostic", params, timeout).get("items", [])
        self.last_pulled = items
        if not self.check_progress:
            return items
        # Then the check run that began after the save, once it ended and publishes were quiet.
        with self.lock:
            while True:
                begun, open_, began_seq = self.checks
                now = time.monotonic()
                if begun > self.check_mark and not open_ and now >= self.last_publish + quiet:
                    found = self.findings.get(uri)
                    return items + (found[2] if found and found[1] > began_seq else [])
                if now > deadline:
                    raise TimeoutError("check")
                self.lock.wait(max(0.001, min(deadline, self.last_publish + quiet) - now))

    def stop(self):
        try:
            self.request("shutdown", None, timeout=2)
            self.notify("exit", None)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
