#!/usr/bin/env python3
"""Edit benchmarks over one persistent connection to a release coderd, each beside a peer run in the
same process on the same files (sed -i, GNU patch), with medians, p99 and ratios.

  1. patch, unique 3-line anchor, warm 10k-line ~400 KB file (fsync off and on) vs sed -i
  2. unified diff with 5 hunks on that file vs GNU patch
  3. update-file with 50 line ops + 1 regex on that file vs one sed -i with the same 51 commands
  4. a patch that fails (not found) and answers the closest candidate
  5. multipatch over 20 files x 2 edits (fsync off and on) vs 20 sed -i
  6. RSS with 1,000 open documents of 40 KB (read each, then info)

Usage: scripts/bench-edit.py [path/to/coderd] [--quick] [--n=300]
       [--only=patch,diff,update,notfound,multipatch,documents]
(default target/release/coderd; --only runs just the named rows, e.g. while profiling one)"""
import json, os, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coderd_bench  # noqa: E402

args = [a for a in sys.argv[1:] if not a.startswith("--")]
coderd = os.path.abspath(args[0] if args else "target/release/coderd")
N = 60 if "--quick" in sys.argv else 300
N = next((int(a.split("=", 1)[1]) for a in sys.argv[1:] if a.startswith("--n=")), N)
ONLY = next((a.split("=", 1)[1].split(",") for a in sys.argv[1:] if a.startswith("--only=")), None)
LINES = [f"    let value_{i} = compute({i}, \"payload-{i:05}\");" for i in range(10000)]
BIG = "\n".join(LINES) + "\n"


class Daemon(coderd_bench.Daemon):
    def __init__(self, fsync):
        # Language-server diagnostics off: they are measured on their own (see docs/benchmarks.md), and
        # with a server installed for .rs every edit here would also wait on rust-analyzer.
        super().__init__(coderd, "bench-edit-",
                         f"fsync: {'true' if fsync else 'false'}\nautodiag: false\n")
        self.start()

    def timed(self, method, params, ok=True):
        t = time.perf_counter()
        r = self.call(method, params)
        took = time.perf_counter() - t
        assert ("result" in r) == ok, r
        return took


def q(ts, p):
    ts = sorted(ts)
    return ts[min(len(ts) - 1, int(len(ts) * p))] * 1000


