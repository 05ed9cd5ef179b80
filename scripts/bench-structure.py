#!/usr/bin/env python3
"""Measures coderd's outline and map on one corpus, beside aider's RepoMap and Universal Ctags.

    bench-structure.py CODERD_BIN CORPUS_DIR LANG_EXT [--aider-python PY] [--runs N]

Prints one JSON object with the medians. Called by scripts/bench-structure.sh; see there.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coderd_bench import Connection  # noqa: E402

RUNS = 3


class Daemon:
    """A fresh coderd on the corpus, talked to over its socket with one persistent connection."""

    def __init__(self, binary, root):
        self.dir = tempfile.mkdtemp(prefix="coderd-bench-")
        self.socket = os.path.join(self.dir, "s.sock")
        # No automatic checkpoints: the edit below would otherwise snapshot the whole corpus with git
        # while the map after it is timed.
        env = dict(os.environ, XDG_RUNTIME_DIR=self.dir, XDG_STATE_HOME=self.dir, XDG_DATA_HOME=self.dir,
                   CODER_CHECKPOINTS="off")
        self.proc = subprocess.Popen(
            [binary, "--root", root, "--socket", self.socket, "--log-file", os.path.join(self.dir, "log")],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.conn = Connection(self.socket, tries=2000)

    def call(self, method, params, **members):
        start = time.perf_counter()
        reply = self.conn.call(method, params, **members)
        elapsed = time.perf_counter() - start
        if "error" in reply:
            raise RuntimeError(f"{method} {params}: {reply['error']}")
        return reply["result"], elapsed

    def cpu_s(self):
        """The daemon's CPU time so far (user + system, all threads): unlike wall time, the same on
        a busy machine as on an idle one."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def source_files(root, ext):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("vendor", "node_modules", "target"))
        for name in sorted(filenames):
            if name.endswith("." + ext):
                out.append(os.path.join(dirpath, name))
    return out


COMMENT = {"go": "\n// coderd bench edit\n", "rs": "\n// coderd bench edit\n", "py": "\n# coderd bench edit\n"}
FUNCTION = {
    "go": "\nfunc coderdBenchEdit() { _ = coderdBenchEdit }\n",
    "rs": "\nfn coderd_bench_edit() { let _ = coderd_bench_edit; }\n",
    "py": "\n\ndef coderd_bench_edit():\n    return coderd_bench_edit\n",
}


def ext_of(path):
    return path.rsplit(".", 1)[-1]


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def bench_outline(binary, root, files):
    daemon = Daemon(binary, root)
    try:
        cold, cached, lines = [], [], 0
        for path in files:
            with open(path, "rb") as f:
                lines += f.read().count(b"\n")
            _, t = daemon.call("outline", {"file": path})
            cold.append(t)
            _, t = daemon.call("outline", {"file": path})
            cached.append(t)
        return {
            "cold_by_file": dict(zip(files, cold)),
            "files": len(files),
            "lines": lines,
            "ms_per_1k_lines": 1000 * sum(cold) / (lines / 1000),
            "p99_file_ms": 1000 * percentile(cold, 99),
            "max_file_ms": 1000 * max(cold),
            "cached_median_ms": 1000 * statistics.median(cached),
            "cached_p99_ms": 1000 * percentile(cached, 99),
        }
    finally:
        daemon.stop()


