#!/usr/bin/env python3
"""A map's cold costs: a fresh daemon with nothing saved (cold from nothing), a restarted daemon that
finds its saved tag index (cold after restart), the next map of the same daemon (warm: the same
question, its ranking cached; and a new question, ranked again), beside
`ctags -R` on the same tree in the same run. Medians of RUNS; wall time of the `map` request, and,
to compare with ctags (whose whole process is timed), of the whole daemon from its start to the
first map's answer; the daemon's resident memory (VmRSS) after each first map.

    bench-map-restart.py --coderd BIN [--runs N] REPO...

Prints one JSON object per repository (a list).
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coderd_bench import Connection, cpu_s  # noqa: E402

PARAMS = {"budget": 8000}


class Coderd:
    """coderd on `root` with its state (the saved tag index) in `side`; the grammar cache is shared."""

    def __init__(self, binary, root, side, grammars):
        sock = os.path.join(side, "s.sock")
        cfg = os.path.join(side, "coderd.yaml")
        open(cfg, "w").close()
        env = dict(os.environ, XDG_RUNTIME_DIR=side, XDG_STATE_HOME=side, XDG_DATA_HOME=side,
                   CODERD_GRAMMAR_CACHE=grammars, CODER_CHECKPOINTS="off")
        self.started = time.perf_counter()
        self.proc = subprocess.Popen([binary, "--root", root, "--socket", sock, "--config", cfg], env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.conn = Connection(sock, tries=3000)

    def map(self, **extra):
        start = time.perf_counter()
        reply = self.conn.call("map", dict(PARAMS, **extra))
        elapsed = time.perf_counter() - start
        if "error" in reply:
            raise RuntimeError(reply["error"])
        return elapsed, reply["result"]["parsed"]

    def since_start(self):
        """Wall time from the daemon's spawn until now."""
        return time.perf_counter() - self.started

    def rss_mb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            kb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        return kb / 1024

    def cpu_s(self):
        return cpu_s(self.proc.pid)

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def saved(side):
    for dirpath, _, names in os.walk(side):
        if "tags.jsonl" in names or "tags.json" in names:
            return True
    return False


def children_cpu_s():
    """CPU time (user + system) of the children waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(binary, root, runs, grammars, wait_for_save=True):
    rows = {"from_nothing": [], "from_nothing_process": [], "from_nothing_cpu": [], "from_nothing_rss_mb": [],
            "after_restart": [], "after_restart_process": [], "after_restart_cpu": [], "after_restart_rss_mb": [],
            "warm": [], "warm_new_question": [], "ctags": [], "ctags_cpu": [], "parsed_after_restart": []}
    for _ in range(runs):
        side = tempfile.mkdtemp(prefix="coderd-restart-")
        try:
            daemon = Coderd(binary, root, side, grammars)
            rows["from_nothing"].append(daemon.map()[0])
            rows["from_nothing_process"].append(daemon.since_start())
            rows["from_nothing_cpu"].append(daemon.cpu_s())
            rows["from_nothing_rss_mb"].append(daemon.rss_mb())
            rows["warm"].append(daemon.map()[0])
            # A warm daemon asked something new ranks again (what a restarted daemon must do).
            rows["warm_new_question"].append(daemon.map(mentions=["coderd_bench_name"])[0])
            deadline = time.time() + 120
            while wait_for_save and not saved(side) and time.time() < deadline:
                time.sleep(0.05)
            daemon.stop()
            daemon = Coderd(binary, root, side, grammars)
            elapsed, parsed = daemon.map()
            rows["after_restart"].append(elapsed)
            rows["after_restart_process"].append(daemon.since_start())
            rows["after_restart_cpu"].append(daemon.cpu_s())
            rows["after_restart_rss_mb"].append(daemon.rss_mb())
            rows["parsed_after_restart"].append(parsed)
            daemon.stop()
        finally:
            shutil.rmtree(side, ignore_errors=True)
        start, cpu = time.perf_counter(), children_cpu_s()
        subprocess.run(["ctags", "-R", "--output-format=json", "-f", "/dev/null", "."], cwd=root,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        rows["ctags"].append(time.perf_counter() - start)
        rows["ctags_cpu"].append(children_cpu_s() - cpu)
    out = {k: statistics.median(v) for k, v in rows.items() if k != "parsed_after_restart"}
    out["parsed_after_restart"] = max(rows["parsed_after_restart"])
    out["repo"] = os.path.basename(root.rstrip("/"))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--coderd", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-store", action="store_true",
                        help="the binary keeps no tag index on disk (an older coderd): do not wait for one")
    parser.add_argument("repos", nargs="+")
    args = parser.parse_args()
    grammars = tempfile.mkdtemp(prefix="coderd-grammars-")
    try:
        # One daemon first, so the grammar cache is filled before anything is timed.
        side = tempfile.mkdtemp(prefix="coderd-restart-")
        warmup = Coderd(args.coderd, os.path.abspath(args.repos[0]), side, grammars)
        warmup.map()
        warmup.stop()
        shutil.rmtree(side, ignore_errors=True)
        print(json.dumps([measure(args.coderd, os.path.abspath(r), args.runs, grammars, not args.no_store) for r in args.repos]))
    finally:
        shutil.rmtree(grammars, ignore_errors=True)


main()
