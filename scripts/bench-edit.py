#!/usr/bin/env python3
"""Edit latency over one persistent connection (patch with a unique 3-line anchor on a warm
10k-line ~400 KB file), with fsync on and off, beside `sed -i` on the same file.
Usage: scripts/bench-edit.py [path/to/coderd]   (default target/release/coderd)"""
import json, os, socket, statistics, subprocess, sys, tempfile, time

coderd = sys.argv[1] if len(sys.argv) > 1 else "target/release/coderd"
N = 300

def run(fsync):
    ws = tempfile.mkdtemp()
    lines = [f"    let value_{i} = compute({i}, \"payload-{i:05}\");" for i in range(10000)]
    path = os.path.join(ws, "big.rs")
    open(path, "w").write("\n".join(lines) + "\n")
    cfg = os.path.join(ws, "..", os.path.basename(ws) + ".yaml")
    open(cfg, "w").write(f"fsync: {'true' if fsync else 'false'}\n")
    sock = os.path.join(ws, "..", os.path.basename(ws) + ".sock")
    proc = subprocess.Popen([coderd, "--root", ws, "--socket", sock, "--config", cfg], stderr=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(sock):
            break
        time.sleep(0.02)
    s = socket.socket(socket.AF_UNIX); s.connect(sock); f = s.makefile("rwb")
    def call(i, method, params):
        f.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode()); f.flush()
        return json.loads(f.readline())
    times = []
    for i in range(N):
        k = 5000 + (i % 50) * 10
        a, b = (f"payload-{k:05}", f"PAYLOAD-{k:05}") if i % 100 < 50 else (f"PAYLOAD-{k:05}", f"payload-{k:05}")
        search = "\n".join(l.replace(f"payload-{k:05}", a) for l in lines[k:k+3])
        replace = search.replace(a, b)
        t = time.perf_counter(); r = call(i, "patch", {"file": "big.rs", "search": search, "replace": replace, "backup": False}); times.append(time.perf_counter() - t)
        assert "result" in r, r
    proc.terminate(); proc.wait()
    return times

def sed():
    ws = tempfile.mkdtemp(); path = os.path.join(ws, "big.rs")
    open(path, "w").write("\n".join(f"    let value_{i} = compute({i}, \"payload-{i:05}\");" for i in range(10000)) + "\n")
    times = []
    for i in range(100):
        t = time.perf_counter(); subprocess.run(["sed", "-i", f"s/payload-0{5000+i}/PAYLOAD-0{5000+i}/", path], check=True); times.append(time.perf_counter() - t)
    return times

def q(ts, p):
    ts = sorted(ts); return ts[min(len(ts) - 1, int(len(ts) * p))] * 1000

for label, ts in [("patch, fsync off", run(False)), ("patch, fsync on", run(True)), ("sed -i (process)", sed())]:
    print(f"{label:20} p50 {q(ts, .5):7.2f} ms   p99 {q(ts, .99):7.2f} ms")