def run_process(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def write_big(ws):
    path = os.path.join(ws, "big.rs")
    open(path, "w").write(BIG)
    return path


def toggle(k, i):
    """The line k's payload and its replacement, flipping direction every 50 iterations."""
    a, b = f"payload-{k:05}", f"PAYLOAD-{k:05}"
    return (a, b) if i % 100 < 50 else (b, a)


def bench_patch(fsync):
    d = Daemon(fsync)
    write_big(d.ws)
    d.call("read", {"file": "big.rs", "head": 1})
    times = []
    for i in range(N):
        k = 5000 + (i % 50) * 10
        a, b = toggle(k, i)
        search = "\n".join(l.replace(f"payload-{k:05}", a) for l in LINES[k:k + 3])
        times.append(d.timed("patch", {"file": "big.rs", "search": search, "replace": search.replace(a, b), "backup": False}))
    d.close()
    return times


def sed_patch():
    ws = tempfile.mkdtemp()
    path = write_big(ws)
    times = [run_process(["sed", "-i", f"s/payload-0{5000 + i}/PAYLOAD-0{5000 + i}/", path]) for i in range(min(N, 100))]
    shutil.rmtree(ws)
    return times


def five_hunk_diff(i):
    """A unified diff changing 5 spread lines, forwards on even i, backwards on odd i."""
    out = ["--- a/big.rs", "+++ b/big.rs"]
    for h in range(5):
        k = 1000 + h * 1700 + (i // 2 % 20) * 3
        a, b = f"payload-{k:05}", f"PAYLOAD-{k:05}"
        if i % 2:
            a, b = b, a
        out.append(f"@@ -{k - 2},7 +{k - 2},7 @@")
        out += [" " + l for l in LINES[k - 3:k]]
        out.append("-" + LINES[k].replace(f"payload-{k:05}", a))
        out.append("+" + LINES[k].replace(f"payload-{k:05}", b))
        out += [" " + l for l in LINES[k + 1:k + 4]]
    return "\n".join(out) + "\n"


def bench_diff():
    d = Daemon(False)
    write_big(d.ws)
    d.call("read", {"file": "big.rs", "head": 1})
    times = [d.timed("patch", {"diff": five_hunk_diff(i), "backup": False}) for i in range(N)]
    d.close()
    ws = tempfile.mkdtemp()
    write_big(ws)
    peer = []
    for i in range(min(N, 100)):
        path = os.path.join(ws, "d.patch")
        open(path, "w").write(five_hunk_diff(i))
        peer.append(run_process(["patch", "-s", "-p1", "-d", ws, "-i", path]))
    shutil.rmtree(ws)
    return times, peer


def update_ops(i):
    ops = [{"op": "update_lines", "from_line": 100 + j * 150, "to_line": 100 + j * 150,
            "content": f"    let value_{j} = changed({i}, {j});"} for j in range(50)]
    a, b = ("payload-00007", "PAYLOAD-00007") if i % 2 == 0 else ("PAYLOAD-00007", "payload-00007")
    ops.append({"op": "replace", "pattern": a, "replacement": b, "expect_matches": 1})
    return ops


def bench_update():
    d = Daemon(False)
    write_big(d.ws)
    d.call("read", {"file": "big.rs", "head": 1})
    times = [d.timed("update-file", {"files": [{"path": "big.rs", "ops": update_ops(i)}]}) for i in range(N)]
    d.close()
    ws = tempfile.mkdtemp()
    path = write_big(ws)
    peer = []
    for i in range(min(N, 100)):
        script = [f"{100 + j * 150}c\\\n    let value_{j} = changed({i}, {j});" for j in range(50)]
        a, b = ("payload-00007", "PAYLOAD-00007") if i % 2 == 0 else ("PAYLOAD-00007", "payload-00007")
        script.append(f"s/{a}/{b}/")
        args = ["sed", "-i"]
        for s in script:
            args += ["-e", s]
        peer.append(run_process(args + [path]))
    shutil.rmtree(ws)
    return times, peer


def bench_not_found():
    d = Daemon(False)
    write_big(d.ws)
    d.call("read", {"file": "big.rs", "head": 1})
    times = []
    for i in range(N):
        k = 100 + (i * 37) % 9800
        # Three real lines with one character changed in the middle one: absent, but close.
        search = "\n".join([LINES[k], LINES[k + 1].replace("compute", "compote"), LINES[k + 2]])
        t = time.perf_counter()
        r = d.call("patch", {"file": "big.rs", "search": search, "replace": "x"})
        times.append(time.perf_counter() - t)
        assert "error" in r and "closest" in json.dumps(r), r
    d.close()
    return times


def small_file(n):
    return "".join(f"fn item_{n}_{j}() -> u32 {{ {j} }}\n" for j in range(200))


def bench_multipatch(fsync):
    d = Daemon(fsync)
    for n in range(20):
        open(os.path.join(d.ws, f"m{n}.rs"), "w").write(small_file(n))
    times = []
    for i in range(N):
        fwd = i % 2 == 0
        edits = []
        for n in range(20):
            for j in (10, 150):
                a, b = f"{{ {j} }}", f"{{ {j} + 1 }}"
                s, r = (a, b) if fwd else (b, a)
                edits.append({"file": f"m{n}.rs", "search": f"fn item_{n}_{j}() -> u32 {s}", "replace": f"fn item_{n}_{j}() -> u32 {r}"})
        times.append(d.timed("multipatch", {"edits": edits, "backup": False}))
    d.close()
    return times


def sed_multipatch():
    ws = tempfile.mkdtemp()
    for n in range(20):
        open(os.path.join(ws, f"m{n}.rs"), "w").write(small_file(n))
    times = []
    for i in range(min(N, 50)):
        t = time.perf_counter()
        for n in range(20):
            subprocess.run(["sed", "-i", "-e", f"s/item_{n}_10() -> u32 {{ 10 }}/item_{n}_10() -> u32 {{ 11 }}/",
                            "-e", f"s/item_{n}_150() -> u32 {{ 150 }}/item_{n}_150() -> u32 {{ 151 }}/",
                            os.path.join(ws, f"m{n}.rs")], check=True)
        times.append(time.perf_counter() - t)
    shutil.rmtree(ws)
    return times


def bench_documents():
    d = Daemon(False)
    body = "".join(f"line {j:05} of a forty kilobyte file, padded to sixty-four bytes....\n" for j in range(640))
    for n in range(1000):
        open(os.path.join(d.ws, f"doc{n:04}.txt"), "w").write(body)
    before = d.call("info", {})["result"]["rss_bytes"]
    for n in range(1000):
        r = d.call("read", {"file": f"doc{n:04}.txt", "head": 5})
        assert "version" in r["result"], r
    info = d.call("info", {})["result"]
    d.close()
    return before, info["rss_bytes"], info["documents"], len(body)


def row(label, ts, peer=None, peer_label=""):
    line = f"| {label} | {q(ts, .5):.2f} ms | {q(ts, .99):.2f} ms |"
    if peer:
        line += f" {peer_label} {q(peer, .5):.2f} ms | {q(ts, .5) / q(peer, .5):.2f} |"
    else:
        line += " | |"
    print(line, flush=True)


def wanted(name):
    return ONLY is None or name in ONLY


print("| benchmark | p50 | p99 | peer p50 | ratio (p50) |")
print("|---|---:|---:|---:|---:|")
if wanted("patch"):
    sed = sed_patch()
    row("patch 3-line anchor, 400 KB, fsync off", bench_patch(False), sed, "sed -i")
    row("patch 3-line anchor, 400 KB, fsync on", bench_patch(True), sed, "sed -i")
if wanted("diff"):
    times, peer = bench_diff()
    row("unified diff, 5 hunks, 400 KB", times, peer, "GNU patch")
if wanted("update"):
    times, peer = bench_update()
    row("update-file, 50 line ops + 1 regex, 400 KB", times, peer, "sed -i")
if wanted("notfound"):
    row("not found + closest candidate, 400 KB", bench_not_found())
if wanted("multipatch"):
    sed = sed_multipatch()
    row("multipatch 20 files x 2 edits, fsync off", bench_multipatch(False), sed, "20 x sed -i")
    row("multipatch 20 files x 2 edits, fsync on", bench_multipatch(True), sed, "20 x sed -i")
if wanted("documents"):
    before, after, docs, size = bench_documents()
    print(f"\n1,000 documents of {size // 1024} KB: RSS {before / 2**20:.1f} MiB before, {after / 2**20:.1f} MiB after; "
          f"store: {docs['documents']} documents, {docs['bytes'] / 2**20:.1f} MiB of {docs['budget_bytes'] / 2**20:.0f} MiB budget, "
          f"{docs['evictions']} evictions")
