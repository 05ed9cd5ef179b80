#!/usr/bin/env python3
"""Semantic moves benchmark: coderd's `references` and `definition` against the same language
server asked directly over its stdio (scripts/lsp_direct.py), side by side in one run, on the
fixtures of tests/it/navigate.rs (a Go module and a Rust crate whose function is used in 20 files).

Each round asks the server directly, then coderd (one persistent socket connection), the same
position, alternating, after both are warm; the table gives the medians, coderd's overhead
(its p50 minus the server's) and whether the two answers list the same places.

Usage: scripts/bench-navigate.py [path/to/coderd] [--rounds=N]
  (default: target/debug/coderd, 30 rounds; build it first with `cargo build`)
Servers come from ${CODERD_SERVERS_DIR:-~/.local/share/coderd/servers}/bin."""
import json, os, shutil, sys, tempfile, time, tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coderd_bench  # noqa: E402
from coderd_bench import until  # noqa: E402

# How long a language server may take to load before its first answer.
LOAD_S = 180
import lsp_direct  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = [a for a in sys.argv[1:] if not a.startswith("--")]
CODERD = os.path.abspath(args[0] if args else os.path.join(REPO, "target/debug/coderd"))
ROUNDS = int(next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--rounds=")), 30))
SERVERS_DIR = os.environ.get("CODERD_SERVERS_DIR") or os.path.join(
    os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "coderd/servers")
BIN = os.path.join(SERVERS_DIR, "bin")
DEFS = {s["name"]: s for s in tomllib.load(open(os.path.join(REPO, "data/servers.toml"), "rb"))["server"]}
USERS = 20
BAR = 0.010


def go_files():
    files = {"go.mod": "module shop\n\ngo 1.21\n",
             "total.go": "package shop\n\n// ComputeTotal adds the items up.\nfunc ComputeTotal(items []int) int {\n"
                         "\tsum := 0\n\tfor _, i := range items {\n\t\tsum += i\n\t}\n\treturn sum\n}\n"}
    for n in range(1, USERS + 1):
        files[f"f{n:02}.go"] = f"package shop\n\nfunc F{n:02}() int {{\n\treturn ComputeTotal([]int{{{n}}})\n}}\n"
    return files


def rust_files():
    files = {"Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'}
    lib = ""
    for n in range(1, USERS + 1):
        lib += f"pub mod m{n:02};\n"
        files[f"src/m{n:02}.rs"] = (f"use crate::compute_total;\n\npub fn f{n:02}() -> u32 {{\n"
                                    f"    compute_total(&[{n}]) + crate::compute_total(&[1])\n}}\n")
    files["src/lib.rs"] = lib + "\n/// Adds the items up.\npub fn compute_total(items: &[u32]) -> u32 {\n    items.iter().sum()\n}\n"
    return files


# (language, server, files, the file asked in, 1-based line and column of a call)
CASES = [("go", "gopls", go_files, "f07.go", 4, 9),
         ("rust", "rust-analyzer", rust_files, "src/m07.rs", 4, 5)]


def write(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def median(ts):
    s = sorted(ts)
    return s[len(s) // 2]


def places_direct(result):
    items = result if isinstance(result, list) else [result] if result else []
    out = set()
    for l in items:
        uri = l.get("uri") or l.get("targetUri")
        r = l.get("targetSelectionRange") or l.get("range")
        out.add((lsp_direct.urllib.parse.unquote(uri[len("file://"):]), r["start"]["line"] + 1, r["start"]["character"] + 1))
    return out


def places_coderd(reply):
    result = reply.get("result") or {}
    return {(l["path"], l["line"], l["column"]) for l in result.get("locations", [])}, result.get("source")


def run_case(language, server, files, rel, line, column):
    binary = os.path.join(BIN, server)
    if not os.path.exists(binary):
        print(f"{server}: not installed in {BIN}, skipped")
        return []
    d = coderd_bench.Daemon(CODERD, f"bench-navigate-{language}-",
                            config="lsp:\n  warm_deadline_ms: 30000\n  cold_deadline_ms: 120000\n",
                            env={"CODERD_SERVERS_DIR": SERVERS_DIR})
    write(d.ws, files())
    direct_root = tempfile.mkdtemp(prefix=f"bench-navigate-direct-{language}-")
    write(direct_root, files())
    d.start()
    spec = DEFS[server]
    argv = [binary] + spec.get("args", [])
    direct = lsp_direct.Server(argv, direct_root, settings=spec.get("settings"),
                               init_options=spec.get("initialization_options"))
    path = os.path.join(direct_root, rel)
    direct.open(path, language, open(path).read(), 1)
    rows = []
    for method, extra in (("references", {"context": {"includeDeclaration": True}}), ("definition", {})):
        params = {"textDocument": {"uri": lsp_direct.uri_of(path)},
                  "position": {"line": line - 1, "character": column - 1}, **extra}
        ask_direct = lambda: places_direct(direct.request(f"textDocument/{method}", params, timeout=120))
        ask_coderd = lambda: d.call(method, {"file": rel, "line": line, "column": column})
        warm_direct = until(ask_direct, LOAD_S)
        warm_coderd, source = places_coderd(until(lambda: places_coderd(ask_coderd())[0] and ask_coderd(), LOAD_S))
        same = {(os.path.relpath(p, direct_root), l, c) for p, l, c in warm_direct} == \
               {(os.path.relpath(p, d.ws), l, c) for p, l, c in warm_coderd}
        t_direct, t_coderd = [], []
        for _ in range(ROUNDS):
            t = time.perf_counter(); ask_direct(); t_direct.append(time.perf_counter() - t)
            t = time.perf_counter(); ask_coderd(); t_coderd.append(time.perf_counter() - t)
        rows.append((language, method, server, source, len(warm_coderd), same, median(t_direct), median(t_coderd)))
    direct.stop()
    d.close()
    shutil.rmtree(direct_root, ignore_errors=True)
    return rows


def main():
    print(f"coderd: {CODERD}; {ROUNDS} rounds; bar: overhead p50 <= {BAR * 1000:.0f} ms")
    rows = []
    for case in CASES:
        rows += run_case(*case)
    print("\n| language | method | server | places | same as the server | server p50 ms | coderd p50 ms | overhead ms | bar |")
    print("|---|---|---|---|---|---|---|---|---|")
    ok = True
    for language, method, server, source, n, same, p_direct, p_coderd in rows:
        overhead = p_coderd - p_direct
        met = same and source == server and overhead <= BAR
        ok &= met
        print(f"| {language} | {method} | {server} | {n} | {'yes' if same else 'NO'} | {p_direct * 1000:.2f} | "
              f"{p_coderd * 1000:.2f} | {overhead * 1000:.2f} | {'met' if met else 'NOT MET'} |")
    sys.exit(0 if ok else 1)


main()