def bench_map(binary, root, files, runs, cold_by_file):
    colds, cold_cpus, warms, edits = [], [], [], {"comment": [], "function": []}
    rss = 0.0
    first_output = None
    deterministic = True
    for _ in range(runs):
        daemon = Daemon(binary, root)
        try:
            cpu_before = daemon.cpu_s()
            result, t = daemon.call("map", {"budget": 8000})
            colds.append(t)
            cold_cpus.append(daemon.cpu_s() - cpu_before)
            if first_output is None:
                first_output = result["map"]
            deterministic &= result["map"] == first_output
            for _ in range(5):
                _, t = daemon.call("map", {"budget": 8000})
                warms.append(t)
            rss = max(rss, daemon.rss_mb())
            # One file edited through the daemon, then the map again; the edit is undone after. Two
            # edits: a comment (the file's definitions and references stay the same) and a new
            # function that uses a name (its tags change, so the ranking is recomputed). No
            # language server is started (diagnostics off) and no checkpoint is taken.
            target = files[len(files) // 2]
            with open(target, "rb") as f:
                original = f.read()
            for kind, text in (("comment", COMMENT[ext_of(target)]), ("function", FUNCTION[ext_of(target)])):
                daemon.call("write", {"file": target, "content": text, "append": True, "backup": False,
                                      "diagnostics": False}, checkpoints=False)
                result, t = daemon.call("map", {"budget": 8000})
                edits[kind].append((t, result["parsed"]))
                with open(target, "wb") as f:
                    f.write(original)
                daemon.call("map", {"budget": 8000})
        finally:
            daemon.stop()
    return {
        "cold_s": statistics.median(colds),
        "cold_runs": colds,
        "cold_cpu_s": statistics.median(cold_cpus),
        "warm_ms": 1000 * statistics.median(warms),
        "after_edit_ms": 1000 * statistics.median(t for t, _ in edits["comment"]),
        "after_edit_parsed": edits["comment"][0][1],
        "after_new_function_ms": 1000 * statistics.median(t for t, _ in edits["function"]),
        # The bar is "50 ms plus that file's reparse": its first outline, parse included.
        "edited_file_outline_ms": 1000 * cold_by_file[files[len(files) // 2]],
        "rss_mb": rss,
        "map_chars": len(first_output or ""),
        "deterministic": deterministic,
    }


AIDER = r'''
import os, sys, time, shutil
root, budget_tokens = sys.argv[1], int(sys.argv[2])
files = [l.strip() for l in open(sys.argv[3])]
shutil.rmtree(os.path.join(root, ".aider.tags.cache.v4"), ignore_errors=True)
t0 = time.perf_counter()
from aider.repomap import RepoMap
from aider.io import InputOutput
class Model:
    def token_count(self, text):
        return len(text) / 4
rm = RepoMap(map_tokens=budget_tokens, root=root, main_model=Model(), io=InputOutput(yes=True, pretty=False),
             verbose=False, map_mul_no_files=1, refresh="always")
t1 = time.perf_counter()
c1 = time.process_time()
out = rm.get_repo_map([], files)
t2 = time.perf_counter()
c2 = time.process_time()
out2 = rm.get_repo_map([], files, force_refresh=True)
t3 = time.perf_counter()
print(t2 - t1, t3 - t2, len(out or ""), t2 - t0, c2 - c1)
'''


def bench_aider(python, root, files, runs):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(files))
        listing = f.name
    colds, sames, totals, cpus = [], [], [], []
    chars = 0
    for _ in range(runs):
        out = subprocess.run([python, "-c", AIDER, root, "2000", listing], capture_output=True, text=True)
        if out.returncode != 0:
            return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else "failed"}
        cold, same, chars, total, cpu = out.stdout.strip().splitlines()[-1].split()
        colds.append(float(cold))
        cpus.append(float(cpu))
        sames.append(float(same))
        totals.append(float(total))
    return {"cold_s": statistics.median(colds), "cold_cpu_s": statistics.median(cpus),
            "same_process_s": statistics.median(sames),
            "with_import_s": statistics.median(totals), "map_chars": int(chars)}


def bench_ctags(root, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(["ctags", "-R", "--output-format=json", "-f", "/dev/null", "."], cwd=root,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return {"s": statistics.median(times)}


def main():
    binary, root, ext = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    aider_python = None
    runs = RUNS
    args = sys.argv[4:]
    while args:
        flag = args.pop(0)
        if flag == "--aider-python":
            aider_python = args.pop(0)
        elif flag == "--runs":
            runs = int(args.pop(0))
    files = source_files(root, ext)
    report = {"corpus": os.path.basename(root)}
    report["outline"] = bench_outline(binary, root, files)
    report["map"] = bench_map(binary, root, files, runs, report["outline"].pop("cold_by_file"))
    report["ctags"] = bench_ctags(root, runs)
    if aider_python:
        report["aider"] = bench_aider(aider_python, root, files, runs)
    print(json.dumps(report))


main()
